package runs

import (
	"context"
	"sync/atomic"
	"testing"
	"time"

	"github.com/genui-adapter/genui-adapter/adapter/runlog"
)

// waiting is how many readers the hub's next publish wakes.
func waiting(h *hub) int {
	h.mu.Lock()
	defer h.mu.Unlock()
	return len(h.waiters)
}

// hubWithReader is a hub at seq 1 with one attached reader.
func hubWithReader() (*hub, *Reader) {
	var budget atomic.Int64
	h := newHub(1, &budget, 1<<30)
	r := &Reader{hub: h}
	h.join(r)
	return h, r
}

// A caught-up reader's events cost the hub nothing once its ring is full:
// no channel per wait, none per read, no ring regrown (with the Redis
// log every reader is a hub's, so this is per event and reader).
func TestHubEventAllocates(t *testing.T) {
	h, r := hubWithReader()
	ctx := context.Background()
	data := []byte(`{"type":"TEXT_MESSAGE_CONTENT","messageId":"m","delta":"x"}`)
	seq := int64(1)
	buf := make([]runlog.Entry, 0, 8)
	event := func() {
		in := []runlog.Entry{{Seq: seq, Data: data}}
		seq++
		h.publish(in)
		select {
		case <-r.Wait():
		default:
			t.Fatal("the publish did not wake the reader")
		}
		got, end, err := r.Read(ctx, buf[:0])
		if err != nil || end || len(got) != 1 || got[0].Seq != seq-1 {
			t.Fatalf("read %v end %v err %v, want seq %d", got, end, err, seq-1)
		}
		select {
		case <-r.Wait():
			t.Fatal("a caught-up reader was woken with nothing to read")
		default:
		}
	}
	for range 2 * ringEntries {
		event() // the ring grows to its size
	}
	if a := testing.AllocsPerRun(1000, event); a > 0 {
		t.Fatalf("an event allocates %.2f values in the hub, want 0", a)
	}
}

// The ring keeps its events in order as it wraps around and drops its
// oldest: a reader that reads every few events gets each once, in order.
func TestHubRingWraps(t *testing.T) {
	h, r := hubWithReader()
	ctx := context.Background()
	var got []runlog.Entry
	for seq := int64(1); seq <= 3000; seq++ {
		h.publish([]runlog.Entry{{Seq: seq, Data: make([]byte, int(seq%700)), Terminal: seq == 3000}})
		if seq%(1+seq%37) != 0 && seq != 3000 {
			continue
		}
		read, _, err := r.Read(ctx, nil)
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, read...)
	}
	if len(got) != 3000 {
		t.Fatalf("read %d events, want 3000", len(got))
	}
	for i, e := range got {
		if e.Seq != int64(i+1) || len(e.Data) != (i+1)%700 {
			t.Fatalf("event %d is seq %d with %d bytes", i, e.Seq, len(e.Data))
		}
	}
	if !got[len(got)-1].Terminal {
		t.Fatal("the last event is not terminal")
	}
	if n := h.next - h.first; n > ringEntries || h.bytes > ringBytes {
		t.Fatalf("the ring holds %d events, %d bytes", n, h.bytes)
	}
}

// A reader that left its hub is not kept in its waiters: on a run that
// publishes nothing for a while, clients that come and go (reconnects)
// would otherwise pile up there, each Reader reachable after its Close,
// until the next event.
func TestHubLeftReadersNotKept(t *testing.T) {
	var budget atomic.Int64
	h := newHub(1, &budget, 1<<30)
	ctx := context.Background()
	for range 1000 {
		r := &Reader{hub: h}
		h.join(r)
		if _, _, err := r.Read(ctx, nil); err != nil {
			t.Fatal(err)
		}
		h.leave(r) // as Close (detach) does
	}
	n := waiting(h)
	if n != 0 {
		t.Fatalf("the hub keeps %d readers that left as waiters, want 0", n)
	}
}

// A reader that reads again before the next event (Read does not wait:
// a caller may poll it) waits once: the hub's waiters do not grow with
// its reads. It is still woken by the next event.
func TestHubRereadRegistersOnce(t *testing.T) {
	h, r := hubWithReader()
	ctx := context.Background()
	for range 1000 {
		if _, _, err := r.Read(ctx, nil); err != nil {
			t.Fatal(err)
		}
	}
	n := waiting(h)
	if n != 1 {
		t.Fatalf("a reader that read 1000 times waits %d times, want 1", n)
	}
	h.publish([]runlog.Entry{{Seq: 1, Data: []byte("x")}})
	select {
	case <-r.Wait():
	default:
		t.Fatal("the publish did not wake the reader")
	}
	if got, _, err := r.Read(ctx, nil); err != nil || len(got) != 1 {
		t.Fatalf("read %v, %v; want seq 1", got, err)
	}
}

