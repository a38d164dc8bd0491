package a2ui

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"unsafe"

	"github.com/genui-adapter/genui-adapter/schemas"
)

// RuleNotInV08: a part of a v0.9/v0.9.1 message v0.8 cannot say; the
// message goes to a v0.8 client without it (or with the nearest value),
// or, when nothing of it can be said, is left out.
const RuleNotInV08 = "not_expressible_in_v08"

// Downgrade is a sequence of A2UI messages brought down to v0.8, for a
// client that renders only v0.8.
type Downgrade struct {
	// Messages are v0.8 messages: v0.9/v0.9.1 ones converted, v0.8 ones
	// as they are.
	Messages []json.RawMessage
	// Sources maps each of Messages to the index of the message it came
	// from.
	Sources []int
	// Issues are what v0.8 cannot say (RuleNotInV08) and the messages
	// left out (an unknown version, a converted message the v0.8 schema
	// refuses); Index is the input message's.
	Issues []Error
}

// Downgrade converts v0.9/v0.9.1 messages to v0.8, one message at a time
// (each becomes one v0.8 message, or none):
//
//   - createSurface → beginRendering with root "root" (the v0.9.1 root),
//     the basic catalog as the v0.8 standard one, theme primaryColor and
//     iconUrl as styles primaryColor and logoUrl;
//   - updateComponents → surfaceUpdate, each component wrapped
//     ({id, weight?, component: {Type: {...}}}), literals boxed
//     (literalString, literalNumber, literalBoolean, literalArray),
//     children as explicitList or template, the catalog renamed back;
//   - updateDataModel → dataModelUpdate with the value as an adjacency
//     list (contents); lists and maps nested deeper than v0.8's one
//     valueMap level travel as JSON text in valueString, which the
//     official v0.8 renderer reads as that value;
//   - deleteSurface → deleteSurface.
//
// What v0.8 cannot say is reported per message (RuleNotInV08), never
// dropped silently. Every converted message is checked against the
// official v0.8 schema (components against the standard catalog); a
// component that fails is left out and reported, and so is a message.
func (v *Validator) Downgrade(msgs []json.RawMessage) Downgrade {
	var d Downgrade
	for i, m := range msgs {
		out, issues := v.downgrade(m, i)
		d.Issues = append(d.Issues, issues...)
		if out != nil {
			d.Messages = append(d.Messages, out)
			d.Sources = append(d.Sources, i)
		}
	}
	return d
}

// v09Ops maps the v0.9 operations to the v0.8 ones.
var v09Ops = map[string]string{
	"createSurface":    "beginRendering",
	"updateComponents": "surfaceUpdate",
	"updateDataModel":  "dataModelUpdate",
	"deleteSurface":    "deleteSurface",
}

func isV09Op(k string) bool { _, ok := v09Ops[k]; return ok }

// downgrade converts one message (see Validator.Downgrade).
func (v *Validator) downgrade(m []byte, idx int) (json.RawMessage, []Error) {
	a := getArena()
	out, errs := v.downgradeIn(a, m, idx)
	a.put()            // out is encoded: none of it is a's
	ownErrors(errs, m) // downgradeIn decodes a view of m
	return out, errs
}

// ownErrors copies each string of errs whose bytes are b's: errors made
// while a message is decoded without a copy (decodeViewIn) may hold its
// bytes, which the caller may reuse.
func ownErrors(errs []Error, b []byte) {
	for i := range errs {
		e := &errs[i]
		e.SurfaceID, e.Path, e.Message = own(e.SurfaceID, b), own(e.Path, b), own(e.Message, b)
	}
}

// own returns s, or a copy of it if its bytes are in b.
func own(s string, b []byte) string {
	if len(s) == 0 || len(b) == 0 {
		return s
	}
	p, lo := uintptr(unsafe.Pointer(unsafe.StringData(s))), uintptr(unsafe.Pointer(unsafe.SliceData(b)))
	if p >= lo && p < lo+uintptr(len(b)) {
		return strings.Clone(s)
	}
	return s
}

