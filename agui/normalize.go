package agui

import (
	"context"
	"encoding/json"
	"errors"
	"iter"
	"strconv"
	"strings"
)

// NormalizeMode selects what Normalize enforces.
type NormalizeMode int

const (
	// Canonical wraps a backend: it expands *_CHUNK events, turns THINKING_*
	// into REASONING_*, counts the fixes ParseEvent made (nulls, float
	// timestamps...) and drops unknown event types, so the middlewares in
	// between only see canonical events.
	Canonical NormalizeMode = iota
	// Output is the outermost middleware: on top of Canonical it enforces
	// the grammar that @ag-ui/client 0.0.57, 0.0.59, 1.0.0 and 1.0.4 all accept.
	// RUN_STARTED comes first, before the backend is even asked, and
	// echoes the request's ids (the upstream's own is merged into it); nothing a 0.0.57
	// client rejects leaves (no SUBAGENT_*, no outcome "cancelled"); events
	// that break the ordering rules are dropped or completed; whatever is
	// still open is closed before RUN_FINISHED; exactly one terminal event is
	// sent; and a stream that fails or ends without a terminal event ends
	// with RUN_ERROR carrying a stable code.
	Output
)

// Repair kinds reported by Normalize (in addition to ParseEvent's).
const (
	RepairUnknownEvent       = "unknown_event"
	RepairChunkExpanded      = "chunk_expanded"
	RepairThinkingToReason   = "thinking_to_reasoning"
	RepairMissingRunStarted  = "missing_run_started"
	RepairRunIDs             = "run_ids_rewritten"
	RepairDuplicateStart     = "duplicate_start"
	RepairOrphanEvent        = "orphan_event"
	RepairClosedOpen         = "closed_open_construct"
	RepairAfterTerminal      = "after_terminal"
	RepairMissingTerminal    = "missing_terminal"
	RepairUpstreamError      = "upstream_error"
	RepairSubagentFlattened  = "subagent_flattened"
	RepairOutcomeDowngraded  = "outcome_downgraded"
	RepairInvalidEvent       = "invalid_event"
	RepairSynthesizedID      = "synthesized_id"
	RepairRoleDropped        = "role_dropped"
	RepairEmptyErrorMessage  = "empty_error_message"
	RepairRunInputDropped    = "run_input_dropped"
	RepairSubagentAttributed = "subagent_attribution_dropped"
)

