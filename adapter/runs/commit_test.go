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
	"github.com/genui-adapter/genui-adapter/internal/redistest"
)

// hooked is an agent that behaves like an HTTP agent in a flood: it calls
// the BeforeRead hook, then yields RUN_STARTED and n deltas without
// calling it again (they came in one upstream read), then waits for
// release (nil: does not wait) without calling the hook (a middleware
// blocked, say), then ends. hook false never calls the hook.
func hooked(n int, hook bool, release <-chan struct{}) agui.Agent {
	return agui.AgentFunc(func(ctx context.Context, req *agui.Request) iter.Seq2[agui.Event, error] {
		in := req.Input
		return func(yield func(agui.Event, error) bool) {
			if hook {
				req.ReadHook()()
			}
			if !yield(&agui.RunStarted{ThreadID: in.ThreadID, RunID: in.RunID}, nil) ||
				!yield(&agui.TextMessageStart{MessageID: "m", Role: "assistant"}, nil) {
				return
			}
			for i := range n {
				if !yield(&agui.TextMessageContent{MessageID: "m", Delta: fmt.Sprintf("d%d ", i)}, nil) {
					return
				}
			}
			if release != nil {
				select {
				case <-release:
				case <-ctx.Done():
					return
				}
			}
			if hook {
				req.ReadHook()()
			}
			if yield(&agui.TextMessageEnd{MessageID: "m"}, nil) {
				yield(&agui.RunFinished{ThreadID: in.ThreadID, RunID: in.RunID}, nil)
			}
		}
	})
}

// checkRun checks that entries are the whole run, in order: seqs 1..n
// with the deltas in place, the last one terminal.
func checkRun(t *testing.T, entries []runlog.Entry, deltas int) {
	t.Helper()
	if len(entries) != deltas+4 {
		t.Fatalf("got %d events, want %d", len(entries), deltas+4)
	}
	for i, e := range entries {
		if e.Seq != int64(i+1) || e.Terminal != (i == len(entries)-1) {
			t.Fatalf("event %d: seq %d terminal %v", i, e.Seq, e.Terminal)
		}
		if i >= 2 && i < deltas+2 {
			var d struct{ Delta string }
			if err := json.Unmarshal(e.Data, &d); err != nil || d.Delta != fmt.Sprintf("d%d ", i-2) {
				t.Fatalf("event %d = %s", i, e.Data)
			}
		}
	}
}

func TestCommitBatchesUntilTheRunBlocks(t *testing.T) {
	opt := goleak.IgnoreCurrent()
	t.Cleanup(func() { goleak.VerifyNone(t, opt) })
	// No batch waits long enough for the timer here, however slow the
	// machine: every commit is the batch's limit or the hook's.
	m := newManager(t, Config{Instance: "i", DetachGrace: time.Minute, CommitDelay: time.Hour})
	const n = 300
	st, err := m.Start(context.Background(), StartRequest{Principal: "p", Input: input("t", "r"), Agent: hooked(n, true, nil)})
	if err != nil {
		t.Fatal(err)
	}
	c := &collector{}
	st.Serve(context.Background(), c)
	got := c.got()
	checkRun(t, got, n)
	// 302 events came between two hook calls: they go out in batches of
	// maxCommit, not one by one (then the last delta batch, and the
	// terminal event alone, after the history).
	if want := (n+2+maxCommit-1)/maxCommit + 2; c.sends > want {
		t.Errorf("%d sends for %d events, want at most %d", c.sends, len(got), want)
	}
	// The log holds the same run.
	rd, err := m.Attach(context.Background(), "p", "r", 0)
	if err != nil {
		t.Fatal(err)
	}
	checkRun(t, drain(t, rd), n)
}

func TestCommitEveryEventWithoutTheHook(t *testing.T) {
	m := newManager(t, Config{Instance: "i", DetachGrace: time.Minute})
	st, err := m.Start(context.Background(), StartRequest{Principal: "p", Input: input("t", "r"), Agent: hooked(10, false, nil)})
	if err != nil {
		t.Fatal(err)
	}
	c := &collector{}
	st.Serve(context.Background(), c)
	checkRun(t, c.got(), 10)
	// An agent that never says when it blocks may block after any event:
	// each goes out as it comes.
	if c.sends != 14 {
		t.Errorf("%d sends for 14 events, want one each", c.sends)
	}
}

