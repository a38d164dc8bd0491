package runlog

import (
	"encoding/json"
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
	// Superseded are the runs a newer run superseded before their own
	// record landed (a slow or retried write): the newer run recorded
	// them, before itself, and their own late record adds nothing,
	// whatever the cap on Runs left of them. The newest
	// MaxSupersededKept are kept.
	Superseded []string `json:"superseded,omitempty"`
	// Cards are the kept states of its MCP Apps cards, least recently
	// updated first.
	Cards []CardState `json:"cards,omitempty"`
}

// CardState is what a card of the thread last kept: its View's last
// model context.
type CardState struct {
	Card    string          `json:"card"` // the card's tool call id
	State   json.RawMessage `json:"state"`
	Updated time.Time       `json:"updated"`
}

// SetCard keeps state as card's, most recent last, keeping at most max
// cards.
func (t *ThreadInfo) SetCard(card string, state []byte, now time.Time, max int) {
	// A new slice: t may be a copy sharing the stored record's.
	cards := make([]CardState, 0, len(t.Cards)+1)
	for _, c := range t.Cards {
		if c.Card != card {
			cards = append(cards, c)
		}
	}
	t.Cards = append(cards, CardState{Card: card, State: append(json.RawMessage(nil), state...), Updated: now})
	if max > 0 && len(t.Cards) > max {
		t.Cards = append(t.Cards[:0:0], t.Cards[len(t.Cards)-max:]...)
	}
}

// Card is card's kept state, nil if none.
func (t ThreadInfo) Card(card string) []byte {
	for _, c := range t.Cards {
		if c.Card == card {
			return c.State
		}
	}
	return nil
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

// MaxSupersededKept is how many superseded runs a thread's record keeps
// (ThreadInfo.Superseded): as many runs superseded in a row, each before
// its record landed.
const MaxSupersededKept = 16

// AddSuperseded records that run was superseded before its own record
// landed.
func (t *ThreadInfo) AddSuperseded(run string) {
	kept := append(t.Superseded[:0:0], t.Superseded...)
	kept = append(kept, run)
	if len(kept) > MaxSupersededKept {
		kept = kept[len(kept)-MaxSupersededKept:]
	}
	t.Superseded = kept
}

func (t ThreadInfo) size() int64 {
	n := int64(len(t.ID) + len(t.Owner) + len(t.AgentID) + len(t.Title) + 128)
	for _, r := range t.Runs {
		n += int64(len(r)) + 3
	}
	for _, r := range t.Superseded {
		n += int64(len(r)) + 3
	}
	for _, c := range t.Cards {
		n += int64(len(c.Card)+len(c.State)) + 64
	}
	return n
}
