package runs

import (
	"context"
	"errors"
	"sync"
	"sync/atomic"
	"time"

	"github.com/genui-adapter/genui-adapter/adapter/runlog"
)

// hub fans one run's events out to every reader of it on this instance:
// the executor (for a run executed here) or the tailer (for a run executed
// elsewhere) publishes committed events; readers take them from a small
// ring of recent events and fall back to the log for older ones. Readers
// cost no goroutine and no backend connection each.
type hub struct {
	budget *atomic.Int64 // bytes held by all rings of the Manager
	max    int64         // the Manager's cap on that total

	mu    sync.Mutex
	ring  ring // contiguous: seqs first .. next-1
	bytes int64
	first int64
	next  int64
	done  bool  // the terminal event is in (or the run ended without one)
	err   error // a failure readers report in-band
	// waiters are the readers the next publish (or finish) wakes, each
	// on its own channel: waiting allocates nothing per event. A reader
	// is in it once (Reader.waitAt) and leaves it when it leaves the hub.
	waiters []*Reader
	// run, readers and checked serve the tailer (remote runs).
	run     runlog.Run
	readers int
	checked int64 // next at the supervisor's last check (-1: none yet)
	// pos is each attached reader's last read event: the executor waits
	// for a reader that fell behind the ring (backpressure, as a direct
	// connection would apply) rather than run ahead of it into eviction.
	pos    map[*Reader]int64
	joined atomic.Int32 // len(pos), read without the lock per event
	// moved is closed when a reader advances or leaves; made only while
	// the executor waits for a lagging reader (lagging).
	moved chan struct{}
}

// ringEntries bounds a ring by count; bytes are bounded per hub and in
// total.
const (
	ringEntries = 256
	ringBytes   = 256 << 10
)

func newHub(next int64, budget *atomic.Int64, max int64) *hub {
	return &hub{first: next, next: next, budget: budget, max: max, checked: -1,
		pos: map[*Reader]int64{}}
}

// publish adds committed events (in order, contiguous after next-1) and
// wakes the readers.
func (h *hub) publish(entries []runlog.Entry) {
	h.mu.Lock()
	defer h.mu.Unlock()
	for _, e := range entries {
		if e.Seq < h.next {
			continue // already seen (a tail overlapping a backlog)
		}
		if e.Seq != h.next || h.done {
			// A hole (evicted while tailing): restart the ring after it.
			h.dropAll()
			h.first = e.Seq
		}
		h.next = e.Seq + 1
		if len(h.pos) == 0 && h.readers == 0 {
			// Nobody follows the run here (its starting client is
			// served inline): a reader that attaches later reads what
			// it missed from the log.
			h.dropAll()
			h.first = h.next
			if e.Terminal {
				h.done = true
			}
			continue
		}
		n := int64(len(e.Data)) + 48
		for h.ring.len() > 0 && (h.ring.len() >= ringEntries || h.bytes+n > ringBytes || h.budget.Load()+n > h.max) {
			h.dropFirst()
		}
		if h.bytes+n <= ringBytes && h.budget.Load()+n <= h.max {
			h.budget.Add(n)
			h.ring.push(e)
			h.bytes += n
		} else {
			// Not kept (the ring is empty now): readers read it from
			// the log.
			h.first = h.next
		}
		if e.Terminal {
			h.done = true
		}
	}
	h.wakeLocked()
}

func (h *hub) dropFirst() {
	n := int64(len(h.ring.pop().Data)) + 48
	h.bytes -= n
	h.budget.Add(-n)
	h.first++
}

func (h *hub) dropAll() {
	for h.ring.len() > 0 {
		h.dropFirst()
	}
	h.ring = ring{}
}

// finish ends the hub: err (nil for a run that ended without a terminal
// event, e.g. its record expired) is what readers that reach the end
// report.
func (h *hub) finish(err error) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if !h.done {
		h.done, h.err = true, err
	}
	h.wakeLocked()
}

// release frees the ring's bytes (the hub is no longer used).
func (h *hub) release() {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.dropAll()
}

func (h *hub) wakeLocked() {
	for i, r := range h.waiters {
		select {
		case r.wake <- struct{}{}:
		default: // a wake-up it has not taken yet
		}
		r.waitAt = 0
		h.waiters[i] = nil
	}
	h.waiters = h.waiters[:0]
}

// waitLocked is the channel that tells r the next publish (or finish)
// came. It may also carry an older wake-up: a reader reads again and
// finds nothing new at worst.
func (h *hub) waitLocked(r *Reader) <-chan struct{} {
	if h.done {
		return closed
	}
	if r.wake == nil {
		r.wake = make(chan struct{}, 1)
	}
	if r.waitAt == 0 { // not waiting already (a read again before the next event)
		h.waiters = append(h.waiters, r)
		r.waitAt = len(h.waiters)
	}
	return r.wake
}

