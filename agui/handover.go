package agui

import (
	"context"
	"encoding/json"
	"iter"
	"sync"
)

// Handover asks a run's backend to stop at a point where another process
// can rejoin the upstream run, leaving that run going upstream, and
// receives the state rejoining needs (see Rejoiner). A backend that
// cannot stop so ignores it. The zero value is not usable; NewHandover.
type Handover struct {
	mu    sync.Mutex
	asked bool
	hooks map[int]func()
	next  int
	state json.RawMessage
	kept  bool
}

// NewHandover returns a Handover not yet asked for.
func NewHandover() *Handover { return &Handover{hooks: map[int]func(){}} }

// Ask asks the backend to stop for a hand-over; it calls the functions
// registered with AfterAsk, once.
func (h *Handover) Ask() {
	h.mu.Lock()
	if h.asked {
		h.mu.Unlock()
		return
	}
	h.asked = true
	hooks := h.hooks
	h.hooks = nil
	h.mu.Unlock()
	for _, f := range hooks {
		f()
	}
}

// Asked reports whether Ask was called (false for a nil Handover).
func (h *Handover) Asked() bool {
	if h == nil {
		return false
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.asked
}

// AfterAsk calls f when Ask is called (at once if it was); the function
// it returns unregisters f. A nil Handover never calls f.
func (h *Handover) AfterAsk(f func()) (stop func()) {
	if h == nil {
		return func() {}
	}
	h.mu.Lock()
	if h.asked {
		h.mu.Unlock()
		f()
		return func() {}
	}
	id := h.next
	h.next++
	h.hooks[id] = f
	h.mu.Unlock()
	return func() {
		h.mu.Lock()
		delete(h.hooks, id)
		h.mu.Unlock()
	}
}

// Keep records the state of a run that stopped for the hand-over: the
// backend calls it right before its event sequence ends, having yielded
// every event the state covers.
func (h *Handover) Keep(state json.RawMessage) {
	h.mu.Lock()
	h.state, h.kept = state, true
	h.mu.Unlock()
}

// State is what Keep recorded; false when the run ended otherwise (it
// finished, failed, or could not stop at a point it can be rejoined
// from).
func (h *Handover) State() (json.RawMessage, bool) {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.state, h.kept
}

// Rejoiner is a backend whose runs another process can rejoin from the
// state a Handover kept: Rejoin goes on with the run's events after the
// last one the stopped run yielded (no RUN_STARTED again), to its end.
// req carries the run's input as the run started with it.
type Rejoiner interface {
	Rejoin(ctx context.Context, req *Request, state json.RawMessage) iter.Seq2[Event, error]
}