// Normalize returns the middleware for mode. Repairs are reported to the
// run's Request.Stats, if any.
//
// When the run's context is cancelled with a *RunFailure as its cause
// (context.WithCancelCause), Output mode ends the stream with that error as
// RUN_ERROR; any other cancellation ends the stream silently (the client is
// gone).
//
// A run stopped for a hand-over (Handover.Stopped) ends without closing
// events or RUN_ERROR: each mode keeps its state (open ids, chunk streams,
// id counters) as the part "normalize.output" or "normalize.canonical",
// and the rejoining run (Handover.Rejoining) takes it back and goes on
// without a second RUN_STARTED. A part missing or unreadable there ends
// the run with RUN_ERROR (code internal).
func Normalize(mode NormalizeMode) Middleware {
	return func(next Agent) Agent {
		return AgentFunc(func(ctx context.Context, req *Request) iter.Seq2[Event, error] {
			return func(yield func(Event, error) bool) {
				in := req.Input
				report, failed := func(string) {}, func(context.Context, error) {}
				if s := req.Stats; s != nil {
					report, failed = s.Repair, s.Failed
				}
				c := &canon{runID: in.RunID, report: report}
				h, part := req.Handover, mode.part()
				if mode == Canonical {
					if h.Rejoining() {
						var st canonState
						if err := h.Restore(part, &st); err != nil {
							yield(nil, err)
							return
						}
						c.restore(st)
					}
					defer h.Snapshot(part, func() any { return c.state() })()
					for ev, err := range next.Run(ctx, req) {
						if err != nil {
							c.closeChunks(func(e Event) bool { return yield(e, nil) })
							yield(nil, err)
							return
						}
						if !c.push(ev, func(e Event) bool { return yield(e, nil) }) {
							return
						}
					}
					if h.Stopped() {
						h.KeepPartOf(part, c.state())
					}
					return
				}
				g := &grammar{in: in, report: report, failed: failed, yield: yield}
				if h.Rejoining() {
					// The run goes on where another process stopped it: its
					// client has had RUN_STARTED.
					var st outputState
					if err := h.Restore(part, &st); err != nil {
						g.failed(ctx, err)
						g.fail(err)
						return
					}
					c.restore(st.Canon)
					g.restore(st.Grammar)
				} else if !g.announce() {
					// RUN_STARTED goes out before the backend is asked, so
					// the client knows at once that its run was accepted,
					// whatever the upstream's latency; the upstream's own
					// RUN_STARTED is merged into it.
					return
				}
				emit := g.push
				defer h.Snapshot(part, func() any { return outputState{Canon: c.state(), Grammar: g.state()} })()
				for ev, err := range next.Run(ctx, req) {
					if err != nil {
						if ctx.Err() != nil {
							break
						}
						if !g.terminated {
							g.failed(ctx, err)
						}
						g.fail(err)
						return
					}
					if !c.push(ev, emit) || g.done {
						// The client stopped, or the run ended: stop the
						// upstream.
						return
					}
				}
				if g.terminated {
					return
				}
				if h.Stopped() {
					// Stopped for a hand-over: the run goes on in another
					// process, which closes what is open.
					h.KeepPartOf(part, outputState{Canon: c.state(), Grammar: g.state()})
					return
				}
				if ctx.Err() != nil {
					var re *RunFailure
					if errors.As(context.Cause(ctx), &re) {
						g.fail(re)
					}
					return
				}
				report(RepairMissingTerminal)
				g.fail(&RunFailure{Code: CodeUpstreamTruncated, Message: "upstream agent ended the stream without RUN_FINISHED or RUN_ERROR"})
			}
		})
	}
}

// part is the name of mode's hand-over part (a chain has one Normalize
// of each mode).
func (m NormalizeMode) part() string {
	if m == Output {
		return "normalize.output"
	}
	return "normalize.canonical"
}

// canonState is a canon's state, carried by a hand-over.
type canonState struct {
	N           int    `json:"n,omitempty"`
	TextChunk   string `json:"textChunk,omitempty"`
	ToolChunk   string `json:"toolChunk,omitempty"`
	ReasonChunk string `json:"reasonChunk,omitempty"`
	ThinkSpan   string `json:"thinkSpan,omitempty"`
	ThinkMsg    string `json:"thinkMsg,omitempty"`
}

func (c *canon) state() canonState {
	return canonState{N: c.n, TextChunk: c.textChunk, ToolChunk: c.toolChunk, ReasonChunk: c.reasonChunk, ThinkSpan: c.thinkSpan, ThinkMsg: c.thinkMsg}
}

func (c *canon) restore(st canonState) {
	c.n, c.textChunk, c.toolChunk, c.reasonChunk, c.thinkSpan, c.thinkMsg = st.N, st.TextChunk, st.ToolChunk, st.ReasonChunk, st.ThinkSpan, st.ThinkMsg
}

// outputState is Output mode's state, carried by a hand-over: its canon's
// and its grammar's.
type outputState struct {
	Canon   canonState   `json:"canon"`
	Grammar grammarState `json:"grammar"`
}

// grammarState is a grammar's state: whether the upstream started its
// run, the id counter and what is open, in order.
type grammarState struct {
	UpstreamStarted bool     `json:"upstreamStarted,omitempty"`
	N               int      `json:"n,omitempty"`
	Text            []string `json:"text,omitempty"`
	Tools           []string `json:"tools,omitempty"`
	Steps           []string `json:"steps,omitempty"`
	ReasonMsgs      []string `json:"reasonMsgs,omitempty"`
	ReasonSpans     []string `json:"reasonSpans,omitempty"`
}

func (g *grammar) state() grammarState {
	return grammarState{UpstreamStarted: g.upstreamStarted, N: g.n, Text: g.text.order, Tools: g.tools.order,
		Steps: g.steps.order, ReasonMsgs: g.reasonMsgs.order, ReasonSpans: g.reasonSpans.order}
}

