package adapter

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/genui-adapter/genui-adapter/agui"
	"github.com/genui-adapter/genui-adapter/mcpapps/mcpappstest"
)

// A2UI inside MCP tool results (the draft A2UI-over-MCP-Apps extension):
// a server told that the host renders application/a2ui+json returns A2UI;
// it becomes a validated surface whose ids name the server; the surface's
// button calls the server's app-only tool, whose update is appended to the
// surface, without the agent; another principal, or a tool the server
// does not let apps call, is refused.
func TestA2UIFromMCPServer(t *testing.T) {
	fx := mcpappstest.New()
	mcpSrv := httptest.NewServer(mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return fx.Server }, nil))
	t.Cleanup(mcpSrv.Close)
	var agentRuns atomic.Int32
	up := scripted(t, func(enc *agui.Encoder, flush func(), in *agui.RunAgentInput, r *http.Request) {
		agentRuns.Add(1)
		enc.Encode("", &agui.RunStarted{ThreadID: in.ThreadID, RunID: in.RunID})
		if in.Messages[len(in.Messages)-1].Role != agui.RoleTool {
			enc.Encode("", &agui.ToolCallStart{ToolCallID: "c1", ToolCallName: "counter"})
			enc.Encode("", &agui.ToolCallEnd{ToolCallID: "c1"})
		}
		enc.Encode("", &agui.RunFinished{ThreadID: in.ThreadID, RunID: in.RunID})
	})
	for _, declared := range []bool{true, false} {
		flag := "false"
		if declared {
			flag = "true"
		}
		ts := serveYAML(t, twoPrincipals+`mcpServers: {fx: {url: "`+mcpSrv.URL+`", a2ui: `+flag+`}}
agents: {a: {type: agui, url: "`+up.URL+`", mcpServers: [fx]}}`)
		_, fs := runAll(t, ts.URL, "a", runJSON("t", "r-"+flag, "count"), alice)
		var surface string
		var content struct {
			Ops    []map[string]map[string]any `json:"a2ui_operations"`
			Status string                      `json:"status"`
		}
		for _, f := range fs {
			var ev struct {
				Type, ActivityType string
				Content            json.RawMessage
			}
			json.Unmarshal([]byte(f.data), &ev)
			if ev.Type == "ACTIVITY_SNAPSHOT" && ev.ActivityType == "a2ui-surface" {
				json.Unmarshal(ev.Content, &content)
				surface = string(ev.Content)
			}
		}
		if !declared {
			if surface != "" {
				t.Errorf("an undeclared host got a surface %s", surface)
			}
			continue
		}
		if len(content.Ops) != 3 || content.Status != "" {
			t.Fatalf("surface %s", surface)
		}
		sid, _ := content.Ops[0]["createSurface"]["surfaceId"].(string)
		if !strings.HasPrefix(sid, "mcp~fx~c1~counter~") {
			t.Fatalf("surface id %q does not name the server", sid)
		}
		n := 0
		action := func(name, surfaceID string) string {
			n++
			b, _ := json.Marshal(map[string]any{"threadId": "t", "runId": "act-" + strings.Repeat("i", n), "messages": []any{},
				"forwardedProps": map[string]any{"a2uiAction": map[string]any{"userAction": map[string]any{"name": name, "surfaceId": surfaceID, "sourceComponentId": "inc", "context": map[string]any{"step": 1}}}}})
			return string(b)
		}
		before := agentRuns.Load()
		_, fs = runAll(t, ts.URL, "a", action("increment", sid), alice)
		var delta string
		for _, f := range fs {
			if strings.Contains(f.data, `"ACTIVITY_DELTA"`) {
				delta = f.data
			}
		}
		if lastType(fs) != "RUN_FINISHED" || !strings.Contains(delta, `"path":"/a2ui_operations/-"`) || !strings.Contains(delta, `"value":1}`) || !strings.Contains(delta, `"messageId":"a2ui-surface-c1"`) {
			t.Errorf("increment: %s, delta %s", lastType(fs), delta)
		}
		if agentRuns.Load() != before {
			t.Error("the agent was run for a surface action its server answers")
		}
		if _, fs = runAll(t, ts.URL, "a", action("increment", sid), bob); lastType(fs) != "RUN_ERROR:surface_action_refused" {
			t.Errorf("bob's action on alice's surface: %s", lastType(fs))
		}
		if _, fs = runAll(t, ts.URL, "a", action("secret", sid), alice); lastType(fs) != "RUN_ERROR:surface_action_refused" {
			t.Errorf("a model-only tool as an action: %s", lastType(fs))
		}
		forged := strings.Replace(sid, "~c1~", "~c2~", 1)
		if _, fs = runAll(t, ts.URL, "a", action("increment", forged), alice); lastType(fs) != "RUN_ERROR:surface_action_refused" {
			t.Errorf("a forged surface id: %s", lastType(fs))
		}
	}
}
