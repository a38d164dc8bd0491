package runs

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"iter"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"go.uber.org/goleak"

	"github.com/genui-adapter/genui-adapter/adapter/runlog"
	"github.com/genui-adapter/genui-adapter/agui"
)

// script is an agent that yields its events (RUN_STARTED and RUN_FINISHED
// around them), pausing between them, until ctx ends.
func script(pause time.Duration, evs ...agui.Event) agui.Agent {
	return agui.AgentFunc(func(ctx context.Context, req *agui.Request) iter.Seq2[agui.Event, error] {
		in := req.Input
		return func(yield func(agui.Event, error) bool) {
			all := append([]agui.Event{&agui.RunStarted{ThreadID: in.ThreadID, RunID: in.RunID}}, evs...)
			all = append(all, &agui.RunFinished{ThreadID: in.ThreadID, RunID: in.RunID})
			for _, ev := range all {
				select {
				case <-ctx.Done():
					yield(&agui.RunError{Message: "stopped", Code: context.Cause(ctx).(*agui.RunFailure).Code}, nil)
					return
				case <-time.After(pause):
				}
				if !yield(ev, nil) {
					return
				}
			}
		}
	})
}

func newManager(t *testing.T, cfg Config) *Manager {
	t.Helper()
	return newManagerOn(t, runlog.NewMemory(runlog.MemoryOptions{}), cfg)
}

// newManagerOn is a Manager on l, shut down and closed (l too) when the
// test ends.
func newManagerOn(t *testing.T, l runlog.Log, cfg Config) *Manager {
	t.Helper()
	m, err := New(l, cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		m.Shutdown(&agui.RunFailure{Code: agui.CodeShutdown, Message: "test over"})
		m.Wait()
		m.Close()
		l.Close()
	})
	return m
}

func input(thread, run string) *agui.RunAgentInput {
	return &agui.RunAgentInput{ThreadID: thread, RunID: run, Messages: []agui.Message{{ID: "u-" + run, Role: agui.RoleUser, Content: agui.Text("hi")}}}
}

// collector is a Sink that keeps what it gets.
type collector struct {
	mu      sync.Mutex
	entries []runlog.Entry
	after   int // fail after this many sends (0: never)
	sends   int
}

// len is how many entries c has received.
func (c *collector) len() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.entries)
}

func (c *collector) Send(es []runlog.Entry, _ bool) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.sends++
	if c.after > 0 && c.sends > c.after {
		return errors.New("client gone")
	}
	c.entries = append(c.entries, es...)
	return nil
}

func (c *collector) Flush() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.after > 0 && c.sends > c.after {
		return errors.New("client gone")
	}
	return nil
}

func (c *collector) got() []runlog.Entry {
	c.mu.Lock()
	defer c.mu.Unlock()
	return slices.Clone(c.entries)
}

// serve starts and serves a run to its end, returning what its client got.
func serve(t *testing.T, m *Manager, req StartRequest) []runlog.Entry {
	t.Helper()
	st, err := m.Start(context.Background(), req)
	if err != nil {
		t.Fatal(err)
	}
	c := &collector{}
	st.Serve(context.Background(), c)
	return c.got()
}

// drain reads a reader to its end.
func drain(t *testing.T, rd *Reader) []runlog.Entry {
	t.Helper()
	defer rd.Close()
	var all []runlog.Entry
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	for {
		got, end, err := rd.Read(ctx, nil)
		all = append(all, got...)
		if err != nil || end {
			return all
		}
		select {
		case <-rd.Wait():
		case <-ctx.Done():
			t.Fatal("reader never ended")
		}
	}
}

func TestStartReadAttach(t *testing.T) {
	opt := goleak.IgnoreCurrent()
	t.Cleanup(func() { goleak.VerifyNone(t, opt) }) // after the Manager's cleanup
	m := newManager(t, Config{Instance: "i", DetachGrace: time.Minute})
	text := func(d string) agui.Event { return &agui.TextMessageContent{MessageID: "m", Delta: d} }
	got := serve(t, m, StartRequest{Principal: "alice", AgentID: "a", Input: input("t", "r"),
		Agent: script(time.Millisecond, &agui.TextMessageStart{MessageID: "m", Role: "assistant"}, text("a"), text("b"), &agui.TextMessageEnd{MessageID: "m"})})
	if len(got) != 6 || !got[5].Terminal || got[0].Seq != 1 {
		t.Fatalf("the starting reader got %d events", len(got))
	}
	// Resume after 3; another principal has no such run.
	rd2, err := m.Attach(context.Background(), "alice", "r", 3)
	if err != nil {
		t.Fatal(err)
	}
	if rest := drain(t, rd2); len(rest) != 3 || rest[0].Seq != 4 {
		t.Errorf("resume after 3 = %+v", rest)
	}
	if _, err := m.Attach(context.Background(), "bob", "r", 0); err != ErrNotFound {
		t.Errorf("bob's attach = %v, want ErrNotFound", err)
	}
	th, _ := m.Thread(context.Background(), "alice", "t")
	if len(th.Messages) != 2 || th.Messages[1].Content.String() != "ab" {
		t.Errorf("history = %+v", th.Messages)
	}
	if th, _ := m.Thread(context.Background(), "bob", "t"); len(th.Messages) != 0 {
		t.Errorf("bob's thread t = %+v", th.Messages)
	}
	if _, err := m.Start(context.Background(), StartRequest{Principal: "alice", Input: input("t2", "r"), Agent: script(0)}); err != ErrRunExists {
		t.Errorf("reused run id = %v", err)
	}
}

