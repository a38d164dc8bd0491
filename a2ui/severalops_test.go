package a2ui_test

import (
	"encoding/json"
	"reflect"
	"testing"

	"github.com/genui-adapter/genui-adapter/a2ui"
)

// runs is how often each several-operations case runs: a map gives its
// keys in a different order from run to run, so a path that picks "the"
// operation from one shows a different outcome within a few runs.
const runs = 50

// sameEveryRun runs f runs times and fails unless every run gives the
// same result; it returns that result.
func sameEveryRun[T any](t *testing.T, f func() T) T {
	t.Helper()
	first := f()
	for i := 1; i < runs; i++ {
		if got := f(); !reflect.DeepEqual(got, first) {
			t.Fatalf("run %d differs from run 0:\n%+v\nthen\n%+v", i, first, got)
		}
	}
	return first
}

// wantSeveral checks that errs hold exactly one error for message idx, the
// several-operations one with text want.
func wantSeveral(t *testing.T, errs []a2ui.Error, idx int, sid, want string) {
	t.Helper()
	var found []a2ui.Error
	for _, e := range errs {
		if e.Index == idx {
			found = append(found, e)
		}
	}
	if len(found) != 1 || found[0].Rule != a2ui.RuleInvalidEnvelope || found[0].SurfaceID != sid || found[0].Message != want {
		t.Errorf("errors of message %d = %+v, want one %s on %q: %q", idx, found, a2ui.RuleInvalidEnvelope, sid, want)
	}
}

// TestSeveralOperationsV08: a v0.8 message with surfaceUpdate and
// dataModelUpdate is left out with one error naming both; the rest of
// the surface is converted.
func TestSeveralOperationsV08(t *testing.T) {
	v := a2ui.MustValidator(a2ui.Options{})
	in := msgs(
		`{"surfaceUpdate":{"surfaceId":"s","components":[{"id":"r","component":{"Text":{"text":{"literalString":"hi"}}}}]}}`,
		`{"surfaceUpdate":{"surfaceId":"s","components":[{"id":"r","component":{"Text":{"text":{"literalString":"other"}}}}]},"dataModelUpdate":{"surfaceId":"s","contents":[{"key":"x","valueString":"y"}]}}`,
		`{"beginRendering":{"surfaceId":"s","root":"r"}}`,
	)
	u := sameEveryRun(t, func() a2ui.Upgrade { return v.Upgrade(in, "") })
	wantSeveral(t, u.Issues, 1, "s", `v0.8: message 1 on surface "s" carries 2 operations (dataModelUpdate, surfaceUpdate): exactly one operation per message; left out`)
	if want := []int{2, 0}; !reflect.DeepEqual(u.Sources, want) {
		t.Errorf("sources = %v, want %v (createSurface, then the components)", u.Sources, want)
	}
	if errs := v.ValidateBatch(raw(u.Messages)); len(errs) > 0 {
		t.Errorf("the rest of the surface fails v0.9.1: %v", errs)
	}
}

// TestSeveralOperationsV10: a v1.0 message with updateComponents and
// updateDataModel, or with an operation and a renderer function call, is
// left out with one error naming them; the rest of the surface is
// converted.
func TestSeveralOperationsV10(t *testing.T) {
	v := a2ui.MustValidator(a2ui.Options{})
	in := msgs(
		`{"version":"v1.0","createSurface":{"surfaceId":"s",`+v10Basic+`}}`,
		`{"version":"v1.0","updateComponents":{"surfaceId":"s","components":[{"id":"root","component":"Text","text":"hi"}]},"updateDataModel":{"surfaceId":"s","path":"/x","value":1}}`,
		`{"version":"v1.0","callRendererFunction":{"surfaceId":"s","functionCallId":"1","call":"f","args":{}},"deleteSurface":{"surfaceId":"s"}}`,
		`{"version":"v1.0","updateComponents":{"surfaceId":"s","components":[{"id":"root","component":"Text","text":"hi"}]}}`,
	)
	u := sameEveryRun(t, func() a2ui.Upgrade { return v.Upgrade(in, "") })
	wantSeveral(t, u.Issues, 1, "s", `message 1 on surface "s" carries 2 operations (updateComponents, updateDataModel): exactly one operation per message; left out, the rest of the surface is kept`)
	wantSeveral(t, u.Issues, 2, "s", `message 2 on surface "s" carries 2 operations (callRendererFunction, deleteSurface): exactly one operation per message; left out, the rest of the surface is kept`)
	if want := []int{0, 3}; !reflect.DeepEqual(u.Sources, want) {
		t.Errorf("sources = %v, want %v", u.Sources, want)
	}
	if errs := v.ValidateBatch(raw(u.Messages)); len(errs) > 0 {
		t.Errorf("the rest of the surface fails v0.9.1: %v", errs)
	}
	// The surface was not deleted: a v0.9 message on it is of another
	// version.
	u = v.Upgrade(append(in, json.RawMessage(`{"version":"v0.9","deleteSurface":{"surfaceId":"s"}}`)), "")
	if n := len(u.Issues); n == 0 || u.Issues[n-1].Rule != a2ui.RuleMixedVersions {
		t.Errorf("issues = %v, want mixed_versions last", u.Issues)
	}
}

