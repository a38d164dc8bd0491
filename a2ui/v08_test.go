package a2ui_test

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"runtime"
	"slices"
	"strings"
	"testing"

	"github.com/genui-adapter/genui-adapter/a2ui"
	"github.com/genui-adapter/genui-adapter/agui"
)

const v08Examples = "../schemas/testdata/v0_8"

var update = flag.Bool("update", false, "rewrite the golden files")

// v08Example reads an official v0.8 example: a JSON array of messages.
func v08Example(t testing.TB, path string) []json.RawMessage {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var msgs []json.RawMessage
	if err := json.Unmarshal(b, &msgs); err != nil {
		t.Fatal(err)
	}
	return msgs
}

func raw(msgs []json.RawMessage) [][]byte {
	out := make([][]byte, len(msgs))
	for i, m := range msgs {
		out[i] = m
	}
	return out
}

// TestV08OfficialExamplesConvert converts every official v0.8 example and
// validates the result against v0.9.1, strictly (no orphans).
func TestV08OfficialExamplesConvert(t *testing.T) {
	v := a2ui.MustValidator(a2ui.Options{Strict: true})
	files, _ := filepath.Glob(filepath.Join(v08Examples, "*", "*.json"))
	if len(files) != 35 {
		t.Fatalf("%d official v0.8 examples, want 35", len(files))
	}
	for _, f := range files {
		t.Run(filepath.Base(f), func(t *testing.T) {
			in := v08Example(t, f)
			u := v.Upgrade(in, "")
			if len(u.Issues) > 0 {
				t.Errorf("conversion issues: %v", u.Issues)
			}
			if len(u.Messages) < len(in) {
				t.Errorf("%d messages in, %d out", len(in), len(u.Messages))
			}
			if errs := v.ValidateBatch(raw(u.Messages)); len(errs) > 0 {
				t.Errorf("converted example fails v0.9.1: %v", errs)
			}
			if len(u.Versions) != 1 || u.Versions[0] != "v0.8" {
				t.Errorf("versions = %v", u.Versions)
			}
		})
	}
}

