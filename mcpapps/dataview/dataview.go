// Package dataview is the adapter's built-in MCP App server "genui": one
// dependency-free View, ui://genui/data-view, that renders any JSON as a
// table, a key/value record, KPI tiles (a flat numeric record) or an
// inline-SVG bar or line chart (a label→number series), and two tools:
// show_data (model-visible: shows the JSON it is given) and refresh
// (app-only: the View asks for the data again). Its CSP is the spec
// default: no external domains.
package dataview

import (
	"context"
	_ "embed"
	"encoding/json"
	"fmt"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// ResourceURI is the View's URI.
const ResourceURI = "ui://genui/data-view"

// ServerID is the id the adapter registers the server under.
const ServerID = "genui"

//go:embed view.html
var viewHTML string

// HTML returns the View's document.
func HTML() string { return viewHTML }

type showIn struct {
	Title string          `json:"title,omitempty" jsonschema:"a heading for the data"`
	Data  json.RawMessage `json:"data" jsonschema:"any JSON value: an array of objects, an object, a label→number object..."`
	View  string          `json:"view,omitempty" jsonschema:"auto (default), table, record, kpi, bar or line"`
}

// NewServer builds the server.
func NewServer() *mcp.Server {
	s := mcp.NewServer(&mcp.Implementation{Name: "genui", Version: "1.0.0"}, nil)
	s.AddTool(&mcp.Tool{
		Name:        "show_data",
		Description: "Show JSON data to the user as a table, record, KPI tiles or a chart.",
		InputSchema: map[string]any{"type": "object", "properties": map[string]any{
			"title": map[string]any{"type": "string"},
			"data":  map[string]any{"description": "any JSON value"},
			"view":  map[string]any{"type": "string", "enum": []string{"auto", "table", "record", "kpi", "bar", "line"}},
		}, "required": []string{"data"}},
		Meta: mcp.Meta{"ui": map[string]any{"resourceUri": ResourceURI}, "ui/resourceUri": ResourceURI},
	}, func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		var in showIn
		if err := json.Unmarshal(req.Params.Arguments, &in); err != nil || len(in.Data) == 0 {
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "show_data needs {data}"}}, IsError: true}, nil
		}
		var v any
		if err := json.Unmarshal(in.Data, &v); err != nil {
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "data is not JSON"}}, IsError: true}, nil
		}
		sc := map[string]any{"data": v}
		if in.Title != "" {
			sc["title"] = in.Title
		}
		if in.View != "" {
			sc["view"] = in.View
		}
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: summary(v)}}, StructuredContent: sc}, nil
	})
	s.AddTool(&mcp.Tool{
		Name:        "refresh",
		Description: "Fetch the data again (called by the View).",
		InputSchema: map[string]any{"type": "object"},
		Meta:        mcp.Meta{"ui": map[string]any{"visibility": []string{"app"}}},
	}, func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		var in map[string]any
		_ = json.Unmarshal(req.Params.Arguments, &in)
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "refreshed"}}, StructuredContent: map[string]any{"refreshed": true, "input": in}}, nil
	})
	s.AddResource(&mcp.Resource{URI: ResourceURI, Name: "Data view", MIMEType: "text/html;profile=mcp-app"},
		func(ctx context.Context, req *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
			return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{{URI: ResourceURI, MIMEType: "text/html;profile=mcp-app", Text: viewHTML,
				Meta: mcp.Meta{"ui": map[string]any{"prefersBorder": true}}}}}, nil
		})
	return s
}

func summary(v any) string {
	switch x := v.(type) {
	case []any:
		return fmt.Sprintf("Showing %d items to the user.", len(x))
	case map[string]any:
		return fmt.Sprintf("Showing a record with %d fields to the user.", len(x))
	}
	return "Showing the value to the user."
}
