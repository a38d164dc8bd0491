package adapter

import (
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"
)

// suggestBody is what @copilotkit/core 1.74's suggestion engine sends:
// the consumer's messages, its instruction, the copilotkitSuggest tool
// and the forced tool choice.
func suggestBody(thread, run string) string {
	return `{"threadId":"` + thread + `","runId":"` + run + `","state":{},"messages":[{"id":"u1","role":"user","content":"hello"},{"id":"` + thread + `","role":"user","content":"Suggest what the user could say next."}],` +
		`"tools":[{"name":"copilotkitSuggest","description":"Suggest what the user could say next","parameters":{"type":"object","properties":{"suggestions":{"type":"array"}}}}],"context":[],` +
		`"forwardedProps":{"toolChoice":{"type":"function","function":{"name":"copilotkitSuggest"}}}}`
}

// hangingUpstream accepts a run and never answers (until the adapter
// leaves: net/http notices that once the body is read).
func hangingUpstream(t *testing.T) *httptest.Server {
	up := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, r.Body)
		<-r.Context().Done()
	}))
	t.Cleanup(up.Close)
	return up
}

func TestCopilotKitSuggest(t *testing.T) {
	flood := newCountingUpstream(t, 1_000_000, 0)
	hang := hangingUpstream(t)
	cfg := Config{Listen: "x", SandboxKey: testSandboxKey, CopilotKit: CopilotKitConfig{MaxSuggestBytes: 4 << 10}, Agents: map[string]AgentConfig{
		"default": {Backend: &DemoConfig{}, Description: "Demo"},
		"flood":   {Backend: aguiAt(flood.URL)},
	}}
	root := newTestServer(t, cfg).URL
	base := root + cpk

	if info := jsonBody(t, doReq(t, "GET", base+"/info", "", nil)); info["suggestions"] != true {
		t.Errorf("info.suggestions = %v", info["suggestions"])
	}

	// REST and the single-route envelope: the demo agent calls the forced
	// tool; the stream is a run's, without ids.
	for name, do := range map[string]func(thread, run string) *http.Response{
		"rest": func(thread, run string) *http.Response {
			return doReq(t, "POST", base+"/agent/default/suggest", suggestBody(thread, run), nil)
		},
		"single": func(thread, run string) *http.Response {
			return doReq(t, "POST", base, `{"method":"agent/suggest","params":{"agentId":"default"},"body":`+suggestBody(thread, run)+`}`, nil)
		},
	} {
		thread, run := "sg-"+name, "sr-"+name
		resp := do(thread, run)
		fr := readFrames(resp.Body, nil)
		resp.Body.Close()
		if resp.StatusCode != 200 || resp.Header.Get("Content-Type") != "text/event-stream" || len(fr) < 5 {
			t.Fatalf("%s: suggest = %d %v", name, resp.StatusCode, fr)
		}
		all := ""
		for _, f := range fr {
			if f.id != "" {
				t.Errorf("%s: a suggestion's event has id %q", name, f.id)
			}
			all += f.data + "\n"
		}
		if !strings.Contains(fr[0].data, "RUN_STARTED") || !strings.Contains(all, `"toolCallName":"copilotkitSuggest"`) || !strings.Contains(all, `Show a table`) || !strings.Contains(fr[len(fr)-1].data, "RUN_FINISHED") {
			t.Errorf("%s: suggest stream = %s", name, all)
		}
		// Nothing of it is stored: no run, no thread, its ids are free.
		if r := doReq(t, "GET", root+"/runs/"+run+"/events", "", nil); r.StatusCode != 404 {
			t.Errorf("%s: resume of the suggestion run = %d, want 404", name, r.StatusCode)
		} else {
			r.Body.Close()
		}
		if _, h, _ := getJSON(t, root+"/threads/"+thread+"/messages", nil); len(h["messages"].([]any)) != 0 || h["activeRunId"] != "" {
			t.Errorf("%s: the suggestion's thread = %v", name, h)
		}
		c := doReq(t, "POST", base+"/agent/default/connect", `{"threadId":"`+thread+`","runId":"x","messages":[]}`, nil)
		if got := readFrames(c.Body, nil); len(got) != 0 {
			t.Errorf("%s: connect to the suggestion's thread = %v", name, got)
		}
		c.Body.Close()
		r := doReq(t, "POST", base+"/agent/default/run", `{"threadId":"`+thread+`","runId":"`+run+`","messages":[]}`, nil)
		readFrames(r.Body, nil)
		r.Body.Close()
		if r.StatusCode != 200 {
			t.Errorf("%s: a run with the suggestion's ids = %d, want 200", name, r.StatusCode)
		}
	}

	// Refused before the stream, in the runtime's shapes.
	for _, tt := range []struct {
		path, body string
		status     int
		errText    string
	}{
		{"/agent/nope/suggest", suggestBody("t", "r"), 404, "Agent not found"},
		{"", `{"method":"agent/suggest","params":{"agentId":"nope"},"body":` + suggestBody("t", "r") + `}`, 404, "Agent not found"},
		{"/agent/default/suggest", `{"threadId":"t"}`, 400, "Invalid request body"},
		{"/agent/default/suggest", `{"threadId":`, 400, "Invalid request body"},
	} {
		resp := doReq(t, "POST", base+tt.path, tt.body, nil)
		if m := jsonBody(t, resp); resp.StatusCode != tt.status || m["error"] != tt.errText || m["message"] == "" {
			t.Errorf("POST %s %s = %d %v, want %d %q", tt.path, tt.body, resp.StatusCode, m, tt.status, tt.errText)
		}
	}

	// An agent that sends more than copilotkit.maxSuggestBytes: the
	// stream ends with RUN_ERROR and the upstream is stopped.
	resp := doReq(t, "POST", base+"/agent/flood/suggest", suggestBody("f", "f1"), nil)
	fr := readFrames(resp.Body, nil)
	resp.Body.Close()
	last := fr[len(fr)-1].data
	if !strings.Contains(last, `"type":"RUN_ERROR"`) || !strings.Contains(last, `"code":"suggest_too_large"`) || !strings.Contains(last, "copilotkit.maxSuggestBytes") {
		t.Errorf("the flooding suggestion ended with %s", last)
	}
	n := 0
	for _, f := range fr[:len(fr)-1] {
		n += len(f.data)
	}
	if n > 4<<10 {
		t.Errorf("%d bytes sent, cap %d", n, 4<<10)
	}
	for i := 0; i < 500 && flood.aborted.Load() == 0; i++ {
		time.Sleep(10 * time.Millisecond)
	}
	if flood.aborted.Load() != 1 {
		t.Error("the flooding upstream was not stopped")
	}

	// An agent that never answers: copilotkit.suggestTimeout ends it.
	cfg = Config{Listen: "x", SandboxKey: testSandboxKey, CopilotKit: CopilotKitConfig{SuggestTimeout: Duration(50 * time.Millisecond)}, Agents: map[string]AgentConfig{
		"hang": {Backend: aguiAt(hang.URL)},
	}}
	resp = doReq(t, "POST", newTestServer(t, cfg).URL+cpk+"/agent/hang/suggest", suggestBody("h", "h1"), nil)
	fr = readFrames(resp.Body, nil)
	resp.Body.Close()
	if last := fr[len(fr)-1].data; !strings.Contains(last, `"type":"RUN_ERROR"`) || !strings.Contains(last, `"code":"suggest_timeout"`) || !strings.Contains(last, "copilotkit.suggestTimeout") {
		t.Errorf("the hanging suggestion ended with %s", last)
	}
}

