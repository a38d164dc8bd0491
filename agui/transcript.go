package agui

import (
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
)

// Transcript folds events into a message list the way @ag-ui/client's
// default apply step does: text messages, tool calls attached to their
// parent message, tool results, reasoning messages and activity messages
// (snapshots and RFC 6902 deltas). It is how a thread's history is
// compacted from its runs' events. Not safe for concurrent use.
type Transcript struct {
	msgs  []Message
	index map[string]int
	// text accumulates streamed content per message id: appending to the
	// message's string on every delta would be quadratic.
	text map[string]*strings.Builder
	args map[string]*strings.Builder // streamed tool call arguments

	reserve func(n int) bool // nil: unbounded
	cut     map[string]bool  // messages that carry CutMarker
	cutNote bool             // the standalone cut note was added

	// hot is the builder of message hotID, which the last delta went to:
	// a message's deltas come one after another and skip the lookups.
	// Anything but a delta clears it.
	hotID string
	hot   *strings.Builder
	// cold: message hotID is cut, and its deltas are dropped without the
	// lookups (a long run goes on long after its history is full).
	cold bool
}

// CutMarker ends a message whose content the transcript stopped keeping
// because its budget ran out (see SetBudget). The live stream is never
// cut; only the stored history is.
const CutMarker = "\n\n[genui-adapter: cut here; the rest of this run exceeded the history size limit]"

// cutNoteID is the id of the message that says the transcript was cut
// when the message concerned could not be kept at all.
const cutNoteID = "genui-adapter-cut"

// messageOverhead approximates what one message costs beyond its content.
const messageOverhead = 96

// NewTranscript starts from msgs (copied).
func NewTranscript(msgs []Message) *Transcript {
	t := &Transcript{index: map[string]int{}, text: map[string]*strings.Builder{}, args: map[string]*strings.Builder{}, cut: map[string]bool{}}
	for _, m := range msgs {
		t.upsert(m)
	}
	return t
}

// SetBudget bounds what the transcript keeps from the events applied
// after it: reserve is asked before the transcript grows by n bytes
// (text, arguments, results, activity content, new messages) and, when it
// says no, that growth is dropped and the message concerned ends with
// CutMarker (once). Messages given to NewTranscript and Merge are not
// counted.
func (t *Transcript) SetBudget(reserve func(n int) bool) { t.reserve = reserve }

// grow asks the budget for n bytes.
func (t *Transcript) grow(n int) bool { return t.reserve == nil || n <= 0 || t.reserve(n) }

// markCut appends CutMarker to message id once, or, when that message is
// not kept, adds one note saying the transcript was cut.
func (t *Transcript) markCut(id string) {
	t.hot, t.cold = nil, false
	if m := t.find(id); m != nil && m.Role != RoleActivity {
		if t.cut[id] {
			return
		}
		t.cut[m.ID] = true // the message's own id (see appendText)
		if b := t.text[id]; b != nil {
			b.WriteString(CutMarker)
			return
		}
		m.Content = Text(m.Content.String() + CutMarker)
		return
	}
	if !t.cutNote {
		t.cutNote = true
		t.upsert(Message{ID: cutNoteID, Role: RoleAssistant, Content: Text(strings.TrimSpace(CutMarker))})
	}
}

func (t *Transcript) upsert(m Message) int {
	t.hot, t.cold = nil, false
	if i, ok := t.index[m.ID]; ok {
		t.msgs[i] = m
		return i
	}
	t.index[m.ID] = len(t.msgs)
	t.msgs = append(t.msgs, m)
	return len(t.msgs) - 1
}

// Merge upserts msgs by id, keeping the order of first appearance; it is
// how a new run's input (the client's full list, without activity
// messages) joins the stored history.
func (t *Transcript) Merge(msgs []Message) {
	for _, m := range msgs {
		t.upsert(m)
	}
}

// Messages returns the folded list.
func (t *Transcript) Messages() []Message {
	t.hot, t.cold = nil, false
	for id := range t.text {
		t.flush(id)
	}
	for id := range t.args {
		t.flushArgs(id)
	}
	return append([]Message(nil), t.msgs...)
}

