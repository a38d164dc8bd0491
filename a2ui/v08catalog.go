package a2ui

import (
	"encoding/json"
	"strconv"
)

// v08Mapper moves a v0.8 standard-catalog component's properties into its
// flat v0.9.1 basic-catalog form (out already has id, weight and
// component). at is the JSON Pointer of the properties in the message.
type v08Mapper func(cv *v08Conv, in, out map[string]any, at where)

// v08Catalog maps the v0.8 standard catalog onto the v0.9.1 basic catalog.
// Renames: usageHint → variant, Image altText → description, Row/Column
// distribution → justify and alignment → align, Tabs tabItems → tabs,
// Modal entryPointChild/contentChild → trigger/content, TextField text →
// value and textFieldType → variant, MultipleChoice → ChoicePicker,
// Slider minValue/maxValue → min/max, Button primary → variant "primary"
// and action {name, context: [{key, value}]} → {event: {name, context}}.
var v08Catalog = map[string]v08Mapper{
	"Text": func(cv *v08Conv, in, out map[string]any, at where) {
		cv.bind(in, out, at, "text", "text")
		copyProp(in, out, "usageHint", "variant")
	},
	"Image": func(cv *v08Conv, in, out map[string]any, at where) {
		cv.bind(in, out, at, "url", "url")
		cv.bind(in, out, at, "altText", "description")
		copyProp(in, out, "usageHint", "variant")
		if fit, ok := in["fit"].(string); ok {
			if fit == "scale-down" {
				fit = "scaleDown"
			}
			out["fit"] = fit
		}
	},
	"Icon": func(cv *v08Conv, in, out map[string]any, at where) {
		cv.bind(in, out, at, "name", "name")
	},
	"Video": func(cv *v08Conv, in, out map[string]any, at where) {
		cv.bind(in, out, at, "url", "url")
	},
	"AudioPlayer": func(cv *v08Conv, in, out map[string]any, at where) {
		cv.bind(in, out, at, "url", "url")
		cv.bind(in, out, at, "description", "description")
	},
	"Row":    layout,
	"Column": layout,
	"List": func(cv *v08Conv, in, out map[string]any, at where) {
		cv.children(in, out, at)
		copyProp(in, out, "direction", "direction")
		copyProp(in, out, "alignment", "align")
	},
	"Card": func(cv *v08Conv, in, out map[string]any, at where) {
		cv.ref(in, out, "child", "child")
	},
	"Tabs": func(cv *v08Conv, in, out map[string]any, at where) {
		items, _ := in["tabItems"].([]any)
		tabs := cv.a.list(len(items))[:0]
		for i, x := range items {
			it, _ := x.(map[string]any)
			tab := cv.a.obj()
			if t, ok := cv.bound(it["title"], at.add("/tabItems/", strconv.Itoa(i), "/title")); ok {
				tab["title"] = t
			}
			cv.ref(it, tab, "child", "child")
			tabs = append(tabs, tab)
		}
		out["tabs"] = tabs
	},
	"Divider": func(cv *v08Conv, in, out map[string]any, at where) {
		copyProp(in, out, "axis", "axis")
	},
	"Modal": func(cv *v08Conv, in, out map[string]any, at where) {
		cv.ref(in, out, "entryPointChild", "trigger")
		cv.ref(in, out, "contentChild", "content")
	},
	"Button": func(cv *v08Conv, in, out map[string]any, at where) {
		cv.ref(in, out, "child", "child")
		if p, _ := in["primary"].(bool); p {
			out["variant"] = "primary"
		}
		if a, ok := in["action"].(map[string]any); ok {
			ev := cv.a.kv("name", a["name"])
			if list, ok := a["context"].([]any); ok {
				ctx := cv.a.obj()
				for i, x := range list {
					e, _ := x.(map[string]any)
					k, _ := e["key"].(string)
					if v, ok := cv.bound(e["value"], at.add("/action/context/", strconv.Itoa(i), "/value")); ok {
						ctx[k] = v
					}
				}
				ev["context"] = ctx
			}
			out["action"] = cv.a.kv("event", ev)
		}
	},
	"CheckBox": func(cv *v08Conv, in, out map[string]any, at where) {
		cv.bind(in, out, at, "label", "label")
		cv.bind(in, out, at, "value", "value")
	},
	"TextField": func(cv *v08Conv, in, out map[string]any, at where) {
		cv.bind(in, out, at, "label", "label")
		cv.bind(in, out, at, "text", "value")
		copyProp(in, out, "validationRegexp", "validationRegexp")
		if t, ok := in["textFieldType"].(string); ok {
			if t == "date" {
				cv.lossy(at.add("/textFieldType").String(), `textFieldType "date" has no v0.9.1 TextField variant (v0.9.1 has DateTimeInput); shown as "shortText"`)
				t = "shortText"
			}
			out["variant"] = t
		}
	},
	"DateTimeInput": func(cv *v08Conv, in, out map[string]any, at where) {
		cv.bind(in, out, at, "value", "value")
		copyProp(in, out, "enableDate", "enableDate")
		copyProp(in, out, "enableTime", "enableTime")
	},
	"MultipleChoice": func(cv *v08Conv, in, out map[string]any, at where) {
		out["component"] = "ChoicePicker"
		cv.bind(in, out, at, "selections", "value")
		copyProp(in, out, "variant", "displayStyle")
		copyProp(in, out, "filterable", "filterable")
		opts, _ := in["options"].([]any)
		list := cv.a.list(len(opts))[:0]
		for i, x := range opts {
			o, _ := x.(map[string]any)
			opt := cv.a.kv("value", o["value"])
			if l, ok := cv.bound(o["label"], at.add("/options/", strconv.Itoa(i), "/label")); ok {
				opt["label"] = l
			}
			list = append(list, opt)
		}
		out["options"] = list
		out["variant"] = "multipleSelection"
		if n, ok := in["maxAllowedSelections"].(json.Number); ok {
			if n.String() == "1" {
				out["variant"] = "mutuallyExclusive"
			} else {
				cv.lossy(at.add("/maxAllowedSelections").String(), "v0.9.1 has one choice or any number of them; at most %s selections is shown as multiple selection without the limit", n)
			}
		}
	},
	"Slider": func(cv *v08Conv, in, out map[string]any, at where) {
		cv.bind(in, out, at, "label", "label")
		cv.bind(in, out, at, "value", "value")
		copyProp(in, out, "minValue", "min")
		copyProp(in, out, "maxValue", "max")
		if _, ok := out["max"]; !ok {
			cv.lossy(at.String(), "a v0.9.1 Slider needs a max, which this one does not give; 100 is used")
			out["max"] = json.Number("100")
		}
	},
}

