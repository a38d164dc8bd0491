package adapter

import (
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/genui-adapter/genui-adapter/agui"
	"github.com/genui-adapter/genui-adapter/mcpapps"
)

const cpk = "/api/copilotkit"

// testSandboxKey is the test servers' sandboxKey, from which card
// capabilities are signed too.
const testSandboxKey = "test-sandbox-key"

// testCapability mints a card capability as a test server would.
func testCapability(server, resource, principal, thread string, tools ...string) string {
	return mcpapps.NewCapabilities([]byte(testSandboxKey), 0).Mint(mcpapps.Capability{Server: server, Resource: resource, Principal: principal, Thread: thread, Tools: tools})
}

func cpkServer(t *testing.T, up string) string {
	cfg := Config{Listen: "x", SandboxKey: testSandboxKey, CORS: CORS{Origins: []string{"http://localhost:5173"}, Credentials: true}, Agents: map[string]AgentConfig{
		"default": {Backend: &DemoConfig{}, Description: "Demo"},
		"slow":    {Backend: aguiAt(up), Description: "Slow", A2UI: A2UIConfig{Disabled: true}},
	}}
	return newTestServer(t, cfg).URL
}

func jsonBody(t *testing.T, resp *http.Response) map[string]any {
	t.Helper()
	defer resp.Body.Close()
	var m map[string]any
	b, _ := io.ReadAll(resp.Body)
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatalf("body %q: %v", b, err)
	}
	return m
}

func TestCopilotKitInfo(t *testing.T) {
	up := newCountingUpstream(t, 10, time.Millisecond)
	base := cpkServer(t, up.URL) + cpk
	resp := doReq(t, "GET", base+"/info", "", nil)
	info := jsonBody(t, resp)
	agents := info["agents"].(map[string]any)
	d := agents["default"].(map[string]any)
	if d["name"] != "default" || d["className"] != "GenUIAdapter" || d["description"] != "Demo" || agents["slow"] == nil {
		t.Errorf("agents = %v", agents)
	}
	a2 := info["a2ui"].(map[string]any)
	if a2["enabled"] != true || len(a2["agents"].([]any)) != 1 || a2["agents"].([]any)[0] != "default" {
		t.Errorf("a2ui = %v (only agents with A2UI on)", a2)
	}
	if _, ok := info["mode"]; ok {
		t.Error("info has mode")
	}
	if info["version"] == "" {
		t.Error("no version")
	}
	// Single route gives the same.
	resp = doReq(t, "POST", base, `{"method":"info"}`, nil)
	if jsonBody(t, resp)["agents"] == nil {
		t.Error("single-route info")
	}
}

