// Package qwenapps is an MCP App server written the way the qwen-agent
// document on MCP Apps teaches, not the MCP Apps way: its tools return an
// app response {"type": "app", "resourceUri": "ui://…", "data": {…},
// "_meta": {"mcpui.dev/ui-preferred-frame-size": [w, h]}} (as JSON text or
// as structured content), its Views are plain text/html that speak a
// small postMessage protocol ({type: "mcp-app-ready"} out, {type:
// "mcp-app-data", payload} in, {type: "mcp-app-response", payload} out),
// and one resource is a text/uri-list naming an external page. The
// adapter's tests use it to show such servers work behind it.
package qwenapps

import (
	"context"
	"encoding/json"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// URIs of the Views.
const (
	DashboardURI = "ui://qwen/data-dashboard"
	AskFormURI   = "ui://qwen/ask-form"
	DocsURI      = "ui://qwen/docs"
)

// DashboardHTML draws the data it is sent as bars.
const DashboardHTML = `<!doctype html>
<html><head><meta charset="utf-8"><title>Data dashboard</title>
<style>body{font:14px system-ui,sans-serif;margin:12px}.bar{background:#3b6fd8;height:18px;margin:4px 0;color:#fff;padding-left:6px;font-size:12px}</style></head>
<body><h2 id="title">Loading…</h2><div id="chart"></div>
<script>
window.addEventListener("message", function (event) {
  var msg = event.data;
  if (!msg || msg.type !== "mcp-app-data") return;
  var data = msg.payload;
  document.getElementById("title").textContent = data.title;
  var max = Math.max.apply(null, data.series.map(function (p) { return p.value; }));
  document.getElementById("chart").innerHTML = data.series.map(function (p) {
    return '<div class="bar" style="width:' + Math.round((p.value / max) * 100) + '%">' + p.label + ': ' + p.value + '</div>';
  }).join("");
  document.body.dataset.rendered = "yes";
});
window.parent.postMessage({ type: "mcp-app-ready" }, "*");
</script></body></html>`

// AskFormHTML asks the question it is sent and posts the choice back.
const AskFormHTML = `<!doctype html>
<html><head><meta charset="utf-8"><title>Ask</title>
<style>body{font:14px system-ui,sans-serif;margin:12px}button{margin-right:6px}</style></head>
<body><p id="question">Loading…</p><div id="options"></div><p id="status"></p>
<script>
window.addEventListener("message", function (event) {
  var msg = event.data;
  if (!msg || msg.type !== "mcp-app-data") return;
  document.getElementById("question").textContent = msg.payload.question;
  var box = document.getElementById("options");
  box.innerHTML = "";
  msg.payload.options.forEach(function (o) {
    var b = document.createElement("button");
    b.textContent = o;
    b.onclick = function () {
      window.parent.postMessage({ type: "mcp-app-response", payload: { choice: o } }, "*");
      document.getElementById("status").textContent = "Sent: " + o;
    };
    box.appendChild(b);
  });
});
window.parent.postMessage({ type: "mcp-app-ready" }, "*");
</script></body></html>`

type appResponse struct {
	Type        string         `json:"type"`
	ResourceURI string         `json:"resourceUri"`
	Data        any            `json:"data"`
	Meta        map[string]any `json:"_meta,omitempty"`
}

// NewServer builds the server; docsURL is the page ui://qwen/docs names.
func NewServer(docsURL string) *mcp.Server {
	s := mcp.NewServer(&mcp.Implementation{Name: "qwen-apps", Version: "1.0.0"}, nil)
	s.AddTool(&mcp.Tool{
		Name:        "show_dashboard",
		Description: "Show a data dashboard chart of the sales by region.",
		InputSchema: map[string]any{"type": "object", "properties": map[string]any{"title": map[string]any{"type": "string"}}},
	}, func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		var in struct {
			Title string `json:"title"`
		}
		_ = json.Unmarshal(req.Params.Arguments, &in)
		if in.Title == "" {
			in.Title = "Sales by region"
		}
		// The app response as JSON text, as the document's first example.
		b, _ := json.Marshal(appResponse{Type: "app", ResourceURI: DashboardURI,
			Data: map[string]any{"title": in.Title, "series": []map[string]any{{"label": "North", "value": 120}, {"label": "South", "value": 95}, {"label": "East", "value": 143}}},
			Meta: map[string]any{"mcpui.dev/ui-preferred-frame-size": []int{640, 360}}})
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: string(b)}}}, nil
	})
	s.AddTool(&mcp.Tool{
		Name:        "ask_preference",
		Description: "Ask the user to choose one of the options; the result is their choice.",
		InputSchema: map[string]any{"type": "object", "required": []string{"question", "options"}, "properties": map[string]any{
			"question": map[string]any{"type": "string"}, "options": map[string]any{"type": "array", "items": map[string]any{"type": "string"}}}},
	}, func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		var data map[string]any
		_ = json.Unmarshal(req.Params.Arguments, &data)
		// The app response as structured content, as the second example.
		return &mcp.CallToolResult{
			Content:           []mcp.Content{&mcp.TextContent{Text: "Showing the question to the user."}},
			StructuredContent: appResponse{Type: "app", ResourceURI: AskFormURI, Data: data},
		}, nil
	})
	s.AddTool(&mcp.Tool{
		Name:        "open_docs",
		Description: "Open the product documentation in a card.",
		InputSchema: map[string]any{"type": "object"},
		Meta:        mcp.Meta{"ui": map[string]any{"resourceUri": DocsURI}},
	}, func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "The documentation is open."}}}, nil
	})
	html := func(uri, text string) {
		s.AddResource(&mcp.Resource{URI: uri, Name: uri, MIMEType: "text/html"}, func(ctx context.Context, req *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
			return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{{URI: uri, MIMEType: "text/html", Text: text}}}, nil
		})
	}
	html(DashboardURI, DashboardHTML)
	html(AskFormURI, AskFormHTML)
	s.AddResource(&mcp.Resource{URI: DocsURI, Name: "docs", MIMEType: "text/uri-list"}, func(ctx context.Context, req *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
		return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{{URI: DocsURI, MIMEType: "text/uri-list", Text: "# the product documentation\n" + docsURL + "\n"}}}, nil
	})
	return s
}
