package runlog

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
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

// A run whose owner died is offered for a take-over from its start record
// and its latest checkpoint (stored with the append that carried it), once
// its lease lapsed; the claimer gets both and the sequence number of the
// run's last event, appends on with the events after the checkpoint again
// (those the log has are skipped), and the dead owner, should it come
// back, is fenced. A run with no checkpoint is not offered.
func TestOfferLost(t *testing.T) {
	l := backends()[1].new(t, MemoryOptions{}, RedisOptions{LeaseTTL: 300 * time.Millisecond}).(*Redis)
	ctx := context.Background()
	r := run("o", "lost-1", "tl")
	if _, err := l.Start(ctx, r, false); err != nil {
		t.Fatal(err)
	}
	res := l.AppendBatch(ctx, []AppendRequest{{Run: r, Events: [][]byte{ev(1), ev(2)}, First: 1, Checkpoint: []byte(`{"next":3,"state":{"backend":"x"}}`), Start: []byte(`{"input":{"runId":"lost-1"}}`)}})
	if res[0].Err != nil || res[0].Last != 2 {
		t.Fatalf("append with a checkpoint: %+v", res[0])
	}
	if res := l.AppendBatch(ctx, []AppendRequest{{Run: r, Events: [][]byte{ev(3)}, First: 3}}); res[0].Err != nil {
		t.Fatal(res[0].Err)
	}
	if ok, err := l.OfferLost(ctx, r, 5*time.Second); ok || !errors.Is(err, ErrOwnerAlive) {
		t.Fatalf("offered while its owner holds the lease: %v %v", ok, err)
	}
	alive(l, 400*time.Millisecond) // the owner died
	if ok, err := l.OfferLost(ctx, r, 5*time.Second); !ok || err != nil {
		t.Fatalf("not offered after its owner died: %v %v", ok, err)
	}
	if ok, _ := l.OfferLost(ctx, r, 5*time.Second); ok {
		t.Fatal("offered twice")
	}
	claimed, rec, err := l.Claim(ctx, "i2", time.Second, 300*time.Millisecond)
	if err != nil || rec == nil || claimed.Instance != "i2" {
		t.Fatalf("claim: %+v %s %v", claimed, rec, err)
	}
	if want := `{"start":{"input":{"runId":"lost-1"}},"checkpoint":{"next":3,"state":{"backend":"x"}},"written":3}`; string(rec) != want {
		t.Fatalf("record %s, want %s", rec, want)
	}
	// The dead owner comes back: fenced, its lease is another's.
	if _, err := l.Append(ctx, r, [][]byte{ev(9)}, false); !errors.Is(err, ErrOwnerLost) {
		t.Fatalf("the old owner's append: %v, want ErrOwnerLost", err)
	}
	if res, err := l.Lease(ctx, []Run{r}, "i1", 300*time.Millisecond); err != nil || !res[0].Lost {
		t.Fatalf("the old owner's lease renewal: %+v %v, want lost", res, err)
	}
	// The claimer's chain yields event 3 again, then 4: 3 is not written
	// again.
	res = l.AppendBatch(ctx, []AppendRequest{{Run: claimed, Events: [][]byte{ev(3), ev(4)}, First: 3, Terminal: true}})
	if res[0].Err != nil || res[0].Last != 4 {
		t.Fatalf("the claimer's append: %+v", res[0])
	}
	got, _ := readAll(t, l, r.Ref(), 0)
	if len(got) != 4 || string(got[2].Data) != string(ev(3)) || string(got[3].Data) != string(ev(4)) || !got[3].Terminal {
		t.Fatalf("events = %+v", got)
	}

	// No checkpoint: not offered; a reader ends it.
	r2 := run("o", "lost-2", "tl2")
	l.Start(ctx, r2, false)
	l.Append(ctx, r2, [][]byte{ev(1)}, false)
	alive(l, 400*time.Millisecond)
	if ok, err := l.OfferLost(ctx, r2, 5*time.Second); ok || err != nil {
		t.Fatalf("a run with no checkpoint offered: %v %v", ok, err)
	}
	if ended, err := l.EndIfOwnerLost(ctx, r2, ev(2)); !ended || err != nil {
		t.Fatalf("EndIfOwnerLost = %v %v", ended, err)
	}
}

// A run's end removes its start record and checkpoint (the record holds
// the headers its agent forwards: nothing keeps them past the run).
func TestEndRemovesStartAndCheckpoint(t *testing.T) {
	l := backends()[1].new(t, MemoryOptions{}, RedisOptions{}).(*Redis)
	ctx := context.Background()
	r := run("o", "ends", "te")
	l.Start(ctx, r, false)
	l.AppendBatch(ctx, []AppendRequest{{Run: r, Events: [][]byte{ev(1)}, First: 1, Checkpoint: []byte(`{"next":2}`), Start: []byte(`{"header":{"Authorization":["Bearer x"]}}`)}})
	k := l.keys(r)
	if n, _ := l.rdb.Exists(ctx, k.start, k.ckpt).Result(); n != 2 {
		t.Fatalf("start record and checkpoint stored: %d of 2", n)
	}
	res := l.AppendBatch(ctx, []AppendRequest{{Run: r, Events: [][]byte{ev(2)}, First: 2, Terminal: true, Checkpoint: []byte(`{"next":3}`)}})
	if res[0].Err != nil {
		t.Fatal(res[0].Err)
	}
	if n, _ := l.rdb.Exists(ctx, k.start, k.ckpt).Result(); n != 0 {
		t.Fatalf("%d of the start record and checkpoint left after the run ended", n)
	}
}

