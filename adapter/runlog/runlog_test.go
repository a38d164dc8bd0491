package runlog

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"strings"
	"testing"
	"time"
)

// redisURL is the Redis the tests use. They fail, never skip, when it is
// unreachable: .ci/run starts one.
func redisURL() string {
	if u := os.Getenv("GENUI_TEST_REDIS"); u != "" {
		return u
	}
	return "redis://127.0.0.1:6379/15"
}

func prefix() string {
	var b [6]byte
	rand.Read(b[:])
	return "genui-test:" + hex.EncodeToString(b[:]) + ":"
}

type backend struct {
	name string
	new  func(t *testing.T, mo MemoryOptions, ro RedisOptions) Log
}

func backends() []backend {
	return []backend{
		{"memory", func(t *testing.T, mo MemoryOptions, _ RedisOptions) Log {
			m := NewMemory(mo)
			t.Cleanup(func() { m.Close() })
			return m
		}},
		{"redis", func(t *testing.T, _ MemoryOptions, ro RedisOptions) Log {
			ro.Prefix = prefix()
			r, err := NewRedis(context.Background(), redisURL(), ro)
			if err != nil {
				t.Fatalf("Redis is required for these tests (GENUI_TEST_REDIS or 127.0.0.1:6379): %v", err)
			}
			t.Cleanup(func() { r.Close() })
			return r
		}},
	}
}

func ev(n int) []byte { return []byte(fmt.Sprintf(`{"type":"CUSTOM","name":"n","value":%d}`, n)) }

var finished = []byte(`{"type":"RUN_FINISHED","threadId":"t1","runId":"r1"}`)

func readAll(t *testing.T, l Log, ref Ref, after int64) ([]Entry, error) {
	t.Helper()
	var out []Entry
	for {
		got, err := l.Read(context.Background(), ref, after, 2)
		if err != nil {
			return out, err
		}
		if len(got) == 0 {
			return out, nil
		}
		out = append(out, got...)
		after = got[len(got)-1].Seq
	}
}

func run(owner, id, thread string) Run {
	return Run{ID: id, ThreadID: thread, AgentID: "a", Owner: owner, Instance: "i1"}
}

