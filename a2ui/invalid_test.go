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
					for _, l := range bytes.Split(bytes.TrimSpace(af.Data), []byte("\n")) {
						msgs = append(msgs, l)
					}
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