// TestCopilotKitSuggestAuth: suggest takes the run route's credentials.
func TestCopilotKitSuggestAuth(t *testing.T) {
	cfg := Config{Listen: "x", SandboxKey: testSandboxKey, Auth: AuthConfig{BearerTokens: map[string]string{"alice": "secret-bearer"}}, Agents: map[string]AgentConfig{
		"default": {Backend: &DemoConfig{}},
	}}
	base := newTestServer(t, cfg).URL + cpk
	for _, tt := range []struct {
		path, body string
		hdr        map[string]string
		status     int
	}{
		{"/agent/default/suggest", suggestBody("t", "r"), nil, 401},
		{"/agent/default/suggest", suggestBody("t", "r"), map[string]string{"Authorization": "Bearer wrong"}, 401},
		{"", `{"method":"agent/suggest","params":{"agentId":"default"},"body":` + suggestBody("t", "r") + `}`, nil, 401},
		// Who is calling is settled before the agent is looked up.
		{"/agent/nope/suggest", suggestBody("t", "r"), nil, 401},
		{"/agent/default/suggest", suggestBody("t", "r"), map[string]string{"Authorization": "Bearer secret-bearer"}, 200},
		{"", `{"method":"agent/suggest","params":{"agentId":"default"},"body":` + suggestBody("t", "r2") + `}`, map[string]string{"Authorization": "Bearer secret-bearer"}, 200},
	} {
		resp := doReq(t, "POST", base+tt.path, tt.body, tt.hdr)
		readFrames(resp.Body, nil)
		resp.Body.Close()
		if resp.StatusCode != tt.status {
			t.Errorf("POST %s %v = %d, want %d", tt.path, tt.hdr, resp.StatusCode, tt.status)
		}
	}
}
