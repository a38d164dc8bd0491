package runlog

import (
	"context"
	"testing"
	"time"
)

// The index of live runs: a run whose owner renews its lease is no
// orphan; one whose lease ended more than the grace ago is, until it ends;
// an ended run leaves the index.
func TestOrphans(t *testing.T) {
	const ttl = 300 * time.Millisecond
	l := backends()[1].new(t, MemoryOptions{}, RedisOptions{LeaseTTL: ttl}).(*Redis)
	ctx := context.Background()
	kept, dead, done := run("o", "kept", "t1"), run("o", "dead", "t2"), run("o", "done", "t3")
	for _, r := range []Run{kept, dead, done} {
		if _, err := l.Start(ctx, r, false); err != nil {
			t.Fatal(err)
		}
	}
	orphans := func() []string {
		t.Helper()
		runs, err := l.Orphans(ctx, ttl, 10)
		if err != nil {
			t.Fatal(err)
		}
		var ids []string
		for _, r := range runs {
			if r.Status != StatusRunning || r.Instance != "i1" {
				t.Fatalf("orphan %+v", r)
			}
			ids = append(ids, r.ID)
		}
		return ids
	}
	if got := orphans(); len(got) != 0 {
		t.Fatalf("orphans right after the start: %v", got)
	}
	if _, err := l.Append(ctx, done, [][]byte{finished}, true); err != nil {
		t.Fatal(err)
	}
	// kept's owner renews its lease; dead's and done's do not.
	for end := time.Now().Add(3 * ttl); time.Now().Before(end); time.Sleep(ttl / 4) {
		if _, err := l.Lease(ctx, []Run{kept}, "i1", ttl); err != nil {
			t.Fatal(err)
		}
	}
	if got := orphans(); len(got) != 1 || got[0] != "dead" {
		t.Fatalf("orphans %v, want [dead]", got)
	}
	if n, err := l.rdb.ZCard(ctx, l.liveKey()).Result(); err != nil || n != 2 {
		t.Fatalf("index holds %d runs (%v), want 2: the ended run leaves it", n, err)
	}
	if ended, err := l.EndIfOwnerLost(ctx, dead, []byte(`{"type":"RUN_ERROR","message":"gone","code":"owner_lost"}`)); !ended || err != nil {
		t.Fatalf("EndIfOwnerLost of the orphan: %v %v", ended, err)
	}
	if got := orphans(); len(got) != 0 {
		t.Fatalf("orphans after it ended: %v", got)
	}
	if n, _ := l.rdb.ZCard(ctx, l.liveKey()).Result(); n != 1 {
		t.Fatalf("index holds %d runs, want 1 (the kept one)", n)
	}
}
