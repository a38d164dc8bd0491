package runs

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"iter"
	"net/http"
	"net/url"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"go.uber.org/goleak"

	"github.com/genui-adapter/genui-adapter/adapter/runlog"
	"github.com/genui-adapter/genui-adapter/agui"
	"github.com/genui-adapter/genui-adapter/internal/redistest"
)

// testRedisURL is the Redis the hand-over tests use; they fail, never
// skip, without one.
func testRedisURL() string {
	if u := os.Getenv("GENUI_TEST_REDIS"); u != "" {
		return u
	}
	return "redis://127.0.0.1:6379/15"
}

// rejoiner is a backend that a hand-over can stop: it streams n text
// deltas, pausing between them, and when its Handover is Ready it keeps
// the index of the next delta and stops; a run made with agui.Resume
// goes on from the kept index (no RUN_STARTED again).
func rejoiner(n int, pause time.Duration) agui.Agent {
	return agui.AgentFunc(func(ctx context.Context, req *agui.Request) iter.Seq2[agui.Event, error] {
		in := req.Input
		return func(yield func(agui.Event, error) bool) {
			from := 0
			if req.Handover.Rejoining() {
				if err := json.Unmarshal(req.Handover.Resumed(), &from); err != nil {
					yield(nil, err)
					return
				}
			} else {
				if !yield(&agui.RunStarted{ThreadID: in.ThreadID, RunID: in.RunID}, nil) ||
					!yield(&agui.TextMessageStart{MessageID: "m-" + in.RunID, Role: string(agui.RoleAssistant)}, nil) {
					return
				}
			}
			for i := from; i < n; i++ {
				req.Handover.Checkpoint(func() json.RawMessage { return json.RawMessage(fmt.Sprint(i)) })
				if req.Handover.Ready() {
					req.Handover.Keep(json.RawMessage(fmt.Sprint(i)))
					return
				}
				select {
				case <-ctx.Done():
					yield(&agui.RunError{Message: "stopped", Code: context.Cause(ctx).(*agui.RunFailure).Code}, nil)
					return
				case <-time.After(pause):
				}
				if !yield(&agui.TextMessageContent{MessageID: "m-" + in.RunID, Delta: fmt.Sprintf("d%d ", i)}, nil) {
					return
				}
			}
			if yield(&agui.TextMessageEnd{MessageID: "m-" + in.RunID}, nil) {
				yield(&agui.RunFinished{ThreadID: in.ThreadID, RunID: in.RunID}, nil)
			}
		}
	})
}

// redisInstance is a Manager on its own Redis client under prefix.
func redisInstance(t *testing.T, prefix, name string, cfg Config) *Manager {
	t.Helper()
	m, _ := redisInstanceLog(t, prefix, name, cfg)
	return m
}

// redisInstanceLog is redisInstance, with its Redis client.
func redisInstanceLog(t *testing.T, prefix, name string, cfg Config) (*Manager, *runlog.Redis) {
	t.Helper()
	return redisInstanceAt(t, testRedisURL(), prefix, name, cfg)
}

// redisInstanceAt is redisInstanceLog on the Redis at url.
func redisInstanceAt(t *testing.T, url, prefix, name string, cfg Config) (*Manager, *runlog.Redis) {
	t.Helper()
	l, err := runlog.NewRedis(context.Background(), url, runlog.RedisOptions{Prefix: prefix, LeaseTTL: cfg.LeaseTTL})
	if err != nil {
		t.Fatalf("Redis is required for these tests (GENUI_TEST_REDIS or 127.0.0.1:6379): %v", err)
	}
	cfg.Instance, cfg.Batch = name, true
	if cfg.DetachGrace == 0 {
		cfg.DetachGrace = DefaultDetachGrace
	}
	return newManagerOn(t, l, cfg), l
}

func testPrefix() string {
	b := make([]byte, 6)
	_, _ = rand.Read(b)
	return "test-handover-" + hex.EncodeToString(b) + ":"
}

// takeOvers counts the runs an instance took over, by run id.
type takeOvers struct {
	mu    sync.Mutex
	agent agui.Agent
	n     map[string]int
}

func (c *takeOvers) rejoin(id string, in *agui.RunAgentInput, _ http.Header) (StartRequest, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.n == nil {
		c.n = map[string]int{}
	}
	c.n[in.RunID]++
	return StartRequest{Agent: c.agent}, id == "lg"
}

func (c *takeOvers) count(run string) int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.n[run]
}

// moves counts the hand-overs an Observer is told of: out, in.
type moves struct {
	noObserver
	mu sync.Mutex
	n  [2]int
}

