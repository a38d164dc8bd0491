package agui

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"
	"unicode/utf8"
	"unsafe"
)

func TestParseRunAgentInputChecks(t *testing.T) {
	long := strings.Repeat("a", MaxIDBytes+1)
	for _, tt := range []struct {
		name, in, field string
	}{
		{"invalid UTF-8 in threadId", "{\"threadId\":\"t\xff\",\"runId\":\"r\",\"messages\":[]}", "threadId"},
		{"invalid UTF-8 deep", "{\"threadId\":\"t\",\"runId\":\"r\",\"messages\":[{\"id\":\"a\",\"role\":\"user\",\"content\":\"ok\"},{\"id\":\"b\",\"role\":\"user\",\"content\":[{\"type\":\"text\",\"text\":\"\xc3\"}]}]}", "messages[1].content[0].text"},
		{"invalid UTF-8 in a key", "{\"threadId\":\"t\",\"runId\":\"r\",\"messages\":[],\"forwardedProps\":{\"k\xff\":1}}", "forwardedProps.k\ufffd"},
		{"role", `{"threadId":"t","runId":"r","messages":[{"id":"m","role":"hacker"}]}`, "messages[0].role"},
		{"missing role", `{"threadId":"t","runId":"r","messages":[{"id":"m"}]}`, "messages[0].role"},
		{"long runId", `{"threadId":"t","runId":"` + long + `","messages":[]}`, "runId"},
		{"long tool call id", `{"threadId":"t","runId":"r","messages":[{"id":"m","role":"assistant","toolCalls":[{"id":"` + long + `","type":"function","function":{"name":"f","arguments":"{}"}}]}]}`, "messages[0].toolCalls[0].id"},
		{"control character", `{"threadId":"t\u0000x","runId":"r","messages":[]}`, "threadId"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			_, err := ParseRunAgentInput([]byte(tt.in))
			var ie *InputError
			if !errors.As(err, &ie) || ie.Field != tt.field {
				t.Errorf("ParseRunAgentInput = %v, want an error naming %s", err, tt.field)
			}
		})
	}
	if _, err := ParseRunAgentInput([]byte(`{"threadId":"t","runId":"` + strings.Repeat("é", MaxIDBytes/2) + `","messages":[{"id":"m","role":"reasoning","content":"x"}]}`)); err != nil {
		t.Errorf("a %d-byte id and the reasoning role: %v", MaxIDBytes, err)
	}
}

// FuzzParseRunAgentInput: whatever the bytes, the parser does not panic,
// and what it accepts keeps its promises.
func FuzzParseRunAgentInput(f *testing.F) {
	f.Add([]byte(`{"threadId":"t","runId":"r","messages":[{"id":"m","role":"user","content":"hi"}]}`))
	f.Add([]byte("{\"threadId\":\"t\xff\",\"runId\":\"r\",\"messages\":[]}"))
	f.Add([]byte(`{"threadId":"t","runId":"r","messages":[{"id":"m","role":"assistant","toolCalls":[{"id":"c","type":"function","function":{"name":"f","arguments":"{}"}}]}],"resume":[{"interruptId":"i","status":"resolved"}]}`))
	for _, c := range sameVerdictCases {
		f.Add([]byte(c))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		in, err := ParseRunAgentInput(b)
		sameVerdict(t, b, in, err)
		if err != nil {
			return
		}
		if !utf8.Valid(b) {
			t.Fatalf("accepted invalid UTF-8")
		}
		for _, id := range []string{in.ThreadID, in.RunID} {
			if id == "" || len(id) > MaxIDBytes {
				t.Fatalf("accepted id %q", id)
			}
		}
		for _, m := range in.Messages {
			if !validRoles[m.Role] || len(m.ID) > MaxIDBytes {
				t.Fatalf("accepted message %+v", m)
			}
		}
	})
}

