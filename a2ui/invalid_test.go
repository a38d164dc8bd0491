package a2ui_test

import (
	"bytes"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"golang.org/x/tools/txtar"

	"github.com/genui-adapter/genui-adapter/a2ui"
)

// TestIntegrityRules runs testdata/invalid/*.txtar: one negative fixture
// per rule. The comment says why the rule exists and may set limits
// ("max: depth|templates|components|bytes N") or "bindings: on";
// messages.jsonl is validated as one stream in strict mode, and "want"
// lists the expected "rule path" lines.
func TestIntegrityRules(t *testing.T) {
	files, _ := filepath.Glob("testdata/invalid/*.txtar")
	if len(files) < 35 {
		t.Fatalf("%d fixtures, want one per rule", len(files))
	}
	rules := map[string]bool{}
	for _, f := range files {
		t.Run(strings.TrimSuffix(filepath.Base(f), ".txtar"), func(t *testing.T) {
			ar, err := txtar.ParseFile(f)
			if err != nil {
				t.Fatal(err)
			}
			opts := a2ui.Options{Strict: true}
			for _, line := range strings.Split(string(ar.Comment), "\n") {
				var what string
				var n int
				if _, err := fmt.Sscanf(line, "max: %s %d", &what, &n); err == nil {
					switch what {
					case "depth":
						opts.MaxDepth = n
					case "templates":
						opts.MaxTemplateItems = n
					case "components":
						opts.MaxComponents = n
					case "bytes":
						opts.MaxMessageBytes = n
					}
				}
				if line == "bindings: on" {
					opts.CheckBindings = true
				}
			}
			var msgs [][]byte
			var want []string
			for _, af := range ar.Files {
				switch af.Name {
				case "messages.jsonl":
					msgs = append(msgs, bytes.Split(bytes.TrimSpace(af.Data), []byte("\n"))...)
				case "want":
					want = strings.Split(strings.TrimSpace(string(af.Data)), "\n")
				}
			}
			errs := a2ui.MustValidator(opts).ValidateBatch(msgs)
			var got []string
			for _, e := range errs {
				got = append(got, strings.TrimSpace(e.Rule+" "+e.Path))
				if e.Message == "" {
					t.Errorf("error %v has no message", e)
				}
				rules[e.Rule] = true
			}
			for i := range want {
				want[i] = strings.TrimSpace(want[i])
			}
			slices.Sort(got)
			slices.Sort(want)
			if !slices.Equal(got, want) {
				t.Errorf("errors = %q, want %q\n%v", got, want, errs)
			}
		})
	}
	t.Logf("rules covered: %d", len(rules))
}

// TestVerdictCacheKeepsRefusing: a component the schema accepted is
// remembered, and one that differs in any value is validated again.
func TestVerdictCacheKeepsRefusing(t *testing.T) {
	v := a2ui.MustValidator(a2ui.Options{})
	cat := "https://a2ui.org/specification/v0_9/basic_catalog.json"
	create := `{"version":"v0.9","createSurface":{"surfaceId":"s","catalogId":"` + cat + `"}}`
	good := `{"version":"v0.9","updateComponents":{"surfaceId":"s","components":[{"id":"root","component":"Text","text":"hi"}]}}`
	bad := `{"version":"v0.9","updateComponents":{"surfaceId":"s","components":[{"id":"root","component":"Text","text":{"nope":1}}]}}`
	for range 3 {
		if errs := v.ValidateBatch([][]byte{[]byte(create), []byte(good)}); len(errs) != 0 {
			t.Fatalf("valid surface: %v", errs)
		}
		if errs := v.ValidateBatch([][]byte{[]byte(create), []byte(bad)}); len(errs) == 0 {
			t.Fatalf("a component the cache might confuse with a valid one was accepted")
		}
	}
}