func (o *moves) HandedOver(_ string, out bool) {
	o.mu.Lock()
	defer o.mu.Unlock()
	if out {
		o.n[0]++
	} else {
		o.n[1]++
	}
}

func (o *moves) get() [2]int {
	o.mu.Lock()
	defer o.mu.Unlock()
	return o.n
}

// follow reads run on m from the start into a collector until its end.
func follow(t *testing.T, m *Manager, run string) (*collector, chan struct{}) {
	t.Helper()
	rd, err := m.Attach(context.Background(), "p", run, 0)
	if err != nil {
		t.Fatal(err)
	}
	c := &collector{}
	done := make(chan struct{})
	go func() { defer close(done); _ = Follow(context.Background(), rd, c) }()
	return c, done
}

// waitFor polls cond (the events seen so far) until it holds.
func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("never saw %s", what)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// types is the events' types and deltas, with their sequence numbers
// checked: 1, 2, 3... with the terminal last.
func eventsOf(t *testing.T, entries []runlog.Entry) []string {
	t.Helper()
	var out []string
	for i, e := range entries {
		if e.Seq != int64(i+1) {
			t.Fatalf("event %d has seq %d: %v", i+1, e.Seq, entries)
		}
		if e.Terminal != (i == len(entries)-1) {
			t.Fatalf("event %d terminal=%v of %d", i+1, e.Terminal, len(entries))
		}
		var ev struct{ Type, Delta, Code string }
		_ = json.Unmarshal(e.Data, &ev)
		out = append(out, strings.Join(strings.Fields(ev.Type+" "+ev.Delta+" "+ev.Code), " "))
	}
	return out
}

// uninterrupted is what the rejoiner's run of n deltas streams.
func uninterrupted(n int) []string {
	out := []string{"RUN_STARTED", "TEXT_MESSAGE_START"}
	for i := range n {
		out = append(out, fmt.Sprintf("TEXT_MESSAGE_CONTENT d%d", i))
	}
	return append(out, "TEXT_MESSAGE_END", "RUN_FINISHED")
}

func startRejoinable(t *testing.T, m *Manager, run string, agent agui.Agent) chan struct{} {
	t.Helper()
	st, err := m.Start(context.Background(), StartRequest{Principal: "p", AgentID: "lg", Agent: agent, Input: input("t-"+run, run),
		Rejoinable: true, KeepHeaders: []string{"X-Tenant"}, Header: http.Header{"X-Tenant": {"acme"}, "Authorization": {"Bearer secret"}}})
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan struct{})
	go func() { defer close(done); st.Serve(context.Background(), &collector{}) }()
	return done
}

// A draining instance hands its run over: another instance claims it
// and goes on, and a reader on a third instance gets exactly the
// uninterrupted run's events, numbered on, ending with RUN_FINISHED.
func TestHandoverDrainedRunGoesOnElsewhere(t *testing.T) {
	opt := goleak.IgnoreCurrent()
	t.Cleanup(func() { goleak.VerifyNone(t, opt) })
	const n = 30
	agent := rejoiner(n, 15*time.Millisecond)
	prefix := testPrefix()
	obsA, obsB := &moves{}, &moves{}
	a := redisInstance(t, prefix, "a", Config{Observer: obsA})
	b := redisInstance(t, prefix, "b", Config{Observer: obsB})
	reader := redisInstance(t, prefix, "reader", Config{})
	claimsA, claimsB := &takeOvers{agent: agent}, &takeOvers{agent: agent}
	a.AcceptHandovers(claimsA.rejoin)
	b.AcceptHandovers(claimsB.rejoin)

	served := startRejoinable(t, a, "r1", agent)
	got, done := follow(t, reader, "r1")
	waitFor(t, "the run's first deltas", func() bool {
		return got.len() >= 6
	})
	if asked := a.HandOver(); asked != 1 {
		t.Fatalf("HandOver asked %d runs, want 1", asked)
	}
	<-served
	a.Wait() // the run left a: handed over, not ended
	<-done
	if want, have := uninterrupted(n), eventsOf(t, got.entries); strings.Join(have, "|") != strings.Join(want, "|") {
		t.Fatalf("events across the hand-over:\n%v\nwant\n%v", have, want)
	}
	if claimsA.count("r1") != 0 || claimsB.count("r1") != 1 {
		t.Fatalf("take-overs: a %d, b %d; want 0, 1", claimsA.count("r1"), claimsB.count("r1"))
	}
	if obsA.get() != [2]int{1, 0} || obsB.get() != [2]int{0, 1} {
		t.Fatalf("hand-overs observed (out, in): a %v, b %v", obsA.get(), obsB.get())
	}
	run, err := b.log.Get(context.Background(), runlog.Ref{Owner: "p", ID: "r1"})
	if err != nil || run.Instance != "b" || run.Status != runlog.StatusFinished {
		t.Fatalf("run record after the take-over: %+v, %v", run, err)
	}
	// The history holds the whole answer, both instances' parts.
	checkHistoryText(t, b, "r1", n)
}

