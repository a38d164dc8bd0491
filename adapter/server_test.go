package adapter

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"go.uber.org/goleak"

	"github.com/genui-adapter/genui-adapter/agui"
)

const runBody = `{"threadId":"t","runId":"r","messages":[{"id":"u","role":"user","content":"hi"}]}`

// upstream is a scripted AG-UI agent server for tests.
type upstream struct {
	*httptest.Server
	mu        sync.Mutex
	headers   http.Header
	body      []byte
	cancelled chan time.Time // receives when a request's context ends early
}

// newUpstream serves frames, then blocks until the client goes away if
// hang is true.
func newUpstream(t *testing.T, frames string, hang bool) *upstream {
	u := &upstream{cancelled: make(chan time.Time, 1024)}
	u.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		u.mu.Lock()
		u.headers, u.body = r.Header.Clone(), b
		u.mu.Unlock()
		w.Header().Set("Content-Type", "text/event-stream")
		io.WriteString(w, frames)
		w.(http.Flusher).Flush()
		if hang {
			<-r.Context().Done()
			u.cancelled <- time.Now()
		}
	}))
	t.Cleanup(u.Close)
	return u
}

// newTestServer serves cfg; unless the test sets one, runs stop as soon as
// their client leaves (detachGrace 0), so hanging upstreams end with the
// test. Cleanup drains the server.
func newTestServer(t *testing.T, cfg Config) *adoptedServer {
	t.Helper()
	return newTestServerWith(t, cfg, nil)
}

// newTestServerWith is newTestServer with hs set up by configure (nil:
// nothing) before it serves.
func newTestServerWith(t *testing.T, cfg Config, configure func(hs *http.Server)) *adoptedServer {
	t.Helper()
	return newTestServerLogging(t, cfg, nil, configure)
}

// newLoggedTestServer is newTestServer with its log kept: logs returns the
// JSON lines written so far.
func newLoggedTestServer(t *testing.T, cfg Config) (ts *adoptedServer, logs func() string) {
	t.Helper()
	logger, logs := keptLog()
	return newTestServerLogging(t, cfg, logger, nil), logs
}

func newTestServerLogging(t *testing.T, cfg Config, logger *slog.Logger, configure func(hs *http.Server)) *adoptedServer {
	t.Helper()
	if cfg.DetachGrace == nil {
		zero := Duration(0)
		cfg.DetachGrace = &zero
	}
	s, err := NewServer(logger, cfg)
	if err != nil {
		t.Fatal(err)
	}
	ts := serveAdoptedWith(s, configure)
	t.Cleanup(func() {
		ts.CloseClientConnections()
		s.Drain(200 * time.Millisecond)
		ts.Close()
		s.Close()
	})
	return ts
}

// adoptedServer is a test server that s adopted.
type adoptedServer struct {
	*httptest.Server
	s *Server
}

// serveAdopted serves s as cmd/genui-adapter does: HTTP/1.1 run streams
// are taken over, and their connections served again after them.
func serveAdopted(s *Server) *adoptedServer { return serveAdoptedWith(s, nil) }

func serveAdoptedWith(s *Server, configure func(hs *http.Server)) *adoptedServer {
	ts := httptest.NewUnstartedServer(s)
	if configure != nil {
		configure(ts.Config)
	}
	s.Adopt(ts.Config)
	ts.Start()
	return &adoptedServer{Server: ts, s: s}
}

// Close stops giving connections back first: httptest's Close waits for
// the connections it knows and must not learn of one while it waits.
func (a *adoptedServer) Close() {
	a.s.conns.Close()
	a.Server.Close()
}

