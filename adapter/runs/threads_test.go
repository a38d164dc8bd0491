package runs

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/genui-adapter/genui-adapter/adapter/runlog"
	"github.com/genui-adapter/genui-adapter/agui"
)

func runOn(t *testing.T, m *Manager, principal, thread, run string, evs ...agui.Event) {
	t.Helper()
	serve(t, m, StartRequest{Principal: principal, AgentID: "a", Agent: script(0, evs...), Input: input(thread, run)})
}

func ids(ts []runlog.ThreadInfo) []string {
	var out []string
	for _, t := range ts {
		out = append(out, t.ID)
	}
	return out
}

func TestThreadsPaging(t *testing.T) {
	ctx := context.Background()
	m := newManager(t, Config{MaxThreadPage: 3})
	for i := range 5 {
		runOn(t, m, "alice", fmt.Sprint("t", i), fmt.Sprint("r", i))
	}
	runOn(t, m, "bob", "tb", "rb")
	runOn(t, m, "alice", "t1", "r1-again") // t1 becomes the newest
	var got []string
	cursor := ""
	for range 10 {
		p, err := m.Threads(ctx, "alice", ThreadQuery{Limit: 2, Cursor: cursor})
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, ids(p.Threads)...)
		if cursor = p.NextCursor; cursor == "" {
			break
		}
	}
	if want := []string{"t1", "t4", "t3", "t2", "t0"}; !slices.Equal(got, want) {
		t.Errorf("pages = %v, want %v (newest first, alice's only)", got, want)
	}
	p, _ := m.Threads(ctx, "alice", ThreadQuery{Limit: 1000})
	if len(p.Threads) != 3 || p.NextCursor == "" {
		t.Errorf("a limit over MaxThreadPage gave %d threads, cursor %q; want 3 and a cursor", len(p.Threads), p.NextCursor)
	}
	// Past the end: the last thread's cursor.
	last := ThreadPage{}
	for c := ""; ; {
		pg, _ := m.Threads(ctx, "alice", ThreadQuery{Limit: 1, Cursor: c})
		if pg.NextCursor == "" {
			break
		}
		last, c = pg, pg.NextCursor
	}
	end, err := m.Threads(ctx, "alice", ThreadQuery{Cursor: last.NextCursor})
	if err != nil || len(end.Threads) != 1 || end.NextCursor != "" {
		t.Fatalf("the last page = %v, %q, %v", ids(end.Threads), end.NextCursor, err)
	}
	past := pageCursor{LastRun: 1, ID: "zzz"}.encode()
	if p, err := m.Threads(ctx, "alice", ThreadQuery{Cursor: past}); err != nil || len(p.Threads) != 0 || p.NextCursor != "" {
		t.Errorf("past the end = %v, %q, %v; want empty", ids(p.Threads), p.NextCursor, err)
	}
	for _, bad := range []string{"!!", "e30", "bm90IGpzb24"} {
		if _, err := m.Threads(ctx, "alice", ThreadQuery{Cursor: bad}); !errors.Is(err, ErrBadCursor) {
			t.Errorf("cursor %q = %v, want ErrBadCursor", bad, err)
		}
	}
	if p, _ := m.Threads(ctx, "alice", ThreadQuery{AgentID: "other"}); len(p.Threads) != 0 {
		t.Errorf("another agent's threads = %v", ids(p.Threads))
	}
}