// checkHistoryText checks that the rejoiner's run of n deltas has its
// whole answer in its thread's history on m.
func checkHistoryText(t *testing.T, m *Manager, run string, n int) {
	t.Helper()
	h, err := m.history(context.Background(), runlog.Ref{Owner: "p", ID: "t-" + run})
	if err != nil {
		t.Fatal(err)
	}
	var text string
	for _, msg := range h.Messages {
		if msg.ID == "m-"+run {
			text = msg.Content.String()
		}
	}
	var want strings.Builder
	for i := range n {
		fmt.Fprintf(&want, "d%d ", i)
	}
	if text != want.String() {
		t.Fatalf("history text %q, want %q", text, want.String())
	}
}

// With several live instances each run handed over is taken over by
// exactly one, and goes on once.
//
// With room for one hand-over record at a time (MaxUnwrittenBytes below
// MaxHandoverBytes), every run is still handed over, one after another.
func TestHandoverExactlyOneClaimer(t *testing.T) {
	t.Run("default", func(t *testing.T) { handoverExactlyOnce(t, Config{}) })
	t.Run("one record at a time", func(t *testing.T) { handoverExactlyOnce(t, Config{MaxUnwrittenBytes: 1}) })
}

func handoverExactlyOnce(t *testing.T, cfg Config) {
	opt := goleak.IgnoreCurrent()
	t.Cleanup(func() { goleak.VerifyNone(t, opt) })
	const n, runs = 20, 6
	agent := rejoiner(n, 15*time.Millisecond)
	prefix := testPrefix()
	a := redisInstance(t, prefix, "a", cfg)
	if cap(a.recordSlots) != max(1, int(a.cfg.MaxUnwrittenBytes)/a.cfg.MaxHandoverBytes) {
		t.Fatalf("%d hand-over records at once", cap(a.recordSlots))
	}
	claims := make([]*takeOvers, 3)
	for i := range claims {
		claims[i] = &takeOvers{agent: agent}
		redisInstance(t, prefix, fmt.Sprintf("c%d", i), Config{}).AcceptHandovers(claims[i].rejoin)
	}
	reader := redisInstance(t, prefix, "reader", Config{})
	var served []chan struct{}
	var got []*collector
	var done []chan struct{}
	for i := range runs {
		id := fmt.Sprintf("r%d", i)
		served = append(served, startRejoinable(t, a, id, agent))
		c, d := follow(t, reader, id)
		got, done = append(got, c), append(done, d)
	}
	waitFor(t, "every run's first deltas", func() bool {
		for _, c := range got {
			c.mu.Lock()
			k := len(c.entries)
			c.mu.Unlock()
			if k < 4 {
				return false
			}
		}
		return true
	})
	if asked := a.HandOver(); asked != runs {
		t.Fatalf("HandOver asked %d runs, want %d", asked, runs)
	}
	for i := range runs {
		<-served[i]
		<-done[i]
		id := fmt.Sprintf("r%d", i)
		if want, have := uninterrupted(n), eventsOf(t, got[i].entries); strings.Join(have, "|") != strings.Join(want, "|") {
			t.Fatalf("%s: events across the hand-over:\n%v\nwant\n%v", id, have, want)
		}
		total := 0
		for _, c := range claims {
			total += c.count(id)
		}
		if total != 1 {
			t.Fatalf("%s was taken over %d times", id, total)
		}
	}
}