// TestV08Golden compares the conversion of a few official examples with
// golden files (go test -run TestV08Golden -update rewrites them).
func TestV08Golden(t *testing.T) {
	v := a2ui.MustValidator(a2ui.Options{})
	for _, name := range []string{"basic/13_coffee-order", "basic/30_modal-sample", "basic/09_login-form", "minimal/4_login_form"} {
		t.Run(name, func(t *testing.T) {
			u := v.Upgrade(v08Example(t, filepath.Join(v08Examples, name+".json")), "")
			var got bytes.Buffer
			for _, m := range u.Messages {
				var ind bytes.Buffer
				json.Indent(&ind, m, "", "  ")
				got.Write(ind.Bytes())
				got.WriteByte('\n')
			}
			golden := filepath.Join("testdata", "v08", strings.ReplaceAll(name, "/", "_")+".golden.jsonl")
			if *update {
				os.MkdirAll(filepath.Dir(golden), 0o755)
				if err := os.WriteFile(golden, got.Bytes(), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			want, err := os.ReadFile(golden)
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(got.Bytes(), want) {
				t.Errorf("conversion differs from %s:\n%s", golden, got.String())
			}
		})
	}
}

func msgs(s ...string) []json.RawMessage {
	out := make([]json.RawMessage, len(s))
	for i, m := range s {
		out[i] = json.RawMessage(m)
	}
	return out
}

func rules(errs []a2ui.Error) []string {
	var out []string
	for _, e := range errs {
		out = append(out, e.Rule+"@"+itoa(e.Index)+e.Path)
	}
	return out
}

func itoa(i int) string { b, _ := json.Marshal(i); return string(b) }

// TestV08Conversions checks each mapping the examples do not reach.
func TestV08Conversions(t *testing.T) {
	v := a2ui.MustValidator(a2ui.Options{})
	cases := []struct {
		name   string
		in     []json.RawMessage
		want   []string // substrings of the joined output
		issues []string
	}{{
		name: "root renamed, a component called root renamed, data before components, path and literal initialise data",
		in: msgs(
			`{"dataModelUpdate":{"surfaceId":"s","path":"user","contents":[{"key":"name","valueString":"Ada"},{"key":"tags","valueString":"[\"a\",\"b\"]"},{"key":"n","valueNumber":3},{"key":"ok","valueBoolean":true},{"key":"addr","valueMap":[{"key":"city","valueString":"Paris"}]}]}}`,
			`{"surfaceUpdate":{"surfaceId":"s","components":[{"id":"main","component":{"Column":{"children":{"explicitList":["root","f"]},"distribution":"spaceBetween","alignment":"center"}}},{"id":"root","component":{"Text":{"text":{"literalString":"hi"},"usageHint":"h1"}}},{"id":"f","weight":2,"component":{"TextField":{"label":{"literalString":"Name"},"text":{"path":"/form/name","literalString":"Guest"},"textFieldType":"obscured"}}}]}}`,
			`{"beginRendering":{"surfaceId":"s","root":"main","styles":{"primaryColor":"#112233"}}}`,
		),
		want: []string{
			`{"createSurface":{"catalogId":"https://a2ui.org/specification/v0_9/catalogs/basic/catalog.json","surfaceId":"s","theme":{"primaryColor":"#112233"}},"version":"v0.9"}`,
			`"path":"/user","surfaceId":"s","value":{"addr":{"city":"Paris"},"n":3,"name":"Ada","ok":true,"tags":["a","b"]}`,
			`{"align":"center","children":["root~v08","f"],"component":"Column","id":"root","justify":"spaceBetween"}`,
			`{"component":"Text","id":"root~v08","text":"hi","variant":"h1"}`,
			`{"component":"TextField","id":"f","label":"Name","value":{"path":"/form/name"},"variant":"obscured","weight":2}`,
			`{"updateDataModel":{"path":"/form/name","surfaceId":"s","value":"Guest"},"version":"v0.9"}`,
		},
	}, {
		name: "button action context, primary, choice, slider, tabs, modal, image, template over a map",
		in: msgs(
			`{"beginRendering":{"surfaceId":"s","root":"r","styles":{"font":"Roboto"}}}`,
			`{"surfaceUpdate":{"surfaceId":"s","components":[
			 {"id":"r","component":{"List":{"children":{"template":{"componentId":"item","dataBinding":"/items"}},"alignment":"start"}}},
			 {"id":"item","component":{"Text":{"text":{"path":"name"}}}},
			 {"id":"b","component":{"Button":{"child":"r","primary":true,"action":{"name":"go","context":[{"key":"id","value":{"literalNumber":7}},{"key":"who","value":{"path":"/user/name"}}]}}}},
			 {"id":"c","component":{"MultipleChoice":{"selections":{"literalArray":["x"]},"options":[{"label":{"literalString":"X"},"value":"x"}],"maxAllowedSelections":1,"variant":"chips","filterable":true}}},
			 {"id":"c2","component":{"MultipleChoice":{"selections":{"path":"/sel"},"options":[],"maxAllowedSelections":3}}},
			 {"id":"sl","component":{"Slider":{"value":{"literalNumber":2},"minValue":1}}},
			 {"id":"t","component":{"Tabs":{"tabItems":[{"title":{"literalString":"One"},"child":"r"}]}}},
			 {"id":"m","component":{"Modal":{"entryPointChild":"b","contentChild":"t"}}},
			 {"id":"i","component":{"Image":{"url":{"literalString":"https://x/y.png"},"altText":{"path":"/alt"},"fit":"scale-down","usageHint":"avatar"}}},
			 {"id":"d","component":{"TextField":{"label":{"literalString":"When"},"textFieldType":"date"}}}]}}`,
			`{"dataModelUpdate":{"surfaceId":"s","path":"/items","contents":[{"key":"k1","valueMap":[{"key":"name","valueString":"A"}]},{"key":"k2","valueMap":[{"key":"name","valueString":"B"}]}]}}`,
		),
		want: []string{
			`"children":{"componentId":"item","path":"/items"}`, `"align":"start"`,
			`"action":{"event":{"context":{"id":7,"who":{"path":"/user/name"}},"name":"go"}}`, `"variant":"primary"`,
			`{"component":"ChoicePicker","displayStyle":"chips","filterable":true,"id":"c","options":[{"label":"X","value":"x"}],"value":["x"],"variant":"mutuallyExclusive"}`,
			`"id":"c2","options":[],"value":{"path":"/sel"},"variant":"multipleSelection"`,
			`{"component":"Slider","id":"sl","max":100,"min":1,"value":2}`,
			`"tabs":[{"child":"root","title":"One"}]`,
			`{"component":"Modal","content":"t","id":"m","trigger":"b"}`,
			`{"component":"Image","description":{"path":"/alt"},"fit":"scaleDown","id":"i","url":"https://x/y.png","variant":"avatar"}`,
			`"value":[{"name":"A"},{"name":"B"}]`,
		},
		issues: []string{
			"v08_not_expressible@0/beginRendering/styles/font",
			"v08_not_expressible@1/surfaceUpdate/components/4/component/MultipleChoice/maxAllowedSelections",
			"v08_not_expressible@1/surfaceUpdate/components/5/component/Slider",
			"v08_not_expressible@1/surfaceUpdate/components/9/component/TextField/textFieldType",
			"v08_not_expressible@2/dataModelUpdate/contents",
		},
	}, {
		name: "delete, the primitive-at-path convention, explicit v0.8 version",
		in: msgs(
			`{"version":"v0.8","beginRendering":{"surfaceId":"s","root":"r","catalogId":"https://a2ui.org/specification/v0_8/catalogs/minimal/minimal_catalog.json"}}`,
			`{"surfaceUpdate":{"surfaceId":"s","components":[{"id":"r","component":{"Text":{"text":{"path":"/m"}}}}]}}`,
			`{"dataModelUpdate":{"surfaceId":"s","path":"/m","contents":[{"key":".","valueString":"hi"}]}}`,
			`{"deleteSurface":{"surfaceId":"s"}}`,
		),
		want: []string{
			`"catalogId":"https://a2ui.org/specification/v0_9/catalogs/basic/catalog.json"`,
			`{"updateDataModel":{"path":"/m","surfaceId":"s","value":"hi"},"version":"v0.9"}`,
			`{"deleteSurface":{"surfaceId":"s"},"version":"v0.9"}`,
		},
	}}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			u := v.Upgrade(tc.in, "")
			var all []string
			for _, m := range u.Messages {
				all = append(all, string(m))
			}
			joined := strings.Join(all, "\n")
			for _, w := range tc.want {
				if !strings.Contains(joined, w) {
					t.Errorf("output lacks %s\n%s", w, joined)
				}
			}
			if got := strings.Join(rules(u.Issues), " "); got != strings.Join(tc.issues, " ") {
				t.Errorf("issues = %s\nwant %s\n%v", got, strings.Join(tc.issues, " "), u.Issues)
			}
			if errs := v.ValidateBatch(raw(u.Messages)); len(errs) > 0 {
				t.Errorf("output fails v0.9.1: %v\n%s", errs, joined)
			}
		})
	}
}