func TestCommitLateWhenTheRunBlocksElsewhere(t *testing.T) {
	opt := goleak.IgnoreCurrent()
	t.Cleanup(func() { goleak.VerifyNone(t, opt) })
	m := newManager(t, Config{Instance: "i", DetachGrace: time.Minute})
	release := make(chan struct{})
	st, err := m.Start(context.Background(), StartRequest{Principal: "p", Input: input("t", "r"), Agent: hooked(5, true, release)})
	if err != nil {
		t.Fatal(err)
	}
	c := &collector{}
	done := make(chan struct{})
	go func() {
		defer close(done)
		st.Serve(context.Background(), c)
	}()
	// The run blocks after 7 events without calling the hook: they must
	// reach the client anyway, within CommitDelay, not when it unblocks.
	deadline := time.Now().Add(5 * time.Second)
	for len(c.got()) < 7 {
		if time.Now().After(deadline) {
			got := len(c.got())
			close(release)
			<-done
			t.Fatalf("the client got %d of the 7 events before the run unblocked", got)
		}
		time.Sleep(time.Millisecond)
	}
	close(release)
	<-done
	checkRun(t, c.got(), 5)
}

// gatedLog is a log whose batched appends can be held at a gate.
type gatedLog struct {
	runlog.Log
	mu      sync.Mutex
	closed  bool
	open    chan struct{}
	held    int // calls waiting at the gate
	heldN   int // their requests
	started map[string]bool
}

func (l *gatedLog) AppendBatch(ctx context.Context, reqs []runlog.AppendRequest) []runlog.AppendResult {
	l.mu.Lock()
	for _, q := range reqs {
		if q.First == 1 {
			l.started[q.Run.ID] = true
		}
	}
	gate := l.open
	if !l.closed {
		gate = nil
	}
	if gate != nil {
		l.held++
		l.heldN += len(reqs)
	}
	l.mu.Unlock()
	if gate != nil {
		<-gate
	}
	return l.Log.AppendBatch(ctx, reqs)
}

func (l *gatedLog) state() (started, held, heldN int) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return len(l.started), l.held, l.heldN
}

func (l *gatedLog) setGate(closed bool) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.closed && !closed {
		close(l.open)
	}
	l.closed = closed
}

// A run's first append (its RUN_STARTED) goes ahead of the appends of
// the runs already streaming: with every appender held and the appends
// of 1,200 runs queued, a run started then is the next the appenders
// take, not the 1,201st.
func TestFirstAppendGoesAhead(t *testing.T) {
	opt := goleak.IgnoreCurrent()
	t.Cleanup(func() { goleak.VerifyNone(t, opt) })
	mem := runlog.NewMemory(runlog.MemoryOptions{})
	defer mem.Close()
	l := &gatedLog{Log: mem, open: make(chan struct{}), started: map[string]bool{}}
	m, err := New(l, Config{Instance: "i", Batch: true, DetachGrace: time.Minute})
	if err != nil {
		t.Fatal(err)
	}
	defer m.Close()
	step := make(chan struct{})
	// Each streaming run yields RUN_STARTED, then one more event once
	// step closes, then waits for its end.
	streaming := agui.AgentFunc(func(ctx context.Context, req *agui.Request) iter.Seq2[agui.Event, error] {
		return func(yield func(agui.Event, error) bool) {
			if !yield(&agui.RunStarted{ThreadID: req.Input.ThreadID, RunID: req.Input.RunID}, nil) {
				return
			}
			select {
			case <-step:
			case <-ctx.Done():
				return
			}
			if yield(&agui.TextMessageStart{MessageID: "m", Role: "assistant"}, nil) {
				<-ctx.Done()
			}
		}
	})
	const n = 1200
	var served sync.WaitGroup
	start := func(id string, agent agui.Agent) {
		st, err := m.Start(context.Background(), StartRequest{Principal: "p", AgentID: "a", Agent: agent, Input: input("t-"+id, id)})
		if err != nil {
			t.Fatal(err)
		}
		served.Add(1)
		go func() { defer served.Done(); st.Serve(context.Background(), &collector{}) }()
	}
	defer func() {
		m.Shutdown(&agui.RunFailure{Code: agui.CodeShutdown, Message: "test over"})
		l.setGate(false)
		m.Wait()
		served.Wait()
	}()
	for i := range n {
		start(fmt.Sprint("s", i), streaming)
	}
	waitFor(t, "every run's first append", func() bool { s, _, _ := l.state(); return s == n })
	l.setGate(true)
	close(step)
	queued := func() int {
		m.qmu.Lock()
		defer m.qmu.Unlock()
		return len(m.queue) + len(m.first)
	}
	waitFor(t, "every appender held and the other runs' appends queued", func() bool {
		_, held, heldN := l.state()
		return held == appendWorkers && queued()+heldN == n
	})
	start("late", hooked(0, false, nil))
	waitFor(t, "the late run's first append queued", func() bool { _, _, heldN := l.state(); return queued()+heldN == n+1 })
	next := m.dequeue(nil, 1)
	m.enqueueFirst(next[0]) // back at the head, where the test found it
	l.setGate(false)
	if id := next[0].lr.run.ID; id != "late" {
		t.Fatalf("the appenders' next append is run %s's, with %d queued; want the late run's first", id, n+1)
	}
	waitFor(t, "the late run's first append", func() bool { s, _, _ := l.state(); return s == n+1 })
}