// A run whose hand-over record would be over MaxHandoverBytes is not
// handed over: it goes on until the grace is over and ends with
// shutdown, as a run that cannot be taken over does. One whose input
// alone leaves no room is not even asked (its upstream run is not left
// going); one whose record turns out too big once its state is kept is
// rejoined by its own instance, nothing lost or repeated.
func TestHandoverRecordOverCapGoesOnToShutdown(t *testing.T) {
	in, _ := json.Marshal(input("t-big", "big"))
	for _, tc := range []struct {
		name  string
		max   int
		asked int
	}{
		{"input over the cap", len(in) / 2, 0},
		{"record over the cap", len(in) + 8, 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			opt := goleak.IgnoreCurrent()
			t.Cleanup(func() { goleak.VerifyNone(t, opt) })
			const n = 40
			agent := rejoiner(n, 15*time.Millisecond)
			prefix := testPrefix()
			a := redisInstance(t, prefix, "a", Config{MaxHandoverBytes: tc.max})
			b := redisInstance(t, prefix, "b", Config{})
			claims := &takeOvers{agent: agent}
			b.AcceptHandovers(claims.rejoin)
			served := startRejoinable(t, a, "big", agent)
			got, done := follow(t, b, "big")
			seen := got.len
			waitFor(t, "the run's first deltas", func() bool { return seen() >= 4 })
			if asked := a.HandOver(); asked != tc.asked {
				t.Fatalf("HandOver asked %d runs, want %d", asked, tc.asked)
			}
			at := seen()
			waitFor(t, "the run going on", func() bool { return seen() >= at+5 })
			a.Shutdown(&agui.RunFailure{Code: agui.CodeShutdown, Message: "grace over"})
			<-served
			<-done
			ev := eventsOf(t, got.entries)
			if last := ev[len(ev)-1]; last != "RUN_ERROR shutdown" {
				t.Fatalf("the run ended with %q, want RUN_ERROR shutdown", last)
			}
			if want := uninterrupted(n)[:len(ev)-1]; strings.Join(ev[:len(ev)-1], "|") != strings.Join(want, "|") {
				t.Fatalf("events before the shutdown:\n%v\nwant\n%v", ev, want)
			}
			if claims.count("big") != 0 {
				t.Fatal("a run over the cap was taken over")
			}
		})
	}
}

// A run handed over that no instance claims within the claim timeout is
// ended by a reader, as a dead owner's run is.
func TestHandoverUnclaimedEndsAfterClaimTimeout(t *testing.T) {
	opt := goleak.IgnoreCurrent()
	t.Cleanup(func() { goleak.VerifyNone(t, opt) })
	agent := rejoiner(30, 15*time.Millisecond)
	prefix := testPrefix()
	cfg := Config{LeaseTTL: 400 * time.Millisecond, HandoverClaimTimeout: 800 * time.Millisecond}
	a := redisInstance(t, prefix, "a", cfg)
	reader := redisInstance(t, prefix, "reader", cfg) // claims nothing
	served := startRejoinable(t, a, "lonely", agent)
	got, done := follow(t, reader, "lonely")
	waitFor(t, "the run's first deltas", func() bool {
		return got.len() >= 4
	})
	a.HandOver()
	<-served
	a.Wait()
	<-done
	ev := eventsOf(t, got.entries)
	if last := ev[len(ev)-1]; last != "RUN_ERROR owner_lost" {
		t.Fatalf("the unclaimed run ended with %q, want RUN_ERROR owner_lost", last)
	}
	if ev[len(ev)-2] == "TEXT_MESSAGE_END" {
		t.Fatalf("the run went on: %v", ev)
	}
}

// An instance that dies mid-run (here: it loses Redis for good, as a
// kill -9 leaves it) leaves its run's latest checkpoint: once its lease
// lapsed a reader elsewhere offers it, another instance takes it over
// from there, and the reader gets exactly the uninterrupted run's events,
// numbered on, the events after the checkpoint written once.
func TestOwnerDiedRunTakenOverFromCheckpoint(t *testing.T) {
	opt := goleak.IgnoreCurrent()
	t.Cleanup(func() { goleak.VerifyNone(t, opt) })
	const n = 40
	agent := rejoiner(n, 15*time.Millisecond)
	prefix := testPrefix()
	cfg := Config{LeaseTTL: 400 * time.Millisecond, OutageTolerance: time.Second, CheckpointInterval: 50 * time.Millisecond}
	a, la := redisInstanceLog(t, prefix, "a", cfg)
	b := redisInstance(t, prefix, "b", cfg)
	reader := redisInstance(t, prefix, "reader", cfg) // claims nothing
	claimsB := &takeOvers{agent: agent}
	b.AcceptHandovers(claimsB.rejoin)

	served := startRejoinable(t, a, "dies", agent)
	got, done := follow(t, reader, "dies")
	waitFor(t, "the run's first deltas", func() bool {
		return got.len() >= 12
	})
	la.Close() // a is gone for the log: no appends, no renewals
	<-done
	if want, have := uninterrupted(n), eventsOf(t, got.entries); strings.Join(have, "|") != strings.Join(want, "|") {
		t.Fatalf("events across the take-over:\n%v\nwant\n%v", have, want)
	}
	if claimsB.count("dies") != 1 {
		t.Fatalf("take-overs by b: %d, want 1", claimsB.count("dies"))
	}
	// The history holds the whole answer: what the dead owner logged
	// before the checkpoint, and what b streamed from there.
	checkHistoryText(t, b, "dies", n)
	<-served
	a.Wait()
	b.Wait()
	if u, v := a.unwritten.Load(), b.unwritten.Load(); u != 0 || v != 0 {
		t.Fatalf("bytes left counted as waiting for the log: a %d, b %d", u, v)
	}
}

