package a2ui_test

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/genui-adapter/genui-adapter/a2ui"
)

const v10Examples = "../schemas/testdata/v1_0"

// TestV10OfficialExamplesConvert converts every official v1.0 example and
// validates the result as v0.9.1, strictly. 00_incremental sends a
// template whose item component comes in a later message, which the
// v0.9.1 integrity rules refuse (a reference resolves within the message
// that makes it): that example is refused with unresolved_child.
func TestV10OfficialExamplesConvert(t *testing.T) {
	v := a2ui.MustValidator(a2ui.Options{Strict: true})
	files, _ := filepath.Glob(filepath.Join(v10Examples, "*.json"))
	if len(files) != 43 {
		t.Fatalf("%d official v1.0 examples, want 43", len(files))
	}
	for _, f := range files {
		t.Run(filepath.Base(f), func(t *testing.T) {
			in := officialExample(t, f)
			u := v.Upgrade(in, "")
			for _, e := range u.Issues {
				t.Errorf("issue: %v", e)
			}
			if len(u.Messages) < len(in) {
				t.Errorf("%d messages in, %d out", len(in), len(u.Messages))
			}
			errs := v.ValidateBatch(raw(u.Messages))
			if filepath.Base(f) == "00_incremental.json" {
				if len(errs) == 0 || errs[0].Rule != a2ui.RuleUnresolvedChild {
					t.Errorf("errors = %v, want unresolved_child first", errs)
				}
				return
			}
			if len(errs) > 0 {
				t.Errorf("converted example fails v0.9.1: %v", errs)
			}
			if len(u.Versions) != 1 || u.Versions[0] != "v1.0" {
				t.Errorf("versions = %v", u.Versions)
			}
			if vd := v.Judge(raw(in)); vd.Version != "v1.0" || len(vd.Errors) > 0 {
				t.Errorf("Judge: %s, %v", vd.Version, vd.Errors)
			}
		})
	}
}

const v10Basic = `"catalogId":"https://a2ui.org/specification/v1_0/catalogs/basic/catalog.json"`

// TestV10Conversion: inline components and data model unrolled, the v1.0
// catalog mapped, a null value deleting, per-component catalogs and
// v1.0-only properties reported, each conversion golden.
func TestV10Conversion(t *testing.T) {
	v := a2ui.MustValidator(a2ui.Options{})
	u := v.Upgrade(msgs(
		`{"version":"v1.0","createSurface":{"surfaceId":"s",`+v10Basic+`,"sendDataModel":true,"components":[{"id":"root","component":"Column","children":["t","v"]},{"id":"t","component":"Text","text":{"path":"/title"},"metadata":{"extensions":{}}},{"id":"v","component":"Video","url":"https://example.com/v.mp4","posterUrl":"https://example.com/p.png",`+v10Basic+`}],"dataModel":{"title":"Hi"}}}`,
		`{"version":"v1.0","updateComponents":{"surfaceId":"s","components":[{"id":"t","component":"Text","text":"x","catalogId":"https://example.com/other.json"}]}}`,
		`{"version":"v1.0","updateDataModel":{"surfaceId":"s","path":"/title","value":null}}`,
	), "v0.9.1")
	want := []string{
		`{"createSurface":{"catalogId":"https://a2ui.org/specification/v0_9/catalogs/basic/catalog.json","sendDataModel":true,"surfaceId":"s"},"version":"v0.9.1"}`,
		`{"updateComponents":{"components":[{"children":["t","v"],"component":"Column","id":"root"},{"component":"Text","id":"t","text":{"path":"/title"}},{"component":"Video","id":"v","url":"https://example.com/v.mp4"}],"surfaceId":"s"},"version":"v0.9.1"}`,
		`{"updateDataModel":{"path":"/","surfaceId":"s","value":{"title":"Hi"}},"version":"v0.9.1"}`,
		`{"updateComponents":{"components":[{"component":"Text","id":"t","text":"x"}],"surfaceId":"s"},"version":"v0.9.1"}`,
		`{"updateDataModel":{"path":"/title","surfaceId":"s"},"version":"v0.9.1"}`,
	}
	if len(u.Messages) != len(want) {
		t.Fatalf("%d messages: %s", len(u.Messages), u.Messages)
	}
	for i := range want {
		if string(u.Messages[i]) != want[i] {
			t.Errorf("message %d:\n got %s\nwant %s", i, u.Messages[i], want[i])
		}
	}
	if got := u.Sources; len(got) != 5 || got[0] != 0 || got[2] != 0 || got[3] != 1 || got[4] != 2 {
		t.Errorf("sources = %v", got)
	}
	var issues []string
	for _, e := range u.Issues {
		issues = append(issues, e.Rule+" "+e.Path)
	}
	wantIssues := []string{
		"v10_not_expressible /createSurface/components/1/metadata",
		"v10_not_expressible /createSurface/components/2/posterUrl",
		"v10_not_expressible /updateComponents/components/0/catalogId",
	}
	if strings.Join(issues, ",") != strings.Join(wantIssues, ",") {
		t.Errorf("issues = %v, want %v", issues, wantIssues)
	}
	if errs := v.ValidateBatch(raw(u.Messages)); len(errs) > 0 {
		t.Errorf("converted: %v", errs)
	}
}

// TestV10BadInput: a message of an unknown version, a v0.9 message on a
// surface v1.0 started, a renderer function call, and a message the v1.0
// schema refuses are each left out with an error naming the message and
// the rule; the rest of the surface is applied.
func TestV10BadInput(t *testing.T) {
	v := a2ui.MustValidator(a2ui.Options{})
	u := v.Upgrade(msgs(
		`{"version":"v1.0","createSurface":{"surfaceId":"s",`+v10Basic+`,"components":[{"id":"root","component":"Text","text":{"path":"/n"}}]}}`,
		`{"version":"v2.0","updateDataModel":{"surfaceId":"s","value":{"n":"two"}}}`,
		`{"version":"v0.9","updateDataModel":{"surfaceId":"s","value":{"n":"nine"}}}`,
		`{"version":"v1.0","callRendererFunction":{"call":"openUrl","args":{"url":"https://example.com"}},"functionCallId":"f1"}`,
		`{"version":"v1.0","updateDataModel":{"surfaceId":"s","path":"/n"}}`,
		`{"version":"v1.0","updateDataModel":{"surfaceId":"s","path":"/n","value":"one"}}`,
	), "")
	var got []string
	for _, e := range u.Issues {
		got = append(got, strings.Join([]string{e.Rule, string(rune('0' + e.Index))}, "@"))
	}
	want := []string{"invalid_version@1", "mixed_versions@2", "v10_function_refused@3", "missing_required_prop@4"}
	if strings.Join(got, ",") != strings.Join(want, ",") {
		t.Errorf("issues = %v, want %v\n%v", got, want, u.Issues)
	}
	for _, e := range u.Issues {
		if !strings.Contains(e.Message, "left out") && e.Rule != "missing_required_prop" {
			t.Errorf("%s does not say the message is left out: %s", e.Rule, e.Message)
		}
	}
	if n := len(u.Messages); n != 3 || !strings.Contains(string(u.Messages[2]), `"value":"one"`) {
		t.Errorf("the rest of the surface: %s", u.Messages)
	}
	if errs := v.ValidateBatch(raw(u.Messages)); len(errs) > 0 {
		t.Errorf("what is applied: %v", errs)
	}
}