// appendText adds a streamed delta to a message's content.
func (t *Transcript) appendText(id, delta string) {
	if id == t.hotID {
		if t.hot != nil {
			if !t.grow(len(delta)) {
				t.markCut(id)
				t.chill(id)
				return
			}
			t.hot.WriteString(delta)
			return
		}
		if t.cold {
			return
		}
	}
	m := t.find(id)
	if m == nil || t.cut[id] {
		t.chill(id)
		return
	}
	if !t.grow(len(delta)) {
		t.markCut(id)
		t.chill(id)
		return
	}
	// Keys and the hot id are the message's own id, never the delta's:
	// that one may be a piece of an arena block, which a kept key would
	// keep whole.
	b := t.text[m.ID]
	if b == nil {
		b = &strings.Builder{}
		b.WriteString(m.Content.String())
		t.text[m.ID] = b
	}
	b.WriteString(delta)
	t.hotID, t.hot = m.ID, b
}

// chill makes id the cold message if it is cut.
func (t *Transcript) chill(id string) {
	if t.cut[id] {
		t.hotID, t.hot, t.cold = id, nil, true
	}
}

// flushArgs moves accumulated arguments into the tool call.
func (t *Transcript) flushArgs(id string) {
	if b := t.args[id]; b != nil {
		if c := t.findCall(id); c != nil {
			c.Function.Arguments = b.String()
		}
		delete(t.args, id)
	}
}

// flush moves accumulated text into the message.
func (t *Transcript) flush(id string) {
	t.hot, t.cold = nil, false
	if b := t.text[id]; b != nil {
		if m := t.find(id); m != nil {
			m.Content = Text(b.String())
		}
		delete(t.text, id)
	}
}

func (t *Transcript) find(id string) *Message {
	if i, ok := t.index[id]; ok {
		return &t.msgs[i]
	}
	return nil
}

func (t *Transcript) findCall(id string) *ToolCall {
	for i := range t.msgs {
		for j := range t.msgs[i].ToolCalls {
			if t.msgs[i].ToolCalls[j].ID == id {
				return &t.msgs[i].ToolCalls[j]
			}
		}
	}
	return nil
}

// Apply folds one event in.
func (t *Transcript) Apply(ev Event) {
	// The deltas, one per token, take a path with a small stack frame;
	// the rest share the big switch.
	switch e := ev.(type) {
	case *TextMessageContent:
		t.appendText(e.MessageID, e.Delta)
	case *ReasoningMessageContent:
		t.appendText(e.MessageID, e.Delta)
	case *ToolCallArgs:
		t.appendArgs(e)
	case *TextMessageEnd:
		t.hot, t.cold = nil, false
		t.flush(e.MessageID)
	default:
		t.hot, t.cold = nil, false
		t.applyOther(ev)
	}
}

// appendArgs adds streamed tool call arguments.
func (t *Transcript) appendArgs(e *ToolCallArgs) {
	b := t.args[e.ToolCallID]
	if b == nil {
		if c := t.findCall(e.ToolCallID); c != nil {
			b = &strings.Builder{}
			b.WriteString(c.Function.Arguments)
			t.args[c.ID] = b // the call's own id (see appendText)
		}
	}
	if b != nil && !t.cut[e.ToolCallID] {
		if !t.grow(len(e.Delta)) {
			// Half a JSON argument string is worse than none.
			t.cut[strings.Clone(e.ToolCallID)] = true
			b.Reset()
			b.WriteString("{}")
			t.markCut("")
			return
		}
		b.WriteString(e.Delta)
	}
}

//go:noinline
func (t *Transcript) applyOther(ev Event) {
	// Each case that builds a Message has its own (not inlined) method:
	// the frame of this switch, under every event of a run's stack, stays
	// small, and so does an idle stream's goroutine stack.
	switch e := ev.(type) {
	case *TextMessageStart:
		t.startText(e.MessageID, Role(e.Role), e.Name)
	case *TextMessageContent:
		t.appendText(e.MessageID, e.Delta)
	case *TextMessageEnd:
		t.flush(e.MessageID)
	case *ReasoningMessageEnd:
		t.flush(e.MessageID)
	case *ReasoningMessageStart:
		t.startText(e.MessageID, RoleReasoning, "")
	case *ReasoningMessageContent:
		t.appendText(e.MessageID, e.Delta)
	case *ToolCallStart:
		t.startCall(e)
	case *ToolCallEnd:
		t.flushArgs(e.ToolCallID)
	case *ToolCallResult:
		t.addResult(e)
	case *ActivitySnapshot:
		t.addActivity(e)
	case *ActivityDelta:
		t.patchActivity(e)
	case *MessagesSnapshot:
		t.replace(e)
	}
}

