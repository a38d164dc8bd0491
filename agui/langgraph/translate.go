package langgraph

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/genui-adapter/genui-adapter/agui"
)

// CodeGraphError is the RUN_ERROR code of a run the LangGraph server
// failed (a node raised, the server could not run the graph): the
// message is the server's.
const CodeGraphError = "langgraph_error"

var errStop = errors.New("client stopped")

// errSubgraphsRefused is a run that failed before the graph streamed
// anything while subgraph streaming was asked for: a server that cannot
// stream subgraphs fails that way.
var errSubgraphsRefused = errors.New("the LangGraph server failed the run asked for subgraph streaming")

// translator turns a LangGraph run stream into AG-UI events.
type translator struct {
	in    *agui.RunAgentInput
	yield func(agui.Event, error) bool

	runID, lastID string
	prevID        string // the id of the frames before lastID's
	ended         bool
	subgraphs     bool // the run asked for subgraph streaming
	seen          bool // the graph streamed something
	node          string
	text          string          // open text message id
	textSent      map[string]bool // ids whose text was streamed
	calls         map[string]bool // tool calls started
	openCalls     []string        // tool calls not yet ended, in order
	chunkCalls    map[int]string  // tool_call_chunks index -> id, per message
	chunkMsg      string
	interrupts    []json.RawMessage
	interruptIDs  map[string]bool
	lastState     string
	snapshot      bool            // send MESSAGES_SNAPSHOT at the end
	keys          map[string]bool // the state keys a snapshot shows (nil: all)
	lastMessages  json.RawMessage // the root graph's last values.messages
	reasoning     string          // open reasoning message id
	hidden        map[string]bool // tool calls not emitted (copilotkit:emit-tool-calls false)
	predicting    map[string]*predicted
	expose        bool // an error event's text reaches the client (Agent.ExposeErrors)
	handover      *agui.Handover
	kept          bool            // stopped for a hand-over: the LangGraph run goes on
	repeats       bool            // the stream may repeat frames (rejoined, or resumed from before lastID)
	frames        int             // frames with an id translated
	dropped       int             // frames dropped as repeats
	skipThrough   string          // a rejoined stream's frames up to this id are repeats
	sameID        map[uint64]bool // hashes of the frames translated with id lastID ("<ms>-<seq>" ids)
}

// emitOpts are the CopilotKit emit settings a chat model call carries in
// its metadata (copilotkitCustomizeConfig in @copilotkit/sdk-js and the
// Python copilotkit package), and LangGraph's own predict_state.
type emitOpts struct {
	noMessages, noToolCalls bool
	predict                 agui.JSON // [{tool, tool_argument, state_key}]
}

func (o emitOpts) predicts(tool string) bool {
	if o.predict == nil {
		return false
	}
	var list []struct {
		Tool string `json:"tool"`
	}
	_ = json.Unmarshal(o.predict, &list)
	for _, p := range list {
		if p.Tool == tool {
			return true
		}
	}
	return false
}

func (t *translator) out(ev agui.Event) bool { return t.yield(ev, nil) }

type lcMessage struct {
	ID               string          `json:"id"`
	Type             string          `json:"type"`
	Content          json.RawMessage `json:"content"`
	ToolCallID       string          `json:"tool_call_id"`
	ToolCalls        []lcToolCall    `json:"tool_calls"`
	ToolCallChunks   []lcChunk       `json:"tool_call_chunks"`
	AdditionalKwargs struct {
		ReasoningContent string `json:"reasoning_content"`
		Reasoning        struct {
			Summary []struct {
				Text string `json:"text"`
			} `json:"summary"`
		} `json:"reasoning"`
	} `json:"additional_kwargs"`
}

