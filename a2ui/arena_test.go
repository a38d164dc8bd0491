package a2ui

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// TestArenaBounds: what an arena keeps is bounded: a map that held many
// keys is not kept, and an arena whose buffer grew too big is not pooled
// again.
func TestArenaBounds(t *testing.T) {
	a := new(arena)
	big, small := a.obj(), a.obj()
	for i := range arenaMaxMapLen + 1 {
		big[fmt.Sprint(i)] = i
	}
	small["k"] = 1
	if !a.reset() || a.maps[0] != nil || a.maps[1] == nil || len(a.maps[1]) != 0 {
		t.Fatalf("after reset: maps %v", a.maps)
	}
	a.encode(strings.Repeat("x", arenaMaxBuf))
	if a.reset() {
		t.Error("an arena with a buffer of more than arenaMaxBuf would be pooled")
	}
}

// TestV08HeldKeepsNoArena: a v0.8 message held for its surface's
// beginRendering keeps no arena (every arena taken is back in the pool
// once Convert returns) and no part of the caller's buffer; it is
// converted whole when beginRendering comes.
func TestV08HeldKeepsNoArena(t *testing.T) {
	countArenas = true
	defer func() { countArenas = false }()
	c := MustValidator(Options{}).NewV08Converter("")
	b := []byte(`{"surfaceUpdate":{"surfaceId":"s","components":[{"id":"root","component":{"Text":{"text":{"literalString":"held text"}}}}]}}`)
	before := arenasOut.Load()
	if out, errs := c.Convert(b); len(out) != 0 || len(errs) != 0 {
		t.Fatalf("surfaceUpdate before beginRendering: %v, %v", out, errs)
	}
	if n := arenasOut.Load() - before; n != 0 {
		t.Errorf("a held message keeps %d arenas", n)
	}
	for i := range b {
		b[i] = '#' // the caller's buffer, reused
	}
	out, errs := c.Convert([]byte(`{"beginRendering":{"surfaceId":"s","root":"root"}}`))
	if len(errs) != 0 || len(out) != 2 || !strings.Contains(string(out[1].Message), `"held text"`) {
		t.Fatalf("beginRendering: %v, %v", out, errs)
	}
	if n := arenasOut.Load() - before; n != 0 {
		t.Errorf("%d arenas out after beginRendering", n)
	}
}

// conversions is what every conversion gives for msgs, in a form that
// compares equal when the results are the same: the messages and their
// sources as they are, the issues sorted, each message as the set of its
// words (the official schemas' checks word some errors in map order).
func conversions(v *Validator, msgs []json.RawMessage) []string {
	var out []string
	issues := func(errs []Error) string {
		words := regexp.MustCompile(`[^\s'",;:()]+`)
		var l []string
		for _, e := range errs {
			w := words.FindAllString(e.Message, -1)
			slices.Sort(w)
			l = append(l, fmt.Sprintf("%d %s %q %q %q", e.Index, e.Rule, e.SurfaceID, e.Path, slices.Compact(w)))
		}
		slices.Sort(l)
		return strings.Join(l, "\n")
	}
	add := func(kind string, m []json.RawMessage, src []int, errs []Error) {
		var b strings.Builder
		for i, x := range m {
			fmt.Fprintf(&b, "%d %s\n", src[i], x)
		}
		out = append(out, kind+"\n"+b.String()+issues(errs))
	}
	u := v.Upgrade(msgs, "")
	add("upgrade", u.Messages, u.Sources, u.Issues)
	d := v.Downgrade(msgs)
	add("downgrade", d.Messages, d.Sources, d.Issues)
	d = v.Downgrade(u.Messages)
	add("upgrade, downgrade", d.Messages, d.Sources, d.Issues)
	up := v.NewUpgrader("v0.9.1")
	for _, m := range msgs { // one part each: v0.8 messages held and decoded again
		n := up.Next([]json.RawMessage{m})
		add("next", n.Messages, n.Sources, n.Issues)
	}
	add("finish", nil, nil, up.Finish())
	return out
}

// sameWithoutArenas reports how the conversions of msgs with arenas
// (twice, the second time with the verdicts remembered, each after
// converting other) differ from those that make every map and string.
func sameWithoutArenas(t *testing.T, v *Validator, msgs, other []json.RawMessage) {
	t.Helper()
	arenasOff = true
	want := conversions(v, msgs)
	arenasOff = false
	for range 2 {
		conversions(v, other)
		if got := conversions(v, msgs); !slices.Equal(got, want) {
			for i := range got {
				if got[i] != want[i] {
					t.Fatalf("with arenas:\n%s\nwithout:\n%s", got[i], want[i])
				}
			}
		}
	}
}

func readMessages(t *testing.T, path string) []json.RawMessage {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var sample struct {
		Messages []json.RawMessage `json:"messages"`
	}
	if json.Unmarshal(b, &sample.Messages) != nil { // v0.8 examples are a list
		if err := json.Unmarshal(b, &sample); err != nil {
			t.Fatal(err)
		}
	}
	return sample.Messages
}

