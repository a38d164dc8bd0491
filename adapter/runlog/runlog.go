// Package runlog stores runs so that they outlive the requests that
// started them: each run's events (for replay after a cursor), its
// record, the thread it holds, cancel requests addressed to it, and the
// compacted history of each thread. Two backends share one interface:
// Memory (one instance, bounded by bytes and age) and Redis (Redis
// Streams, for several instances behind a load balancer).
//
// Every run and thread is named by a Ref: its id scoped to the principal
// that owns it. Two principals using the same id address two different
// runs, so no id can reach, or reveal, another principal's run; and ids
// are escaped in Redis keys, so no id can address another run's keys.
//
// Sequence numbers start at 1 and are the SSE event ids clients see. A
// cursor older than what is retained is an explicit ErrGap, never a silent
// hole. Following a run live is the caller's business (package runs fans
// out in process); this package only stores and, for Redis, tails.
package runlog

import (
	"context"
	"errors"
	"fmt"
	"time"
)

var (
	// ErrUnknownRun: no such run for this principal (or it has expired).
	ErrUnknownRun = errors.New("unknown run")
	// ErrGap: events after the cursor were evicted.
	ErrGap = errors.New("events after this cursor are no longer retained")
	// ErrThreadBusy: the thread already has an active run.
	ErrThreadBusy = errors.New("thread has an active run")
	// ErrRunExists: a run with this id was already started.
	ErrRunExists = errors.New("run id already used")
	// ErrFinished: the run has ended; nothing more can be appended.
	ErrFinished = errors.New("run has ended")
	// ErrOwnerLost: the run's lease lapsed and another run took its
	// thread; its owner must not write and ends it.
	ErrOwnerLost = errors.New("another run took the run's thread")
	// ErrOutOfOrder: an append's first sequence number is beyond the
	// run's next one (a hole).
	ErrOutOfOrder = errors.New("append after a hole in the run's sequence")
	// ErrOwnerAlive: the run's owner holds its lease (or Redis answered
	// again too recently to tell): it is neither offered nor ended.
	ErrOwnerAlive = errors.New("the run's owner holds its lease")
)

// GapError is ErrGap with the first event still retained (0 when that is
// not known).
type GapError struct{ First, After int64 }

func (e *GapError) Error() string {
	if e.First == 0 {
		return fmt.Sprintf("%v: events after %d expired", ErrGap, e.After)
	}
	return fmt.Sprintf("%v: first retained event is %d, cursor %d", ErrGap, e.First, e.After)
}

// Is makes a GapError an ErrGap.
func (e *GapError) Is(target error) bool { return target == ErrGap }

// Ref names a run or a thread: an id in the namespace of its owner.
type Ref struct {
	Owner string `json:"owner"`
	ID    string `json:"id"`
}

// Run describes a run.
type Run struct {
	ID       string    `json:"id"`
	ThreadID string    `json:"threadId"`
	AgentID  string    `json:"agentId"`
	Owner    string    `json:"owner"`    // the principal that started it
	Instance string    `json:"instance"` // the adapter instance executing it
	Status   string    `json:"status"`   // running, finished, error
	Created  time.Time `json:"created"`
	// Unlocked runs do not hold their thread (an MCP Apps card's request
	// made while the chat's run is live) and keep no history.
	Unlocked bool `json:"unlocked,omitempty"`
}

// Ref is the run's name.
func (r Run) Ref() Ref { return Ref{Owner: r.Owner, ID: r.ID} }

// Thread is the name of the run's thread.
func (r Run) Thread() Ref { return Ref{Owner: r.Owner, ID: r.ThreadID} }

// Run statuses.
const (
	StatusRunning  = "running"
	StatusFinished = "finished"
	StatusError    = "error"
)

// Entry is one logged event.
type Entry struct {
	Seq      int64
	Data     []byte // the event's JSON
	Terminal bool   // the run's last event
}

// Cancel is a request to stop a run, delivered to the instance running it.
type Cancel struct {
	Run    Ref    `json:"run"`
	Reason string `json:"reason"`
}

// LeaseResult is what renewing a run's lease learned.
type LeaseResult struct {
	Run Ref
	// Cancel is a pending cancel reason, if one was requested (a
	// fallback for a published request that was missed).
	Cancel string
	// Lost: the run no longer holds its thread (the lease lapsed and
	// another run may have taken it); its owner must end it.
	Lost bool
}

// AppendRequest is one run's events for AppendBatch.
type AppendRequest struct {
	Run      Run
	Events   [][]byte
	Terminal bool
	// First, if not 0, is the first event's sequence number: events the
	// log already holds (an append retried after it timed out, but was
	// written) are skipped, so a retry writes each event once; and a run
	// the log lost (Redis restarted without its data) is registered
	// again, its sequence going on at First. Only the run's owner sets it.
	First int64
	// Checkpoint, if set, is stored (Handovers.OfferLost reads it) once
	// the events are: what another instance needs to take the run over if
	// its owner dies, as of an event this append or an earlier one
	// carries. Logs that do not hand runs over ignore it.
	Checkpoint []byte
	// Start, if set with a Checkpoint, is the run's start record, stored
	// with it: what a take-over needs besides the checkpoint.
	Start []byte
	// History, if set, is stored as the run's thread's history (as
	// SaveHistory) with the events, ahead of them, whatever the append's
	// outcome, unless another run holds the thread (a run that superseded
	// this one) or another instance the run (it took the run over): in
	// the same round trip with Redis, so a client that reads one of the
	// events, or finds the run ended, finds the history too.
	History []byte
}

