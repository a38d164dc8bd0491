package runlog

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/genui-adapter/genui-adapter/internal/redistest"
)

// TestRedisHonoursDeadlines: while Redis does not answer, a call ends
// with its context's deadline, not the client library's read timeout
// (readiness probes and lease renewals rely on it).
func TestRedisHonoursDeadlines(t *testing.T) {
	srv := redistest.Start(t)
	// A read timeout far beyond the test's patience: only the context's
	// deadline can end the call while Redis is paused.
	r, err := NewRedis(context.Background(), srv.URL()+"?read_timeout=5m", RedisOptions{Prefix: prefix()})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	srv.Pause()
	done := make(chan error, 1)
	go func() {
		ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
		defer cancel()
		done <- r.Ping(ctx)
	}()
	var got error
	select {
	case got = <-done:
		srv.Resume()
	case <-time.After(10 * time.Second):
		// Not answered while paused: let Redis answer and see what the
		// caller is told.
		srv.Resume()
		got = <-done
	}
	if !errors.Is(got, context.DeadlineExceeded) {
		t.Fatalf("Ping with a 200 ms deadline while Redis is paused = %v, want context.DeadlineExceeded", got)
	}
	if err := r.Ping(context.Background()); err != nil {
		t.Fatalf("Ping once Redis answers again: %v", err)
	}
}

// TestAppendRetryIsWrittenOnce: an append retried with its first sequence
// number (after a timeout whose append Redis did write) skips the events
// the log already holds.
func TestAppendRetryIsWrittenOnce(t *testing.T) {
	for _, b := range backends() {
		t.Run(b.name, func(t *testing.T) {
			l := b.new(t, MemoryOptions{}, RedisOptions{})
			ctx := context.Background()
			r := run("o", "retry", "t")
			if _, err := l.Start(ctx, r, false); err != nil {
				t.Fatal(err)
			}
			res := l.AppendBatch(ctx, []AppendRequest{{Run: r, Events: [][]byte{ev(1), ev(2)}, First: 1}})
			if res[0].Err != nil || res[0].Last != 2 {
				t.Fatalf("first append = %+v", res[0])
			}
			// The same events again, with more after them.
			res = l.AppendBatch(ctx, []AppendRequest{{Run: r, Events: [][]byte{ev(1), ev(2), ev(3), finished}, Terminal: true, First: 1}})
			if res[0].Err != nil || res[0].Last != 4 {
				t.Fatalf("retried append = %+v", res[0])
			}
			// A retry of what is all in already (the terminal one too).
			res = l.AppendBatch(ctx, []AppendRequest{{Run: r, Events: [][]byte{ev(3), finished}, Terminal: true, First: 3}})
			if res[0].Err != nil || res[0].Last != 4 {
				t.Fatalf("append already written = %+v", res[0])
			}
			got, err := readAll(t, l, r.Ref(), 0)
			if err != nil || len(got) != 4 {
				t.Fatalf("events = %d, %v; want 4", len(got), err)
			}
			for i, e := range got {
				if e.Seq != int64(i+1) || e.Terminal != (i == 3) {
					t.Errorf("event %d = seq %d terminal %v", i, e.Seq, e.Terminal)
				}
			}
			if res := l.AppendBatch(ctx, []AppendRequest{{Run: r, Events: [][]byte{ev(9)}, First: 9}}); res[0].Err == nil {
				t.Errorf("an append after a hole = %+v, want an error", res[0])
			}
		})
	}
}