// downgradeIn is downgrade with the maps and lists of the
// message decoded and converted lent by a. The message is decoded
// without a copy: the strings decoded are m's bytes, so what it returns
// is encoded afresh, and its errors' strings may be m's.
func (v *Validator) downgradeIn(a *arena, m []byte, idx int) (json.RawMessage, []Error) {
	ver, sid, _ := v.verdicts.probe(m, v.verdicts.hash(m))
	fail := func(rule, path, msg string) []Error {
		return []Error{{Rule: rule, SurfaceID: sid, Path: path, Message: msg, Index: idx}}
	}
	switch {
	case ver == schemas.V08:
		return m, nil
	case !slices.Contains(schemas.Versions, ver):
		return nil, fail(RuleInvalidVersion, "/version", fmt.Sprintf("message %d has version %q, which cannot be converted to v0.8 (from %s); left out", idx, ver, joinVersions()))
	}
	if len(m) > v.opts.MaxMessageBytes {
		return nil, fail(RuleTooLarge, "", fmt.Sprintf("message is %d bytes, more than %d", len(m), v.opts.MaxMessageBytes))
	}
	doc, rule, path, why := decodeViewIn(m, v.opts.MaxDepth, a)
	if rule != "" {
		return nil, fail(rule, path, why)
	}
	obj, _ := doc.(map[string]any)
	op, several := operation(obj, isV09Op, idx)
	if several != nil {
		several.Message += "; left out"
		return nil, []Error{*several}
	}
	if op == "" {
		return nil, fail(RuleUnknownMessage, "", "no v0.9 operation (createSurface, updateComponents, updateDataModel or deleteSurface) to convert to v0.8; left out")
	}
	body, _ := obj[op].(map[string]any)
	sid, _ = body["surfaceId"].(string) // the operation's (probeVersion reads the last top-level key's)
	dc := down{v: v, a: a, sid: sid, idx: idx}
	dc.unknownKeys(obj, op, body)
	var out map[string]any
	switch op {
	case "createSurface":
		out = dc.createSurface(body)
	case "updateComponents":
		out = dc.updateComponents(body)
	case "updateDataModel":
		out = dc.updateDataModel(body)
	case "deleteSurface":
		out = a.kv("surfaceId", sid)
	}
	if out == nil {
		return nil, dc.errs
	}
	msg := a.kv(v09Ops[op], out)
	enc := appendJSON(a.scratch(), msg)
	a.keep(enc)
	k, passed := v.verdicts.passed(v.v08, checkV08Output, enc)
	if passed {
		return bytes.Clone(enc), dc.errs
	}
	if op == "updateComponents" && !dc.checkComponents(out) {
		return nil, dc.errs
	}
	if err := v.verdicts.validate(v.v08, msg); err != nil {
		errs := schemaErrors(err, "", sid, idx)
		for i := range errs {
			errs[i].Message = "converted to v0.8, the v0.8 schema refuses it: " + errs[i].Message + "; left out"
		}
		return nil, append(dc.errs, errs...)
	}
	if dc.refused > 0 {
		return appendJSON(nil, msg), dc.errs
	}
	v.verdicts.remember(k)
	return bytes.Clone(enc), dc.errs
}

// down converts the parts of one v0.9.1 message to v0.8, collecting what
// it cannot say.
type down struct {
	v    *Validator
	a    *arena // lends the maps built
	sid  string
	idx  int
	errs []Error
	// checks are the converted components of an updateComponents, each
	// to be checked against the v0.8 catalog (checkComponents) unless
	// the whole converted message passed before.
	checks []componentCheck
	// refused counts the components checkComponents left out.
	refused int
	// props is the component being converted.
	props props8
}

// componentCheck is one converted component waiting for its v0.8
// catalog check; errAt is where its errors go among the message's.
type componentCheck struct {
	id, typ8, at string
	props        map[string]any
	errAt        int
}

// checkComponents checks each converted component against the v0.8
// standard catalog, leaving out (and reporting, beside what its
// conversion reported) each one the catalog refuses; false when none is
// left.
func (d *down) checkComponents(out map[string]any) bool {
	var errs []Error
	from := 0
	comps := out["components"].([]any)
	kept := comps[:0]
	for i, c := range d.checks {
		errs = append(errs, d.errs[from:c.errAt]...)
		from = c.errAt
		if err := d.v.verdicts.validate(d.v.v08Comps[c.typ8], c.props); err != nil {
			for _, e := range schemaErrors(err, c.at, d.sid, d.idx) {
				e.Message = fmt.Sprintf("component %q converted to v0.8 %s, the v0.8 standard catalog refuses it: %s; left out", c.id, c.typ8, e.Message)
				errs = append(errs, e)
			}
			d.refused++
			continue
		}
		kept = append(kept, comps[i])
	}
	d.errs = append(errs, d.errs[from:]...)
	out["components"] = kept
	if len(kept) == 0 && len(comps) > 0 {
		d.lossy(pointer("updateComponents", "components"), "no component of this message can be said in v0.8; left out")
		return false
	}
	return true
}

