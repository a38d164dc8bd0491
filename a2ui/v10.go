package a2ui

import (
	"encoding/json"
	"fmt"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/genui-adapter/genui-adapter/schemas"
)

// Rule codes of the v1.0 conversion.
const (
	// RuleV10NotExpressible: a part of a v1.0 message v0.9.1 cannot say;
	// the message is converted without it.
	RuleV10NotExpressible = "v10_not_expressible"
	// RuleV10FunctionRefused: a v1.0 message that calls a renderer
	// function (callRendererFunction) or answers one the renderer called
	// (agentFunctionResponse). The adapter's renderers speak v0.9.1,
	// which has neither, so the message is left out and the agent gets
	// no function response.
	RuleV10FunctionRefused = "v10_function_refused"
)

// v10Defs names the agent_to_renderer.json definition of each v1.0
// operation a message is checked against (one definition, for errors
// that name the message's own properties, not every branch of oneOf).
var v10Defs = map[string]string{
	"createSurface":    "CreateSurfaceMessage",
	"updateComponents": "UpdateComponentsMessage",
	"updateDataModel":  "UpdateDataModelMessage",
	"deleteSurface":    "DeleteSurfaceMessage",
}

// v10Functions are the v1.0 messages that call a renderer function or
// answer one (the names of this schema and of other v1.0 drafts).
var v10Functions = map[string]bool{
	"callRendererFunction": true, "agentFunctionResponse": true,
	"callFunction": true, "functionResponse": true, "actionResponse": true,
}

// compileV10 compiles the v1.0 message schema (agent_to_renderer.json
// with the basic catalog).
func (v *Validator) compileV10() error {
	res, err := schemas.V10Resources()
	if err != nil {
		return err
	}
	c := jsonschema.NewCompiler()
	c.DefaultDraft(jsonschema.Draft2020)
	c.AssertFormat()
	c.UseRegexpEngine(unicodeIdentifiers)
	for u, doc := range res {
		if err := c.AddResource(u, doc); err != nil {
			return fmt.Errorf("a2ui: add schema %s: %w", u, err)
		}
	}
	v.v10 = map[string]*jsonschema.Schema{}
	for op, def := range v10Defs {
		if v.v10[op], err = c.Compile(schemas.V10Base + "agent_to_renderer.json#/$defs/" + def); err != nil {
			return fmt.Errorf("a2ui: compile v1.0 %s: %w", def, err)
		}
	}
	return v.compileV10Parts(c, res)
}

// v10Parts is where the schemas of the v1.0 check by parts live: a
// resource of the adapter's, made of the official definitions.
const v10Parts = schemas.V10Base + "genui-adapter-parts.json"

