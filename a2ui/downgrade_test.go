package a2ui_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/genui-adapter/genui-adapter/a2ui"
)

// officialExample reads an official v0.9.1 example's messages.
func officialExample(t testing.TB, path string) []json.RawMessage {
	t.Helper()
	var sample struct {
		Messages []json.RawMessage `json:"messages"`
	}
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, &sample); err != nil {
		t.Fatal(err)
	}
	return sample.Messages
}

// TestDowngradeOfficialExamples down-converts every official v0.9.1
// example to v0.8: every message comes out, each valid against the
// official v0.8 schema and standard catalog (Downgrade checks them; a
// message or component the schema refused would be left out and
// reported), and converted back up it is a valid v0.9.1 surface again.
func TestDowngradeOfficialExamples(t *testing.T) {
	v := a2ui.MustValidator(a2ui.Options{})
	files, _ := filepath.Glob(filepath.Join(examples, "basic", "*.json"))
	if len(files) != 36 {
		t.Fatalf("%d official examples, want 36", len(files))
	}
	for _, f := range files {
		t.Run(filepath.Base(f), func(t *testing.T) {
			in := officialExample(t, f)
			d := v.Downgrade(in)
			for _, e := range d.Issues {
				if e.Rule != a2ui.RuleNotInV08 {
					t.Errorf("not converted: %v", e)
				} else {
					t.Logf("lossy: %v", e)
				}
			}
			if len(d.Messages) != len(in) {
				t.Fatalf("%d messages in, %d out", len(in), len(d.Messages))
			}
			for i, m := range d.Messages {
				var probe map[string]json.RawMessage
				_ = json.Unmarshal(m, &probe)
				if _, ok := probe["version"]; ok {
					t.Errorf("message %d carries a version: %s", i, m)
				}
			}
			up := v.Upgrade(d.Messages, "")
			for _, e := range up.Issues {
				if e.Rule != a2ui.RuleV08NotExpressible {
					t.Errorf("v0.8 ingest refuses the down-converted message: %v", e)
				}
			}
			if errs := v.ValidateBatch(raw(up.Messages)); len(errs) > 0 {
				t.Errorf("round trip fails v0.9.1: %v", errs)
			}
		})
	}
}

// FuzzDowngrade: whatever the input (Emit also sees A2UI no validator
// checked, when an agent's A2UI middleware is off), Downgrade neither
// panics nor loses a message silently: every input message comes out
// (as one v0.8 message) or is named in an issue, and every message it
// emits is a JSON object with one v0.8 operation and no version.
func FuzzDowngrade(f *testing.F) {
	files, _ := filepath.Glob(filepath.Join(examples, "basic", "*.json"))
	for _, p := range files[:6] {
		var sample struct {
			Messages json.RawMessage `json:"messages"`
		}
		b, _ := os.ReadFile(p)
		_ = json.Unmarshal(b, &sample)
		f.Add([]byte(sample.Messages))
	}
	f.Add([]byte(`[{"version":"v0.9","updateComponents":{"surfaceId":"s","components":[{"id":"root","component":"Icon","name":"play"},{"id":"x","component":"Tabs","tabs":[null,{"title":{"call":"formatString","args":{"value":"${/a}"}}}]}]}},{"version":"v0.9","updateDataModel":{"surfaceId":"s","path":"/a","value":[1,{"b":null}]}}]`))
	f.Add([]byte(`[{"version":"v0.9","createSurface":null},{"version":"v0.9.1","updateComponents":{"components":[1,"x",{"component":"Button","action":{"functionCall":{"call":"openUrl","args":{"url":"u"}}}}]}},{"beginRendering":{"surfaceId":"s","root":"r"}},{"version":"v9"}]`))
	v := a2ui.MustValidator(a2ui.Options{})
	f.Fuzz(func(t *testing.T, data []byte) {
		var in []json.RawMessage
		if json.Unmarshal(data, &in) != nil {
			return
		}
		d := v.Downgrade(in)
		accounted := map[int]bool{}
		for _, s := range d.Sources {
			if accounted[s] {
				t.Fatalf("message %d came out twice", s)
			}
			accounted[s] = true
		}
		for _, e := range d.Issues {
			if e.Rule == "" || e.Message == "" {
				t.Fatalf("issue without rule or message: %#v", e)
			}
			accounted[e.Index] = true
		}
		for i := range in {
			if !accounted[i] {
				t.Fatalf("message %d neither converted nor reported: %s\n%v", i, in[i], d.Issues)
			}
		}
		for i, m := range d.Messages {
			var obj map[string]json.RawMessage
			if err := json.Unmarshal(m, &obj); err != nil {
				t.Fatalf("output %d is not a JSON object: %s", i, m)
			}
			if _, ok := obj["version"]; ok && !bytes.Equal(m, in[d.Sources[i]]) {
				t.Fatalf("converted message %d carries a version: %s", i, m)
			}
		}
		checkOwnsStrings(t, in, d.Messages, d.Sources, d.Issues)
	})
}

