package agui

import (
	"context"
	"encoding/json"
	"iter"
	"strconv"
	"sync"
)

// Handover asks a run's backend to stop at a point where another process
// can rejoin the upstream run, leaving that run going upstream, and
// receives the state rejoining needs: the backend's (see Rejoiner) and
// each stateful middleware's, by name (HandoverState). A backend that
// cannot stop so ignores it.
//
// A middleware whose state cannot be carried holds the hand-over off
// (Hold) while it has such state; the backend stops only when the
// hand-over is Ready: asked and held by none. When the backend kept its
// state, every middleware on the way out ends its stream without closing
// events of its own and keeps its state with KeepPart.
//
// The rejoining run gets a Handover made by Resume: its backend rejoins
// (Rejoining, the state in Resumed) instead of starting, and each
// middleware takes its state back with Part.
//
// The zero value is not usable; NewHandover or Resume.
type Handover struct {
	mu      sync.Mutex
	asked   bool
	holds   int
	hooks   map[int]func()
	next    int
	state   HandoverState
	kept    bool
	resumed *HandoverState

	// Checkpoints (see Watch).
	watch func(take func() HandoverState)
	snaps map[string]func() any
}

// HandoverState is what a run stopped for a hand-over leaves for the
// process that rejoins it: the backend's state and the middlewares'
// parts, by name. It is JSON, for the run log.
type HandoverState struct {
	Backend json.RawMessage            `json:"backend"`
	Parts   map[string]json.RawMessage `json:"parts,omitempty"`
}

// NewHandover returns a Handover not yet asked for.
func NewHandover() *Handover { return &Handover{hooks: map[int]func(){}} }

// Resume returns the Handover of a run that rejoins one stopped for a
// hand-over with state st. It can be asked for again.
func Resume(st HandoverState) *Handover {
	h := NewHandover()
	h.resumed = &st
	return h
}

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

// Hold holds the hand-over off until release is called (once; later
// calls do nothing): a middleware holds it while it has state it cannot
// carry to another process. A nil Handover gives a no-op.
func (h *Handover) Hold() (release func()) {
	if h == nil {
		return func() {}
	}
	h.mu.Lock()
	h.holds++
	watch := h.watch
	h.mu.Unlock()
	if watch != nil {
		watch(nil) // the checkpoints kept so far no longer hold
	}
	var once sync.Once
	return func() {
		once.Do(func() {
			h.mu.Lock()
			h.holds--
			h.mu.Unlock()
		})
	}
}