func post(t *testing.T, url, ctype, body string) (*http.Response, string) {
	t.Helper()
	req, _ := http.NewRequest(http.MethodPost, url, strings.NewReader(body))
	if ctype != "" {
		req.Header.Set("Content-Type", ctype)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp, string(b)
}

func decodeEvents(t *testing.T, body string) []agui.Event {
	t.Helper()
	var out []agui.Event
	for ev, err := range agui.Decode(strings.NewReader(body), 0) {
		if err != nil {
			t.Fatalf("response does not decode: %v\n%s", err, body)
		}
		out = append(out, ev)
	}
	return out
}

func TestRunErrorsBeforeStream(t *testing.T) {
	cfg := DefaultConfig()
	cfg.MaxBodyBytes = 1024
	ts := newTestServer(t, cfg)
	for _, tt := range []struct {
		name, path, ctype, body string
		status                  int
		code, msgPart           string
	}{
		{"unknown agent", "/agents/nope/run", "application/json", runBody, 404, "agent_not_found", `"nope"`},
		{"not json", "/agents/demo/run", "text/plain", runBody, 415, "unsupported_media_type", "application/json"},
		{"no content type", "/agents/demo/run", "", runBody, 415, "unsupported_media_type", "application/json"},
		{"malformed", "/agents/demo/run", "application/json", `{"threadId":`, 400, "invalid_run_input", "malformed JSON"},
		{"missing runId", "/agents/demo/run", "application/json", `{"threadId":"t","messages":[]}`, 400, "invalid_run_input", "runId"},
		{"missing messages", "/agents/demo/run", "application/json; charset=utf-8", `{"threadId":"t","runId":"r"}`, 400, "invalid_run_input", "messages"},
		{"too large", "/agents/demo/run", "application/json", `{"threadId":"t","runId":"r","messages":[],"x":"` + strings.Repeat("x", 2000) + `"}`, 413, "body_too_large", "1024"},
		{"unknown route", "/nope", "application/json", "{}", 404, "not_found", "/nope"},
		{"bad a2ui capabilities", "/agents/demo/run", "application/json", `{"threadId":"t","runId":"r","messages":[],"forwardedProps":{"a2uiClientCapabilities":{"v0.8":"all"}}}`, 400, "invalid_a2ui_capabilities", `a2uiClientCapabilities["v0.8"] is not an object`},
	} {
		t.Run(tt.name, func(t *testing.T) {
			resp, body := post(t, ts.URL+tt.path, tt.ctype, tt.body)
			if resp.StatusCode != tt.status {
				t.Fatalf("status = %d, want %d; body %s", resp.StatusCode, tt.status, body)
			}
			if ct := resp.Header.Get("Content-Type"); !strings.HasPrefix(ct, "application/json") {
				t.Errorf("Content-Type = %q, want JSON", ct)
			}
			var eb errorBody
			if err := json.Unmarshal([]byte(body), &eb); err != nil {
				t.Fatalf("body %q: %v", body, err)
			}
			if eb.Error != tt.code || !strings.Contains(eb.Message, tt.msgPart) {
				t.Errorf("body = %+v, want error %q and a message mentioning %q", eb, tt.code, tt.msgPart)
			}
		})
	}
}

func TestDemoRun(t *testing.T) {
	cfg := DefaultConfig()
	cfg.Agents["demo"] = AgentConfig{Backend: &DemoConfig{}}
	ts := newTestServer(t, cfg)
	resp, body := post(t, ts.URL+"/agents/demo/run", "application/json", runBody)
	if resp.StatusCode != 200 {
		t.Fatalf("status %d: %s", resp.StatusCode, body)
	}
	for k, want := range map[string]string{"Content-Type": "text/event-stream", "Cache-Control": "no-cache, no-transform", "X-Accel-Buffering": "no"} {
		if got := resp.Header.Get(k); got != want {
			t.Errorf("%s = %q, want %q", k, got, want)
		}
	}
	if resp.Header.Get("Content-Encoding") != "" {
		t.Error("SSE response is compressed")
	}
	if !strings.HasPrefix(body, "retry: 3000\n\n: ok\n\nid: 1\ndata: ") {
		t.Errorf("stream does not start with retry, a comment and numbered events: %.60q", body)
	}
	evs := decodeEvents(t, body)
	var types []string
	var result *agui.ToolCallResult
	for _, ev := range evs {
		types = append(types, string(ev.Type()))
		if r, ok := ev.(*agui.ToolCallResult); ok {
			result = r
		}
	}
	joined := strings.Join(types, ",")
	for _, want := range []string{"RUN_STARTED,TEXT_MESSAGE_START", "TOOL_CALL_START,TOOL_CALL_ARGS,TOOL_CALL_END,TOOL_CALL_RESULT,ACTIVITY_SNAPSHOT,STATE_SNAPSHOT", "TEXT_MESSAGE_END,RUN_FINISHED"} {
		if !strings.Contains(joined, want) {
			t.Errorf("events %s lack %s", joined, want)
		}
	}
	var rows []map[string]any
	if result == nil || json.Unmarshal([]byte(result.Content), &rows) != nil || len(rows) != 3 {
		t.Errorf("tool result is not the structured shipments: %+v", result)
	}
	// Deterministic: the same input gives the same stream.
	_, body2 := post(t, ts.URL+"/agents/demo/run", "application/json", strings.ReplaceAll(runBody, `"r"`, `"r2"`))
	if strings.ReplaceAll(body2, `r2`, `r`) != body {
		t.Error("demo agent is not deterministic")
	}
}

func TestRelayRepairsAndForwardsHeaders(t *testing.T) {
	up := newUpstream(t, "data: {\"type\":\"RUN_STARTED\",\"threadId\":\"x\",\"runId\":\"y\"}\r\n\r\n"+
		"data: {\"type\":\"TEXT_MESSAGE_CHUNK\",\"messageId\":\"m\",\"delta\":\"hi\",\"name\":null}\r\n\r\n"+
		"data: {\"type\":\"WHATEVER\"}\r\n\r\n", false)
	cfg := Config{Listen: "x", Agents: map[string]AgentConfig{"up": {Backend: &AGUIConfig{UpstreamConfig: UpstreamConfig{URL: up.URL, Headers: map[string]string{"Authorization": "Bearer static"}, ForwardHeaders: []string{"X-Request-Id"}}}}}}
	ts := newTestServer(t, cfg)
	req, _ := http.NewRequest(http.MethodPost, ts.URL+"/agents/up/run", strings.NewReader(runBody))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("X-Request-Id", "req-1")
	req.Header.Set("X-Secret", "no")
	req.Header.Set("Authorization", "Bearer client")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	want := "retry: 3000\n\n: ok\n\n" +
		"id: 1\ndata: {\"type\":\"RUN_STARTED\",\"threadId\":\"t\",\"runId\":\"r\"}\n\n" +
		"id: 2\ndata: {\"type\":\"TEXT_MESSAGE_START\",\"messageId\":\"m\"}\n\n" +
		"id: 3\ndata: {\"type\":\"TEXT_MESSAGE_CONTENT\",\"messageId\":\"m\",\"delta\":\"hi\"}\n\n" +
		"id: 4\ndata: {\"type\":\"RUN_ERROR\",\"message\":\"upstream agent ended the stream without RUN_FINISHED or RUN_ERROR\",\"code\":\"upstream_truncated\"}\n\n"
	if string(b) != want {
		t.Errorf("stream =\n%s\nwant\n%s", b, want)
	}
	up.mu.Lock()
	defer up.mu.Unlock()
	h := up.headers
	if h.Get("Accept") != "text/event-stream" || h.Get("Authorization") != "Bearer static" || h.Get("X-Request-Id") != "req-1" || h.Get("X-Secret") != "" {
		t.Errorf("upstream headers = %v", h)
	}
	var in map[string]any
	if err := json.Unmarshal(up.body, &in); err != nil || in["threadId"] != "t" || in["tools"] == nil {
		t.Errorf("upstream body = %s", up.body)
	}
	// The metrics saw the run and the repairs.
	mresp, err := http.Get(ts.URL + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	mb, _ := io.ReadAll(mresp.Body)
	mresp.Body.Close()
	for _, line := range []string{
		`genui_runs_started_total{agent="up"} 1`,
		`genui_runs_errored_total{agent="up",code="upstream_truncated"} 1`,
		`genui_repairs_total{kind="unknown_event"} 1`,
		`genui_repairs_total{kind="null_field"} 1`,
		`genui_repairs_total{kind="run_ids_rewritten"} 1`,
		`genui_events_relayed_total{agent="up"} 4`,
		`genui_upstream_latency_seconds_count{agent="up"} 1`,
		`genui_run_start_seconds_count{agent="up"} 1`,
	} {
		if !strings.Contains(string(mb), line) {
			t.Errorf("metrics lack %q", line)
		}
	}
}

func TestUpstreamFailures(t *testing.T) {
	status := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Error(w, `{"detail":"model overloaded"}`, http.StatusBadGateway)
	}))
	defer status.Close()
	html := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		io.WriteString(w, "<html>")
	}))
	defer html.Close()
	dead := httptest.NewServer(http.NotFoundHandler())
	deadURL := dead.URL
	dead.Close()
	// causePart is what the log says and the client is not told.
	for _, tt := range []struct{ name, url, code, msgPart, causePart string }{
		{"status", status.URL, agui.CodeUpstreamStatus, "HTTP 502", "HTTP 502"},
		{"not sse", html.URL, agui.CodeUpstreamInvalid, "text/html", "text/html"},
		{"unreachable", deadURL, agui.CodeUpstreamUnreachable, "cannot reach", "connection refused"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			ts, logs := newLoggedTestServer(t, Config{Listen: "x", Agents: map[string]AgentConfig{"a": {Backend: aguiAt(tt.url)}}})
			resp, body := post(t, ts.URL+"/agents/a/run", "application/json", runBody)
			if resp.StatusCode != 200 {
				t.Fatalf("status %d", resp.StatusCode)
			}
			evs := decodeEvents(t, body)
			if len(evs) != 2 || evs[0].Type() != agui.TypeRunStarted {
				t.Fatalf("events = %v", evs)
			}
			re, ok := evs[1].(*agui.RunError)
			if !ok || re.Code != tt.code || !strings.Contains(re.Message, tt.msgPart) {
				t.Errorf("terminal = %+v, want code %s mentioning %q", evs[1], tt.code, tt.msgPart)
			}
			// The operator learns why, with the run's id.
			var logged bool
			for _, l := range strings.Split(logs(), "\n") {
				if strings.Contains(l, `"level":"WARN"`) && strings.Contains(l, `"msg":"agent failed"`) &&
					strings.Contains(l, `"runId":"r"`) && strings.Contains(l, tt.causePart) {
					logged = true
				}
			}
			if !logged {
				t.Errorf("no WARN log naming the cause %q:\n%s", tt.causePart, logs())
			}
		})
	}
}