// Every reader of a hub is woken by each event and by its end, and the
// waiters are cleared each time (many readers on one hub).
func TestHubWakesEveryReader(t *testing.T) {
	var budget atomic.Int64
	h := newHub(1, &budget, 1<<30)
	ctx := context.Background()
	rs := make([]*Reader, 100)
	for i := range rs {
		rs[i] = &Reader{hub: h}
		h.join(rs[i])
	}
	for seq := int64(1); seq <= 3; seq++ {
		for _, r := range rs {
			if got, _, err := r.Read(ctx, nil); err != nil || int64(len(got)) != min(seq-1, 1) {
				t.Fatalf("seq %d: read %v, %v", seq, got, err)
			}
		}
		if seq == 3 {
			h.finish(nil)
		} else {
			h.publish([]runlog.Entry{{Seq: seq, Data: []byte("x")}})
		}
		for i, r := range rs {
			select {
			case <-r.Wait():
			default:
				t.Fatalf("reader %d was not woken at step %d", i, seq)
			}
		}
		n := waiting(h)
		if n != 0 {
			t.Fatalf("%d waiters are left after a wake-up", n)
		}
	}
}

// The ring matches a plain queue through any mix of pushes and pops.
func TestRingQueue(t *testing.T) {
	var q ring
	var want []int64
	seq := int64(0)
	for step := range 20000 {
		if len(want) > 0 && (step*7919)%5 < 2 || len(want) == ringEntries {
			e := q.pop()
			if e.Seq != want[0] {
				t.Fatalf("step %d: popped %d, want %d", step, e.Seq, want[0])
			}
			want = want[1:]
		} else {
			seq++
			q.push(runlog.Entry{Seq: seq})
			want = append(want, seq)
		}
		if q.len() != len(want) {
			t.Fatalf("step %d: len %d, want %d", step, q.len(), len(want))
		}
		for i, s := range want {
			if q.at(i).Seq != s {
				t.Fatalf("step %d: at(%d) = %d, want %d", step, i, q.at(i).Seq, s)
			}
		}
	}
	if len(q.buf) > ringEntries {
		t.Fatalf("the ring grew to %d slots", len(q.buf))
	}
}

// Holes, the per-hub byte bound and the Manager's budget keep the ring
// contiguous (first .. next-1) and its bytes accounted; release returns
// them all.
func TestHubRingHolesAndBudget(t *testing.T) {
	var budget atomic.Int64
	h := newHub(1, &budget, 100<<10)
	r := &Reader{hub: h}
	h.join(r)
	seq := int64(1)
	for i := range 2000 {
		if i%97 == 0 {
			seq += 5 // a hole
		}
		h.publish([]runlog.Entry{{Seq: seq, Data: make([]byte, (i*131)%5000)}})
		seq++
		h.mu.Lock()
		var bytes int64
		for j := range h.ring.len() {
			e := h.ring.at(j)
			if e.Seq != h.first+int64(j) {
				t.Fatalf("event %d: the ring's %d-th is seq %d, first %d", i, j, e.Seq, h.first)
			}
			bytes += int64(len(e.Data)) + 48
		}
		if h.first+int64(h.ring.len()) != h.next || h.next != seq || bytes != h.bytes || h.bytes != budget.Load() || h.bytes > 100<<10 {
			t.Fatalf("event %d: first %d len %d next %d (want %d) bytes %d/%d budget %d", i, h.first, h.ring.len(), h.next, seq, bytes, h.bytes, budget.Load())
		}
		h.mu.Unlock()
	}
	h.release()
	if budget.Load() != 0 || h.bytes != 0 {
		t.Fatalf("released hub holds %d bytes, budget %d", h.bytes, budget.Load())
	}
}

// The executor's wait for a lagging reader ends when the reader reads on,
// and when it leaves (moved is made only while it waits).
func TestHubWaitReadersEnds(t *testing.T) {
	for _, how := range []string{"reads", "leaves"} {
		t.Run(how, func(t *testing.T) {
			h, r := hubWithReader()
			for seq := int64(1); seq <= ringEntries/2+10; seq++ {
				h.publish([]runlog.Entry{{Seq: seq, Data: []byte("x")}})
			}
			if lag, _ := h.lagging(); !lag {
				t.Fatal("a reader 138 events behind does not lag")
			}
			waited := make(chan struct{})
			go func() { defer close(waited); h.waitReaders(context.Background()) }()
			time.Sleep(20 * time.Millisecond)
			select {
			case <-waited:
				t.Fatal("the wait ended while the reader lagged")
			default:
			}
			if how == "reads" {
				if _, _, err := r.Read(context.Background(), nil); err != nil {
					t.Fatal(err)
				}
			} else {
				h.leave(r)
			}
			select {
			case <-waited:
			case <-time.After(5 * time.Second):
				t.Fatal("the wait did not end")
			}
		})
	}
}
