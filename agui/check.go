package agui

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strconv"
	"unicode/utf8"
)

// MaxIDBytes caps every id a client sends (threadId, runId, message and
// tool call ids, interrupt ids): ids are map keys and storage keys, not
// payload.
const MaxIDBytes = 256

// validRoles are the message roles of AG-UI 1.0 (0.0.5x's are a subset).
var validRoles = map[Role]bool{
	RoleDeveloper: true, RoleSystem: true, RoleAssistant: true, RoleUser: true,
	RoleTool: true, RoleActivity: true, RoleReasoning: true,
}

// CheckID reports why s is not an acceptable id (empty, longer than
// MaxIDBytes, not UTF-8, or holding control characters), naming field.
func CheckID(field, s string) error {
	switch {
	case s == "":
		return &InputError{Field: field, Reason: "must be a non-empty string"}
	case len(s) > MaxIDBytes:
		return &InputError{Field: field, Reason: fmt.Sprintf("is %d bytes long; ids are at most %d bytes", len(s), MaxIDBytes)}
	case !utf8.ValidString(s):
		return &InputError{Field: field, Reason: "is not valid UTF-8"}
	}
	for _, r := range s {
		if r < 0x20 || r == 0x7f {
			return &InputError{Field: field, Reason: "holds a control character"}
		}
	}
	return nil
}

// checkInput enforces what ParseRunAgentInput promises beyond decoding:
// bounded, printable ids and roles from AG-UI's set.
func checkInput(in *RunAgentInput) error {
	if err := CheckID("threadId", in.ThreadID); err != nil {
		return err
	}
	if err := CheckID("runId", in.RunID); err != nil {
		return err
	}
	if in.ParentRunID != "" {
		if err := CheckID("parentRunId", in.ParentRunID); err != nil {
			return err
		}
	}
	for i, m := range in.Messages {
		at := func(f string) string { return fmt.Sprintf("messages[%d].%s", i, f) }
		if m.Role == "" {
			return &InputError{Field: at("role"), Reason: "required"}
		}
		if !validRoles[m.Role] {
			return &InputError{Field: at("role"), Reason: fmt.Sprintf("%q is not an AG-UI role (developer, system, assistant, user, tool, activity, reasoning)", truncate(string(m.Role), 40))}
		}
		if m.ID != "" {
			if err := CheckID(at("id"), m.ID); err != nil {
				return err
			}
		}
		if m.ToolCallID != "" {
			if err := CheckID(at("toolCallId"), m.ToolCallID); err != nil {
				return err
			}
		}
		for j, c := range m.ToolCalls {
			if err := CheckID(fmt.Sprintf("messages[%d].toolCalls[%d].id", i, j), c.ID); err != nil {
				return err
			}
		}
	}
	for i, r := range in.Resume {
		if r.InterruptID != "" {
			if err := CheckID(fmt.Sprintf("resume[%d].interruptId", i), r.InterruptID); err != nil {
				return err
			}
		}
	}
	return nil
}

func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "…"
}

// invalidUTF8Path returns the JSON path (threadId, messages[0].content) of
// the first string holding invalid UTF-8 in the JSON document b, which
// must be syntactically valid.
func invalidUTF8Path(b []byte) string {
	bad := 0
	for bad < len(b) {
		r, n := utf8.DecodeRune(b[bad:])
		if r == utf8.RuneError && n <= 1 {
			break
		}
		bad += n
	}
	type frame struct {
		array     bool
		idx       int
		key       string
		expectKey bool
	}
	var stack []frame
	path := func() string {
		var p bytes.Buffer
		for i, f := range stack {
			if f.array {
				p.WriteString("[" + strconv.Itoa(f.idx) + "]")
				continue
			}
			if i > 0 {
				p.WriteByte('.')
			}
			p.WriteString(f.key)
		}
		return p.String()
	}
	advance := func() {
		if len(stack) == 0 {
			return
		}
		if top := &stack[len(stack)-1]; top.array {
			top.idx++
		} else {
			top.expectKey = true
		}
	}
	dec := json.NewDecoder(bytes.NewReader(b))
	for {
		tok, err := dec.Token()
		if err != nil {
			return path()
		}
		end := int(dec.InputOffset())
		switch t := tok.(type) {
		case json.Delim:
			switch t {
			case '{':
				stack = append(stack, frame{expectKey: true})
			case '[':
				stack = append(stack, frame{array: true})
			default:
				stack = stack[:len(stack)-1]
				advance()
			}
			continue
		case string:
			if n := len(stack); n > 0 && !stack[n-1].array && stack[n-1].expectKey {
				stack[n-1].key, stack[n-1].expectKey = t, false
				if end > bad {
					return path()
				}
				continue
			}
		}
		if end > bad {
			return path()
		}
		advance()
	}
}
