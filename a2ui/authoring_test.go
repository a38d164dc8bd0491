package a2ui_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/genui-adapter/genui-adapter/a2ui"
)

const goodRender = `{"surfaceId":"order","components":[` +
	`{"id":"root","component":"Card","child":"col"},` +
	`{"id":"col","component":"Column","children":["title","total"]},` +
	`{"id":"title","component":"Text","text":"Order A-1","variant":"h3"},` +
	`{"id":"total","component":"Text","text":{"path":"/total"}}],` +
	`"data":{"total":"12.50 EUR"}}`

func TestAuthorValidSurface(t *testing.T) {
	v := a2ui.MustValidator(a2ui.Options{})
	ops, errs := v.Author([]byte(goodRender), "", "")
	if len(errs) > 0 || len(ops) != 3 {
		t.Fatalf("ops %d, errs %v", len(ops), errs)
	}
	if !strings.Contains(string(ops[0]), `"createSurface":{"catalogId":"https://a2ui.org/specification/v0_9/catalogs/basic/catalog.json","surfaceId":"order"}`) {
		t.Errorf("createSurface %s", ops[0])
	}
	if !strings.Contains(string(ops[2]), `"updateDataModel"`) {
		t.Errorf("data %s", ops[2])
	}
}

// The errors a model gets are the validator's, with rule and path.
func TestAuthorReportsFixableErrors(t *testing.T) {
	v := a2ui.MustValidator(a2ui.Options{})
	for _, c := range []struct{ args, want string }{
		{`{"surfaceId":"s","components":[]}`, "non-empty"},
		{`not json`, "JSON object"},
		{`{"surfaceId":"s","components":[{"id":"root","component":"Column","children":["missing"]}]}`, "missing"},
		{`{"surfaceId":"s","components":[{"id":"root","component":"Sparkline"}]}`, "Sparkline"},
		{`{"surfaceId":"s","components":[{"id":"root","component":"Text","text":{"path":"/nope"}}],"data":{}}`, "/nope"},
	} {
		_, errs := v.Author([]byte(c.args), "", "")
		b, _ := json.Marshal(errs)
		if len(errs) == 0 || !strings.Contains(string(b), c.want) {
			t.Errorf("%s: errors %s, want one naming %q", c.args, b, c.want)
		}
	}
}

// While the arguments stream, the complete components form a surface,
// with placeholders for children still to come, once root is complete.
func TestPartialRenderGrows(t *testing.T) {
	v := a2ui.MustValidator(a2ui.Options{})
	last := 0
	grew := 0
	for i := 1; i <= len(goodRender); i++ {
		a, n, ok := a2ui.PartialRender(goodRender[:i])
		if !ok {
			continue
		}
		if n < last {
			t.Fatalf("at %d bytes the surface shrank from %d to %d components", i, last, n)
		}
		if n > last {
			grew++
			last = n
			b, _ := json.Marshal(a)
			// Every partial surface is a valid surface.
			ops := a.Operations("", "")
			if errs := v.ValidateBatch(rawOps(ops)); len(errs) > 0 {
				t.Fatalf("partial surface at %d bytes is invalid: %v\n%s", i, errs, b)
			}
		}
	}
	if grew != 4 || last != 4 {
		t.Errorf("the surface grew %d times to %d components, want 4 and 4", grew, last)
	}
	if _, _, ok := a2ui.PartialRender(`{"surfaceId":"s","components":[{"id":"col","component":"Column","children":["root"`); ok {
		t.Error("a surface without a complete root was offered")
	}
}

func rawOps(ops []json.RawMessage) [][]byte {
	out := make([][]byte, len(ops))
	for i, o := range ops {
		out[i] = o
	}
	return out
}

func TestAuthoringGuideNamesTheCatalog(t *testing.T) {
	g := a2ui.AuthoringGuide()
	for _, want := range []string{"render_a2ui", "- Text: ", "text*", "- Button: ", "- Column: ", "children*"} {
		if !strings.Contains(g, want) {
			t.Errorf("guide lacks %q:\n%s", want, g)
		}
	}
}

func FuzzPartialRender(f *testing.F) {
	f.Add(goodRender)
	f.Add(`{"components":[{"id":"root","text":"a\"}]`)
	f.Fuzz(func(t *testing.T, s string) {
		a, n, ok := a2ui.PartialRender(s)
		if ok && len(a.Components) < n {
			t.Fatalf("n %d > components %d", n, len(a.Components))
		}
	})
}