func (g *grammar) restore(st grammarState) {
	g.upstreamStarted, g.n = st.UpstreamStarted, st.N
	for _, s := range []struct {
		set *openSet
		ids []string
	}{{&g.text, st.Text}, {&g.tools, st.Tools}, {&g.steps, st.Steps}, {&g.reasonMsgs, st.ReasonMsgs}, {&g.reasonSpans, st.ReasonSpans}} {
		for _, id := range s.ids {
			if !s.set.has(id) {
				s.set.add(id)
			}
		}
	}
}

// canon expands chunks and THINKING_* events and drops unknown types.
type canon struct {
	runID  string
	report func(string)
	n      int

	textChunk, toolChunk, reasonChunk string // ids of open chunk streams
	thinkSpan, thinkMsg               string
}

func (c *canon) id(kind string) string {
	c.n++
	return c.runID + "-" + kind + "-" + strconv.Itoa(c.n)
}

func (c *canon) closeChunks(emit func(Event) bool) bool {
	if c.textChunk != "" {
		id := c.textChunk
		c.textChunk = ""
		if !emit(&TextMessageEnd{MessageID: id}) {
			return false
		}
	}
	if c.toolChunk != "" {
		id := c.toolChunk
		c.toolChunk = ""
		if !emit(&ToolCallEnd{ToolCallID: id}) {
			return false
		}
	}
	if c.reasonChunk != "" {
		id := c.reasonChunk
		c.reasonChunk = ""
		if !emit(&ReasoningMessageEnd{MessageID: id}) {
			return false
		}
	}
	return true
}