// reasoningOf reads the reasoning a chunk streams, in the shapes
// @ag-ui/langgraph reads: Anthropic "thinking" blocks, OpenAI "reasoning"
// blocks (text or summary), Bedrock "reasoning_content" blocks, and
// additional_kwargs.reasoning(_content).
func reasoningOf(m lcMessage) string {
	var parts []struct {
		Type      string `json:"type"`
		Thinking  string `json:"thinking"`
		Reasoning string `json:"reasoning"`
		Summary   []struct {
			Text string `json:"text"`
		} `json:"summary"`
		ReasoningContent struct {
			Text string `json:"text"`
		} `json:"reasoning_content"`
	}
	var b strings.Builder
	if json.Unmarshal(m.Content, &parts) == nil {
		for _, p := range parts {
			switch p.Type {
			case "thinking":
				b.WriteString(p.Thinking)
			case "reasoning":
				b.WriteString(p.Reasoning)
				for _, s := range p.Summary {
					b.WriteString(s.Text)
				}
			case "reasoning_content":
				b.WriteString(p.ReasoningContent.Text)
			}
		}
	}
	if b.Len() == 0 {
		for _, s := range m.AdditionalKwargs.Reasoning.Summary {
			b.WriteString(s.Text)
		}
		b.WriteString(m.AdditionalKwargs.ReasoningContent)
	}
	return b.String()
}

type lcToolCall struct {
	ID   string          `json:"id"`
	Name string          `json:"name"`
	Args json.RawMessage `json:"args"`
}

type lcChunk struct {
	ID    string `json:"id"`
	Name  string `json:"name"`
	Args  string `json:"args"`
	Index int    `json:"index"`
}

// textOf reads LangChain content: a string, or a list of parts.
func textOf(raw json.RawMessage) string {
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s
	}
	var parts []struct {
		Type string `json:"type"`
		Text string `json:"text"`
	}
	if json.Unmarshal(raw, &parts) == nil {
		var b strings.Builder
		for _, p := range parts {
			if p.Type == "text" {
				b.WriteString(p.Text)
			}
		}
		return b.String()
	}
	return ""
}

// closeReasoning ends an open reasoning message.
func (t *translator) closeReasoning() bool {
	if t.reasoning == "" {
		return true
	}
	id := t.reasoning
	t.reasoning = ""
	return t.out(&agui.ReasoningMessageEnd{MessageID: id}) && t.out(&agui.ReasoningEnd{MessageID: id})
}

// reason streams reasoning of the AI message msgID.
func (t *translator) reason(msgID, delta string) bool {
	id := msgID + "-reasoning"
	if t.reasoning != id {
		if !t.closeReasoning() || !t.closeText() {
			return false
		}
		t.reasoning = id
		if !t.out(&agui.ReasoningStart{MessageID: id}) || !t.out(&agui.ReasoningMessageStart{MessageID: id, Role: "reasoning"}) {
			return false
		}
	}
	return t.out(&agui.ReasoningMessageContent{MessageID: id, Delta: delta})
}

func (t *translator) closeText() bool {
	if !t.closeReasoning() {
		return false
	}
	if t.text == "" {
		return true
	}
	id := t.text
	t.text = ""
	return t.out(&agui.TextMessageEnd{MessageID: id})
}

func (t *translator) closeCalls() bool {
	for _, id := range t.openCalls {
		if !t.predicted(id) || !t.out(&agui.ToolCallEnd{ToolCallID: id}) {
			return false
		}
	}
	t.openCalls = nil
	t.chunkCalls, t.chunkMsg = nil, ""
	return true
}

// predicted sends the last prediction of a call's arguments as it ends.
func (t *translator) predicted(id string) bool {
	p := t.predicting[id]
	if p == nil {
		return true
	}
	delete(t.predicting, id)
	if d := p.add("", true); d != nil {
		return t.out(d)
	}
	return true
}

func (t *translator) endCall(id string) bool {
	for i, x := range t.openCalls {
		if x == id {
			t.openCalls = append(t.openCalls[:i], t.openCalls[i+1:]...)
			return t.predicted(id) && t.out(&agui.ToolCallEnd{ToolCallID: id})
		}
	}
	return true
}

func (t *translator) step(node string) bool {
	if node == "" || node == t.node {
		return true
	}
	if !t.closeText() || !t.closeCalls() {
		return false
	}
	if t.node != "" && !t.out(&agui.StepFinished{StepName: t.node}) {
		return false
	}
	t.node = node
	return t.out(&agui.StepStarted{StepName: node})
}

