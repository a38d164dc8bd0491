package a2ui

import (
	"encoding/json"
	"fmt"
	"slices"
	"sort"
	"strconv"
	"strings"
	"unicode/utf8"
	"unsafe"

	"github.com/genui-adapter/genui-adapter/schemas"
)

// Rule codes of the v0.8 conversion and of version checks.
const (
	// RuleV08NotExpressible: a part of a v0.8 message v0.9.1 cannot say;
	// the message is converted without it (or with the nearest value).
	RuleV08NotExpressible = "v08_not_expressible"
	// RuleV08NotRendered: a v0.8 surface got no beginRendering, so (as in
	// v0.8) nothing of it is shown.
	RuleV08NotRendered = "v08_not_rendered"
	// RuleMixedVersions: a message of one version on a surface another
	// version started.
	RuleMixedVersions = "mixed_versions"
)

// Converted is one v0.9.1 message a v0.8 message became; Source is the
// index of that v0.8 message in its stream.
type Converted struct {
	Message json.RawMessage
	Source  int
}

// V08Converter converts one stream of v0.8 messages to v0.9.1. Not safe for
// concurrent use.
//
// v0.8 buffers a surface until beginRendering names its root, which may
// come after the components and the data; v0.9.1 starts with
// createSurface and calls the root "root". So the messages of a surface
// are held until its beginRendering, then come out as createSurface and
// the rest in their order, with the root component renamed "root" (and a
// component that was called "root" renamed "root~v08"). What v0.9.1 cannot
// say is reported as an Error with rule RuleV08NotExpressible, the index
// of the v0.8 message and the JSON Pointer into it; the message is
// converted without that part. A message that fails the v0.8 schema is
// reported and not converted.
type V08Converter struct {
	v        *Validator
	version  string
	surfaces map[string]*v08Surface
	index    int
	held     int // messages held, all surfaces
	// lent: the bytes given to convert stay the caller's and unchanged
	// until keepHeld (an Upgrader's part), so a message held meanwhile is
	// a view of them; views counts the held messages that are.
	lent  bool
	views int
}

type v08Surface struct {
	begun   bool
	root    string
	pending []v08Pending
	// templates are the absolute data paths template children iterate.
	templates map[string]bool
}

// v08Pending is a message held for its surface's beginRendering: its
// own copy of the message, decoded again then, so that what it holds is
// its size, and no arena; or, while the converter is lent its input, a
// view of the caller's bytes (view), copied by keepHeld.
type v08Pending struct {
	index int
	op    string
	raw   string
	view  bool
}

// NewV08Converter starts a converter whose output carries version
// (DefaultVersion if empty).
func (v *Validator) NewV08Converter(version string) *V08Converter {
	if version == "" {
		version = DefaultVersion
	}
	return &V08Converter{v: v, version: version, surfaces: map[string]*v08Surface{}}
}

// Convert converts the next v0.8 message of the stream: the v0.9.1
// messages it becomes (none while its surface waits for beginRendering;
// the held ones when it comes) and what could not be converted.
func (c *V08Converter) Convert(b []byte) ([]Converted, []Error) {
	return c.convertProbed(b, "", "", c.v.verdicts.hash(b))
}

// convertProbed is Convert for a message whose surface id and operation
// probeVersion found ("" when not known); h is its bytes' hash
// (verdicts.hash).
func (c *V08Converter) convertProbed(b []byte, sid, op string, h uint64) ([]Converted, []Error) {
	a := getArena()
	out, errs := c.convert(a, b, sid, op, h)
	a.put() // out is encoded, a message held is copied: none of it is a's
	ownErrors(errs, b)
	return out, errs
}

