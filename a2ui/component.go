package a2ui

import (
	"encoding/json"
	"maps"
	"slices"
)

// Component is one entry of a flat component list: an id, a catalog
// component type and its properties. It encodes as
// {"id":..., "component":..., ...props} with the properties in key order.
type Component struct {
	ID    string
	Type  string
	Props map[string]any
}

// MarshalJSON implements json.Marshaler.
func (c Component) MarshalJSON() ([]byte, error) {
	b := []byte(`{"id":`)
	id, _ := json.Marshal(c.ID)
	b = append(b, id...)
	b = append(b, `,"component":`...)
	t, _ := json.Marshal(c.Type)
	b = append(b, t...)
	for _, k := range slices.Sorted(maps.Keys(c.Props)) {
		kb, _ := json.Marshal(k)
		vb, err := json.Marshal(c.Props[k])
		if err != nil {
			return nil, err
		}
		b = append(b, ',')
		b = append(b, kb...)
		b = append(b, ':')
		b = append(b, vb...)
	}
	return append(b, '}'), nil
}

// UnmarshalJSON implements json.Unmarshaler.
func (c *Component) UnmarshalJSON(b []byte) error {
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		return err
	}
	c.ID, _ = m["id"].(string)
	c.Type, _ = m["component"].(string)
	delete(m, "id")
	delete(m, "component")
	c.Props = m
	return nil
}

// with returns c with prop k set (nil values are skipped).
func (c Component) with(k string, v any) Component {
	if v == nil {
		return c
	}
	if c.Props == nil {
		c.Props = map[string]any{}
	}
	c.Props[k] = v
	return c
}

// Set returns c with property k set to v.
func (c Component) Set(k string, v any) Component { return c.with(k, v) }

// Bind is a data binding {"path": p}.
func Bind(p string) map[string]any { return map[string]any{"path": p} }

// Call is a function call {"call": name, "args": args, "returnType": rt}.
func Call(name string, args map[string]any, returnType string) map[string]any {
	m := map[string]any{"call": name, "args": args}
	if returnType != "" {
		m["returnType"] = returnType
	}
	return m
}

// Template is a ChildList template: one child per element of the array at
// path.
func Template(componentID, path string) map[string]any {
	return map[string]any{"componentId": componentID, "path": path}
}

// Text is a Text component; text is a literal string, a binding or a call.
// variant may be empty.
func Text(id string, text any, variant string) Component {
	c := Component{ID: id, Type: "Text", Props: map[string]any{"text": text}}
	if variant != "" {
		c = c.with("variant", variant)
	}
	return c
}

// Column lays out children (a []string of ids or a Template) vertically.
func Column(id string, children any) Component {
	return Component{ID: id, Type: "Column", Props: map[string]any{"children": children}}
}

// Row lays out children horizontally.
func Row(id string, children any) Component {
	return Component{ID: id, Type: "Row", Props: map[string]any{"children": children}}
}

// Card holds exactly one child.
func Card(id, child string) Component {
	return Component{ID: id, Type: "Card", Props: map[string]any{"child": child}}
}

// Divider is a horizontal rule.
func Divider(id string) Component { return Component{ID: id, Type: "Divider"} }

// Image shows the image at url (literal or binding).
func Image(id string, url any, variant string) Component {
	c := Component{ID: id, Type: "Image", Props: map[string]any{"url": url}}
	if variant != "" {
		c = c.with("variant", variant)
	}
	return c
}

// Icon shows a named icon (a catalog name or a binding to one).
func Icon(id string, name any) Component {
	return Component{ID: id, Type: "Icon", Props: map[string]any{"name": name}}
}

// Button is a button whose label is the child component; action is an
// EventAction or a function call action.
func Button(id, child string, action map[string]any, variant string) Component {
	c := Component{ID: id, Type: "Button", Props: map[string]any{"child": child, "action": action}}
	if variant != "" {
		c = c.with("variant", variant)
	}
	return c
}

// EventAction is a Button action that sends name with context to the
// server.
func EventAction(name string, context map[string]any) map[string]any {
	ev := map[string]any{"name": name}
	if len(context) > 0 {
		ev["context"] = context
	}
	return map[string]any{"event": ev}
}

// TextField is a text input bound to value.
func TextField(id string, label, value any) Component {
	return Component{ID: id, Type: "TextField", Props: map[string]any{"label": label, "value": value}}
}

// CheckBox is a boolean input.
func CheckBox(id string, label, value any) Component {
	return Component{ID: id, Type: "CheckBox", Props: map[string]any{"label": label, "value": value}}
}