// checkOwnsStrings overwrites the input messages of a conversion and
// checks that nothing it returned changes with them (but a message passed
// on as it is): the conversions decode their input without copying it.
func checkOwnsStrings(t *testing.T, in, out []json.RawMessage, sources []int, issues []a2ui.Error, versions ...string) {
	t.Helper()
	before, _ := json.Marshal([]any{issues, versions})
	msgs := make([][]byte, len(out))
	for i, m := range out {
		msgs[i] = bytes.Clone(m)
	}
	for _, m := range in {
		for j := range m {
			m[j] = '#'
		}
	}
	if after, _ := json.Marshal([]any{issues, versions}); !bytes.Equal(after, before) {
		t.Fatalf("the issues changed with the input's bytes:\n%s\n%s", before, after)
	}
	for i, m := range out {
		src := in[sources[i]]
		if len(m) > 0 && len(src) > 0 && &m[0] == &src[0] {
			continue // passed on as it is
		}
		if !bytes.Equal(m, msgs[i]) {
			t.Fatalf("output %d changed with the input's bytes:\n%s\n%s", i, msgs[i], m)
		}
	}
}

// TestDowngradeOwnsItsStrings: what Downgrade returns shares no bytes
// with its input, whose buffer the caller may reuse; above all the
// issues, whose surface ids and paths come from the decoded message.
func TestDowngradeOwnsItsStrings(t *testing.T) {
	v := a2ui.MustValidator(a2ui.Options{})
	in := []json.RawMessage{
		json.RawMessage(`{"version":"v0.9","createSurface":{"surfaceId":"card","catalogId":"c"},"deleteSurface":{"surfaceId":"card"}}`),
		json.RawMessage(`{"version":"v0.9","updateComponents":{"surfaceId":"card","components":[{"id":"root","component":"Text","text":"hi","x-extra":{"call":"now"}}]}}`),
		json.RawMessage(`{"version":"v0.9","updateDataModel":{"surfaceId":"card","path":"/a","value":{"b":[{"c":[1]}]}}}`),
		json.RawMessage(`{"beginRendering":{"surfaceId":"card","root":"root"}}`),
	}
	d := v.Downgrade(in)
	if len(d.Issues) == 0 || d.Issues[0].SurfaceID != "card" {
		t.Fatalf("want an issue on surface card first: %v", d.Issues)
	}
	checkOwnsStrings(t, in, d.Messages, d.Sources, d.Issues)
}