func (d *down) lossy(path, format string, args ...any) {
	d.errs = append(d.errs, Error{Rule: RuleNotInV08, SurfaceID: d.sid, Path: path, Message: fmt.Sprintf(format, args...), Index: d.idx})
}

// v09Props are the properties of each v0.9.1 operation (the official
// schema's).
var v09Props = map[string][]string{
	"createSurface":    {"surfaceId", "catalogId", "theme", "sendDataModel"},
	"updateComponents": {"surfaceId", "components"},
	"updateDataModel":  {"surfaceId", "path", "value"},
	"deleteSurface":    {"surfaceId"},
}

// unknownKeys reports the keys of a message (obj, its operation op and
// body) that v0.9.1 does not define: Downgrade also sees A2UI no
// validator judged (Emit, when an agent's A2UI middleware is off), and
// what it leaves out it names.
func (d *down) unknownKeys(obj map[string]any, op string, body map[string]any) {
	if len(obj) > 2 || len(obj) == 2 && obj["version"] == nil {
		for _, k := range sortedKeys(obj) {
			if k != "version" && k != op {
				d.lossy(pointer(k), "%q is not part of a v0.9.1 message; left out", k)
			}
		}
	}
	known := v09Props[op]
	for k := range body {
		if !slices.Contains(known, k) {
			for _, k := range sortedKeys(body) {
				if !slices.Contains(known, k) {
					d.lossy(pointer(op, k), "%s has no property %q in v0.9.1; left out", op, k)
				}
			}
			return
		}
	}
}

// v08CatalogOf names a v0.9 catalog as v0.8 knows it: the basic catalog
// is the v0.8 standard one, the minimal the v0.8 minimal one; another
// (a frontend's own) keeps its id.
func v08CatalogOf(id string) string {
	switch id {
	case schemas.BasicCatalogID, CopilotKitCatalogID, "https://a2ui.org/specification/v0_9_1/catalogs/basic/catalog.json":
		return schemas.V08StandardCatalogID
	case schemas.Base + "catalogs/minimal/catalog.json", "https://a2ui.org/specification/v0_9_1/catalogs/minimal/catalog.json":
		return schemas.V08MinimalCatalogID
	}
	return id
}

func (d *down) createSurface(in map[string]any) map[string]any {
	out := d.a.kv("surfaceId", d.sid)
	out["root"] = "root"
	if c, ok := in["catalogId"].(string); ok {
		out["catalogId"] = v08CatalogOf(c)
	}
	if th, ok := in["theme"].(map[string]any); ok {
		styles := d.a.obj()
		for _, k := range sortedKeys(th) {
			switch k {
			case "primaryColor":
				styles["primaryColor"] = th[k]
			case "iconUrl":
				styles["logoUrl"] = th[k]
			default:
				d.lossy(pointer("createSurface", "theme", k), "theme %q has no v0.8 style (v0.8 styles are primaryColor, font and, in the official renderer, logoUrl); left out", k)
			}
		}
		if len(styles) > 0 {
			out["styles"] = styles
		}
	}
	if sd, _ := in["sendDataModel"].(bool); sd {
		d.lossy(pointer("createSurface", "sendDataModel"), "v0.8 clients do not send their data model back with actions; left out")
	}
	return out
}

func (d *down) updateComponents(in map[string]any) map[string]any {
	list, _ := in["components"].([]any)
	comps := d.a.list(len(list))[:0]
	d.checks = d.a.componentChecks(len(list))
	for i, x := range list {
		c, _ := x.(map[string]any)
		if w := d.component(c, join("/updateComponents/components/", strconv.Itoa(i))); w != nil {
			comps = append(comps, w)
		}
	}
	if len(comps) == 0 && len(list) > 0 {
		d.lossy(pointer("updateComponents", "components"), "no component of this message can be said in v0.8; left out")
		return nil
	}
	out := d.a.kv("surfaceId", d.sid)
	out["components"] = comps
	return out
}