// TestUpgradeRefusals: an unknown version, a second version on a surface,
// a v0.8 message that fails the v0.8 schema and a surface that never
// begins are each reported with the message's index and rule; the rest of
// the surface is kept.
func TestUpgradeRefusals(t *testing.T) {
	v := a2ui.MustValidator(a2ui.Options{})
	u := v.Upgrade(msgs(
		`{"beginRendering":{"surfaceId":"s","root":"r"}}`,
		`{"surfaceUpdate":{"surfaceId":"s","components":[{"id":"r","component":{"Text":{"text":{"literalString":"kept"}}}}]}}`,
		`{"version":"v0.9","updateDataModel":{"surfaceId":"s","path":"/","value":{}}}`,
		`{"version":"v2.0","updateDataModel":{"surfaceId":"s","path":"/","value":{}}}`,
		`{"surfaceUpdate":{"surfaceId":"s","components":[{"id":"x","component":{"Text":{"txt":{"literalString":"bad"}}}}]}}`,
		`{"dataModelUpdate":{"surfaceId":"s","contents":[{"key":"a","valueString":"kept too"}]}}`,
		`{"surfaceUpdate":{"surfaceId":"never","components":[{"id":"r","component":{"Divider":{}}}]}}`,
		`{"version":"v0.9","createSurface":{"surfaceId":"nine","catalogId":"https://a2ui.org/specification/v0_9/catalogs/basic/catalog.json"}}`,
		`{"dataModelUpdate":{"surfaceId":"nine","contents":[]}}`,
	), "v0.9.1")
	want := []string{"mixed_versions@2", "invalid_version@3/version", "unknown_prop@4/surfaceUpdate/components/0/component/Text", "missing_required_prop@4/surfaceUpdate/components/0/component/Text/text", "mixed_versions@8", "v08_not_rendered@6/surfaceUpdate/surfaceId"}
	got := rules(u.Issues)
	if strings.Join(got, " ") != strings.Join(want, " ") {
		t.Errorf("issues = %v\nwant %v\n%v", got, want, u.Issues)
	}
	for _, e := range u.Issues {
		if !strings.Contains(e.Error(), "message "+itoa(e.Index)) {
			t.Errorf("%v does not name its message", e)
		}
	}
	if len(u.Messages) != 4 { // createSurface, the Text, the data, the v0.9 createSurface
		var all []string
		for _, m := range u.Messages {
			all = append(all, string(m))
		}
		t.Errorf("%d messages kept:\n%s", len(u.Messages), strings.Join(all, "\n"))
	}
	if want := []int{0, 1, 5, 7}; !slices.Equal(u.Sources, want) {
		t.Errorf("sources = %v", u.Sources)
	}
	for _, m := range u.Messages {
		if !bytes.Contains(m, []byte(`"version":"v0.9`)) {
			t.Errorf("%s carries no v0.9 version", m)
		}
	}
	if errs := v.ValidateBatch(raw(u.Messages)); len(errs) > 0 {
		t.Errorf("what is kept fails v0.9.1: %v", errs)
	}
}