// AppendResult is the outcome of one AppendRequest: the last event's
// sequence number, or why it failed.
type AppendResult struct {
	Last int64
	Err  error
}

// Usage is the bytes a backend holds in this process, per store.
type Usage struct {
	Events    int64
	Histories int64
}

// Log is a run log. Implementations are safe for concurrent use.
type Log interface {
	// Start registers a run. Unless it is Unlocked, it takes its thread:
	// with supersede false a thread with an active run gives
	// ErrThreadBusy (and that run's id); with supersede true the new run
	// takes the thread and the old run's id is returned so the caller
	// can cancel it. A run id already used by the same owner gives
	// ErrRunExists.
	Start(ctx context.Context, r Run, supersede bool) (active string, err error)
	// StartWithHistory is Start, then History of the run's thread (none
	// for an Unlocked run): in one round trip with Redis.
	StartWithHistory(ctx context.Context, r Run, supersede bool) (active string, history []byte, err error)
	// Append adds the next events, in order, and returns the last one's
	// sequence number; terminal marks the last event as the run's end,
	// which frees the thread and sets the status. The log keeps the
	// slices it is given; callers must not change them afterwards.
	Append(ctx context.Context, r Run, events [][]byte, terminal bool) (int64, error)
	// AppendBatch is Append for several runs at once (one round trip for
	// Redis); the results are in the order of the requests.
	AppendBatch(ctx context.Context, reqs []AppendRequest) []AppendResult
	// Read returns up to max retained events after the cursor, without
	// waiting. An evicted cursor gives ErrGap; an unknown run
	// ErrUnknownRun.
	Read(ctx context.Context, run Ref, after int64, max int) ([]Entry, error)
	// Get returns a run's description.
	Get(ctx context.Context, run Ref) (Run, error)
	// Active returns the id of the thread's active run, or "".
	Active(ctx context.Context, thread Ref) (string, error)
	// RequestCancel asks the instance running r to stop it.
	RequestCancel(ctx context.Context, r Run, reason string) error
	// Subscribe delivers cancel requests for runs of instance to fn until
	// ctx ends; fn must not block.
	Subscribe(ctx context.Context, instance string, fn func(Cancel)) error
	// Touch records that a reader is attached, for detach grace across
	// instances; LastSeen returns when that last happened.
	Touch(ctx context.Context, run Ref) error
	LastSeen(ctx context.Context, run Ref) (time.Time, error)
	// Lease renews the owner's claim on running runs (and on the threads
	// they hold) for ttl, taking back a lapsed lease whose thread no
	// other run took; a run whose lease lapses is ended by a reader
	// (EndIfOwnerLost) and its thread is free again. It also tells the
	// log that this instance reaches it (Redis: its outage clock), so the
	// supervisor calls it on every tick, with no runs between renewals.
	Lease(ctx context.Context, runs []Run, instance string, ttl time.Duration) ([]LeaseResult, error)
	// EndIfOwnerLost appends event as r's terminal event if r is running
	// and its owner's lease has lapsed (and, with Redis, the log has
	// answered for a lease TTL since its last outage, so that an owner
	// could renew it), and reports whether it did.
	EndIfOwnerLost(ctx context.Context, r Run, event []byte) (bool, error)
	// Tail waits up to block for events after the cursors of runs kept
	// in another instance's log, and returns those that arrived. Memory
	// has no other instance and returns nothing at once.
	Tail(ctx context.Context, cursors map[Ref]int64, block time.Duration) (map[Ref][]Entry, error)
	// SaveHistory and History keep a thread's compacted messages (JSON).
	// Reading a history counts as using it (for retention and LRU).
	SaveHistory(ctx context.Context, thread Ref, messages []byte) error
	History(ctx context.Context, thread Ref) ([]byte, error)
	// UpdateThread reads the thread's record, gives it to update (the
	// zero value and found false when there is none) and stores what
	// update leaves, atomically; an error from update is returned and
	// nothing is stored. update may be called more than once (Redis
	// retries after a concurrent change) and must not block.
	UpdateThread(ctx context.Context, thread Ref, update func(t *ThreadInfo, found bool) error) (ThreadInfo, error)
	// GetThread returns the thread's record, or ErrUnknownThread.
	GetThread(ctx context.Context, thread Ref) (ThreadInfo, error)
	// Threads returns all of owner's thread records, in no order.
	Threads(ctx context.Context, owner string) ([]ThreadInfo, error)
	// DeleteThread removes the thread's record, its history and its
	// runs' records and events: ErrUnknownThread when there is no
	// record, ErrThreadBusy when the thread has an active run.
	DeleteThread(ctx context.Context, thread Ref) error
	// Ping checks that the backend answers.
	Ping(ctx context.Context) error
	// Usage reports the bytes held in this process.
	Usage() Usage
	// Close releases the backend.
	Close() error
}
