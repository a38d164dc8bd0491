package agui_test

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/genui-adapter/genui-adapter/agui"
)

func TestParseRunAgentInput(t *testing.T) {
	for _, tt := range []struct {
		name      string
		in        string
		wantField string // for errors
		check     func(t *testing.T, in *agui.RunAgentInput)
	}{
		{name: "1.0 shape", in: `{"threadId":"t","runId":"r","protocolVersion":"1.0","state":{},"messages":[],"tools":[],"context":[],"forwardedProps":{}}`},
		{name: "0.0.59 shape", in: `{"threadId":"t","runId":"r","tools":[{"name":"x","description":"d","parameters":{"type":"object"}}],"context":[{"description":"d","value":"v"}],"forwardedProps":{"a":1},"state":{"s":1},"messages":[{"id":"u","role":"user","content":"hi"}]}`,
			check: func(t *testing.T, in *agui.RunAgentInput) {
				if len(in.Tools) != 1 || in.Messages[0].Content.String() != "hi" || string(in.ForwardedProp("a")) != "1" {
					t.Errorf("parsed %+v", in)
				}
			}},
		{name: "null state, absent tools and context, unknown keys", in: `{"threadId":"t","runId":"r","state":null,"messages":[],"somethingNew":true}`,
			check: func(t *testing.T, in *agui.RunAgentInput) {
				b, _ := json.Marshal(in)
				if string(b) != `{"threadId":"t","runId":"r","messages":[],"tools":[],"context":[]}` {
					t.Errorf("re-encoded = %s", b)
				}
			}},
		{name: "parts and legacy binary", in: `{"threadId":"t","runId":"r","messages":[{"id":"u","role":"user","content":[{"type":"text","text":"a"},{"type":"binary","mimeType":"image/png","url":"https://x/y.png"},{"type":"image","source":{"type":"url","value":"https://x"}}]},{"id":"tm","role":"tool","toolCallId":"c","content":[{"type":"text","text":"r"}]}]}`,
			check: func(t *testing.T, in *agui.RunAgentInput) {
				if len(in.Messages[0].Content.Parts) != 3 || in.Messages[1].Content.String() != "r" {
					t.Errorf("parts = %+v", in.Messages)
				}
			}},
		{name: "assistant with tool calls and null name", in: `{"threadId":"t","runId":"r","messages":[{"id":"a","role":"assistant","name":null,"toolCalls":[{"id":"c","type":"function","function":{"name":"f","arguments":"{}"}}]}]}`,
			check: func(t *testing.T, in *agui.RunAgentInput) {
				b, _ := json.Marshal(in.Messages[0])
				if string(b) != `{"id":"a","role":"assistant","toolCalls":[{"id":"c","type":"function","function":{"name":"f","arguments":"{}"}}]}` {
					t.Errorf("re-encoded = %s", b)
				}
			}},
		{name: "malformed", in: `{"threadId":`, wantField: ""},
		{name: "not an object", in: `[1]`, wantField: ""},
		{name: "missing threadId", in: `{"runId":"r","messages":[]}`, wantField: "threadId"},
		{name: "empty runId", in: `{"threadId":"t","runId":"","messages":[]}`, wantField: "runId"},
		{name: "missing messages", in: `{"threadId":"t","runId":"r"}`, wantField: "messages"},
		{name: "message without role", in: `{"threadId":"t","runId":"r","messages":[{"id":"x"}]}`, wantField: "messages[0].role"},
		{name: "tools wrong type", in: `{"threadId":"t","runId":"r","messages":[],"tools":{}}`, wantField: "tools"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			in, err := agui.ParseRunAgentInput([]byte(tt.in))
			wantErr := tt.wantField != "" || tt.check == nil && tt.name != "1.0 shape"
			if tt.name == "1.0 shape" {
				wantErr = false
			}
			if wantErr {
				var ie *agui.InputError
				if !errors.As(err, &ie) || !errors.Is(err, agui.ErrInvalidInput) {
					t.Fatalf("ParseRunAgentInput(%s) error = %v, want an *InputError", tt.in, err)
				}
				if ie.Field != tt.wantField {
					t.Errorf("ParseRunAgentInput(%s) field = %q, want %q", tt.in, ie.Field, tt.wantField)
				}
				return
			}
			if err != nil {
				t.Fatalf("ParseRunAgentInput(%s) = %v", tt.in, err)
			}
			if tt.check != nil {
				tt.check(t, in)
			}
		})
	}
}