// convert is Convert with the maps and lists of the message decoded and
// converted lent by a. probedSID and probedOp are what probeVersion
// found in b, if it was probed: a message that passed the v0.8 checks
// before and that its surface will hold is held with no decoding. b is
// decoded without a copy (decodeViewIn): what the converter keeps of it
// is copied, and its errors' strings may be b's.
func (c *V08Converter) convert(a *arena, b []byte, probedSID, probedOp string, h uint64) (out []Converted, errs []Error) {
	idx := c.index
	c.index++
	fail := func(rule, sid, path, msg string) []Error {
		return []Error{{Rule: rule, SurfaceID: sid, Path: path, Message: msg, Index: idx}}
	}
	if len(b) > c.v.opts.MaxMessageBytes {
		return nil, fail(RuleTooLarge, "", "", fmt.Sprintf("message is %d bytes, more than %d", len(b), c.v.opts.MaxMessageBytes))
	}
	k, checked := c.v.verdicts.passedHash(c.v.v08, checkV08Input, h)
	if checked && (probedOp == "surfaceUpdate" || probedOp == "dataModelUpdate") && probedSID != "" && utf8.ValidString(probedSID) {
		// These bytes decoded before, with this one v0.8 operation, and
		// passed the schema and the catalog; the probe read the surface
		// id as the decoder does (valid UTF-8).
		if sf := c.surfaces[probedSID]; sf == nil || !sf.begun {
			return nil, c.hold(sf, probedSID, probedOp, b, idx)
		}
	}
	doc, rule, path, msg := decodeViewIn(b, c.v.opts.MaxDepth, a)
	if rule != "" {
		return nil, fail(rule, "", path, msg)
	}
	obj, ok := doc.(map[string]any)
	if !ok {
		return nil, fail(RuleInvalidEnvelope, "", "", "a message is a JSON object")
	}
	if obj["version"] == schemas.V08 {
		// Not in the v0.8 schema, yet some emitters stamp it.
		delete(obj, "version")
	}
	op, several := operation(obj, isV08Op, idx)
	if several != nil {
		several.Message = "v0.8: " + several.Message + "; left out"
		return nil, []Error{*several}
	}
	if op == "" {
		return nil, fail(RuleInvalidEnvelope, "", "", "no v0.8 operation (beginRendering, surfaceUpdate, dataModelUpdate or deleteSurface)")
	}
	body, _ := obj[op].(map[string]any)
	sid, _ := body["surfaceId"].(string)
	if !checked {
		if errs := c.v.schemaV08(doc, op, body, sid, idx); len(errs) > 0 {
			return nil, errs
		}
		c.v.verdicts.remember(k)
	}
	sf := c.surfaces[sid]
	if op == "deleteSurface" {
		if sf != nil {
			c.drop(sf.pending)
		}
		delete(c.surfaces, sid)
		if sf == nil || !sf.begun {
			return nil, nil // never shown: nothing to delete
		}
		return []Converted{{c.envelope(a, "deleteSurface", a.kv("surfaceId", sid)), idx}}, nil
	}
	if op == "beginRendering" {
		if sf == nil {
			sf = c.surface(sid)
		}
		if sf.begun {
			return nil, fail(RuleV08NotExpressible, sid, "/beginRendering", "beginRendering again on a surface already rendering: v0.9.1 cannot change a surface's root or theme; ignored")
		}
		return c.begin(a, sf, sid, body, idx)
	}
	if sf == nil || !sf.begun {
		return nil, c.hold(sf, sid, op, b, idx)
	}
	return c.convertOp(a, sf, sid, op, body, idx)
}

// surface starts the record of surface sid.
func (c *V08Converter) surface(sid string) *v08Surface {
	sf := &v08Surface{templates: map[string]bool{}}
	c.surfaces[strings.Clone(sid)] = sf
	return sf
}

// hold keeps message b (message idx, operation op) for surface sid's
// beginRendering, a copy of it unless the converter is lent its input;
// sf is the surface's record, nil if it has none yet.
func (c *V08Converter) hold(sf *v08Surface, sid, op string, b []byte, idx int) []Error {
	if c.held >= c.v.opts.MaxHeldMessages {
		return []Error{{Rule: RuleTooLarge, SurfaceID: sid, Path: pointer(op, "surfaceId"), Index: idx,
			Message: fmt.Sprintf("%d v0.8 messages already wait for their surface's beginRendering; left out", c.held)}}
	}
	if sf == nil {
		sf = c.surface(sid)
	}
	c.held++
	p := v08Pending{index: idx, op: knownNames[op]} // the name's constant, not the message's bytes
	if c.lent {
		p.raw, p.view = unsafe.String(unsafe.SliceData(b), len(b)), true
		c.views++
	} else {
		p.raw = string(b)
	}
	sf.pending = append(sf.pending, p)
	return nil
}

