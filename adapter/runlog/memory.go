package runlog

import (
	"bytes"
	"container/list"
	"context"
	"fmt"
	"sync"
	"time"
)

// MemoryOptions bound a Memory log. Zero values mean the defaults.
type MemoryOptions struct {
	// MaxBytes caps what all runs hold together: their events plus a
	// small record each (default 128 MiB). Over it, ended runs go first,
	// oldest first, then the oldest events of running runs.
	MaxBytes int64
	// MaxRunBytes caps one run's events (default 16 MiB); its oldest
	// events go first (a reader behind them gets ErrGap).
	MaxRunBytes int64
	// MaxEventsPerRun caps one run's kept events (default 100 000).
	MaxEventsPerRun int
	// Retention drops ended runs this long after they end (default 1 h).
	Retention time.Duration
	// MaxHistoryBytes caps all thread histories together (default 64 MiB);
	// over it the least recently used threads go first.
	MaxHistoryBytes int64
	// HistoryRetention drops a thread's history this long after it was
	// last saved or read (default 24 h).
	HistoryRetention time.Duration
	// OnRelease, if set, is told (outside any lock) how many bytes an
	// eviction or expiry freed, so that the process can return memory.
	OnRelease func(bytes int64)
}

// Memory defaults.
const (
	DefaultMaxBytes         = 128 << 20
	DefaultMaxRunBytes      = 16 << 20
	DefaultMaxEventsPerRun  = 100000
	DefaultRetention        = time.Hour
	DefaultMaxHistoryBytes  = 64 << 20
	DefaultHistoryRetention = 24 * time.Hour
)

// runOverhead approximates what a run's record costs beyond its ids.
const runOverhead = 256

// entryOverhead approximates what an event costs beyond its bytes: its
// place in the queue and its share of a chunk's unused end.
const entryOverhead = 48

// Memory is the single-instance run log. Its janitor goroutine expires
// runs and histories by age until Close.
type Memory struct {
	opts MemoryOptions

	mu        sync.Mutex
	runs      map[Ref]*memRun
	order     *list.List // *memRun, oldest first
	active    map[Ref]string
	bytes     int64
	hist      map[Ref]*memHistory
	histLRU   *list.List // *memHistory, least recently used first
	histBytes int64
	onCancel  func(Cancel)
	released  int64   // freed since the last OnRelease call
	last      *memRun // the run appended to last: a stream's appends skip the map

	stop chan struct{}
	done chan struct{}
}

type memRun struct {
	run      Run
	entries  entryQueue // the live entries
	first    int64      // seq of the first live entry (or next when none)
	next     int64
	bytes    int64 // events plus record
	done     bool
	ended    time.Time
	lastSeen time.Time
	elem     *list.Element
}

type memHistory struct {
	ref  Ref
	data []byte
	used time.Time
	elem *list.Element
}

// NewMemory returns an empty memory log and starts its janitor.
func NewMemory(opts MemoryOptions) *Memory {
	if opts.MaxBytes == 0 {
		opts.MaxBytes = DefaultMaxBytes
	}
	if opts.MaxRunBytes == 0 {
		opts.MaxRunBytes = DefaultMaxRunBytes
	}
	if opts.MaxEventsPerRun == 0 {
		opts.MaxEventsPerRun = DefaultMaxEventsPerRun
	}
	if opts.Retention == 0 {
		opts.Retention = DefaultRetention
	}
	if opts.MaxHistoryBytes == 0 {
		opts.MaxHistoryBytes = DefaultMaxHistoryBytes
	}
	if opts.HistoryRetention == 0 {
		opts.HistoryRetention = DefaultHistoryRetention
	}
	m := &Memory{
		opts: opts, runs: map[Ref]*memRun{}, order: list.New(), active: map[Ref]string{},
		hist: map[Ref]*memHistory{}, histLRU: list.New(),
		stop: make(chan struct{}), done: make(chan struct{}),
	}
	go m.janitor()
	return m
}

var _ Log = (*Memory)(nil)

func (m *Memory) janitor() {
	defer close(m.done)
	t := time.NewTicker(time.Second)
	defer t.Stop()
	for {
		select {
		case <-m.stop:
			return
		case now := <-t.C:
			m.mu.Lock()
			m.expireLocked(now)
			m.mu.Unlock()
			m.release()
		}
	}
}

// release reports freed bytes to OnRelease, outside the lock.
func (m *Memory) release() {
	m.mu.Lock()
	n := m.released
	m.released = 0
	m.mu.Unlock()
	m.freed(n)
}

// freed reports n bytes released (taken from m.released under the lock).
func (m *Memory) freed(n int64) {
	if n > 0 && m.opts.OnRelease != nil {
		m.opts.OnRelease(n)
	}
}

func recordSize(r Run) int64 {
	return runOverhead + int64(len(r.ID)+len(r.ThreadID)+len(r.Owner)+len(r.AgentID)+len(r.Instance))
}