// FuzzV08Convert: whatever the input, Upgrade neither panics nor loses a
// message silently: every input message is kept (converted or as it is),
// held for a beginRendering that never came, or named in an issue; and
// every message it converts is JSON with a v0.9 version.
func FuzzV08Convert(f *testing.F) {
	files, _ := filepath.Glob(filepath.Join(v08Examples, "*", "*.json"))
	for _, p := range files[:5] {
		b, _ := os.ReadFile(p)
		f.Add(b)
	}
	v10, _ := filepath.Glob(filepath.Join(v10Examples, "*.json"))
	for _, p := range v10[:2] { // Upgrade takes v1.0 too
		var sample struct{ Messages json.RawMessage }
		b, _ := os.ReadFile(p)
		_ = json.Unmarshal(b, &sample)
		f.Add([]byte(sample.Messages))
	}
	f.Add([]byte(`[{"beginRendering":{"surfaceId":"s","root":"r"}},{"dataModelUpdate":{"surfaceId":"s","path":"x","contents":[{"key":".","valueString":"[1,2]"}]}}]`))
	f.Add([]byte(`[{"surfaceUpdate":{"surfaceId":"s","components":[{"id":"r","component":{"List":{"children":{"template":{"componentId":"r","dataBinding":"/l"}}}}}]}},{"beginRendering":{"surfaceId":"s","root":"r"}},{"deleteSurface":{"surfaceId":"s"}}]`))
	v := a2ui.MustValidator(a2ui.Options{})
	f.Fuzz(func(t *testing.T, data []byte) {
		var in []json.RawMessage
		if json.Unmarshal(data, &in) != nil {
			return
		}
		u := v.Upgrade(in, "")
		accounted := map[int]bool{}
		for _, s := range u.Sources {
			accounted[s] = true
		}
		for _, e := range u.Issues {
			accounted[e.Index] = true
			if e.Rule == "" || e.Message == "" {
				t.Fatalf("issue without rule or message: %#v", e)
			}
		}
		held := map[string]bool{} // surfaces that never began, or were deleted
		for _, e := range u.Issues {
			if e.Rule == a2ui.RuleV08NotRendered {
				held[e.SurfaceID] = true
			}
		}
		for _, m := range in {
			var del struct {
				D *struct {
					SurfaceID string `json:"surfaceId"`
				} `json:"deleteSurface"`
			}
			if json.Unmarshal(m, &del) == nil && del.D != nil {
				held[del.D.SurfaceID] = true
			}
		}
		for i, m := range in {
			if accounted[i] {
				continue
			}
			var probe map[string]map[string]any
			json.Unmarshal(m, &probe)
			sid := ""
			for _, body := range probe {
				sid, _ = body["surfaceId"].(string)
			}
			if !held[sid] && !bytes.Contains(m, []byte("deleteSurface")) && !bytes.Contains(m, []byte(`"version"`)) && json.Valid(m) && len(probe) == 1 {
				t.Fatalf("message %d neither kept nor reported: %s", i, m)
			}
		}
		for i, m := range u.Messages {
			if !json.Valid(m) {
				t.Fatalf("message %d is not JSON: %s", i, m)
			}
			if u.Sources[i] < len(in) && !bytes.Equal(m, in[u.Sources[i]]) && !bytes.Contains(m, []byte(`"version":"v0.9"`)) {
				t.Fatalf("converted message %d has no v0.9 version: %s", i, m)
			}
		}
		checkOwnsStrings(t, in, u.Messages, u.Sources, u.Issues, u.Versions...)
	})
}