// An old owner that comes back fenced (its run taken over, or offered for
// a take-over, from a checkpoint) and offers the run at a drain is
// refused: its offer must not take the lease back from the instance that
// took the run over (fencing it, two instances following one run) nor
// queue its stale state for a third.
func TestOfferByFencedOwnerRefused(t *testing.T) {
	l := backends()[1].new(t, MemoryOptions{}, RedisOptions{LeaseTTL: 300 * time.Millisecond}).(*Redis)
	ctx := context.Background()
	r := run("o", "fenced-offer", "tf")
	if _, err := l.Start(ctx, r, false); err != nil {
		t.Fatal(err)
	}
	if res := l.AppendBatch(ctx, []AppendRequest{{Run: r, Events: [][]byte{ev(1), ev(2)}, First: 1, Checkpoint: []byte(`{"next":3}`), Start: []byte(`{}`)}}); res[0].Err != nil {
		t.Fatal(res[0].Err)
	}
	alive(l, 400*time.Millisecond) // the owner is paused past its lease
	if ok, err := l.OfferLost(ctx, r, 5*time.Second); !ok || err != nil {
		t.Fatalf("OfferLost = %v %v", ok, err)
	}
	// Offered, not yet claimed: the old owner's offer is refused.
	if err := l.Offer(ctx, r, []byte(`{"next":3}`), 5*time.Second); !errors.Is(err, ErrOwnerLost) {
		t.Fatalf("the fenced owner's offer before the claim: %v, want ErrOwnerLost", err)
	}
	claimed, rec, err := l.Claim(ctx, "i2", time.Second, 5*time.Second)
	if err != nil || rec == nil {
		t.Fatalf("claim: %+v %s %v", claimed, rec, err)
	}
	if err := l.Offer(ctx, r, []byte(`{"next":3}`), 5*time.Second); !errors.Is(err, ErrOwnerLost) {
		t.Fatalf("the fenced owner's offer after the claim: %v, want ErrOwnerLost", err)
	}
	if res := l.AppendBatch(ctx, []AppendRequest{{Run: claimed, Events: [][]byte{ev(3)}, First: 3}}); res[0].Err != nil {
		t.Fatalf("the claimer's append after the old owner's offer: %v", res[0].Err)
	}
	if run, rec, _ := l.Claim(ctx, "i3", 300*time.Millisecond, 5*time.Second); rec != nil {
		t.Fatalf("a third instance claimed the old owner's offer: %+v %s", run, rec)
	}
	// The claimer itself may offer it (a drain, or giving it back).
	if err := l.Offer(ctx, claimed, []byte(`{"next":4}`), 5*time.Second); err != nil {
		t.Fatalf("the claimer's offer: %v", err)
	}
}

// dropClaimReply loses the answer of the first claim script Redis runs
// once armed: Redis runs it, the caller gets an error (a reply lost to a
// timeout or a cut connection).
type dropClaimReply struct {
	armed, dropped atomic.Bool
}

func (h *dropClaimReply) DialHook(next redis.DialHook) redis.DialHook { return next }
func (h *dropClaimReply) ProcessPipelineHook(next redis.ProcessPipelineHook) redis.ProcessPipelineHook {
	return next
}
func (h *dropClaimReply) ProcessHook(next redis.ProcessHook) redis.ProcessHook {
	return func(ctx context.Context, cmd redis.Cmder) error {
		err := next(ctx, cmd)
		if n := cmd.Name(); (n == "evalsha" || n == "eval") && err == nil && h.armed.Load() &&
			strings.Contains(fmt.Sprint(cmd.Args()), ":claimed") && h.dropped.CompareAndSwap(false, true) {
			cmd.SetErr(errors.New("i/o timeout (reply dropped by the test)"))
			return cmd.Err()
		}
		return err
	}
}

// TestClaimReplyLostKeepsRun: a claim Redis made but whose answer the
// claimer lost is not lost with it: the claimer tries again and gets the
// run it holds, and no other claimer gets it.
func TestClaimReplyLostKeepsRun(t *testing.T) {
	ctx := context.Background()
	r, err := NewRedis(ctx, redisURL(), RedisOptions{Prefix: prefix()})
	if err != nil {
		t.Fatalf("Redis is required for these tests (GENUI_TEST_REDIS or 127.0.0.1:6379): %v", err)
	}
	t.Cleanup(func() { r.Close() })
	hook := &dropClaimReply{}
	r.rdb.AddHook(hook)
	rn := run("alice", "lost-reply", "t1")
	if _, err := r.Start(ctx, rn, false); err != nil {
		t.Fatal(err)
	}
	if err := r.Offer(ctx, rn, []byte(`{"next":2}`), 10*time.Second); err != nil {
		t.Fatal(err)
	}
	hook.armed.Store(true)
	got, rec, err := r.Claim(ctx, "i2", time.Second, 5*time.Second)
	if !hook.dropped.Load() {
		t.Fatal("no claim answer was dropped")
	}
	if err != nil || rec == nil {
		t.Fatalf("the claim whose answer was lost: %+v %s %v", got, rec, err)
	}
	if got.ID != "lost-reply" || got.Instance != "i2" || string(rec) != `{"next":2}` {
		t.Fatalf("claimed %+v %s", got, rec)
	}
	if other, rec, err := r.Claim(ctx, "i3", 300*time.Millisecond, 5*time.Second); err != nil || rec != nil {
		t.Fatalf("another instance claimed it too: %+v %s %v", other, rec, err)
	}
}
