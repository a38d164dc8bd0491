package a2ui

import (
	"cmp"
	"errors"
	"fmt"
	"net/url"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"

	"github.com/santhosh-tekuri/jsonschema/v6"
	"github.com/santhosh-tekuri/jsonschema/v6/kind"
	"golang.org/x/text/language"
	"golang.org/x/text/message"

	"github.com/genui-adapter/genui-adapter/schemas"
)

// CopilotKitCatalogID is the id CopilotKit registers its basic catalog
// under; it is the same catalog as schemas.BasicCatalogID.
const CopilotKitCatalogID = "https://a2ui.org/specification/v0_9/basic_catalog.json"

// Options configure a Validator. The zero value is usable: each zero field
// means the default given.
type Options struct {
	// Strict makes components unreachable from root errors. Default false.
	Strict bool
	// CheckBindings requires absolute bindings to point at data that
	// exists and template paths at arrays, once a batch ends (see
	// Stream.Finish). Meant for surfaces we generate. Default false.
	CheckBindings bool
	// CatalogIDs are the catalog ids createSurface may name. Default: the
	// basic catalog under its official id and CopilotKit's id.
	CatalogIDs []string
	// MaxMessageBytes caps one message. Default 1 MiB.
	MaxMessageBytes int
	// MaxComponents caps the components of one surface. Default 1000.
	MaxComponents int
	// MaxTemplateItems caps an array a template iterates. Default 1000.
	MaxTemplateItems int
	// MaxDepth caps the component tree depth and JSON nesting. Default 50.
	MaxDepth int
	// MaxFunctionDepth caps nested function calls. Default 5.
	MaxFunctionDepth int
	// MaxHeldMessages caps the v0.8 messages a converter holds for
	// surfaces waiting for beginRendering, and the messages of one
	// @ag-ui/a2a surface held to be sent whole. Default 1000.
	MaxHeldMessages int
	// MaxRemembered caps the schema verdicts, and apart the version
	// probes, the validator remembers (each is forgotten whole when
	// full). Default 8192.
	MaxRemembered int
}

func (o Options) withDefaults() Options {
	if len(o.CatalogIDs) == 0 {
		o.CatalogIDs = []string{schemas.BasicCatalogID, CopilotKitCatalogID}
	}
	if o.MaxMessageBytes == 0 {
		o.MaxMessageBytes = 1 << 20
	}
	if o.MaxComponents == 0 {
		o.MaxComponents = 1000
	}
	if o.MaxTemplateItems == 0 {
		o.MaxTemplateItems = 1000
	}
	if o.MaxDepth == 0 {
		o.MaxDepth = 50
	}
	if o.MaxFunctionDepth == 0 {
		o.MaxFunctionDepth = 5
	}
	if o.MaxHeldMessages == 0 {
		o.MaxHeldMessages = 1000
	}
	if o.MaxRemembered == 0 {
		o.MaxRemembered = 8192
	}
	return o
}

// Validator checks A2UI messages against the official schemas and the
// integrity rules. It is safe for concurrent use; per-stream state lives in
// a Stream.
type Validator struct {
	opts       Options
	s2c, c2s   *jsonschema.Schema
	v08        *jsonschema.Schema            // v0.8 messages (components open)
	v08Comps   map[string]*jsonschema.Schema // v0.8 standard catalog, by type
	v10        map[string]*jsonschema.Schema // v1.0 messages by operation, basic catalog
	v10Envs    map[string]*jsonschema.Schema // v1.0 checked by parts: messages by operation, components aside
	v10Comps   map[string]*jsonschema.Schema // and each component by type
	components map[string]*jsonschema.Schema

	strictOnce *syncOnce
	strict     *Validator
	verdicts   *verdicts
}

type syncOnce = sync.Once