// message handles one messages-tuple item.
// streamed is true for chunks a chat model streamed (type "ai" in
// messages-tuple mode, tagged ls_integration "langchain_chat_model"); a
// node's own output arrives whole.
func (t *translator) message(m lcMessage, node string, streamed bool, o emitOpts) bool {
	if !t.step(node) {
		return false
	}
	if t.textSent == nil {
		t.textSent, t.calls, t.hidden = map[string]bool{}, map[string]bool{}, map[string]bool{}
	}
	switch m.Type {
	case "tool", "ToolMessageChunk", "ToolMessage":
		if !t.closeText() || !t.endCall(m.ToolCallID) {
			return false
		}
		content := textOf(m.Content)
		if content == "" && len(m.Content) > 0 && m.Content[0] != '"' {
			content = string(m.Content)
		}
		return t.out(&agui.ToolCallResult{MessageID: m.ID, ToolCallID: m.ToolCallID, Content: content, Role: "tool"})
	case "ai", "AIMessageChunk", "AIMessage":
	default:
		return true
	}
	chunk := streamed || m.Type == "AIMessageChunk"
	if !chunk && t.textSent[m.ID] {
		return true // the full message after its chunks
	}
	if o.noMessages {
		// copilotkit:emit-messages false: not streamed (the message is in
		// the snapshot at the end).
		t.textSent[m.ID] = true
		if o.noToolCalls || len(m.ToolCallChunks) == 0 && len(m.ToolCalls) == 0 {
			return true
		}
	}
	if chunk && !o.noMessages {
		if r := reasoningOf(m); r != "" {
			if !t.reason(m.ID, r) {
				return false
			}
		}
	}
	if txt := textOf(m.Content); txt != "" && !o.noMessages {
		if t.text != m.ID {
			if !t.closeText() || !t.closeCalls() {
				return false
			}
			t.text = m.ID
			if !t.out(&agui.TextMessageStart{MessageID: m.ID, Role: "assistant"}) {
				return false
			}
		}
		t.textSent[m.ID] = true
		if !t.out(&agui.TextMessageContent{MessageID: m.ID, Delta: txt}) {
			return false
		}
	}
	if chunk {
		if t.chunkMsg != m.ID {
			t.chunkCalls, t.chunkMsg = map[int]string{}, m.ID
		}
		for _, c := range m.ToolCallChunks {
			id := t.chunkCalls[c.Index]
			if id == "" && c.ID != "" && c.Name != "" {
				id = c.ID
				t.chunkCalls[c.Index] = id
				if !t.closeText() {
					return false
				}
				t.calls[id] = true
				if o.noToolCalls {
					t.hidden[id] = true
					continue
				}
				if o.predicts(c.Name) {
					if !t.out(&agui.Custom{Name: "PredictState", Value: o.predict}) {
						return false
					}
					if p := newPredicted(o.predict, c.Name); p != nil {
						if t.predicting == nil {
							t.predicting = map[string]*predicted{}
						}
						t.predicting[id] = p
					}
				}
				t.openCalls = append(t.openCalls, id)
				if !t.out(&agui.ToolCallStart{ToolCallID: id, ToolCallName: c.Name, ParentMessageID: m.ID}) {
					return false
				}
			}
			if t.hidden[id] {
				continue
			}
			if id != "" && c.Args != "" && !t.out(&agui.ToolCallArgs{ToolCallID: id, Delta: c.Args}) {
				return false
			}
			if p := t.predicting[id]; p != nil && c.Args != "" {
				if d := p.add(c.Args, false); d != nil && !t.out(d) {
					return false
				}
			}
		}
		return true
	}
	// A whole AI message: its tool calls in one go (several in one
	// message are several calls).
	if !t.closeText() {
		return false
	}
	for _, c := range m.ToolCalls {
		if t.calls[c.ID] {
			continue
		}
		t.calls[c.ID] = true
		if o.noToolCalls {
			continue
		}
		args := compactJSON(c.Args)
		if args == "" || args == "null" {
			args = "{}"
		}
		if !t.out(&agui.ToolCallStart{ToolCallID: c.ID, ToolCallName: c.Name, ParentMessageID: m.ID}) ||
			!t.out(&agui.ToolCallArgs{ToolCallID: c.ID, Delta: args}) ||
			!t.out(&agui.ToolCallEnd{ToolCallID: c.ID}) {
			return false
		}
	}
	return true
}