// sameVerdictCases are bodies where decoding once could go wrong: keys
// repeated, escaped, in another case; a decoding error beside a missing
// member; null and other values at the top.
var sameVerdictCases = []string{
	`null`, ` [1] `, `"x"`, `{}`, ` { } `,
	`{"threadId":1,"threadId":"t","runId":"r","messages":[]}`,
	`{"threadId":"t","threadId":"","runId":"r","messages":[]}`,
	`{"thread\u0049d":"t","runId":"r","messages":[]}`,
	`{"thread\u0049d":"t","runId":"r","messages":[],"tools":{}}`,
	`{"THREADID":"t","runId":"r","messages":[]}`,
	`{"threadId":"t","runId":"r","Messages":[]}`,
	`{"threadId":"t","runId":"r","messages":null}`,
	`{"threadId":"t","runId":"r","messages":"x"}`,
	`{"threadId":"t","runId":"r","messages":{}}`,
	`{"threadId":"t","runId":"r","messages":[],"messages":null}`,
	`{"runId":"r","messages":[],"tools":{}}`,
	`{"threadId":null,"runId":"r","messages":[]}`,
	`{"threadId":"t\"}","runId":"r","messages":[]}`,
	`{"a":"\\","threadId":"t","runId":"r","messages":[]}`,
	`{"a":{"threadId":"x","b":["}",{"c":"\"]"}]},"threadId":"t","runId":"r","messages":[],"z":[1,true,null,-2.5e3]}`,
	` { "threadId" : "t" , "runId" : "r" , "messages" : [ ] , "state" : null } `,
	`{"threadId":"t","runId":"r","messages":[{"id":"m","role":"user","content":7}]}`,
	`{"threadId":"t","runId":"r","messages":[{"id":"m","role":"user","content":"hi"}],"forwardedProps":{"a":1}}`,
	"{\"threadId\":\"t\",\"runId\":\"r\",\"messages\":[],\"k\xff\":1}",
	`{"threadId":"t","runId":"r","messages":[]} `,
}

// parseTwice is a reference ParseRunAgentInput that decodes twice: the
// members into a map first, then the struct. Decoding once must give the
// same verdicts.
func parseTwice(b []byte) (*RunAgentInput, error) {
	var probe map[string]json.RawMessage
	if err := json.Unmarshal(b, &probe); err != nil {
		var se *json.SyntaxError
		if errors.As(err, &se) {
			return nil, &InputError{Reason: fmt.Sprintf("malformed JSON at byte %d: %v", se.Offset, err)}
		}
		return nil, &InputError{Reason: "body must be a JSON object"}
	}
	if !utf8.Valid(b) {
		return nil, &InputError{Field: invalidUTF8Path(b), Reason: "is not valid UTF-8"}
	}
	for _, f := range []string{"threadId", "runId"} {
		v, ok := probe[f]
		if !ok || string(v) == "null" {
			return nil, &InputError{Field: f, Reason: "required"}
		}
		var s string
		if json.Unmarshal(v, &s) != nil || s == "" {
			return nil, &InputError{Field: f, Reason: "must be a non-empty string"}
		}
	}
	if v, ok := probe["messages"]; !ok || string(v) == "null" {
		return nil, &InputError{Field: "messages", Reason: "required"}
	}
	var in RunAgentInput
	if err := json.Unmarshal(b, &in); err != nil {
		var te *json.UnmarshalTypeError
		if errors.As(err, &te) {
			return nil, &InputError{Field: te.Field, Reason: "must be " + te.Value + " of the right type"}
		}
		return nil, &InputError{Reason: err.Error()}
	}
	if err := complete(&in); err != nil { // unchanged: shared
		return nil, err
	}
	return &in, nil
}

// sameVerdict fails unless in and err, ParseRunAgentInput's answer to b,
// are what parseTwice answers.
func sameVerdict(t *testing.T, b []byte, in *RunAgentInput, err error) {
	t.Helper()
	want, wantErr := parseTwice(b)
	if (err == nil) != (wantErr == nil) || err != nil && err.Error() != wantErr.Error() {
		t.Fatalf("ParseRunAgentInput(%q) error = %v, want %v", b, err, wantErr)
	}
	if err != nil {
		return
	}
	got, _ := json.Marshal(in)
	exp, _ := json.Marshal(want)
	if !bytes.Equal(got, exp) {
		t.Fatalf("ParseRunAgentInput(%q) = %s, want %s", b, got, exp)
	}
}

func TestParseRunAgentInputSameVerdicts(t *testing.T) {
	for _, c := range sameVerdictCases {
		in, err := ParseRunAgentInput([]byte(c))
		sameVerdict(t, []byte(c), in, err)
	}
}

func TestTranscriptBudget(t *testing.T) {
	left := 300
	tr := NewTranscript([]Message{{ID: "u", Role: RoleUser, Content: Text(strings.Repeat("h", 1000))}})
	tr.SetBudget(func(n int) bool {
		if n > left {
			return false
		}
		left -= n
		return true
	})
	tr.Apply(&TextMessageStart{MessageID: "m", Role: "assistant"})
	for range 10 {
		tr.Apply(&TextMessageContent{MessageID: "m", Delta: strings.Repeat("x", 50)})
	}
	tr.Apply(&TextMessageEnd{MessageID: "m"})
	tr.Apply(&ToolCallResult{MessageID: "r", ToolCallID: "c", Content: strings.Repeat("z", 500)})
	tr.Apply(&ActivitySnapshot{MessageID: "a", ActivityType: "x", Content: JSON(`{"big":"` + strings.Repeat("q", 500) + `"}`)})
	msgs := tr.Messages()
	// user, the cut assistant message, the cut tool result, and a note
	// for the activity that was not kept.
	if len(msgs) != 4 || msgs[3].ID != cutNoteID {
		t.Fatalf("messages = %+v", msgs)
	}
	if got := msgs[1].Content.String(); !strings.HasSuffix(got, CutMarker) || strings.Count(got, "x") > 300 {
		t.Errorf("cut text = %q", got)
	}
	if msgs[2].Content.String() != strings.TrimSpace(CutMarker) {
		t.Errorf("tool result over budget = %q", msgs[2].Content.String())
	}
	if msgs[0].Content.String() != strings.Repeat("h", 1000) {
		t.Errorf("the given history was cut")
	}
}

