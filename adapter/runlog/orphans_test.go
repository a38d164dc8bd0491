package runlog

import (
	"context"
	"fmt"
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

// Runs that ended leave the index only as Orphans finds them, and they
// sort before a run that died after them: a call must look past a page
// of them, or the reaper, asking for a page at a time, neither finds the
// dead run nor clears more than a page of ended ones a round (the index
// grows while runs end faster than that).
func TestOrphansLookPastEndedRuns(t *testing.T) {
	const ttl = 200 * time.Millisecond
	l := backends()[1].new(t, MemoryOptions{}, RedisOptions{LeaseTTL: ttl}).(*Redis)
	ctx := context.Background()
	const ended = 50
	for i := range ended {
		r := run("o", fmt.Sprintf("done%d", i), fmt.Sprintf("t%d", i))
		if _, err := l.Start(ctx, r, false); err != nil {
			t.Fatal(err)
		}
		if _, err := l.Append(ctx, r, [][]byte{finished}, true); err != nil {
			t.Fatal(err)
		}
	}
	time.Sleep(5 * time.Millisecond) // the dead run's lease ends last
	dead := run("o", "dead", "t-dead")
	if _, err := l.Start(ctx, dead, false); err != nil {
		t.Fatal(err)
	}
	time.Sleep(2*ttl + 50*time.Millisecond)
	runs, err := l.Orphans(ctx, ttl, 10)
	if err != nil {
		t.Fatal(err)
	}
	if len(runs) != 1 || runs[0].ID != "dead" {
		t.Fatalf("Orphans(max 10) behind %d ended runs = %v, want [dead]", ended, runs)
	}
	if n, _ := l.rdb.ZCard(ctx, l.liveKey()).Result(); n != 1 {
		t.Fatalf("index holds %d runs after Orphans, want 1 (the dead one)", n)
	}
}