func TestThreadArchiveRenameDelete(t *testing.T) {
	ctx := context.Background()
	m := newManager(t, Config{MaxTitleBytes: 10})
	runOn(t, m, "alice", "t1", "r1")
	runOn(t, m, "alice", "t2", "r2")
	yes, no := true, false
	if _, err := m.UpdateThread(ctx, "alice", "t1", ThreadUpdate{Archived: &yes}); err != nil {
		t.Fatal(err)
	}
	if p, _ := m.Threads(ctx, "alice", ThreadQuery{}); !slices.Equal(ids(p.Threads), []string{"t2"}) {
		t.Errorf("without archived = %v", ids(p.Threads))
	}
	if p, _ := m.Threads(ctx, "alice", ThreadQuery{IncludeArchived: true}); !slices.Equal(ids(p.Threads), []string{"t2", "t1"}) {
		t.Errorf("with archived = %v", ids(p.Threads))
	}
	title := "Plans"
	ti, err := m.UpdateThread(ctx, "alice", "t1", ThreadUpdate{Title: &title, Archived: &no})
	if err != nil || ti.Title != "Plans" || ti.Archived {
		t.Fatalf("rename and unarchive = %+v, %v", ti, err)
	}
	long := strings.Repeat("x", 11)
	if _, err := m.UpdateThread(ctx, "alice", "t1", ThreadUpdate{Title: &long}); !errors.Is(err, ErrTitleTooLong) {
		t.Errorf("an 11-byte title = %v, want ErrTitleTooLong", err)
	}
	for _, f := range []func() error{
		func() error { _, err := m.UpdateThread(ctx, "bob", "t1", ThreadUpdate{Title: &title}); return err },
		func() error { return m.DeleteThread(ctx, "bob", "t1") },
		func() error { _, err := m.ThreadMessages(ctx, "bob", "t1"); return err },
		func() error { _, _, err := m.ThreadEvents(ctx, "bob", "t1"); return err },
		func() error { _, err := m.ThreadState(ctx, "bob", "t1"); return err },
		func() error { _, err := m.UpdateThread(ctx, "alice", "nope", ThreadUpdate{Title: &title}); return err },
	} {
		if err := f(); !errors.Is(err, ErrNotFound) {
			t.Errorf("foreign or unknown thread = %v, want ErrNotFound", err)
		}
	}
	if ti, _ := m.ThreadInfo(ctx, "alice", "t1"); ti.Title != "Plans" {
		t.Errorf("bob's rename reached alice's thread: %+v", ti)
	}
	if err := m.DeleteThread(ctx, "alice", "t1"); err != nil {
		t.Fatal(err)
	}
	if th, _ := m.Thread(ctx, "alice", "t1"); len(th.Messages) != 0 {
		t.Errorf("history after delete = %+v", th.Messages)
	}
	runOn(t, m, "bob", "tb", "rb")
	if n, err := m.ClearThreads(ctx, "alice"); n != 1 || err != nil {
		t.Errorf("clear = %d, %v; want alice's one thread", n, err)
	}
	if p, _ := m.Threads(ctx, "bob", ThreadQuery{}); !slices.Equal(ids(p.Threads), []string{"tb"}) {
		t.Errorf("bob's threads after alice cleared hers = %v", ids(p.Threads))
	}
}

func TestThreadMessagesEventsState(t *testing.T) {
	ctx := context.Background()
	m := newManager(t, Config{})
	runOn(t, m, "alice", "t", "r1",
		&agui.StateSnapshot{Snapshot: agui.JSON(`{"count":1,"items":[]}`)},
		&agui.TextMessageStart{MessageID: "m1", Role: "assistant"},
		&agui.TextMessageContent{MessageID: "m1", Delta: "hello"},
		&agui.TextMessageEnd{MessageID: "m1"},
	)
	runOn(t, m, "alice", "t", "r2",
		&agui.StateDelta{Delta: agui.JSON(`[{"op":"replace","path":"/count","value":2},{"op":"add","path":"/items/-","value":"a"}]`)},
	)
	msgs, err := m.ThreadMessages(ctx, "alice", "t")
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, msg := range msgs {
		got = append(got, string(msg.Role)+":"+msg.Content.Text)
	}
	if want := []string{"user:hi", "assistant:hello", "user:hi"}; !slices.Equal(got, want) {
		t.Errorf("messages = %v, want %v", got, want)
	}
	evs, truncated, err := m.ThreadEvents(ctx, "alice", "t")
	if err != nil || truncated {
		t.Fatal(err, truncated)
	}
	var types []string
	for _, e := range evs {
		var v struct{ Type string }
		json.Unmarshal(e, &v)
		types = append(types, v.Type)
	}
	if want := []string{"RUN_STARTED", "STATE_SNAPSHOT", "TEXT_MESSAGE_START", "TEXT_MESSAGE_CONTENT", "TEXT_MESSAGE_END", "RUN_FINISHED", "RUN_STARTED", "STATE_DELTA", "RUN_FINISHED"}; !slices.Equal(types, want) {
		t.Errorf("events = %v\nwant %v", types, want)
	}
	st, err := m.ThreadState(ctx, "alice", "t")
	if err != nil || string(st) != `{"count":2,"items":["a"]}` {
		t.Errorf("state = %s, %v", st, err)
	}
	runOn(t, m, "alice", "plain", "r3")
	if st, err := m.ThreadState(ctx, "alice", "plain"); st != nil || err != nil {
		t.Errorf("state without a snapshot = %s, %v; want nil", st, err)
	}
}