// compileV10Parts compiles, with c (which holds res), what checking a
// v1.0 message by parts takes (v10Check): each message definition whose
// components list takes any array of at least one item, and for each
// component type of the basic catalog the official Component definition
// with anyComponent narrowed to that type's branch. That is the same
// verdict as the whole definition's: a component names its type in
// "component", which every other branch of anyComponent requires to be
// its own name (checked here; without it there is no check by parts), so
// the oneOf passes when that type's branch does and fails when it fails.
// The official files are not changed.
func (v *Validator) compileV10Parts(c *jsonschema.Compiler, res map[string]any) error {
	a2r, _ := res[schemas.V10Base+"agent_to_renderer.json"].(map[string]any)
	defs, _ := a2r["$defs"].(map[string]any)
	cat, _ := res[schemas.V10Base+"catalog.json"].(map[string]any)
	comps, _ := cat["components"].(map[string]any)
	catDefs, _ := cat["$defs"].(map[string]any)
	anyComp, _ := catDefs["anyComponent"].(map[string]any)
	branches, _ := anyComp["oneOf"].([]any)
	component, _ := defs["Component"].(map[string]any)
	allOf, _ := component["allOf"].([]any)
	_, annotated := anyComp["discriminator"] // an annotation, no assertion
	if len(branches) == 0 || len(allOf) != 3 || len(anyComp) != 2 || !annotated || len(component) != 3 {
		return nil // not the shape this was written for: the whole check alone
	}
	if ref, _ := allOf[1].(map[string]any)["$ref"].(string); ref != "catalog.json#/$defs/anyComponent" {
		return nil
	}
	parts := map[string]any{} // by type, and by message definition
	var types []string
	for _, b := range branches {
		ref, _ := b.(map[string]any)["$ref"].(string)
		typ, ok := strings.CutPrefix(ref, "#/components/")
		def, _ := comps[typ].(map[string]any)
		if !ok || len(b.(map[string]any)) != 1 || !pinsComponent(def, typ) {
			return nil
		}
		types = append(types, typ)
		parts[typ] = map[string]any{
			"allOf":                 []any{allOf[0], map[string]any{"$ref": "catalog.json#/components/" + typ}, allOf[2]},
			"unevaluatedProperties": component["unevaluatedProperties"],
		}
	}
	for _, op := range []string{"createSurface", "updateComponents"} {
		msg, ok := copyJSON(defs[v10Defs[op]]).(map[string]any)
		props, _ := msg["properties"].(map[string]any)
		body, _ := props[op].(map[string]any)
		bodyProps, _ := body["properties"].(map[string]any)
		list, _ := bodyProps["components"].(map[string]any)
		if !ok || list["$ref"] != "#/$defs/ComponentsList" {
			return nil
		}
		bodyProps["components"] = map[string]any{"type": "array", "minItems": json.Number("1")}
		parts[v10Defs[op]] = msg
	}
	cl, _ := defs["ComponentsList"].(map[string]any)
	items, _ := cl["items"].(map[string]any)
	_, described := cl["description"]
	if items["$ref"] != "#/$defs/Component" || len(items) != 1 || cl["type"] != "array" || cl["minItems"] != json.Number("1") || !described || len(cl) != 4 {
		return nil
	}
	var err error
	if err = c.AddResource(v10Parts, map[string]any{"$id": v10Parts, "$defs": parts}); err != nil {
		return fmt.Errorf("a2ui: add v1.0 parts: %w", err)
	}
	envs, types8 := map[string]*jsonschema.Schema{}, map[string]*jsonschema.Schema{}
	for _, op := range []string{"createSurface", "updateComponents"} {
		if envs[op], err = c.Compile(v10Parts + "#/$defs/" + v10Defs[op]); err != nil {
			return fmt.Errorf("a2ui: compile v1.0 parts %s: %w", op, err)
		}
	}
	for _, typ := range types {
		if types8[typ], err = c.Compile(v10Parts + "#/$defs/" + typ); err != nil {
			return fmt.Errorf("a2ui: compile v1.0 parts %s: %w", typ, err)
		}
	}
	v.v10Envs, v.v10Comps = envs, types8
	return nil
}

// pinsComponent reports whether def requires "component" to be typ
// (itself or through one of its allOf).
func pinsComponent(def map[string]any, typ string) bool {
	props, _ := def["properties"].(map[string]any)
	disc, _ := props["component"].(map[string]any)
	req, _ := def["required"].([]any)
	if disc["const"] == typ && slices.Contains(req, any("component")) {
		return true
	}
	all, _ := def["allOf"].([]any)
	for _, x := range all {
		if m, ok := x.(map[string]any); ok && pinsComponent(m, typ) {
			return true
		}
	}
	return false
}

// v10Check reports whether the v1.0 message doc of operation op passes
// its schema, checked by parts (compileV10Parts) when op carries
// components: the message without them, then each component against its
// own type's definition. false means "not shown to pass": the whole
// definition decides then, and words the errors.
func (v *Validator) v10Check(op string, doc any) bool {
	env := v.v10Envs[op]
	if env == nil || env.Validate(doc) != nil {
		return false
	}
	body, _ := doc.(map[string]any)[op].(map[string]any)
	list, _ := body["components"].([]any)
	for _, x := range list {
		c, _ := x.(map[string]any)
		typ, _ := c["component"].(string)
		if sch := v.v10Comps[typ]; sch == nil || sch.Validate(c) != nil {
			return false
		}
	}
	return true
}

// copyJSON copies a decoded JSON value.
func copyJSON(x any) any {
	switch t := x.(type) {
	case map[string]any:
		m := make(map[string]any, len(t))
		for k, e := range t {
			m[k] = copyJSON(e)
		}
		return m
	case []any:
		a := make([]any, len(t))
		for i, e := range t {
			a[i] = copyJSON(e)
		}
		return a
	}
	return x
}