// A run nobody reads is found when its instance dies: a live instance's
// reaper offers it, another takes it over from its checkpoint, and a
// client that comes back later reads the whole uninterrupted run.
func TestOwnerDiedUnreadRunTakenOver(t *testing.T) {
	opt := goleak.IgnoreCurrent()
	t.Cleanup(func() { goleak.VerifyNone(t, opt) })
	const n = 40
	agent := rejoiner(n, 15*time.Millisecond)
	prefix := testPrefix()
	cfg := Config{LeaseTTL: 400 * time.Millisecond, OutageTolerance: time.Second, CheckpointInterval: 50 * time.Millisecond}
	a, la := redisInstanceLog(t, prefix, "a", cfg)
	b := redisInstance(t, prefix, "b", cfg)
	claimsB := &takeOvers{agent: agent}
	b.AcceptHandovers(claimsB.rejoin)

	served := startRejoinable(t, a, "unread", agent)
	time.Sleep(200 * time.Millisecond) // a few deltas and a checkpoint
	la.Close()
	waitFor(t, "the take-over", func() bool { return claimsB.count("unread") == 1 })
	got, done := follow(t, b, "unread")
	<-done
	if want, have := uninterrupted(n), eventsOf(t, got.entries); strings.Join(have, "|") != strings.Join(want, "|") {
		t.Fatalf("events across the take-over:\n%v\nwant\n%v", have, want)
	}
	<-served
	a.Wait()
	b.Wait()
}

// A run that cannot be taken over, nobody reading it, ends owner_lost
// within a few lease TTLs of its instance's death: it does not stay
// running (its thread's list showing it live) until a client comes back.
func TestOwnerDiedUnreadRunEnds(t *testing.T) {
	opt := goleak.IgnoreCurrent()
	t.Cleanup(func() { goleak.VerifyNone(t, opt) })
	prefix := testPrefix()
	cfg := Config{LeaseTTL: 400 * time.Millisecond, OutageTolerance: time.Second}
	a, la := redisInstanceLog(t, prefix, "a", cfg)
	b := redisInstance(t, prefix, "b", cfg)
	st, err := a.Start(context.Background(), StartRequest{Principal: "p", AgentID: "plain", Agent: rejoiner(400, 15*time.Millisecond), Input: input("t-plain", "plain")})
	if err != nil {
		t.Fatal(err)
	}
	served := make(chan struct{})
	go func() { defer close(served); st.Serve(context.Background(), &collector{}) }()
	time.Sleep(100 * time.Millisecond)
	la.Close()
	died := time.Now()
	ref := runlog.Ref{Owner: "p", ID: "plain"}
	waitFor(t, "the run's end", func() bool {
		r, err := b.log.Get(context.Background(), ref)
		return err == nil && r.Status != runlog.StatusRunning
	})
	if d := time.Since(died); d > 10*cfg.LeaseTTL {
		t.Fatalf("ended %v after its instance died", d)
	}
	got, done := follow(t, b, "plain")
	<-done
	ev := eventsOf(t, got.entries)
	if last := ev[len(ev)-1]; last != "RUN_ERROR owner_lost" {
		t.Fatalf("the unread run ended with %q, want RUN_ERROR owner_lost", last)
	}
	<-served
	a.Wait()
}

// holding is agent with the run's hand-over held off from its at-th
// event on, as an MCP tool call holds it.
func holding(agent agui.Agent, at int) agui.Agent {
	return agui.AgentFunc(func(ctx context.Context, req *agui.Request) iter.Seq2[agui.Event, error] {
		return func(yield func(agui.Event, error) bool) {
			n := 0
			for ev, err := range agent.Run(ctx, req) {
				if n++; n == at {
					defer req.Handover.Hold()()
				}
				if !yield(ev, err) {
					return
				}
			}
		}
	})
}