// NewValidator compiles the embedded v0.9.1 schemas with the basic catalog,
// and the v0.8 message schema the v0.8 converter checks its input against.
func NewValidator(opts Options) (*Validator, error) {
	res, err := schemas.Resources("v0_9_1", "basic")
	if err != nil {
		return nil, err
	}
	c := jsonschema.NewCompiler()
	c.DefaultDraft(jsonschema.Draft2020)
	c.AssertFormat()
	for u, doc := range res {
		if err := c.AddResource(u, doc); err != nil {
			return nil, fmt.Errorf("a2ui: add schema %s: %w", u, err)
		}
	}
	opts = opts.withDefaults()
	v := &Validator{opts: opts, components: map[string]*jsonschema.Schema{}, strictOnce: new(sync.Once), verdicts: newVerdicts(opts.MaxRemembered)}
	if v.s2c, err = c.Compile(schemas.Base + "server_to_client.json"); err != nil {
		return nil, fmt.Errorf("a2ui: compile: %w", err)
	}
	if v.c2s, err = c.Compile(schemas.Base + "client_to_server.json"); err != nil {
		return nil, fmt.Errorf("a2ui: compile: %w", err)
	}
	if err := v.compileV08(); err != nil {
		return nil, err
	}
	if err := v.compileV10(); err != nil {
		return nil, err
	}
	cat := res[schemas.CatalogAlias].(map[string]any)["components"].(map[string]any)
	for name := range cat {
		if v.components[name], err = c.Compile(schemas.CatalogAlias + "#/components/" + name); err != nil {
			return nil, fmt.Errorf("a2ui: compile %s: %w", name, err)
		}
	}
	return v, nil
}

// compileV08 compiles the v0.8 message schema and the v0.8 standard
// catalog's components.
func (v *Validator) compileV08() error {
	res, err := schemas.V08Resources()
	if err != nil {
		return err
	}
	c := jsonschema.NewCompiler()
	c.DefaultDraft(jsonschema.Draft2020)
	for u, doc := range res {
		if err := c.AddResource(u, doc); err != nil {
			return fmt.Errorf("a2ui: add schema %s: %w", u, err)
		}
	}
	if v.v08, err = c.Compile(schemas.V08Base + "server_to_client.json"); err != nil {
		return fmt.Errorf("a2ui: compile v0.8: %w", err)
	}
	cat := res[schemas.V08Base+"standard_catalog_definition.json"].(map[string]any)["components"].(map[string]any)
	v.v08Comps = make(map[string]*jsonschema.Schema, len(cat))
	for name := range cat {
		if v.v08Comps[name], err = c.Compile(schemas.V08Base + "standard_catalog_definition.json#/components/" + name); err != nil {
			return fmt.Errorf("a2ui: compile v0.8 %s: %w", name, err)
		}
	}
	return nil
}

// MustValidator is NewValidator for package-level use in tests and
// examples; it panics on error (the schemas are embedded, so an error is a
// build defect).
func MustValidator(opts Options) *Validator {
	v, err := NewValidator(opts)
	if err != nil {
		panic(err)
	}
	return v
}

// Options returns the validator's options with defaults applied.
func (v *Validator) Options() Options { return v.opts }

// surface is what a Stream knows about one live surface.
type surface struct {
	catalogID  string
	components map[string]map[string]any
	data       any
	hasData    bool
}

// Stream validates a sequence of messages, keeping surface state between
// them. Not safe for concurrent use.
type Stream struct {
	v             *Validator
	surfaces      map[string]*surface
	index         int
	extraCatalogs []string
}

// NewStream starts an empty stream.
func (v *Validator) NewStream() *Stream {
	return &Stream{v: v, surfaces: map[string]*surface{}}
}

// AllowCatalog lets createSurface name id in this stream, in addition to
// the validator's catalogs (the catalog the frontend registered). Its
// components are checked against the basic catalog.
func (s *Stream) AllowCatalog(id string) {
	if id != "" {
		s.extraCatalogs = append(s.extraCatalogs, id)
	}
}

// ValidateBatch validates msgs as one fresh stream and runs the end-of-batch
// checks.
func (v *Validator) ValidateBatch(msgs [][]byte) []Error {
	s := v.NewStream()
	var errs []Error
	for _, m := range msgs {
		errs = append(errs, s.Validate(m)...)
	}
	return append(errs, s.Finish()...)
}

var printer = message.NewPrinter(language.English)

