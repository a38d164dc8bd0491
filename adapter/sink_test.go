package adapter

import (
	"testing"
	"time"

	"github.com/genui-adapter/genui-adapter/adapter/runlog"
	"github.com/genui-adapter/genui-adapter/agui"
)

// discardStream is an sseWriter that counts what it is given.
type discardStream struct{ writes, flushes int }

func (d *discardStream) Write(p []byte) (int, error)      { d.writes++; return len(p), nil }
func (d *discardStream) Flush() error                     { d.flushes++; return nil }
func (d *discardStream) SetWriteDeadline(time.Time) error { return nil }

// BenchmarkSinkPacedEvent is what a stream at LLM pace costs the sink per
// event: one event sent and flushed, among a thousand other streams'
// armed timers (heartbeats, flushers), as at 1,000 live streams.
func BenchmarkSinkPacedEvent(b *testing.B) {
	s := &Server{cfg: Config{}}
	others := make([]*sseSink, 1000)
	for i := range others {
		others[i] = s.newSink(&discardStream{}, agui.NewEncoder(&discardStream{}), true, nil)
	}
	defer func() {
		for _, k := range others {
			k.close()
		}
	}()
	w := &discardStream{}
	k := s.newSink(w, agui.NewEncoder(w), true, nil)
	defer k.close()
	e := []runlog.Entry{{Seq: 1, Data: []byte(`{"type":"TEXT_MESSAGE_CONTENT","messageId":"m","delta":"token "}`)}}
	b.ReportAllocs()
	for b.Loop() {
		e[0].Seq++
		if k.Send(e, true) != nil {
			b.Fatal("the sink failed")
		}
	}
}

// The heartbeat timer is not reset per batch: when it fires it sends a
// keep-alive only if nothing was written for a whole heartbeat, else it
// waits out the rest.
func TestSinkHeartbeatCountsFromTheLastWrite(t *testing.T) {
	s := &Server{cfg: Config{Heartbeat: Duration(time.Hour)}}
	w := &discardStream{}
	k := s.newSink(w, agui.NewEncoder(w), true, nil)
	defer k.close()
	if err := k.Send([]runlog.Entry{{Seq: 1, Data: []byte(`{"type":"RUN_STARTED","threadId":"t","runId":"r"}`)}}, false); err != nil {
		t.Fatal(err)
	}
	if err := k.Flush(); err != nil {
		t.Fatal(err)
	}
	writes, flushes := w.writes, w.flushes
	k.beat() // as if the timer fired now: an event went out just before
	if w.writes != writes || w.flushes != flushes {
		t.Fatalf("a heartbeat went out right after an event (%d writes, %d flushes; want %d, %d)", w.writes, w.flushes, writes, flushes)
	}
	k.mu.Lock()
	k.sent = time.Now().Add(-time.Hour) // the event went out a heartbeat ago
	k.mu.Unlock()
	k.beat()
	if w.writes != writes+1 || w.flushes != flushes+1 {
		t.Fatalf("no heartbeat after a heartbeat of silence (%d writes, %d flushes; want %d, %d)", w.writes, w.flushes, writes+1, flushes+1)
	}
	k.beat() // the keep-alive counts as a write
	if w.writes != writes+1 {
		t.Fatalf("a second heartbeat right after the first (%d writes)", w.writes)
	}
}

// Send with now flushes at once, and what was queued before with it;
// without, the batch waits for Flush or, at most flushDelay, the flusher.
func TestSinkSendNowOrQueued(t *testing.T) {
	s := &Server{cfg: Config{}}
	w := &discardStream{}
	k := s.newSink(w, agui.NewEncoder(w), true, nil)
	defer k.close()
	e := []runlog.Entry{{Seq: 1, Data: []byte(`{"type":"RUN_STARTED","threadId":"t","runId":"r"}`)}}
	if err := k.Send(e, true); err != nil {
		t.Fatal(err)
	}
	if w.flushes != 1 || k.pending {
		t.Fatalf("sent now: %d flushes, pending %v; want 1, false", w.flushes, k.pending)
	}
	if err := k.Send(e, false); err != nil {
		t.Fatal(err)
	}
	k.mu.Lock()
	n, pending := w.flushes, k.pending
	k.mu.Unlock()
	if n != 1 || !pending {
		t.Fatalf("queued: %d flushes, pending %v; want 1, true", n, pending)
	}
	deadline := time.Now().Add(5 * time.Second)
	for {
		k.mu.Lock()
		n, pending = w.flushes, k.pending
		k.mu.Unlock()
		if n == 2 && !pending {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("a queued batch was not flushed by the flusher (%d flushes, pending %v)", n, pending)
		}
		time.Sleep(time.Millisecond)
	}
	_ = k.Send(e, false)
	_ = k.Send(e, true) // flushes both, and the flusher is stopped
	k.mu.Lock()
	n, pending = w.flushes, k.pending
	k.mu.Unlock()
	if n != 3 || pending {
		t.Fatalf("queued then now: %d flushes, pending %v; want 3, false", n, pending)
	}
}