// unwaitLocked takes r off the waiters (it leaves the hub).
func (h *hub) unwaitLocked(r *Reader) {
	if r.waitAt == 0 {
		return
	}
	i, last := r.waitAt-1, len(h.waiters)-1
	h.waiters[i] = h.waiters[last]
	h.waiters[i].waitAt = i + 1
	h.waiters[last] = nil
	h.waiters = h.waiters[:last]
	r.waitAt = 0
}

// join registers a reader at its cursor.
func (h *hub) join(r *Reader) {
	h.mu.Lock()
	h.pos[r] = r.cursor
	h.joined.Store(int32(len(h.pos)))
	h.mu.Unlock()
}

// leave unregisters a reader.
func (h *hub) leave(r *Reader) {
	h.mu.Lock()
	delete(h.pos, r)
	h.joined.Store(int32(len(h.pos)))
	h.unwaitLocked(r)
	h.movedLocked()
	h.mu.Unlock()
}

func (h *hub) setPos(r *Reader, seq int64) {
	h.mu.Lock()
	if p, ok := h.pos[r]; ok && p != seq {
		h.pos[r] = seq
		h.movedLocked()
	}
	h.mu.Unlock()
}

func (h *hub) movedLocked() {
	if h.moved != nil {
		close(h.moved)
		h.moved = nil
	}
}

// lagging reports whether a reader fell behind the newer half of the
// ring (so that the ring, not the log, serves every attached reader, and
// the log's eviction never cuts a live stream), and a channel closed when
// that may have changed.
func (h *hub) lagging() (bool, <-chan struct{}) {
	h.mu.Lock()
	defer h.mu.Unlock()
	half := h.first + int64(h.ring.len()/2)
	for _, p := range h.pos {
		behind := h.next - 1 - p
		if p+1 < h.first || behind > ringEntries/2 || (h.bytes > ringBytes/2 && p+1 < half) {
			if h.moved == nil {
				h.moved = make(chan struct{})
			}
			return true, h.moved
		}
	}
	return false, nil
}

// waitReaders blocks while a reader lags behind the ring, until ctx ends.
func (h *hub) waitReaders(ctx context.Context) {
	if h.joined.Load() == 0 {
		return // nobody to wait for (the common case: the starting client is served inline)
	}
	for {
		lag, moved := h.lagging()
		if !lag {
			return
		}
		select {
		case <-moved:
		case <-ctx.Done():
			return
		}
	}
}

// cursor is the seq the tailer reads after.
func (h *hub) cursor() int64 {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.next - 1
}

var closed = func() chan struct{} { c := make(chan struct{}); close(c); return c }()

// Reader reads one run's events after a cursor: Read returns what is
// there without waiting; Wait says when to read again. A Reader is used by
// one goroutine; Close it when done.
type Reader struct {
	m      *Manager
	run    runlog.Run
	hub    *hub      // nil: the run had ended when the reader attached
	local  *localRun // the run executes here
	remote bool      // the hub is tailed from another instance
	cursor int64
	notify <-chan struct{}
	wake   chan struct{} // the hub's wake-ups (waitLocked), made once
	// waitAt is r's index in its hub's waiters plus one (0: not in
	// them), guarded by the hub's lock; leave resets it before r reads
	// another hub (followElsewhere).
	waitAt int
	end    bool
	once   sync.Once
	capped bool // counts against the principal's readers
	// failing is when the log's reads began to fail (zero: they do not):
	// a read is tried again until the outage tolerance has passed.
	failing time.Time
}

// readRetry is how long a reader waits before reading the log again
// after a failed read.
const readRetry = 250 * time.Millisecond

// maxBatch bounds one Read.
const maxBatch = 512

// Run is the run being read.
func (r *Reader) Run() runlog.Run { return r.run }

// Read appends the next events to buf. end reports that the run's last
// event has been read (or the run ended without one); err is a failure to
// report to the client in-band (ErrGap: events were evicted while it
// read).
func (r *Reader) Read(ctx context.Context, buf []runlog.Entry) (entries []runlog.Entry, end bool, err error) {
	if r.end {
		return buf, true, nil
	}
	if r.hub != nil {
		h := r.hub
		h.mu.Lock()
		if r.cursor+1 >= h.first {
			n0 := len(buf)
			i := int(r.cursor + 1 - h.first)
			for ; i < h.ring.len() && len(buf) < maxBatch; i++ {
				buf = append(buf, h.ring.at(i))
			}
			more := i < h.ring.len()
			last := r.cursor
			if len(buf) > n0 {
				last = buf[len(buf)-1].Seq
			}
			caughtUp := !more && last+1 >= h.next
			done, herr := h.done, h.err
			if !more {
				r.notify = h.waitLocked(r)
			}
			h.mu.Unlock()
			if len(buf) > n0 {
				r.cursor = last
				if buf[len(buf)-1].Terminal {
					r.end = true
				}
				h.setPos(r, last)
			}
			if more {
				r.notify = closed
			}
			if caughtUp && done && !r.end {
				// The run ended without a terminal event: the hub's
				// error says why (after whatever the log still holds).
				if len(buf) > n0 {
					r.notify = closed
					return buf, false, nil
				}
				return r.readLog(ctx, buf, herr)
			}
			return buf, r.end, nil
		}
		h.mu.Unlock()
	}
	return r.readLog(ctx, buf, nil)
}