func TestTranscriptBudgets(t *testing.T) {
	m := newManager(t, Config{Instance: "i", DetachGrace: time.Minute, MaxTranscriptBytes: 2000})
	var evs []agui.Event
	evs = append(evs, &agui.TextMessageStart{MessageID: "m", Role: "assistant"})
	for range 100 {
		evs = append(evs, &agui.TextMessageContent{MessageID: "m", Delta: strings.Repeat("x", 100)})
	}
	evs = append(evs, &agui.TextMessageEnd{MessageID: "m"})
	if got := serve(t, m, StartRequest{Principal: "p", Input: input("t", "r"), Agent: script(0, evs...)}); len(got) != 104 {
		t.Fatalf("the live stream has %d events, want all 104", len(got))
	}
	th, _ := m.Thread(context.Background(), "p", "t")
	last := th.Messages[len(th.Messages)-1].Content.String()
	if len(last) > 2000 || !strings.HasSuffix(last, agui.CutMarker) {
		t.Errorf("cut message = %d bytes, ends %q", len(last), last[max(0, len(last)-40):])
	}
	if m.TranscriptBytes() != 0 {
		t.Errorf("live transcript bytes after the run = %d", m.TranscriptBytes())
	}
}

func TestEncodeHistoryTrimsOldest(t *testing.T) {
	var msgs []agui.Message
	for i := range 50 {
		msgs = append(msgs, agui.Message{ID: fmt.Sprint("m", i), Role: agui.RoleUser, Content: agui.Text(strings.Repeat("y", 100))})
		msgs = append(msgs, agui.Message{ID: fmt.Sprint("t", i), Role: agui.RoleTool, ToolCallID: "c", Content: agui.Text("r")})
	}
	b := encodeHistory("o", msgs, 3, "", 0, 2000)
	var h storedHistory
	if err := json.Unmarshal(b, &h); err != nil {
		t.Fatal(err)
	}
	if len(b) > 2000 || h.Trimmed <= 3 || h.Messages[len(h.Messages)-1].ID != "t49" || h.Messages[0].Role == agui.RoleTool {
		t.Errorf("encoded %d bytes, trimmed %d, first %+v", len(b), h.Trimmed, h.Messages[0])
	}
	huge := []agui.Message{{ID: "big", Role: agui.RoleAssistant, Content: agui.Text(strings.Repeat("z", 5000))}}
	if b := encodeHistory("o", huge, 0, "", 0, 1000); len(b) > 1000 || !strings.Contains(string(b), CutNote) {
		t.Errorf("one huge message: %d bytes", len(b))
	}
}

// A slow reader holds the run back (backpressure) instead of losing
// events: every event reaches a reader that attached late and reads
// slowly, and the in-process tail never holds more than its cap.
func TestSlowReaderBackpressure(t *testing.T) {
	m := newManager(t, Config{Instance: "i", DetachGrace: time.Minute})
	var evs []agui.Event
	for i := range 3000 {
		evs = append(evs, &agui.Custom{Name: "n", Value: agui.JSON(fmt.Sprint(i))})
	}
	st, err := m.Start(context.Background(), StartRequest{Principal: "p", Input: input("t", "r"), Agent: script(0, evs...)})
	if err != nil {
		t.Fatal(err)
	}
	fast := &collector{}
	done := make(chan struct{})
	// The run starts once a slow reader is attached.
	rd, err := m.Attach(context.Background(), "p", "r", 0)
	if err != nil {
		t.Fatal(err)
	}
	go func() { defer close(done); st.Serve(context.Background(), fast) }()
	n := 0
	ctx := context.Background()
	for {
		got, end, err := rd.Read(ctx, nil)
		n += len(got)
		if err != nil {
			t.Fatalf("after %d events: %v", n, err)
		}
		if end {
			break
		}
		if m.TailBytes() > ringBytes {
			t.Fatalf("tail holds %d bytes", m.TailBytes())
		}
		time.Sleep(50 * time.Microsecond)
		<-rd.Wait()
	}
	rd.Close()
	<-done
	if n != 3002 || len(fast.got()) != 3002 {
		t.Errorf("the slow reader read %d events, the starting client %d; want 3002", n, len(fast.got()))
	}
}