// TestUpgradeOwnsItsStrings: what Upgrade returns shares no bytes with
// its input, whose buffer the caller may reuse: the issues of v0.8 and
// v1.0 messages, whose surface ids and paths come from the decoded
// message, and the converted messages.
func TestUpgradeOwnsItsStrings(t *testing.T) {
	v := a2ui.MustValidator(a2ui.Options{})
	for name, in := range map[string][]string{
		"v0.8": {
			`{"beginRendering":{"surfaceId":"card","root":"t","styles":{"font":"x"}},"deleteSurface":{"surfaceId":"card"}}`,
			`{"surfaceUpdate":{"surfaceId":"card","components":[{"id":"t","component":{"Text":{"text":{"literalString":"hi"},"x":1}}}]}}`,
			`{"beginRendering":{"surfaceId":"card","root":"t","styles":{"font":"x"}}}`,
			`{"surfaceUpdate":{"surfaceId":"card","components":[{"id":"t","component":{"Text":{"text":{"literalString":"hi"}}}}]}}`,
		},
		"v1.0": {
			`{"version":"v1.0","createSurface":{"surfaceId":"card","catalogId":"c"},"deleteSurface":{"surfaceId":"card"}}`,
			`{"version":"v1.0","updateComponents":{"surfaceId":"card","components":[{"id":"root","component":"Nope"}]}}`,
			`{"version":"v1.0","createSurface":{"surfaceId":"card","catalogId":"https://a2ui.org/specification/v1_0/catalogs/basic/catalog.json"}}`,
		},
	} {
		msgs := make([]json.RawMessage, len(in))
		for i, m := range in {
			msgs[i] = json.RawMessage(m)
		}
		u := v.Upgrade(msgs, "")
		if len(u.Issues) == 0 || u.Issues[0].SurfaceID != "card" {
			t.Fatalf("%s: want an issue on surface card first: %v", name, u.Issues)
		}
		if len(u.Messages) == 0 {
			t.Fatalf("%s: nothing converted: %v", name, u.Issues)
		}
		checkOwnsStrings(t, msgs, u.Messages, u.Sources, u.Issues, u.Versions...)
	}
}