// consume reads frames until the stream ends. done is true when the run
// ended (end event, or an error the client was told about). A stream that
// closes cleanly without an end event (the Agent Server's usual way) gives
// (false, nil): the caller asks the server how the run ended.
func (t *translator) consume(r io.Reader, max int) (done bool, err error) {
	for f, err := range agui.ScanFrames(r, max) {
		if err != nil {
			return false, err
		}
		if t.repeats && t.repeated(f) {
			t.dropped++
			continue
		}
		if t.runID != "" && f.ID != t.lastID && t.handover.Ready() {
			// A frame boundary where the id changes (langgraph dev gives
			// the frames of one millisecond one id, and replays those
			// after Last-Event-ID): this frame is the rejoin's first.
			return false, errHandover
		}
		if f.ID != "" {
			t.frames++
			if f.ID != t.lastID {
				clear(t.sameID)
				t.prevID = t.lastID
			}
			t.lastID = f.ID
			if _, _, ok := msSeq(f.ID); ok {
				if t.sameID == nil {
					t.sameID = map[uint64]bool{}
				}
				t.sameID[frameHash(f)] = true
			}
		}
		name, ns, _ := strings.Cut(f.Event, "|") // subgraph events: "values|outer:<id>|inner:<id>"
		switch name {
		case "messages", "updates", "values", "custom", "checkpoints":
			t.seen = true
		}
		switch name {
		case "metadata":
			var m struct {
				RunID string `json:"run_id"`
			}
			if json.Unmarshal(f.Data, &m) == nil && m.RunID != "" {
				t.runID = m.RunID
			}
		case "messages":
			var tuple []json.RawMessage
			if json.Unmarshal(f.Data, &tuple) != nil || len(tuple) == 0 {
				continue
			}
			var m lcMessage
			var meta struct {
				Node          string          `json:"langgraph_node"`
				Integration   string          `json:"ls_integration"`
				EmitMessages  *bool           `json:"copilotkit:emit-messages"`
				EmitToolCalls *bool           `json:"copilotkit:emit-tool-calls"`
				EmitState     json.RawMessage `json:"copilotkit:emit-intermediate-state"`
				PredictState  json.RawMessage `json:"predict_state"`
			}
			_ = json.Unmarshal(tuple[0], &m)
			if len(tuple) > 1 {
				_ = json.Unmarshal(tuple[1], &meta)
			}
			o := emitOpts{noMessages: meta.EmitMessages != nil && !*meta.EmitMessages, noToolCalls: meta.EmitToolCalls != nil && !*meta.EmitToolCalls}
			for _, p := range []json.RawMessage{meta.EmitState, meta.PredictState} {
				if len(p) > 0 && p[0] == '[' {
					o.predict = agui.JSON(p)
				}
			}
			if !t.message(m, nodePath(ns, meta.Node), meta.Integration == "langchain_chat_model", o) {
				return true, errStop
			}
		case "events":
			if !t.customEvent(f.Data) {
				return true, errStop
			}
		case "updates":
			var u map[string]json.RawMessage
			if json.Unmarshal(f.Data, &u) != nil {
				continue
			}
			if ir, ok := u["__interrupt__"]; ok {
				var list []json.RawMessage
				if json.Unmarshal(ir, &list) == nil {
					t.addInterrupts(list)
				}
			}
		case "values":
			if ns != "" {
				continue // a subgraph's own state; the root's is the run's
			}
			var v map[string]json.RawMessage
			if json.Unmarshal(f.Data, &v) != nil {
				continue
			}
			if m, ok := v["messages"]; ok {
				t.lastMessages = m
			}
			if len(shown(v, t.keys)) == 0 {
				continue
			}
			b, _ := json.Marshal(v)
			if string(b) == t.lastState {
				continue
			}
			t.lastState = string(b)
			if !t.out(&agui.StateSnapshot{Snapshot: agui.JSON(b)}) {
				return true, errStop
			}
		case "custom":
			v := append([]byte(nil), f.Data...)
			if !json.Valid(v) { // a writer may send plain text
				v, _ = json.Marshal(string(f.Data))
			}
			if !t.out(&agui.Custom{Name: "custom", Value: agui.JSON(v)}) {
				return true, errStop
			}
		case "error":
			var e struct {
				Error   string `json:"error"`
				Message string `json:"message"`
			}
			_ = json.Unmarshal(f.Data, &e)
			msg := e.Message
			if msg == "" {
				msg = e.Error
			}
			if msg == "" {
				msg = "the LangGraph run failed"
			}
			if t.subgraphs && !t.seen {
				return false, fmt.Errorf("%w: %s", errSubgraphsRefused, msg)
			}
			// An error the adapter logs (agui.Stats.Failed) and the client
			// sees as RUN_ERROR, with the server's message only when
			// upstream errors are exposed.
			t.ended = true
			if t.expose || msg == "the LangGraph run failed" {
				t.yield(nil, &agui.RunFailure{Code: CodeGraphError, Message: msg})
			} else {
				// The server's exception text: to the log, not the user.
				t.yield(nil, &agui.RunFailure{Code: CodeGraphError, Message: "the LangGraph run failed (its error is in the adapter's log)", Err: fmt.Errorf("LangGraph error event: %s", msg)})
			}
			return true, nil
		case "end":
			return t.finish(), nil
		}
	}
	return false, nil
}