// component wraps one flat v0.9.1 component as a v0.8 one, to be checked
// against the v0.8 standard catalog (d.checks); nil when it cannot be
// shown.
func (d *down) component(in map[string]any, at string) map[string]any {
	typ, _ := in["component"].(string)
	id, _ := in["id"].(string)
	mapper := v091Catalog[typ]
	if mapper == nil {
		d.errs = append(d.errs, Error{Rule: RuleUnknownComponent, SurfaceID: d.sid, Path: at + "/component", Index: d.idx,
			Message: fmt.Sprintf("component %q (%s) is not in the v0.8 standard catalog; left out", id, typ)})
		return nil
	}
	// The decoded message is the conversion's own to take apart; its id
	// is boxed already.
	rest := in
	boxedID := rest["id"]
	if _, ok := boxedID.(string); !ok {
		boxedID = ""
	}
	delete(rest, "id")
	delete(rest, "component")
	w := d.a.kv("id", boxedID)
	if wt, ok := rest["weight"]; ok {
		w["weight"] = wt
		delete(rest, "weight")
	}
	props := d.a.obj()
	d.props = props8{d: d, in: rest, out: props, at: at}
	typ8 := mapper(&d.props)
	for _, k := range sortedKeys(rest) {
		switch k {
		case "accessibility":
			d.lossy(at+"/accessibility", "v0.8 components have no accessibility attributes; left out")
		case "checks":
			d.lossy(at+"/checks", "v0.8 has no client-side checks; %s shown without them", typ)
		default:
			d.lossy(at+"/"+escape(k), "%s property %q has no v0.8 equivalent; left out", typ, k)
		}
	}
	d.checks = append(d.checks, componentCheck{id: id, typ8: typ8, at: at, props: props, errAt: len(d.errs)})
	w["component"] = d.a.kv(typ8, props)
	return w
}

// props8 is one component being converted: the v0.9.1 properties not
// yet taken (in), the v0.8 ones (out), and where in is in the message.
type props8 struct {
	d   *down
	in  map[string]any
	out map[string]any
	at  string
}

// take removes and returns a v0.9.1 property.
func (p *props8) take(k string) (any, bool) {
	x, ok := p.in[k]
	delete(p.in, k)
	return x, ok
}

// copy moves a plain property across under its v0.8 name.
func (p *props8) copy(from, to string) {
	if x, ok := p.take(from); ok {
		p.out[to] = x
	}
}

// bind moves a dynamic property across, boxed as a v0.8 bound value of
// kind ("string", "number", "boolean", "array").
func (p *props8) bind(from, to, kind string) {
	if x, ok := p.take(from); ok {
		if b, ok := p.d.bound(x, kind, p.at, "/", escape(from)); ok {
			p.out[to] = b
		}
	}
}

// ref moves a component reference across.
func (p *props8) ref(from, to string) {
	if x, ok := p.take(from); ok {
		p.out[to] = x
	}
}

// enum moves a plain property across, with its values renamed by names
// (a value names maps to "" has no v0.8 equivalent and is left out).
func (p *props8) enum(from, to string, names map[string]string) {
	x, ok := p.take(from)
	if !ok {
		return
	}
	s, _ := x.(string)
	if n, ok := names[s]; ok {
		if n == "" {
			p.d.lossy(p.at+"/"+escape(from), "%s %q has no v0.8 equivalent; the default is used", from, s)
			return
		}
		s = n
	}
	p.out[to] = s
}

func (p *props8) children() {
	x, ok := p.take("children")
	if !ok {
		return
	}
	switch c := x.(type) {
	case []any:
		p.out["children"] = p.d.a.kv("explicitList", x) // x, not c: boxed already
	case map[string]any:
		t := p.d.a.kv("componentId", c["componentId"])
		t["dataBinding"] = c["path"]
		p.out["children"] = p.d.a.kv("template", t)
	}
}

