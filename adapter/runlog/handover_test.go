package runlog

import (
	"context"
	"testing"
	"time"
)

// TestClaimCancelledWhileWaitingLosesNoRun: a claimer whose context ends
// while it waits (an instance closing, or draining, as another offers a
// run) must not lose the run it pops: it claims it and returns it (for
// the caller to give back), or leaves it offered, so that another
// instance claims it.
func TestClaimCancelledWhileWaitingLosesNoRun(t *testing.T) {
	ctx := context.Background()
	r, err := NewRedis(ctx, redisURL(), RedisOptions{Prefix: prefix()})
	if err != nil {
		t.Fatalf("Redis is required for these tests (GENUI_TEST_REDIS or 127.0.0.1:6379): %v", err)
	}
	t.Cleanup(func() { r.Close() })
	rn := run("alice", "r1", "t1")
	if _, err := r.Start(ctx, rn, false); err != nil {
		t.Fatal(err)
	}
	if _, err := r.Append(ctx, rn, [][]byte{ev(1)}, false); err != nil {
		t.Fatal(err)
	}

	cctx, cancel := context.WithCancel(ctx)
	type claimed struct {
		run Run
		rec []byte
		err error
	}
	got := make(chan claimed, 1)
	go func() {
		run, rec, err := r.Claim(cctx, "i2", 2*time.Second, 5*time.Second)
		got <- claimed{run, rec, err}
	}()
	time.Sleep(200 * time.Millisecond) // the claimer waits in BLPOP
	cancel()
	if err := r.Offer(ctx, rn, []byte(`{"next":2}`), 10*time.Second); err != nil {
		t.Fatal(err)
	}
	c := <-got
	if c.rec != nil {
		if c.run.ID != "r1" || c.run.Instance != "i2" || string(c.rec) != `{"next":2}` {
			t.Fatalf("claimed %+v %s", c.run, c.rec)
		}
		return // claimed: the caller gives it back
	}
	// Not claimed: it must still be offered to another claimer.
	run, rec, err := r.Claim(ctx, "i3", 500*time.Millisecond, 5*time.Second)
	if err != nil || rec == nil || run.ID != "r1" {
		t.Fatalf("the run popped by a cancelled claimer is lost: first claim %+v %v; second %+v %s %v", c.run, c.err, run, rec, err)
	}
}
