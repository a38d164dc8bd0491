package mcpapps

import (
	"encoding/json"
	"slices"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// MIMEType is the only MIME type an MCP App resource may have.
const MIMEType = "text/html;profile=mcp-app"

// ExtensionID is the MCP Apps client capability key.
const ExtensionID = "io.modelcontextprotocol/ui"

// Tool is one tool of a server's catalogue.
type Tool struct {
	Name        string
	Description string
	InputSchema json.RawMessage
	// ResourceURI is the tool's UI (a ui:// URI), or "".
	ResourceURI string
	// Visibility is who may call it: "model" (the agent), "app" (a card of
	// the same server). Absent in _meta means both.
	Visibility []string
}

// ModelVisible reports whether the agent may see and call the tool.
func (t Tool) ModelVisible() bool { return slices.Contains(t.Visibility, "model") }

// AppVisible reports whether a card may call the tool.
func (t Tool) AppVisible() bool { return slices.Contains(t.Visibility, "app") }

// ResourceURIOf returns a tool's UI resource URI from _meta: the nested
// _meta.ui.resourceUri, then the deprecated flat "ui/resourceUri". A URI
// that is not ui:// is refused (ok false with the URI, for logging).
func ResourceURIOf(meta map[string]any) (uri string, ok bool) {
	if ui, _ := meta["ui"].(map[string]any); ui != nil {
		if u, _ := ui["resourceUri"].(string); u != "" {
			return u, strings.HasPrefix(u, "ui://")
		}
	}
	if u, _ := meta["ui/resourceUri"].(string); u != "" {
		return u, strings.HasPrefix(u, "ui://")
	}
	return "", true
}

// VisibilityOf returns _meta.ui.visibility, defaulting to both when it is
// absent. A malformed value is read in its most restrictive sense: a
// string is a one-element list, unknown entries are dropped, and anything
// else means neither (malformed reports that, for logging).
func VisibilityOf(meta map[string]any) (vis []string, malformed bool) {
	ui, _ := meta["ui"].(map[string]any)
	raw, present := ui["visibility"]
	if !present {
		return []string{"model", "app"}, false
	}
	var in []any
	switch x := raw.(type) {
	case []any:
		in = x
	case []string:
		for _, s := range x {
			in = append(in, s)
		}
	case string:
		in, malformed = []any{x}, true
	default:
		return nil, true
	}
	for _, v := range in {
		s, ok := v.(string)
		if !ok || (s != "model" && s != "app") {
			malformed = true
			continue
		}
		if !slices.Contains(vis, s) {
			vis = append(vis, s)
		}
	}
	return vis, malformed
}

// toolFromMCP builds a catalogue entry; badURI is set when the tool names
// a UI that is not ui:// (it is then treated as having no UI), badVis when
// its visibility was malformed (read restrictively).
func toolFromMCP(t *mcp.Tool) (tool Tool, badURI string, badVis bool) {
	schema, _ := json.Marshal(t.InputSchema)
	if t.InputSchema == nil {
		schema = []byte(`{"type":"object"}`)
	}
	uri, ok := ResourceURIOf(t.Meta)
	if !ok {
		badURI, uri = uri, ""
	}
	vis, badVis := VisibilityOf(t.Meta)
	return Tool{Name: t.Name, Description: t.Description, InputSchema: schema, ResourceURI: uri, Visibility: vis}, badURI, badVis
}

// Resource is a UI resource as read from its server.
type Resource struct {
	URI      string
	MIMEType string
	HTML     string
	// UI is _meta.ui of the content item, else of the listing.
	UI map[string]any
}