// TestDowngradeCatalogRefuses: a converted component the v0.8 standard
// catalog refuses is left out and reported in its place among the
// message's issues, the rest of the message kept; when none is left the
// message is left out. Converting the same messages again gives the same.
func TestDowngradeCatalogRefuses(t *testing.T) {
	v := a2ui.MustValidator(a2ui.Options{})
	in := []json.RawMessage{
		json.RawMessage(`{"version":"v0.9.1","updateComponents":{"surfaceId":"s","components":[` +
			`{"id":"root","component":"Column","children":["a","b","c"]},` +
			`{"id":"a","component":"Text","text":"hi","variant":"h1"},` +
			`{"id":"b","component":"Text","text":"x","variant":"shout"},` +
			`{"id":"c","component":"Text","text":"y","accessibility":{"label":"why"}}]}}`),
		json.RawMessage(`{"version":"v0.9.1","updateComponents":{"surfaceId":"s","components":[` +
			`{"id":"d","component":"Text","text":"x","variant":"shout"}]}}`),
	}
	first := v.Downgrade(in)
	for range 2 {
		d := v.Downgrade(in)
		if len(d.Messages) != 1 || len(d.Sources) != 1 || d.Sources[0] != 0 {
			t.Fatalf("messages %q from %v, want the first one alone", d.Messages, d.Sources)
		}
		if got := string(d.Messages[0]); strings.Contains(got, `"id":"b"`) || !strings.Contains(got, `"id":"a"`) || !strings.Contains(got, `"id":"c"`) {
			t.Errorf("converted %s, want a and c without b", got)
		}
		var paths []string
		for _, e := range d.Issues {
			paths = append(paths, fmt.Sprintf("%d %s %s", e.Index, e.Rule, e.Path))
		}
		want := []string{
			"0 schema /updateComponents/components/2/usageHint",
			"0 not_expressible_in_v08 /updateComponents/components/3/accessibility",
			"1 schema /updateComponents/components/0/usageHint",
			"1 not_expressible_in_v08 /updateComponents/components",
		}
		if !slices.Equal(paths, want) {
			t.Errorf("issues\n%s\nwant\n%s", strings.Join(paths, "\n"), strings.Join(want, "\n"))
		}
		if !reflect.DeepEqual(d, first) {
			t.Errorf("again: %+v\nfirst: %+v", d, first)
		}
	}
}

// TestDowngradeSurfaceIDOfTheOperation: the v0.8 message names the
// surface the operation names, not a surfaceId elsewhere in the message
// (a byte scan reads the last top-level key's).
func TestDowngradeSurfaceIDOfTheOperation(t *testing.T) {
	v := a2ui.MustValidator(a2ui.Options{})
	d := v.Downgrade([]json.RawMessage{
		json.RawMessage(`{"version":"v0.9","deleteSurface":{"surfaceId":"a"},"x":{"surfaceId":"b"}}`),
	})
	if len(d.Messages) != 1 || string(d.Messages[0]) != `{"deleteSurface":{"surfaceId":"a"}}` {
		t.Fatalf("messages = %s, want deleteSurface of surface a", d.Messages)
	}
	for _, e := range d.Issues {
		if e.SurfaceID != "a" {
			t.Errorf("issue on surface %q, want a: %v", e.SurfaceID, e)
		}
	}
}

// TestDowngradeNamesUnknownKeys: a key v0.9.1 does not define, beside the
// operation or in its body, is named as left out (Downgrade also sees
// A2UI no validator judged); the message is converted without it.
func TestDowngradeNamesUnknownKeys(t *testing.T) {
	v := a2ui.MustValidator(a2ui.Options{})
	d := v.Downgrade([]json.RawMessage{
		json.RawMessage(`{"version":"v0.9","createSurface":{"surfaceId":"s","catalogId":"https://a2ui.org/specification/v0_9/catalogs/basic/catalog.json","z":1,"a/b":2},"extra":true}`),
		json.RawMessage(`{"version":"v0.9","deleteSurface":{"surfaceId":"s"}}`),
	})
	if len(d.Messages) != 2 {
		t.Fatalf("want both messages converted: %v", d.Issues)
	}
	var got []string
	for _, e := range d.Issues {
		got = append(got, fmt.Sprintf("%d %s %s %s", e.Index, e.Rule, e.SurfaceID, e.Path))
	}
	want := []string{
		"0 not_expressible_in_v08 s /extra",
		"0 not_expressible_in_v08 s /createSurface/a~1b",
		"0 not_expressible_in_v08 s /createSurface/z",
	}
	if !slices.Equal(got, want) {
		t.Errorf("issues:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}