// Validate checks the next message of the stream. A valid message is
// applied to the stream's surface state; an invalid one is not.
func (s *Stream) Validate(b []byte) []Error {
	idx := s.index
	s.index++
	v := s.v
	op, sid, body, errs := v.alone(b, idx)
	if len(errs) > 0 {
		return errs
	}
	fail := func(rule, surfaceID, path, msg string) []Error {
		return []Error{{Rule: rule, SurfaceID: surfaceID, Path: path, Message: msg, Index: idx}}
	}

	// Surface state.
	sf := s.surfaces[sid]
	switch op {
	case "createSurface":
		if sf != nil {
			return fail(RuleSurfaceExists, sid, "/createSurface/surfaceId", fmt.Sprintf("surface %q already exists; delete it first", sid))
		}
		cat, _ := body["catalogId"].(string)
		if !slices.Contains(v.opts.CatalogIDs, cat) && !slices.Contains(s.extraCatalogs, cat) {
			return fail(RuleUnsupportedCatalog, sid, "/createSurface/catalogId", fmt.Sprintf("catalog %q is not supported (supported: %s)", cat, strings.Join(v.opts.CatalogIDs, ", ")))
		}
		s.surfaces[sid] = &surface{catalogID: cat, components: map[string]map[string]any{}}
		return nil
	case "deleteSurface":
		if sf == nil {
			return fail(RuleUnknownSurface, sid, "/deleteSurface/surfaceId", fmt.Sprintf("surface %q does not exist", sid))
		}
		delete(s.surfaces, sid)
		return nil
	}
	if sf == nil {
		return fail(RuleUnknownSurface, sid, pointer(op, "surfaceId"), fmt.Sprintf("surface %q was not created (createSurface must come first)", sid))
	}
	if op == "updateDataModel" {
		return s.applyData(sf, body, sid, idx)
	}
	return s.applyComponents(sf, body, sid, idx)
}

// alone checks message idx on its own, before any surface state: its
// size and JSON, its envelope (one operation, no other key, a version)
// and the schema. It returns the operation, the surface id and the
// operation's body.
func (v *Validator) alone(b []byte, idx int) (op, sid string, body map[string]any, errs []Error) {
	fail := func(rule, surfaceID, path, msg string) (string, string, map[string]any, []Error) {
		return "", "", nil, []Error{{Rule: rule, SurfaceID: surfaceID, Path: path, Message: msg, Index: idx}}
	}
	if len(b) > v.opts.MaxMessageBytes {
		return fail(RuleTooLarge, "", "", fmt.Sprintf("message is %d bytes, more than %d", len(b), v.opts.MaxMessageBytes))
	}
	doc, rule, path, msg := decodeMessage(b, v.opts.MaxDepth)
	if rule != "" {
		return fail(rule, "", path, msg)
	}
	obj, ok := doc.(map[string]any)
	if !ok {
		return fail(RuleInvalidEnvelope, "", "", "a message is a JSON object")
	}
	op, several := operation(obj, isV09Op, idx)
	if several != nil {
		return "", "", nil, []Error{*several}
	}
	if unknown, ok := unknownKey(obj); ok {
		return fail(RuleUnknownMessage, "", pointer(unknown), fmt.Sprintf("unknown message key %q", unknown))
	}
	if op == "" {
		return fail(RuleInvalidEnvelope, "", "", "no operation (createSurface, updateComponents, updateDataModel or deleteSurface)")
	}
	if ver, _ := obj["version"].(string); !slices.Contains(schemas.Versions, ver) {
		return fail(RuleInvalidVersion, "", "/version", fmt.Sprintf("version must be one of %v, got %v", schemas.Versions, obj["version"]))
	}
	body, ok = obj[op].(map[string]any)
	if !ok {
		return fail(RuleInvalidEnvelope, "", pointer(op), op+" must be an object")
	}
	sid, _ = body["surfaceId"].(string)

	// Schema.
	if op == "updateComponents" {
		errs = v.schemaComponents(body, sid, idx)
	} else if err := v.verdicts.validate(v.s2c, doc); err != nil {
		errs = schemaErrors(err, "", sid, idx)
	}
	return op, sid, body, errs
}

// unknownKey returns the first key of a v0.9 message (in sorted order)
// that is neither version nor an operation.
func unknownKey(obj map[string]any) (first string, ok bool) {
	for k := range obj {
		if k != "version" && !isV09Op(k) && (!ok || k < first) {
			first, ok = k, true
		}
	}
	return first, ok
}