// convertV10 converts one v1.0 message (decoded, already checked against
// the v1.0 schema) to v0.9.1 messages stamped version:
//
//   - createSurface with inline components and a data model →
//     createSurface, updateComponents, updateDataModel {path: "/"};
//   - the v1.0 basic catalog → the basic catalog; a component's or a
//     function call's own catalogId, the surface's when it names the
//     same catalog, else reported (v0.9.1 has one catalog per surface);
//   - updateDataModel {value: null} (a delete) → updateDataModel without
//     value;
//   - callRendererFunction and agentFunctionResponse → refused
//     (RuleV10FunctionRefused);
//   - what v0.9.1 has no word for (metadata, Video posterUrl, TextField
//     placeholder, Slider steps, an action's userMessage, @index) is left
//     out and reported (RuleV10NotExpressible).
//
// The maps it builds are a's.
func (v *Validator) convertV10(a *arena, obj map[string]any, sid string, idx int, version string) ([]map[string]any, []Error) {
	cv := v10Conv{v: v, sid: sid, idx: idx}
	env := func(op string, body map[string]any) map[string]any {
		m := a.obj()
		m["version"], m[op] = version, body
		return m
	}
	kv := func(k string, v any) map[string]any {
		m := a.obj()
		m[k] = v
		return m
	}
	switch {
	case obj["createSurface"] != nil:
		in, _ := obj["createSurface"].(map[string]any)
		cs := kv("surfaceId", sid)
		cat, _ := in["catalogId"].(string)
		cv.catalog = cat
		if cat == "" || cat == schemas.V10BasicCatalogID {
			cat = schemas.BasicCatalogID
		}
		cs["catalogId"] = cat
		if sd, ok := in["sendDataModel"]; ok {
			cs["sendDataModel"] = sd
		}
		if th, ok := in["theme"]; ok {
			cs["theme"] = th
		}
		cv.drop(in, "metadata", func() string { return "/createSurface" }, "surface metadata")
		out := []map[string]any{env("createSurface", cs)}
		if list, ok := in["components"].([]any); ok {
			body := kv("surfaceId", sid)
			body["components"] = cv.components(a, list, "/createSurface/components")
			out = append(out, env("updateComponents", body))
		}
		if dm, ok := in["dataModel"]; ok {
			body := kv("surfaceId", sid)
			body["path"], body["value"] = "/", dm
			out = append(out, env("updateDataModel", body))
		}
		return out, cv.errs
	case obj["updateComponents"] != nil:
		in, _ := obj["updateComponents"].(map[string]any)
		list, _ := in["components"].([]any)
		body := kv("surfaceId", sid)
		body["components"] = cv.components(a, list, "/updateComponents/components")
		return []map[string]any{env("updateComponents", body)}, cv.errs
	case obj["updateDataModel"] != nil:
		in, _ := obj["updateDataModel"].(map[string]any)
		body := kv("surfaceId", sid)
		if p, ok := in["path"]; ok {
			body["path"] = p
		}
		if val := in["value"]; val != nil {
			body["value"] = val
		} // null deletes: v0.9.1 deletes when value is absent
		return []map[string]any{env("updateDataModel", body)}, nil
	case obj["deleteSurface"] != nil:
		return []map[string]any{env("deleteSurface", kv("surfaceId", sid))}, nil
	}
	return nil, nil
}

// refuseV10Function is the error for a v1.0 function message.
func refuseV10Function(op, sid string, idx int) Error {
	return Error{Rule: RuleV10FunctionRefused, SurfaceID: sid, Path: "/" + escape(op), Index: idx,
		Message: fmt.Sprintf("message %d is a v1.0 %s: v0.9.1 renderers have no functions an agent calls or answers, and the adapter runs none, so no function response follows; left out, the rest of the surface is kept", idx, op)}
}

// v10Conv converts the parts of one v1.0 message.
type v10Conv struct {
	v       *Validator
	sid     string
	idx     int
	catalog string // the surface's catalog, when this message names it
	errs    []Error
}

func (cv *v10Conv) lossy(path, format string, args ...any) {
	cv.errs = append(cv.errs, Error{Rule: RuleV10NotExpressible, SurfaceID: cv.sid, Path: path, Message: fmt.Sprintf(format, args...), Index: cv.idx})
}

