package a2ui_test

import (
	"encoding/json"
	"os"
	"path/filepath"
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