func TestLog(t *testing.T) {
	for _, b := range backends() {
		t.Run(b.name, func(t *testing.T) {
			ctx := context.Background()
			t.Run("append and read after a cursor", func(t *testing.T) {
				l := b.new(t, MemoryOptions{}, RedisOptions{})
				r := run("alice", "r1", "t1")
				if _, err := l.Start(ctx, r, false); err != nil {
					t.Fatal(err)
				}
				for i := 1; i <= 3; i++ {
					if seq, err := l.Append(ctx, r, [][]byte{ev(i)}, false); err != nil || seq != int64(i) {
						t.Fatalf("Append = %d, %v", seq, err)
					}
				}
				if got, err := readAll(t, l, r.Ref(), 1); err != nil || len(got) != 2 || got[0].Seq != 2 || string(got[1].Data) != string(ev(3)) {
					t.Fatalf("Read(after 1) = %+v, %v", got, err)
				}
				l.Append(ctx, r, [][]byte{finished}, true)
				if _, err := l.Append(ctx, r, [][]byte{ev(9)}, false); !errors.Is(err, ErrFinished) {
					t.Errorf("Append after terminal = %v, want ErrFinished", err)
				}
				got, _ := l.Get(ctx, r.Ref())
				if got.Status != StatusFinished || got.Owner != "alice" || got.AgentID != "a" || got.Instance != "i1" {
					t.Errorf("run = %+v", got)
				}
				if a, _ := l.Active(ctx, r.Thread()); a != "" {
					t.Errorf("thread still active: %q", a)
				}
				if all, err := readAll(t, l, r.Ref(), 0); err != nil || len(all) != 4 || !all[3].Terminal {
					t.Errorf("replay = %+v, %v", all, err)
				}
			})
			t.Run("ids are scoped to their owner", func(t *testing.T) {
				l := b.new(t, MemoryOptions{}, RedisOptions{})
				a, bb := run("alice", "same", "t"), run("bob", "same", "t")
				if _, err := l.Start(ctx, a, false); err != nil {
					t.Fatal(err)
				}
				if _, err := l.Start(ctx, bb, false); err != nil {
					t.Fatalf("bob's run with alice's ids: %v, want his own", err)
				}
				l.Append(ctx, a, [][]byte{ev(1)}, false)
				if got, _ := readAll(t, l, bb.Ref(), 0); len(got) != 0 {
					t.Errorf("bob reads alice's events: %+v", got)
				}
				if _, err := l.Get(ctx, Ref{Owner: "carol", ID: "same"}); !errors.Is(err, ErrUnknownRun) {
					t.Errorf("carol's view of the id = %v, want ErrUnknownRun", err)
				}
				l.SaveHistory(ctx, a.Thread(), []byte(`"alice"`))
				if h, _ := l.History(ctx, bb.Thread()); h != nil {
					t.Errorf("bob's history = %s", h)
				}
			})
			t.Run("ids cannot address other keys", func(t *testing.T) {
				l := b.new(t, MemoryOptions{}, RedisOptions{})
				victim := run("alice", "x", "t")
				l.Start(ctx, victim, false)
				l.Append(ctx, victim, [][]byte{ev(1)}, false)
				for _, id := range []string{"x:end", "x:ev", "x:seq", "x:lease", "x%3Aend", "x}{"} {
					for _, owner := range []string{"alice", "alice:run:x", "alice%3Arun"} {
						r := run(owner, id, "t-"+id)
						if _, err := l.Start(ctx, r, false); err != nil {
							t.Fatalf("Start(%q, %q) = %v", owner, id, err)
						}
						if _, err := l.Append(ctx, r, [][]byte{finished}, true); err != nil {
							t.Fatalf("Append(%q, %q) = %v", owner, id, err)
						}
					}
				}
				if seq, err := l.Append(ctx, victim, [][]byte{ev(2)}, false); err != nil || seq != 2 {
					t.Errorf("the victim's next append = %d, %v", seq, err)
				}
				if a, _ := l.Active(ctx, victim.Thread()); a != "x" {
					t.Errorf("the victim's thread = %q", a)
				}
			})
			t.Run("busy thread and supersede", func(t *testing.T) {
				l := b.new(t, MemoryOptions{}, RedisOptions{})
				l.Start(ctx, run("o", "a1", "t"), false)
				if prev, err := l.Start(ctx, run("o", "a2", "t"), false); !errors.Is(err, ErrThreadBusy) || prev != "a1" {
					t.Errorf("second Start = %q, %v, want busy a1", prev, err)
				}
				if prev, err := l.Start(ctx, run("o", "a3", "t"), true); err != nil || prev != "a1" {
					t.Errorf("supersede = %q, %v", prev, err)
				}
				if a, _ := l.Active(ctx, Ref{"o", "t"}); a != "a3" {
					t.Errorf("active = %q", a)
				}
				if _, err := l.Start(ctx, run("o", "a3", "other"), false); !errors.Is(err, ErrRunExists) {
					t.Errorf("reused run id = %v", err)
				}
				// An unlocked run does not take (or need) the thread.
				un := run("o", "card", "t")
				un.Unlocked = true
				if _, err := l.Start(ctx, un, false); err != nil {
					t.Errorf("unlocked run on a busy thread = %v", err)
				}
				// The superseded run ending does not free the thread.
				l.Append(ctx, run("o", "a1", "t"), [][]byte{[]byte(`{"type":"RUN_ERROR","message":"x"}`)}, true)
				if a, _ := l.Active(ctx, Ref{"o", "t"}); a != "a3" {
					t.Errorf("active after old run ended = %q", a)
				}
				if r, _ := l.Get(ctx, Ref{"o", "a1"}); r.Status != StatusError {
					t.Errorf("status = %q, want error", r.Status)
				}
			})
			t.Run("gap and unknown", func(t *testing.T) {
				l := b.new(t, MemoryOptions{MaxEventsPerRun: 3}, RedisOptions{MaxEventsPerRun: 3})
				g := run("o", "g", "tg")
				l.Start(ctx, g, false)
				for i := 1; i <= 5; i++ {
					l.Append(ctx, g, [][]byte{ev(i)}, false)
				}
				if _, err := l.Read(ctx, g.Ref(), 1, 10); !errors.Is(err, ErrGap) {
					t.Errorf("evicted cursor: %v, want ErrGap", err)
				}
				if got, err := l.Read(ctx, g.Ref(), 2, 10); err != nil || len(got) != 3 || got[0].Seq != 3 {
					t.Errorf("retained cursor = %+v, %v", got, err)
				}
				if _, err := l.Read(ctx, Ref{"o", "nope"}, 0, 10); !errors.Is(err, ErrUnknownRun) {
					t.Errorf("unknown run: %v", err)
				}
			})
			t.Run("bytes per run", func(t *testing.T) {
				l := b.new(t, MemoryOptions{MaxRunBytes: 1000}, RedisOptions{MaxRunBytes: 1000})
				r := run("o", "big", "tb")
				l.Start(ctx, r, false)
				for range 20 {
					l.Append(ctx, r, [][]byte{[]byte(strings.Repeat("x", 200))}, false)
				}
				got, err := l.Read(ctx, r.Ref(), 17, 100)
				if err != nil || len(got) == 0 || len(got) > 5 {
					t.Errorf("recent events = %d, %v", len(got), err)
				}
				if _, err := l.Read(ctx, r.Ref(), 0, 100); !errors.Is(err, ErrGap) {
					t.Errorf("oldest events kept past the per-run cap: %v", err)
				}
			})
			t.Run("cancels reach the owner's instance", func(t *testing.T) {
				l := b.new(t, MemoryOptions{}, RedisOptions{})
				got := make(chan Cancel, 4)
				cctx, cancel := context.WithCancel(ctx)
				defer cancel()
				if err := l.Subscribe(cctx, "i1", func(c Cancel) { got <- c }); err != nil {
					t.Fatal(err)
				}
				r := run("o", "c", "tc")
				l.Start(ctx, r, false)
				l.RequestCancel(ctx, r, "stop")
				select {
				case c := <-got:
					if c.Run != r.Ref() || c.Reason != "stop" {
						t.Errorf("cancel = %+v", c)
					}
				case <-time.After(3 * time.Second):
					t.Fatal("cancel not delivered")
				}
				if err := l.RequestCancel(ctx, run("o", "nope", "t"), "x"); !errors.Is(err, ErrUnknownRun) {
					t.Errorf("cancel unknown = %v", err)
				}
			})
			t.Run("touch and history", func(t *testing.T) {
				l := b.new(t, MemoryOptions{}, RedisOptions{})
				r := run("o", "h", "th")
				l.Start(ctx, r, false)
				before := time.Now().Add(-time.Second)
				l.Touch(ctx, r.Ref())
				if s, err := l.LastSeen(ctx, r.Ref()); err != nil || s.Before(before) {
					t.Errorf("LastSeen = %v, %v", s, err)
				}
				l.SaveHistory(ctx, r.Thread(), []byte(`[{"id":"u"}]`))
				if h, _ := l.History(ctx, r.Thread()); string(h) != `[{"id":"u"}]` {
					t.Errorf("History = %s", h)
				}
				if h, _ := l.History(ctx, Ref{"o", "none"}); h != nil {
					t.Errorf("History of unknown thread = %s", h)
				}
			})
			t.Run("append batch", func(t *testing.T) {
				l := b.new(t, MemoryOptions{}, RedisOptions{})
				r1, r2 := run("o", "b1", "t1"), run("o", "b2", "t2")
				l.Start(ctx, r1, false)
				l.Start(ctx, r2, false)
				res := l.AppendBatch(ctx, []AppendRequest{
					{Run: r1, Events: [][]byte{ev(1), ev(2), ev(3)}},
					{Run: r2, Events: [][]byte{ev(1), []byte(`{"type":"RUN_ERROR","message":"x"}`)}, Terminal: true},
					{Run: run("o", "nope", "t3"), Events: [][]byte{ev(1)}},
				})
				if res[0].Last != 3 || res[0].Err != nil || res[1].Last != 2 || res[1].Err != nil || !errors.Is(res[2].Err, ErrUnknownRun) {
					t.Fatalf("AppendBatch = %+v", res)
				}
				got, _ := readAll(t, l, r2.Ref(), 0)
				if len(got) != 2 || got[0].Terminal || !got[1].Terminal {
					t.Fatalf("events = %+v", got)
				}
				if r, _ := l.Get(ctx, r2.Ref()); r.Status != StatusError {
					t.Errorf("status = %s", r.Status)
				}
			})
		})
	}
}