// v091Catalog maps the v0.9.1 basic catalog onto the v0.8 standard
// catalog, the inverse of v08Catalog; each returns the v0.8 type.
var v091Catalog = map[string]func(p *props8) string{
	"Text": func(p *props8) string {
		if p.in["text"] == "" {
			// The official v0.8 renderer shows an empty literal as
			// "(empty)"; a space shows nothing, as v0.9.1 does.
			p.in["text"] = " "
		}
		p.bind("text", "text", "string")
		p.copy("variant", "usageHint")
		return "Text"
	},
	"Image": func(p *props8) string {
		p.bind("url", "url", "string")
		p.bind("description", "altText", "string")
		p.copy("variant", "usageHint")
		p.enum("fit", "fit", map[string]string{"scaleDown": "scale-down"})
		return "Image"
	},
	"Icon": func(p *props8) string {
		if s, ok := p.in["name"].(string); ok && v091OnlyIcons[s] {
			delete(p.in, "name")
			p.d.lossy(p.at+"/name", "icon %q is not in the v0.8 icon set; shown as the text %q", s, s)
			p.out["text"] = p.d.a.kv("literalString", s)
			p.out["usageHint"] = "caption"
			return "Text"
		}
		p.bind("name", "name", "string")
		return "Icon"
	},
	"Video": func(p *props8) string {
		p.bind("url", "url", "string")
		return "Video"
	},
	"AudioPlayer": func(p *props8) string {
		p.bind("url", "url", "string")
		p.bind("description", "description", "string")
		return "AudioPlayer"
	},
	"Row":    func(p *props8) string { return p.layout("Row") },
	"Column": func(p *props8) string { return p.layout("Column") },
	"List": func(p *props8) string {
		p.children()
		p.copy("direction", "direction")
		p.copy("align", "alignment")
		return "List"
	},
	"Card": func(p *props8) string {
		p.ref("child", "child")
		return "Card"
	},
	"Tabs": func(p *props8) string {
		tabs, _ := p.take("tabs")
		list, _ := tabs.([]any)
		items := p.d.a.list(len(list))[:0]
		for i, x := range list {
			t, _ := x.(map[string]any)
			it := p.d.a.kv("child", t["child"])
			if b, ok := p.d.bound(t["title"], "string", p.at, "/tabs/", strconv.Itoa(i), "/title"); ok {
				it["title"] = b
			}
			items = append(items, it)
		}
		p.out["tabItems"] = items
		return "Tabs"
	},
	"Modal": func(p *props8) string {
		p.ref("trigger", "entryPointChild")
		p.ref("content", "contentChild")
		return "Modal"
	},
	"Divider": func(p *props8) string {
		p.copy("axis", "axis")
		return "Divider"
	},
	"Button": func(p *props8) string {
		p.ref("child", "child")
		if x, ok := p.take("variant"); ok {
			switch x {
			case "primary":
				p.out["primary"] = true
			case "borderless":
				p.d.lossy(p.at+"/variant", `v0.8 buttons are primary or not; "borderless" is shown as a plain button`)
			}
		}
		p.action()
		return "Button"
	},
	"CheckBox": func(p *props8) string {
		p.bind("label", "label", "string")
		p.bind("value", "value", "boolean")
		return "CheckBox"
	},
	"TextField": func(p *props8) string {
		p.bind("label", "label", "string")
		if _, ok := p.out["label"]; !ok {
			p.out["label"] = p.d.a.kv("literalString", "") // required in v0.8
		}
		p.bind("value", "text", "string")
		p.copy("variant", "textFieldType")
		p.copy("validationRegexp", "validationRegexp")
		return "TextField"
	},
	"DateTimeInput": func(p *props8) string {
		p.bind("value", "value", "string")
		p.copy("enableDate", "enableDate")
		p.copy("enableTime", "enableTime")
		for _, k := range []string{"label", "min", "max"} {
			if _, ok := p.take(k); ok {
				p.d.lossy(p.at+"/"+k, "a v0.8 DateTimeInput has no %s; left out", k)
			}
		}
		return "DateTimeInput"
	},
	"ChoicePicker": func(p *props8) string {
		p.bind("value", "selections", "array")
		if _, ok := p.out["selections"]; !ok {
			p.out["selections"] = p.d.a.kv("literalArray", []any{}) // required in v0.8
		}
		opts, _ := p.take("options")
		list, _ := opts.([]any)
		out := p.d.a.list(len(list))[:0]
		for i, x := range list {
			o, _ := x.(map[string]any)
			opt := p.d.a.kv("value", o["value"])
			if b, ok := p.d.bound(o["label"], "string", p.at, "/options/", strconv.Itoa(i), "/label"); ok {
				opt["label"] = b
			}
			out = append(out, opt)
		}
		p.out["options"] = out
		if x, _ := p.take("variant"); x != "multipleSelection" {
			p.out["maxAllowedSelections"] = json.Number("1") // v0.9.1's default is mutuallyExclusive
		}
		p.copy("displayStyle", "variant")
		p.copy("filterable", "filterable")
		if _, ok := p.take("label"); ok {
			p.d.lossy(p.at+"/label", "a v0.8 MultipleChoice has no label; left out")
		}
		return "MultipleChoice"
	},
	"Slider": func(p *props8) string {
		p.bind("label", "label", "string")
		p.bind("value", "value", "number")
		p.copy("min", "minValue")
		p.copy("max", "maxValue")
		return "Slider"
	},
}

