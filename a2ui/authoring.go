package a2ui

import (
	"encoding/json"
	"fmt"
	"sort"
	"strings"

	"github.com/genui-adapter/genui-adapter/schemas"
)

// RenderToolName is the tool a model calls to author a surface itself
// (the render tool of CopilotKit's runtime and @ag-ui/a2ui-toolkit).
const RenderToolName = "render_a2ui"

// RenderToolSchema is the render tool's input schema, as
// @ag-ui/a2ui-toolkit defines it.
const RenderToolSchema = `{"type":"object","properties":{` +
	`"surfaceId":{"type":"string","description":"Unique surface identifier."},` +
	`"components":{"type":"array","description":"A2UI v0.9 component array (flat format). The root component must have id 'root'.","items":{"type":"object"}},` +
	`"data":{"type":"object","description":"Optional initial data model for the surface (form values, list items, etc.)."}},` +
	`"required":["surfaceId","components"]}`

// RenderArgs are a render tool call's arguments.
type RenderArgs struct {
	SurfaceID  string            `json:"surfaceId"`
	Components []json.RawMessage `json:"components"`
	Data       json.RawMessage   `json:"data,omitempty"`
}

// Operations turns render arguments into the surface's messages:
// createSurface, updateComponents and (with data) updateDataModel.
func (a RenderArgs) Operations(catalogID, version string) []json.RawMessage {
	if catalogID == "" {
		catalogID = schemas.BasicCatalogID
	}
	if version == "" {
		version = DefaultVersion
	}
	if a.SurfaceID == "" {
		a.SurfaceID = "surface"
	}
	env := func(op string, body any) json.RawMessage {
		b, _ := json.Marshal(map[string]any{"version": version, op: body})
		return b
	}
	comps := a.Components
	if comps == nil {
		comps = []json.RawMessage{}
	}
	ops := []json.RawMessage{
		env("createSurface", map[string]any{"surfaceId": a.SurfaceID, "catalogId": catalogID}),
		env("updateComponents", map[string]any{"surfaceId": a.SurfaceID, "components": comps}),
	}
	if len(a.Data) > 0 && string(a.Data) != "null" {
		ops = append(ops, env("updateDataModel", map[string]any{"surfaceId": a.SurfaceID, "path": "/", "value": a.Data}))
	}
	return ops
}

// Author validates render arguments as the surface they make (strictly:
// orphans and bindings checked) and returns its messages, or the errors a
// model can fix.
func (v *Validator) Author(args []byte, catalogID, version string) ([]json.RawMessage, []Error) {
	var a RenderArgs
	if err := json.Unmarshal(args, &a); err != nil {
		return nil, []Error{{Rule: "render-args", Path: "", Message: "the arguments must be a JSON object {surfaceId, components, data}: " + err.Error()}}
	}
	if len(a.Components) == 0 {
		return nil, []Error{{Rule: "render-args", Path: "/components", Message: "components must be a non-empty array whose root component has id \"root\""}}
	}
	ops := a.Operations(catalogID, version)
	s := generatedValidator(v).NewStream()
	if catalogID != "" {
		s.AllowCatalog(catalogID)
	}
	var errs []Error
	for _, op := range ops {
		errs = append(errs, s.Validate(op)...)
	}
	errs = append(errs, s.Finish()...)
	if len(errs) > 0 {
		return nil, errs
	}
	return ops, nil
}

// PartialRender reads the arguments streamed so far and returns the
// surface they already describe: the complete components (those whose
// JSON object has closed), with a placeholder for each child they name
// that has not arrived yet. ok is false until the root component is
// complete. n is the number of complete components.
func PartialRender(partial string) (a RenderArgs, n int, ok bool) {
	a.SurfaceID = completeString(partial, "surfaceId")
	comps := completeItems(partial, "components")
	if len(comps) == 0 {
		return a, 0, false
	}
	have := map[string]bool{}
	root := false
	var refs []string
	for _, c := range comps {
		var head struct {
			ID       string          `json:"id"`
			Child    json.RawMessage `json:"child"`
			Children json.RawMessage `json:"children"`
		}
		if json.Unmarshal(c, &head) != nil || head.ID == "" {
			continue
		}
		have[head.ID] = true
		root = root || head.ID == "root"
		refs = append(refs, childRefs(head.Child)...)
		refs = append(refs, childRefs(head.Children)...)
		a.Components = append(a.Components, c)
	}
	if !root {
		return a, len(a.Components), false
	}
	sort.Strings(refs)
	for i, r := range refs {
		if have[r] || (i > 0 && refs[i-1] == r) {
			continue
		}
		b, _ := json.Marshal(map[string]any{"id": r, "component": "Text", "text": "…", "variant": "caption"})
		a.Components = append(a.Components, b)
	}
	return a, n + len(have), true
}

// childRefs reads a child/children value: an id, a list of ids, or a
// template {componentId, path}.
func childRefs(raw json.RawMessage) []string {
	if len(raw) == 0 {
		return nil
	}
	var one string
	if json.Unmarshal(raw, &one) == nil {
		return []string{one}
	}
	var list []string
	if json.Unmarshal(raw, &list) == nil {
		return list
	}
	var tpl struct {
		ComponentID string `json:"componentId"`
	}
	if json.Unmarshal(raw, &tpl) == nil && tpl.ComponentID != "" {
		return []string{tpl.ComponentID}
	}
	return nil
}

