package a2ui_test

import (
	"strings"
	"testing"

	"github.com/genui-adapter/genui-adapter/a2ui"
)

// TestV10Calls: a function call's catalogId is dropped, reported when it
// names another catalog than the surface's; @index is reported; a
// component without either comes out as it went in.
func TestV10Calls(t *testing.T) {
	v := a2ui.MustValidator(a2ui.Options{})
	u := v.Upgrade(msgs(
		`{"version":"v1.0","createSurface":{"surfaceId":"s",`+v10Basic+`}}`,
		`{"version":"v1.0","updateComponents":{"surfaceId":"s","components":[`+
			`{"id":"root","component":"Column","children":["a","b","c"]},`+
			`{"id":"a","component":"Text","text":{"call":"formatString","args":{"value":"${/x}"},`+v10Basic+`}},`+
			`{"id":"b","component":"Text","text":{"call":"formatString","args":{"value":"${/x}"},"catalogId":"https://example.com/other.json"}},`+
			`{"id":"c","component":"Text","text":{"call":"formatString","args":{"value":{"call":"@index"}}}}]}}`,
	), "v0.9.1")
	var issues []string
	for _, e := range u.Issues {
		issues = append(issues, e.Rule+" "+e.Path)
	}
	if len(u.Messages) != 2 {
		t.Fatalf("%d messages", len(u.Messages))
	}
	if got := string(u.Messages[1]); strings.Count(got, "catalogId") != 0 || strings.Count(got, `"call":"formatString"`) != 3 {
		t.Errorf("updateComponents %s, want its three calls without catalogId", got)
	}
	want := "v10_not_expressible /updateComponents/components/2/text/catalogId,v10_not_expressible /updateComponents/components/3/text/args/value"
	if strings.Join(issues, ",") != want {
		t.Errorf("issues = %v, want %v", issues, want)
	}
}