// Ready reports whether the backend may stop for the hand-over now: it
// was asked and no middleware holds it off (false for a nil Handover).
func (h *Handover) Ready() bool {
	if h == nil {
		return false
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.asked && h.holds == 0
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
	h.state.Backend, h.kept = state, true
	h.mu.Unlock()
}

// Stopped reports whether the backend kept its state: the run stopped
// for the hand-over, and middlewares end without closing events (false
// for a nil Handover).
func (h *Handover) Stopped() bool {
	if h == nil {
		return false
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.kept
}

// KeepPart records middleware name's state for the rejoining run, after
// the backend kept its own.
func (h *Handover) KeepPart(name string, state json.RawMessage) {
	h.mu.Lock()
	if h.state.Parts == nil {
		h.state.Parts = map[string]json.RawMessage{}
	}
	h.state.Parts[name] = state
	h.mu.Unlock()
}

// State is what Keep recorded; false when the run ended otherwise (it
// finished, failed, or could not stop at a point it can be rejoined
// from).
func (h *Handover) State() (json.RawMessage, bool) {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.state.Backend, h.kept
}

// Kept is the whole state kept for the rejoining run: the backend's and
// the middlewares' parts; false when the backend did not stop for the
// hand-over.
func (h *Handover) Kept() (HandoverState, bool) {
	h.mu.Lock()
	defer h.mu.Unlock()
	st := HandoverState{Backend: h.state.Backend}
	if len(h.state.Parts) > 0 {
		st.Parts = make(map[string]json.RawMessage, len(h.state.Parts))
		for k, v := range h.state.Parts {
			st.Parts[k] = v
		}
	}
	return st, h.kept
}

// Rejoining reports whether the run rejoins one stopped for a hand-over
// (a Handover made by Resume; false for a nil Handover).
func (h *Handover) Rejoining() bool { return h != nil && h.resumed != nil }

// Resumed is the backend's state of the run being rejoined (nil unless
// Rejoining).
func (h *Handover) Resumed() json.RawMessage {
	if !h.Rejoining() {
		return nil
	}
	return h.resumed.Backend
}

// Part is middleware name's state of the run being rejoined; false
// unless Rejoining and the middleware kept one.
func (h *Handover) Part(name string) (json.RawMessage, bool) {
	if !h.Rejoining() {
		return nil, false
	}
	p, ok := h.resumed.Parts[name]
	return p, ok
}

// Checkpoints: a run whose process may die without a drain (kill -9, a
// crash) can still be rejoined by another process if what rejoining needs
// was kept as it went. The run's owner watches for checkpoints (Watch);
// each stateful middleware registers how to snapshot its state (Snapshot);
// the backend calls Checkpoint at every point it could be rejoined from
// without stopping (between upstream frames, before it blocks for the
// next): there every event it yielded has been through the whole chain,
// so the middlewares' snapshots and the backend's state describe the run
// after the last event the owner took. While a middleware holds the
// hand-over off, or once it was asked, there is no checkpoint.

// Watch makes f the run's checkpoint watcher: at each checkpoint it is
// called with take, which snapshots the backend's and every registered
// middleware's state (f calls it only when it wants a checkpoint, it costs
// the encoding). f runs on the backend's goroutine, between events. When a
// middleware holds the hand-over off, f is called with nil: the
// checkpoints kept so far no longer hold (rejoining from one would do
// again what the hold protects, an MCP tool call say).
func (h *Handover) Watch(f func(take func() HandoverState)) {
	if h == nil {
		return
	}
	h.mu.Lock()
	h.watch = f
	h.mu.Unlock()
}

// Snapshot registers middleware name's state for checkpoints: f returns
// what KeepPartOf would keep, now. It returns a function that unregisters
// it. A nil Handover gives a no-op.
func (h *Handover) Snapshot(name string, f func() any) (stop func()) {
	if h == nil {
		return func() {}
	}
	h.mu.Lock()
	if h.snaps == nil {
		h.snaps = map[string]func() any{}
	}
	h.snaps[name] = f
	h.mu.Unlock()
	return func() {
		h.mu.Lock()
		delete(h.snaps, name)
		h.mu.Unlock()
	}
}

// Checkpoint is called by a backend at a point it could be rejoined from
// without stopping, with a function giving its state there (as Keep would
// keep it). It does nothing for a nil Handover, with no watcher, once
// asked or while held off.
func (h *Handover) Checkpoint(backend func() json.RawMessage) {
	if h == nil {
		return
	}
	h.mu.Lock()
	watch := h.watch
	if watch == nil || h.asked || h.holds > 0 {
		h.mu.Unlock()
		return
	}
	h.mu.Unlock()
	watch(func() HandoverState {
		st := HandoverState{Backend: backend()}
		h.mu.Lock()
		snaps := make(map[string]func() any, len(h.snaps))
		for k, f := range h.snaps {
			snaps[k] = f
		}
		h.mu.Unlock()
		if len(snaps) > 0 {
			st.Parts = make(map[string]json.RawMessage, len(snaps))
			for k, f := range snaps {
				st.Parts[k] = partJSON(f())
			}
		}
		return st
	})
}

// Rejoiner is a backend whose runs another process can rejoin from the
// state a Handover kept: Rejoin goes on with the run's events after the
// last one the stopped run yielded (no RUN_STARTED again), to its end.
// req carries the run's input as the run started with it.
type Rejoiner interface {
	Rejoin(ctx context.Context, req *Request, state json.RawMessage) iter.Seq2[Event, error]
}

// KeepPartOf records v, as JSON, as middleware name's state (KeepPart).
func (h *Handover) KeepPartOf(name string, v any) {
	h.KeepPart(name, partJSON(v))
}

// partJSON is v as a part's JSON; nil if it has none, which Restore
// reports as unreadable.
func partJSON(v any) json.RawMessage {
	b, err := json.Marshal(v)
	if err != nil {
		return nil
	}
	return b
}

// Restore reads middleware name's state of the run being rejoined into v.
// A part that is missing or unreadable is a *RunFailure (code internal,
// naming the part): the run cannot go on where it stopped.
func (h *Handover) Restore(name string, v any) error {
	p, ok := h.Part(name)
	if !ok {
		return &RunFailure{Code: CodeInternal, Message: "cannot rejoin the run: its hand-over state has no part " + strconv.Quote(name)}
	}
	if err := json.Unmarshal(p, v); err != nil {
		return &RunFailure{Code: CodeInternal, Message: "cannot rejoin the run: its hand-over part " + strconv.Quote(name) + " is unreadable", Err: err}
	}
	return nil
}