// alive stamps the log's outage clock for d, as the supervisors of live
// instances do.
func alive(l *Redis, d time.Duration) {
	for end := time.Now().Add(d); time.Now().Before(end); time.Sleep(l.opts.LeaseTTL / 8) {
		l.Lease(context.Background(), nil, "alive", l.opts.LeaseTTL)
	}
}

func TestRedisLeaseAndOwnerLost(t *testing.T) {
	l := backends()[1].new(t, MemoryOptions{}, RedisOptions{LeaseTTL: 300 * time.Millisecond}).(*Redis)
	ctx := context.Background()
	lost := []byte(`{"type":"RUN_ERROR","message":"owner lost","code":"owner_lost"}`)
	r := run("o", "o", "to")
	l.Start(ctx, r, false)
	l.Append(ctx, r, [][]byte{ev(1)}, false)
	if ended, err := l.EndIfOwnerLost(ctx, r, lost); ended || err != nil {
		t.Fatalf("EndIfOwnerLost while leased = %v, %v", ended, err)
	}
	res, err := l.Lease(ctx, []Run{r}, "i1", 300*time.Millisecond)
	if err != nil || len(res) != 1 || res[0].Lost || res[0].Cancel != "" {
		t.Fatalf("Lease = %+v, %v", res, err)
	}
	l.RequestCancel(ctx, r, "cancel")
	if res, _ := l.Lease(ctx, []Run{r}, "i1", 300*time.Millisecond); res[0].Cancel != "cancel" {
		t.Errorf("the lease did not report the pending cancel: %+v", res)
	}
	// The owner dies: no more renewals. The thread is free within the
	// lease time, and a reader ends the run.
	alive(l, 400*time.Millisecond)
	if a, _ := l.Active(ctx, r.Thread()); a != "" {
		t.Errorf("thread still held after the lease lapsed: %q", a)
	}
	if ended, err := l.EndIfOwnerLost(ctx, r, lost); !ended || err != nil {
		t.Fatalf("EndIfOwnerLost after the lease lapsed = %v, %v", ended, err)
	}
	got, _ := readAll(t, l, r.Ref(), 0)
	if len(got) != 2 || string(got[1].Data) != string(lost) || !got[1].Terminal {
		t.Fatalf("events = %+v", got)
	}
	// A run whose thread was taken while its lease lapsed is lost.
	r2 := run("o", "o2", "t2")
	l.Start(ctx, r2, false)
	time.Sleep(400 * time.Millisecond)
	l.Start(ctx, run("o", "o3", "t2"), false)
	if res, _ := l.Lease(ctx, []Run{r2}, "i1", time.Second); !res[0].Lost {
		t.Errorf("the lease of a run whose thread was taken = %+v, want Lost", res)
	}
}