// drop forgets held messages that leave their surface.
func (c *V08Converter) drop(pending []v08Pending) {
	c.held -= len(pending)
	for _, p := range pending {
		if p.view {
			c.views--
		}
	}
}

// keepHeld copies the held messages that are views of the caller's
// bytes, which it may reuse once the converter gives its part back.
func (c *V08Converter) keepHeld() {
	if c.views == 0 {
		return
	}
	for _, sf := range c.surfaces {
		for i := range sf.pending {
			if p := &sf.pending[i]; p.view {
				p.raw, p.view = strings.Clone(p.raw), false
			}
		}
	}
	c.views = 0
}

func isV08Op(k string) bool {
	switch k {
	case "beginRendering", "surfaceUpdate", "dataModelUpdate", "deleteSurface":
		return true
	}
	return false
}

// schemaV08 checks a v0.8 message against server_to_client.json and each
// component's properties against the standard catalog.
func (v *Validator) schemaV08(doc any, op string, body map[string]any, sid string, idx int) []Error {
	label := func(errs []Error) []Error {
		for i := range errs {
			errs[i].Message = "v0.8 schema: " + errs[i].Message
		}
		return errs
	}
	if err := v.verdicts.validate(v.v08, doc); err != nil {
		return label(schemaErrors(err, "", sid, idx))
	}
	if op != "surfaceUpdate" {
		return nil
	}
	var errs []Error
	list, _ := body["components"].([]any)
	for i, x := range list {
		comp, _ := x.(map[string]any)["component"].(map[string]any)
		at := func() string { return pointer("surfaceUpdate", "components", i, "component") }
		if len(comp) != 1 {
			errs = append(errs, Error{Rule: RuleSchema, SurfaceID: sid, Path: at(), Index: idx, Message: fmt.Sprintf("v0.8 schema: a component wrapper holds exactly one component type, got %d", len(comp))})
			continue
		}
		for typ, props := range comp {
			sch := v.v08Comps[typ]
			if sch == nil {
				errs = append(errs, Error{Rule: RuleUnknownComponent, SurfaceID: sid, Path: at() + "/" + escape(typ), Index: idx, Message: fmt.Sprintf("v0.8: unknown component type %q (not in the v0.8 standard catalog)", typ)})
				continue
			}
			if err := v.verdicts.validate(sch, props); err != nil {
				errs = append(errs, label(schemaErrors(err, at()+"/"+escape(typ), sid, idx))...)
			}
		}
	}
	return errs
}

// Finish reports the surfaces still waiting for beginRendering: their
// messages are not shown (as a v0.8 renderer would not show them).
func (c *V08Converter) Finish() []Error {
	var errs []Error
	for _, sid := range sortedKeys(c.surfaces) {
		sf := c.surfaces[sid]
		if sf.begun || len(sf.pending) == 0 {
			continue
		}
		errs = append(errs, Error{Rule: RuleV08NotRendered, SurfaceID: sid, Path: pointer(sf.pending[0].op, "surfaceId"), Index: sf.pending[0].index,
			Message: fmt.Sprintf("surface %q got %d messages and no beginRendering; v0.8 shows nothing before beginRendering", sid, len(sf.pending))})
	}
	return errs
}