// push canonicalises one event, emitting zero or more events. It returns
// false when emit did.
func (c *canon) push(ev Event, emit func(Event) bool) bool {
	switch e := ev.(type) {
	case *Unknown:
		c.report(RepairUnknownEvent)
		return true
	case *TextMessageChunk:
		return c.expandChunk(&c.textChunk, e.MessageID, e.Delta, true,
			func(id string) Event {
				return &TextMessageStart{Base: e.Base, MessageID: id, Role: e.Role, Name: e.Name}
			},
			func(id string) Event { return &TextMessageContent{Base: e.Base, MessageID: id, Delta: e.Delta} },
			emit)
	case *ToolCallChunk:
		// A new call needs its name.
		return c.expandChunk(&c.toolChunk, e.ToolCallID, e.Delta, e.ToolCallName != "",
			func(id string) Event {
				return &ToolCallStart{Base: e.Base, ToolCallID: id, ToolCallName: e.ToolCallName, ParentMessageID: e.ParentMessageID}
			},
			func(id string) Event { return &ToolCallArgs{Base: e.Base, ToolCallID: id, Delta: e.Delta} },
			emit)
	case *ReasoningMessageChunk:
		return c.expandChunk(&c.reasonChunk, e.MessageID, e.Delta, true,
			func(id string) Event { return &ReasoningMessageStart{Base: e.Base, MessageID: id, Role: "reasoning"} },
			func(id string) Event { return &ReasoningMessageContent{Base: e.Base, MessageID: id, Delta: e.Delta} },
			emit)
	case *ThinkingStart:
		c.report(RepairThinkingToReason)
		if c.thinkSpan != "" {
			return true
		}
		c.thinkSpan = c.id("reasoning")
		return emit(&ReasoningStart{Base: e.Base, MessageID: c.thinkSpan})
	case *ThinkingTextMessageStart:
		c.report(RepairThinkingToReason)
		if c.thinkSpan == "" {
			c.thinkSpan = c.id("reasoning")
			if !emit(&ReasoningStart{MessageID: c.thinkSpan}) {
				return false
			}
		}
		if c.thinkMsg != "" {
			return true
		}
		c.thinkMsg = c.id("reasoning-message")
		return emit(&ReasoningMessageStart{Base: e.Base, MessageID: c.thinkMsg, Role: "reasoning"})
	case *ThinkingTextMessageContent:
		c.report(RepairThinkingToReason)
		if c.thinkMsg == "" {
			if !c.push(&ThinkingTextMessageStart{}, emit) {
				return false
			}
		}
		return emit(&ReasoningMessageContent{Base: e.Base, MessageID: c.thinkMsg, Delta: e.Delta})
	case *ThinkingTextMessageEnd:
		c.report(RepairThinkingToReason)
		if c.thinkMsg == "" {
			return true
		}
		id := c.thinkMsg
		c.thinkMsg = ""
		return emit(&ReasoningMessageEnd{Base: e.Base, MessageID: id})
	case *ThinkingEnd:
		c.report(RepairThinkingToReason)
		if c.thinkMsg != "" {
			id := c.thinkMsg
			c.thinkMsg = ""
			if !emit(&ReasoningMessageEnd{MessageID: id}) {
				return false
			}
		}
		if c.thinkSpan == "" {
			return true
		}
		id := c.thinkSpan
		c.thinkSpan = ""
		return emit(&ReasoningEnd{Base: e.Base, MessageID: id})
	case *RunStarted, *RunFinished, *RunError, *MessagesSnapshot:
		if !c.closeChunks(emit) {
			return false
		}
	case *TextMessageStart:
		c.adopt(&c.textChunk, e.MessageID)
	case *TextMessageContent:
		c.adopt(&c.textChunk, e.MessageID)
	case *TextMessageEnd:
		c.adopt(&c.textChunk, e.MessageID)
	case *ToolCallStart:
		c.adopt(&c.toolChunk, e.ToolCallID)
	case *ToolCallArgs:
		c.adopt(&c.toolChunk, e.ToolCallID)
	case *ToolCallEnd:
		c.adopt(&c.toolChunk, e.ToolCallID)
	case *ReasoningMessageStart:
		c.adopt(&c.reasonChunk, e.MessageID)
	case *ReasoningMessageContent:
		c.adopt(&c.reasonChunk, e.MessageID)
	case *ReasoningMessageEnd:
		c.adopt(&c.reasonChunk, e.MessageID)
	case *ToolCallResult:
		// The result of a chunk-streamed call ends the call.
		if e.ToolCallID != "" && e.ToolCallID == c.toolChunk {
			c.toolChunk = ""
			if !emit(&ToolCallEnd{ToolCallID: e.ToolCallID}) {
				return false
			}
		}
	case *ReasoningEnd:
		// A span ends after the message streamed inside it.
		if c.reasonChunk != "" {
			id := c.reasonChunk
			c.reasonChunk = ""
			if !emit(&ReasoningMessageEnd{MessageID: id}) {
				return false
			}
		}
	}
	return emit(ev)
}

// expandChunk turns one *_CHUNK event into the START and CONTENT events
// it stands for. open is the id of the open chunk stream of its kind; an
// empty id continues it. Another id closes every open chunk stream and
// starts its own with start, if it can (startable: a tool call chunk
// needs a name to start a call); a chunk with no stream to continue or
// start is dropped as invalid. A non-empty delta becomes content. It
// returns false when emit did.
func (c *canon) expandChunk(open *string, id, delta string, startable bool, start, content func(id string) Event, emit func(Event) bool) bool {
	c.report(RepairChunkExpanded)
	if id == "" {
		id = *open
	}
	if id == "" || (*open != id && !startable) {
		c.report(RepairInvalidEvent)
		return true
	}
	if *open != id {
		if !c.closeChunks(emit) || !emit(start(id)) {
			return false
		}
		*open = id
	}
	if delta != "" {
		return emit(content(id))
	}
	return true
}

// adopt forgets a chunk stream once explicit events for the same id take
// over; the grammar closes it later if nobody does.
func (c *canon) adopt(open *string, id string) {
	if *open == id {
		*open = ""
	}
}

// grammar enforces the client-side ordering rules on canonical events.
type grammar struct {
	in     *RunAgentInput
	report func(string)
	failed func(context.Context, error) // the cause of an agent's failure that fail ends the run with
	yield  func(Event, error) bool

	upstreamStarted, terminated, done bool // RUN_STARTED itself is always announced first
	n                                 int

	text, tools, steps, reasonMsgs, reasonSpans openSet
}