func (v *Validator) schemaComponents(body map[string]any, sid string, idx int) []Error {
	fail := func(rule, path, msg string) []Error {
		return []Error{{Rule: rule, SurfaceID: sid, Path: path, Message: msg, Index: idx}}
	}
	unknown, found := "", false // the first in sorted order: the same error every time
	for k := range body {
		if k != "surfaceId" && k != "components" && (!found || k < unknown) {
			unknown, found = k, true
		}
	}
	if found {
		return fail(RuleUnknownProp, pointer("updateComponents", unknown), fmt.Sprintf("updateComponents has no property %q", unknown))
	}
	if sid == "" {
		return fail(RuleMissingProp, "/updateComponents/surfaceId", "surfaceId is required")
	}
	list, ok := body["components"].([]any)
	if !ok || len(list) == 0 {
		return fail(RuleMissingProp, "/updateComponents/components", "components must be a non-empty array")
	}
	var errs []Error
	for i, c := range list {
		base := pointer("updateComponents", "components", i)
		m, ok := c.(map[string]any)
		if !ok {
			errs = append(errs, Error{Rule: RuleSchema, SurfaceID: sid, Path: base, Message: "a component is an object", Index: idx})
			continue
		}
		typ, _ := m["component"].(string)
		sch := v.components[typ]
		if sch == nil {
			msg := fmt.Sprintf("unknown component type %q (not in the basic catalog)", m["component"])
			if typ == "" {
				msg = "component type is required"
			}
			errs = append(errs, Error{Rule: RuleUnknownComponent, SurfaceID: sid, Path: base + "/component", Message: msg, Index: idx})
			continue
		}
		if err := v.verdicts.validate(sch, m); err != nil {
			errs = append(errs, schemaErrors(err, base, sid, idx)...)
		}
	}
	return errs
}

// schemaErrors turns a jsonschema error tree into one Error per leaf,
// dropping the "false schema" noise unevaluatedProperties adds when a
// sibling fails. The validator finds the leaves in no fixed order (it
// walks the instance's maps), so they are sorted (compareLeaves) and the
// properties an additionalProperties leaf names too: the same message
// always gets the same errors in the same order.
func schemaErrors(err error, base, sid string, idx int) []Error {
	var ve *jsonschema.ValidationError
	if !errors.As(err, &ve) {
		return []Error{{Rule: RuleSchema, SurfaceID: sid, Path: base, Message: err.Error(), Index: idx}}
	}
	var leaves []*jsonschema.ValidationError
	var walk func(e *jsonschema.ValidationError)
	walk = func(e *jsonschema.ValidationError) {
		if len(e.Causes) == 0 {
			if k, ok := e.ErrorKind.(*kind.AdditionalProperties); ok {
				slices.Sort(k.Properties)
			}
			leaves = append(leaves, e)
		}
		for _, c := range e.Causes {
			walk(c)
		}
	}
	walk(ve)
	slices.SortStableFunc(leaves, compareLeaves)
	meaningful := 0
	for _, l := range leaves {
		if _, ok := l.ErrorKind.(*kind.FalseSchema); !ok {
			meaningful++
		}
	}
	var out []Error
	seen := map[string]bool{}
	for _, l := range leaves {
		path := base + pointer(toAny(l.InstanceLocation)...)
		if len(l.InstanceLocation) == 0 {
			path = base
		}
		rule := RuleSchema
		msg := l.ErrorKind.LocalizedString(printer)
		switch k := l.ErrorKind.(type) {
		case *kind.FalseSchema:
			if meaningful > 0 {
				continue
			}
			rule = RuleUnknownProp
			msg = "property is not allowed here"
		case *kind.Required:
			rule = RuleMissingProp
			for _, m := range k.Missing {
				p := path + pointer(m)
				if !seen[rule+p] {
					seen[rule+p] = true
					out = append(out, Error{Rule: rule, SurfaceID: sid, Path: p, Message: fmt.Sprintf("missing required property %q", m), Index: idx})
				}
			}
			continue
		case *kind.AdditionalProperties:
			rule = RuleUnknownProp
		}
		if seen[rule+path] {
			// One error per place: merge what the branches of a oneOf say.
			for i := range out {
				if out[i].Rule == rule && out[i].Path == path && !strings.Contains(out[i].Message, msg) {
					out[i].Message += "; or " + msg
				}
			}
			continue
		}
		seen[rule+path] = true
		out = append(out, Error{Rule: rule, SurfaceID: sid, Path: path, Message: msg, Index: idx})
	}
	if len(out) == 0 {
		out = append(out, Error{Rule: RuleSchema, SurfaceID: sid, Path: base, Message: ve.Error(), Index: idx})
	}
	return out
}