// AppendJSON writes exactly what json.Marshal writes, whatever the
// message.
func TestMessageAppendJSONIsMarshal(t *testing.T) {
	long := strings.Repeat("token <b>&amp; \u2028 \xff \x01 \"q\" \\ é 😀 ", 40)
	obj := agui.Object(json.RawMessage(`{"a":1}`))
	for _, m := range []agui.Message{
		{ID: "m", Role: agui.RoleAssistant, Content: agui.Text(long)},
		{ID: "m<&>\u2029", Role: agui.RoleUser, Content: agui.Text(long), Name: "n", Metadata: agui.JSON(`{"k":"v"}`)},
		{ID: "a", Role: agui.RoleAssistant, Content: agui.Text(long), ToolCalls: []agui.ToolCall{{ID: "c", Type: "function", Function: agui.FunctionCall{Name: "f", Arguments: `{"x":1}`}}}},
		{ID: "t", Role: agui.RoleTool, Content: agui.Text(long), ToolCallID: "c", Error: "e"},
		{ID: "s", Role: agui.RoleAssistant, Content: agui.Text("short")},
		{ID: "e", Role: agui.RoleAssistant, Content: agui.Text("")},
		{ID: "z", Role: agui.RoleAssistant},
		{ID: "o", Role: agui.RoleActivity, ActivityType: "x", Content: obj},
		{ID: "p", Role: agui.RoleUser, Content: agui.Content{Parts: []agui.ContentPart{{Type: "text", Text: long}}}},
	} {
		want, err := json.Marshal(m)
		if err != nil {
			t.Fatal(err)
		}
		if got := m.AppendJSON([]byte("x")); string(got) != "x"+string(want) {
			t.Errorf("AppendJSON:\n%s\njson.Marshal:\n%s", got, want)
		}
	}
}

func FuzzMessageAppendJSON(f *testing.F) {
	f.Add("m", "assistant", strings.Repeat("a<\u2028\xff", 100), "")
	f.Fuzz(func(t *testing.T, id, role, text, name string) {
		text = strings.Repeat(text, 1+256/(len(text)+1)) // long enough for the one-pass path
		m := agui.Message{ID: id, Role: agui.Role(role), Content: agui.Text(text), Name: name}
		want, _ := json.Marshal(m)
		if got := m.AppendJSON(nil); string(got) != string(want) {
			t.Fatalf("AppendJSON %s, json.Marshal %s", got, want)
		}
	})
}

// forwardedPropByMap is ForwardedProp as it was: the whole object decoded
// into a map for every key asked for. The fast path must agree with it.
func forwardedPropByMap(fp []byte, key string) []byte {
	if len(fp) == 0 || fp[0] != '{' {
		return nil
	}
	var m map[string]json.RawMessage
	if json.Unmarshal(fp, &m) != nil {
		return nil
	}
	v := m[key]
	if v != nil && strings.TrimSpace(string(v)) == "null" {
		return nil
	}
	return v
}

var forwardedPropCases = []struct{ fp, key string }{
	{`{"genuiRender":["a2ui"]}`, "genuiRender"},
	{`{"N":1,"Rate":0}`, "genuiRender"},
	{`{"x":"genuiRender"}`, "genuiRender"},
	{`{"genuiRenderX":1}`, "genuiRender"},
	{`{"a":{"genuiRender":1}}`, "genuiRender"},
	{`{"genui\u0052ender":["html"]}`, "genuiRender"},
	{`{"k":1,"k":2}`, "k"},
	{`{"k":null}`, "k"},
	{`{"é":1}`, "é"},
	{`{"":1}`, ""},
	{`{"a":1`, "a"},
	{`{}`, "a"},
	{`[1]`, "a"},
}