// TestMiddlewareV08 shows v0.8 from a tool result and from the agent's own
// activity as converted v0.9.1 surfaces; a message of an unknown version
// in the agent's surface is left out and named, the rest shown.
func TestMiddlewareV08(t *testing.T) {
	coffee, _ := os.ReadFile(filepath.Join(v08Examples, "basic", "13_coffee-order.json"))
	result, _ := json.Marshal(map[string]json.RawMessage{"a2ui_operations": coffee})
	ops := `[{"beginRendering":{"surfaceId":"a","root":"t"}},` +
		`{"surfaceUpdate":{"surfaceId":"a","components":[{"id":"t","component":{"Text":{"text":{"path":"/msg"}}}}]}},` +
		`{"version":"v9","updateDataModel":{"surfaceId":"a","value":{}}},` +
		`{"dataModelUpdate":{"surfaceId":"a","contents":[{"key":"msg","valueString":"hello"}]}}]`
	be := &scripted{tool: "order", result: string(result), extra: []agui.Event{
		&agui.ActivitySnapshot{MessageID: "own", ActivityType: a2ui.ActivityType, Content: agui.JSON(`{"a2ui_operations":` + ops + `}`)},
	}}
	snaps := snapshots(run(t, a2ui.Config{Version: "v0.9.1"}, be, nil))
	if len(snaps) != 2 {
		t.Fatalf("%d snapshots, want 2", len(snaps))
	}
	var tool struct {
		Ops    []json.RawMessage `json:"a2ui_operations"`
		Issues []a2ui.Error      `json:"a2ui_issues"`
		Status string            `json:"status"`
	}
	if err := json.Unmarshal(snaps[0].Content, &tool); err != nil || tool.Status != "" || len(tool.Ops) != 3 || tool.Issues != nil {
		t.Fatalf("tool surface = %s", snaps[0].Content)
	}
	if !bytes.Contains(tool.Ops[0], []byte(`{"createSurface":{"catalogId":"https://a2ui.org/specification/v0_9/catalogs/basic/catalog.json","surfaceId":"gallery-coffee-order"},"version":"v0.9.1"}`)) {
		t.Errorf("first operation = %s", tool.Ops[0])
	}
	var own struct {
		Ops    []json.RawMessage `json:"a2ui_operations"`
		Issues []map[string]any  `json:"a2ui_issues"`
	}
	if err := json.Unmarshal(snaps[1].Content, &own); err != nil || len(own.Ops) != 3 || len(own.Issues) != 1 {
		t.Fatalf("agent surface = %s", snaps[1].Content)
	}
	if is := own.Issues[0]; is["rule"] != a2ui.RuleInvalidVersion || is["index"] != float64(2) || !strings.Contains(is["message"].(string), `"v9"`) {
		t.Errorf("issue = %v", is)
	}
	if !bytes.Contains(own.Ops[2], []byte(`"value":{"msg":"hello"}`)) {
		t.Errorf("data = %s", own.Ops[2])
	}
}

// The v0.8 messages held for a beginRendering are capped: past
// MaxHeldMessages each is left out with too_large, and a beginRendering
// still shows what was held.
func TestV08HeldMessagesCapped(t *testing.T) {
	v := a2ui.MustValidator(a2ui.Options{MaxHeldMessages: 2})
	up := `{"dataModelUpdate":{"surfaceId":"s","contents":[{"key":"a","valueNumber":1}]}}`
	u := v.Upgrade(msgs(up, up, up, `{"beginRendering":{"surfaceId":"s","root":"r"}}`), "")
	if got := strings.Join(rules(u.Issues), " "); got != "too_large@2/dataModelUpdate/surfaceId" {
		t.Errorf("issues = %s", got)
	}
	if len(u.Messages) != 3 || !slices.Equal(u.Sources, []int{3, 0, 1}) {
		t.Errorf("messages %d, sources %v", len(u.Messages), u.Sources)
	}
}

// TestV08HeldWarmSameAsCold converts each official v0.8 example, and
// streams whose surface ids the byte probe and the decoder could read
// differently, with the validator's verdicts forgotten (every message
// decoded) and then remembered (a held message that passed before is
// held without decoding): the results are the same.
func TestV08HeldWarmSameAsCold(t *testing.T) {
	v := a2ui.MustValidator(a2ui.Options{})
	files, _ := filepath.Glob(filepath.Join(v08Examples, "*", "*.json"))
	streams := map[string][]json.RawMessage{}
	for _, f := range files {
		streams[filepath.Base(f)] = v08Example(t, f)
	}
	for name, sid := range map[string]string{"escaped": `s\u0031`, "invalid UTF-8": "s\xff", "escaped invalid UTF-8": `s\udc00`} {
		streams[name] = []json.RawMessage{
			json.RawMessage(`{"surfaceUpdate":{"surfaceId":"` + sid + `","components":[{"id":"t","component":{"Text":{"text":{"literalString":"hi"}}}}]}}`),
			json.RawMessage(`{"dataModelUpdate":{"surfaceId":"` + sid + `","contents":[{"key":"n","valueString":"x"}]}}`),
			json.RawMessage(`{"beginRendering":{"surfaceId":"` + sid + `","root":"t"}}`),
		}
	}
	for name, in := range streams {
		v.ForgetVerdicts()
		cold := v.Upgrade(in, "")
		if len(cold.Messages) < len(in) {
			t.Errorf("%s: %d messages in, %d out: %v", name, len(in), len(cold.Messages), cold.Issues)
		}
		warm := v.Upgrade(in, "")
		if !reflect.DeepEqual(cold, warm) {
			t.Errorf("%s: verdicts forgotten:\n%s\nremembered:\n%s", name, show(cold), show(warm))
		}
	}
}

