package agui

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"sync"
	"unicode/utf8"
)

// Role is a message's role.
type Role string

// Message roles.
const (
	RoleDeveloper Role = "developer"
	RoleSystem    Role = "system"
	RoleAssistant Role = "assistant"
	RoleUser      Role = "user"
	RoleTool      Role = "tool"
	RoleActivity  Role = "activity"
	RoleReasoning Role = "reasoning"
)

// Message is one entry of a conversation. The role decides which fields
// mean something: ToolCalls for assistant messages, ToolCallID and Error for
// tool messages, ActivityType for activity messages.
type Message struct {
	ID             string     `json:"id"`
	Role           Role       `json:"role"`
	Content        Content    `json:"content,omitzero"`
	Name           string     `json:"name,omitempty"`
	ToolCalls      []ToolCall `json:"toolCalls,omitempty"`
	ToolCallID     string     `json:"toolCallId,omitempty"`
	Error          string     `json:"error,omitempty"`
	ActivityType   string     `json:"activityType,omitempty"`
	EncryptedValue string     `json:"encryptedValue,omitempty"`
	Metadata       JSON       `json:"metadata,omitempty"`
}

// Content is a message's content: a string, a list of content parts, or (for
// activity messages) a JSON object. The zero value is absent content.
type Content struct {
	Text   string
	Parts  []ContentPart
	Object json.RawMessage
	set    bool
}

// Text returns string content.
func Text(s string) Content { return Content{Text: s, set: true} }

// Object returns object content (activity messages).
func Object(b json.RawMessage) Content { return Content{Object: b, set: true} }

// IsZero reports whether the content is absent.
func (c Content) IsZero() bool { return !c.set && c.Text == "" && c.Parts == nil && c.Object == nil }

// String returns the text of the content: the string itself, or the text
// parts joined by newlines.
func (c Content) String() string {
	if c.Parts == nil {
		return c.Text
	}
	var b bytes.Buffer
	for i, p := range c.Parts {
		if p.Type != "text" {
			continue
		}
		if i > 0 && b.Len() > 0 {
			b.WriteByte('\n')
		}
		b.WriteString(p.Text)
	}
	return b.String()
}

// MarshalJSON implements json.Marshaler.
func (c Content) MarshalJSON() ([]byte, error) {
	switch {
	case c.Object != nil:
		return c.Object, nil
	case c.Parts != nil:
		return json.Marshal(c.Parts)
	default:
		return json.Marshal(c.Text)
	}
}

// UnmarshalJSON accepts a string, an array of parts, an object or null.
func (c *Content) UnmarshalJSON(b []byte) error {
	b = bytes.TrimSpace(b)
	*c = Content{}
	if len(b) == 0 || string(b) == "null" {
		return nil
	}
	c.set = true
	switch b[0] {
	case '"':
		return json.Unmarshal(b, &c.Text)
	case '[':
		c.Parts = []ContentPart{}
		return json.Unmarshal(b, &c.Parts)
	case '{':
		c.Object = append(json.RawMessage(nil), b...)
		return nil
	}
	return fmt.Errorf("content must be a string, an array or an object, got %.20s", b)
}

// ContentPart is one part of multimodal content. Type is "text", "image",
// "audio", "video", "document" or the legacy 0.0.5x "binary".
type ContentPart struct {
	Type     string       `json:"type"`
	Text     string       `json:"text,omitempty"`
	Source   *MediaSource `json:"source,omitempty"`
	ID       string       `json:"id,omitempty"`
	MimeType string       `json:"mimeType,omitempty"`
	URL      string       `json:"url,omitempty"`
	Data     string       `json:"data,omitempty"`
	Filename string       `json:"filename,omitempty"`
	Metadata JSON         `json:"metadata,omitempty"`
}

// MediaSource says where media content lives. Type is "data", "url" or
// "file".
type MediaSource struct {
	Type     string `json:"type"`
	Value    string `json:"value"`
	MimeType string `json:"mimeType,omitempty"`
	Provider string `json:"provider,omitempty"`
}