// TestSeveralOperationsV09: the validator refuses a v0.9.1 message with
// several operations with one error naming them all, whatever other
// keys it has; the rest of the stream is applied.
func TestSeveralOperationsV09(t *testing.T) {
	v := a2ui.MustValidator(a2ui.Options{})
	in := [][]byte{
		[]byte(`{"version":"v0.9","createSurface":{"surfaceId":"s","catalogId":"https://a2ui.org/specification/v0_9/basic_catalog.json"}}`),
		[]byte(`{"version":"v0.9","updateComponents":{"surfaceId":"s","components":[{"id":"root","component":"Text","text":"a"}]},"updateDataModel":{"surfaceId":"s","value":{}},"deleteSurface":{"surfaceId":"s"},"extra":1}`),
		[]byte(`{"version":"v0.9","updateComponents":{"surfaceId":"s","components":[{"id":"root","component":"Text","text":"b"}]},"zz":1,"aa":2}`),
		[]byte(`{"version":"v0.9","updateComponents":{"surfaceId":"s","components":[{"id":"root","component":"Text","text":"c"}]}}`),
	}
	errs := sameEveryRun(t, func() []a2ui.Error { return v.ValidateBatch(in) })
	wantSeveral(t, errs, 1, "s", `message 1 on surface "s" carries 3 operations (deleteSurface, updateComponents, updateDataModel): exactly one operation per message`)
	if len(errs) != 2 || errs[1].Index != 2 || errs[1].Rule != a2ui.RuleUnknownMessage || errs[1].Path != "/aa" {
		t.Errorf("errors = %v, want message 1's, then unknown_message /aa for message 2", errs)
	}
}

// TestSeveralOperationsDowngrade: a v0.9.1 message with several
// operations is not sent to a v0.8 client; the others are.
func TestSeveralOperationsDowngrade(t *testing.T) {
	v := a2ui.MustValidator(a2ui.Options{})
	in := msgs(
		`{"version":"v0.9","createSurface":{"surfaceId":"s","catalogId":"https://a2ui.org/specification/v0_9/basic_catalog.json"}}`,
		`{"version":"v0.9","updateComponents":{"surfaceId":"s","components":[{"id":"root","component":"Text","text":"a"}]},"updateDataModel":{"surfaceId":"s","path":"/x","value":"y"}}`,
		`{"version":"v0.9","updateComponents":{"surfaceId":"s","components":[{"id":"root","component":"Text","text":"b"}]}}`,
	)
	d := sameEveryRun(t, func() a2ui.Downgrade { return v.Downgrade(in) })
	wantSeveral(t, d.Issues, 1, "s", `message 1 on surface "s" carries 2 operations (updateComponents, updateDataModel): exactly one operation per message; left out`)
	if want := []int{0, 2}; !reflect.DeepEqual(d.Sources, want) {
		t.Errorf("sources = %v, want %v", d.Sources, want)
	}
}

// TestSeveralOperationsJudge: /a2ui/validate and `a2ui validate` judge a
// document (Judge) through the same paths: the same error every run.
func TestSeveralOperationsJudge(t *testing.T) {
	v := a2ui.MustValidator(a2ui.Options{})
	for idx, doc := range [][][]byte{
		{
			[]byte(`{"version":"v1.0","createSurface":{"surfaceId":"s",` + v10Basic + `,"components":[{"id":"root","component":"Text","text":"hi"}]}}`),
			[]byte(`{"version":"v1.0","updateComponents":{"surfaceId":"s","components":[{"id":"root","component":"Text","text":"x"}]},"deleteSurface":{"surfaceId":"s"}}`),
		},
		{
			[]byte(`{"beginRendering":{"surfaceId":"s","root":"r"},"surfaceUpdate":{"surfaceId":"s","components":[{"id":"r","component":{"Text":{"text":{"literalString":"hi"}}}}]}}`),
			[]byte(`{"beginRendering":{"surfaceId":"s","root":"r"}}`),
			[]byte(`{"surfaceUpdate":{"surfaceId":"s","components":[{"id":"r","component":{"Text":{"text":{"literalString":"hi"}}}}]}}`),
		},
	} {
		vd := sameEveryRun(t, func() a2ui.Verdict { return v.Judge(doc) })
		wantIdx := 1 - idx // the v1.0 document's second message, the v0.8 one's first
		if len(vd.Errors) != 1 || vd.Errors[0].Index != wantIdx || vd.Errors[0].Rule != a2ui.RuleInvalidEnvelope {
			t.Errorf("%s document: errors = %v, want one invalid_envelope for message %d", vd.Version, vd.Errors, wantIdx)
		}
	}
}