func TestCopilotKitErrors(t *testing.T) {
	up := newCountingUpstream(t, 10, time.Millisecond)
	base := cpkServer(t, up.URL) + cpk
	for _, tt := range []struct {
		method, path, body string
		ctype              string
		status             int
		errText            string
	}{
		{"POST", "/agent/nope/run", runBody, "application/json", 404, "Agent not found"},
		{"POST", "/agent/default/run", `{"threadId":"t"}`, "application/json", 400, "Invalid request body"},
		{"POST", "/agent/default/run", `{"threadId":`, "application/json", 400, "Invalid request body"},
		{"POST", "/agent/nope/connect", `{"threadId":"t"}`, "application/json", 404, "Agent not found"},
		{"POST", "/agent/default/connect", `{}`, "application/json", 400, "Invalid request body"},
		{"POST", "/agent/nope/stop/t", `{}`, "application/json", 404, "Agent not found"},
		{"POST", "/agent/default/stop/t", `{"other":1}`, "application/json", 400, "Invalid stop request"},
		{"POST", "/agent/default/stop/t", `{"runId":5}`, "application/json", 400, "Invalid runId"},
		{"POST", "/agent/default/stop/t", `not json`, "application/json", 400, "Invalid stop request"},
		{"GET", "/threads/nope/messages", "", "", 404, "thread_not_found"},
		{"POST", "/agent/default/suggest", "{}", "application/json", 400, "Invalid request body"},
		{"GET", "", "", "", 405, "method_not_allowed"},
		{"POST", "", `{"method":"info"}`, "text/plain", 415, "invalid_request"},
		{"POST", "", `{"method":"transcribe"}`, "application/json", 400, "invalid_request"},
		{"POST", "", `{"method":"agent/run","params":{"agentId":"nope"},"body":{}}`, "application/json", 404, "Agent not found"},
		{"POST", "", `{"method":"agent/stop","params":{"agentId":"default","threadId":"t"},"body":{"x":1}}`, "application/json", 400, "Invalid stop request"},
	} {
		req, _ := http.NewRequest(tt.method, base+tt.path, strings.NewReader(tt.body))
		if tt.ctype != "" {
			req.Header.Set("Content-Type", tt.ctype)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		m := jsonBody(t, resp)
		if resp.StatusCode != tt.status || m["error"] != tt.errText {
			t.Errorf("%s %s %s = %d %v, want %d %q", tt.method, tt.path, tt.body, resp.StatusCode, m, tt.status, tt.errText)
		}
		if tt.status == 405 && resp.Header.Get("Allow") != "POST" {
			t.Errorf("405 without Allow: POST")
		}
	}
	// The details of a 400 name the problem.
	m := jsonBody(t, doReq(t, "POST", base+"/agent/default/run", `{"threadId":"t","runId":"r"}`, nil))
	if !strings.Contains(m["details"].(string), "messages") {
		t.Errorf("details = %v", m["details"])
	}
	// CORS preflight for the run route, credentialed.
	req, _ := http.NewRequest("OPTIONS", base+"/agent/default/run", nil)
	req.Header.Set("Origin", "http://localhost:5173")
	req.Header.Set("Access-Control-Request-Method", "POST")
	req.Header.Set("Access-Control-Request-Headers", "content-type,x-copilotkit-runtime-client-gql-version")
	resp, _ := http.DefaultClient.Do(req)
	resp.Body.Close()
	if resp.StatusCode != 204 || resp.Header.Get("Access-Control-Allow-Origin") != "http://localhost:5173" || resp.Header.Get("Access-Control-Allow-Credentials") != "true" || !strings.Contains(resp.Header.Get("Access-Control-Allow-Headers"), "x-copilotkit") {
		t.Errorf("preflight = %d %v", resp.StatusCode, resp.Header)
	}
}

func TestCopilotKitRunConnectStop(t *testing.T) {
	up := newCountingUpstream(t, 2000, 5*time.Millisecond)
	base := cpkServer(t, up.URL) + cpk

	// Connect on an unknown thread: an empty stream.
	resp := doReq(t, "POST", base+"/agent/default/connect", `{"threadId":"nothing","runId":"x","messages":[]}`, nil)
	if fr := readFrames(resp.Body, nil); resp.StatusCode != 200 || len(fr) != 0 {
		t.Errorf("connect on unknown thread = %d %v", resp.StatusCode, fr)
	}
	resp.Body.Close()

	// A run through the CopilotKit route, then its history comes back as
	// one synthetic run with the activity message.
	resp = doReq(t, "POST", base+"/agent/default/run", `{"threadId":"c1","runId":"r1","tools":[],"context":[],"messages":[{"id":"u","role":"user","content":"table"}]}`, nil)
	readFrames(resp.Body, nil)
	resp.Body.Close()
	resp = doReq(t, "POST", base+"/agent/default/connect", `{"threadId":"c1","runId":"r2","messages":[]}`, nil)
	fr := readFrames(resp.Body, nil)
	resp.Body.Close()
	if len(fr) != 3 || !strings.Contains(fr[0].data, "RUN_STARTED") || !strings.Contains(fr[2].data, "RUN_FINISHED") {
		t.Fatalf("connect replay = %v", fr)
	}
	var snap agui.MessagesSnapshot
	json.Unmarshal([]byte(fr[1].data), &snap)
	roles := ""
	for _, m := range snap.Messages {
		roles += string(m.Role) + ","
	}
	if roles != "user,assistant,tool,activity,assistant," || !strings.Contains(fr[1].data, `"activityType":"a2ui-surface"`) {
		t.Errorf("snapshot roles = %s", roles)
	}

	// Stop: the live /run stream ends with the contract's RUN_ERROR and the
	// upstream is aborted.
	live := doReq(t, "POST", base+"/agent/slow/run", `{"threadId":"s1","runId":"sr1","messages":[]}`, nil)
	got := make(chan []frame, 1)
	go func() { got <- readFrames(live.Body, nil); live.Body.Close() }()
	time.Sleep(100 * time.Millisecond)
	// A follower through /connect sees the live run.
	conn := doReq(t, "POST", base+"/agent/slow/connect", `{"threadId":"s1","runId":"x","messages":[]}`, nil)
	follow := make(chan []frame, 1)
	go func() { follow <- readFrames(conn.Body, nil); conn.Body.Close() }()
	time.Sleep(50 * time.Millisecond)
	m := jsonBody(t, doReq(t, "POST", base+"/agent/slow/stop/s1", `{"runId":"other"}`, nil))
	if m["stopped"] != false || !strings.Contains(m["message"].(string), "is not the active run") {
		t.Errorf("stop with another runId = %v", m)
	}
	m = jsonBody(t, doReq(t, "POST", base+"/agent/slow/stop/s1", `{"runId":"sr1"}`, nil))
	if m["stopped"] != true || m["interrupt"].(map[string]any)["code"] != "STOPPED" {
		t.Errorf("stop = %v", m)
	}
	for name, ch := range map[string]chan []frame{"run": got, "connect": follow} {
		fs := <-ch
		last := fs[len(fs)-1].data
		if !strings.Contains(last, `"message":"Run stopped by user"`) || !strings.Contains(last, `"code":"abort"`) {
			t.Errorf("%s stream ended with %s", name, last)
		}
	}
	time.Sleep(50 * time.Millisecond)
	if up.aborted.Load() != 1 {
		t.Error("upstream not aborted")
	}
	m = jsonBody(t, doReq(t, "POST", base+"/agent/slow/stop/s1", ``, nil))
	if m["stopped"] != false || m["message"] != "No active run for thread 's1'." {
		t.Errorf("second stop = %v", m)
	}
	// The single-route envelope drives the same run and stop.
	single := doReq(t, "POST", base, `{"method":"agent/run","params":{"agentId":"slow"},"body":{"threadId":"s2","runId":"sr2","messages":[]}}`, nil)
	go func() { got <- readFrames(single.Body, nil); single.Body.Close() }()
	time.Sleep(100 * time.Millisecond)
	m = jsonBody(t, doReq(t, "POST", base, `{"method":"agent/stop","params":{"agentId":"slow","threadId":"s2"},"body":{}}`, nil))
	if m["stopped"] != true {
		t.Errorf("single-route stop = %v", m)
	}
	if fs := <-got; !strings.Contains(fs[len(fs)-1].data, `"code":"abort"`) {
		t.Errorf("single-route run ended with %s", fs[len(fs)-1].data)
	}
	resp = doReq(t, "POST", base, `{"method":"agent/connect","params":{"agentId":"default"},"body":{"threadId":"c1","messages":[]}}`, nil)
	if fr := readFrames(resp.Body, nil); len(fr) != 3 {
		t.Errorf("single-route connect = %d frames", len(fr))
	}
	resp.Body.Close()
}

// TestProxiedRequestsDuringAChatRun: a card's proxied request arrives on
// the chat's thread while a run is active (CopilotKit does this); it is
// answered at once, without the thread lock or the history, but as a
// registered run (unique id, resumable).
func TestProxiedRequestsDuringAChatRun(t *testing.T) {
	up := newCountingUpstream(t, 2000, 5*time.Millisecond)
	base := cpkServer(t, up.URL) + cpk
	live := doReq(t, "POST", base+"/agent/slow/run", `{"threadId":"th","runId":"chat","messages":[]}`, nil)
	defer live.Body.Close()
	readFrames(live.Body, func(f frame) bool { return f.id == "2" })
	cp := testCapability("genui", "ui://genui/data-view", "", "th", "refresh")
	resp := doReq(t, "POST", base+"/agent/slow/run", `{"threadId":"th","runId":"card-1","messages":[],"forwardedProps":{"__proxiedMCPRequest":{"serverHash":"`+cp+`","serverId":"genui","method":"resources/read","params":{"uri":"ui://genui/data-view"}}}}`, nil)
	fr := readFrames(resp.Body, nil)
	resp.Body.Close()
	if resp.StatusCode != 200 || len(fr) != 2 || !strings.Contains(fr[1].data, `text/html;profile=mcp-app`) {
		t.Fatalf("proxied read during a chat run = %d %v", resp.StatusCode, fr)
	}
	// A registered run, not the thread's: its id is taken, the chat's run
	// still holds the thread, and the history does not show it.
	root := strings.TrimSuffix(base, cpk)
	if r := doReq(t, "GET", root+"/runs/card-1/events", "", nil); r.StatusCode != 200 {
		t.Errorf("resume of the proxied request = %d, want 200", r.StatusCode)
	} else {
		r.Body.Close()
	}
	again := doReq(t, "POST", base+"/agent/slow/run", `{"threadId":"th","runId":"card-1","messages":[],"forwardedProps":{"__proxiedMCPRequest":{"serverHash":"`+cp+`","method":"ping"}}}`, nil)
	again.Body.Close()
	if again.StatusCode != 409 {
		t.Errorf("the proxied request's run id reused = %d, want 409", again.StatusCode)
	}
	_, h, _ := getJSON(t, root+"/threads/th/messages", nil)
	if h["activeRunId"] != "chat" {
		t.Errorf("the thread's active run = %v, want chat", h["activeRunId"])
	}
}
