package runs

import (
	"context"
	"errors"
	"iter"
	"strings"
	"sync"
	"testing"
	"time"

	"go.uber.org/goleak"

	"github.com/genui-adapter/genui-adapter/adapter/runlog"
	"github.com/genui-adapter/genui-adapter/agui"
)

// plain is a DirectSink that keeps what it gets.
type plain struct {
	mu   sync.Mutex
	data []string
	gone bool
}

func (p *plain) SendPlain(es []runlog.Entry) error {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.gone {
		return errors.New("client gone")
	}
	for _, e := range es {
		if e.Seq != 0 {
			return errors.New("a direct run's event has an id")
		}
		p.data = append(p.data, string(e.Data))
	}
	return nil
}

func (p *plain) got() []string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return append([]string(nil), p.data...)
}

// endless yields text deltas until its consumer stops or ctx ends; it
// closes stopped when it returns.
func endless(stopped chan<- struct{}) agui.Agent {
	return agui.AgentFunc(func(ctx context.Context, req *agui.Request) iter.Seq2[agui.Event, error] {
		return func(yield func(agui.Event, error) bool) {
			defer close(stopped)
			in := req.Input
			if !yield(&agui.RunStarted{ThreadID: in.ThreadID, RunID: in.RunID}, nil) || !yield(&agui.TextMessageStart{MessageID: "m", Role: "assistant"}, nil) {
				return
			}
			for ctx.Err() == nil {
				if !yield(&agui.TextMessageContent{MessageID: "m", Delta: "0123456789"}, nil) {
					return
				}
			}
		}
	})
}

// blocked starts and then waits for ctx, as a backend waiting on its
// upstream does.
func blocked(started chan<- struct{}) agui.Agent {
	return agui.AgentFunc(func(ctx context.Context, req *agui.Request) iter.Seq2[agui.Event, error] {
		return func(yield func(agui.Event, error) bool) {
			if !yield(&agui.RunStarted{ThreadID: req.Input.ThreadID, RunID: req.Input.RunID}, nil) {
				return
			}
			if started != nil {
				close(started)
			}
			<-ctx.Done()
		}
	})
}

func directReq(agent agui.Agent, timeout time.Duration, max int64) DirectRequest {
	return DirectRequest{
		Principal: "alice", AgentID: "a", Input: input("t", "r"),
		Agent:          agui.Chain(agent, agui.Normalize(agui.Output)),
		Timeout:        timeout,
		TimeoutFailure: &agui.RunFailure{Code: "suggest_timeout", Message: "took too long"},
		MaxBytes:       max, TooLargeFailure: &agui.RunFailure{Code: "suggest_too_large", Message: "too much output"},
	}
}

func TestDirectRunLeavesNoRecord(t *testing.T) {
	opt := goleak.IgnoreCurrent()
	t.Cleanup(func() { goleak.VerifyNone(t, opt) })
	m := newManager(t, Config{Instance: "i"})
	text := func(d string) agui.Event { return &agui.TextMessageContent{MessageID: "m", Delta: d} }
	d, err := m.StartDirect(directReq(script(0, &agui.TextMessageStart{MessageID: "m", Role: "assistant"}, text("a"), &agui.TextMessageEnd{MessageID: "m"}), time.Minute, 1<<20))
	if err != nil {
		t.Fatal(err)
	}
	p := &plain{}
	d.Serve(context.Background(), p)
	got := p.got()
	if len(got) != 5 || !strings.Contains(got[0], "RUN_STARTED") || !strings.Contains(got[4], "RUN_FINISHED") {
		t.Fatalf("direct run sent %q", got)
	}
	ctx := context.Background()
	if _, err := m.Attach(ctx, "alice", "r", 0); !errors.Is(err, ErrNotFound) {
		t.Errorf("Attach of the direct run = %v, want ErrNotFound", err)
	}
	if th, err := m.Thread(ctx, "alice", "t"); err != nil || len(th.Messages) != 0 || th.ActiveRunID != "" {
		t.Errorf("the direct run's thread = %+v, %v; want none", th, err)
	}
	// Its ids are free for a run.
	if got := serve(t, m, StartRequest{Principal: "alice", AgentID: "a", Input: input("t", "r"), Agent: script(0)}); len(got) != 2 {
		t.Errorf("a run with the direct run's ids got %d events", len(got))
	}
}

func TestDirectRunByteCap(t *testing.T) {
	opt := goleak.IgnoreCurrent()
	t.Cleanup(func() { goleak.VerifyNone(t, opt) })
	m := newManager(t, Config{Instance: "i"})
	stopped := make(chan struct{})
	const max = 4 << 10
	d, err := m.StartDirect(directReq(endless(stopped), time.Hour, max))
	if err != nil {
		t.Fatal(err)
	}
	p := &plain{}
	d.Serve(context.Background(), p)
	<-stopped // the agent was stopped
	got := p.got()
	last := got[len(got)-1]
	if !strings.Contains(last, `"type":"RUN_ERROR"`) || !strings.Contains(last, `"code":"suggest_too_large"`) || !strings.Contains(last, "too much output") {
		t.Fatalf("the capped stream ended with %s", last)
	}
	n := 0
	for _, s := range got[:len(got)-1] {
		n += len(s)
	}
	if n > max {
		t.Errorf("%d bytes sent before the error, cap %d", n, max)
	}
}

func TestDirectRunTimeout(t *testing.T) {
	opt := goleak.IgnoreCurrent()
	t.Cleanup(func() { goleak.VerifyNone(t, opt) })
	m := newManager(t, Config{Instance: "i"})
	d, err := m.StartDirect(directReq(blocked(nil), time.Millisecond, 1<<20))
	if err != nil {
		t.Fatal(err)
	}
	p := &plain{}
	d.Serve(context.Background(), p) // the agent never answers: only the timeout ends it
	got := p.got()
	if last := got[len(got)-1]; !strings.Contains(last, `"code":"suggest_timeout"`) || !strings.Contains(last, "took too long") {
		t.Fatalf("the timed-out stream = %q", got)
	}
}

func TestDirectRunShutdownAndClientGone(t *testing.T) {
	opt := goleak.IgnoreCurrent()
	t.Cleanup(func() { goleak.VerifyNone(t, opt) })
	m := newManager(t, Config{Instance: "i"})

	// The client leaves: the agent is stopped, nothing more is sent.
	started := make(chan struct{})
	d, err := m.StartDirect(directReq(blocked(started), time.Hour, 1<<20))
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	go func() { <-started; cancel() }()
	p := &plain{}
	d.Serve(ctx, p)
	if got := p.got(); len(got) != 1 {
		t.Errorf("after the client left the stream got %q", got)
	}

	// Shutdown ends a running direct run with its cause and refuses new
	// ones; Wait waits for them.
	started = make(chan struct{})
	d, err = m.StartDirect(directReq(blocked(started), time.Hour, 1<<20))
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan []string)
	go func() { p := &plain{}; d.Serve(context.Background(), p); done <- p.got() }()
	<-started
	m.Shutdown(&agui.RunFailure{Code: agui.CodeShutdown, Message: "going down"})
	m.Wait()
	got := <-done
	if last := got[len(got)-1]; !strings.Contains(last, `"code":"`+agui.CodeShutdown+`"`) {
		t.Errorf("the direct run ended with %s at shutdown", last)
	}
	var re *agui.RunFailure
	if _, err := m.StartDirect(directReq(blocked(nil), time.Hour, 1<<20)); !errors.As(err, &re) || re.Code != agui.CodeShutdown {
		t.Errorf("StartDirect after Shutdown = %v", err)
	}
}