// TestRedisPauseKeepsLeases: Redis paused for longer than the lease TTL
// (SIGSTOP/SIGCONT). When it answers again, no reader ends the run before
// its owner could renew, and the owner takes back its lapsed lease and
// thread; an owner whose thread another run took meanwhile is fenced.
func TestRedisPauseKeepsLeases(t *testing.T) {
	srv := redistest.Start(t)
	const ttl = 400 * time.Millisecond
	l, err := NewRedis(context.Background(), srv.URL(), RedisOptions{Prefix: prefix(), LeaseTTL: ttl})
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	ctx := context.Background()
	lost := []byte(`{"type":"RUN_ERROR","message":"owner lost","code":"owner_lost"}`)
	r := run("o", "kept", "t")
	taken := run("o", "taken", "t2")
	for _, x := range []Run{r, taken} {
		if _, err := l.Start(ctx, x, false); err != nil {
			t.Fatal(err)
		}
	}
	alive(l, 2*ttl) // instances have been stamping the clock
	if _, err := l.Lease(ctx, []Run{r, taken}, "i1", ttl); err != nil {
		t.Fatal(err)
	}
	srv.Pause()
	time.Sleep(3 * ttl) // every lease lapses
	srv.Resume()
	// A reader on another instance checks first.
	if ended, err := l.EndIfOwnerLost(ctx, r, lost); ended || err != nil {
		t.Fatalf("EndIfOwnerLost right after Redis answered again = %v, %v; want refused", ended, err)
	}
	// Another run takes the second run's thread before its owner renews.
	if _, err := l.Start(ctx, run("o", "newer", "t2"), false); err != nil {
		t.Fatalf("a new run on a thread whose lease lapsed: %v", err)
	}
	// The owner's append comes before its renewal: it takes back the
	// lease and the thread.
	if _, err := l.Append(ctx, r, [][]byte{ev(1)}, false); err != nil {
		t.Fatalf("the owner's append after the pause: %v", err)
	}
	if a, _ := l.Active(ctx, r.Thread()); a != r.ID {
		t.Errorf("thread after the owner's append = %q, want %q", a, r.ID)
	}
	if _, err := l.Append(ctx, taken, [][]byte{ev(1)}, false); !errors.Is(err, ErrOwnerLost) {
		t.Errorf("append of a run whose thread was taken = %v, want ErrOwnerLost", err)
	}
	res, err := l.Lease(ctx, []Run{r, taken}, "i1", ttl)
	if err != nil || res[0].Lost || !res[1].Lost {
		t.Fatalf("Lease after the pause = %+v, %v; want the first kept, the second lost", res, err)
	}
	// Much later, the owner still renewing: nobody ends the run.
	alive(l, 2*ttl)
	if _, err := l.Lease(ctx, []Run{r}, "i1", ttl); err != nil {
		t.Fatal(err)
	}
	if ended, err := l.EndIfOwnerLost(ctx, r, lost); ended || err != nil {
		t.Fatalf("EndIfOwnerLost of a renewed run = %v, %v", ended, err)
	}
	// The fenced run's owner stops; a reader ends it.
	if ended, err := l.EndIfOwnerLost(ctx, taken, lost); !ended || err != nil {
		t.Fatalf("EndIfOwnerLost of the fenced run = %v, %v", ended, err)
	}
}

// TestRedisRestartWithoutData: Redis restarts without persistence and
// every key is gone. The owner's next append registers its run again,
// its sequence going on; the events before the restart are an explicit
// gap. A run whose thread another run took meanwhile is fenced.
func TestRedisRestartWithoutData(t *testing.T) {
	srv := redistest.Start(t)
	l, err := NewRedis(context.Background(), srv.URL(), RedisOptions{Prefix: prefix()})
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	ctx := context.Background()
	r, taken := run("o", "kept", "t"), run("o", "taken", "t2")
	for _, x := range []Run{r, taken} {
		if _, err := l.Start(ctx, x, false); err != nil {
			t.Fatal(err)
		}
		if res := l.AppendBatch(ctx, []AppendRequest{{Run: x, Events: [][]byte{ev(1), ev(2)}, First: 1}}); res[0].Err != nil {
			t.Fatal(res[0].Err)
		}
	}
	srv.Restart(0)
	// The restart emptied the script cache: the lease sends its scripts
	// whole again.
	if res, err := l.Lease(ctx, []Run{r}, "i1", 5*time.Second); err != nil || len(res) != 1 || res[0].Cancel != "" {
		t.Fatalf("a lease after the restart = %+v, %v", res, err)
	}
	if _, err := l.Start(ctx, run("o", "newer", "t2"), false); err != nil {
		t.Fatalf("a new run on a thread Redis forgot: %v", err)
	}
	res := l.AppendBatch(ctx, []AppendRequest{
		{Run: r, Events: [][]byte{ev(3), finished}, Terminal: true, First: 3},
		{Run: taken, Events: [][]byte{ev(3)}, First: 3},
	})
	if res[0].Err != nil || res[0].Last != 4 {
		t.Fatalf("the owner's append after the restart = %+v", res[0])
	}
	if !errors.Is(res[1].Err, ErrOwnerLost) {
		t.Errorf("append of a run whose thread was taken after the restart = %+v, want ErrOwnerLost", res[1])
	}
	got, err := l.Read(ctx, r.Ref(), 2, 10)
	if err != nil || len(got) != 2 || got[0].Seq != 3 || !got[1].Terminal {
		t.Fatalf("events after the restart = %+v, %v", got, err)
	}
	if _, err := l.Read(ctx, r.Ref(), 0, 10); !errors.Is(err, ErrGap) {
		t.Errorf("a cursor before the restart = %v, want ErrGap", err)
	}
	if got, err := l.Get(ctx, r.Ref()); err != nil || got.Status != StatusFinished || got.ThreadID != "t" {
		t.Errorf("the run after the restart = %+v, %v", got, err)
	}
}