// v08Types are the types of v08Catalog, each boxed once.
var v08Types = func() map[string]any {
	m := make(map[string]any, len(v08Catalog))
	for typ := range v08Catalog {
		m[typ] = typ
	}
	return m
}()

// layout maps Row and Column.
func layout(cv *v08Conv, in, out map[string]any, at where) {
	cv.children(in, out, at)
	copyProp(in, out, "distribution", "justify")
	copyProp(in, out, "alignment", "align")
}

// bind copies a bound property, converted, under its v0.9.1 name.
func (cv *v08Conv) bind(in, out map[string]any, at where, from, to string) {
	if x, ok := in[from]; ok {
		if v, ok := cv.bound(x, at.add("/", from)); ok {
			out[to] = v
		}
	}
}

// copyProp copies a plain property, as it is, under its v0.9.1 name.
func copyProp(in, out map[string]any, from, to string) {
	if x, ok := in[from]; ok {
		out[to] = x
	}
}

// ref copies a component reference, mapping the id.
func (cv *v08Conv) ref(in, out map[string]any, from, to string) {
	if _, ok := in[from].(string); ok {
		out[to] = cv.idValue(in[from])
	}
}

// children maps {"explicitList": [...]} to a list of ids and {"template":
// {componentId, dataBinding}} to {componentId, path}.
func (cv *v08Conv) children(in, out map[string]any, at where) {
	ch, _ := in["children"].(map[string]any)
	if list, ok := ch["explicitList"].([]any); ok {
		ids := cv.a.list(len(list))[:0]
		for _, x := range list {
			if _, ok := x.(string); ok {
				ids = append(ids, cv.idValue(x))
			}
		}
		out["children"] = ids
		if _, both := ch["template"]; both {
			cv.lossy(at.add("/children/template").String(), "children has both explicitList and template; the explicit list is kept")
		}
		return
	}
	if t, ok := ch["template"].(map[string]any); ok {
		m := cv.a.kv("componentId", cv.idValue(t["componentId"]))
		m["path"] = t["dataBinding"]
		out["children"] = m
		return
	}
	cv.lossy(at.add("/children").String(), "children has neither explicitList nor template; no children")
	out["children"] = []any{}
}