// v091OnlyIcons are the basic catalog's icon names the v0.8 icon set
// lacks.
var v091OnlyIcons = map[string]bool{
	"fastForward": true, "pause": true, "play": true, "rewind": true, "skipNext": true, "skipPrevious": true,
	"stop": true, "volumeDown": true, "volumeMute": true, "volumeOff": true, "volumeUp": true,
}

// layout maps Row and Column.
func (p *props8) layout(typ string) string {
	p.children()
	p.enum("justify", "distribution", map[string]string{"stretch": ""})
	p.copy("align", "alignment")
	return typ
}

// action maps a Button's action: an event keeps its name and its context
// becomes a key/value list; a client function (v0.8 has none) becomes an
// event of the function's name with its arguments, which the agent then
// answers.
func (p *props8) action() {
	x, ok := p.take("action")
	if !ok {
		return
	}
	a, _ := x.(map[string]any)
	at := join(p.at, "/action")
	var name any
	var ctx map[string]any
	if ev, ok := a["event"].(map[string]any); ok {
		name = ev["name"]
		ctx, _ = ev["context"].(map[string]any)
		at = join(at, "/event/context")
	} else if fc, ok := a["functionCall"].(map[string]any); ok {
		name = fc["call"]
		ctx, _ = fc["args"].(map[string]any)
		p.d.lossy(at+"/functionCall", "v0.8 buttons cannot run a client function: a click sends the action %q with its arguments to the agent instead", name)
		at = join(at, "/functionCall/args")
	}
	out := p.d.a.kv("name", name)
	if len(ctx) > 0 {
		list := p.d.a.list(len(ctx))[:0]
		for _, k := range sortedKeys(ctx) {
			if b, ok := p.d.bound(ctx[k], "", at, "/", escape(k)); ok {
				e := p.d.a.kv("key", k)
				e["value"] = b
				list = append(list, e)
			}
		}
		out["context"] = list
	}
	p.out["action"] = out
}

// bound boxes a v0.9.1 dynamic value as a v0.8 bound value of kind ("" for
// an action's context value, any scalar): a literal as literalString,
// literalNumber, literalBoolean or literalArray, a binding as {path}, a
// function call as the value it formats (see call). ok is false when
// nothing of it can be said. at is the parts of its JSON Pointer,
// joined only for an issue.
func (d *down) bound(x any, kind string, at ...string) (any, bool) {
	switch t := x.(type) {
	case map[string]any:
		if p, ok := t["path"]; ok {
			if _, ok := p.(string); ok {
				return d.a.kv("path", p), true
			}
		}
		if _, ok := t["call"]; ok {
			return d.call(t, kind, join(at...))
		}
		d.lossy(join(at...), "an object literal has no v0.8 form; sent as its JSON text")
		return d.a.kv("literalString", string(appendJSON(nil, t))), true
	case string:
		return d.a.kv("literalString", x), true // x, not t: boxed already
	case json.Number:
		if kind == "string" {
			return d.a.kv("literalString", t.String()), true
		}
		return d.a.kv("literalNumber", x), true
	case bool:
		if kind == "string" {
			return d.a.kv("literalString", strconv.FormatBool(t)), true
		}
		return d.a.kv("literalBoolean", t), true
	case []any:
		if kind == "array" {
			return d.a.kv("literalArray", x), true
		}
		d.lossy(join(at...), "a list literal has no v0.8 form here; sent as its JSON text")
		return d.a.kv("literalString", string(appendJSON(nil, t))), true
	case nil:
		d.lossy(join(at...), "null has no v0.8 form; left out")
		return nil, false
	}
	return nil, false
}