func TestRedisTail(t *testing.T) {
	l := backends()[1].new(t, MemoryOptions{}, RedisOptions{})
	ctx := context.Background()
	r1, r2 := run("o", "t1", "a"), run("o", "t2", "b")
	l.Start(ctx, r1, false)
	l.Start(ctx, r2, false)
	l.Append(ctx, r1, [][]byte{ev(1), ev(2)}, false)
	done := make(chan map[Ref][]Entry)
	go func() {
		got, _ := l.Tail(ctx, map[Ref]int64{r1.Ref(): 1, r2.Ref(): 0}, 2*time.Second)
		done <- got
	}()
	got := <-done
	if len(got[r1.Ref()]) != 1 || got[r1.Ref()][0].Seq != 2 || len(got[r2.Ref()]) != 0 {
		t.Fatalf("Tail = %+v", got)
	}
	go func() {
		got, _ := l.Tail(ctx, map[Ref]int64{r1.Ref(): 2, r2.Ref(): 0}, 2*time.Second)
		done <- got
	}()
	time.Sleep(100 * time.Millisecond)
	l.Append(ctx, r2, [][]byte{ev(7)}, false)
	if got := <-done; len(got[r2.Ref()]) != 1 {
		t.Fatalf("blocking Tail = %+v", got)
	}
}

