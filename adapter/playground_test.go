package adapter

import (
	"io"
	"net/http"
	"strings"
	"testing"
)

func TestPlaygroundServing(t *testing.T) {
	ts := newTestServer(t, DefaultConfig())
	get := func(path string) (int, string) {
		resp, err := http.Get(ts.URL + path)
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		return resp.StatusCode, string(b)
	}
	if code, body := get("/"); code != 200 || !strings.Contains(body, "genui-adapter playground") {
		t.Errorf("GET / = %d", code)
	}
	for _, p := range []string{"/playground/app.js", "/playground/style.css", "/static/mcp-apps-host.js"} {
		if code, _ := get(p); code != 200 {
			t.Errorf("GET %s = %d", p, code)
		}
	}
	// The renderer bundle and its font are in the binary: no Node, no
	// network at run time.
	if code, body := get("/vendor/a2ui.js"); code != 200 || !strings.Contains(body, "A2uiSurface") || len(body) < 100000 {
		t.Errorf("GET /vendor/a2ui.js = %d (%d bytes)", code, len(body))
	}
	if code, body := get("/vendor/material-icons.woff2"); code != 200 || !strings.HasPrefix(body, "wOF2") {
		t.Errorf("GET /vendor/material-icons.woff2 = %d", code)
	}
	if code, _ := get("/vendor/nope.js"); code != 404 {
		t.Errorf("unknown vendor file = %d", code)
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
	ts := newTestServer(t, Config{Listen: "x", Agents: map[string]AgentConfig{"a": {Backend: aguiAt(up.URL)}}})
	_, debug := post(t, ts.URL+"/agents/a/run", "application/json", `{"threadId":"t","runId":"r1","messages":[],"forwardedProps":{"genuiDebug":true}}`)
	if !strings.Contains(debug, `"name":"genui-adapter.repairs"`) || !strings.Contains(debug, `null_field`) || !strings.Contains(debug, `unknown_event`) {
		t.Errorf("debug run lacks repair events:\n%s", debug)
	}
	_, plain := post(t, ts.URL+"/agents/a/run", "application/json", `{"threadId":"t2","runId":"r2","messages":[]}`)
	if strings.Contains(plain, "genui-adapter.repairs") {
		t.Error("repair events in a normal run")
	}
}
