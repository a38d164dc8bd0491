package a2ui

import (
	"encoding/json"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"testing"
)

// TestV10CheckByParts holds the v1.0 check by parts to the whole official
// definition: on every createSurface and updateComponents of the
// official v1.0 examples, and on thousands of variants of them (a key
// removed or added, a value replaced, a component's type changed), both
// give the same verdict.
func TestV10CheckByParts(t *testing.T) {
	v := MustValidator(Options{})
	if len(v.v10Envs) != 2 || len(v.v10Comps) != 18 {
		t.Fatalf("check by parts: %d messages, %d component types; want 2 and 18", len(v.v10Envs), len(v.v10Comps))
	}
	var types []string
	for typ := range v.v10Comps {
		types = append(types, typ)
	}
	slices.Sort(types)
	files, _ := filepath.Glob("../schemas/testdata/v1_0/*.json")
	r := rand.New(rand.NewPCG(1, 2))
	replacements := []any{json.Number("1"), "x", true, nil, map[string]any{}, []any{}, map[string]any{"path": "/a"}, "Surface", map[string]any{"call": "formatString", "args": map[string]any{"value": "${/a}"}}}
	checked, passed, variantsPassed := 0, 0, 0
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		var sample struct{ Messages []json.RawMessage }
		if err := json.Unmarshal(b, &sample); err != nil {
			t.Fatal(err)
		}
		for _, m := range sample.Messages {
			for variant := range 60 {
				doc, _ := decodeDocument(m)
				obj := doc.(map[string]any)
				op := ""
				for k := range obj {
					if v.v10Envs[k] != nil {
						op = k
					}
				}
				if op == "" {
					break
				}
				if variant > 0 {
					mutate(r, doc, types, replacements)
				}
				parts := v.v10Check(op, doc)
				whole := v.v10[op].Validate(doc) == nil
				checked++
				if whole {
					passed++
					if variant > 0 {
						variantsPassed++
					}
				}
				if parts != whole {
					out, _ := json.Marshal(doc)
					t.Errorf("%s: by parts %v, whole %v: %s", filepath.Base(f), parts, whole, out)
				}
			}
		}
	}
	t.Logf("%d checked, %d passed (%d variants)", checked, passed, variantsPassed)
	if checked < 3000 || variantsPassed < 100 || passed == checked {
		t.Errorf("%d checked, %d passed (%d variants): not a test of both verdicts", checked, passed, variantsPassed)
	}
}

// mutate changes one place in doc: it removes or adds a key, replaces a
// value, or changes a component's type.
func mutate(r *rand.Rand, doc any, types []string, replacements []any) {
	for depth := 0; ; depth++ {
		switch x := doc.(type) {
		case map[string]any:
			keys := make([]string, 0, len(x))
			for k := range x {
				keys = append(keys, k)
			}
			slices.Sort(keys)
			if len(keys) == 0 || r.IntN(4) == 0 {
				x["zz"] = replacements[r.IntN(len(replacements))]
				return
			}
			k := keys[r.IntN(len(keys))]
			switch n := r.IntN(8); {
			case k == "component" && n < 4:
				x[k] = types[r.IntN(len(types))]
				return
			case n == 0 && depth > 0:
				delete(x, k)
				return
			case n == 1:
				x[k] = replacements[r.IntN(len(replacements))]
				return
			}
			switch x[k].(type) {
			case map[string]any, []any:
				doc = x[k]
			default:
				x[k] = replacements[r.IntN(len(replacements))]
				return
			}
		case []any:
			if len(x) == 0 {
				return
			}
			i := r.IntN(len(x))
			switch x[i].(type) {
			case map[string]any, []any:
				doc = x[i]
			default:
				x[i] = replacements[r.IntN(len(replacements))]
				return
			}
		default:
			return
		}
	}
}