func TestMemoryBudgets(t *testing.T) {
	ctx := context.Background()
	t.Run("events", func(t *testing.T) {
		var freed int64
		m := NewMemory(MemoryOptions{MaxBytes: 2000, OnRelease: func(n int64) { freed += n }})
		defer m.Close()
		old := run("o", "old", "a")
		m.Start(ctx, old, false)
		m.Append(ctx, old, [][]byte{make([]byte, 400)}, false)
		m.Append(ctx, old, [][]byte{finished}, true)
		nw := run("o", "new", "b")
		m.Start(ctx, nw, false)
		for range 3 {
			m.Append(ctx, nw, [][]byte{make([]byte, 400)}, false)
		}
		// The ended run went first, whole.
		if _, err := m.Get(ctx, old.Ref()); !errors.Is(err, ErrUnknownRun) {
			t.Errorf("old run: %v, want it evicted", err)
		}
		for range 3 {
			m.Append(ctx, nw, [][]byte{make([]byte, 400)}, false)
		}
		if _, err := m.Read(ctx, nw.Ref(), 0, 10); !errors.Is(err, ErrGap) {
			t.Errorf("running run over budget: %v, want ErrGap", err)
		}
		if u := m.Usage(); u.Events > 2000 {
			t.Errorf("kept %d bytes, budget 2000", u.Events)
		}
		if freed == 0 {
			t.Errorf("OnRelease was not told")
		}
	})
	t.Run("histories", func(t *testing.T) {
		m := NewMemory(MemoryOptions{MaxHistoryBytes: 3000, HistoryRetention: 300 * time.Millisecond})
		defer m.Close()
		for i := range 10 {
			m.SaveHistory(ctx, Ref{"o", fmt.Sprint("t", i)}, make([]byte, 500))
			if i == 5 {
				m.History(ctx, Ref{"o", "t0"}) // used again: kept longer
			}
		}
		if u := m.Usage(); u.Histories > 3000 {
			t.Errorf("histories hold %d bytes, budget 3000", u.Histories)
		}
		if h, _ := m.History(ctx, Ref{"o", "t1"}); h != nil {
			t.Errorf("least recently used thread kept")
		}
		if h, _ := m.History(ctx, Ref{"o", "t9"}); h == nil {
			t.Errorf("newest thread evicted")
		}
		time.Sleep(1500 * time.Millisecond) // the janitor ticks each second
		if u := m.Usage(); u.Histories != 0 {
			t.Errorf("histories after their retention: %d bytes", u.Histories)
		}
	})
	t.Run("retention", func(t *testing.T) {
		m := NewMemory(MemoryOptions{Retention: 100 * time.Millisecond})
		defer m.Close()
		r := run("o", "r", "t")
		m.Start(ctx, r, false)
		m.Append(ctx, r, [][]byte{make([]byte, 1000), finished}, true)
		time.Sleep(1300 * time.Millisecond)
		if u := m.Usage(); u.Events != 0 {
			t.Errorf("ended run kept after its retention: %d bytes", u.Events)
		}
	})
}