// openSet is a set of open ids that remembers their order.
type openSet struct {
	order []string
	m     map[string]bool
}

func (s *openSet) has(id string) bool {
	if len(s.order) <= 8 {
		// Few are open at once (usually one): comparing beats hashing,
		// once per event.
		for _, x := range s.order {
			if x == id {
				return true
			}
		}
		return false
	}
	return s.m[id]
}
func (s *openSet) add(id string) {
	if s.m == nil {
		s.m = map[string]bool{}
	}
	s.m[id] = true
	s.order = append(s.order, id)
}
func (s *openSet) remove(id string) {
	delete(s.m, id)
	for i, x := range s.order {
		if x == id {
			s.order = append(s.order[:i], s.order[i+1:]...)
			break
		}
	}
}

// drain returns the open ids, newest first, and empties the set.
func (s *openSet) drain() []string {
	out := make([]string, 0, len(s.order))
	for i := len(s.order) - 1; i >= 0; i-- {
		out = append(out, s.order[i])
	}
	s.order, s.m = nil, nil
	return out
}

func (g *grammar) out(ev Event) bool {
	if g.done {
		return false
	}
	if !g.yield(ev, nil) {
		g.done = true
		return false
	}
	return true
}

// announce sends RUN_STARTED before the upstream has said anything.
func (g *grammar) announce() bool {
	return g.out(&RunStarted{ThreadID: g.in.ThreadID, RunID: g.in.RunID, ParentRunID: g.in.ParentRunID})
}

// unstarted notes an upstream event that is not RUN_STARTED: if the
// upstream has not started its run, that is a repair.
func (g *grammar) unstarted() {
	if !g.upstreamStarted {
		g.upstreamStarted = true
		g.report(RepairMissingRunStarted)
	}
}

// fail ends the run with err as RUN_ERROR.
func (g *grammar) fail(err error) {
	if g.terminated {
		return
	}
	g.report(RepairUpstreamError)
	g.terminated = true
	g.out(AsRunError(err))
}

func (g *grammar) drop(kind string) bool {
	g.report(kind)
	return true
}

func isObject(j JSON) bool { return len(j) > 0 && j[0] == '{' }
func isArray(j JSON) bool  { return len(j) > 0 && j[0] == '[' }

