package adapter

import (
	"io"
	"net/http"
	"strings"
	"testing"
)

func TestPlaygroundServing(t *testing.T) {
	cfg := DefaultConfig()
	cfg.PlaygroundVendor = t.TempDir() // empty: the bundle is missing
	ts := newTestServer(t, cfg)
	get := func(path string) (int, string) {
		resp, err := http.Get(ts.URL + path)
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		return resp.StatusCode, string(b)
	}
	if code, body := get("/"); code != 200 || !strings.Contains(body, "genui-adapter playground") || !strings.Contains(body, "make playground-vendor") {
		t.Errorf("GET / = %d", code)
	}
	for _, p := range []string{"/playground/app.js", "/playground/style.css", "/static/mcp-apps-host.js"} {
		if code, _ := get(p); code != 200 {
			t.Errorf("GET %s = %d", p, code)
		}
	}
	if code, body := get("/vendor/a2ui.js"); code != 404 || !strings.Contains(body, "make playground-vendor") {
		t.Errorf("missing bundle = %d %s, want 404 naming the command", code, body)
	}
	if code, _ := get("/playground/..%2f..%2fgo.mod"); code != 404 {
		t.Errorf("path traversal = %d", code)
	}
}

// TestRepairsMarkedInDebugRuns: with forwardedProps.genuiDebug the stream
// carries the normaliser's repairs as CUSTOM events (the playground marks
// them); without it, it does not.
func TestRepairsMarkedInDebugRuns(t *testing.T) {
	up := newUpstream(t, "data: {\"type\":\"RUN_STARTED\",\"threadId\":\"t\",\"runId\":\"r\"}\n\ndata: {\"type\":\"TEXT_MESSAGE_START\",\"messageId\":\"m\",\"name\":null}\n\ndata: {\"type\":\"WHATEVER\"}\n\ndata: {\"type\":\"RUN_FINISHED\",\"threadId\":\"t\",\"runId\":\"r\"}\n\n", false)
	ts := newTestServer(t, Config{Listen: "x", Agents: map[string]AgentConfig{"a": {Type: "agui", URL: up.URL}}})
	_, debug := post(t, ts.URL+"/agents/a/run", "application/json", `{"threadId":"t","runId":"r1","messages":[],"forwardedProps":{"genuiDebug":true}}`)
	if !strings.Contains(debug, `"name":"genui-adapter.repairs"`) || !strings.Contains(debug, `null_field`) || !strings.Contains(debug, `unknown_event`) {
		t.Errorf("debug run lacks repair events:\n%s", debug)
	}
	_, plain := post(t, ts.URL+"/agents/a/run", "application/json", `{"threadId":"t2","runId":"r2","messages":[]}`)
	if strings.Contains(plain, "genui-adapter.repairs") {
		t.Error("repair events in a normal run")
	}
}