// call says a v0.9.1 function call in v0.8, which has no functions: a
// formatting function (formatNumber, formatCurrency, formatDate,
// pluralize) becomes the value it formats, unformatted; formatString of
// one "${path}" becomes that binding, of more its template text; any
// other function (a check, a logical one) is left out. Each is reported.
func (d *down) call(fc map[string]any, kind, at string) (any, bool) {
	name, _ := fc["call"].(string)
	args, _ := fc["args"].(map[string]any)
	switch name {
	case "formatNumber", "formatCurrency", "formatDate", "pluralize":
		val, ok := args["value"]
		if !ok {
			break
		}
		d.lossy(at, "v0.8 has no %s: the value is shown unformatted", name)
		return d.bound(val, kind, at+"/args/value")
	case "formatString":
		tmpl, ok := args["value"].(string)
		if !ok {
			break
		}
		if p, ok := onlyInterpolation(tmpl); ok {
			d.lossy(at, "v0.8 has no formatString; its one interpolation %q is bound as a path", tmpl)
			return d.a.kv("path", p), true
		}
		d.lossy(at, "v0.8 has no formatString: the template %q is shown as it is, uninterpolated", tmpl)
		return d.a.kv("literalString", tmpl), true
	}
	d.lossy(at, "v0.8 has no client functions: the value of %q is left out", name)
	return nil, false
}

// onlyInterpolation reports whether a formatString template is one
// "${/path}" (or "${path}") and nothing else, and that path.
func onlyInterpolation(t string) (string, bool) {
	if !strings.HasPrefix(t, "${") || !strings.HasSuffix(t, "}") || strings.Count(t, "${") != 1 {
		return "", false
	}
	p := strings.TrimSpace(t[2 : len(t)-1])
	if p == "" || strings.ContainsAny(p, "(){}$ ") {
		return "", false
	}
	return p, true
}

// updateDataModel turns a value into v0.8's adjacency list.
func (d *down) updateDataModel(in map[string]any) map[string]any {
	path, _ := in["path"].(string)
	if path == "" {
		path = "/"
	}
	val, ok := in["value"]
	if !ok {
		d.lossy(pointer("updateDataModel", "value"), "v0.8 cannot remove data: the value at %s stays as it was; left out", path)
		return nil
	}
	at := pointer("updateDataModel", "value")
	out := d.a.kv("surfaceId", d.sid)
	out["path"] = path
	if obj, ok := val.(map[string]any); ok {
		out["contents"] = d.entries(obj, 0, at)
		return out
	}
	if path == "/" {
		d.lossy(at, "v0.8's data model root is a map; a %s is left out", jsonKind(val))
		return nil
	}
	// The official v0.8 renderer's "set a value at path" convention.
	e := d.entry(".", val, 0, at)
	out["contents"] = []any{e}
	return out
}

// entries is a map as a v0.8 adjacency list, keys sorted.
func (d *down) entries(obj map[string]any, depth int, at string) []any {
	out := d.a.list(len(obj))[:0]
	for _, k := range sortedKeys(obj) {
		if strings.ContainsAny(k, "./[") {
			d.lossy(at+"/"+escape(k), "key %q: the official v0.8 renderer reads '.', '/' and '[n]' in a key as a path, so this value lands elsewhere", k)
		}
		out = append(out, d.entry(k, obj[k], depth, join(at, "/", escape(k))))
	}
	return out
}

// entry is one key and its value in v0.8: valueString, valueNumber,
// valueBoolean, valueMap (one level, as the v0.8 schema allows), or JSON
// text in valueString for a list or a deeper map.
func (d *down) entry(k string, x any, depth int, at string) map[string]any {
	e := d.a.kv("key", k)
	switch t := x.(type) {
	case string:
		if s := strings.TrimSpace(t); len(s) >= 2 && ((s[0] == '{' && s[len(s)-1] == '}') || (s[0] == '[' && s[len(s)-1] == ']')) {
			d.lossy(at, "a string that looks like JSON is read as JSON by the official v0.8 renderer")
		}
		e["valueString"] = x // x, not t: boxed already
	case json.Number:
		e["valueNumber"] = x
	case bool:
		e["valueBoolean"] = t
	case map[string]any:
		if depth == 0 {
			e["valueMap"] = d.entries(t, depth+1, at)
		} else {
			e["valueString"] = string(appendJSON(nil, t))
		}
	case []any:
		e["valueString"] = string(appendJSON(nil, t))
	case nil:
		d.lossy(at, "v0.8 has no null: key %q is sent without a value, which leaves the client's value as it was", k)
	}
	return e
}

func jsonKind(x any) string {
	switch x.(type) {
	case string:
		return "string"
	case json.Number:
		return "number"
	case bool:
		return "boolean"
	case []any:
		return "list"
	case nil:
		return "null"
	}
	return "map"
}