func TestThreadEventsCap(t *testing.T) {
	m := newManager(t, Config{MaxThreadEventBytes: 200})
	runOn(t, m, "alice", "t", "r1", &agui.TextMessageStart{MessageID: "m1", Role: "assistant"},
		&agui.TextMessageContent{MessageID: "m1", Delta: strings.Repeat("x", 300)}, &agui.TextMessageEnd{MessageID: "m1"})
	evs, truncated, err := m.ThreadEvents(context.Background(), "alice", "t")
	n := 0
	for _, e := range evs {
		n += len(e) + 1
	}
	if err != nil || !truncated || n > 200 || len(evs) == 0 {
		t.Errorf("events = %d (%d bytes), truncated %v, %v; want some within 200 bytes and truncated", len(evs), n, truncated, err)
	}
}

func TestUnlockedRunsMakeNoThread(t *testing.T) {
	m := newManager(t, Config{})
	serve(t, m, StartRequest{Principal: "alice", AgentID: "a", Agent: script(0), Input: input("card", "r1"), Unlocked: true})
	if p, _ := m.Threads(context.Background(), "alice", ThreadQuery{}); len(p.Threads) != 0 {
		t.Errorf("a card's request made threads %v", ids(p.Threads))
	}
}

// heldRecords is a log whose first thread record waits for release.
type heldRecords struct {
	runlog.Log
	once          sync.Once
	held, release chan struct{}
}

func (l *heldRecords) UpdateThread(ctx context.Context, thread runlog.Ref, update func(*runlog.ThreadInfo, bool) error) (runlog.ThreadInfo, error) {
	first := false
	l.once.Do(func() { first = true })
	if first {
		close(l.held)
		<-l.release
	}
	return l.Log.UpdateThread(ctx, thread, update)
}

// A run superseded before its record in its thread landed (a slow or
// retried write) stays before the run that superseded it: the thread's
// last run, whose state and messages the thread shows, is the newer one,
// whichever record lands first. Also with a record that keeps one run
// (history.maxThreadRuns: 1), where the cap drops the old run from the
// newer run's record at once and the old run's late record must not add
// it back after the newer one.
func TestSupersededRunRecordedLate(t *testing.T) {
	for _, tc := range []struct {
		name string
		max  int
		want []string
	}{{"default cap", 0, []string{"old", "new"}}, {"cap 1", 1, []string{"new"}}} {
		t.Run(tc.name, func(t *testing.T) {
			l := &heldRecords{Log: runlog.NewMemory(runlog.MemoryOptions{}), held: make(chan struct{}), release: make(chan struct{})}
			m := newManagerOn(t, l, Config{Instance: "i", Batch: true, Supersede: true, MaxThreadRuns: tc.max})
			ctx := context.Background()
			st1, err := m.Start(ctx, StartRequest{Principal: "p", AgentID: "a", Input: input("t", "old"),
				Agent: script(10*time.Millisecond, &agui.StateSnapshot{Snapshot: agui.JSON(`{"from":"old"}`)}, &agui.Custom{Name: "n"}, &agui.Custom{Name: "n"}, &agui.Custom{Name: "n"})})
			if err != nil {
				t.Fatal(err)
			}
			old, oldRead := make(chan struct{}), &collector{}
			go func() { defer close(old); _ = st1.Serve(ctx, oldRead) }()
			<-l.held // the old run's record waits
			waitFor(t, "the old run's state", func() bool { return oldRead.len() >= 2 })
			st2, err := m.Start(ctx, StartRequest{Principal: "p", AgentID: "a", Input: input("t", "new"),
				Agent: script(0, &agui.StateSnapshot{Snapshot: agui.JSON(`{"from":"new"}`)})})
			if err != nil {
				t.Fatal(err)
			}
			if err := st2.Serve(ctx, &collector{}); err != nil {
				t.Fatal(err)
			}
			close(l.release)
			<-old
			m.Wait()
			info, err := m.ThreadInfo(ctx, "p", "t")
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(info.Runs, tc.want) {
				t.Errorf("the thread's runs = %v, want %v", info.Runs, tc.want)
			}
			if state, err := m.ThreadState(ctx, "p", "t"); err != nil || string(state) != `{"from":"new"}` {
				t.Errorf("the thread's state = %s, %v; want the newer run's", state, err)
			}
		})
	}
}
