package langgraph

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/genui-adapter/genui-adapter/agui"
)

func TestPartialValue(t *testing.T) {
	for _, tt := range []struct {
		s, key string
		want   any
		ok     bool
	}{
		{`{"doc": "Hel`, "doc", "Hel", true},
		{`{"doc": "a\"b\u00e9c`, "doc", `a"béc`, true},
		{`{"doc": "ab\u00`, "doc", "ab", true}, // an escape still arriving
		{`{"doc": "ab\`, "doc", "ab", true},
		{`{"n": 12`, "n", nil, false}, // a number may still grow
		{`{"n": 12,`, "n", 12.0, true},
		{`{"steps": ["a", "b"`, "steps", nil, false},
		{`{"steps": ["a", "b"]}`, "steps", []any{"a", "b"}, true},
		{`{"x": {"doc": "inner"}, "doc": "outer"`, "doc", "outer", true}, // top level only
		{`{"other": "doc", "doc": "v"}`, "doc", "v", true},               // a value that looks like the key
		{`{"do`, "doc", nil, false},
	} {
		v, _, ok := partialValue(tt.s, tt.key)
		got, _ := json.Marshal(v)
		want, _ := json.Marshal(tt.want)
		if ok != tt.ok || (ok && string(got) != string(want)) {
			t.Errorf("partialValue(%q, %q) = %s, %v; want %s, %v", tt.s, tt.key, got, ok, want, tt.ok)
		}
	}
}

// A document streamed in small chunks: the state key follows it with few
// deltas (each a prefix of the document), and the last is the whole.
func TestPredictedStateDeltas(t *testing.T) {
	doc := strings.Repeat("All work and no play. ", 400)
	args, _ := json.Marshal(map[string]string{"document": doc})
	p := newPredicted(agui.JSON(`[{"tool":"write_document","tool_argument":"document","state_key":"document"},{"tool":"other","tool_argument":"x","state_key":"y"}]`), "write_document")
	var deltas []*agui.StateDelta
	for i := 0; i < len(args); i += 7 {
		if d := p.add(string(args[i:min(i+7, len(args))]), false); d != nil {
			deltas = append(deltas, d)
		}
	}
	if d := p.add("", true); d != nil {
		deltas = append(deltas, d)
	}
	if len(deltas) < 3 || len(deltas) > 40 {
		t.Fatalf("%d deltas for %d bytes of arguments", len(deltas), len(args))
	}
	prev := ""
	for _, d := range deltas {
		var ops []struct {
			Op, Path string
			Value    string
		}
		if err := json.Unmarshal(d.Delta, &ops); err != nil || len(ops) != 1 || ops[0].Op != "add" || ops[0].Path != "/document" {
			t.Fatalf("delta %s", d.Delta)
		}
		if !strings.HasPrefix(doc, ops[0].Value) || len(ops[0].Value) <= len(prev) {
			t.Fatalf("not a growing prefix: %q after %q", ops[0].Value, prev)
		}
		prev = ops[0].Value
	}
	if prev != doc {
		t.Errorf("the last delta holds %d bytes, the document %d", len(prev), len(doc))
	}
	if newPredicted(agui.JSON(`[{"tool":"other","tool_argument":"x","state_key":"y"}]`), "write_document") != nil {
		t.Error("a prediction for another tool")
	}
}

// FuzzPartialValue: any prefix of arguments is read without a panic, and a
// string value read from a prefix is a prefix of the whole value.
func FuzzPartialValue(f *testing.F) {
	for _, s := range []string{"hello", `quote " and \ slash`, "é ☃ 😀", "\u0000\n\t"} {
		f.Add(s, 5)
	}
	f.Fuzz(func(t *testing.T, doc string, cut int) {
		full, _ := json.Marshal(map[string]any{"pad": []any{"doc", 1}, "doc": doc})
		if cut < 0 {
			cut = -cut
		}
		cut %= len(full) + 1
		v, _, ok := partialValue(string(full[:cut]), "doc")
		if !ok {
			return
		}
		s, isString := v.(string)
		var want string // doc as JSON carries it (invalid bytes replaced)
		b, _ := json.Marshal(doc)
		_ = json.Unmarshal(b, &want)
		if !isString || !strings.HasPrefix(want, s) {
			t.Fatalf("partialValue(%q) = %#v, not a prefix of %q", full[:cut], v, doc)
		}
	})
}
