package runlog

import (
	"errors"
	"time"
)

// ErrUnknownThread: no such thread for this principal (or it has expired).
var ErrUnknownThread = errors.New("unknown thread")

// Thread defaults, both backends.
const (
	// DefaultMaxThreadsPerOwner caps one principal's threads; over it the
	// thread whose last run is oldest goes (record and history).
	DefaultMaxThreadsPerOwner = 1000
	// DefaultMaxThreadRuns caps the run ids a thread's record lists (its
	// newest runs), whose events the thread's events and state are read
	// from.
	DefaultMaxThreadRuns = 100
)

// ThreadInfo is a thread's record: its metadata and the ids of its runs.
// It is kept with the thread's history, under the same retention and
// byte budget, and is written when a run starts on the thread and when
// the thread is renamed or archived.
type ThreadInfo struct {
	ID       string    `json:"id"`
	Owner    string    `json:"owner"`
	AgentID  string    `json:"agentId"`         // the agent of its last run
	Title    string    `json:"title,omitempty"` // "" when unnamed
	Archived bool      `json:"archived,omitempty"`
	Created  time.Time `json:"created"`
	Updated  time.Time `json:"updated"` // the last change of the record
	LastRun  time.Time `json:"lastRun"` // when its last run started
	// Runs are the ids of its newest runs, oldest first.
	Runs []string `json:"runs,omitempty"`
}

// Ref is the thread's name.
func (t ThreadInfo) Ref() Ref { return Ref{Owner: t.Owner, ID: t.ID} }

// AddRun records that run started on the thread at now, keeping at most
// max run ids.
func (t *ThreadInfo) AddRun(run Run, now time.Time, max int) {
	t.AgentID = run.AgentID
	t.LastRun = now
	t.Updated = now
	t.Runs = append(t.Runs, run.ID)
	if max > 0 && len(t.Runs) > max {
		t.Runs = append(t.Runs[:0:0], t.Runs[len(t.Runs)-max:]...)
	}
}

func (t ThreadInfo) size() int64 {
	n := int64(len(t.ID) + len(t.Owner) + len(t.AgentID) + len(t.Title) + 128)
	for _, r := range t.Runs {
		n += int64(len(r)) + 3
	}
	return n
}
