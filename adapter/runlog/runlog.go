// Package runlog keeps the events of runs so that any reader, on any
// instance, can replay them after a cursor and then follow them live:
// a run outlives the request that started it. Two backends share one
// interface: Memory (one instance, bounded by bytes and age) and Redis
// (Redis Streams, for several instances behind a load balancer).
//
// Sequence numbers start at 1 and are the SSE event ids clients see.
// A cursor older than what is retained is an explicit ErrGap, never a
// silent hole.
package runlog

import (
	"context"
	"errors"
	"iter"
	"time"
)

var (
	// ErrUnknownRun: no such run (or it has expired).
	ErrUnknownRun = errors.New("unknown run")
	// ErrGap: events after the cursor were evicted.
	ErrGap = errors.New("events after this cursor are no longer retained")
	// ErrThreadBusy: the thread already has an active run.
	ErrThreadBusy = errors.New("thread has an active run")
	// ErrRunExists: a run with this id was already started.
	ErrRunExists = errors.New("run id already used")
	// ErrFinished: the run has ended; nothing more can be appended.
	ErrFinished = errors.New("run has ended")
)

// Run describes a run.
type Run struct {
	ID       string    `json:"id"`
	ThreadID string    `json:"threadId"`
	AgentID  string    `json:"agentId"`
	Owner    string    `json:"owner"`    // the principal that started it
	Instance string    `json:"instance"` // the adapter instance executing it
	Status   string    `json:"status"`   // running, finished, error
	Created  time.Time `json:"created"`
}

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

// Log is a run log. Implementations are safe for concurrent use.
type Log interface {
	// Start registers a run. With supersede false, a thread with an
	// active run gives ErrThreadBusy (and the active run's id); with
	// supersede true the new run takes the thread and the old run's id is
	// returned so the caller can cancel it.
	Start(ctx context.Context, r Run, supersede bool) (active string, err error)
	// Append adds the next events, in order, and returns the last one's
	// sequence number; terminal marks the last event as the run's end,
	// which frees the thread and sets the status. Appending several events
	// at once is one round trip for Redis.
	Append(ctx context.Context, runID string, events [][]byte, terminal bool) (int64, error)
	// Events replays the events after the cursor and then follows the run
	// until its terminal event (or ctx ends). An evicted cursor yields
	// ErrGap first; an unknown run ErrUnknownRun.
	Events(ctx context.Context, runID string, after int64) iter.Seq2[Entry, error]
	// Check reports, without waiting, what Events would fail with first:
	// ErrUnknownRun, ErrGap, or nil.
	Check(ctx context.Context, runID string, after int64) error
	// Get returns a run's description.
	Get(ctx context.Context, runID string) (Run, error)
	// Active returns the id of the thread's active run, or "".
	Active(ctx context.Context, threadID string) (string, error)
	// RequestCancel asks the run's owner, wherever it executes, to stop.
	RequestCancel(ctx context.Context, runID string, reason string) error
	// Cancels delivers cancel requests for a run to its owner until ctx
	// ends.
	Cancels(ctx context.Context, runID string) <-chan string
	// Touch records that a reader is attached, for detach grace across
	// instances; LastSeen returns when that last happened.
	Touch(ctx context.Context, runID string) error
	LastSeen(ctx context.Context, runID string) (time.Time, error)
	// Lease renews the owner's claim on a running run; a run whose lease
	// lapses is taken over by a reader and ended with owner_lost.
	Lease(ctx context.Context, runID, instance string, ttl time.Duration) error
	// SaveHistory and History keep a thread's compacted messages (JSON).
	SaveHistory(ctx context.Context, threadID string, messages []byte) error
	History(ctx context.Context, threadID string) ([]byte, error)
	// Close releases the backend.
	Close() error
}