func TestHeartbeat(t *testing.T) {
	up := newUpstream(t, "data: {\"type\":\"RUN_STARTED\",\"threadId\":\"t\",\"runId\":\"r\"}\n\n", true)
	cfg := Config{Listen: "x", Heartbeat: Duration(30 * time.Millisecond), Agents: map[string]AgentConfig{"a": {Backend: aguiAt(up.URL)}}}
	ts := newTestServer(t, cfg)
	resp := doReq(t, http.MethodPost, ts.URL+"/agents/a/run", runBody, nil)
	defer resp.Body.Close()
	br := bufio.NewReader(resp.Body)
	deadline := time.After(5 * time.Second)
	lines := make(chan string)
	go func() {
		for {
			l, err := br.ReadString('\n')
			if err != nil {
				close(lines)
				return
			}
			lines <- l
		}
	}()
	for {
		select {
		case l := <-lines:
			if l == ": keep-alive\n" {
				return
			}
		case <-deadline:
			t.Fatal("no heartbeat comment during a silent upstream")
		}
	}
}

// TestDisconnectCancelsUpstream checks that a client going away aborts the
// upstream request at once (within 2 s always, within 100 ms in all but 1%
// of the cycles: a cancellation that waited for a timer or a heartbeat
// would be slow in every cycle, a loaded machine's scheduling only in a
// few), and that 1000 connect/cancel cycles leak no goroutine.
func TestDisconnectCancelsUpstream(t *testing.T) {
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	up := newUpstream(t, "data: {\"type\":\"RUN_STARTED\",\"threadId\":\"t\",\"runId\":\"r\"}\n\ndata: {\"type\":\"TEXT_MESSAGE_START\",\"messageId\":\"m\"}\n\n", true)
	// detachGrace 0: a run nobody reads stops at once.
	zero := Duration(0)
	// A thousand runs in a row: no run-start limit.
	cfg := Config{Listen: "x", DetachGrace: &zero, Limits: LimitsConfig{RunStartsPerSecond: -1}, Agents: map[string]AgentConfig{"a": {Backend: aguiAt(up.URL)}}}
	s, err := NewServer(nil, cfg)
	if err != nil {
		t.Fatal(err)
	}
	ts := serveAdopted(s)
	client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 100}}
	cycles := 1000
	if testing.Short() {
		cycles = 100
	}
	var worst time.Duration
	var slow atomic.Int32
	for i := range cycles {
		ctx, cancel := context.WithCancel(context.Background())
		body := fmt.Sprintf(`{"threadId":"t%d","runId":"r%d","messages":[]}`, i, i)
		req, _ := http.NewRequestWithContext(ctx, http.MethodPost, ts.URL+"/agents/a/run", strings.NewReader(body))
		req.Header.Set("Content-Type", "application/json")
		resp, err := client.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		// Read until the upstream's first event arrived, so the upstream
		// is connected (RUN_STARTED comes before it is asked).
		readUntilConnected(t, resp.Body)
		start := time.Now()
		cancel()
		resp.Body.Close()
		select {
		case at := <-up.cancelled:
			if d := at.Sub(start); d > worst {
				worst = d
			}
			if at.Sub(start) > 100*time.Millisecond {
				slow.Add(1)
			}
		case <-time.After(2 * time.Second):
			t.Fatalf("cycle %d: upstream request not cancelled", i)
		}
	}
	t.Logf("worst cancel latency over %d cycles: %v", cycles, worst)
	s.Drain(time.Second)
	s.Close()
	if int(slow.Load()) > cycles/100 {
		t.Errorf("%d of %d cancellations took more than 100ms (worst %v)", slow.Load(), cycles, worst)
	}
	ts.Close()
	up.Close()
	client.CloseIdleConnections()
	http.DefaultClient.CloseIdleConnections()
}