// compareLeaves orders schema errors by instance location (segment by
// segment, array indexes as numbers), then by the schema keyword that
// failed, then by message.
func compareLeaves(a, b *jsonschema.ValidationError) int {
	if c := compareLocations(a.InstanceLocation, b.InstanceLocation); c != 0 {
		return c
	}
	if c := strings.Compare(a.SchemaURL, b.SchemaURL); c != 0 {
		return c
	}
	if c := slices.Compare(a.ErrorKind.KeywordPath(), b.ErrorKind.KeywordPath()); c != 0 {
		return c
	}
	return strings.Compare(a.ErrorKind.LocalizedString(printer), b.ErrorKind.LocalizedString(printer))
}

func compareLocations(a, b []string) int {
	for i := range min(len(a), len(b)) {
		if a[i] == b[i] {
			continue
		}
		x, errX := strconv.Atoi(a[i])
		y, errY := strconv.Atoi(b[i])
		if errX == nil && errY == nil {
			return cmp.Compare(x, y)
		}
		return strings.Compare(a[i], b[i])
	}
	return cmp.Compare(len(a), len(b))
}

func toAny(s []string) []any {
	out := make([]any, len(s))
	for i, x := range s {
		out[i] = x
	}
	return out
}

// pathRE is the relaxed JSON Pointer A2UI bindings use: absolute, or
// relative to a template item.
var pathRE = regexp.MustCompile(`^(?:(?:/(?:[^~/]|~[01])*)*|(?:[^~/]|~[01])+(?:/(?:[^~/]|~[01])*)*)$`)

var actionNameRE = regexp.MustCompile(`^[A-Za-z0-9_.:-]+$`)

// refs returns the component ids c refers to, with the JSON Pointer (under
// the component) of each reference, and its template path if any.
type ref struct {
	id, path string
	template string // data path for a template reference
}

func componentRefs(c map[string]any) []ref {
	var out []ref
	for _, k := range []string{"child", "trigger", "content"} {
		if id, ok := c[k].(string); ok {
			out = append(out, ref{id: id, path: pointer(k)})
		}
	}
	switch ch := c["children"].(type) {
	case []any:
		for i, x := range ch {
			if id, ok := x.(string); ok {
				out = append(out, ref{id: id, path: pointer("children", i)})
			}
		}
	case map[string]any:
		if id, ok := ch["componentId"].(string); ok {
			p, _ := ch["path"].(string)
			out = append(out, ref{id: id, path: "/children/componentId", template: p})
		}
	}
	if tabs, ok := c["tabs"].([]any); ok {
		for i, t := range tabs {
			if m, ok := t.(map[string]any); ok {
				if id, ok := m["child"].(string); ok {
					out = append(out, ref{id: id, path: pointer("tabs", i, "child")})
				}
			}
		}
	}
	return out
}