// finish closes what is open and ends the run, with the interrupt when
// the graph paused.
func (t *translator) finish() bool {
	t.ended = true
	if !t.closeText() || !t.closeCalls() {
		return true
	}
	if t.node != "" && !t.out(&agui.StepFinished{StepName: t.node}) {
		return true
	}
	if t.snapshot && t.lastMessages != nil {
		// As @ag-ui/langgraph ends a run: the thread's messages, with the
		// ids LangGraph gave them (CopilotKit reconciles with these).
		if !t.out(&agui.MessagesSnapshot{Messages: aguiMessages(t.lastMessages)}) {
			return true
		}
	}
	fin := &agui.RunFinished{ThreadID: t.in.ThreadID, RunID: t.in.RunID}
	if len(t.interrupts) > 0 {
		list := make([]agui.Interrupt, 0, len(t.interrupts))
		for i, raw := range t.interrupts {
			it := aguiInterrupt(raw)
			if it.ID == "" {
				it.ID = t.in.RunID + "-interrupt-" + strconv.Itoa(i)
			}
			list = append(list, it)
			// 0.0.5x clients (and CopilotKit's useLangGraphInterrupt) read
			// the legacy event, one per interrupt as @ag-ui/langgraph
			// sends it: a string value as is, any other as JSON text.
			var v struct {
				Value json.RawMessage `json:"value"`
			}
			_ = json.Unmarshal(raw, &v)
			legacy := compactJSON(v.Value)
			if len(v.Value) > 0 && v.Value[0] == '"' {
				_ = json.Unmarshal(v.Value, &legacy)
			} else if len(v.Value) == 0 {
				legacy = "null"
			}
			s, _ := json.Marshal(legacy)
			if !t.out(&agui.Custom{Name: "on_interrupt", Value: agui.JSON(s)}) {
				return true
			}
		}
		// 1.0 clients read the outcome.
		fin.Outcome = &agui.Outcome{Type: "interrupt", Interrupts: list}
	}
	t.out(fin)
	return true
}