// push applies the rules to one canonical event. It returns false when the
// client has gone away or the run has ended.
func (g *grammar) push(ev Event) bool {
	if g.done {
		return false
	}
	if g.terminated {
		g.report(RepairAfterTerminal)
		return false
	}
	if b := ev.base(); b.SubagentRunID != "" {
		if _, ok := ev.(*SubagentStarted); !ok {
			if _, ok := ev.(*SubagentFinished); !ok {
				if _, ok := ev.(*SubagentError); !ok {
					b.SubagentRunID = ""
					g.report(RepairSubagentAttributed)
				}
			}
		}
	}
	switch e := ev.(type) {
	case *RunStarted: // merged into the RUN_STARTED announced
		if g.upstreamStarted {
			return g.drop(RepairDuplicateStart)
		}
		g.upstreamStarted = true
		if e.ThreadID != g.in.ThreadID || e.RunID != g.in.RunID {
			g.report(RepairRunIDs)
		}
		if e.Input != nil {
			g.report(RepairRunInputDropped)
		}
		return true
	case *RunError:
		g.unstarted()
		if e.Message == "" {
			e.Message = "the agent reported an error"
			g.report(RepairEmptyErrorMessage)
		}
		g.terminated = true
		g.out(e)
		return false
	case *RunFinished:
		g.unstarted()
		if !g.closeAll() {
			return false
		}
		if e.ThreadID != g.in.ThreadID || e.RunID != g.in.RunID {
			g.report(RepairRunIDs)
			e.ThreadID, e.RunID = g.in.ThreadID, g.in.RunID
		}
		if o := e.Outcome; o != nil {
			switch {
			case o.Type == "success" && len(o.PendingToolCallIDs) == 0 && o.Interrupts == nil:
			case o.Type == "interrupt" && len(o.Interrupts) > 0 && o.PendingToolCallIDs == nil:
			default:
				// 0.0.59 rejects "cancelled"; 0.0.5x rejects anything it
				// does not know. Keep what happened in metadata.
				g.report(RepairOutcomeDowngraded)
				if o.Type == "interrupt" && len(o.Interrupts) > 0 {
					o.PendingToolCallIDs = nil
				} else {
					e.Metadata = withOutcome(e.Metadata, o)
					e.Outcome = nil
				}
			}
		}
		g.terminated = true
		g.out(e)
		return false
	}
	g.unstarted()
	switch e := ev.(type) {
	case *StepStarted:
		if e.StepName == "" {
			return g.drop(RepairInvalidEvent)
		}
		if g.steps.has(e.StepName) {
			return g.drop(RepairDuplicateStart)
		}
		g.steps.add(e.StepName)
	case *StepFinished:
		if !g.steps.has(e.StepName) {
			return g.drop(RepairOrphanEvent)
		}
		g.steps.remove(e.StepName)
	case *TextMessageStart:
		if e.MessageID == "" {
			return g.drop(RepairInvalidEvent)
		}
		if g.text.has(e.MessageID) {
			return g.drop(RepairDuplicateStart)
		}
		switch e.Role {
		case "", "assistant", "user", "system", "developer":
		default:
			e.Role = ""
			g.report(RepairRoleDropped)
		}
		g.text.add(e.MessageID)
	case *TextMessageContent:
		if e.MessageID == "" {
			return g.drop(RepairInvalidEvent)
		}
		if !g.text.has(e.MessageID) {
			g.report(RepairOrphanEvent)
			// Kept for the message's life: a copy, not a piece of the
			// delta's arena block (see arena).
			id := strings.Clone(e.MessageID)
			g.text.add(id)
			if !g.out(&TextMessageStart{MessageID: id, Role: "assistant"}) {
				return false
			}
		}
	case *TextMessageEnd:
		if !g.text.has(e.MessageID) {
			return g.drop(RepairOrphanEvent)
		}
		g.text.remove(e.MessageID)
	case *ToolCallStart:
		if e.ToolCallID == "" || e.ToolCallName == "" {
			return g.drop(RepairInvalidEvent)
		}
		if g.tools.has(e.ToolCallID) {
			return g.drop(RepairDuplicateStart)
		}
		g.tools.add(e.ToolCallID)
	case *ToolCallArgs:
		if !g.tools.has(e.ToolCallID) {
			return g.drop(RepairOrphanEvent)
		}
	case *ToolCallEnd:
		if !g.tools.has(e.ToolCallID) {
			return g.drop(RepairOrphanEvent)
		}
		g.tools.remove(e.ToolCallID)
	case *ToolCallResult:
		if e.ToolCallID == "" {
			return g.drop(RepairInvalidEvent)
		}
		if e.MessageID == "" {
			e.MessageID = g.newID("tool-result")
			g.report(RepairSynthesizedID)
		}
		if e.Role != "" && e.Role != "tool" {
			e.Role = ""
			g.report(RepairRoleDropped)
		}
	case *StateSnapshot:
		if e.Snapshot == nil {
			e.Snapshot = JSON("{}")
			g.report(RepairInvalidEvent)
		}
	case *StateDelta:
		if !isArray(e.Delta) {
			return g.drop(RepairInvalidEvent)
		}
	case *MessagesSnapshot:
		if e.Messages == nil {
			e.Messages = []Message{}
		}
	case *ActivitySnapshot:
		if e.MessageID == "" || e.ActivityType == "" || !isObject(e.Content) {
			return g.drop(RepairInvalidEvent)
		}
	case *ActivityDelta:
		if e.MessageID == "" || e.ActivityType == "" || !isArray(e.Patch) {
			return g.drop(RepairInvalidEvent)
		}
	case *Custom:
		if e.Name == "" {
			return g.drop(RepairInvalidEvent)
		}
	case *Raw:
		if e.Event == nil {
			e.Event = JSON("{}")
		}
	case *ReasoningStart:
		if e.MessageID == "" {
			return g.drop(RepairInvalidEvent)
		}
		if g.reasonSpans.has(e.MessageID) {
			return g.drop(RepairDuplicateStart)
		}
		g.reasonSpans.add(e.MessageID)
	case *ReasoningEnd:
		if !g.reasonSpans.has(e.MessageID) {
			return g.drop(RepairOrphanEvent)
		}
		for _, id := range g.reasonMsgs.drain() {
			g.report(RepairClosedOpen)
			if !g.out(&ReasoningMessageEnd{MessageID: id}) {
				return false
			}
		}
		g.reasonSpans.remove(e.MessageID)
	case *ReasoningMessageStart:
		if e.MessageID == "" {
			return g.drop(RepairInvalidEvent)
		}
		if g.reasonMsgs.has(e.MessageID) {
			return g.drop(RepairDuplicateStart)
		}
		e.Role = "reasoning"
		g.reasonMsgs.add(e.MessageID)
	case *ReasoningMessageContent:
		if e.MessageID == "" {
			return g.drop(RepairInvalidEvent)
		}
		if !g.reasonMsgs.has(e.MessageID) {
			g.report(RepairOrphanEvent)
			id := strings.Clone(e.MessageID) // as for text, above
			g.reasonMsgs.add(id)
			if !g.out(&ReasoningMessageStart{MessageID: id, Role: "reasoning"}) {
				return false
			}
		}
	case *ReasoningMessageEnd:
		if !g.reasonMsgs.has(e.MessageID) {
			return g.drop(RepairOrphanEvent)
		}
		g.reasonMsgs.remove(e.MessageID)
	case *ReasoningEncryptedValue:
		if e.EntityID == "" || (e.Subtype != "tool-call" && e.Subtype != "message") {
			return g.drop(RepairInvalidEvent)
		}
	case *SubagentStarted, *SubagentFinished, *SubagentError:
		// 0.0.57 clients abort the whole run on SUBAGENT_*: carry it as
		// CUSTOM instead, losing nothing.
		g.report(RepairSubagentFlattened)
		val, _ := ev.MarshalJSON()
		b := ev.base()
		return g.out(&Custom{Base: Base{Timestamp: b.Timestamp}, Name: string(ev.Type()), Value: JSON(val)})
	case *Unknown, *TextMessageChunk, *ToolCallChunk, *ReasoningMessageChunk,
		*ThinkingStart, *ThinkingEnd, *ThinkingTextMessageStart, *ThinkingTextMessageContent, *ThinkingTextMessageEnd:
		// canon never lets these through.
		return g.drop(RepairUnknownEvent)
	}
	return g.out(ev)
}

