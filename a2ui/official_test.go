package a2ui_test

import (
	"bufio"
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/genui-adapter/genui-adapter/a2ui"
)

const examples = "../schemas/testdata/examples"

func TestOfficialExamplesValid(t *testing.T) {
	v := a2ui.MustValidator(a2ui.Options{Strict: true})
	files, _ := filepath.Glob(filepath.Join(examples, "basic", "*.json"))
	if len(files) != 36 {
		t.Fatalf("%d official examples, want 36", len(files))
	}
	for _, f := range files {
		t.Run(filepath.Base(f), func(t *testing.T) {
			var sample struct {
				Messages []json.RawMessage `json:"messages"`
			}
			b, _ := os.ReadFile(f)
			if err := json.Unmarshal(b, &sample); err != nil {
				t.Fatal(err)
			}
			var msgs [][]byte
			for _, m := range sample.Messages {
				msgs = append(msgs, m)
			}
			if errs := v.ValidateBatch(msgs); len(errs) > 0 {
				t.Errorf("official example rejected: %v", errs)
			}
		})
	}
}

func TestOfficialTestCases(t *testing.T) {
	v := a2ui.MustValidator(a2ui.Options{})
	files, _ := filepath.Glob(filepath.Join(examples, "test_cases", "*.json"))
	total, valid := 0, 0
	for _, f := range files {
		var suite struct {
			Schema string `json:"schema"`
			Tests  []struct {
				Description string          `json:"description"`
				Valid       bool            `json:"valid"`
				Data        json.RawMessage `json:"data"`
			} `json:"tests"`
		}
		b, _ := os.ReadFile(f)
		if err := json.Unmarshal(b, &suite); err != nil {
			t.Fatal(err)
		}
		for _, tc := range suite.Tests {
			total++
			if tc.Valid {
				valid++
			}
			t.Run(filepath.Base(f)+"/"+tc.Description, func(t *testing.T) {
				var errs []a2ui.Error
				if suite.Schema == "client_to_server.json" {
					errs = v.ValidateClient(tc.Data, nil)
				} else {
					errs = v.SchemaOnly(tc.Data)
				}
				if got := len(errs) == 0; got != tc.Valid {
					t.Errorf("valid = %v, want %v; errors: %v", got, tc.Valid, errs)
				}
			})
		}
	}
	if total != 76 || valid != 37 {
		t.Errorf("ran %d cases (%d expected valid), want 76 (37)", total, valid)
	}
}

func TestOfficialJSONL(t *testing.T) {
	v := a2ui.MustValidator(a2ui.Options{Strict: true})
	b, err := os.ReadFile(filepath.Join(examples, "test_cases", "contact_form_example.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	var msgs [][]byte
	sc := bufio.NewScanner(bytes.NewReader(b))
	for sc.Scan() {
		if len(bytes.TrimSpace(sc.Bytes())) > 0 {
			msgs = append(msgs, append([]byte(nil), sc.Bytes()...))
		}
	}
	if len(msgs) != 4 {
		t.Fatalf("%d lines, want 4", len(msgs))
	}
	if errs := v.ValidateBatch(msgs); len(errs) > 0 {
		t.Errorf("JSONL stream rejected: %v", errs)
	}
}