// TestRunStartsBeforeUpstream checks that RUN_STARTED reaches the client
// while the upstream has not answered yet (on a taken-over stream and on
// net/http's), and that the run's start is recorded.
func TestRunStartsBeforeUpstream(t *testing.T) {
	for _, takeover := range []bool{true, false} {
		t.Run(fmt.Sprintf("takeover=%v", takeover), func(t *testing.T) {
			release := make(chan struct{})
			asked := make(chan struct{}, 1)
			up := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				asked <- struct{}{}
				<-release // no response headers until the client has RUN_STARTED
				w.Header().Set("Content-Type", "text/event-stream")
				io.WriteString(w, "data: {\"type\":\"RUN_STARTED\",\"threadId\":\"t\",\"runId\":\"r\"}\n\ndata: {\"type\":\"RUN_FINISHED\",\"threadId\":\"t\",\"runId\":\"r\"}\n\n")
			}))
			defer up.Close()
			cfg := Config{Listen: "x", StreamTakeover: &takeover, Agents: map[string]AgentConfig{"a": {Backend: aguiAt(up.URL)}}}
			ts := newTestServer(t, cfg)
			// Without RUN_STARTED the upstream answers after 5 s anyway.
			var late atomic.Bool
			answer := sync.OnceFunc(func() { close(release) })
			timer := time.AfterFunc(5*time.Second, func() { late.Store(true); answer() })
			defer timer.Stop()
			resp := doReq(t, http.MethodPost, ts.URL+"/agents/a/run", runBody, nil)
			defer resp.Body.Close()
			br := bufio.NewReader(resp.Body)
			var events []string
			for len(events) < 1 {
				l, err := br.ReadString('\n')
				if err != nil {
					answer()
					t.Fatalf("before the upstream answered: %v", err)
				}
				if d, ok := strings.CutPrefix(l, "data: "); ok {
					events = append(events, strings.TrimSpace(d))
				}
			}
			if late.Load() {
				t.Error("RUN_STARTED came only after the upstream answered")
			}
			<-asked
			answer()
			if events[0] != `{"type":"RUN_STARTED","threadId":"t","runId":"r"}` {
				t.Errorf("first event = %s, want RUN_STARTED with the request's ids", events[0])
			}
			rest, _ := io.ReadAll(br)
			if n := strings.Count(string(rest), "RUN_STARTED"); n != 0 || !strings.Contains(string(rest), "RUN_FINISHED") {
				t.Errorf("after the upstream answered: %s", rest)
			}
			_, _, m := getJSON(t, ts.URL+"/metrics", nil)
			if !strings.Contains(m, `genui_run_start_seconds_count{agent="a"} 1`) {
				t.Errorf("metrics lack the run's start")
			}
		})
	}
}