func (g *grammar) newID(kind string) string {
	g.n++
	return g.in.RunID + "-" + kind + "-" + strconv.Itoa(g.n)
}

// closeAll closes everything still open, innermost kinds first.
func (g *grammar) closeAll() bool {
	for _, id := range g.tools.drain() {
		g.report(RepairClosedOpen)
		if !g.out(&ToolCallEnd{ToolCallID: id}) {
			return false
		}
	}
	for _, id := range g.text.drain() {
		g.report(RepairClosedOpen)
		if !g.out(&TextMessageEnd{MessageID: id}) {
			return false
		}
	}
	for _, id := range g.reasonMsgs.drain() {
		g.report(RepairClosedOpen)
		if !g.out(&ReasoningMessageEnd{MessageID: id}) {
			return false
		}
	}
	for _, id := range g.reasonSpans.drain() {
		g.report(RepairClosedOpen)
		if !g.out(&ReasoningEnd{MessageID: id}) {
			return false
		}
	}
	for _, name := range g.steps.drain() {
		g.report(RepairClosedOpen)
		if !g.out(&StepFinished{StepName: name}) {
			return false
		}
	}
	return true
}

// withOutcome records an outcome old clients cannot read in the event's
// metadata under "genui-adapter".
func withOutcome(meta JSON, o *Outcome) JSON {
	m := map[string]json.RawMessage{}
	if isObject(meta) {
		_ = json.Unmarshal(meta, &m)
	}
	ob, _ := json.Marshal(o)
	nb, _ := json.Marshal(map[string]json.RawMessage{"outcome": ob})
	m["genui-adapter"] = nb
	b, _ := json.Marshal(m)
	return JSON(b)
}
