package runlog

import (
	"bytes"
	"context"
	"fmt"
	"iter"
	"sync"
	"time"
)

// MemoryOptions bound a Memory log. Zero values mean the defaults.
type MemoryOptions struct {
	// MaxBytes caps the event bytes kept across all runs (default 256 MiB);
	// the oldest events are evicted first, ended runs before running ones.
	MaxBytes int64
	// Retention drops ended runs this long after they end (default 1 h).
	Retention time.Duration
	// MaxEventsPerRun caps one run's kept events (default 100 000).
	MaxEventsPerRun int
}

// Memory is the single-instance run log.
type Memory struct {
	opts    MemoryOptions
	mu      sync.Mutex
	runs    map[string]*memRun
	order   []string // run ids, oldest first
	active  map[string]string
	history map[string][]byte
	bytes   int64
}

type memRun struct {
	run      Run
	entries  []Entry
	first    int64 // seq of entries[0] (or next seq when empty)
	next     int64
	done     bool
	ended    time.Time
	notify   chan struct{} // closed on every append
	cancels  []chan string
	lastSeen time.Time
}

// NewMemory returns an empty memory log.
func NewMemory(opts MemoryOptions) *Memory {
	if opts.MaxBytes == 0 {
		opts.MaxBytes = 256 << 20
	}
	if opts.Retention == 0 {
		opts.Retention = time.Hour
	}
	if opts.MaxEventsPerRun == 0 {
		opts.MaxEventsPerRun = 100000
	}
	return &Memory{opts: opts, runs: map[string]*memRun{}, active: map[string]string{}, history: map[string][]byte{}}
}

var _ Log = (*Memory)(nil)

func (m *Memory) Start(ctx context.Context, r Run, supersede bool) (string, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.expireLocked(time.Now())
	if _, ok := m.runs[r.ID]; ok {
		return "", ErrRunExists
	}
	prev := m.active[r.ThreadID]
	if prev != "" && !supersede {
		return prev, ErrThreadBusy
	}
	r.Status = StatusRunning
	if r.Created.IsZero() {
		r.Created = time.Now()
	}
	m.runs[r.ID] = &memRun{run: r, first: 1, next: 1, notify: make(chan struct{}), lastSeen: time.Now()}
	m.order = append(m.order, r.ID)
	m.active[r.ThreadID] = r.ID
	return prev, nil
}

func (m *Memory) Append(ctx context.Context, runID string, events [][]byte, terminal bool) (int64, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	mr := m.runs[runID]
	if mr == nil {
		return 0, ErrUnknownRun
	}
	if mr.done {
		return 0, ErrFinished
	}
	var seq int64
	for i, data := range events {
		seq = mr.next
		mr.next++
		mr.entries = append(mr.entries, Entry{Seq: seq, Data: append([]byte(nil), data...), Terminal: terminal && i == len(events)-1})
		m.bytes += int64(len(data))
		if len(mr.entries) > m.opts.MaxEventsPerRun {
			m.bytes -= int64(len(mr.entries[0].Data))
			mr.entries[0] = Entry{}
			mr.entries = mr.entries[1:]
			mr.first++
		}
	}
	if terminal && len(events) > 0 {
		data := events[len(events)-1]
		mr.done = true
		mr.ended = time.Now()
		if m.active[mr.run.ThreadID] == runID {
			delete(m.active, mr.run.ThreadID)
		}
		if mr.run.Status == StatusRunning {
			mr.run.Status = StatusFinished
			if isRunError(data) {
				mr.run.Status = StatusError
			}
		}
	}
	close(mr.notify)
	mr.notify = make(chan struct{})
	m.evictLocked()
	return seq, nil
}

// evictLocked keeps the byte budget: oldest events of ended runs first,
// then of running ones.
func (m *Memory) evictLocked() {
	for _, endedFirst := range []bool{true, false} {
		for _, id := range m.order {
			if m.bytes <= m.opts.MaxBytes {
				return
			}
			mr := m.runs[id]
			if mr == nil || (endedFirst && !mr.done) {
				continue
			}
			for len(mr.entries) > 0 && m.bytes > m.opts.MaxBytes {
				m.bytes -= int64(len(mr.entries[0].Data))
				mr.entries = mr.entries[1:]
				mr.first++
			}
		}
	}
}

