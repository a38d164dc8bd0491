// Package schemas embeds the official A2UI v0.8, v0.9, v0.9.1 and v1.0
// JSON schemas and catalogs, byte-for-byte as published (see SOURCE.md,
// SOURCE_v0_8.md, SOURCE_v1_0.md and LICENSE), and prepares them for a
// JSON Schema compiler.
//
// The files have three traps that Resources handles in memory, leaving the
// embedded bytes untouched:
//
//   - server_to_client.json and common_types.json refer to "catalog.json",
//     which resolves to https://a2ui.org/specification/v0_9/catalog.json, an
//     id no file declares: the chosen catalog is registered under that alias;
//   - client_to_server.json has no $id: it is registered under the URL its
//     list schema refers to;
//   - every "version" is {"const": "v0.9"}, which rejects the "v0.9.1" the
//     v0.9.1 spec uses: it becomes {"enum": ["v0.9", "v0.9.1"]}.
//
// Format assertion must be turned on in the compiler (DateTimeInput's
// min/max use oneOf over formats). This package imports only the standard
// library.
package schemas

import (
	"bytes"
	"embed"
	"encoding/json"
	"fmt"
	"io/fs"
	"path"
)

// FS holds the official files: v0_9/ and v0_9_1/, each with json/*.json and
// catalogs/{basic,minimal}/catalog.json; v0_8/json/*.json and
// v0_8/json/catalogs/minimal/minimal_catalog.json; v1_0/json/*.json and
// v1_0/catalogs/basic/catalog.json; LICENSE and SOURCE.md.
//
//go:embed v0_8 v0_9 v0_9_1 v1_0 LICENSE SOURCE.md
var FS embed.FS

// Base is the URL every schema's $id lives under, in both folders.
const Base = "https://a2ui.org/specification/v0_9/"

// BasicCatalogID is the basic catalog's id: the catalogId renderers
// register (the v0_9_1 URL in the v0.9.1 docs is known to no renderer).
const BasicCatalogID = Base + "catalogs/basic/catalog.json"

// CatalogAlias is where the schemas look for "the catalog in use".
const CatalogAlias = Base + "catalog.json"

// Versions lists the version strings accepted on input.
var Versions = []string{"v0.9", "v0.9.1"}

// V08 is the version a v0.8 message is taken for: v0.8 messages carry
// no version field.
const V08 = "v0.8"

// V08StandardCatalogID is the v0.8 standard catalog's id, the catalog of
// a v0.8 surface whose beginRendering names none.
const V08StandardCatalogID = "https://a2ui.org/specification/v0_8/standard_catalog_definition.json"

// V08MinimalCatalogID is the v0.8 minimal catalog's id (a subset of the
// standard catalog).
const V08MinimalCatalogID = "https://a2ui.org/specification/v0_8/catalogs/minimal/minimal_catalog.json"

// V08Base is the URL the v0.8 schemas are registered under (the files
// have no $id).
const V08Base = "https://a2ui.org/specification/v0_8/"

// V08Resources returns the v0.8 message schema (server_to_client.json,
// whose components are open) and the standard catalog
// (standard_catalog_definition.json, {components, styles}), keyed by the
// URL under V08Base a compiler must register them under. Numbers are
// json.Number.
func V08Resources() (map[string]any, error) {
	out := map[string]any{}
	for _, f := range []string{"server_to_client.json", "standard_catalog_definition.json"} {
		doc, err := decode("v0_8/json/" + f)
		if err != nil {
			return nil, err
		}
		out[V08Base+f] = doc
	}
	return out, nil
}

// V10 is the version string of A2UI v1.0 messages.
const V10 = "v1.0"

// V10Base is the URL every v1.0 schema's $id lives under.
const V10Base = "https://a2ui.org/specification/v1_0/"

// V10BasicCatalogID is the v1.0 basic catalog's id.
const V10BasicCatalogID = V10Base + "catalogs/basic/catalog.json"

// V10Resources returns the v1.0 schemas (v1_0/json) and the basic
// catalog, keyed by the URL a compiler must register them under; the
// catalog is also registered as V10Base+"catalog.json", where the message
// schemas look for the catalog in use. Numbers are json.Number.
func V10Resources() (map[string]any, error) {
	out := map[string]any{}
	files, err := fs.Glob(FS, "v1_0/json/*.json")
	if err != nil {
		return nil, err
	}
	for _, f := range files {
		doc, err := decode(f)
		if err != nil {
			return nil, err
		}
		out[V10Base+path.Base(f)] = doc
	}
	for _, u := range []string{V10BasicCatalogID, V10Base + "catalog.json"} {
		doc, err := decode("v1_0/catalogs/basic/catalog.json")
		if err != nil {
			return nil, err
		}
		doc.(map[string]any)["$id"] = u
		out[u] = doc
	}
	return out, nil
}

// Resources returns the documents of folder ("v0_9" or "v0_9_1") keyed by
// the URL a compiler must register them under, with catalog ("basic" or
// "minimal") also registered as CatalogAlias. Numbers are json.Number.
func Resources(folder, catalog string) (map[string]any, error) {
	if folder != "v0_9" && folder != "v0_9_1" {
		return nil, fmt.Errorf("schemas: unknown folder %q", folder)
	}
	out := map[string]any{}
	files, err := fs.Glob(FS, folder+"/json/*.json")
	if err != nil {
		return nil, err
	}
	for _, f := range files {
		doc, err := load(f)
		if err != nil {
			return nil, err
		}
		out[Base+path.Base(f)] = doc
	}
	for _, c := range []string{"basic", "minimal"} {
		doc, err := load(folder + "/catalogs/" + c + "/catalog.json")
		if err != nil {
			return nil, err
		}
		out[Base+"catalogs/"+c+"/catalog.json"] = doc
		if c == catalog {
			alias, err := load(folder + "/catalogs/" + c + "/catalog.json")
			if err != nil {
				return nil, err
			}
			alias.(map[string]any)["$id"] = CatalogAlias
			out[CatalogAlias] = alias
		}
	}
	if _, ok := out[CatalogAlias]; !ok {
		return nil, fmt.Errorf("schemas: unknown catalog %q", catalog)
	}
	return out, nil
}

func load(name string) (any, error) {
	doc, err := decode(name)
	if err != nil {
		return nil, err
	}
	acceptVersions(doc)
	return doc, nil
}

func decode(name string) (any, error) {
	b, err := FS.ReadFile(name)
	if err != nil {
		return nil, err
	}
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	var doc any
	if err := dec.Decode(&doc); err != nil {
		return nil, fmt.Errorf("schemas: %s: %w", name, err)
	}
	return doc, nil
}

// acceptVersions turns every {"const": "v0.9"} into an enum of Versions.
func acceptVersions(v any) {
	switch x := v.(type) {
	case map[string]any:
		if c, ok := x["const"].(string); ok && c == "v0.9" {
			delete(x, "const")
			enum := make([]any, len(Versions))
			for i, s := range Versions {
				enum[i] = s
			}
			x["enum"] = enum
		}
		for _, e := range x {
			acceptVersions(e)
		}
	case []any:
		for _, e := range x {
			acceptVersions(e)
		}
	}
}