// A run held off when its instance dies is not taken over from a
// checkpoint kept before the hold (rejoining would do again what the hold
// protects): it ends owner_lost.
func TestOwnerDiedHeldRunEndsOwnerLost(t *testing.T) {
	opt := goleak.IgnoreCurrent()
	t.Cleanup(func() { goleak.VerifyNone(t, opt) })
	agent := rejoiner(40, 15*time.Millisecond)
	prefix := testPrefix()
	cfg := Config{LeaseTTL: 400 * time.Millisecond, OutageTolerance: time.Second, CheckpointInterval: 10 * time.Millisecond}
	a, la := redisInstanceLog(t, prefix, "a", cfg)
	b := redisInstance(t, prefix, "b", cfg)
	reader := redisInstance(t, prefix, "reader", cfg)
	claimsB := &takeOvers{agent: agent}
	b.AcceptHandovers(claimsB.rejoin)

	served := startRejoinable(t, a, "held", holding(agent, 8))
	got, done := follow(t, reader, "held")
	waitFor(t, "the run's first deltas", func() bool {
		return got.len() >= 12
	})
	la.Close()
	<-done
	ev := eventsOf(t, got.entries)
	if last := ev[len(ev)-1]; last != "RUN_ERROR owner_lost" || claimsB.count("held") != 0 {
		t.Fatalf("the held run ended with %q, take-overs %d; want RUN_ERROR owner_lost, none", last, claimsB.count("held"))
	}
	<-served
	a.Wait()
}

// shutdownOnStart is a log whose Start lets the Manager shut down
// between the Manager's check for a shutdown and the run's registration.
type shutdownOnStart struct {
	runlog.Log
	m *Manager
}

func (l *shutdownOnStart) Start(ctx context.Context, r runlog.Run, supersede bool) (string, error) {
	prev, err := l.Log.Start(ctx, r, supersede)
	l.m.Shutdown(&agui.RunFailure{Code: agui.CodeShutdown, Message: "shutting down"})
	return prev, err
}

func (l *shutdownOnStart) StartWithHistory(ctx context.Context, r runlog.Run, supersede bool) (string, []byte, error) {
	prev, h, err := l.Log.StartWithHistory(ctx, r, supersede)
	l.m.Shutdown(&agui.RunFailure{Code: agui.CodeShutdown, Message: "shutting down"})
	return prev, h, err
}

// A run registered while Shutdown ended the others ends with them: it
// must not outlive the process (its readers would see owner_lost).
func TestRunRegisteredDuringShutdownEnds(t *testing.T) {
	opt := goleak.IgnoreCurrent()
	t.Cleanup(func() { goleak.VerifyNone(t, opt) })
	mem := runlog.NewMemory(runlog.MemoryOptions{})
	defer mem.Close()
	l := &shutdownOnStart{Log: mem}
	m, err := New(l, Config{Instance: "i", DetachGrace: time.Minute})
	if err != nil {
		t.Fatal(err)
	}
	defer m.Close()
	l.m = m
	text := &agui.TextMessageContent{MessageID: "m", Delta: "x"}
	evs := []agui.Event{&agui.TextMessageStart{MessageID: "m", Role: "assistant"}}
	for range 200 {
		evs = append(evs, text)
	}
	got := serve(t, m, StartRequest{Principal: "p", AgentID: "a", Input: input("t", "r"), Agent: script(20*time.Millisecond, evs...)})
	m.Wait()
	var last struct{ Type, Code string }
	_ = json.Unmarshal(got[len(got)-1].Data, &last)
	if last.Type != "RUN_ERROR" || last.Code != agui.CodeShutdown || len(got) > 20 {
		t.Fatalf("the run registered during the shutdown ended with %+v after %d events", last, len(got))
	}
}

// A run taken over twice, its first and then its second owner dying, has
// its whole answer in its thread's history once: the second owner saved
// the history it rebuilt from the log as it took the run over, and the
// third rebuilds from the log again, over that history.
func TestOwnerDiedTwiceHistoryOnce(t *testing.T) {
	opt := goleak.IgnoreCurrent()
	t.Cleanup(func() { goleak.VerifyNone(t, opt) })
	const n = 60
	agent := rejoiner(n, 15*time.Millisecond)
	prefix := testPrefix()
	cfg := Config{LeaseTTL: 400 * time.Millisecond, OutageTolerance: time.Second, CheckpointInterval: 50 * time.Millisecond}
	a, la := redisInstanceLog(t, prefix, "a", cfg)
	b, lb := redisInstanceLog(t, prefix, "b", cfg)
	c := redisInstance(t, prefix, "c", cfg)
	reader := redisInstance(t, prefix, "reader", cfg) // claims nothing
	claimsB, claimsC := &takeOvers{agent: agent}, &takeOvers{agent: agent}
	b.AcceptHandovers(claimsB.rejoin)

	served := startRejoinable(t, a, "twice", agent)
	got, done := follow(t, reader, "twice")
	waitFor(t, "the run's first deltas", func() bool {
		return got.len() >= 10
	})
	la.Close() // a dies
	waitFor(t, "b's take-over and deltas after it", func() bool {
		return claimsB.count("twice") == 1 && got.len() >= 30
	})
	c.AcceptHandovers(claimsC.rejoin)
	lb.Close() // b dies
	<-done
	if want, have := uninterrupted(n), eventsOf(t, got.entries); strings.Join(have, "|") != strings.Join(want, "|") {
		t.Fatalf("events across the take-overs:\n%v\nwant\n%v", have, want)
	}
	if claimsC.count("twice") != 1 {
		t.Fatalf("take-overs by c: %d, want 1", claimsC.count("twice"))
	}
	checkHistoryText(t, c, "twice", n)
	<-served
	a.Wait()
	b.Wait()
	c.Wait()
}