// ToolCall is a call an assistant message makes.
type ToolCall struct {
	ID             string       `json:"id"`
	Type           string       `json:"type"`
	Function       FunctionCall `json:"function"`
	EncryptedValue string       `json:"encryptedValue,omitempty"`
	Metadata       JSON         `json:"metadata,omitempty"`
}

// FunctionCall names the function and carries its arguments as a JSON string.
type FunctionCall struct {
	Name      string `json:"name"`
	Arguments string `json:"arguments"`
}

// Tool is a tool the client offers the agent.
type Tool struct {
	Name        string `json:"name"`
	Description string `json:"description"`
	Parameters  JSON   `json:"parameters,omitempty"`
	Metadata    JSON   `json:"metadata,omitempty"`
}

// ContextItem is a piece of context the client gives the agent.
type ContextItem struct {
	Description string `json:"description"`
	Value       string `json:"value"`
}

// ResumeEntry answers an interrupt.
type ResumeEntry struct {
	InterruptID string `json:"interruptId"`
	Status      string `json:"status"`
	Payload     JSON   `json:"payload,omitempty"`
	Metadata    JSON   `json:"metadata,omitempty"`
}

// RunAgentInput is the body that starts a run. Tools and Context are always
// encoded as arrays (0.0.5x agents require them).
type RunAgentInput struct {
	ThreadID        string        `json:"threadId"`
	RunID           string        `json:"runId"`
	ParentRunID     string        `json:"parentRunId,omitempty"`
	ProtocolVersion string        `json:"protocolVersion,omitempty"`
	State           JSON          `json:"state,omitempty"`
	Messages        []Message     `json:"messages"`
	Tools           []Tool        `json:"tools"`
	Context         []ContextItem `json:"context"`
	ForwardedProps  JSON          `json:"forwardedProps,omitempty"`
	Resume          []ResumeEntry `json:"resume,omitempty"`

	// props indexes ForwardedProps's top-level members, decoded on the
	// first ForwardedProp call that needs them. ParseRunAgentInput sets
	// it; a copy of the input shares it, and it is used only while
	// ForwardedProps is still the slice it was built from. So replace
	// ForwardedProps; never edit its bytes in place.
	props *propIndex
}

// propIndex is a lazily decoded forwardedProps object.
type propIndex struct {
	once sync.Once
	of   JSON
	m    map[string]json.RawMessage
}

// lookup returns the member key of the object p was built from.
func (p *propIndex) lookup(key string) json.RawMessage {
	p.once.Do(func() {
		if json.Unmarshal(p.of, &p.m) != nil {
			p.m = nil
		}
	})
	return p.m[key]
}

// indexes reports whether p was built from fp: the same bytes in the
// same place, not merely equal ones.
func (p *propIndex) indexes(fp JSON) bool {
	return p != nil && len(p.of) == len(fp) && len(fp) > 0 && &p.of[0] == &fp[0]
}

// ErrInvalidInput is wrapped by the errors ParseRunAgentInput returns.
var ErrInvalidInput = errors.New("invalid RunAgentInput")

// InputError names the field of a RunAgentInput that is wrong.
type InputError struct {
	Field  string
	Reason string
}

func (e *InputError) Error() string {
	if e.Field == "" {
		return "invalid RunAgentInput: " + e.Reason
	}
	return fmt.Sprintf("invalid RunAgentInput: %s: %s", e.Field, e.Reason)
}

// Unwrap returns ErrInvalidInput.
func (e *InputError) Unwrap() error { return ErrInvalidInput }