func (s *Stream) applyComponents(sf *surface, body map[string]any, sid string, idx int) []Error {
	opts := s.v.opts
	var errs []Error
	add := func(rule, path, msg string) {
		errs = append(errs, Error{Rule: rule, SurfaceID: sid, Path: path, Message: msg, Index: idx})
	}
	list := body["components"].([]any)
	pos := map[string]int{} // id -> index in this message
	merged := make(map[string]map[string]any, len(sf.components)+len(list))
	for id, c := range sf.components {
		merged[id] = c
	}
	for i, x := range list {
		c := x.(map[string]any)
		id, _ := c["id"].(string)
		if _, dup := pos[id]; dup {
			add(RuleDuplicateID, pointer("updateComponents", "components", i, "id"), fmt.Sprintf("component id %q appears twice in one message", id))
			continue
		}
		pos[id] = i
		merged[id] = c
	}
	where := func(id, sub string) string {
		if i, ok := pos[id]; ok {
			return pointer("updateComponents", "components", i) + sub
		}
		return "/updateComponents/components" // a component sent earlier
	}
	if len(merged) > opts.MaxComponents {
		add(RuleTooManyComponents, "/updateComponents/components", fmt.Sprintf("surface would hold %d components, more than %d", len(merged), opts.MaxComponents))
	}
	if _, ok := merged["root"]; !ok {
		add(RuleNoRoot, "/updateComponents/components", `no component has id "root"`)
	}
	// References, parents and template scopes.
	parents := map[string][]string{}
	ids := slices.Sorted(mapsKeys(merged))
	for _, id := range ids {
		for _, r := range componentRefs(merged[id]) {
			if _, ok := merged[r.id]; !ok {
				add(RuleUnresolvedChild, where(id, r.path), fmt.Sprintf("component %q refers to %q, which does not exist", id, r.id))
				continue
			}
			if r.id == id {
				add(RuleChildCycle, where(id, r.path), fmt.Sprintf("component %q contains itself", id))
				continue
			}
			if r.template != "" && r.id == "root" {
				add(RuleTemplateRoot, where(id, r.path), "a template cannot be the root component")
			}
			parents[r.id] = append(parents[r.id], id)
		}
	}
	// Cycles (DFS with colours), depth, reachability and template scope.
	const (
		white = iota
		grey
		black
	)
	colour := map[string]int{}
	var cycle string
	var dfs func(id string)
	dfs = func(id string) {
		colour[id] = grey
		for _, r := range componentRefs(merged[id]) {
			if _, ok := merged[r.id]; !ok || r.id == id {
				continue
			}
			switch colour[r.id] {
			case grey:
				if cycle == "" {
					cycle = fmt.Sprintf("%q → %q closes a cycle", id, r.id)
					add(RuleChildCycle, where(id, r.path), cycle)
				}
			case white:
				dfs(r.id)
			}
		}
		colour[id] = black
	}
	for _, id := range ids {
		if colour[id] == white {
			dfs(id)
		}
	}
	inTemplate := map[string]bool{}
	depth := map[string]int{}
	if _, ok := merged["root"]; ok && cycle == "" {
		type item struct {
			id       string
			d        int
			template bool
		}
		queue := []item{{"root", 1, false}}
		for len(queue) > 0 {
			it := queue[0]
			queue = queue[1:]
			if d, seen := depth[it.id]; seen && d >= it.d && (!it.template || inTemplate[it.id]) {
				continue
			}
			depth[it.id] = max(depth[it.id], it.d)
			if it.template {
				inTemplate[it.id] = true
			}
			if it.d > opts.MaxDepth {
				add(RuleTooDeep, where(it.id, ""), fmt.Sprintf("component tree deeper than %d", opts.MaxDepth))
				break
			}
			for _, r := range componentRefs(merged[it.id]) {
				if _, ok := merged[r.id]; ok && r.id != it.id {
					queue = append(queue, item{r.id, it.d + 1, it.template || r.template != ""})
				}
			}
		}
		if opts.Strict {
			// Only what this message sends: an update may legitimately
			// leave a component it replaced behind (31_incremental-dashboard).
			for _, id := range ids {
				if _, sent := pos[id]; !sent {
					continue
				}
				if _, ok := depth[id]; !ok {
					add(RuleOrphan, where(id, ""), fmt.Sprintf("component %q is not reachable from root", id))
				}
			}
		}
	}
	// Per-component rules for what this message sends.
	for _, x := range list {
		c := x.(map[string]any)
		id, _ := c["id"].(string)
		if _, ok := c["weight"]; ok {
			okParent := len(parents[id]) > 0
			for _, p := range parents[id] {
				if t := merged[p]["component"]; t != "Row" && t != "Column" {
					okParent = false
				}
			}
			if !okParent {
				add(RuleInvalidWeight, where(id, "/weight"), fmt.Sprintf("component %q has a weight but is not a direct child of a Row or Column", id))
			}
		}
		base := where(id, "")
		s.checkValues(c, nil, inTemplate[id], 0, func(rule string, segs []any, msg string) {
			add(rule, base+pointer(segs...), msg)
		})
	}
	if len(errs) > 0 {
		sort.SliceStable(errs, func(i, j int) bool { return errs[i].Path < errs[j].Path })
		return errs
	}
	sf.components = merged
	return nil
}

func mapsKeys[M ~map[string]V, V any](m M) func(func(string) bool) {
	return func(yield func(string) bool) {
		for k := range m {
			if !yield(k) {
				return
			}
		}
	}
}