// aguiInterrupt is a LangGraph interrupt ({id, value, ns, resumable,
// when}) as AG-UI 1.0 names it, the way @ag-ui/langgraph maps it: reason,
// message, toolCallId, responseSchema and expiresAt from the value when it
// is an object that has them (camelCase or snake_case), a string value
// as the message, and the raw interrupt in metadata.langgraph (and the
// value in metadata.value).
func aguiInterrupt(raw json.RawMessage) agui.Interrupt {
	var lg struct {
		ID        string          `json:"id"`
		Value     json.RawMessage `json:"value"`
		NS        json.RawMessage `json:"ns"`
		Resumable json.RawMessage `json:"resumable"`
		When      json.RawMessage `json:"when"`
	}
	_ = json.Unmarshal(raw, &lg)
	if len(lg.Value) == 0 {
		lg.Value = json.RawMessage("null")
	}
	it := agui.Interrupt{ID: lg.ID, Reason: "langgraph:interrupt"}
	var str string
	var obj map[string]json.RawMessage
	if json.Unmarshal(lg.Value, &str) == nil {
		it.Message = str
	} else if json.Unmarshal(lg.Value, &obj) == nil && obj != nil {
		pick := func(keys ...string) json.RawMessage {
			for _, k := range keys {
				if v, ok := obj[k]; ok && string(v) != "null" {
					return v
				}
			}
			return nil
		}
		if r := pick("reason"); r != nil {
			_ = json.Unmarshal(r, &it.Reason)
		}
		if m := pick("message"); m != nil {
			_ = json.Unmarshal(m, &it.Message)
		}
		if c := pick("toolCallId", "tool_call_id"); c != nil {
			_ = json.Unmarshal(c, &it.ToolCallID)
		}
		if r := pick("responseSchema", "response_schema"); r != nil {
			it.ResponseSchema = agui.JSON(r)
		}
		if e := pick("expiresAt", "expires_at"); e != nil {
			it.ExpiresAt = agui.JSON(e)
		}
	}
	if it.Reason == "" {
		it.Reason = "langgraph:interrupt"
	}
	detail := map[string]json.RawMessage{"raw": lg.Value}
	for k, v := range map[string]json.RawMessage{"ns": lg.NS, "resumable": lg.Resumable, "when": lg.When} {
		if len(v) > 0 {
			detail[k] = v
		}
	}
	meta, _ := json.Marshal(map[string]any{"value": lg.Value, "langgraph": detail})
	it.Metadata = agui.JSON(meta)
	return it
}

// addInterrupts records interrupts once each (a subgraph's interrupt is
// also reported by its parent).
func (t *translator) addInterrupts(list []json.RawMessage) {
	for _, raw := range list {
		var it struct {
			ID string `json:"id"`
		}
		_ = json.Unmarshal(raw, &it)
		if it.ID != "" {
			if t.interruptIDs[it.ID] {
				continue
			}
			if t.interruptIDs == nil {
				t.interruptIDs = map[string]bool{}
			}
			t.interruptIDs[it.ID] = true
		}
		t.interrupts = append(t.interrupts, raw)
	}
}

// nodePath names a step by its node path: a subgraph's node is
// "outer/inner" (the namespace "outer:<task id>|..." without task ids).
func nodePath(ns, node string) string {
	if ns == "" || node == "" {
		return node
	}
	var b strings.Builder
	for _, seg := range strings.Split(ns, "|") {
		name, _, _ := strings.Cut(seg, ":")
		b.WriteString(name)
		b.WriteByte('/')
	}
	b.WriteString(node)
	return b.String()
}

// aguiMessages converts the graph's LangChain messages to AG-UI messages.
// An AI message's reasoning is a reasoning message before it, with the id
// its streamed reasoning had.
func aguiMessages(raw json.RawMessage) []agui.Message {
	var lms []lcMessage
	if json.Unmarshal(raw, &lms) != nil {
		return []agui.Message{}
	}
	out := make([]agui.Message, 0, len(lms))
	for _, m := range lms {
		switch m.Type {
		case "human":
			out = append(out, agui.Message{ID: m.ID, Role: agui.RoleUser, Content: agui.Text(textOf(m.Content))})
		case "system":
			out = append(out, agui.Message{ID: m.ID, Role: agui.RoleSystem, Content: agui.Text(textOf(m.Content))})
		case "ai", "AIMessageChunk":
			if r := reasoningOf(m); r != "" {
				out = append(out, agui.Message{ID: m.ID + "-reasoning", Role: agui.RoleReasoning, Content: agui.Text(r)})
			}
			am := agui.Message{ID: m.ID, Role: agui.RoleAssistant, Content: agui.Text(textOf(m.Content))}
			for _, c := range m.ToolCalls {
				args := compactJSON(c.Args)
				if args == "" || args == "null" {
					args = "{}"
				}
				am.ToolCalls = append(am.ToolCalls, agui.ToolCall{ID: c.ID, Type: "function", Function: agui.FunctionCall{Name: c.Name, Arguments: args}})
			}
			out = append(out, am)
		case "tool":
			content := textOf(m.Content)
			if content == "" && len(m.Content) > 0 && m.Content[0] != '"' {
				content = string(m.Content)
			}
			out = append(out, agui.Message{ID: m.ID, Role: agui.RoleTool, ToolCallID: m.ToolCallID, Content: agui.Text(content)})
		}
	}
	return out
}