// slowThreads is a log whose thread updates wait until release closes.
type slowThreads struct {
	runlog.Log
	release chan struct{}
}

func (l *slowThreads) UpdateThread(ctx context.Context, thread runlog.Ref, update func(*runlog.ThreadInfo, bool) error) (runlog.ThreadInfo, error) {
	select {
	case <-l.release:
	case <-ctx.Done():
		return runlog.ThreadInfo{}, ctx.Err()
	}
	return l.Log.UpdateThread(ctx, thread, update)
}

// With a batching log a run's record in its thread is written alongside
// its first events, not before them: each call to a log across the
// network waits behind the appends in flight. The run's client reads
// RUN_STARTED while the record is still being written, and the run ends
// only once its thread lists it.
func TestRecordRunAlongsideFirstEvents(t *testing.T) {
	opt := goleak.IgnoreCurrent()
	t.Cleanup(func() { goleak.VerifyNone(t, opt) })
	mem := runlog.NewMemory(runlog.MemoryOptions{})
	defer mem.Close()
	l := &slowThreads{Log: mem, release: make(chan struct{})}
	m, err := New(l, Config{Instance: "i", Batch: true, DetachGrace: time.Minute})
	if err != nil {
		t.Fatal(err)
	}
	defer m.Close()
	var release sync.Once
	defer release.Do(func() { close(l.release) })
	c := &collector{}
	served := make(chan struct{})
	go func() {
		defer close(served)
		st, err := m.Start(context.Background(), StartRequest{Principal: "p", AgentID: "a", Agent: script(0), Input: input("t", "r")})
		if err != nil {
			t.Error(err)
			return
		}
		st.Serve(context.Background(), c)
	}()
	deadline := time.Now().Add(5 * time.Second)
	for len(c.got()) == 0 && time.Now().Before(deadline) {
		time.Sleep(5 * time.Millisecond)
	}
	if got := c.got(); len(got) == 0 {
		t.Error("RUN_STARTED waited for the run's record in its thread")
	}
	time.Sleep(50 * time.Millisecond) // time to end, were it not held
	got := c.got()
	if len(got) > 0 && got[len(got)-1].Terminal {
		t.Error("the run ended before its thread listed it")
	}
	if run, err := mem.Get(context.Background(), runlog.Ref{Owner: "p", ID: "r"}); err != nil || run.Status != runlog.StatusRunning {
		t.Errorf("run before its record = %+v, %v; want running", run, err)
	}
	release.Do(func() { close(l.release) })
	<-served
	if got := c.got(); len(got) != 2 || !got[1].Terminal {
		t.Errorf("the client got %+v, want RUN_STARTED and the terminal event", got)
	}
	if ti, err := mem.GetThread(context.Background(), runlog.Ref{Owner: "p", ID: "t"}); err != nil || !slices.Equal(ti.Runs, []string{"r"}) {
		t.Errorf("thread = %+v, %v; want it to list r", ti, err)
	}
	m.Shutdown(&agui.RunFailure{Code: agui.CodeShutdown, Message: "test over"})
	m.Wait()
}