func TestForwardedPropAgreesWithMap(t *testing.T) {
	for _, c := range forwardedPropCases {
		in := agui.RunAgentInput{ForwardedProps: agui.JSON(c.fp)}
		got, want := in.ForwardedProp(c.key), forwardedPropByMap([]byte(c.fp), c.key)
		if string(got) != string(want) || (got == nil) != (want == nil) {
			t.Errorf("ForwardedProp(%s, %q) = %s, want %s", c.fp, c.key, got, want)
		}
	}
}

// A run start asks for keys that are usually absent; asking must not
// decode the object (it cost about 4 KB of garbage per run start at
// 10,000 streams, three keys a run).
func TestForwardedPropAbsentKeyAllocatesNothing(t *testing.T) {
	in := agui.RunAgentInput{ForwardedProps: agui.JSON(`{"threadKind":"chat","N":1000,"Rate":20,"nested":{"a":[1,2,3]}}`)}
	if n := testing.AllocsPerRun(100, func() {
		if in.ForwardedProp("genuiRender") != nil || in.ForwardedProp("a2uiAction") != nil {
			t.Fatal("found an absent key")
		}
	}); n != 0 {
		t.Errorf("asking for two absent keys allocated %v times", n)
	}
	if string(in.ForwardedProp("Rate")) != "20" {
		t.Errorf("Rate = %s", in.ForwardedProp("Rate"))
	}
}

// parsedWith parses a minimal run whose forwardedProps is fp.
func parsedWith(t testing.TB, fp string) *agui.RunAgentInput {
	t.Helper()
	in, err := agui.ParseRunAgentInput([]byte(`{"threadId":"t","runId":"r","messages":[],"forwardedProps":` + fp + `}`))
	if err != nil {
		t.Fatal(err)
	}
	return in
}

// A LangGraph run start asks for config, context, command and the stream
// keys; a parsed input must decode forwardedProps once, not once per key.
func TestForwardedPropDecodesParsedInputOnce(t *testing.T) {
	in := parsedWith(t, `{"config":{"configurable":{"model":"m"}},"context":{"user":"u"},"command":{"resume":"yes"},"streamSubgraphs":false,"nested":{"a":[1,2,3]}}`)
	keys := []string{"config", "context", "command", "streamSubgraphs"}
	want := []string{`{"configurable":{"model":"m"}}`, `{"user":"u"}`, `{"resume":"yes"}`, `false`}
	for i, k := range keys {
		if got := string(in.ForwardedProp(k)); got != want[i] {
			t.Fatalf("%s = %s, want %s", k, got, want[i])
		}
	}
	if n := testing.AllocsPerRun(100, func() {
		for _, k := range keys {
			if in.ForwardedProp(k) == nil {
				t.Fatal("lost " + k)
			}
		}
	}); n != 0 {
		t.Errorf("asking a parsed input for four present keys allocated %v times; the object is decoded again", n)
	}
}

// BenchmarkForwardedPropLangGraphKeys is a LangGraph run start's lookups:
// parse, then five keys, four of them present.
func BenchmarkForwardedPropLangGraphKeys(b *testing.B) {
	body := []byte(`{"threadId":"t","runId":"r","messages":[],"forwardedProps":{"config":{"configurable":{"model":"m"}},"context":{"user":"u"},"command":{"resume":"yes"},"streamSubgraphs":false}}`)
	b.ReportAllocs()
	for b.Loop() {
		in, err := agui.ParseRunAgentInput(body)
		if err != nil {
			b.Fatal(err)
		}
		for _, k := range []string{"streamSubgraphs", "config", "context", "command", "genuiRender"} {
			_ = in.ForwardedProp(k)
		}
	}
}