// TestAppendBatchAnswersEachRun: one batch over more runs than one script
// call takes, one run of them ended and one unknown; each request gets its
// own run's answer, on both logs.
func TestAppendBatchAnswersEachRun(t *testing.T) {
	for _, b := range backends() {
		t.Run(b.name, func(t *testing.T) {
			l := b.new(t, MemoryOptions{}, RedisOptions{})
			ctx := context.Background()
			const n = 2*appendGroup + 5
			reqs := make([]AppendRequest, n)
			for i := range reqs {
				r := run("o", fmt.Sprintf("b%d", i), fmt.Sprintf("tb%d", i))
				if i != 7 {
					if _, err := l.Start(ctx, r, false); err != nil {
						t.Fatal(err)
					}
				}
				if i == appendGroup+1 {
					l.Append(ctx, r, [][]byte{finished}, true)
				}
				evs := make([][]byte, i%4+1)
				for j := range evs {
					evs[j] = ev(j)
				}
				reqs[i] = AppendRequest{Run: r, Events: evs}
			}
			res := l.AppendBatch(ctx, reqs)
			for i, r := range res {
				switch i {
				case 7:
					if !errors.Is(r.Err, ErrUnknownRun) {
						t.Errorf("run %d (unknown) = %+v, want ErrUnknownRun", i, r)
					}
				case appendGroup + 1:
					if !errors.Is(r.Err, ErrFinished) {
						t.Errorf("run %d (ended) = %+v, want ErrFinished", i, r)
					}
				default:
					if r.Err != nil || r.Last != int64(i%4+1) {
						t.Errorf("run %d = %+v, want last %d", i, r, i%4+1)
					}
				}
			}
		})
	}
}

// TestStartWithHistory: a run's start reads its thread's history and
// keeps it (and the thread) alive as History does; an unlocked run reads
// none; an append's history is stored with its events, whatever their
// outcome. With Redis, each is one round trip.
func TestStartWithHistory(t *testing.T) {
	for _, b := range backends() {
		t.Run(b.name, func(t *testing.T) {
			const keep = 1500 * time.Millisecond
			l := b.new(t, MemoryOptions{HistoryRetention: keep}, RedisOptions{HistoryRetention: keep})
			rt := &roundTrips{}
			if r, ok := l.(*Redis); ok {
				r.rdb.AddHook(rt)
			}
			trips := func(what string, want int64, f func()) {
				t.Helper()
				before := rt.n.Load()
				f()
				if _, ok := l.(*Redis); ok && rt.n.Load()-before != want {
					t.Errorf("%s: %d round trips, want %d", what, rt.n.Load()-before, want)
				}
			}
			ctx := context.Background()
			r1 := run("o", "r1", "t")
			var prev string
			var h []byte
			var err error
			trips("a start", 1, func() { prev, h, err = l.StartWithHistory(ctx, r1, false) })
			if err != nil || prev != "" || h != nil {
				t.Fatalf("first start = %q, %q, %v; want no history", prev, h, err)
			}
			var res []AppendResult
			trips("an append with a history", 1, func() {
				res = l.AppendBatch(ctx, []AppendRequest{{Run: r1, Events: [][]byte{ev(1)}, First: 1, History: []byte(`{"h":1}`)}})
			})
			if res[0].Err != nil {
				t.Fatal(res[0].Err)
			}
			if got, err := l.History(ctx, r1.Thread()); err != nil || string(got) != `{"h":1}` {
				t.Fatalf("history after the append = %q, %v", got, err)
			}
			// Ended already: the events are refused, the history is stored.
			l.AppendBatch(ctx, []AppendRequest{{Run: r1, Events: [][]byte{finished}, Terminal: true, First: 2}})
			res = l.AppendBatch(ctx, []AppendRequest{{Run: r1, Events: [][]byte{ev(3)}, First: 3, History: []byte(`{"h":2}`)}})
			if !errors.Is(res[0].Err, ErrFinished) {
				t.Fatalf("append after the end = %+v, want ErrFinished", res[0])
			}
			time.Sleep(keep * 2 / 3)
			trips("a start", 1, func() { prev, h, err = l.StartWithHistory(ctx, run("o", "r2", "t"), false) })
			if err != nil || string(h) != `{"h":2}` {
				t.Fatalf("second start = %q, %v; want the stored history", h, err)
			}
			time.Sleep(keep * 2 / 3) // past the first retention, within the one the start renewed
			if got, err := l.History(ctx, r1.Thread()); err != nil || string(got) != `{"h":2}` {
				t.Fatalf("history after the second start's renewal = %q, %v", got, err)
			}
			u := run("o", "r3", "t")
			u.Unlocked = true
			if _, h, err := l.StartWithHistory(ctx, u, false); err != nil || h != nil {
				t.Fatalf("unlocked start = %q, %v; want no history", h, err)
			}
			if _, _, err := l.StartWithHistory(ctx, run("o", "r4", "t"), false); !errors.Is(err, ErrThreadBusy) {
				t.Fatalf("start on the busy thread: %v, want ErrThreadBusy", err)
			}
		})
	}
}

