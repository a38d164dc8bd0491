package runlog

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
)

// startThread starts and ends run r on its thread and records it in the
// thread's record, as package runs does.
func startThread(t *testing.T, l Log, r Run, at time.Time) {
	t.Helper()
	ctx := context.Background()
	if _, err := l.Start(ctx, r, false); err != nil {
		t.Fatal(err)
	}
	if _, err := l.UpdateThread(ctx, r.Thread(), func(ti *ThreadInfo, found bool) error {
		if !found {
			ti.Created = at
		}
		ti.AddRun(r, at, 3)
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	if _, err := l.Append(ctx, r, [][]byte{ev(1), finished}, true); err != nil {
		t.Fatal(err)
	}
}

func threadIDs(ts []ThreadInfo) []string {
	var ids []string
	for _, t := range ts {
		ids = append(ids, t.ID)
	}
	slices.Sort(ids)
	return ids
}

func TestThreads(t *testing.T) {
	for _, b := range backends() {
		t.Run(b.name, func(t *testing.T) {
			ctx := context.Background()
			now := time.Now().Truncate(time.Millisecond)
			t.Run("records are the owner's", func(t *testing.T) {
				l := b.new(t, MemoryOptions{}, RedisOptions{})
				startThread(t, l, run("alice", "r1", "t1"), now)
				startThread(t, l, run("alice", "r2", "t2"), now.Add(time.Second))
				startThread(t, l, run("bob", "r1", "t1"), now)
				got, err := l.Threads(ctx, "alice")
				if err != nil || !slices.Equal(threadIDs(got), []string{"t1", "t2"}) {
					t.Fatalf("alice's threads = %+v, %v", got, err)
				}
				if got, _ := l.Threads(ctx, "carol"); len(got) != 0 {
					t.Errorf("carol's threads = %+v", got)
				}
				ti, err := l.GetThread(ctx, Ref{Owner: "alice", ID: "t2"})
				if err != nil || ti.AgentID != "a" || !ti.LastRun.Equal(now.Add(time.Second)) || !slices.Equal(ti.Runs, []string{"r2"}) {
					t.Errorf("GetThread = %+v, %v", ti, err)
				}
				if _, err := l.GetThread(ctx, Ref{Owner: "bob", ID: "t2"}); !errors.Is(err, ErrUnknownThread) {
					t.Errorf("bob's view of alice's t2 = %v, want ErrUnknownThread", err)
				}
			})
			t.Run("an update's error stores nothing", func(t *testing.T) {
				l := b.new(t, MemoryOptions{}, RedisOptions{})
				boom := errors.New("boom")
				if _, err := l.UpdateThread(ctx, Ref{Owner: "alice", ID: "t"}, func(*ThreadInfo, bool) error { return boom }); !errors.Is(err, boom) {
					t.Fatalf("UpdateThread = %v", err)
				}
				if _, err := l.GetThread(ctx, Ref{Owner: "alice", ID: "t"}); !errors.Is(err, ErrUnknownThread) {
					t.Errorf("GetThread = %v, want ErrUnknownThread", err)
				}
			})
			t.Run("a record keeps its newest runs", func(t *testing.T) {
				l := b.new(t, MemoryOptions{}, RedisOptions{})
				for i := range 5 {
					startThread(t, l, run("alice", fmt.Sprint("r", i), "t"), now)
				}
				ti, _ := l.GetThread(ctx, Ref{Owner: "alice", ID: "t"})
				if !slices.Equal(ti.Runs, []string{"r2", "r3", "r4"}) {
					t.Errorf("runs = %v", ti.Runs)
				}
			})
			t.Run("delete removes the record, the history and the runs", func(t *testing.T) {
				l := b.new(t, MemoryOptions{}, RedisOptions{})
				r := run("alice", "r1", "t1")
				startThread(t, l, r, now)
				l.SaveHistory(ctx, r.Thread(), []byte(`{"owner":"alice"}`))
				other := run("alice", "r9", "t9")
				startThread(t, l, other, now)
				if err := l.DeleteThread(ctx, Ref{Owner: "bob", ID: "t1"}); !errors.Is(err, ErrUnknownThread) {
					t.Fatalf("bob deletes alice's t1: %v, want ErrUnknownThread", err)
				}
				if err := l.DeleteThread(ctx, r.Thread()); err != nil {
					t.Fatal(err)
				}
				if _, err := l.GetThread(ctx, r.Thread()); !errors.Is(err, ErrUnknownThread) {
					t.Errorf("GetThread after delete = %v", err)
				}
				if h, _ := l.History(ctx, r.Thread()); h != nil {
					t.Errorf("history after delete = %s", h)
				}
				if _, err := l.Get(ctx, r.Ref()); !errors.Is(err, ErrUnknownRun) {
					t.Errorf("run after delete = %v, want ErrUnknownRun", err)
				}
				if _, err := l.Get(ctx, other.Ref()); err != nil {
					t.Errorf("another thread's run after delete = %v", err)
				}
				if got, _ := l.Threads(ctx, "alice"); !slices.Equal(threadIDs(got), []string{"t9"}) {
					t.Errorf("threads after delete = %+v", got)
				}
				if err := l.DeleteThread(ctx, r.Thread()); !errors.Is(err, ErrUnknownThread) {
					t.Errorf("second delete = %v, want ErrUnknownThread", err)
				}
			})
			t.Run("a thread with an active run is not deleted", func(t *testing.T) {
				l := b.new(t, MemoryOptions{}, RedisOptions{})
				r := run("alice", "r1", "t1")
				l.Start(ctx, r, false)
				l.UpdateThread(ctx, r.Thread(), func(ti *ThreadInfo, _ bool) error { ti.AddRun(r, now, 10); return nil })
				if err := l.DeleteThread(ctx, r.Thread()); !errors.Is(err, ErrThreadBusy) {
					t.Fatalf("DeleteThread = %v, want ErrThreadBusy", err)
				}
				if _, err := l.GetThread(ctx, r.Thread()); err != nil {
					t.Errorf("GetThread = %v", err)
				}
			})
			t.Run("an owner's threads are capped, oldest last run first", func(t *testing.T) {
				l := b.new(t, MemoryOptions{MaxThreadsPerOwner: 2}, RedisOptions{MaxThreadsPerOwner: 2})
				startThread(t, l, run("alice", "r1", "old"), now)
				startThread(t, l, run("alice", "r2", "mid"), now.Add(time.Second))
				startThread(t, l, run("bob", "r1", "bobs"), now.Add(-time.Hour))
				startThread(t, l, run("alice", "r3", "new"), now.Add(2*time.Second))
				if got, _ := l.Threads(ctx, "alice"); !slices.Equal(threadIDs(got), []string{"mid", "new"}) {
					t.Errorf("alice's threads = %v, want mid and new", threadIDs(got))
				}
				if got, _ := l.Threads(ctx, "bob"); !slices.Equal(threadIDs(got), []string{"bobs"}) {
					t.Errorf("bob's threads = %v", threadIDs(got))
				}
			})
		})
	}
}

func TestMemoryThreadBudget(t *testing.T) {
	ctx := context.Background()
	m := NewMemory(MemoryOptions{MaxHistoryBytes: 4096})
	defer m.Close()
	for i := range 20 {
		r := run("alice", fmt.Sprint("r", i), fmt.Sprint("t", i))
		startThread(t, m, r, time.Now())
		m.SaveHistory(ctx, r.Thread(), make([]byte, 500))
	}
	if u := m.Usage().Histories; u > 4096 {
		t.Errorf("histories and records hold %d bytes, over the 4096 budget", u)
	}
	got, _ := m.Threads(ctx, "alice")
	if len(got) == 0 || len(got) >= 20 {
		t.Errorf("%d threads kept, want the newest few", len(got))
	}
	if _, err := m.GetThread(ctx, Ref{Owner: "alice", ID: "t19"}); err != nil {
		t.Errorf("the newest thread: %v", err)
	}
}

// A principal far over its thread cap (a burst of new threads, each making
// room at once for the same oldest ones) costs each new thread a bounded
// number of deletions, not the whole excess: 300 runs started together
// on a principal with a thousand threads each deleted every thread over
// the cap, for seconds of Redis work per start.
func TestRedisCapOwnerIsBounded(t *testing.T) {
	l := backends()[1].new(t, MemoryOptions{}, RedisOptions{MaxThreadsPerOwner: 5}).(*Redis)
	ctx := context.Background()
	var zs []redis.Z
	for i := range 1000 {
		zs = append(zs, redis.Z{Score: float64(i), Member: fmt.Sprintf("old-%d", i)})
	}
	if err := l.rdb.ZAdd(ctx, l.threadsKey("crowd"), zs...).Err(); err != nil {
		t.Fatal(err)
	}
	for i := range 3 {
		if _, err := l.UpdateThread(ctx, Ref{Owner: "crowd", ID: fmt.Sprintf("new-%d", i)}, func(*ThreadInfo, bool) error { return nil }); err != nil {
			t.Fatal(err)
		}
	}
	// Each new thread added one and removed capBatch: the set shrinks
	// towards the cap, a few at a time.
	if n, _ := l.rdb.ZCard(ctx, l.threadsKey("crowd")).Result(); n != 1000+3-3*capBatch {
		t.Fatalf("%d threads after three new ones, want %d", n, 1000+3-3*capBatch)
	}
	if s, err := l.rdb.ZScore(ctx, l.threadsKey("crowd"), "old-0").Result(); err == nil {
		t.Fatalf("the oldest thread is still there (score %v)", s)
	}
}

// roundTrips counts the client's round trips to Redis: a command or a
// pipeline each, a new connection's handshake aside.
type roundTrips struct{ n atomic.Int64 }

// handshake: a command a new connection sends first.
func handshake(cmd redis.Cmder) bool {
	switch cmd.Name() {
	case "hello", "select", "client", "auth":
		return true
	}
	return false
}

func (*roundTrips) DialHook(next redis.DialHook) redis.DialHook { return next }

func (c *roundTrips) ProcessHook(next redis.ProcessHook) redis.ProcessHook {
	return func(ctx context.Context, cmd redis.Cmder) error {
		if !handshake(cmd) {
			c.n.Add(1)
		}
		return next(ctx, cmd)
	}
}

func (c *roundTrips) ProcessPipelineHook(next redis.ProcessPipelineHook) redis.ProcessPipelineHook {
	return func(ctx context.Context, cmds []redis.Cmder) error {
		if len(cmds) > 0 && !handshake(cmds[0]) {
			c.n.Add(1)
		}
		return next(ctx, cmds)
	}
}

// TestRedisUpdateThreadRoundTrips: recording a run in its thread, a new
// one or not, costs two round trips while the owner is within its cap
// (the read and the checked write); each one waits behind Redis's backlog
// of appends, in a run's start.
func TestRedisUpdateThreadRoundTrips(t *testing.T) {
	l := backends()[1].new(t, MemoryOptions{}, RedisOptions{MaxThreadsPerOwner: 5}).(*Redis)
	ctx := context.Background()
	rt := &roundTrips{}
	l.rdb.AddHook(rt)
	now := time.Now()
	for i, id := range []string{"t1", "t2", "t1"} {
		r := run("alice", fmt.Sprint("r", i), id)
		before := rt.n.Load()
		if _, err := l.UpdateThread(ctx, r.Thread(), func(ti *ThreadInfo, found bool) error {
			if !found {
				ti.Created = now
			}
			ti.AddRun(r, now, 10)
			return nil
		}); err != nil {
			t.Fatal(err)
		}
		if n := rt.n.Load() - before; n > 2 {
			t.Errorf("run %d on %s: %d round trips, want at most 2", i, id, n)
		}
	}
	got, err := l.GetThread(ctx, Ref{Owner: "alice", ID: "t1"})
	if err != nil || !slices.Equal(got.Runs, []string{"r0", "r2"}) {
		t.Errorf("t1 = %+v, %v; want runs r0, r2", got, err)
	}
}

// TestUpdateThreadConcurrent: updates of one thread made at once each
// apply to the record the others left (none is lost).
func TestUpdateThreadConcurrent(t *testing.T) {
	for _, b := range backends() {
		t.Run(b.name, func(t *testing.T) {
			l := b.new(t, MemoryOptions{}, RedisOptions{})
			ctx := context.Background()
			now := time.Now()
			var wg sync.WaitGroup
			for i := range 8 {
				wg.Go(func() {
					r := run("alice", fmt.Sprint("r", i), "t")
					if _, err := l.UpdateThread(ctx, r.Thread(), func(ti *ThreadInfo, _ bool) error { ti.AddRun(r, now, 100); return nil }); err != nil {
						t.Error(err)
					}
				})
			}
			wg.Wait()
			got, err := l.GetThread(ctx, Ref{Owner: "alice", ID: "t"})
			if err != nil || len(got.Runs) != 8 {
				t.Errorf("thread = %+v, %v; want 8 runs", got, err)
			}
		})
	}
}

// TestRedisCapOwnerRoundTrips: a new thread over its owner's cap costs
// four round trips (the read, the checked write, which names the threads
// to remove, one read of those and one deletion), whatever it removes;
// a thread with an active run stays.
func TestRedisCapOwnerRoundTrips(t *testing.T) {
	l := backends()[1].new(t, MemoryOptions{}, RedisOptions{MaxThreadsPerOwner: 2}).(*Redis)
	ctx := context.Background()
	rt := &roundTrips{}
	l.rdb.AddHook(rt)
	now := time.Now().Truncate(time.Millisecond)
	busy := run("alice", "r0", "busy")
	if _, err := l.Start(ctx, busy, false); err != nil {
		t.Fatal(err)
	}
	for i, id := range []string{"busy", "old", "mid", "gone", "new"} {
		r := run("alice", fmt.Sprint("r", i), id)
		before := rt.n.Load()
		if _, err := l.UpdateThread(ctx, r.Thread(), func(ti *ThreadInfo, _ bool) error {
			ti.AddRun(r, now.Add(time.Duration(i)*time.Second), 10)
			return nil
		}); err != nil {
			t.Fatal(err)
		}
		if n := rt.n.Load() - before; n > 4 {
			t.Errorf("new thread %s: %d round trips, want at most 4", id, n)
		}
		if id == "gone" {
			// Its record expired: capOwner drops it from the set.
			l.rdb.Del(ctx, l.key("thread", r.Thread(), "info"))
			l.rdb.ZAdd(ctx, l.threadsKey("alice"), redis.Z{Score: 0, Member: "gone"})
		}
	}
	got, err := l.Threads(ctx, "alice")
	if err != nil || !slices.Equal(threadIDs(got), []string{"busy", "mid", "new"}) {
		t.Errorf("threads = %v, %v; want busy (its run is active), mid and new", threadIDs(got), err)
	}
}