// BenchmarkParseRunAgentInputHistory is a chat's run start: 40 messages
// of history and 10 tools, about 22 KB, as a CopilotKit frontend sends
// with every run.
func BenchmarkParseRunAgentInputHistory(b *testing.B) {
	var sb strings.Builder
	sb.WriteString(`{"threadId":"t","runId":"r","state":{},"messages":[`)
	for i := range 40 {
		if i > 0 {
			sb.WriteByte(',')
		}
		role := "user"
		if i%2 == 1 {
			role = "assistant"
		}
		fmt.Fprintf(&sb, `{"id":"m%d","role":"%s","content":"%s"}`, i, role, strings.Repeat("lorem ipsum ", 40))
	}
	sb.WriteString(`],"tools":[`)
	for i := range 10 {
		if i > 0 {
			sb.WriteByte(',')
		}
		fmt.Fprintf(&sb, `{"name":"tool%d","description":"does a thing","parameters":{"type":"object","properties":{"a":{"type":"string"},"b":{"type":"number"}},"required":["a"]}}`, i)
	}
	sb.WriteString(`],"context":[],"forwardedProps":{}}`)
	body := []byte(sb.String())
	b.SetBytes(int64(len(body)))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := agui.ParseRunAgentInput(body); err != nil {
			b.Fatal(err)
		}
	}
}

// The index belongs to the bytes it was built from: a middleware that
// replaces ForwardedProps sees its own value, and a copy of the input
// sees the same members as the original.
func TestForwardedPropFollowsReplacement(t *testing.T) {
	in := parsedWith(t, `{"a":1,"b":2}`)
	c := *in
	c.ForwardedProps = agui.JSON(`{"a":3}`)
	if got := string(c.ForwardedProp("a")); got != "3" {
		t.Errorf("replaced forwardedProps: a = %s, want 3", got)
	}
	if got := c.ForwardedProp("b"); got != nil {
		t.Errorf("replaced forwardedProps: b = %s, want absent", got)
	}
	if got := string(in.ForwardedProp("a")); got != "1" {
		t.Errorf("original: a = %s, want 1", got)
	}
	d := *in
	if got := string(d.ForwardedProp("b")); got != "2" {
		t.Errorf("copy: b = %s, want 2", got)
	}
	// Values share the index's bytes; two callers appending to them
	// must not write into each other's results.
	x := append(d.ForwardedProp("b"), '9')
	y := append(in.ForwardedProp("b"), '8')
	if string(x) != "29" || string(y) != "28" {
		t.Errorf("two appends to b gave %s and %s, want 29 and 28", x, y)
	}
}

// Several middlewares may ask at once; go test -race checks the lazy
// decode.
func TestForwardedPropConcurrent(t *testing.T) {
	in := parsedWith(t, `{"a":1,"b":[2],"c":{"d":3}}`)
	var wg sync.WaitGroup
	for range 8 {
		wg.Go(func() {
			for _, k := range []string{"c", "b", "a"} {
				if in.ForwardedProp(k) == nil {
					t.Error("lost " + k)
				}
			}
		})
	}
	wg.Wait()
}

func FuzzForwardedProp(f *testing.F) {
	for _, c := range forwardedPropCases {
		f.Add(c.fp, c.key)
	}
	f.Fuzz(func(t *testing.T, fp, key string) {
		want := forwardedPropByMap([]byte(fp), key)
		in := agui.RunAgentInput{ForwardedProps: agui.JSON(fp)}
		if got := in.ForwardedProp(key); string(got) != string(want) || (got == nil) != (want == nil) {
			t.Fatalf("ForwardedProp(%q, %q) = %q, want %q", fp, key, got, want)
		}
		// The same through the parsed input's index, asked twice.
		parsed, err := agui.ParseRunAgentInput([]byte(`{"threadId":"t","runId":"r","messages":[],"forwardedProps":` + fp + `}`))
		if err != nil {
			return
		}
		if string(parsed.ForwardedProps) != fp {
			return // fp was not one JSON value: the body parsed another way
		}
		for range 2 {
			if got := parsed.ForwardedProp(key); string(got) != string(want) || (got == nil) != (want == nil) {
				t.Fatalf("parsed ForwardedProp(%q, %q) = %q, want %q", fp, key, got, want)
			}
		}
	})
}