// completeString is the value of a top-level string key once its closing
// quote has arrived.
func completeString(s, key string) string {
	i := topLevelValue(s, key)
	if i < 0 || i >= len(s) || s[i] != '"' {
		return ""
	}
	end := scanString(s, i)
	if end < 0 {
		return ""
	}
	var v string
	if json.Unmarshal([]byte(s[i:end]), &v) != nil {
		return ""
	}
	return v
}

// completeItems are the elements of a top-level array key whose JSON has
// closed (objects and arrays balanced, strings ended).
func completeItems(s, key string) []json.RawMessage {
	i := topLevelValue(s, key)
	if i < 0 || i >= len(s) || s[i] != '[' {
		return nil
	}
	var out []json.RawMessage
	depth, start := 0, -1
	for j := i + 1; j < len(s); j++ {
		switch c := s[j]; c {
		case '"':
			end := scanString(s, j)
			if end < 0 {
				return out
			}
			if depth == 0 && start < 0 {
				start = j
			}
			j = end - 1
			if depth == 0 {
				out = appendValid(out, s[start:end])
				start = -1
			}
		case '{', '[':
			if depth == 0 {
				start = j
			}
			depth++
		case '}', ']':
			if depth == 0 { // the array itself closed
				return out
			}
			depth--
			if depth == 0 {
				out = appendValid(out, s[start:j+1])
				start = -1
			}
		}
	}
	return out
}

func appendValid(out []json.RawMessage, item string) []json.RawMessage {
	if json.Valid([]byte(item)) {
		return append(out, json.RawMessage(item))
	}
	return out
}

// scanString returns the index just past the string starting at s[i]
// (a quote), or -1 when it has not ended.
func scanString(s string, i int) int {
	for j := i + 1; j < len(s); j++ {
		switch s[j] {
		case '\\':
			j++
		case '"':
			return j + 1
		}
	}
	return -1
}

// topLevelValue finds where the value of key starts in the top-level
// object of s (a prefix of a JSON object), or -1.
func topLevelValue(s, key string) int {
	depth := 0
	want := `"` + key + `"`
	for j := 0; j < len(s); j++ {
		switch s[j] {
		case '"':
			end := scanString(s, j)
			if end < 0 {
				return -1
			}
			if depth == 1 && s[j:end] == want {
				k := end
				for k < len(s) && (s[k] == ' ' || s[k] == '\t' || s[k] == '\n' || s[k] == '\r') {
					k++
				}
				if k < len(s) && s[k] == ':' {
					k++
					for k < len(s) && (s[k] == ' ' || s[k] == '\t' || s[k] == '\n' || s[k] == '\r') {
						k++
					}
					return k
				}
			}
			j = end - 1
		case '{', '[':
			depth++
		case '}', ']':
			depth--
		}
	}
	return -1
}

// AuthoringGuide is what a model needs to author surfaces of the basic
// catalog with the render tool: the rules and each component's
// properties (required ones marked).
func AuthoringGuide() string {
	var b strings.Builder
	b.WriteString("To show the user a UI, call " + RenderToolName + " with {surfaceId, components, data}. ")
	b.WriteString("components is a flat list of A2UI v0.9 components of the basic catalog; each has a unique id and a \"component\" type; exactly one has id \"root\"; ")
	b.WriteString("containers name their children by id (\"children\": [ids], or \"child\": id); every component must be reachable from root; ")
	b.WriteString("a value bound to data is {\"path\": \"/absolute/path\"} and the path must exist in data. ")
	b.WriteString("If the tool answers with validation errors, fix them and call it again.\nComponents (required properties marked *):\n")
	var cat struct {
		Components map[string]struct {
			AllOf []struct {
				Properties map[string]json.RawMessage `json:"properties"`
				Required   []string                   `json:"required"`
			} `json:"allOf"`
			Properties map[string]json.RawMessage `json:"properties"`
			Required   []string                   `json:"required"`
		} `json:"components"`
	}
	raw, _ := schemas.FS.ReadFile("v0_9_1/catalogs/basic/catalog.json")
	_ = json.Unmarshal(raw, &cat)
	names := make([]string, 0, len(cat.Components))
	for n := range cat.Components {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		c := cat.Components[n]
		props, req := map[string]bool{}, map[string]bool{}
		add := func(p map[string]json.RawMessage, r []string) {
			for k := range p {
				props[k] = true
			}
			for _, k := range r {
				req[k] = true
			}
		}
		add(c.Properties, c.Required)
		for _, part := range c.AllOf {
			add(part.Properties, part.Required)
		}
		delete(props, "component")
		delete(props, "id")
		var ps []string
		for k := range props {
			if req[k] {
				k += "*"
			}
			ps = append(ps, k)
		}
		sort.Strings(ps)
		fmt.Fprintf(&b, "- %s: %s\n", n, strings.Join(ps, ", "))
	}
	return b.String()
}