// A run handed over at a drain whose new owner then dies is taken over
// once more with its whole answer in its thread's history once: the
// drained instance saved the history up to its hand-over, and the third
// owner rebuilds from the log only what that history lacks, whichever
// checkpoint it rejoins from (the drained owner's, or the second's).
func TestDrainedThenDiedHistoryOnce(t *testing.T) {
	for _, wait := range []int{0, 20} {
		t.Run(fmt.Sprint(wait), func(t *testing.T) {
			opt := goleak.IgnoreCurrent()
			t.Cleanup(func() { goleak.VerifyNone(t, opt) })
			const n = 60
			agent := rejoiner(n, 15*time.Millisecond)
			prefix := testPrefix()
			cfg := Config{LeaseTTL: 400 * time.Millisecond, OutageTolerance: time.Second, CheckpointInterval: 50 * time.Millisecond}
			a := redisInstance(t, prefix, "a", cfg)
			b, lb := redisInstanceLog(t, prefix, "b", cfg)
			c := redisInstance(t, prefix, "c", cfg)
			reader := redisInstance(t, prefix, "reader", cfg) // claims nothing
			claimsB, claimsC := &takeOvers{agent: agent}, &takeOvers{agent: agent}
			b.AcceptHandovers(claimsB.rejoin)

			served := startRejoinable(t, a, "drained", agent)
			got, done := follow(t, reader, "drained")
			waitFor(t, "the run's first deltas", func() bool {
				return got.len() >= 12
			})
			a.HandOver()
			<-served
			waitFor(t, "b's take-over", func() bool {
				return claimsB.count("drained") == 1 && got.len() >= 12+wait
			})
			c.AcceptHandovers(claimsC.rejoin)
			lb.Close() // b dies
			<-done
			if want, have := uninterrupted(n), eventsOf(t, got.entries); strings.Join(have, "|") != strings.Join(want, "|") {
				t.Fatalf("events across the take-overs:\n%v\nwant\n%v", have, want)
			}
			checkHistoryText(t, c, "drained", n)
			a.Wait()
			b.Wait()
			c.Wait()
		})
	}
}

// fenceable is two instances on the test Redis that take runs of agent
// over: a, which reaches Redis through px (so that a test can cut it off),
// and b, which claims what is offered (claimsB counts it).
func fenceable(t *testing.T, agent agui.Agent) (a, b *Manager, px *redistest.Proxy, claimsB *takeOvers) {
	t.Helper()
	prefix := testPrefix()
	u, err := url.Parse(testRedisURL())
	if err != nil {
		t.Fatal(err)
	}
	px = redistest.NewProxy(t, u.Host)
	via := *u
	via.Host = px.Addr()
	cfg := Config{LeaseTTL: 400 * time.Millisecond, OutageTolerance: 10 * time.Second, CheckpointInterval: 50 * time.Millisecond}
	a, _ = redisInstanceAt(t, via.String(), prefix, "a", cfg)
	b = redisInstance(t, prefix, "b", cfg)
	claimsB = &takeOvers{agent: agent}
	b.AcceptHandovers(claimsB.rejoin)
	return a, b, px, claimsB
}

