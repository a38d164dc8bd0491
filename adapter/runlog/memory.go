package runlog

import (
	"bytes"
	"container/list"
	"context"
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
	// MaxHistoryBytes caps all thread histories and records together
	// (default 64 MiB); over it the least recently used threads go first.
	MaxHistoryBytes int64
	// HistoryRetention drops a thread's history and record this long
	// after it was last saved or read (default 24 h).
	HistoryRetention time.Duration
	// MaxThreadsPerOwner caps one principal's threads (default
	// DefaultMaxThreadsPerOwner); over it the thread whose last run is
	// oldest goes.
	MaxThreadsPerOwner int
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
	owners    map[string]map[string]*memHistory // a principal's threads, by id
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

// memHistory is a thread: its history and its record (either may be
// absent).
type memHistory struct {
	ref  Ref
	data []byte
	info *ThreadInfo
	sz   int64 // what it counts in histBytes
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
	if opts.MaxThreadsPerOwner == 0 {
		opts.MaxThreadsPerOwner = DefaultMaxThreadsPerOwner
	}
	m := &Memory{
		opts: opts, runs: map[Ref]*memRun{}, order: list.New(), active: map[Ref]string{},
		hist: map[Ref]*memHistory{}, histLRU: list.New(), owners: map[string]map[string]*memHistory{},
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

// StartWithHistory is Start, then History.
func (m *Memory) StartWithHistory(ctx context.Context, r Run, supersede bool) (string, []byte, error) {
	prev, err := m.Start(ctx, r, supersede)
	if err != nil || r.Unlocked {
		return prev, nil, err
	}
	h, err := m.History(ctx, r.Thread())
	return prev, h, err
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
		if a := m.active[r.Run.Thread()]; r.History != nil && (a == "" || a == r.Run.ID) {
			h := m.threadLocked(r.Run.Thread())
			h.data = r.History
			m.resizeLocked(h)
		}
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
		return nil, &GapError{First: mr.first, After: after}
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
	h := m.threadLocked(thread)
	h.data = messages
	m.resizeLocked(h)
	m.mu.Unlock()
	m.release()
	return nil
}

// threadLocked returns the thread, added if absent, marked as used now.
func (m *Memory) threadLocked(thread Ref) *memHistory {
	h := m.hist[thread]
	if h == nil {
		h = &memHistory{ref: thread}
		h.elem = m.histLRU.PushBack(h)
		m.hist[thread] = h
		if m.owners[thread.Owner] == nil {
			m.owners[thread.Owner] = map[string]*memHistory{}
		}
		m.owners[thread.Owner][thread.ID] = h
	} else {
		m.histLRU.MoveToBack(h.elem)
	}
	h.used = time.Now()
	return h
}

// resizeLocked counts h's new size and keeps the budget: the least
// recently used threads go first, never h itself.
func (m *Memory) resizeLocked(h *memHistory) {
	m.histBytes -= h.sz
	h.sz = h.size()
	m.histBytes += h.sz
	for m.histBytes > m.opts.MaxHistoryBytes && m.histLRU.Len() > 1 {
		old := m.histLRU.Front().Value.(*memHistory)
		if old == h {
			break
		}
		m.removeHistoryLocked(old)
	}
	if m.histBytes > m.opts.MaxHistoryBytes {
		m.removeHistoryLocked(h)
	}
}

func (h *memHistory) size() int64 {
	n := int64(len(h.data)+len(h.ref.ID)+len(h.ref.Owner)) + runOverhead
	if h.info != nil {
		n += h.info.size()
	}
	return n
}

func (m *Memory) removeHistoryLocked(h *memHistory) {
	if m.hist[h.ref] != h {
		return
	}
	m.histLRU.Remove(h.elem)
	delete(m.hist, h.ref)
	if ts := m.owners[h.ref.Owner]; ts != nil {
		delete(ts, h.ref.ID)
		if len(ts) == 0 {
			delete(m.owners, h.ref.Owner)
		}
	}
	m.histBytes -= h.sz
	m.released += h.sz
}

func (m *Memory) History(ctx context.Context, thread Ref) ([]byte, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	h := m.hist[thread]
	if h == nil || h.data == nil {
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

func (m *Memory) UpdateThread(ctx context.Context, thread Ref, update func(t *ThreadInfo, found bool) error) (ThreadInfo, error) {
	m.mu.Lock()
	var t ThreadInfo
	h := m.hist[thread]
	found := h != nil && h.info != nil && time.Since(h.used) <= m.opts.HistoryRetention
	if found {
		t = *h.info
		t.Runs = append([]string(nil), t.Runs...)
	}
	if err := update(&t, found); err != nil {
		m.mu.Unlock()
		return ThreadInfo{}, err
	}
	t.ID, t.Owner = thread.ID, thread.Owner
	if !found {
		m.capOwnerLocked(thread)
	}
	h = m.threadLocked(thread)
	stored := t
	h.info = &stored
	m.resizeLocked(h)
	m.mu.Unlock()
	m.release()
	return t, nil
}

// capOwnerLocked makes room for one more of the owner's threads: over
// MaxThreadsPerOwner, the one whose last run is oldest goes.
func (m *Memory) capOwnerLocked(thread Ref) {
	ts := m.owners[thread.Owner]
	for len(ts) >= m.opts.MaxThreadsPerOwner && len(ts) > 0 {
		var oldest *memHistory
		for _, h := range ts {
			if oldest == nil || lastRun(h).Before(lastRun(oldest)) {
				oldest = h
			}
		}
		m.removeHistoryLocked(oldest)
		ts = m.owners[thread.Owner]
	}
}

func lastRun(h *memHistory) time.Time {
	if h.info == nil {
		return time.Time{}
	}
	return h.info.LastRun
}

func (m *Memory) GetThread(ctx context.Context, thread Ref) (ThreadInfo, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	h := m.hist[thread]
	if h == nil || h.info == nil || time.Since(h.used) > m.opts.HistoryRetention {
		return ThreadInfo{}, ErrUnknownThread
	}
	t := *h.info
	t.Runs = append([]string(nil), t.Runs...)
	return t, nil
}

func (m *Memory) Threads(ctx context.Context, owner string) ([]ThreadInfo, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	ts := m.owners[owner]
	out := make([]ThreadInfo, 0, len(ts))
	now := time.Now()
	for _, h := range ts {
		if h.info != nil && now.Sub(h.used) <= m.opts.HistoryRetention {
			t := *h.info
			t.Runs = nil // not needed for a list
			out = append(out, t)
		}
	}
	return out, nil
}

func (m *Memory) DeleteThread(ctx context.Context, thread Ref) error {
	m.mu.Lock()
	h := m.hist[thread]
	if h == nil || h.info == nil || time.Since(h.used) > m.opts.HistoryRetention {
		m.mu.Unlock()
		return ErrUnknownThread
	}
	if m.active[thread] != "" {
		m.mu.Unlock()
		return ErrThreadBusy
	}
	for _, id := range h.info.Runs {
		if mr := m.runs[Ref{Owner: thread.Owner, ID: id}]; mr != nil && mr.done && mr.run.ThreadID == thread.ID {
			m.removeLocked(mr)
		}
	}
	m.removeHistoryLocked(h)
	m.mu.Unlock()
	m.release()
	return nil
}