// TestAppendHistoryWithoutEvents: an append request with a history and no
// events stores the history, beside one with events.
func TestAppendHistoryWithoutEvents(t *testing.T) {
	for _, b := range backends() {
		t.Run(b.name, func(t *testing.T) {
			l := b.new(t, MemoryOptions{}, RedisOptions{})
			ctx := context.Background()
			r1, r2 := run("o", "r1", "t1"), run("o", "r2", "t2")
			for _, r := range []Run{r1, r2} {
				if _, err := l.Start(ctx, r, false); err != nil {
					t.Fatal(err)
				}
			}
			for _, reqs := range [][]AppendRequest{
				{{Run: r1, First: 1, History: []byte(`{"h":1}`)}},
				{{Run: r1, First: 1, History: []byte(`{"h":2}`)}, {Run: r2, Events: [][]byte{ev(1)}, First: 1, History: []byte(`{"h":3}`)}},
			} {
				for i, res := range l.AppendBatch(ctx, reqs) {
					if res.Err != nil {
						t.Fatalf("request %d: %v", i, res.Err)
					}
				}
				for _, q := range reqs {
					if got, err := l.History(ctx, q.Run.Thread()); err != nil || string(got) != string(q.History) {
						t.Errorf("history of %s = %q, %v; want %s", q.Run.ThreadID, got, err, q.History)
					}
				}
			}
		})
	}
}

// TestSupersededRunKeepsOffHistory: the history an append carries is
// stored only while its run holds its thread (or no run does): a run
// another run superseded cannot overwrite that run's history with its
// own when it ends.
func TestSupersededRunKeepsOffHistory(t *testing.T) {
	for _, b := range backends() {
		t.Run(b.name, func(t *testing.T) {
			l := b.new(t, MemoryOptions{}, RedisOptions{})
			ctx := context.Background()
			old, cur := run("o", "r1", "t"), run("o", "r2", "t")
			if _, err := l.Start(ctx, old, false); err != nil {
				t.Fatal(err)
			}
			if prev, err := l.Start(ctx, cur, true); err != nil || prev != "r1" {
				t.Fatalf("superseding start = %q, %v", prev, err)
			}
			l.AppendBatch(ctx, []AppendRequest{{Run: cur, Events: [][]byte{ev(1)}, First: 1, History: []byte(`{"run":"r2"}`)}})
			// The superseded run ends, carrying its own history.
			l.AppendBatch(ctx, []AppendRequest{{Run: old, Events: [][]byte{finished}, Terminal: true, First: 1, History: []byte(`{"run":"r1"}`)}})
			if h, err := l.History(ctx, cur.Thread()); err != nil || string(h) != `{"run":"r2"}` {
				t.Fatalf("history after the superseded run ended = %q, %v; want r2's", h, err)
			}
			// The thread's own run ends: its history is stored, and once the
			// thread is free a history-only request is too.
			l.AppendBatch(ctx, []AppendRequest{{Run: cur, Events: [][]byte{finished}, Terminal: true, First: 2, History: []byte(`{"run":"r2","end":true}`)}})
			if h, _ := l.History(ctx, cur.Thread()); string(h) != `{"run":"r2","end":true}` {
				t.Fatalf("history after r2 ended = %q", h)
			}
			l.AppendBatch(ctx, []AppendRequest{{Run: old, History: []byte(`{"run":"r1","late":true}`)}})
			if h, _ := l.History(ctx, cur.Thread()); string(h) != `{"run":"r1","late":true}` {
				t.Fatalf("history with the thread free = %q", h)
			}
		})
	}
}