func (m *Memory) Start(ctx context.Context, r Run, supersede bool) (string, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	// Expiry is the janitor's (every second): a walk of every run here
	// would hold the lock every append needs.
	ref := r.Ref()
	if _, ok := m.runs[ref]; ok {
		return "", ErrRunExists
	}
	prev := ""
	if !r.Unlocked {
		prev = m.active[r.Thread()]
		if prev != "" && !supersede {
			return prev, ErrThreadBusy
		}
		m.active[r.Thread()] = r.ID
	}
	r.Status = StatusRunning
	if r.Created.IsZero() {
		r.Created = time.Now()
	}
	mr := &memRun{run: r, first: 1, next: 1, lastSeen: time.Now(), bytes: recordSize(r)}
	mr.elem = m.order.PushBack(mr)
	m.runs[ref] = mr
	m.bytes += mr.bytes
	m.evictLocked(nil)
	return prev, nil
}

func (m *Memory) Append(ctx context.Context, r Run, events [][]byte, terminal bool) (int64, error) {
	m.mu.Lock()
	seq, err := m.appendLocked(r.Ref(), events, terminal, 0)
	freed := m.released
	m.released = 0
	m.mu.Unlock()
	m.freed(freed)
	return seq, err
}

func (m *Memory) AppendBatch(ctx context.Context, reqs []AppendRequest) []AppendResult {
	out := make([]AppendResult, len(reqs))
	m.mu.Lock()
	for i, r := range reqs {
		out[i].Last, out[i].Err = m.appendLocked(r.Run.Ref(), r.Events, r.Terminal, r.First)
	}
	m.mu.Unlock()
	m.release()
	return out
}

func (m *Memory) appendLocked(ref Ref, events [][]byte, terminal bool, first int64) (int64, error) {
	mr := m.last
	if mr == nil || mr.run.ID != ref.ID || mr.run.Owner != ref.Owner {
		if mr = m.runs[ref]; mr == nil {
			return 0, ErrUnknownRun
		}
		m.last = mr
	}
	if first > 0 {
		skip := mr.next - first
		switch {
		case skip < 0:
			return 0, ErrOutOfOrder
		case skip >= int64(len(events)):
			return first + int64(len(events)) - 1, nil // all appended already
		}
		events = events[skip:]
	}
	if mr.done {
		return 0, ErrFinished
	}
	var seq int64
	for _, data := range events {
		seq = mr.next
		mr.next++
		mr.entries.push(data)
		n := int64(len(data) + entryOverhead)
		mr.bytes += n
		m.bytes += n
	}
	// Per run: oldest events first, but never the one just added.
	for mr.live() > 1 && (mr.live() > m.opts.MaxEventsPerRun || mr.bytes-recordSize(mr.run) > m.opts.MaxRunBytes) {
		m.dropOldest(mr)
	}
	if terminal && len(events) > 0 {
		mr.entries.seal()
		mr.done = true
		mr.ended = time.Now()
		th := mr.run.Thread()
		if !mr.run.Unlocked && m.active[th] == ref.ID {
			delete(m.active, th)
		}
		mr.run.Status = StatusFinished
		if isRunError(events[len(events)-1]) {
			mr.run.Status = StatusError
		}
	}
	m.evictLocked(mr)
	return seq, nil
}

func (mr *memRun) live() int { return mr.entries.len() }

// dropOldest evicts a run's oldest live event.
func (m *Memory) dropOldest(mr *memRun) {
	n := int64(mr.entries.pop() + entryOverhead)
	mr.first++
	mr.bytes -= n
	m.bytes -= n
	m.released += n
}

// evictLocked keeps the total: whole ended runs, oldest first; then the
// oldest events of running runs (never the last event of keep).
func (m *Memory) evictLocked(keep *memRun) {
	for el := m.order.Front(); el != nil && m.bytes > m.opts.MaxBytes; {
		next := el.Next()
		if mr := el.Value.(*memRun); mr.done {
			m.removeLocked(mr)
		}
		el = next
	}
	for el := m.order.Front(); el != nil && m.bytes > m.opts.MaxBytes; el = el.Next() {
		mr := el.Value.(*memRun)
		for mr.live() > 0 && m.bytes > m.opts.MaxBytes && !(mr == keep && mr.live() == 1) {
			m.dropOldest(mr)
		}
	}
}

func (m *Memory) removeLocked(mr *memRun) {
	m.order.Remove(mr.elem)
	delete(m.runs, mr.run.Ref())
	if m.last == mr {
		m.last = nil
	}
	m.bytes -= mr.bytes
	m.released += mr.bytes
	if !mr.run.Unlocked && m.active[mr.run.Thread()] == mr.run.ID {
		delete(m.active, mr.run.Thread())
	}
}

func (m *Memory) expireLocked(now time.Time) {
	for el := m.order.Front(); el != nil; {
		next := el.Next()
		if mr := el.Value.(*memRun); mr.done && now.Sub(mr.ended) > m.opts.Retention {
			m.removeLocked(mr)
		}
		el = next
	}
	for el := m.histLRU.Front(); el != nil; {
		next := el.Next()
		if h := el.Value.(*memHistory); now.Sub(h.used) > m.opts.HistoryRetention {
			m.removeHistoryLocked(h)
		} else {
			break // the list is ordered by use
		}
		el = next
	}
}

