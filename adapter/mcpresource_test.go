package adapter

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/genui-adapter/genui-adapter/agui"
)

// mcpApps.maxResourceBytes bounds a UI resource's HTML: a 5 MiB View
// (FastMCP's self-contained Prefab renderer is about 7 MB) gets no card
// under the 4 MiB default and a card when the key allows it.
func TestMaxResourceBytesConfig(t *testing.T) {
	const uri = "ui://big/view.html"
	html := "<!doctype html><p>" + strings.Repeat("x", 5<<20) + "</p>"
	srv := mcp.NewServer(&mcp.Implementation{Name: "big", Version: "1"}, nil)
	srv.AddTool(&mcp.Tool{Name: "show_big", InputSchema: map[string]any{"type": "object"}, Meta: mcp.Meta{"ui": map[string]any{"resourceUri": uri}}},
		func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "shown"}}}, nil
		})
	srv.AddResource(&mcp.Resource{URI: uri, Name: "big", MIMEType: "text/html;profile=mcp-app"},
		func(context.Context, *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
			return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{{URI: uri, MIMEType: "text/html;profile=mcp-app", Text: html}}}, nil
		})
	mcpSrv := httptest.NewServer(mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return srv }, nil))
	t.Cleanup(mcpSrv.Close)
	up := scripted(t, func(enc *agui.Encoder, flush func(), in *agui.RunAgentInput, r *http.Request) {
		enc.Encode("", &agui.RunStarted{ThreadID: in.ThreadID, RunID: in.RunID})
		if in.Messages[len(in.Messages)-1].Role != agui.RoleTool {
			enc.Encode("", &agui.ToolCallStart{ToolCallID: "c1", ToolCallName: "show_big"})
			enc.Encode("", &agui.ToolCallEnd{ToolCallID: "c1"})
		}
		enc.Encode("", &agui.RunFinished{ThreadID: in.ThreadID, RunID: in.RunID})
	})
	for _, tc := range []struct {
		mcpApps string
		card    bool
	}{{"", false}, {"mcpApps: {maxResourceBytes: 6291456}\n", true}} {
		ts := serveYAML(t, tc.mcpApps+`mcpServers: {big: {url: "`+mcpSrv.URL+`"}}
agents: {a: {type: agui, url: "`+up.URL+`", mcpServers: [big], a2ui: {disabled: true}}}`)
		_, fs := runAll(t, ts.URL, "a", runJSON("t", "r1", "show"), nil)
		card := false
		for _, f := range fs {
			if strings.Contains(f.data, `"activityType":"mcp-apps"`) && strings.Contains(f.data, uri) {
				card = true
			}
		}
		if card != tc.card || lastType(fs) != "RUN_FINISHED" {
			t.Errorf("config %q: card %v (want %v), last event %s", tc.mcpApps, card, tc.card, lastType(fs))
		}
	}
}