// checkValues walks a component's property values: bindings, function
// calls and actions. segs is the path below the component; it is turned
// into a JSON Pointer only when something is wrong.
func (s *Stream) checkValues(v any, segs []any, inTemplate bool, fnDepth int, add func(rule string, segs []any, msg string)) {
	opts := s.v.opts
	at := func(more ...any) []any { return append(append([]any(nil), segs...), more...) }
	switch x := v.(type) {
	case map[string]any:
		if p, ok := x["path"].(string); ok && len(x) <= 2 {
			if !pathRE.MatchString(p) {
				add(RuleInvalidPath, at("path"), fmt.Sprintf("%q is not a valid data path", p))
			} else if !strings.HasPrefix(p, "/") && !inTemplate {
				if _, isTemplate := x["componentId"]; !isTemplate {
					add(RuleRelativePath, at("path"), fmt.Sprintf("relative path %q is only meaningful inside a template", p))
				}
			}
		}
		if name, ok := x["call"].(string); ok {
			fnDepth++
			if fnDepth > opts.MaxFunctionDepth {
				add(RuleFunctionTooDeep, at(), fmt.Sprintf("function calls nested deeper than %d", opts.MaxFunctionDepth))
				return
			}
			args, _ := x["args"].(map[string]any)
			switch name {
			case "openUrl":
				if u, ok := args["url"].(string); ok {
					if pu, err := url.Parse(u); err != nil || (pu.Scheme != "http" && pu.Scheme != "https") {
						add(RuleUnsafeURL, at("args", "url"), fmt.Sprintf("openUrl only opens http(s) URLs, got %q", u))
					}
				}
			case "formatString":
				if t, ok := args["value"].(string); ok {
					if err := checkExpression(t); err != "" {
						add(RuleInvalidExpression, at("args", "value"), err)
					}
				}
			}
		}
		if ev, ok := x["event"].(map[string]any); ok && len(x) == 1 {
			if n, _ := ev["name"].(string); !actionNameRE.MatchString(n) {
				add(RuleInvalidAction, at("event", "name"), fmt.Sprintf("action name %q must match %s", n, actionNameRE))
			}
		}
		for k, e := range x {
			switch e.(type) {
			case map[string]any, []any:
				s.checkValues(e, append(segs, k), inTemplate, fnDepth, add)
			}
		}
	case []any:
		for i, e := range x {
			switch e.(type) {
			case map[string]any, []any:
				s.checkValues(e, append(segs, i), inTemplate, fnDepth, add)
			}
		}
	}
}

// checkExpression checks that the ${...} expressions of a formatString are
// balanced.
func checkExpression(t string) string {
	depth := 0
	for i := 0; i < len(t); i++ {
		switch {
		case t[i] == '\\' && i+1 < len(t) && t[i+1] == '$':
			i++
		case t[i] == '$' && i+1 < len(t) && t[i+1] == '{':
			depth++
			i++
		case t[i] == '}' && depth > 0:
			depth--
		}
	}
	if depth != 0 {
		return fmt.Sprintf("unbalanced ${...} in %q", t)
	}
	return ""
}

func (s *Stream) applyData(sf *surface, body map[string]any, sid string, idx int) []Error {
	p, _ := body["path"].(string)
	if p == "" {
		p = "/"
	}
	if !strings.HasPrefix(p, "/") || !pathRE.MatchString(p) {
		return []Error{{Rule: RuleInvalidPath, SurfaceID: sid, Path: "/updateDataModel/path", Message: fmt.Sprintf("%q is not an absolute JSON Pointer", p), Index: idx}}
	}
	value, has := body["value"]
	if p == "/" {
		sf.data, sf.hasData = value, has
		return nil
	}
	if !sf.hasData {
		sf.data, sf.hasData = map[string]any{}, true
	}
	sf.data = setPointer(sf.data, splitPointer(p), value, has)
	return nil
}

func splitPointer(p string) []string {
	if p == "" || p == "/" {
		return nil
	}
	parts := strings.Split(strings.TrimPrefix(p, "/"), "/")
	for i, s := range parts {
		parts[i] = strings.ReplaceAll(strings.ReplaceAll(s, "~1", "/"), "~0", "~")
	}
	return parts
}

func setPointer(root any, segs []string, value any, has bool) any {
	if len(segs) == 0 {
		return value
	}
	m, ok := root.(map[string]any)
	if !ok {
		m = map[string]any{}
	}
	if len(segs) == 1 {
		if has {
			m[segs[0]] = value
		} else {
			delete(m, segs[0])
		}
		return m
	}
	m[segs[0]] = setPointer(m[segs[0]], segs[1:], value, has)
	return m
}

// lookup resolves p against data; relative paths resolve against item.
func lookup(data any, segs []string) (any, bool) {
	cur := data
	for _, s := range segs {
		switch x := cur.(type) {
		case map[string]any:
			v, ok := x[s]
			if !ok {
				return nil, false
			}
			cur = v
		case []any:
			i := 0
			if _, err := fmt.Sscan(s, &i); err != nil || i < 0 || i >= len(x) {
				return nil, false
			}
			cur = x[i]
		default:
			return nil, false
		}
	}
	return cur, true
}