func (m *Memory) expireLocked(now time.Time) {
	keep := m.order[:0]
	for _, id := range m.order {
		mr := m.runs[id]
		if mr.done && now.Sub(mr.ended) > m.opts.Retention {
			for _, e := range mr.entries {
				m.bytes -= int64(len(e.Data))
			}
			delete(m.runs, id)
			continue
		}
		keep = append(keep, id)
	}
	m.order = keep
}

func (m *Memory) Events(ctx context.Context, runID string, after int64) iter.Seq2[Entry, error] {
	return func(yield func(Entry, error) bool) {
		cursor := after
		for {
			m.mu.Lock()
			mr := m.runs[runID]
			if mr == nil {
				m.mu.Unlock()
				yield(Entry{}, ErrUnknownRun)
				return
			}
			if first := mr.first; cursor+1 < first {
				m.mu.Unlock()
				yield(Entry{}, fmt.Errorf("%w: first retained event is %d, cursor %d", ErrGap, first, cursor))
				return
			}
			var batch []Entry
			if i := int(cursor + 1 - mr.first); i < len(mr.entries) {
				batch = append(batch, mr.entries[i:]...)
			}
			notify := mr.notify
			done := mr.done
			m.mu.Unlock()
			for _, e := range batch {
				if !yield(e, nil) || e.Terminal {
					return
				}
				cursor = e.Seq
			}
			if done && len(batch) == 0 {
				return // ended and nothing after the cursor
			}
			if len(batch) > 0 {
				continue
			}
			select {
			case <-ctx.Done():
				return
			case <-notify:
			}
		}
	}
}

func (m *Memory) Check(ctx context.Context, runID string, after int64) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	mr := m.runs[runID]
	if mr == nil {
		return ErrUnknownRun
	}
	if after+1 < mr.first {
		return fmt.Errorf("%w: first retained event is %d, cursor %d", ErrGap, mr.first, after)
	}
	return nil
}

func (m *Memory) Get(ctx context.Context, runID string) (Run, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	mr := m.runs[runID]
	if mr == nil {
		return Run{}, ErrUnknownRun
	}
	return mr.run, nil
}

func (m *Memory) Active(ctx context.Context, threadID string) (string, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.active[threadID], nil
}

func (m *Memory) RequestCancel(ctx context.Context, runID, reason string) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	mr := m.runs[runID]
	if mr == nil {
		return ErrUnknownRun
	}
	for _, c := range mr.cancels {
		select {
		case c <- reason:
		default:
		}
	}
	return nil
}

func (m *Memory) Cancels(ctx context.Context, runID string) <-chan string {
	c := make(chan string, 1)
	m.mu.Lock()
	if mr := m.runs[runID]; mr != nil {
		mr.cancels = append(mr.cancels, c)
	}
	m.mu.Unlock()
	context.AfterFunc(ctx, func() {
		m.mu.Lock()
		defer m.mu.Unlock()
		if mr := m.runs[runID]; mr != nil {
			for i, x := range mr.cancels {
				if x == c {
					mr.cancels = append(mr.cancels[:i], mr.cancels[i+1:]...)
					break
				}
			}
		}
	})
	return c
}

func (m *Memory) Touch(ctx context.Context, runID string) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	if mr := m.runs[runID]; mr != nil {
		mr.lastSeen = time.Now()
	}
	return nil
}

func (m *Memory) LastSeen(ctx context.Context, runID string) (time.Time, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	mr := m.runs[runID]
	if mr == nil {
		return time.Time{}, ErrUnknownRun
	}
	return mr.lastSeen, nil
}

// Lease is a no-op: in one process the owner cannot be lost.
func (m *Memory) Lease(ctx context.Context, runID, instance string, ttl time.Duration) error {
	return nil
}

func (m *Memory) SaveHistory(ctx context.Context, threadID string, messages []byte) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.history[threadID] = append([]byte(nil), messages...)
	return nil
}

func (m *Memory) History(ctx context.Context, threadID string) ([]byte, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.history[threadID], nil
}

func (m *Memory) Close() error { return nil }

// isRunError reports whether a terminal event is RUN_ERROR (events are
// encoded with "type" first).
func isRunError(data []byte) bool {
	return bytes.HasPrefix(data, []byte(`{"type":"RUN_ERROR"`))
}