// An owner cut off from Redis for longer than its lease (not for the
// outage tolerance) finds, when Redis answers again, that another
// instance took its run over. The run did not stop: its readers on the
// fenced owner (the client that started it, and one that attached there)
// go on reading it from the log as it goes on elsewhere, each event once,
// to its RUN_FINISHED, rather than being told RUN_ERROR owner_lost.
func TestFencedOwnerReadersFollowTheRun(t *testing.T) {
	opt := goleak.IgnoreCurrent()
	t.Cleanup(func() { goleak.VerifyNone(t, opt) })
	const n = 60
	agent := rejoiner(n, 15*time.Millisecond)
	a, b, px, claimsB := fenceable(t, agent)

	st, err := a.Start(context.Background(), StartRequest{Principal: "p", AgentID: "lg", Agent: agent, Input: input("t-fenced", "fenced"), Rejoinable: true})
	if err != nil {
		t.Fatal(err)
	}
	starter := &collector{}
	served := make(chan struct{})
	go func() { defer close(served); st.Serve(context.Background(), starter) }()
	attached, done := follow(t, a, "fenced")
	waitFor(t, "the run's first deltas", func() bool { return attached.len() >= 10 })
	px.Stall() // a neither appends nor renews; its lease lapses
	waitFor(t, "b's take-over", func() bool { return claimsB.count("fenced") == 1 })
	px.Resume() // a's next append is fenced
	<-done
	<-served
	want := strings.Join(uninterrupted(n), "|")
	for _, c := range []struct {
		who string
		got *collector
	}{{"the starting client", starter}, {"a reader attached to a", attached}} {
		if have := strings.Join(eventsOf(t, c.got.entries), "|"); have != want {
			t.Errorf("%s on the fenced owner read:\n%v\nwant\n%v", c.who, have, want)
		}
	}
	a.Wait()
	b.Wait()
}

// The tail a fenced owner's readers follow knows the run as the log has
// it: run by the instance that took it over. Were it to end the run (its
// new owner died too), its owner_lost event would otherwise name the
// fenced instance, which did not stop, as the one that stopped.
func TestFencedOwnerTailNamesTheNewOwner(t *testing.T) {
	const n = 200
	agent := rejoiner(n, 15*time.Millisecond)
	a, b, px, claimsB := fenceable(t, agent)

	st, err := a.Start(context.Background(), StartRequest{Principal: "p", AgentID: "lg", Agent: agent, Input: input("t-named", "named"), Rejoinable: true})
	if err != nil {
		t.Fatal(err)
	}
	starter := &collector{}
	served := make(chan struct{})
	go func() { defer close(served); st.Serve(context.Background(), starter) }()
	waitFor(t, "the run's first deltas", func() bool { return starter.len() >= 10 })
	px.Stall()
	waitFor(t, "b's take-over", func() bool { return claimsB.count("named") == 1 })
	px.Resume()
	ref := runlog.Ref{Owner: "p", ID: "named"}
	var h *hub
	waitFor(t, "a's tail of the run", func() bool {
		a.mu.Lock()
		defer a.mu.Unlock()
		h = a.remote[ref]
		return h != nil
	})
	h.mu.Lock()
	inst := h.run.Instance
	h.mu.Unlock()
	if inst != "b" {
		t.Errorf("a's tail of the run taken over by b names instance %q as its owner, want b", inst)
	}
	<-served
	a.Wait()
	b.Wait()
}

// blinkOnFirst is a Sink that calls blink once, after its first send.
type blinkOnFirst struct {
	collector
	blink func()
	once  sync.Once
}

func (b *blinkOnFirst) Send(es []runlog.Entry, now bool) error {
	err := b.collector.Send(es, now)
	b.once.Do(b.blink)
	return err
}

// A reader reading a run from the log (here an ended run, read in pages)
// while Redis stops answering for longer than one operation's timeout,
// and less than the outage tolerance, reads on once Redis answers: the
// blink costs it latency, not its stream.
func TestReaderSurvivesLogBlink(t *testing.T) {
	srv := redistest.Start(t)
	cfg := Config{LeaseTTL: time.Second, OutageTolerance: 10 * time.Second, OpTimeout: 300 * time.Millisecond}
	m, _ := redisInstanceAt(t, srv.URL(), testPrefix(), "a", cfg)
	const n = 3 * maxBatch
	evs := make([]agui.Event, n)
	for i := range evs {
		evs[i] = &agui.Custom{Name: "n", Value: agui.JSON(fmt.Sprint(i))}
	}
	if got := serve(t, m, StartRequest{Principal: "p", AgentID: "a", Agent: script(0, evs...), Input: input("t", "paged")}); len(got) != n+2 {
		t.Fatalf("the run streamed %d events, want %d", len(got), n+2)
	}
	rd, err := m.Attach(context.Background(), "p", "paged", 0)
	if err != nil {
		t.Fatal(err)
	}
	c := &blinkOnFirst{blink: func() {
		srv.Pause()
		time.AfterFunc(time.Second, srv.Resume)
	}}
	if err := Follow(context.Background(), rd, c); err != nil {
		t.Fatalf("Follow across a Redis blink = %v", err)
	}
	if got := c.got(); len(got) != n+2 || !got[len(got)-1].Terminal {
		t.Fatalf("read %d events across the blink, want %d ending with the terminal one", len(got), n+2)
	}
}