func TestDrainEndsStreamsWithShutdown(t *testing.T) {
	up := newUpstream(t, "data: {\"type\":\"RUN_STARTED\",\"threadId\":\"t\",\"runId\":\"r\"}\n\ndata: {\"type\":\"TEXT_MESSAGE_START\",\"messageId\":\"m\"}\n\n", true)
	s, err := NewServer(nil, Config{Listen: "x", Agents: map[string]AgentConfig{"a": {Backend: aguiAt(up.URL)}}})
	if err != nil {
		t.Fatal(err)
	}
	ts := serveAdopted(s)
	defer ts.Close()
	resp := doReq(t, http.MethodPost, ts.URL+"/agents/a/run", runBody, nil)
	defer resp.Body.Close()
	br := readUntilConnected(t, resp.Body)
	go s.Drain(50 * time.Millisecond)
	rest, _ := io.ReadAll(br)
	evs := decodeEvents(t, string(rest))
	if len(evs) != 1 {
		t.Fatalf("after drain got %v", evs)
	}
	if re, ok := evs[0].(*agui.RunError); !ok || re.Code != agui.CodeShutdown {
		t.Errorf("stream ended with %+v, want RUN_ERROR shutdown", evs[0])
	}
	r, _ := http.Get(ts.URL + "/readyz")
	if r.StatusCode != http.StatusServiceUnavailable {
		t.Errorf("readyz while draining = %d", r.StatusCode)
	}
	r.Body.Close()
	select {
	case <-up.cancelled:
	case <-time.After(2 * time.Second):
		t.Error("upstream not cancelled at shutdown")
	}
}