// ParseRunAgentInput decodes a RunAgentInput leniently: both the 1.0 and the
// 0.0.5x shapes, null state, absent tools and context, unknown keys ignored.
// It fails, with an *InputError naming the field, on malformed JSON, invalid
// UTF-8, a missing threadId, runId or messages, an id longer than MaxIDBytes
// and a role outside AG-UI's set.
func ParseRunAgentInput(b []byte) (*RunAgentInput, error) {
	// One decode: encoding/json checks the whole body's syntax before it
	// decodes anything, so a malformed body fails here first; the required
	// members are then found by a scan of the bytes, and a decoding error
	// is reported only after the checks on those members (a missing member
	// is named first).
	var in RunAgentInput
	derr := json.Unmarshal(b, &in)
	var se *json.SyntaxError
	if errors.As(derr, &se) {
		return nil, &InputError{Reason: fmt.Sprintf("malformed JSON at byte %d: %v", se.Offset, derr)}
	}
	if i := skipSpace(b, 0); i >= len(b) || b[i] != '{' && b[i] != 'n' {
		return nil, &InputError{Reason: "body must be a JSON object"}
	}
	if !utf8.Valid(b) {
		return nil, &InputError{Field: invalidUTF8Path(b), Reason: "is not valid UTF-8"}
	}
	probe, ok := requiredMembers(b)
	if !ok {
		// A key with an escape: decode the members as a map would.
		var m map[string]json.RawMessage
		if err := json.Unmarshal(b, &m); err != nil {
			return nil, &InputError{Reason: "body must be a JSON object"}
		}
		probe = [3]json.RawMessage{m["threadId"], m["runId"], m["messages"]}
	}
	for i, f := range []string{"threadId", "runId"} {
		v := probe[i]
		if v == nil || string(v) == "null" {
			return nil, &InputError{Field: f, Reason: "required"}
		}
		var s string
		if json.Unmarshal(v, &s) != nil || s == "" {
			return nil, &InputError{Field: f, Reason: "must be a non-empty string"}
		}
	}
	if v := probe[2]; v == nil || string(v) == "null" {
		return nil, &InputError{Field: "messages", Reason: "required"}
	}
	if derr != nil {
		var te *json.UnmarshalTypeError
		if errors.As(derr, &te) {
			return nil, &InputError{Field: te.Field, Reason: "must be " + te.Value + " of the right type"}
		}
		return nil, &InputError{Reason: derr.Error()}
	}
	if err := complete(&in); err != nil {
		return nil, err
	}
	if len(in.ForwardedProps) > 0 && in.ForwardedProps[0] == '{' {
		in.props = &propIndex{of: in.ForwardedProps}
	}
	return &in, nil
}

// complete checks a decoded input (its ids and roles) and gives absent
// messages, tools and context their empty arrays.
func complete(in *RunAgentInput) error {
	if in.Messages == nil {
		in.Messages = []Message{}
	}
	if err := checkInput(in); err != nil {
		return err
	}
	if in.Tools == nil {
		in.Tools = []Tool{}
	}
	if in.Context == nil {
		in.Context = []ContextItem{}
	}
	return nil
}

// requiredMembers returns the values of the members threadId, runId and
// messages of the object b (nil where absent; the last of a repeated key,
// as decoding into a map keeps), by a scan that copies nothing. b is
// valid JSON and valid UTF-8, an object or null. ok is false when a key
// holds an escape (the caller then decodes the object) or the bytes are
// not what the scan expects.
func requiredMembers(b []byte) (v [3]json.RawMessage, ok bool) {
	i := skipSpace(b, 0)
	if i < len(b) && b[i] == 'n' {
		return v, true // null: no members
	}
	if i >= len(b) || b[i] != '{' {
		return v, false
	}
	i = skipSpace(b, i+1)
	for i < len(b) && b[i] != '}' {
		key, kEnd, esc, ok := scanString(b, i)
		if !ok || esc {
			return v, false
		}
		i = skipSpace(b, kEnd)
		if i >= len(b) || b[i] != ':' {
			return v, false
		}
		i = skipSpace(b, i+1)
		end := valueEnd(b, i)
		if end < 0 {
			return v, false
		}
		switch string(key) {
		case "threadId":
			v[0] = b[i:end]
		case "runId":
			v[1] = b[i:end]
		case "messages":
			v[2] = b[i:end]
		}
		i = skipSpace(b, end)
		if i < len(b) && b[i] == ',' {
			i = skipSpace(b, i+1)
		}
	}
	return v, i < len(b)
}

