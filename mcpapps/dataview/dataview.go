// Package dataview is the adapter's built-in MCP App server "genui", the
// generative UI toolkit any agent can bind: render_chart (bar, line, area,
// pie, donut, scatter, gauge, radar; dashboards), render_metrics,
// render_table, render_html, render_url, ask_user and show_data, with the
// app-only answer_user and refresh for the cards. Each tool checks its
// input against its schema, caps its output, returns text for hosts that
// render no UI, and renders both ways: one dependency-free View,
// ui://genui/data-view (inline SVG, no external scripts; CSP the spec
// default, no network), and A2UI basic-catalog messages, embedded as
// application/a2ui+json, for runs that render A2UI. render_html and
// render_url bring inline Views (a sandboxed frame; an allowlisted page).
package dataview

import (
	"context"
	_ "embed"
	"encoding/json"
	"fmt"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/genui-adapter/genui-adapter/mcpapps"
)

// ResourceURI is the View's URI.
const ResourceURI = "ui://genui/data-view"

// ServerID is the id the adapter registers the server under.
const ServerID = "genui"

//go:embed view.html
var viewHTML string

type showIn struct {
	Title string          `json:"title,omitempty" jsonschema:"a heading for the data"`
	Data  json.RawMessage `json:"data" jsonschema:"any JSON value: an array of objects, an object, a label→number object..."`
	View  string          `json:"view,omitempty" jsonschema:"auto (default), table, record, kpi, bar or line"`
}

// NewServer builds the server with the default Options.
func NewServer() *mcp.Server { return NewToolkitServer(Options{}) }

func addShowData(s *mcp.Server, k *toolkit) {
	s.AddTool(&mcp.Tool{
		Name:        ToolShow,
		Description: "Show JSON data to the user as a table, record, KPI tiles or a chart.",
		InputSchema: map[string]any{"type": "object", "properties": map[string]any{
			"title": map[string]any{"type": "string"},
			"data":  map[string]any{"description": "any JSON value"},
			"view":  map[string]any{"type": "string", "enum": []string{"auto", "table", "record", "kpi", "bar", "line"}},
		}, "required": []string{"data"}},
		Meta: uiMeta(ResourceURI),
	}, func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		c, _ := mcpapps.CallerOf(req.Params.Meta)
		return k.show(ctx, c, req.Params.Arguments), nil
	})
}

func (k *toolkit) show(_ context.Context, caller mcpapps.Caller, args json.RawMessage) *mcp.CallToolResult {
	var in showIn
	if err := json.Unmarshal(args, &in); err != nil || len(in.Data) == 0 {
		return failed("show_data needs {data}")
	}
	var v any
	if err := json.Unmarshal(in.Data, &v); err != nil {
		return failed("data is not JSON")
	}
	sc := map[string]any{"kind": "data", "tool": ToolShow, "data": v}
	if in.Title != "" {
		sc["title"] = in.Title
	}
	if in.View != "" {
		sc["view"] = in.View
	}
	return shown(caller, summary(v), sc, func() []map[string]any { return dataSurface(in.Title, in.Data, k.opts.MaxRows) })
}

// addView serves the View under uri, with csp as its _meta.ui.csp (nil:
// the spec default, no network).
func addView(s *mcp.Server, uri string, csp map[string]any) {
	ui := map[string]any{"prefersBorder": true}
	if csp != nil {
		ui["csp"] = csp
	}
	s.AddResource(&mcp.Resource{URI: uri, Name: "Data view", MIMEType: "text/html;profile=mcp-app"},
		func(ctx context.Context, req *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
			return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{{URI: uri, MIMEType: "text/html;profile=mcp-app", Text: viewHTML,
				Meta: mcp.Meta{"ui": ui}}}}, nil
		})
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