// readLog reads from the log: a reader behind the ring, or of a run that
// had ended.
func (r *Reader) readLog(ctx context.Context, buf []runlog.Entry, endErr error) ([]runlog.Entry, bool, error) {
	lctx, cancel := context.WithTimeout(ctx, r.m.cfg.OpTimeout)
	defer cancel()
	got, err := r.m.log.Read(lctx, r.run.Ref(), r.cursor, maxBatch-len(buf))
	if err != nil {
		switch {
		case errors.Is(err, runlog.ErrUnknownRun):
			r.end = true
			return buf, true, nil // expired while read
		case errors.Is(err, runlog.ErrGap) || ctx.Err() != nil:
			return buf, true, err
		}
		// The log does not answer (a Redis blink): read again shortly,
		// for up to the outage tolerance, as the run's owner waits for it.
		now := time.Now()
		if r.failing.IsZero() {
			r.failing = now
		}
		if now.Sub(r.failing) >= r.m.cfg.OutageTolerance {
			return buf, true, err
		}
		wake := make(chan struct{})
		time.AfterFunc(readRetry, func() { close(wake) })
		r.notify = wake
		return buf, false, nil
	}
	r.failing = time.Time{}
	buf = append(buf, got...)
	if len(got) > 0 {
		r.cursor = got[len(got)-1].Seq
		if r.hub != nil {
			r.hub.setPos(r, r.cursor)
		}
		if got[len(got)-1].Terminal {
			r.end = true
		}
		r.notify = closed // read on: there may be more
		return buf, r.end, nil
	}
	if errors.Is(endErr, errFenced) && r.local != nil {
		r.m.followElsewhere(lctx, r)
		r.notify = closed
		return buf, false, nil
	}
	if r.hub == nil || endErr != nil || r.hubDone() {
		r.end = true
		return buf, true, endErr
	}
	// Nothing in the log beyond the cursor yet: wait for the hub.
	r.hub.mu.Lock()
	r.notify = r.hub.waitLocked(r)
	r.hub.mu.Unlock()
	return buf, false, nil
}

func (r *Reader) hubDone() bool {
	r.hub.mu.Lock()
	defer r.hub.mu.Unlock()
	return r.hub.done
}

// Wait returns a channel closed when Read may have more.
func (r *Reader) Wait() <-chan struct{} {
	if r.notify == nil {
		return closed
	}
	return r.notify
}

// Close detaches the reader.
func (r *Reader) Close() {
	r.once.Do(func() { r.m.detach(r) })
}

// errFenced ends the hub of a local run whose owner (this instance) the
// log fenced: another instance took the run over, or another run took its
// thread. The run goes on there, or a reader ends it in the log; the
// readers here follow it (followElsewhere) rather than being told the run
// was lost.
var errFenced = errors.New("runs: the log fenced this instance as the run's owner")

// followElsewhere makes r, a reader of a local run whose owner was fenced,
// a reader of the run as executed elsewhere: of the log's tail on this
// instance, as Attach makes one where the run is not executed. The tail
// ends the run in the log if its new owner dies too: its run is the log's
// (naming the new owner), not the fenced one's.
func (m *Manager) followElsewhere(ctx context.Context, r *Reader) {
	ref := r.run.Ref()
	run := r.run
	if cur, err := m.log.Get(ctx, ref); err == nil {
		run = cur
	}
	lr := r.local
	r.hub.leave(r)
	r.local = nil
	if lr.readers.Add(-1) == 0 {
		lr.lastLeft.Store(time.Now().UnixNano())
		if lr.executorDone.Load() {
			lr.hub.release()
		}
	}
	m.mu.Lock()
	m.tailLocked(r, run, r.cursor)
	m.mu.Unlock()
}

// ring is a hub's recent events, oldest first, in a circular buffer that
// grows to the most it held (at most ringEntries) and is then reused: a
// run's events cost the ring no allocation once it is full.
type ring struct {
	buf  []runlog.Entry
	head int // the index in buf of the oldest
	n    int
}

func (q *ring) len() int { return q.n }

// at is the i-th oldest event.
func (q *ring) at(i int) runlog.Entry { return q.buf[(q.head+i)%len(q.buf)] }

func (q *ring) push(e runlog.Entry) {
	if q.n == len(q.buf) {
		grown := make([]runlog.Entry, max(8, 2*q.n))
		for i := range q.n {
			grown[i] = q.at(i)
		}
		q.buf, q.head = grown, 0
	}
	q.buf[(q.head+q.n)%len(q.buf)] = e
	q.n++
}

// pop removes the oldest event and returns it.
func (q *ring) pop() runlog.Entry {
	e := q.buf[q.head]
	q.buf[q.head] = runlog.Entry{}
	q.head = (q.head + 1) % len(q.buf)
	q.n--
	return e
}
