package langgraph

import (
	"encoding/json"
	"errors"
	"io"
	"strconv"
	"strings"

	"github.com/genui-adapter/genui-adapter/agui"
)

var errStop = errors.New("client stopped")

// translator turns a LangGraph run stream into AG-UI events.
type translator struct {
	in    *agui.RunAgentInput
	yield func(agui.Event, error) bool

	runID, lastID string
	ended         bool
	node          string
	text          string          // open text message id
	textSent      map[string]bool // ids whose text was streamed
	calls         map[string]bool // tool calls started
	openCalls     []string        // tool calls not yet ended, in order
	chunkCalls    map[int]string  // tool_call_chunks index -> id, per message
	chunkMsg      string
	interrupts    []json.RawMessage
	lastState     string
}

func (t *translator) out(ev agui.Event) bool { return t.yield(ev, nil) }

type lcMessage struct {
	ID             string          `json:"id"`
	Type           string          `json:"type"`
	Content        json.RawMessage `json:"content"`
	ToolCallID     string          `json:"tool_call_id"`
	ToolCalls      []lcToolCall    `json:"tool_calls"`
	ToolCallChunks []lcChunk       `json:"tool_call_chunks"`
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

func (t *translator) closeText() bool {
	if t.text == "" {
		return true
	}
	id := t.text
	t.text = ""
	return t.out(&agui.TextMessageEnd{MessageID: id})
}

func (t *translator) closeCalls() bool {
	for _, id := range t.openCalls {
		if !t.out(&agui.ToolCallEnd{ToolCallID: id}) {
			return false
		}
	}
	t.openCalls = nil
	t.chunkCalls, t.chunkMsg = nil, ""
	return true
}

func (t *translator) endCall(id string) bool {
	for i, x := range t.openCalls {
		if x == id {
			t.openCalls = append(t.openCalls[:i], t.openCalls[i+1:]...)
			return t.out(&agui.ToolCallEnd{ToolCallID: id})
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
func (t *translator) message(m lcMessage, node string, streamed bool) bool {
	if !t.step(node) {
		return false
	}
	if t.textSent == nil {
		t.textSent, t.calls = map[string]bool{}, map[string]bool{}
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
	if txt := textOf(m.Content); txt != "" {
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
				t.openCalls = append(t.openCalls, id)
				if !t.out(&agui.ToolCallStart{ToolCallID: id, ToolCallName: c.Name, ParentMessageID: m.ID}) {
					return false
				}
			}
			if id != "" && c.Args != "" && !t.out(&agui.ToolCallArgs{ToolCallID: id, Delta: c.Args}) {
				return false
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
		args := string(c.Args)
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
		if f.ID != "" {
			t.lastID = f.ID
		}
		name, _, _ := strings.Cut(f.Event, "|") // subgraph events: "values|ns"
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
				Node        string `json:"langgraph_node"`
				Integration string `json:"ls_integration"`
			}
			_ = json.Unmarshal(tuple[0], &m)
			if len(tuple) > 1 {
				_ = json.Unmarshal(tuple[1], &meta)
			}
			if !t.message(m, meta.Node, meta.Integration == "langchain_chat_model") {
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
					t.interrupts = append(t.interrupts, list...)
				}
			}
		case "values":
			var v map[string]json.RawMessage
			if json.Unmarshal(f.Data, &v) != nil {
				continue
			}
			delete(v, "messages")
			delete(v, "__interrupt__")
			if len(v) == 0 {
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
			t.ended = true
			t.yield(&agui.RunError{Message: msg, Code: "langgraph_error"}, nil)
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
	fin := &agui.RunFinished{ThreadID: t.in.ThreadID, RunID: t.in.RunID}
	if len(t.interrupts) > 0 {
		var list []agui.Interrupt
		for i, raw := range t.interrupts {
			var it struct {
				ID    string          `json:"id"`
				Value json.RawMessage `json:"value"`
			}
			_ = json.Unmarshal(raw, &it)
			if it.ID == "" {
				it.ID = t.in.RunID + "-interrupt-" + strconv.Itoa(i)
			}
			meta, _ := json.Marshal(map[string]json.RawMessage{"value": it.Value})
			list = append(list, agui.Interrupt{ID: it.ID, Reason: "interrupt", Metadata: agui.JSON(meta)})
		}
		// 0.0.5x clients know the legacy event; 1.0 clients read the outcome.
		val := t.interrupts[0]
		var it struct {
			Value json.RawMessage `json:"value"`
		}
		if json.Unmarshal(val, &it) == nil && it.Value != nil {
			val = it.Value
		}
		s, _ := json.Marshal(string(val))
		if !t.out(&agui.Custom{Name: "on_interrupt", Value: agui.JSON(s)}) {
			return true
		}
		fin.Outcome = &agui.Outcome{Type: "interrupt", Interrupts: list}
	}
	t.out(fin)
	return true
}