// With detach grace 0, a run ends as soon as its last reader leaves, and
// never while its starting client is connected.
func TestDetachGraceZero(t *testing.T) {
	m := newManager(t, Config{Instance: "i", DetachGrace: 0})
	var wg sync.WaitGroup
	for i := range 200 {
		wg.Go(func() {
			got := serve(t, m, StartRequest{Principal: "p", Input: input(fmt.Sprint("t", i), fmt.Sprint("r", i)), Agent: script(2*time.Millisecond, &agui.Custom{Name: "x"})})
			if !strings.Contains(string(got[len(got)-1].Data), "RUN_FINISHED") {
				t.Errorf("run %d ended %s", i, got[len(got)-1].Data)
			}
		})
	}
	wg.Wait()
	// A client that leaves after the first event: the run ends detached.
	st, err := m.Start(context.Background(), StartRequest{Principal: "p", Input: input("tx", "rx"), Agent: script(20*time.Millisecond, &agui.Custom{Name: "x"}, &agui.Custom{Name: "y"})})
	if err != nil {
		t.Fatal(err)
	}
	st.Serve(context.Background(), &collector{after: 1})
	rd, err := m.Attach(context.Background(), "p", "rx", 0)
	if err != nil {
		t.Fatal(err)
	}
	if got := drain(t, rd); !strings.Contains(string(got[len(got)-1].Data), `"code":"detached"`) {
		t.Errorf("a run left by its client ended %s", got[len(got)-1].Data)
	}
}

// encodeHistory writes what json.Marshal of the stored history would.
func TestEncodeHistoryIsStoredHistoryJSON(t *testing.T) {
	many := []agui.Message{
		{ID: "u", Role: agui.RoleUser, Content: agui.Text(`<b> & "quotes" é`)},
		{ID: "a", Role: agui.RoleAssistant, ToolCalls: []agui.ToolCall{{ID: "c", Type: "function", Function: agui.FunctionCall{Name: "f", Arguments: `{"x":1}`}}}},
		{ID: "t", Role: agui.RoleTool, ToolCallID: "c", Content: agui.Text("r")},
	}
	for _, c := range []struct {
		owner   string
		msgs    []agui.Message
		trimmed int
		run     string
		through int64
	}{
		{"o", nil, 0, "", 0},
		{"o", []agui.Message{}, 2, "", 0},
		{`"odd" <owner>`, many, 0, "", 0},
		{"o", many, 7, "", 0},
		{"o", many, 0, `r "1" <x>`, 12},
		{"o", many, 3, "r", 0},
	} {
		want, _ := json.Marshal(storedHistory{Owner: c.owner, Messages: c.msgs, Trimmed: c.trimmed, Run: c.run, Through: c.through})
		if got := encodeHistory(c.owner, c.msgs, c.trimmed, c.run, c.through, 1<<20); string(got) != string(want) {
			t.Errorf("got  %s\nwant %s", got, want)
		}
	}
}

// slowReads is a log whose reads wait for their context to end (a log
// read under way when the client goes away).
type slowReads struct{ runlog.Log }

func (slowReads) Read(ctx context.Context, ref runlog.Ref, after int64, max int) ([]runlog.Entry, error) {
	<-ctx.Done()
	return nil, ctx.Err()
}

// A client that goes away while its reader reads the log has no read
// failure to be told of: Follow returns nil, as it does when the client
// goes away between reads, and the edge neither logs "run log read
// failed" nor writes a RUN_ERROR for it.
func TestFollowClientGoneDuringLogRead(t *testing.T) {
	l := runlog.NewMemory(runlog.MemoryOptions{})
	m, err := New(slowReads{l}, Config{Instance: "i"})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { m.Close(); l.Close() })
	rd := &Reader{m: m, run: runlog.Run{ID: "r", Owner: "p"}}
	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(20*time.Millisecond, cancel)
	if err := Follow(ctx, rd, &collector{}); err != nil {
		t.Errorf("Follow after the client went away = %v, want nil", err)
	}
}
