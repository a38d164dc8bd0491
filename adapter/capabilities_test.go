package adapter

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"
)

func TestAgentCapabilities(t *testing.T) {
	cfg := Config{Listen: "x", SandboxKey: testSandboxKey, Agents: map[string]AgentConfig{
		"default": {Backend: &DemoConfig{}, Description: "Demo", MCPServers: []string{"refunds"}},
		"plain":   {Backend: aguiAt("http://127.0.0.1:1"), A2UI: A2UIConfig{Disabled: true}},
		"lg":      {Backend: &LangGraphConfig{UpstreamConfig: UpstreamConfig{URL: "http://127.0.0.1:1"}, Graph: "g"}},
	}}
	ts := newTestServer(t, cfg)
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	if err := ts.s.pool.WaitReady(ctx); err != nil {
		t.Fatal(err)
	}
	get := func(id string) map[string]any {
		status, m, body := getJSON(t, ts.URL+"/agents/"+id+"/capabilities", nil)
		if status != 200 {
			t.Fatalf("capabilities of %s = %d %s", id, status, body)
		}
		return m
	}
	d := get("default")
	id := d["identity"].(map[string]any)
	if id["name"] != "default" || id["type"] != "demo" || id["description"] != "Demo" {
		t.Errorf("identity = %v", id)
	}
	if tr := d["transport"].(map[string]any); tr["streaming"] != true || tr["resumable"] != true {
		t.Errorf("transport = %v", tr)
	}
	var names []string
	for _, it := range d["tools"].(map[string]any)["items"].([]any) {
		names = append(names, it.(map[string]any)["name"].(string))
	}
	if !slices.Contains(names, "review_refund") {
		t.Errorf("the refunds server's tools are not offered: %v", names)
	}
	custom := d["custom"].(map[string]any)["genui-adapter"].(map[string]any)
	if custom["a2ui"] != true || custom["mcpApps"] != true || !reflect.DeepEqual(custom["mcpAppServers"], []any{"refunds"}) {
		t.Errorf("custom = %v", custom)
	}
	if mimes := d["output"].(map[string]any)["supportedMimeTypes"].([]any); !slices.Contains(mimes, any("application/a2ui+json")) || !slices.Contains(mimes, any("text/html;profile=mcp-app")) {
		t.Errorf("output = %v", mimes)
	}

	p := get("plain")
	if c := p["custom"].(map[string]any)["genui-adapter"].(map[string]any); c["a2ui"] != false || c["mcpApps"] != false || p["output"] != nil {
		t.Errorf("an agent without A2UI or MCP Apps = %v", p)
	}
	if h, _ := get("lg")["humanInTheLoop"].(map[string]any); h["interrupts"] != true {
		t.Errorf("langgraph humanInTheLoop = %v", h)
	}

	// CopilotKit's /info carries the same, per agent.
	_, info, _ := getJSON(t, ts.URL+cpk+"/info", nil)
	for _, a := range []string{"default", "plain", "lg"} {
		got, _ := json.Marshal(info["agents"].(map[string]any)[a].(map[string]any)["capabilities"])
		want, _ := json.Marshal(get(a))
		if string(got) != string(want) {
			t.Errorf("/info capabilities of %s = %s, want %s", a, got, want)
		}
	}
	if status, m, _ := getJSON(t, ts.URL+"/agents/nope/capabilities", nil); status != 404 || m["error"] != "agent_not_found" {
		t.Errorf("unknown agent = %d %v", status, m)
	}
}

// A LangGraph agent's capabilities carry the output keys its assistant's
// schema declares, once a run has read them; none before (nothing here
// asks the server).
func TestAgentCapabilitiesLangGraphOutputKeys(t *testing.T) {
	lg := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch {
		case strings.HasSuffix(r.URL.Path, "/schemas"):
			io.WriteString(w, `{"output_schema":{"properties":{"messages":{},"plan":{}}}}`)
		case r.Method == http.MethodPost && r.URL.Path == "/threads":
			io.WriteString(w, `{"thread_id":"t1"}`)
		case strings.HasSuffix(r.URL.Path, "/runs/stream"):
			w.Header().Set("Content-Type", "text/event-stream")
			io.WriteString(w, "event: metadata\ndata: {\"run_id\":\"r1\"}\nid: 0\n\nevent: values\ndata: {\"messages\":[]}\nid: 1\n\nevent: end\ndata: null\n\n")
		default:
			http.NotFound(w, r)
		}
	}))
	defer lg.Close()
	cfg := Config{Listen: "x", SandboxKey: testSandboxKey, Agents: map[string]AgentConfig{
		"lg": {Backend: &LangGraphConfig{UpstreamConfig: UpstreamConfig{URL: lg.URL}, Graph: "g"}},
	}}
	ts := newTestServer(t, cfg)
	keys := func() any {
		_, m, _ := getJSON(t, ts.URL+"/agents/lg/capabilities", nil)
		return m["custom"].(map[string]any)["genui-adapter"].(map[string]any)["langgraphOutputKeys"]
	}
	if k := keys(); k != nil {
		t.Fatalf("output keys before a run: %v", k)
	}
	resp, body := post(t, ts.URL+"/agents/lg/run", "application/json", `{"threadId":"t1","runId":"r1","messages":[{"id":"u1","role":"user","content":"hi"}]}`)
	if resp.StatusCode != 200 || !strings.Contains(body, "RUN_FINISHED") {
		t.Fatalf("run: %d %s", resp.StatusCode, body)
	}
	if k := keys(); !reflect.DeepEqual(k, []any{"messages", "plan"}) {
		t.Errorf("output keys after a run = %v", k)
	}
}