// startText adds a text or reasoning message (assistant by default).
//
//go:noinline
func (t *Transcript) startText(id string, role Role, name string) {
	if role == "" {
		role = RoleAssistant
	}
	if t.find(id) != nil {
		return
	}
	if !t.grow(messageOverhead + len(id) + len(name)) {
		t.markCut(id)
		return
	}
	t.upsert(Message{ID: id, Role: role, Content: Text(""), Name: name})
}

//go:noinline
func (t *Transcript) startCall(e *ToolCallStart) {
	if !t.grow(messageOverhead + len(e.ToolCallID) + len(e.ToolCallName)) {
		t.markCut(e.ParentMessageID)
		return
	}
	call := ToolCall{ID: e.ToolCallID, Type: "function", Function: FunctionCall{Name: e.ToolCallName}}
	if p := t.find(e.ParentMessageID); p != nil && e.ParentMessageID != "" && p.Role == RoleAssistant {
		p.ToolCalls = append(p.ToolCalls, call)
		return
	}
	// As @ag-ui/client does: a new assistant message named by the
	// parent id (the upstream's message id), else by the call.
	id := e.ParentMessageID
	if id == "" || t.find(id) != nil {
		id = e.ToolCallID // no parent, or it names another kind of message
	}
	t.upsert(Message{ID: id, Role: RoleAssistant, ToolCalls: []ToolCall{call}})
}

//go:noinline
func (t *Transcript) addResult(e *ToolCallResult) {
	content := e.Content
	if !t.grow(messageOverhead + len(e.MessageID) + len(content)) {
		content = strings.TrimSpace(CutMarker)
		t.cut[e.MessageID] = true
	}
	t.upsert(Message{ID: e.MessageID, Role: RoleTool, ToolCallID: e.ToolCallID, Content: Text(content)})
}

//go:noinline
func (t *Transcript) addActivity(e *ActivitySnapshot) {
	if m := t.find(e.MessageID); m != nil && e.Replace != nil && !*e.Replace {
		return
	}
	if !t.grow(messageOverhead + len(e.MessageID) + len(e.Content)) {
		// A surface or card that is not kept is not replayed at all.
		t.markCut("")
		return
	}
	t.upsert(Message{ID: e.MessageID, Role: RoleActivity, ActivityType: e.ActivityType, Content: Content{Object: []byte(e.Content), set: true}})
}

//go:noinline
func (t *Transcript) patchActivity(e *ActivityDelta) {
	m := t.find(e.MessageID)
	if m == nil || m.Content.Object == nil {
		return
	}
	if !t.grow(len(e.Patch)) {
		t.markCut("")
		return
	}
	if out, err := ApplyPatch(m.Content.Object, e.Patch); err == nil {
		m.Content = Content{Object: out, set: true}
	}
}

//go:noinline
func (t *Transcript) replace(e *MessagesSnapshot) {
	n := 0
	for _, m := range e.Messages {
		n += messageSize(m)
	}
	if !t.grow(n) {
		t.markCut("")
		return
	}
	t.msgs, t.index, t.text, t.args = nil, map[string]int{}, map[string]*strings.Builder{}, map[string]*strings.Builder{}
	t.cut, t.cutNote = map[string]bool{}, false
	for _, m := range e.Messages {
		t.upsert(m)
	}
}

// messageSize approximates the bytes a message holds.
func messageSize(m Message) int {
	n := messageOverhead + len(m.ID) + len(m.Content.Text) + len(m.Content.Object) + len(m.Name) + len(m.ToolCallID)
	for _, p := range m.Content.Parts {
		n += len(p.Text) + len(p.Data) + len(p.URL) + 32
	}
	for _, c := range m.ToolCalls {
		n += messageOverhead + len(c.ID) + len(c.Function.Name) + len(c.Function.Arguments)
	}
	return n
}