// drop removes key from m, reporting it (at is where m is).
func (cv *v10Conv) drop(m map[string]any, key string, at func() string, what string) {
	if _, ok := m[key]; ok {
		delete(m, key)
		cv.lossy(at()+"/"+key, "%s has no v0.9.1 form; left out", what)
	}
}

// v10NewProps are the basic catalog's v1.0 properties v0.9.1 lacks.
var v10NewProps = map[string][]string{"Video": {"posterUrl"}, "TextField": {"placeholder"}, "Slider": {"steps"}}

func (cv *v10Conv) components(a *arena, list []any, at string) []any {
	out := a.list(len(list))[:0]
	for i, x := range list {
		c, _ := x.(map[string]any)
		cat := func() string { return at + "/" + strconv.Itoa(i) }
		if id, ok := c["catalogId"].(string); ok {
			delete(c, "catalogId")
			if id != schemas.V10BasicCatalogID && id != cv.catalog {
				cv.lossy(cat()+"/catalogId", "component %v names its own catalog %q; a v0.9.1 surface has one catalog, so it is checked against the surface's", c["id"], id)
			}
		}
		cv.drop(c, "metadata", cat, "component metadata")
		typ, _ := c["component"].(string)
		for _, p := range v10NewProps[typ] {
			cv.drop(c, p, cat, typ+" "+p)
		}
		if a, ok := c["action"].(map[string]any); ok {
			if ev, ok := a["event"].(map[string]any); ok {
				cv.drop(ev, "userMessage", func() string { return cat() + "/action/event" }, "an action's userMessage")
			}
		}
		if callsToMend(c) {
			cv.calls(c, cat())
		}
		out = append(out, c)
	}
	return out
}

// calls walks a component's values: each function call loses its
// catalogId (reported when it names another catalog); @index (v1.0's
// template index) is reported, v0.9.1 has no such function. A call's
// returnType is optional in both versions and left as it is.
func (cv *v10Conv) calls(x any, at string) {
	switch t := x.(type) {
	case map[string]any:
		if name, ok := t["call"].(string); ok {
			if id, ok := t["catalogId"].(string); ok {
				delete(t, "catalogId")
				if id != schemas.V10BasicCatalogID && id != cv.catalog {
					cv.lossy(at+"/catalogId", "function %q names its own catalog %q; v0.9.1 calls the surface catalog's functions", name, id)
				}
			}
			if name == "@index" {
				cv.lossy(at, "v0.9.1 has no @index function (a template item's index); the value fails v0.9.1 validation")
			}
		}
		keys := make([]string, 0, len(t))
		for k := range t {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			cv.calls(t[k], at+"/"+escape(k))
		}
	case []any:
		for i, e := range t {
			cv.calls(e, fmt.Sprintf("%s/%d", at, i))
		}
	}
}

// callsToMend reports whether calls has anything to do in x: a function
// call that names a catalog, or @index. Most components have none, and
// this walk builds no paths and sorts no keys.
func callsToMend(x any) bool {
	switch t := x.(type) {
	case map[string]any:
		if name, ok := t["call"].(string); ok {
			if _, ok := t["catalogId"].(string); ok || name == "@index" {
				return true
			}
		}
		for _, e := range t {
			if callsToMend(e) {
				return true
			}
		}
	case []any:
		for _, e := range t {
			if callsToMend(e) {
				return true
			}
		}
	}
	return false
}

// xidClasses are the Unicode identifier properties the v1.0 schemas use
// in patterns (extension names), which Go's regexp lacks, as the general
// categories that make them up (UAX #31, without the few
// Other_ID_Start characters).
var xidClasses = strings.NewReplacer(
	`\p{XID_Start}`, `\p{L}\p{Nl}`,
	`\p{XID_Continue}`, `\p{L}\p{Nl}\p{Mn}\p{Mc}\p{Nd}\p{Pc}`,
)

// unicodeIdentifiers is the regexp engine of the v1.0 schemas: Go's, with
// \p{XID_Start} and \p{XID_Continue} (inside a character class, where the
// schemas use them) spelled as general categories.
func unicodeIdentifiers(s string) (jsonschema.Regexp, error) {
	return regexp.Compile(xidClasses.Replace(s))
}
