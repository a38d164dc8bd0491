package a2ui_test

import (
	"testing"

	"github.com/genui-adapter/genui-adapter/a2ui"
)

// TestSchemaErrorsSameOrder: the official schemas' checks find the
// faults of a message in no fixed order (the validator walks its maps);
// the errors come out in the same order every time, sorted by place.
func TestSchemaErrorsSameOrder(t *testing.T) {
	v := a2ui.MustValidator(a2ui.Options{})
	for name, doc := range map[string][][]byte{
		"v0.9": {
			[]byte(`{"version":"v0.9","createSurface":{"surfaceId":"s","catalogId":"https://a2ui.org/specification/v0_9/basic_catalog.json"}}`),
			[]byte(`{"version":"v0.9","updateComponents":{"surfaceId":"s","components":[{"id":"root","component":"Column","children":["a","b","c"]},` +
				`{"id":"a","component":"Text","text":5,"variant":7,"zeta":1,"alpha":2,"mid":3},` +
				`{"id":"b","component":"Button","child":9,"action":"x","variant":1},` +
				`{"id":"c","component":"Image","url":1,"fit":2,"variant":3}]}}`),
			[]byte(`{"version":"v0.9","updateDataModel":{"surfaceId":"s","path":7,"value":{},"zeta":1,"alpha":2}}`),
		},
		"v0.8": {
			[]byte(`{"beginRendering":{"surfaceId":"s","root":"r","zeta":1,"alpha":2,"mid":3,"styles":{"primaryColor":5}}}`),
			[]byte(`{"surfaceUpdate":{"surfaceId":"s","components":[{"id":"r","component":{"Text":{"text":{"literalString":5},"usageHint":7,"zeta":1,"alpha":2}}}]}}`),
		},
		"v1.0": {
			[]byte(`{"version":"v1.0","createSurface":{"surfaceId":"s","zeta":1,"alpha":2,"mid":3,"components":[{"id":"root","component":"Text","text":5,"variant":7,"zeta":1,"alpha":2}]}}`),
		},
	} {
		t.Run(name, func(t *testing.T) {
			vd := sameEveryRun(t, func() a2ui.Verdict { return v.Judge(doc) })
			if len(vd.Errors) < 3 {
				t.Fatalf("%d errors, want several to order: %v", len(vd.Errors), vd.Errors)
			}
			for _, e := range vd.Errors {
				t.Log(e)
			}
		})
	}
}

// TestUpdateComponentsUnknownPropSameError: an updateComponents with
// several properties it does not have gets the same error every time,
// naming the first in sorted order.
func TestUpdateComponentsUnknownPropSameError(t *testing.T) {
	v := a2ui.MustValidator(a2ui.Options{})
	doc := [][]byte{
		[]byte(`{"version":"v0.9","createSurface":{"surfaceId":"s","catalogId":"https://a2ui.org/specification/v0_9/basic_catalog.json"}}`),
		[]byte(`{"version":"v0.9","updateComponents":{"surfaceId":"s","zeta":1,"mid":2,"beta":3,"alpha":4,"omega":5,` +
			`"components":[{"id":"root","component":"Text","text":"hi"}]}}`),
	}
	errs := sameEveryRun(t, func() []a2ui.Error { return v.ValidateBatch(doc) })
	if len(errs) != 1 || errs[0].Rule != a2ui.RuleUnknownProp || errs[0].Path != "/updateComponents/alpha" {
		t.Fatalf("errors = %+v, want one %s at /updateComponents/alpha", errs, a2ui.RuleUnknownProp)
	}
}
