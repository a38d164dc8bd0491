package runlog

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"sync"
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
	new  func(t *testing.T, maxEvents int) Log
}

var lostEvent = []byte(`{"type":"RUN_ERROR","message":"owner lost","code":"owner_lost"}`)

func backends() []backend {
	return []backend{
		{"memory", func(t *testing.T, maxEvents int) Log {
			return NewMemory(MemoryOptions{MaxEventsPerRun: maxEvents})
		}},
		{"redis", func(t *testing.T, maxEvents int) Log {
			r, err := NewRedis(context.Background(), redisURL(), RedisOptions{Prefix: prefix(), MaxEventsPerRun: maxEvents, OwnerLost: func(Run) []byte { return lostEvent }})
			if err != nil {
				t.Fatalf("Redis is required for these tests (GENUI_TEST_REDIS or 127.0.0.1:6379): %v", err)
			}
			t.Cleanup(func() { r.Close() })
			return r
		}},
	}
}

func ev(n int) []byte { return []byte(fmt.Sprintf(`{"type":"CUSTOM","name":"n","value":%d}`, n)) }

func collect(t *testing.T, l Log, runID string, after int64) ([]Entry, error) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	var out []Entry
	for e, err := range l.Events(ctx, runID, after) {
		if err != nil {
			return out, err
		}
		out = append(out, e)
	}
	return out, nil
}

func TestLog(t *testing.T) {
	for _, b := range backends() {
		t.Run(b.name, func(t *testing.T) {
			ctx := context.Background()
			t.Run("replay then tail", func(t *testing.T) {
				l := b.new(t, 0)
				if _, err := l.Start(ctx, Run{ID: "r1", ThreadID: "t1", AgentID: "a", Owner: "alice"}, false); err != nil {
					t.Fatal(err)
				}
				for i := 1; i <= 3; i++ {
					if seq, err := l.Append(ctx, "r1", [][]byte{ev(i)}, false); err != nil || seq != int64(i) {
						t.Fatalf("Append = %d, %v", seq, err)
					}
				}
				var wg sync.WaitGroup
				var got []Entry
				var gotErr error
				wg.Go(func() { got, gotErr = collect(t, l, "r1", 1) })
				time.Sleep(50 * time.Millisecond)
				l.Append(ctx, "r1", [][]byte{ev(4)}, false)
				l.Append(ctx, "r1", [][]byte{[]byte(`{"type":"RUN_FINISHED","threadId":"t1","runId":"r1"}`)}, true)
				wg.Wait()
				if gotErr != nil || len(got) != 4 || got[0].Seq != 2 || !got[3].Terminal || string(got[2].Data) != string(ev(4)) {
					t.Fatalf("Events(after 1) = %+v, %v", got, gotErr)
				}
				if _, err := l.Append(ctx, "r1", [][]byte{ev(9)}, false); !errors.Is(err, ErrFinished) {
					t.Errorf("Append after terminal = %v, want ErrFinished", err)
				}
				run, _ := l.Get(ctx, "r1")
				if run.Status != StatusFinished || run.Owner != "alice" || run.AgentID != "a" {
					t.Errorf("run = %+v", run)
				}
				if a, _ := l.Active(ctx, "t1"); a != "" {
					t.Errorf("thread still active: %q", a)
				}
				// A finished run replays completely and ends.
				if all, err := collect(t, l, "r1", 0); err != nil || len(all) != 5 {
					t.Errorf("replay = %d events, %v", len(all), err)
				}
				if rest, err := collect(t, l, "r1", 5); err != nil || len(rest) != 0 {
					t.Errorf("after the end = %v, %v", rest, err)
				}
			})
			t.Run("busy thread and supersede", func(t *testing.T) {
				l := b.new(t, 0)
				l.Start(ctx, Run{ID: "a1", ThreadID: "t"}, false)
				if prev, err := l.Start(ctx, Run{ID: "a2", ThreadID: "t"}, false); !errors.Is(err, ErrThreadBusy) || prev != "a1" {
					t.Errorf("second Start = %q, %v, want busy a1", prev, err)
				}
				if prev, err := l.Start(ctx, Run{ID: "a3", ThreadID: "t"}, true); err != nil || prev != "a1" {
					t.Errorf("supersede = %q, %v", prev, err)
				}
				if a, _ := l.Active(ctx, "t"); a != "a3" {
					t.Errorf("active = %q", a)
				}
				if _, err := l.Start(ctx, Run{ID: "a3", ThreadID: "other"}, false); !errors.Is(err, ErrRunExists) {
					t.Errorf("reused run id = %v", err)
				}
				// The superseded run ending does not free the thread.
				l.Append(ctx, "a1", [][]byte{[]byte(`{"type":"RUN_ERROR","message":"x"}`)}, true)
				if a, _ := l.Active(ctx, "t"); a != "a3" {
					t.Errorf("active after old run ended = %q", a)
				}
				if r, _ := l.Get(ctx, "a1"); r.Status != StatusError {
					t.Errorf("status = %q, want error", r.Status)
				}
			})
			t.Run("gap and unknown", func(t *testing.T) {
				l := b.new(t, 3)
				l.Start(ctx, Run{ID: "g", ThreadID: "tg"}, false)
				for i := 1; i <= 5; i++ {
					l.Append(ctx, "g", [][]byte{ev(i)}, false)
				}
				if _, err := collect(t, l, "g", 1); !errors.Is(err, ErrGap) {
					t.Errorf("evicted cursor: %v, want ErrGap", err)
				}
				l.Append(ctx, "g", [][]byte{[]byte(`{"type":"RUN_FINISHED"}`)}, true)
				if got, err := collect(t, l, "g", 3); err != nil || len(got) != 3 || got[0].Seq != 4 {
					t.Errorf("retained cursor = %+v, %v", got, err)
				}
				if _, err := collect(t, l, "nope", 0); !errors.Is(err, ErrUnknownRun) {
					t.Errorf("unknown run: %v", err)
				}
			})
			t.Run("cancel reaches the owner", func(t *testing.T) {
				l := b.new(t, 0)
				l.Start(ctx, Run{ID: "c", ThreadID: "tc"}, false)
				// A request made before the owner listens is not lost.
				l.RequestCancel(ctx, "c", "early")
				cctx, cancel := context.WithCancel(ctx)
				defer cancel()
				ch := l.Cancels(cctx, "c")
				select {
				case r := <-ch:
					if b.name == "redis" && r != "early" {
						t.Errorf("reason = %q", r)
					}
				case <-time.After(3 * time.Second):
					if b.name == "redis" {
						t.Fatal("early cancel lost")
					}
				}
				time.Sleep(50 * time.Millisecond)
				l.RequestCancel(ctx, "c", "stop")
				select {
				case r := <-ch:
					if r != "stop" {
						t.Errorf("reason = %q", r)
					}
				case <-time.After(3 * time.Second):
					t.Fatal("cancel not delivered")
				}
				if err := l.RequestCancel(ctx, "nope", "x"); !errors.Is(err, ErrUnknownRun) {
					t.Errorf("cancel unknown = %v", err)
				}
			})
			t.Run("touch and history", func(t *testing.T) {
				l := b.new(t, 0)
				l.Start(ctx, Run{ID: "h", ThreadID: "th"}, false)
				before := time.Now().Add(-time.Second)
				l.Touch(ctx, "h")
				if s, err := l.LastSeen(ctx, "h"); err != nil || s.Before(before) {
					t.Errorf("LastSeen = %v, %v", s, err)
				}
				l.SaveHistory(ctx, "th", []byte(`[{"id":"u"}]`))
				if h, _ := l.History(ctx, "th"); string(h) != `[{"id":"u"}]` {
					t.Errorf("History = %s", h)
				}
				if h, _ := l.History(ctx, "none"); h != nil {
					t.Errorf("History of unknown thread = %s", h)
				}
			})
		})
	}
}