func show(u a2ui.Upgrade) string {
	var b strings.Builder
	for _, m := range u.Messages {
		b.Write(m)
		b.WriteByte('\n')
	}
	fmt.Fprintf(&b, "issues: %v", u.Issues)
	return b.String()
}

// TestUpgradeHeldNotCopied: a v0.8 message held for a beginRendering that
// comes in the same batch is read where it is, not copied: padding it
// with 64 KB of spaces adds next to nothing to what Upgrade allocates.
func TestUpgradeHeldNotCopied(t *testing.T) {
	v := a2ui.MustValidator(a2ui.Options{})
	batch := func(pad int) []json.RawMessage {
		return []json.RawMessage{
			json.RawMessage(`{"surfaceUpdate":` + strings.Repeat(" ", pad) + `{"surfaceId":"s","components":[{"id":"t","component":{"Text":{"text":{"literalString":"hi"}}}}]}}`),
			json.RawMessage(`{"beginRendering":{"surfaceId":"s","root":"t"}}`),
		}
	}
	allocated := func(in []json.RawMessage) uint64 {
		for range 3 { // verdicts remembered, pools filled
			v.Upgrade(in, "")
		}
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		const n = 20
		for range n {
			if u := v.Upgrade(in, ""); len(u.Messages) != 2 || len(u.Issues) > 0 {
				t.Fatalf("converted %q, issues %v", u.Messages, u.Issues)
			}
		}
		runtime.ReadMemStats(&after)
		return (after.TotalAlloc - before.TotalAlloc) / n
	}
	plain, padded := allocated(batch(0)), allocated(batch(64<<10))
	if padded > plain+4<<10 {
		t.Fatalf("Upgrade allocates %d bytes with the held message padded by 64 KB, %d without: the held message is copied", padded, plain)
	}
}

// TestUpgraderHeldAcrossParts: a v0.8 message held when its part ends is
// the converter's own: the caller may reuse the part's buffer before the
// beginRendering comes in a later part.
func TestUpgraderHeldAcrossParts(t *testing.T) {
	v := a2ui.MustValidator(a2ui.Options{})
	parts := func() [][]json.RawMessage {
		return [][]json.RawMessage{
			{json.RawMessage(`{"surfaceUpdate":{"surfaceId":"s","components":[{"id":"t","component":{"Text":{"text":{"literalString":"hi"}}}}]}}`),
				json.RawMessage(`{"dataModelUpdate":{"surfaceId":"s","contents":[{"key":"k","valueString":"v"}]}}`)},
			{json.RawMessage(`{"beginRendering":{"surfaceId":"s","root":"t"}}`)},
		}
	}
	convert := func(reuse bool) []string {
		up := v.NewUpgrader("")
		var out []string
		for _, part := range parts() {
			u := up.Next(part)
			for _, m := range u.Messages {
				out = append(out, string(m))
			}
			if len(u.Issues) > 0 {
				t.Fatal(u.Issues)
			}
			if reuse {
				for _, m := range part {
					for j := range m {
						m[j] = '#'
					}
				}
			}
		}
		return out
	}
	want, got := convert(false), convert(true)
	if len(want) != 3 || !slices.Equal(got, want) {
		t.Fatalf("with the first part's buffer reused: %q, want %q", got, want)
	}
}