func officialMessages(t *testing.T) [][]json.RawMessage {
	var files []string
	for _, g := range []string{"v0_8/*/*.json", "v1_0/*.json", "examples/basic/*.json"} {
		f, _ := filepath.Glob(filepath.Join("../schemas/testdata", g))
		files = append(files, f...)
	}
	if len(files) < 60 {
		t.Fatalf("%d official examples", len(files))
	}
	var all [][]json.RawMessage
	for _, f := range files {
		all = append(all, readMessages(t, f))
	}
	return all
}

// TestArenasSameResults: every conversion of every official example
// (v0.8 and v1.0 up, v0.9.1 down, up then down, one message at a time)
// gives the same with arenas as without, converted again and after
// other messages (a map or list kept past put is cleared and lent again
// then, so it shows).
func TestArenasSameResults(t *testing.T) {
	v := MustValidator(Options{})
	all := officialMessages(t)
	for i, msgs := range all {
		sameWithoutArenas(t, v, msgs, all[(i+1)%len(all)])
	}
}

// FuzzArenas: whatever the messages, conversions give the same with
// arenas as without.
func FuzzArenas(f *testing.F) {
	f.Add([]byte(`[{"surfaceUpdate":{"surfaceId":"s~/","components":[{"id":"r","component":{"Text":{"text":{"path":"/a","literalString":"x"}}}},{"id":"b","component":{"Button":{"child":"r","action":{"name":"go","context":[{"key":"k","value":{"literalNumber":1}}]}}}}]}},` +
		`{"dataModelUpdate":{"surfaceId":"s~/","path":"a","contents":[{"key":"x","valueMap":[{"key":"y","valueString":"[1,{\"z\":2}]"}]}]}},{"beginRendering":{"surfaceId":"s~/","root":"r","styles":{"font":"x"}}}]`))
	f.Add([]byte(`[{"version":"v1.0","createSurface":{"surfaceId":"s","catalogId":"c","components":[{"id":"root","component":"Text","text":{"call":"formatString","args":{"value":"${/a}"},"catalogId":"other"},"metadata":{"m":1}}],"dataModel":{"a":"b"}}},` +
		`{"version":"v1.0","updateDataModel":{"surfaceId":"s","path":"/a","value":null}},{"version":"v1.0","callRendererFunction":{"surfaceId":"s"}}]`))
	f.Add([]byte(`[{"version":"v0.9.1","createSurface":{"surfaceId":"s","catalogId":"x","theme":{"primaryColor":"#fff","agentDisplayName":"a"},"sendDataModel":true}},` +
		`{"version":"v0.9.1","updateComponents":{"surfaceId":"s","components":[{"id":"root","component":"Row","children":{"componentId":"t","path":"/l"},"justify":"stretch"},{"id":"t","component":"ChoicePicker","options":[{"label":{"call":"formatNumber","args":{"value":1}},"value":"a"}],"value":["a"],"accessibility":{}}]}},` +
		`{"version":"v0.9.1","updateDataModel":{"surfaceId":"s","value":{"l":[1,2],"m":{"n":{"o":null}},"a.b":"{x}"}}},{"version":"v0.9.1","deleteSurface":{"surfaceId":"s"}}]`))
	f.Add([]byte(`[{"beginRendering":{"surfaceId":"s","root":"r"}},{"surfaceUpdate":{"surfaceId":"s","components":[{"id":"r","component":{"List":{"children":{"template":{"componentId":"i","dataBinding":"/items"}}}}},{"id":"i","component":{"Text":{"text":{"path":"name"}}}}]}},` +
		`{"dataModelUpdate":{"surfaceId":"s","contents":[{"key":"items","valueMap":[{"key":"a","valueString":"x"}]}]}},{"dataModelUpdate":{"surfaceId":"s","path":"/items","contents":[{"key":"b","valueString":"y"}]}}]`))
	v := MustValidator(Options{})
	other := []json.RawMessage{
		json.RawMessage(`{"surfaceUpdate":{"surfaceId":"o","components":[{"id":"x","component":{"Text":{"text":{"literalString":"other"}}}}]}}`),
		json.RawMessage(`{"version":"v1.0","createSurface":{"surfaceId":"o","catalogId":"c","components":[{"id":"root","component":"Text","text":"other other"}]}}`),
		json.RawMessage(`{"version":"v0.9.1","updateComponents":{"surfaceId":"o","components":[{"id":"root","component":"Text","text":"other other other"}]}}`),
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		var msgs []json.RawMessage
		if json.Unmarshal(data, &msgs) != nil {
			return
		}
		for _, m := range msgs {
			// Downgrade and the v1.0 conversion take any one operation
			// of a message that carries several, so two runs may differ.
			var ops map[string]json.RawMessage
			json.Unmarshal(m, &ops)
			delete(ops, "version")
			if len(ops) > 1 {
				return
			}
		}
		sameWithoutArenas(t, v, msgs, other)
	})
}