// customEvent handles an "events" stream item: only on_custom_event is
// read, the CopilotKit helpers the way CopilotKit's runtime maps them
// (copilotkit_manually_emit_message, _tool_call, _intermediate_state,
// copilotkit_exit), any other as a CUSTOM event of its name.
func (t *translator) customEvent(data []byte) bool {
	if !bytes.Contains(data, []byte(`"on_custom_event"`)) {
		return true
	}
	t.seen = true
	var e struct {
		Event string          `json:"event"`
		Name  string          `json:"name"`
		Data  json.RawMessage `json:"data"`
	}
	if json.Unmarshal(data, &e) != nil || e.Event != "on_custom_event" || e.Name == "" {
		return true
	}
	switch e.Name {
	case "copilotkit_manually_emit_message", "manually_emit_message":
		var v struct {
			Message   string `json:"message"`
			MessageID string `json:"message_id"`
		}
		if json.Unmarshal(e.Data, &v) != nil || v.MessageID == "" {
			return true
		}
		if !t.closeText() {
			return false
		}
		return t.out(&agui.TextMessageStart{MessageID: v.MessageID, Role: "assistant"}) &&
			t.out(&agui.TextMessageContent{MessageID: v.MessageID, Delta: v.Message}) &&
			t.out(&agui.TextMessageEnd{MessageID: v.MessageID})
	case "copilotkit_manually_emit_tool_call", "manually_emit_tool_call":
		var v struct {
			ID   string          `json:"id"`
			Name string          `json:"name"`
			Args json.RawMessage `json:"args"`
		}
		if json.Unmarshal(e.Data, &v) != nil || v.ID == "" || v.Name == "" {
			return true
		}
		args := compactJSON(v.Args)
		var str string
		if json.Unmarshal(v.Args, &str) == nil {
			args = str // already a JSON string
		}
		if args == "" || args == "null" {
			args = "{}"
		}
		if !t.closeText() {
			return false
		}
		if t.calls == nil {
			t.textSent, t.calls, t.hidden = map[string]bool{}, map[string]bool{}, map[string]bool{}
		}
		t.calls[v.ID] = true
		return t.out(&agui.ToolCallStart{ToolCallID: v.ID, ToolCallName: v.Name, ParentMessageID: v.ID}) &&
			t.out(&agui.ToolCallArgs{ToolCallID: v.ID, Delta: args}) &&
			t.out(&agui.ToolCallEnd{ToolCallID: v.ID})
	case "copilotkit_manually_emit_intermediate_state", "manually_emit_state":
		var v map[string]json.RawMessage
		if json.Unmarshal(e.Data, &v) != nil || v == nil {
			return true
		}
		b, _ := json.Marshal(shown(v, t.keys))
		t.lastState = string(b)
		return t.out(&agui.StateSnapshot{Snapshot: agui.JSON(b)})
	case "copilotkit_exit", "exit":
		return t.out(&agui.Custom{Name: "Exit", Value: agui.JSON("true")})
	}
	v := e.Data
	if len(v) == 0 {
		v = json.RawMessage("null")
	}
	return t.out(&agui.Custom{Name: e.Name, Value: agui.JSON(v)})
}

// compactJSON is a JSON value as compact text: the JavaScript server 2.0.0
// indents the JSON it streams, and tool call arguments are passed on as
// text.
func compactJSON(raw json.RawMessage) string {
	var b bytes.Buffer
	if json.Compact(&b, raw) != nil {
		return string(raw)
	}
	return b.String()
}