// valueEnd returns the index after the JSON value that starts at b[i],
// or -1; b is valid JSON.
func valueEnd(b []byte, i int) int {
	if i >= len(b) {
		return -1
	}
	switch b[i] {
	case '"':
		_, next, _, ok := scanString(b, i)
		if !ok {
			return -1
		}
		return next
	case '{', '[':
		depth := 0
		for j := i; j < len(b); j++ {
			switch b[j] {
			case '"':
				_, next, _, ok := scanString(b, j)
				if !ok {
					return -1
				}
				j = next - 1
			case '{', '[':
				depth++
			case '}', ']':
				if depth--; depth == 0 {
					return j + 1
				}
			}
		}
		return -1
	}
	// A number, true, false or null: up to the next delimiter.
	j := i
	for ; j < len(b); j++ {
		switch b[j] {
		case ',', '}', ']', ' ', '\t', '\n', '\r':
			if j == i {
				return -1
			}
			return j
		}
	}
	return j
}

func isNull(b json.RawMessage) bool { return b != nil && string(bytes.TrimSpace(b)) == "null" }

// ForwardedProp returns forwardedProps[key], or nil. It is safe to call
// from several goroutines at once.
//
// A run start asks for several keys that are usually absent
// (genuiRender, the MCP Apps and A2UI actions); when the key cannot be
// there, nothing is decoded. An input from ParseRunAgentInput decodes
// the object at most once, however many keys are asked for (LangGraph
// asks for config, context, command and the stream keys); one built by
// hand, or whose ForwardedProps was replaced, decodes it on each call.
func (in *RunAgentInput) ForwardedProp(key string) JSON {
	if len(in.ForwardedProps) == 0 || in.ForwardedProps[0] != '{' {
		return nil
	}
	if cannotHold(in.ForwardedProps, key) {
		return nil
	}
	var v json.RawMessage
	if in.props.indexes(in.ForwardedProps) {
		v = in.props.lookup(key)
	} else {
		var m map[string]json.RawMessage
		if json.Unmarshal(in.ForwardedProps, &m) != nil {
			return nil
		}
		v = m[key]
	}
	if isNull(v) {
		return nil
	}
	// Clipped, so that a caller's append cannot write into the index.
	return JSON(v[:len(v):len(v)])
}

// cannotHold reports that the JSON object obj has no member named key,
// without decoding it. It holds when key is non-empty printable ASCII
// without a quote or a backslash (a member of that name is then written
// "key" unless obj uses an escape), obj has no backslash, and "key" is
// nowhere in obj.
func cannotHold(obj []byte, key string) bool {
	if key == "" {
		return false
	}
	for i := range len(key) {
		if c := key[i]; c < 0x20 || c > 0x7e || c == '"' || c == '\\' {
			return false
		}
	}
	if bytes.IndexByte(obj, '\\') >= 0 {
		return false
	}
	for rest := obj; len(rest) > 0; {
		i := bytes.Index(rest, []byte(key))
		if i < 0 {
			return true
		}
		if i > 0 && rest[i-1] == '"' && i+len(key) < len(rest) && rest[i+len(key)] == '"' {
			return false
		}
		rest = rest[i+1:]
	}
	return true
}

// Clone returns a copy of in whose slices can be appended to without
// touching in.
func (in *RunAgentInput) Clone() *RunAgentInput {
	c := *in
	c.Messages = append([]Message(nil), in.Messages...)
	c.Tools = append([]Tool(nil), in.Tools...)
	c.Context = append([]ContextItem(nil), in.Context...)
	return &c
}

// AppendJSON appends m as json.Marshal writes it. A long text content
// (a run's whole answer) is written in one pass: json.Marshal would
// encode it and then scan it a second time, as it does every
// MarshalJSON's output.
func (m Message) AppendJSON(b []byte) []byte {
	c := m.Content
	if !c.set || c.Parts != nil || c.Object != nil || len(c.Text) < 256 {
		out, _ := json.Marshal(m)
		return append(b, out...)
	}
	bare := m
	bare.Content = Content{}
	rest, _ := json.Marshal(bare) // {"id":…,"role":…[,…]}: the content goes after the role
	prefix := appendJSONString(append(appendJSONString([]byte(`{"id":`), m.ID), `,"role":`...), string(m.Role))
	if !bytes.HasPrefix(rest, prefix) {
		out, _ := json.Marshal(m) // not reached while id and role lead Message
		return append(b, out...)
	}
	b = append(b, prefix...)
	b = append(b, `,"content":`...)
	b = appendJSONString(b, c.Text)
	return append(b, rest[len(prefix):]...)
}