func TestRedisOwnerLost(t *testing.T) {
	l := backends()[1].new(t, 0)
	ctx := context.Background()
	l.Start(ctx, Run{ID: "o", ThreadID: "to"}, false)
	l.Lease(ctx, "o", "instance-a", 300*time.Millisecond)
	l.Append(ctx, "o", [][]byte{ev(1)}, false)
	// The owner dies: no more lease renewals. A reader ends the run.
	got, err := collect(t, l, "o", 0)
	if err != nil || len(got) != 2 || string(got[1].Data) != string(lostEvent) || !got[1].Terminal {
		t.Fatalf("events = %+v, %v", got, err)
	}
	if a, _ := l.Active(ctx, "to"); a != "" {
		t.Errorf("thread still busy after owner_lost")
	}
}

func TestMemoryByteBudget(t *testing.T) {
	m := NewMemory(MemoryOptions{MaxBytes: 100})
	ctx := context.Background()
	m.Start(ctx, Run{ID: "old", ThreadID: "a"}, false)
	m.Append(ctx, "old", [][]byte{make([]byte, 40)}, false)
	m.Append(ctx, "old", [][]byte{[]byte(`{"type":"RUN_FINISHED"}`)}, true)
	m.Start(ctx, Run{ID: "new", ThreadID: "b"}, false)
	m.Append(ctx, "new", [][]byte{make([]byte, 40)}, false)
	m.Append(ctx, "new", [][]byte{make([]byte, 40)}, false)
	// The ended run's events went first.
	if _, err := collect(t, m, "old", 0); !errors.Is(err, ErrGap) {
		t.Errorf("old run: %v, want ErrGap", err)
	}
	m.Append(ctx, "new", [][]byte{make([]byte, 40)}, false)
	if _, err := collect(t, m, "new", 0); !errors.Is(err, ErrGap) {
		t.Errorf("running run over budget: %v, want ErrGap", err)
	}
	if m.bytes > 100 {
		t.Errorf("kept %d bytes, budget 100", m.bytes)
	}
}

func TestAppendBatch(t *testing.T) {
	for _, b := range backends() {
		t.Run(b.name, func(t *testing.T) {
			l := b.new(t, 0)
			ctx := context.Background()
			l.Start(ctx, Run{ID: "b", ThreadID: "tb"}, false)
			if seq, err := l.Append(ctx, "b", [][]byte{ev(1), ev(2), ev(3)}, false); err != nil || seq != 3 {
				t.Fatalf("Append batch = %d, %v", seq, err)
			}
			if seq, err := l.Append(ctx, "b", [][]byte{ev(4), []byte(`{"type":"RUN_ERROR","message":"x"}`)}, true); err != nil || seq != 5 {
				t.Fatalf("Append terminal batch = %d, %v", seq, err)
			}
			got, err := collect(t, l, "b", 0)
			if err != nil || len(got) != 5 || got[3].Terminal || !got[4].Terminal {
				t.Fatalf("events = %+v, %v", got, err)
			}
			if r, _ := l.Get(ctx, "b"); r.Status != StatusError {
				t.Errorf("status = %s", r.Status)
			}
		})
	}
}