// pauseOnRecord is a Redis log whose first thread update pauses Redis
// (SIGSTOP) for pause: a blink right as a run's record is being written.
type pauseOnRecord struct {
	*runlog.Redis
	srv   *redistest.Server
	pause time.Duration
	once  sync.Once
}

func (l *pauseOnRecord) UpdateThread(ctx context.Context, thread runlog.Ref, update func(*runlog.ThreadInfo, bool) error) (runlog.ThreadInfo, error) {
	l.once.Do(func() {
		l.srv.Pause()
		time.AfterFunc(l.pause, l.srv.Resume)
	})
	return l.Redis.UpdateThread(ctx, thread, update)
}

// A Redis blink shorter than the outage tolerance costs a run nothing,
// its record in its thread included: a blink as the record is written
// (longer than one operation's timeout) delays the record, the run's end
// waiting for it, and the thread lists the run once.
func TestRecordRunSurvivesBlink(t *testing.T) {
	srv := redistest.Start(t)
	defer srv.Resume()
	rl, err := runlog.NewRedis(context.Background(), srv.URL(), runlog.RedisOptions{Prefix: testPrefix(), LeaseTTL: 400 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	defer rl.Close()
	l := &pauseOnRecord{Redis: rl, srv: srv, pause: time.Second}
	m, err := New(l, Config{Instance: "i", Batch: true, DetachGrace: time.Minute, LeaseTTL: 400 * time.Millisecond,
		OpTimeout: 300 * time.Millisecond, OutageTolerance: 5 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	defer m.Close()
	st, err := m.Start(context.Background(), StartRequest{Principal: "p", AgentID: "a", Agent: script(0), Input: input("t", "r")})
	if err != nil {
		t.Fatal(err)
	}
	c := &collector{}
	st.Serve(context.Background(), c)
	if got := c.got(); len(got) != 2 || !got[1].Terminal {
		t.Fatalf("the client got %+v, want RUN_STARTED and the terminal event", got)
	}
	var last struct{ Type string }
	_ = json.Unmarshal(c.got()[1].Data, &last)
	if last.Type != "RUN_FINISHED" {
		t.Fatalf("the run ended with %s, want RUN_FINISHED", c.got()[1].Data)
	}
	if ti, err := rl.GetThread(context.Background(), runlog.Ref{Owner: "p", ID: "t"}); err != nil || !slices.Equal(ti.Runs, []string{"r"}) {
		t.Errorf("thread after the blink = %+v, %v; want it to list r once", ti, err)
	}
	m.Shutdown(&agui.RunFailure{Code: agui.CodeShutdown, Message: "test over"})
	m.Wait()
}

// callLog is a Redis log that records which of its operations run, and
// the histories its appends carry.
type callLog struct {
	*runlog.Redis
	mu        sync.Mutex
	calls     []string
	histories int // appends that carried a history
}

func (l *callLog) note(op string) {
	l.mu.Lock()
	l.calls = append(l.calls, op)
	l.mu.Unlock()
}

func (l *callLog) reset() {
	l.mu.Lock()
	l.calls = nil
	l.mu.Unlock()
}

func (l *callLog) taken() []string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return slices.Clone(l.calls)
}

func (l *callLog) Start(ctx context.Context, r runlog.Run, supersede bool) (string, error) {
	l.note("Start")
	return l.Redis.Start(ctx, r, supersede)
}

func (l *callLog) StartWithHistory(ctx context.Context, r runlog.Run, supersede bool) (string, []byte, error) {
	l.note("StartWithHistory")
	return l.Redis.StartWithHistory(ctx, r, supersede)
}

func (l *callLog) History(ctx context.Context, thread runlog.Ref) ([]byte, error) {
	l.note("History")
	return l.Redis.History(ctx, thread)
}

func (l *callLog) SaveHistory(ctx context.Context, thread runlog.Ref, b []byte) error {
	l.note("SaveHistory")
	return l.Redis.SaveHistory(ctx, thread, b)
}

func (l *callLog) AppendBatch(ctx context.Context, reqs []runlog.AppendRequest) []runlog.AppendResult {
	l.note("AppendBatch")
	l.mu.Lock()
	for _, q := range reqs {
		if q.History != nil {
			l.histories++
		}
	}
	l.mu.Unlock()
	return l.Redis.AppendBatch(ctx, reqs)
}

// firstSink records what its log had done when the first events reached it.
type firstSink struct {
	collector
	l      *callLog
	before []string
}

func (s *firstSink) Send(es []runlog.Entry, now bool) error {
	if s.before == nil {
		s.before = s.l.taken()
	}
	return s.collector.Send(es, now)
}

// TestRedisStartRoundTrips: on the Redis log a run's RUN_STARTED reaches
// its client after two round trips: the start, which reads the thread's
// history too, and the first append, which stores the history with the
// run's input in the same pipeline. The run's end stores the history
// with its terminal event; a second run on the thread finds both runs'
// messages.
func TestRedisStartRoundTrips(t *testing.T) {
	rl, err := runlog.NewRedis(context.Background(), testRedisURL(), runlog.RedisOptions{Prefix: testPrefix()})
	if err != nil {
		t.Fatal(err)
	}
	l := &callLog{Redis: rl}
	m := newManagerOn(t, l, Config{Instance: "i", Batch: true, DetachGrace: time.Minute})
	reply := []agui.Event{&agui.TextMessageStart{MessageID: "a-1", Role: "assistant"}, &agui.TextMessageContent{MessageID: "a-1", Delta: "hello"}, &agui.TextMessageEnd{MessageID: "a-1"}}
	var ops []string
	for i, id := range []string{"r1", "r2"} {
		l.reset()
		// Paced: the first events reach the client before the next come.
		st, err := m.Start(context.Background(), StartRequest{Principal: "p", AgentID: "a", Agent: script(50*time.Millisecond, reply...), Input: input("t", id)})
		if err != nil {
			t.Fatal(err)
		}
		s := &firstSink{l: l}
		if err := st.Serve(context.Background(), s); err != nil {
			t.Fatal(err)
		}
		if got := s.got(); len(got) != 5 || !got[4].Terminal {
			t.Fatalf("run %s: the client got %d events, want 5 ending with the terminal one", id, len(got))
		}
		if want := []string{"StartWithHistory", "AppendBatch"}; !slices.Equal(s.before, want) {
			t.Errorf("run %d: before RUN_STARTED reached its client the log did %v, want %v", i+1, s.before, want)
		}
		ops = append(ops, l.taken()...)
	}
	if slices.Contains(ops, "SaveHistory") || slices.Contains(ops, "History") {
		t.Errorf("the log did %v: a history read or written on its own", ops)
	}
	if l.histories != 4 {
		t.Errorf("%d appends carried a history, want 4 (each run's first and last)", l.histories)
	}
	ids := threadIDs(t, m, "p", "t")
	if want := []string{"u-r1", "a-1", "u-r2"}; !slices.Equal(ids[:min(3, len(ids))], want) {
		t.Errorf("thread messages %v, want them to start %v", ids, want)
	}
}

// A thread's history waiting for the run's next append counts in what
// waits for the log (MaxUnwrittenBytes); one with no room there is
// stored at once, as an append would have, and nothing stays counted.
func TestHistoryCountsAsUnwritten(t *testing.T) {
	opt := goleak.IgnoreCurrent()
	t.Cleanup(func() { goleak.VerifyNone(t, opt) })
	long := strings.Repeat("x", 16<<10)
	for _, limit := range []int64{1 << 20, 4 << 10} {
		mem := runlog.NewMemory(runlog.MemoryOptions{})
		l := &gatedLog{Log: mem, open: make(chan struct{}), started: map[string]bool{}}
		l.setGate(true)
		m, err := New(l, Config{Instance: "i", Batch: true, DetachGrace: time.Minute, MaxUnwrittenBytes: limit})
		if err != nil {
			t.Fatal(err)
		}
		in := input("t", "r")
		in.Messages[0].Content = agui.Text(long)
		st, err := m.Start(context.Background(), StartRequest{Principal: "p", AgentID: "a", Agent: script(0), Input: in})
		if err != nil {
			t.Fatal(err)
		}
		c := &collector{}
		done := make(chan struct{})
		go func() { defer close(done); st.Serve(context.Background(), c) }()
		for deadline := time.Now().Add(5 * time.Second); ; time.Sleep(time.Millisecond) {
			if _, held, _ := l.state(); held > 0 {
				break
			}
			if time.Now().After(deadline) {
				t.Fatal("the run's first append never came")
			}
		}
		waiting := m.unwritten.Load()
		switch {
		case limit > 16<<10 && waiting < 16<<10:
			t.Errorf("limit %d: %d bytes wait for the log while the first append, with the history, is held; want the history counted", limit, waiting)
		case limit < 16<<10 && waiting > limit:
			t.Errorf("limit %d: %d bytes wait for the log", limit, waiting)
		}
		l.setGate(false)
		<-done
		if got := c.got(); len(got) != 2 || !got[1].Terminal {
			t.Fatalf("limit %d: the client got %d events, want RUN_STARTED and the terminal one", limit, len(got))
		}
		th, err := m.Thread(context.Background(), "p", "t")
		if err != nil || len(th.Messages) == 0 || th.Messages[0].ID != "u-r" {
			t.Errorf("limit %d: thread %+v, %v; want the run's input stored", limit, th.Messages, err)
		}
		if n := m.unwritten.Load(); n != 0 {
			t.Errorf("limit %d: %d bytes still counted after the run", limit, n)
		}
		m.Shutdown(&agui.RunFailure{Code: agui.CodeShutdown, Message: "test over"})
		m.Wait()
		m.Close()
		mem.Close()
	}
}

// failingLog is a log whose batched appends fail with err, the first
// times of them (0: all).
type failingLog struct {
	runlog.Log
	err   error
	mu    sync.Mutex
	times int
}

func (l *failingLog) AppendBatch(ctx context.Context, reqs []runlog.AppendRequest) []runlog.AppendResult {
	l.mu.Lock()
	fail := l.times >= 0
	if l.times > 0 {
		l.times--
		if l.times == 0 {
			l.times = -1
		}
	}
	l.mu.Unlock()
	if !fail {
		return l.Log.AppendBatch(ctx, reqs)
	}
	out := make([]runlog.AppendResult, len(reqs))
	for i := range out {
		out[i].Err = l.err
	}
	return out
}

// committerOn is a committer of a run started on mem, with m's appenders.
func committerOn(t *testing.T, m *Manager, mem runlog.Log) *committer {
	t.Helper()
	run := runlog.Run{ID: "r", ThreadID: "t", AgentID: "a", Owner: "p", Instance: "i"}
	if _, err := mem.Start(context.Background(), run, false); err != nil {
		t.Fatal(err)
	}
	lr := &localRun{run: run, hub: newHub(1, &m.tailBytes, m.cfg.MaxTailBytes), leased: time.Now(), first: 1}
	return newCommitter(m, lr, nil)
}

func storedHistoryOf(t *testing.T, l runlog.Log) string {
	t.Helper()
	b, err := l.History(context.Background(), runlog.Ref{Owner: "p", ID: "t"})
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// A history kept while an append carrying an older one is in flight goes
// with the next append: the older one's success does not forget it. The
// log ends with the newer, and nothing stays counted as unwritten.
func TestHistoryKeptDuringAnAppend(t *testing.T) {
	mem := runlog.NewMemory(runlog.MemoryOptions{})
	l := &gatedLog{Log: mem, open: make(chan struct{}), started: map[string]bool{}}
	m := newManagerOn(t, l, Config{Instance: "i", Batch: true, DetachGrace: time.Minute})
	c := committerOn(t, m, mem)
	l.setGate(true)
	if !c.keepHistory([]byte(`{"h":1}`)) {
		t.Fatal("no room for a small history")
	}
	if err := c.add([]byte(`{"type":"RUN_STARTED"}`), false); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "the first append held", func() bool { _, held, _ := l.state(); return held == 1 })
	if !c.keepHistory([]byte(`{"h":22}`)) {
		t.Fatal("no room for a small history")
	}
	if err := c.add([]byte(`{"type":"RUN_FINISHED"}`), true); err != nil {
		t.Fatal(err)
	}
	l.setGate(false)
	if err := c.flush(); err != nil {
		t.Fatal(err)
	}
	c.close()
	if h := storedHistoryOf(t, mem); h != `{"h":22}` {
		t.Errorf("stored history %s, want the one kept while the first append was in flight", h)
	}
	if n := m.unwritten.Load(); n != 0 {
		t.Errorf("%d bytes still counted after the run", n)
	}
}

// A history whose append fails for a while goes with the append retried;
// one whose appends the log refuses is forgotten with them. Either way
// nothing stays counted as unwritten, a history kept after the failure
// included.
func TestHistoryThroughFailedAppends(t *testing.T) {
	for _, tc := range []struct {
		name  string
		l     *failingLog
		want  string
		fails bool
	}{
		{"transient", &failingLog{err: errors.New("blink"), times: 2}, `{"h":1}`, false},
		{"refused", &failingLog{err: runlog.ErrOwnerLost}, "", true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			mem := runlog.NewMemory(runlog.MemoryOptions{})
			tc.l.Log = mem
			m := newManagerOn(t, tc.l, Config{Instance: "i", Batch: true, DetachGrace: time.Minute, OutageTolerance: time.Minute})
			c := committerOn(t, m, mem)
			if !c.keepHistory([]byte(`{"h":1}`)) {
				t.Fatal("no room for a small history")
			}
			if err := c.add([]byte(`{"type":"RUN_STARTED"}`), false); err != nil {
				t.Fatal(err)
			}
			if err := c.flush(); (err != nil) != tc.fails {
				t.Fatalf("flush: %v", err)
			}
			if tc.fails {
				c.keepHistory([]byte(`{"h":2}`)) // as conclude keeps one
				if err := c.add([]byte(`{"type":"RUN_ERROR"}`), true); err == nil {
					t.Fatal("an append after the log refused the run's was taken")
				}
			}
			c.close()
			if h := storedHistoryOf(t, mem); h != tc.want {
				t.Errorf("stored history %q, want %q", h, tc.want)
			}
			if n := m.unwritten.Load(); n != 0 {
				t.Errorf("%d bytes still counted after the run", n)
			}
		})
	}
}

// stopping is an agent that yields evs and stops, with no terminal event.
func stopping(evs ...agui.Event) agui.Agent {
	return agui.AgentFunc(func(ctx context.Context, req *agui.Request) iter.Seq2[agui.Event, error] {
		return func(yield func(agui.Event, error) bool) {
			for _, ev := range evs {
				if !yield(ev, nil) {
					return
				}
			}
		}
	})
}

// A run whose chain stops without a terminal event ends with one, and its
// thread's history, with a batching log too, holds its input and what the
// chain yielded, whether it yielded anything or not.
func TestHistoryOfARunWithoutTerminalEvent(t *testing.T) {
	reply := []agui.Event{&agui.TextMessageStart{MessageID: "a-1", Role: "assistant"}, &agui.TextMessageContent{MessageID: "a-1", Delta: "hello"}, &agui.TextMessageEnd{MessageID: "a-1"}}
	logs := map[string]func() runlog.Log{
		"memory": func() runlog.Log { return runlog.NewMemory(runlog.MemoryOptions{}) },
		"redis": func() runlog.Log {
			rl, err := runlog.NewRedis(context.Background(), testRedisURL(), runlog.RedisOptions{Prefix: testPrefix()})
			if err != nil {
				t.Fatal(err)
			}
			return rl
		},
	}
	for name, newLog := range logs {
		for _, batch := range []bool{false, true} {
			t.Run(fmt.Sprintf("%s batch %v", name, batch), func(t *testing.T) {
				m := newManagerOn(t, newLog(), Config{Instance: "i", Batch: batch, DetachGrace: time.Minute})
				for i, tc := range []struct {
					evs  []agui.Event
					want []string
				}{
					{nil, []string{"u-r0"}},
					{reply, []string{"u-r0", "u-r1", "a-1"}},
				} {
					id := fmt.Sprint("r", i)
					got := serve(t, m, StartRequest{Principal: "p", AgentID: "a", Agent: stopping(tc.evs...), Input: input("t", id)})
					if len(got) != len(tc.evs)+1 || !got[len(got)-1].Terminal {
						t.Fatalf("run %s: the client got %d events, want %d ending with a terminal one", id, len(got), len(tc.evs)+1)
					}
					if ids := threadIDs(t, m, "p", "t"); !slices.Equal(ids, tc.want) {
						t.Errorf("run %s: thread messages %v, want %v", id, ids, tc.want)
					}
					if n := m.unwritten.Load(); n != 0 {
						t.Errorf("run %s: %d bytes still counted after the run", id, n)
					}
				}
			})
		}
	}
}

// A run that supersedes another keeps its input in the thread's history
// when the superseded run ends after it started: the superseded run's
// last history does not overwrite it.
func TestSupersededRunLeavesHistory(t *testing.T) {
	rl, err := runlog.NewRedis(context.Background(), testRedisURL(), runlog.RedisOptions{Prefix: testPrefix()})
	if err != nil {
		t.Fatal(err)
	}
	m := newManagerOn(t, rl, Config{Instance: "i", Batch: true, Supersede: true, DetachGrace: time.Minute})
	text := []agui.Event{&agui.TextMessageStart{MessageID: "a-r1", Role: "assistant"}}
	for range 100 {
		text = append(text, &agui.TextMessageContent{MessageID: "a-r1", Delta: "x"})
	}
	st1, err := m.Start(context.Background(), StartRequest{Principal: "p", AgentID: "a", Agent: script(10*time.Millisecond, text...), Input: input("t", "r1")})
	if err != nil {
		t.Fatal(err)
	}
	c1 := &collector{}
	done1 := make(chan struct{})
	go func() { defer close(done1); st1.Serve(context.Background(), c1) }()
	for deadline := time.Now().Add(5 * time.Second); c1.len() < 5; time.Sleep(time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("the first run never streamed")
		}
	}
	in := input("t", "r2")
	in.Messages = []agui.Message{{ID: "u-r1", Role: agui.RoleUser, Content: agui.Text("hi")}, in.Messages[0]}
	// RUN_STARTED at once (with the run's history), the end a while after
	// the superseded run's.
	slowEnd := agui.AgentFunc(func(ctx context.Context, req *agui.Request) iter.Seq2[agui.Event, error] {
		return func(yield func(agui.Event, error) bool) {
			if !yield(&agui.RunStarted{ThreadID: "t", RunID: "r2"}, nil) {
				return
			}
			select {
			case <-ctx.Done():
			case <-time.After(time.Second):
			}
			yield(&agui.RunFinished{ThreadID: "t", RunID: "r2"}, nil)
		}
	})
	st2, err := m.Start(context.Background(), StartRequest{Principal: "p", AgentID: "a", Agent: slowEnd, Input: in})
	if err != nil {
		t.Fatal(err)
	}
	c2 := &collector{}
	done2 := make(chan struct{})
	go func() { defer close(done2); st2.Serve(context.Background(), c2) }()
	<-done1 // superseded: ended
	for deadline := time.Now().Add(5 * time.Second); c2.len() < 1; time.Sleep(time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("the second run's RUN_STARTED never came")
		}
	}
	if ids := threadIDs(t, m, "p", "t"); !slices.Contains(ids, "u-r2") {
		t.Errorf("while the second run streams, after the superseded one ended, the thread holds %v, without the second run's input", ids)
	}
	<-done2
}

// threadIDs is the ids of the messages of principal's thread.
func threadIDs(t *testing.T, m *Manager, principal, thread string) []string {
	t.Helper()
	th, err := m.Thread(context.Background(), principal, thread)
	if err != nil {
		t.Fatal(err)
	}
	var ids []string
	for _, msg := range th.Messages {
		ids = append(ids, msg.ID)
	}
	return ids
}