func TestCORS(t *testing.T) {
	for _, tt := range []struct {
		name      string
		cors      CORS
		origin    string
		preflight bool
		status    int
		allow     string
		creds     string
	}{
		{"listed origin echoed", CORS{Origins: []string{"https://app.example.com"}}, "https://app.example.com", false, 200, "https://app.example.com", ""},
		{"credentialed echoes, never *", CORS{Origins: []string{"https://app.example.com"}, Credentials: true}, "https://app.example.com", false, 200, "https://app.example.com", "true"},
		{"unlisted origin gets no header", CORS{Origins: []string{"https://app.example.com"}}, "https://evil.example.com", false, 200, "", ""},
		{"preflight listed", CORS{Origins: []string{"https://app.example.com"}, Credentials: true}, "https://app.example.com", true, 204, "https://app.example.com", "true"},
		{"preflight unlisted", CORS{Origins: []string{"https://app.example.com"}}, "https://evil.example.com", true, 403, "", ""},
		{"wildcard", CORS{Origins: []string{"*"}}, "https://any.example.com", true, 204, "*", ""},
	} {
		t.Run(tt.name, func(t *testing.T) {
			cfg := DefaultConfig()
			cfg.CORS = tt.cors
			ts := newTestServer(t, cfg)
			method := http.MethodGet
			if tt.preflight {
				method = http.MethodOptions
			}
			req, _ := http.NewRequest(method, ts.URL+"/agents", nil)
			req.Header.Set("Origin", tt.origin)
			if tt.preflight {
				req.Header.Set("Access-Control-Request-Method", "POST")
				req.Header.Set("Access-Control-Request-Headers", "Content-Type, X-Request-Id")
			}
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			resp.Body.Close()
			if resp.StatusCode != tt.status {
				t.Errorf("status = %d, want %d", resp.StatusCode, tt.status)
			}
			if got := resp.Header.Get("Access-Control-Allow-Origin"); got != tt.allow {
				t.Errorf("Allow-Origin = %q, want %q", got, tt.allow)
			}
			if got := resp.Header.Get("Access-Control-Allow-Credentials"); got != tt.creds {
				t.Errorf("Allow-Credentials = %q, want %q", got, tt.creds)
			}
			if tt.preflight && tt.status == 204 && !strings.Contains(resp.Header.Get("Access-Control-Allow-Headers"), "content-type") {
				t.Errorf("Allow-Headers = %q", resp.Header.Get("Access-Control-Allow-Headers"))
			}
		})
	}
}

func TestAgentsAndHealth(t *testing.T) {
	cfg := Config{Listen: "x", Agents: map[string]AgentConfig{"demo": {Backend: &DemoConfig{}, Description: "d"}, "orders": {Backend: aguiAt("http://127.0.0.1:1/agent"), Description: "Order lookup agent"}}}
	ts := newTestServer(t, cfg)
	for path, want := range map[string]string{
		"/agents":  `{"agents":[{"id":"demo","type":"demo","description":"d","runUrl":"/agents/demo/run"},{"id":"orders","type":"agui","description":"Order lookup agent","runUrl":"/agents/orders/run"}]}`,
		"/healthz": `{"status":"ok"}`,
		"/readyz":  `{"status":"ready"}`,
	} {
		resp, err := http.Get(ts.URL + path)
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if got := strings.TrimSpace(string(b)); got != want || resp.StatusCode != 200 {
			t.Errorf("GET %s = %d %s, want %s", path, resp.StatusCode, got, want)
		}
	}
}
