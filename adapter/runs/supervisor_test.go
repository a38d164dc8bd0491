package runs

import (
	"context"
	"fmt"
	"math"
	"runtime"
	"testing"
	"time"

	"go.uber.org/goleak"

	"github.com/genui-adapter/genui-adapter/adapter/runlog"
)

// The supervisor's tick walks every local run each second and renews
// all their leases every LeaseTTL/3: at 10,000 runs a tick that copied
// them into fresh slices made 1.3 MB of garbage a second, which the GC
// of a crowd of quiet streams pays for. A tick reuses its slices and
// leaves no run reachable from them.
func TestSweepAllocatesNothingPerRun(t *testing.T) {
	m := newManager(t, Config{})
	m.Close() // the test ticks by hand
	const n = 2000
	m.mu.Lock()
	for i := range n {
		r := runlog.Run{ID: fmt.Sprintf("r%d", i), ThreadID: fmt.Sprintf("t%d", i), Owner: "alice", Status: runlog.StatusRunning}
		lr := &localRun{run: r, cancel: func(error) {}}
		lr.readers.Store(1) // read: not a detach candidate
		m.local[r.Ref()] = lr
	}
	m.mu.Unlock()
	var s sweepState
	now := time.Now()
	tick := func() {
		now = now.Add(m.cfg.LeaseTTL) // every tick renews
		m.sweep(context.Background(), &s, now)
	}
	tick() // the slices grow once
	// The least of three measurements: another test's goroutine may
	// allocate during one.
	const ticks = 20
	per := uint64(math.MaxUint64)
	for range 3 {
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		for range ticks {
			tick()
		}
		runtime.ReadMemStats(&after)
		per = min(per, (after.TotalAlloc-before.TotalAlloc)/ticks)
	}
	if per > 4<<10 {
		t.Errorf("a tick over %d runs allocated %d bytes; want a few hundred, whatever the number of runs", n, per)
	}
	for i, lr := range s.runs[:cap(s.runs)] {
		if lr != nil {
			t.Fatalf("runs[%d] still holds a run after the tick", i)
		}
	}
	for i, r := range s.recs[:cap(s.recs)] {
		if r.ID != "" {
			t.Fatalf("recs[%d] still holds run %s after the tick", i, r.ID)
		}
	}
	if cap(s.runs) < n || cap(s.recs) < n {
		t.Fatalf("the tick kept no slices (cap %d, %d)", cap(s.runs), cap(s.recs))
	}
}

// An instance that dies with many runs nobody reads: the reaper of a live
// instance ends every one of them within a few lease TTLs, not a page of
// them a round (the runs it ended sort first in the index until the next
// call of Orphans clears them, and a call that found only those ended the
// round).
func TestReaperEndsEveryOrphan(t *testing.T) {
	opt := goleak.IgnoreCurrent()
	t.Cleanup(func() { goleak.VerifyNone(t, opt) })
	const ttl = time.Second
	const n = 10 * reapBatch
	prefix := testPrefix()
	redisInstance(t, prefix, "live", Config{LeaseTTL: ttl})
	dead, err := runlog.NewRedis(context.Background(), testRedisURL(), runlog.RedisOptions{Prefix: prefix, LeaseTTL: ttl})
	if err != nil {
		t.Fatal(err)
	}
	defer dead.Close()
	ctx := context.Background()
	var refs []runlog.Ref
	for i := range n {
		r := runlog.Run{ID: fmt.Sprintf("r%d", i), ThreadID: fmt.Sprintf("t%d", i), AgentID: "a", Owner: "p", Instance: "dead"}
		if _, err := dead.Start(ctx, r, false); err != nil {
			t.Fatal(err)
		}
		refs = append(refs, r.Ref())
	}
	started := time.Now()
	// The reaper ends the runs about in the order they started: the first
	// still running is found early.
	for i := 0; i < len(refs); {
		r, err := dead.Get(ctx, refs[i])
		if err != nil {
			t.Fatal(err)
		}
		if r.Status != runlog.StatusRunning {
			i++
			continue
		}
		if d := time.Since(started); d > 7*ttl {
			t.Fatalf("runs %d to %d of a dead instance still running %v after they started (lease TTL %v)", i, n-1, d, ttl)
		}
		time.Sleep(50 * time.Millisecond)
	}
}