func sortedKeys[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// envelope encodes a converted message (a lends the envelope).
func (c *V08Converter) envelope(a *arena, op string, body map[string]any) json.RawMessage {
	m := a.kv("version", c.version)
	m[op] = body
	return a.encode(m)
}

// begin turns beginRendering into createSurface and lets the held
// messages out.
// The messages held are decoded again and converted with a (the
// beginRendering's arena).
func (c *V08Converter) begin(a *arena, sf *v08Surface, sid string, body map[string]any, idx int) ([]Converted, []Error) {
	var errs []Error
	sf.begun = true
	root, _ := body["root"].(string)
	sf.root = strings.Clone(root)
	cat, _ := body["catalogId"].(string)
	switch cat {
	case "", schemas.V08StandardCatalogID, schemas.V08MinimalCatalogID:
		cat = schemas.BasicCatalogID
	}
	cs := a.kv("surfaceId", sid)
	cs["catalogId"] = cat
	if styles, ok := body["styles"].(map[string]any); ok {
		theme := a.obj()
		for _, k := range sortedKeys(styles) {
			if k == "primaryColor" {
				theme[k] = styles[k]
				continue
			}
			errs = append(errs, Error{Rule: RuleV08NotExpressible, SurfaceID: sid, Path: pointer("beginRendering", "styles", k), Index: idx,
				Message: fmt.Sprintf("style %q has no v0.9.1 theme equivalent (a theme has primaryColor, iconUrl, agentDisplayName); left out", k)})
		}
		if len(theme) > 0 {
			cs["theme"] = theme
		}
	}
	out := []Converted{{c.envelope(a, "createSurface", cs), idx}}
	pending := sf.pending
	sf.pending = nil
	c.drop(pending)
	bodies := make([]map[string]any, len(pending))
	for i, p := range pending {
		doc, _, _, _ := decodeStringIn(p.raw, c.v.opts.MaxDepth, a) // decoded once already
		obj, _ := doc.(map[string]any)
		bodies[i], _ = obj[p.op].(map[string]any)
	}
	// Template paths first: data sent before the components still meets
	// the templates that iterate it.
	for i, p := range pending {
		if p.op == "surfaceUpdate" {
			sf.collectTemplates(bodies[i])
		}
	}
	for i, p := range pending {
		o, e := c.convertOp(a, sf, sid, p.op, bodies[i], p.index)
		if p.view {
			ownErrors(e, unsafe.Slice(unsafe.StringData(p.raw), len(p.raw))) // decoded from the caller's bytes
		}
		out = append(out, o...)
		errs = append(errs, e...)
	}
	return out, errs
}

// convertOp converts one message of a surface that began rendering; the
// maps it builds are a's.
func (c *V08Converter) convertOp(a *arena, sf *v08Surface, sid, op string, body map[string]any, idx int) ([]Converted, []Error) {
	cv := v08Conv{sid: sid, idx: idx, sf: sf, a: a}
	var out []Converted
	switch op {
	case "surfaceUpdate":
		sf.collectTemplates(body)
		list, _ := body["components"].([]any)
		comps := a.list(len(list))[:0]
		for i, x := range list {
			if m := cv.component(x.(map[string]any), at("/surfaceUpdate/components/", strconv.Itoa(i))); m != nil {
				comps = append(comps, m)
			}
		}
		if len(comps) > 0 {
			body := a.kv("surfaceId", sid)
			body["components"] = comps
			out = append(out, Converted{c.envelope(a, "updateComponents", body), idx})
		}
		for _, in := range cv.inits {
			body := a.kv("surfaceId", sid)
			body["path"], body["value"] = in.path, in.value
			out = append(out, Converted{c.envelope(a, "updateDataModel", body), idx})
		}
	case "dataModelUpdate":
		p, _ := body["path"].(string)
		p = absPath(p)
		entries, _ := body["contents"].([]any)
		var value any
		if len(entries) == 1 && entryKey(entries[0]) == "." {
			// The v0.8 renderer's "set a primitive at path" convention.
			value = cv.entryValue(entries[0].(map[string]any), p, at("/dataModelUpdate/contents/0"))
		} else {
			value = cv.contents(entries, p, at("/dataModelUpdate/contents"))
		}
		body := a.kv("surfaceId", sid)
		body["path"], body["value"] = p, value
		out = append(out, Converted{c.envelope(a, "updateDataModel", body), idx})
	}
	sort.SliceStable(cv.errs, func(i, j int) bool { return cv.errs[i].Path < cv.errs[j].Path })
	return out, cv.errs
}

func entryKey(e any) string {
	m, _ := e.(map[string]any)
	k, _ := m["key"].(string)
	return k
}

// absPath makes a v0.8 data path absolute ("user" and "" are relative to
// the data model's root there).
func absPath(p string) string {
	if p == "" {
		return "/"
	}
	if !strings.HasPrefix(p, "/") {
		return "/" + p
	}
	return p
}

// collectTemplates records the absolute paths the templates of a
// surfaceUpdate iterate.
func (sf *v08Surface) collectTemplates(body map[string]any) {
	list, _ := body["components"].([]any)
	for _, x := range list {
		w, _ := x.(map[string]any)
		comp, _ := w["component"].(map[string]any)
		for _, props := range comp {
			pm, _ := props.(map[string]any)
			ch, _ := pm["children"].(map[string]any)
			t, _ := ch["template"].(map[string]any)
			if p, ok := t["dataBinding"].(string); ok && strings.HasPrefix(p, "/") && !sf.templates[p] {
				sf.templates[strings.Clone(p)] = true
			}
		}
	}
}

// v08Conv converts the parts of one message, collecting what it cannot.
type v08Conv struct {
	a     *arena // lends the maps built
	sid   string
	idx   int
	sf    *v08Surface
	errs  []Error
	inits []dataInit
}

// dataInit is a v0.8 bound value with both a path and a literal: the
// literal initialises the data at path.
type dataInit struct {
	path  string
	value any
}

func (cv *v08Conv) lossy(path, format string, args ...any) {
	cv.errs = append(cv.errs, Error{Rule: RuleV08NotExpressible, SurfaceID: cv.sid, Path: path, Message: fmt.Sprintf(format, args...), Index: cv.idx})
}

// id maps a v0.8 component id: the root becomes "root", and a component
// that was called "root" without being the root gives the name up.
func (cv *v08Conv) id(id string) string {
	switch {
	case id == cv.sf.root:
		return "root"
	case id == "root":
		return "root~v08"
	}
	return id
}

// idValue is id for a decoded value x (its string, else ""), given as x
// itself when it stays the same: boxed already.
func (cv *v08Conv) idValue(x any) any {
	s, ok := x.(string)
	switch id := cv.id(s); {
	case id == "root":
		return "root"
	case id == "root~v08":
		return "root~v08"
	case ok:
		return x
	}
	return ""
}

// bound converts a v0.8 bound value ({"literalString"|"literalNumber"|
// "literalBoolean"|"literalArray": x} and/or {"path": p}) to a v0.9.1
// dynamic value: the literal, or {"path": p}. Both: the binding, and the
// literal initialises the data at p. ok is false when there is nothing
// to say. at is its JSON Pointer.
func (cv *v08Conv) bound(v any, at where) (any, bool) {
	m, isMap := v.(map[string]any)
	if !isMap {
		return v, true // not boxed (a schema-valid message never gets here)
	}
	var lit any
	hasLit := false
	for _, k := range [...]string{"literalString", "literalNumber", "literalBoolean", "literalArray"} {
		if x, ok := m[k]; ok {
			if hasLit {
				cv.lossy(at.add("/", k).String(), "a bound value has more than one literal; the first is kept")
				continue
			}
			lit, hasLit = x, true
		}
	}
	p, hasPath := m["path"].(string)
	switch {
	case hasPath && hasLit:
		if strings.HasPrefix(p, "/") {
			cv.inits = append(cv.inits, dataInit{p, lit})
		} else {
			cv.lossy(at.String(), "a literal with a relative path %q initialises each template item's data in v0.8; v0.9.1 has no such initialisation, so the literal is left out", p)
		}
		return cv.a.kv("path", m["path"]), true
	case hasPath:
		return cv.a.kv("path", m["path"]), true // boxed already
	case hasLit:
		return lit, true
	}
	cv.lossy(at.String(), "a bound value with neither a literal nor a path; left out")
	return nil, false
}

// component flattens one v0.8 component wrapper and maps its catalog
// type and properties. nil when there is nothing to convert.
func (cv *v08Conv) component(w map[string]any, at where) map[string]any {
	comp, _ := w["component"].(map[string]any)
	if len(comp) != 1 {
		cv.lossy(at.add("/component").String(), "a component wrapper holds exactly one component type, got %d; left out", len(comp))
		return nil
	}
	var typ string
	var props map[string]any
	for k, v := range comp {
		typ = k
		props, _ = v.(map[string]any)
	}
	out := cv.a.kv("id", cv.idValue(w["id"]))
	if wt, ok := w["weight"]; ok {
		out["weight"] = wt
	}
	pat := at.add("/component/", escape(typ))
	mapper := v08Catalog[typ]
	if mapper == nil {
		return nil // not in the standard catalog: the schema check refused it
	}
	out["component"] = v08Types[typ]
	mapper(cv, props, out, pat)
	return out
}

func escape(s string) string {
	return strings.ReplaceAll(strings.ReplaceAll(s, "~", "~0"), "/", "~1")
}

// contents turns a v0.8 adjacency list into a JSON object; at a path a
// template iterates, into an array of the values in entry order (v0.9.1
// templates iterate arrays only).
func (cv *v08Conv) contents(entries []any, path string, at where) any {
	if cv.sf.templates[path] {
		arr := cv.a.list(len(entries))[:0]
		for i, e := range entries {
			m, _ := e.(map[string]any)
			arr = append(arr, cv.entryValue(m, cv.childPath(path, entryKey(e)), at.add("/", strconv.Itoa(i))))
		}
		if len(entries) > 0 {
			cv.lossy(at.String(), "a template iterates %s, a map in v0.8: its %d values become an array in entry order (v0.9.1 templates iterate arrays); an absolute path through one of its keys no longer resolves", path, len(entries))
		}
		return arr
	}
	obj := cv.a.obj()
	for i, e := range entries {
		m, _ := e.(map[string]any)
		k := entryKey(e)
		if _, dup := obj[k]; dup {
			cv.lossy(at.add("/", strconv.Itoa(i), "/key").String(), "key %q appears twice; the last value is kept", k)
		}
		obj[k] = cv.entryValue(m, cv.childPath(path, k), at.add("/", strconv.Itoa(i)))
	}
	return obj
}

// childPath is the data path of key in the map at path (a's).
func (cv *v08Conv) childPath(path, key string) string {
	if path == "/" {
		return join("/", escape(key))
	}
	return join(path, "/", escape(key))
}

// entryValue is the value of one adjacency-list entry. A string that
// holds a JSON object or array is that value, as the official v0.8
// renderer reads it (v0.8 has no other way to send a list).
func (cv *v08Conv) entryValue(e map[string]any, path string, at where) any {
	var val any
	n := 0
	for _, k := range [...]string{"valueString", "valueNumber", "valueBoolean", "valueMap"} {
		x, ok := e[k]
		if !ok {
			continue
		}
		n++
		if n > 1 {
			cv.lossy(at.add("/", k).String(), "an entry has more than one value; the first is kept")
			continue
		}
		switch k {
		case "valueMap":
			list, _ := x.([]any)
			val = cv.contents(list, path, at.add("/valueMap"))
		case "valueString":
			val = jsonInString(x)
		default:
			val = x
		}
	}
	if n == 0 {
		cv.lossy(at.String(), "entry %q has no value; it is null", entryKey(e))
	}
	return val
}

func jsonInString(x any) any {
	s, _ := x.(string)
	t := strings.TrimSpace(s)
	if len(t) < 2 || !((t[0] == '{' && t[len(t)-1] == '}') || (t[0] == '[' && t[len(t)-1] == ']')) {
		return x
	}
	if v, err := decodeDocument([]byte(t)); err == nil {
		return v
	}
	return x
}

// appendJSON encodes what the converter builds (maps with sorted keys,
// slices, strings, json.Number, bools, nil and numbers) as
// encoding/json would, without its reflection.
func appendJSON(b []byte, v any) []byte {
	switch x := v.(type) {
	case map[string]any:
		b = append(b, '{')
		var buf [16]string
		keys := buf[:0]
		for k := range x {
			keys = append(keys, k)
		}
		slices.Sort(keys)
		for i, k := range keys {
			if i > 0 {
				b = append(b, ',')
			}
			b = appendString(b, k)
			b = append(b, ':')
			b = appendJSON(b, x[k])
		}
		return append(b, '}')
	case []any:
		b = append(b, '[')
		for i, e := range x {
			if i > 0 {
				b = append(b, ',')
			}
			b = appendJSON(b, e)
		}
		return append(b, ']')
	case string:
		return appendString(b, x)
	case json.Number:
		if x == "" {
			return append(b, '0')
		}
		return append(b, x...)
	case bool:
		if x {
			return append(b, "true"...)
		}
		return append(b, "false"...)
	case nil:
		return append(b, "null"...)
	}
	out, err := json.Marshal(v)
	if err != nil {
		return append(b, "null"...)
	}
	return append(b, out...)
}

// appendString quotes s as encoding/json does; plain ASCII is copied.
func appendString(b []byte, s string) []byte {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < 0x20 || c >= 0x7f || c == '"' || c == '\\' || c == '<' || c == '>' || c == '&' {
			out, _ := json.Marshal(s)
			return append(b, out...)
		}
	}
	b = append(b, '"')
	b = append(b, s...)
	return append(b, '"')
}
