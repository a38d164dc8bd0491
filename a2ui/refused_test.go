package a2ui_test

import (
	"testing"

	"github.com/genui-adapter/genui-adapter/a2ui"
)

// mixed reports whether u has a mixed_versions issue for message idx.
func mixed(u a2ui.Upgrade, idx int) bool {
	for _, e := range u.Issues {
		if e.Rule == a2ui.RuleMixedVersions && e.Index == idx {
			return true
		}
	}
	return false
}

// A refused message neither gives its surface its version nor takes it
// away: a v1.0 createSurface the v1.0 schema refuses leaves the surface to
// the next valid message, whatever its version; a v1.0 deleteSurface it
// refuses leaves the surface v1.0's.
func TestRefusedMessageKeepsSurfaceVersion(t *testing.T) {
	v := a2ui.MustValidator(a2ui.Options{})
	u := v.Upgrade(msgs(
		`{"version":"v1.0","createSurface":{"surfaceId":"s","catalogId":7}}`,
		`{"version":"v0.9","createSurface":{"surfaceId":"s","catalogId":"https://a2ui.org/specification/v0_9/basic_catalog.json"}}`,
	), "")
	if len(u.Issues) == 0 || mixed(u, 1) || len(u.Sources) != 1 || u.Sources[0] != 1 {
		t.Errorf("after a refused v1.0 createSurface, a v0.9 one: issues %v, sources %v; want the v1.0 one refused, the v0.9 one kept", u.Issues, u.Sources)
	}
	u = v.Upgrade(msgs(
		`{"version":"v1.0","createSurface":{"surfaceId":"s",`+v10Basic+`}}`,
		`{"version":"v1.0","deleteSurface":{"surfaceId":"s","extra":true}}`,
		`{"version":"v0.9","updateComponents":{"surfaceId":"s","components":[{"id":"root","component":"Text","text":"a"}]}}`,
	), "")
	if !mixed(u, 2) {
		t.Errorf("after a refused v1.0 deleteSurface, a v0.9 message on the surface: issues %v; want mixed_versions for message 2", u.Issues)
	}
}

// A surface id that is not UTF-8 is the id the message decodes to (its
// bad bytes U+FFFD), so two spellings of it are one surface and speak one
// version.
func TestMixedVersionsSurfaceIDNotUTF8(t *testing.T) {
	v := a2ui.MustValidator(a2ui.Options{})
	u := v.Upgrade(msgs(
		"{\"beginRendering\":{\"surfaceId\":\"s\xff\",\"root\":\"r\"}}",
		"{\"surfaceUpdate\":{\"surfaceId\":\"s\xff\",\"components\":[{\"id\":\"r\",\"component\":{\"Text\":{\"text\":{\"literalString\":\"a\"}}}}]}}",
		"{\"version\":\"v0.9\",\"updateComponents\":{\"surfaceId\":\"s\xfe\",\"components\":[{\"id\":\"root\",\"component\":\"Text\",\"text\":\"b\"}]}}",
	), "")
	if !mixed(u, 2) {
		t.Errorf("a v0.9 message on a v0.8 surface whose id is spelled with other bytes that are not UTF-8: issues %v; want mixed_versions for message 2", u.Issues)
	}
}

// The same holds for v0.9: a v0.9 deleteSurface the v0.9.1 schema
// refuses leaves the surface v0.9's; a v0.9 createSurface it refuses, or
// a v0.9 message on a surface no createSurface made (which the v0.9.1
// validator refuses), does not make the surface v0.9's.
func TestRefusedV09MessageKeepsSurfaceVersion(t *testing.T) {
	v := a2ui.MustValidator(a2ui.Options{})
	create := `{"version":"v0.9","createSurface":{"surfaceId":"s","catalogId":"https://a2ui.org/specification/v0_9/basic_catalog.json"}}`
	update := `{"version":"v0.9","updateComponents":{"surfaceId":"s","components":[{"id":"root","component":"Text","text":"a"}]}}`
	begin := `{"beginRendering":{"surfaceId":"s","root":"r"}}`
	u := v.Upgrade(msgs(create, update,
		`{"version":"v0.9","deleteSurface":{"surfaceId":"s","extra":true}}`,
		`{"surfaceUpdate":{"surfaceId":"s","components":[{"id":"r","component":{"Text":{"text":{"literalString":"b"}}}}]}}`,
	), "")
	if !mixed(u, 3) {
		t.Errorf("after a refused v0.9 deleteSurface, a v0.8 message on the surface: issues %v; want mixed_versions for message 3", u.Issues)
	}
	for _, first := range []string{
		`{"version":"v0.9","createSurface":{"surfaceId":"s","catalogId":"https://a2ui.org/specification/v0_9/basic_catalog.json","extra":true}}`,
		update,
	} {
		if u := v.Upgrade(msgs(first, begin), ""); mixed(u, 1) {
			t.Errorf("after %s, a v0.8 beginRendering: issues %v; want no mixed_versions", first, u.Issues)
		}
	}
}
