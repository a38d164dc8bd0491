package runs

import (
	"context"
	"sync/atomic"
	"testing"

	"github.com/genui-adapter/genui-adapter/adapter/runlog"
)

// hubWithReader is a hub at seq 1 with one attached reader.
func hubWithReader() (*hub, *Reader) {
	var budget atomic.Int64
	h := newHub(1, &budget, 1<<30)
	r := &Reader{hub: h}
	h.join(r)
	return h, r
}

// A caught-up reader's events cost the hub nothing once its ring is full:
// no channel per wait, none per read, no ring regrown (with the Redis
// log every reader is a hub's, so this is per event and reader).
func TestHubEventAllocates(t *testing.T) {
	h, r := hubWithReader()
	ctx := context.Background()
	data := []byte(`{"type":"TEXT_MESSAGE_CONTENT","messageId":"m","delta":"x"}`)
	seq := int64(1)
	buf := make([]runlog.Entry, 0, 8)
	event := func() {
		in := []runlog.Entry{{Seq: seq, Data: data}}
		seq++
		h.publish(in)
		select {
		case <-r.Wait():
		default:
			t.Fatal("the publish did not wake the reader")
		}
		got, end, err := r.Read(ctx, buf[:0])
		if err != nil || end || len(got) != 1 || got[0].Seq != seq-1 {
			t.Fatalf("read %v end %v err %v, want seq %d", got, end, err, seq-1)
		}
		select {
		case <-r.Wait():
			t.Fatal("a caught-up reader was woken with nothing to read")
		default:
		}
	}
	for range 2 * ringEntries {
		event() // the ring grows to its size
	}
	if a := testing.AllocsPerRun(1000, event); a > 0 {
		t.Fatalf("an event allocates %.2f values in the hub, want 0", a)
	}
}

// The ring keeps its events in order as it wraps around and drops its
// oldest: a reader that reads every few events gets each once, in order.
func TestHubRingWraps(t *testing.T) {
	h, r := hubWithReader()
	ctx := context.Background()
	var got []runlog.Entry
	for seq := int64(1); seq <= 3000; seq++ {
		h.publish([]runlog.Entry{{Seq: seq, Data: make([]byte, int(seq%700)), Terminal: seq == 3000}})
		if seq%(1+seq%37) != 0 && seq != 3000 {
			continue
		}
		read, _, err := r.Read(ctx, nil)
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, read...)
	}
	if len(got) != 3000 {
		t.Fatalf("read %d events, want 3000", len(got))
	}
	for i, e := range got {
		if e.Seq != int64(i+1) || len(e.Data) != (i+1)%700 {
			t.Fatalf("event %d is seq %d with %d bytes", i, e.Seq, len(e.Data))
		}
	}
	if !got[len(got)-1].Terminal {
		t.Fatal("the last event is not terminal")
	}
	if n := h.next - h.first; n > ringEntries || h.bytes > ringBytes {
		t.Fatalf("the ring holds %d events, %d bytes", n, h.bytes)
	}
}

// A reader that left its hub is not kept in its waiters: on a run that
// publishes nothing for a while, clients that come and go (reconnects)
// would otherwise pile up there, each Reader reachable after its Close,
// until the next event.
func TestHubLeftReadersNotKept(t *testing.T) {
	var budget atomic.Int64
	h := newHub(1, &budget, 1<<30)
	ctx := context.Background()
	for range 1000 {
		r := &Reader{hub: h}
		h.join(r)
		if _, _, err := r.Read(ctx, nil); err != nil {
			t.Fatal(err)
		}
		h.leave(r) // as Close (detach) does
	}
	h.mu.Lock()
	n := len(h.waiters)
	h.mu.Unlock()
	if n != 0 {
		t.Fatalf("the hub keeps %d readers that left as waiters, want 0", n)
	}
}

// A reader that reads again before the next event (Read does not wait:
// a caller may poll it) waits once: the hub's waiters do not grow with
// its reads. It is still woken by the next event.
func TestHubRereadRegistersOnce(t *testing.T) {
	h, r := hubWithReader()
	ctx := context.Background()
	for range 1000 {
		if _, _, err := r.Read(ctx, nil); err != nil {
			t.Fatal(err)
		}
	}
	h.mu.Lock()
	n := len(h.waiters)
	h.mu.Unlock()
	if n != 1 {
		t.Fatalf("a reader that read 1000 times waits %d times, want 1", n)
	}
	h.publish([]runlog.Entry{{Seq: 1, Data: []byte("x")}})
	select {
	case <-r.Wait():
	default:
		t.Fatal("the publish did not wake the reader")
	}
	if got, _, err := r.Read(ctx, nil); err != nil || len(got) != 1 {
		t.Fatalf("read %v, %v; want seq 1", got, err)
	}
}