// ApplyPatch applies an RFC 6902 JSON Patch (add, remove, replace, move,
// copy, test) to doc.
func ApplyPatch(doc, patch []byte) ([]byte, error) {
	var root any
	if err := json.Unmarshal(doc, &root); err != nil {
		return nil, err
	}
	var ops []struct {
		Op    string          `json:"op"`
		Path  string          `json:"path"`
		From  string          `json:"from"`
		Value json.RawMessage `json:"value"`
	}
	if err := json.Unmarshal(patch, &ops); err != nil {
		return nil, err
	}
	for _, op := range ops {
		var val any
		if len(op.Value) > 0 {
			if err := json.Unmarshal(op.Value, &val); err != nil {
				return nil, err
			}
		}
		var err error
		switch op.Op {
		case "add":
			root, err = patchSet(root, splitPtr(op.Path), val, true)
		case "replace":
			root, err = patchSet(root, splitPtr(op.Path), val, false)
		case "remove":
			root, _, err = patchRemove(root, splitPtr(op.Path))
		case "move", "copy":
			var v any
			if v, err = patchGet(root, splitPtr(op.From)); err != nil {
				return nil, err
			}
			if op.Op == "move" {
				if root, _, err = patchRemove(root, splitPtr(op.From)); err != nil {
					return nil, err
				}
			}
			root, err = patchSet(root, splitPtr(op.Path), v, true)
		case "test":
			var v any
			if v, err = patchGet(root, splitPtr(op.Path)); err == nil {
				a, _ := json.Marshal(v)
				b, _ := json.Marshal(val)
				if string(a) != string(b) {
					err = fmt.Errorf("test failed at %s", op.Path)
				}
			}
		default:
			err = fmt.Errorf("unknown op %q", op.Op)
		}
		if err != nil {
			return nil, err
		}
	}
	return json.Marshal(root)
}

func splitPtr(p string) []string {
	if p == "" {
		return nil
	}
	parts := strings.Split(strings.TrimPrefix(p, "/"), "/")
	for i, s := range parts {
		parts[i] = strings.ReplaceAll(strings.ReplaceAll(s, "~1", "/"), "~0", "~")
	}
	return parts
}

func patchGet(root any, segs []string) (any, error) {
	cur := root
	for _, s := range segs {
		switch x := cur.(type) {
		case map[string]any:
			v, ok := x[s]
			if !ok {
				return nil, fmt.Errorf("no %q", s)
			}
			cur = v
		case []any:
			i, err := strconv.Atoi(s)
			if err != nil || i < 0 || i >= len(x) {
				return nil, fmt.Errorf("bad index %q", s)
			}
			cur = x[i]
		default:
			return nil, fmt.Errorf("cannot descend into %q", s)
		}
	}
	return cur, nil
}

func patchSet(root any, segs []string, v any, insert bool) (any, error) {
	if len(segs) == 0 {
		return v, nil
	}
	parent, err := patchGet(root, segs[:len(segs)-1])
	if err != nil {
		return nil, err
	}
	last := segs[len(segs)-1]
	switch x := parent.(type) {
	case map[string]any:
		if _, ok := x[last]; !ok && !insert {
			return nil, fmt.Errorf("no %q to replace", last)
		}
		x[last] = v
		return root, nil
	case []any:
		i := len(x)
		if last != "-" {
			if i, err = strconv.Atoi(last); err != nil || i < 0 || i > len(x) || (!insert && i == len(x)) {
				return nil, fmt.Errorf("bad index %q", last)
			}
		}
		var nx []any
		if insert {
			nx = append(append(append([]any{}, x[:i]...), v), x[i:]...)
		} else {
			nx = append([]any{}, x...)
			nx[i] = v
		}
		return patchSet(root, segs[:len(segs)-1], nx, false)
	}
	return nil, fmt.Errorf("cannot set %q", last)
}

func patchRemove(root any, segs []string) (any, any, error) {
	if len(segs) == 0 {
		return nil, root, nil
	}
	parent, err := patchGet(root, segs[:len(segs)-1])
	if err != nil {
		return nil, nil, err
	}
	last := segs[len(segs)-1]
	switch x := parent.(type) {
	case map[string]any:
		v, ok := x[last]
		if !ok {
			return nil, nil, fmt.Errorf("no %q to remove", last)
		}
		delete(x, last)
		return root, v, nil
	case []any:
		i, err := strconv.Atoi(last)
		if err != nil || i < 0 || i >= len(x) {
			return nil, nil, fmt.Errorf("bad index %q", last)
		}
		v := x[i]
		nx := append(append([]any{}, x[:i]...), x[i+1:]...)
		r, err := patchSet(root, segs[:len(segs)-1], nx, false)
		return r, v, err
	}
	return nil, nil, fmt.Errorf("cannot remove %q", last)
}