// Finish runs the end-of-batch checks: bounded templates always, and with
// CheckBindings, that bindings point at data that exists.
func (s *Stream) Finish() []Error {
	var errs []Error
	idx := s.index - 1
	for _, sid := range slices.Sorted(mapsKeys(s.surfaces)) {
		sf := s.surfaces[sid]
		for _, id := range slices.Sorted(mapsKeys(sf.components)) {
			c := sf.components[id]
			for _, r := range componentRefs(c) {
				if r.template == "" || !strings.HasPrefix(r.template, "/") {
					continue
				}
				v, ok := lookup(sf.data, splitPointer(r.template))
				arr, isArr := v.([]any)
				if ok && isArr && len(arr) > s.v.opts.MaxTemplateItems {
					errs = append(errs, Error{Rule: RuleTemplateTooLarge, SurfaceID: sid, Path: "/updateDataModel/value", Message: fmt.Sprintf("template %q iterates %d items at %s, more than %d", id, len(arr), r.template, s.v.opts.MaxTemplateItems), Index: idx})
				}
				if s.v.opts.CheckBindings && (!ok || !isArr) {
					errs = append(errs, Error{Rule: RuleTemplateNotArray, SurfaceID: sid, Path: "/updateComponents/components", Message: fmt.Sprintf("template of %q iterates %s, which is not an array in the data model", id, r.template), Index: idx})
				}
			}
			if s.v.opts.CheckBindings {
				var missing []string
				collectBindings(c, func(p string) {
					if strings.HasPrefix(p, "/") {
						if _, ok := lookup(sf.data, splitPointer(p)); !ok {
							missing = append(missing, p)
						}
					}
				})
				sort.Strings(missing)
				for _, p := range missing {
					errs = append(errs, Error{Rule: RuleUnresolvedBinding, SurfaceID: sid, Path: "/updateComponents/components", Message: fmt.Sprintf("component %q binds %s, which is not in the data model", id, p), Index: idx})
				}
			}
		}
	}
	return errs
}

func collectBindings(v any, f func(string)) {
	switch x := v.(type) {
	case map[string]any:
		if p, ok := x["path"].(string); ok {
			if _, tmpl := x["componentId"]; !tmpl && len(x) == 1 {
				f(p)
			}
		}
		for _, e := range x {
			collectBindings(e, f)
		}
	case []any:
		for _, e := range x {
			collectBindings(e, f)
		}
	}
}

// ValidateClient checks one client-to-server message (action or error)
// against the schema and, when s is not nil, against the stream's state:
// the surface must be live and the source component must exist.
func (v *Validator) ValidateClient(b []byte, s *Stream) []Error {
	fail := func(rule, sid, path, msg string) []Error {
		return []Error{{Rule: rule, SurfaceID: sid, Path: path, Message: msg}}
	}
	doc, rule, path, msg := decodeMessage(b, v.opts.MaxDepth)
	if rule != "" {
		return fail(rule, "", path, msg)
	}
	obj, _ := doc.(map[string]any)
	var sid string
	if a, ok := obj["action"].(map[string]any); ok {
		sid, _ = a["surfaceId"].(string)
	}
	if err := v.c2s.Validate(doc); err != nil {
		return schemaErrors(err, "", sid, 0)
	}
	if s == nil {
		return nil
	}
	a, ok := obj["action"].(map[string]any)
	if !ok {
		return nil
	}
	sf := s.surfaces[sid]
	if sf == nil {
		return fail(RuleUnknownSurface, sid, "/action/surfaceId", fmt.Sprintf("surface %q is not live", sid))
	}
	src, _ := a["sourceComponentId"].(string)
	c := sf.components[src]
	if c == nil {
		return fail(RuleUnknownSource, sid, "/action/sourceComponentId", fmt.Sprintf("component %q is not on surface %q", src, sid))
	}
	if _, ok := c["action"]; !ok {
		return fail(RuleUnknownSource, sid, "/action/sourceComponentId", fmt.Sprintf("component %q has no action", src))
	}
	return nil
}

// SchemaOnly checks one server-to-client message against the official
// schema alone (no stream state, no integrity rules): what the official
// test cases specify.
func (v *Validator) SchemaOnly(b []byte) []Error {
	doc, err := decodeDocument(b)
	if err != nil {
		return []Error{{Rule: RuleInvalidJSON, Message: err.Error()}}
	}
	if err := v.s2c.Validate(doc); err != nil {
		return schemaErrors(err, "", "", 0)
	}
	return nil
}