func (m *Memory) Read(ctx context.Context, ref Ref, after int64, max int) ([]Entry, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	mr := m.runs[ref]
	if mr == nil {
		return nil, ErrUnknownRun
	}
	if after+1 < mr.first {
		return nil, fmt.Errorf("%w: first retained event is %d, cursor %d", ErrGap, mr.first, after)
	}
	i := int(after + 1 - mr.first)
	if i >= mr.entries.len() {
		return nil, nil
	}
	end := mr.entries.len()
	if max > 0 && end-i > max {
		end = i + max
	}
	out := make([]Entry, 0, end-i)
	for ; i < end; i++ {
		seq := mr.first + int64(i)
		out = append(out, Entry{Seq: seq, Data: mr.entries.data(i), Terminal: mr.done && seq == mr.next-1})
	}
	return out, nil
}

func (m *Memory) Get(ctx context.Context, ref Ref) (Run, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	mr := m.runs[ref]
	if mr == nil {
		return Run{}, ErrUnknownRun
	}
	return mr.run, nil
}

func (m *Memory) Active(ctx context.Context, thread Ref) (string, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.active[thread], nil
}

func (m *Memory) RequestCancel(ctx context.Context, r Run, reason string) error {
	m.mu.Lock()
	_, ok := m.runs[r.Ref()]
	fn := m.onCancel
	m.mu.Unlock()
	if !ok {
		return ErrUnknownRun
	}
	if fn != nil {
		fn(Cancel{Run: r.Ref(), Reason: reason})
	}
	return nil
}

// Subscribe delivers every cancel request (one instance holds them all).
func (m *Memory) Subscribe(ctx context.Context, instance string, fn func(Cancel)) error {
	m.mu.Lock()
	m.onCancel = fn
	m.mu.Unlock()
	context.AfterFunc(ctx, func() {
		m.mu.Lock()
		m.onCancel = nil
		m.mu.Unlock()
	})
	return nil
}

func (m *Memory) Touch(ctx context.Context, ref Ref) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	if mr := m.runs[ref]; mr != nil {
		mr.lastSeen = time.Now()
	}
	return nil
}

func (m *Memory) LastSeen(ctx context.Context, ref Ref) (time.Time, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	mr := m.runs[ref]
	if mr == nil {
		return time.Time{}, ErrUnknownRun
	}
	return mr.lastSeen, nil
}

// Lease: in one process the owner cannot be lost.
func (m *Memory) Lease(ctx context.Context, runs []Run, instance string, ttl time.Duration) ([]LeaseResult, error) {
	return nil, nil
}

// EndIfOwnerLost: in one process the owner cannot be lost.
func (m *Memory) EndIfOwnerLost(ctx context.Context, r Run, event []byte) (bool, error) {
	return false, nil
}

// Tail: every run of a memory log is this instance's.
func (m *Memory) Tail(ctx context.Context, cursors map[Ref]int64, block time.Duration) (map[Ref][]Entry, error) {
	return nil, nil
}

func (m *Memory) SaveHistory(ctx context.Context, thread Ref, messages []byte) error {
	m.mu.Lock()
	if h := m.hist[thread]; h != nil {
		m.removeHistoryLocked(h)
	}
	h := &memHistory{ref: thread, data: messages, used: time.Now()}
	h.elem = m.histLRU.PushBack(h)
	m.hist[thread] = h
	m.histBytes += h.size()
	for m.histBytes > m.opts.MaxHistoryBytes && m.histLRU.Len() > 0 {
		m.removeHistoryLocked(m.histLRU.Front().Value.(*memHistory))
	}
	m.mu.Unlock()
	m.release()
	return nil
}

func (h *memHistory) size() int64 {
	return int64(len(h.data)+len(h.ref.ID)+len(h.ref.Owner)) + runOverhead
}

func (m *Memory) removeHistoryLocked(h *memHistory) {
	m.histLRU.Remove(h.elem)
	delete(m.hist, h.ref)
	m.histBytes -= h.size()
	m.released += h.size()
}

func (m *Memory) History(ctx context.Context, thread Ref) ([]byte, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	h := m.hist[thread]
	if h == nil {
		return nil, nil
	}
	if time.Since(h.used) > m.opts.HistoryRetention {
		m.removeHistoryLocked(h)
		return nil, nil
	}
	h.used = time.Now()
	m.histLRU.MoveToBack(h.elem)
	return h.data, nil
}

func (m *Memory) Ping(ctx context.Context) error { return nil }

func (m *Memory) Usage() Usage {
	m.mu.Lock()
	defer m.mu.Unlock()
	return Usage{Events: m.bytes, Histories: m.histBytes}
}

// Close stops the janitor.
func (m *Memory) Close() error {
	select {
	case <-m.stop:
	default:
		close(m.stop)
		<-m.done
	}
	return nil
}

// isRunError reports whether a terminal event is RUN_ERROR (events are
// encoded with "type" first).
func isRunError(data []byte) bool {
	return bytes.HasPrefix(data, []byte(`{"type":"RUN_ERROR"`))
}