func TestScopedThreadID(t *testing.T) {
	if ScopedThreadID("", "t") != "t" {
		t.Errorf("no principal must keep the id")
	}
	a, b := ScopedThreadID("alice", "t"), ScopedThreadID("bob", "t")
	if a == b || !strings.HasPrefix(a, "t~") || a != ScopedThreadID("alice", "t") {
		t.Errorf("scoped ids %q, %q", a, b)
	}
}

// FuzzFastPathsAgree: whatever the bytes, the delta fast paths decode and
// encode exactly as the general codec does.
func FuzzFastPathsAgree(f *testing.F) {
	for _, s := range []string{
		`{"type":"TEXT_MESSAGE_CONTENT","messageId":"m","delta":"hi"}`,
		`{"delta":"a\"b\\c\n\u2028<&>","messageId":"m","type":"TEXT_MESSAGE_CONTENT"}`,
		`{"type":"TOOL_CALL_ARGS","toolCallId":"c","delta":"{\"x\":1}"}`,
		`{"type":"REASONING_MESSAGE_CONTENT","messageId":"m","delta":"é\u00e9\ud83d\ude00"}`,
		`{"type":"TEXT_MESSAGE_END","messageId":"m"}`,
		`{"type":"TOOL_CALL_END","toolCallId":"c"}`,
		"{\"type\":\"TEXT_MESSAGE_CONTENT\",\"messageId\":\"m\",\"delta\":\"bad \xff\"}",
		`{"type":"TEXT_MESSAGE_CONTENT","messageId":"m","delta":null}`,
		`{"type":"TEXT_MESSAGE_CONTENT","messageId":"m","delta":"x","timestamp":1}`,
		`{"type":"TEXT_MESSAGE_CONTENT","messageId":"m","delta":"a<b & c>d"}`,
		"{\"type\":\"TEXT_MESSAGE_CONTENT\",\"messageId\":\"m\",\"delta\":\"line\xe2\x80\xa8sep \xe2\x80\x94 dash\"}",
		`{"type":"TOOL_CALL_ARGS","toolCallId":"","delta":""}`,
		`{"type":"TEXT_MESSAGE_CONTENT", "messageId":"m","delta":"spaced"}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		fast, ok := fastParse(nil, data)
		if !ok {
			return
		}
		var w wireEvent
		if err := json.Unmarshal(data, &w); err != nil {
			t.Fatalf("fast path accepted what the decoder refuses: %q: %v", data, err)
		}
		// The general path on the same bytes, with the fast path off: a
		// trailing key the fast path does not know forces it.
		trimmed := bytes.TrimRight(data, " \t\r\n")
		general, err := ParseEvent(append(trimmed[:len(trimmed)-1:len(trimmed)-1], []byte(`,"name":""}`)...))
		if err != nil {
			t.Fatalf("general path: %v", err)
		}
		a, _ := fast.MarshalJSON()
		b, _ := general.MarshalJSON()
		if string(a) != string(b) {
			t.Fatalf("%q: fast %s, general %s", data, a, b)
		}
		// And the fast encoder agrees with the reflection one.
		c, _ := marshalAny(fast)
		if string(a) != string(c) {
			t.Fatalf("%q: fast encoding %s, general %s", data, a, c)
		}
		// A busy stream's arena decodes the same event.
		busy := &arena{seen: arenaAfter}
		inBlock, ok := fastParse(busy, data)
		if !ok {
			t.Fatalf("%q: refused from a busy arena", data)
		}
		if d, _ := inBlock.MarshalJSON(); string(d) != string(a) {
			t.Fatalf("%q: from a busy arena %s, from the heap %s", data, d, a)
		}
	})
}

// marshalAny encodes an event with the general encoder.
func marshalAny(ev Event) ([]byte, error) {
	switch e := ev.(type) {
	case *TextMessageContent:
		type wire TextMessageContent
		return marshalTyped(TypeTextMessageContent, (*wire)(e))
	case *ReasoningMessageContent:
		type wire ReasoningMessageContent
		return marshalTyped(TypeReasoningMessageContent, (*wire)(e))
	case *ToolCallArgs:
		type wire ToolCallArgs
		return marshalTyped(TypeToolCallArgs, (*wire)(e))
	case *TextMessageEnd:
		type wire TextMessageEnd
		return marshalTyped(TypeTextMessageEnd, (*wire)(e))
	case *ReasoningMessageEnd:
		type wire ReasoningMessageEnd
		return marshalTyped(TypeReasoningMessageEnd, (*wire)(e))
	case *ToolCallEnd:
		type wire ToolCallEnd
		return marshalTyped(TypeToolCallEnd, (*wire)(e))
	}
	return ev.MarshalJSON()
}

// A delta in the canonical layout is not re-encoded: MarshalJSON returns
// the upstream's bytes without allocating, until a field changes.
func TestCanonicalDeltaKept(t *testing.T) {
	for _, in := range []string{
		`{"type":"TEXT_MESSAGE_CONTENT","messageId":"m1","delta":"hello — world"}`,
		`{"type":"TOOL_CALL_ARGS","toolCallId":"c1","delta":"{\"x\""}`, // escaped: re-encoded
		`{"type":"REASONING_MESSAGE_CONTENT","messageId":"r","delta":""}`,
	} {
		ev, err := ParseEvent([]byte(in))
		if err != nil {
			t.Fatal(err)
		}
		out, _ := ev.MarshalJSON()
		if string(out) != in {
			t.Fatalf("%s re-encoded as %s", in, out)
		}
		allocs := testing.AllocsPerRun(100, func() { _, _ = ev.MarshalJSON() })
		if kept := !strings.Contains(in, `\`); kept != (allocs == 0) {
			t.Errorf("%s: %v allocations per MarshalJSON", in, allocs)
		}
	}
	ev, _ := ParseEvent([]byte(`{"type":"TEXT_MESSAGE_CONTENT","messageId":"m","delta":"abc"}`))
	tm := ev.(*TextMessageContent)
	for _, change := range []func(){
		func() { tm.Delta = "xyz" },                    // same length
		func() { tm.Delta = "ab<" },                    // needs an escape
		func() { tm.MessageID, tm.Delta = "mm", "ab" }, // lengths trade
		func() { tm.Delta = "abc"; tm.Timestamp = 7 },  // a Base field
		func() { tm.MessageID = strings.Clone("m") },   // same value, new string
	} {
		change()
		want, _ := marshalAny(tm)
		if got, _ := tm.MarshalJSON(); string(got) != string(want) {
			t.Fatalf("after a change: %s, want %s", got, want)
		}
	}
}

// kept is shared by every stream: a slot may hold another delta's bytes
// when an event is encoded. They are used only if they are the event's
// own encoding; else the event is encoded afresh.
func TestKeptSlotHoldsAnotherDelta(t *testing.T) {
	ev, err := ParseEvent([]byte(`{"type":"TEXT_MESSAGE_CONTENT","messageId":"m","delta":"abc"}`))
	if err != nil {
		t.Fatal(err)
	}
	empty := &TextMessageContent{}
	for _, e := range []*TextMessageContent{ev.(*TextMessageContent), empty} {
		slot := keptSlot(unsafe.Pointer(e))
		own := slot.Load()
		for _, other := range []string{
			`{"type":"TEXT_MESSAGE_CONTENT","messageId":"m","delta":"abc"}`, // equal bytes, not the event's
			`{"type":"TEXT_MESSAGE_CONTENT","messageId":"","delta":""}`,
			// Another type whose length is that of e's encoding: only
			// the layout check tells them apart.
			`{"type":"TOOL_CALL_ARGS","toolCallId":"c","delta":"ab"}`,
			`{"type":"TOOL_CALL_ARGS","toolCallId":"c","delta":"abcd"}`,
			`{"type":"TOOL_CALL_ARGS","toolCallId":"c","delta":"abcdefghijk"}`,
		} {
			w := []byte(other)
			slot.Store(&w)
			want, _ := marshalAny(e)
			got, _ := e.MarshalJSON()
			if string(got) != string(want) {
				t.Fatalf("slot holding %s: %s, want %s", other, got, want)
			}
			// Bytes cut from elsewhere are not e's own (an empty id and
			// delta have no bytes: any encoding of them is theirs).
			if e != empty && &got[0] == &w[0] {
				t.Fatalf("slot holding %s: its bytes were returned for %s", other, want)
			}
		}
		slot.Store(own)
	}
	// The event's own bytes, back in its slot, are used again.
	e := ev.(*TextMessageContent)
	if allocs := testing.AllocsPerRun(10, func() { _, _ = e.MarshalJSON() }); allocs != 0 {
		t.Fatalf("%v allocations with the event's bytes in its slot", allocs)
	}
}
