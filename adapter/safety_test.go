package adapter

// Tests that one adapter is safe to share between principals: bounded
// memory, owned threads, checked input, bounded labels and connections
// (docs/security.md). One test (or subtest) per property, each black-box
// over HTTP.

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"regexp"
	"runtime"
	"runtime/debug"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/genui-adapter/genui-adapter/agui"
)

const (
	aliceTok = "alice-token-123"
	bobTok   = "bob-token-12345"
)

var (
	alice = map[string]string{"Authorization": "Bearer " + aliceTok}
	bob   = map[string]string{"Authorization": "Bearer " + bobTok}
)

const twoPrincipals = "auth: {bearerTokens: {alice: " + aliceTok + ", bob: " + bobTok + "}}\n"

// serveYAML parses src (the documented config shape) and serves it.
func serveYAML(t *testing.T, src string) *adoptedServer {
	t.Helper()
	cfg, err := ParseConfig([]byte(src), func(string) string { return "" })
	if err != nil {
		t.Fatalf("config: %v\n%s", err, src)
	}
	return newTestServer(t, cfg)
}

// scripted is an AG-UI upstream whose handler writes whatever the test
// says.
func scripted(t *testing.T, h func(w *agui.Encoder, flush func(), in *agui.RunAgentInput, r *http.Request)) *httptest.Server {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		in, _ := agui.ParseRunAgentInput(mustRead(r.Body))
		if in == nil {
			in = &agui.RunAgentInput{}
		}
		w.Header().Set("Content-Type", "text/event-stream")
		rc := http.NewResponseController(w)
		h(agui.NewEncoder(w), func() { rc.Flush() }, in, r)
	}))
	t.Cleanup(srv.Close)
	return srv
}

// textUpstream streams one assistant message of n deltas of size bytes,
// unpaced.
func textUpstream(t *testing.T, n, size int) *httptest.Server {
	delta := strings.Repeat("x", size)
	return scripted(t, func(enc *agui.Encoder, flush func(), in *agui.RunAgentInput, r *http.Request) {
		enc.Encode("", &agui.RunStarted{ThreadID: in.ThreadID, RunID: in.RunID})
		enc.Encode("", &agui.TextMessageStart{MessageID: "m-" + in.RunID, Role: "assistant"})
		for i := 0; i < n; i++ {
			if enc.Encode("", &agui.TextMessageContent{MessageID: "m-" + in.RunID, Delta: delta}) != nil {
				return
			}
		}
		enc.Encode("", &agui.TextMessageEnd{MessageID: "m-" + in.RunID})
		enc.Encode("", &agui.RunFinished{ThreadID: in.ThreadID, RunID: in.RunID})
	})
}

func runJSON(thread, run, text string) string {
	b, _ := json.Marshal(map[string]any{"threadId": thread, "runId": run, "messages": []any{map[string]any{"id": "u-" + run, "role": "user", "content": text}}})
	return string(b)
}

// runAll starts a run and reads its whole stream.
func runAll(t *testing.T, base, agent, body string, hdr map[string]string) (int, []frame) {
	t.Helper()
	r := doReq(t, "POST", base+"/agents/"+agent+"/run", body, hdr)
	defer r.Body.Close()
	if r.StatusCode != 200 {
		io.Copy(io.Discard, r.Body)
		return r.StatusCode, nil
	}
	return 200, readFrames(r.Body, nil)
}

func lastType(fs []frame) string {
	if len(fs) == 0 {
		return ""
	}
	var e struct{ Type, Code string }
	json.Unmarshal([]byte(fs[len(fs)-1].data), &e)
	if e.Code != "" {
		return e.Type + ":" + e.Code
	}
	return e.Type
}

func getJSON(t *testing.T, url string, hdr map[string]string) (int, map[string]any, string) {
	t.Helper()
	r := doReq(t, "GET", url, "", hdr)
	defer r.Body.Close()
	b, _ := io.ReadAll(r.Body)
	var m map[string]any
	json.Unmarshal(b, &m)
	return r.StatusCode, m, string(b)
}

// metricValue returns the value of the metric line matching name{labels}.
func metricValue(t *testing.T, base, series string) (float64, bool) {
	t.Helper()
	_, _, body := getJSON(t, base+"/metrics", nil)
	for _, line := range strings.Split(body, "\n") {
		if strings.HasPrefix(line, series+" ") {
			v, err := strconv.ParseFloat(strings.TrimSpace(strings.TrimPrefix(line, series)), 64)
			return v, err == nil
		}
	}
	return 0, false
}

// Row 1: a run that streams far more text than the budget keeps neither
// its events nor its transcript beyond the configured caps; the history
// shows where it was cut; the live stream is complete.
func TestSafeRunMemoryIsBounded(t *testing.T) {
	up := textUpstream(t, 3000, 1024)
	ts := serveYAML(t, `
runlog: {maxBytes: 1048576, maxRunBytes: 262144}
history: {maxRunBytes: 65536, maxThreadBytes: 131072}
agents: {a: {type: agui, url: "`+up.URL+`", a2ui: {disabled: true}}}
`)
	status, frames := runAll(t, ts.URL, "a", runJSON("t", "r", "go"), nil)
	if status != 200 || len(frames) != 3004 || lastType(frames) != "RUN_FINISHED" {
		t.Fatalf("live stream: status %d, %d frames ending %s; want all 3004 ending RUN_FINISHED", status, len(frames), lastType(frames))
	}
	code, h, raw := getJSON(t, ts.URL+"/threads/t/messages", nil)
	if code != 200 {
		t.Fatalf("history = %d", code)
	}
	if len(raw) > 80<<10 {
		t.Errorf("history is %d bytes, want at most the 64 KiB per-run cap plus a little", len(raw))
	}
	if !strings.Contains(raw, "genui-adapter: cut") {
		t.Errorf("history has no cut marker: %.300s", raw)
	}
	if msgs, _ := h["messages"].([]any); len(msgs) != 2 {
		t.Errorf("history has %d messages, want the user's and the cut assistant message", len(msgs))
	}
	if v, ok := metricValue(t, ts.URL, `genui_store_bytes{store="events"}`); !ok || v > 1<<20 {
		t.Errorf("events store gauge = %v (present %v), want ≤ 1 MiB", v, ok)
	}
	if v, ok := metricValue(t, ts.URL, `genui_store_bytes{store="transcripts"}`); !ok || v != 0 {
		t.Errorf("transcripts gauge after the run = %v (present %v), want 0", v, ok)
	}
	// The run's first events were evicted by the per-run cap: an explicit
	// gap, never a silent hole.
	r := doReq(t, "GET", ts.URL+"/runs/r/events", "", nil)
	r.Body.Close()
	if r.StatusCode != http.StatusGone {
		t.Errorf("resume from 0 after eviction = %d, want 410", r.StatusCode)
	}
}

// Rows 2 and 11: threads and runs belong to the principal that started
// them; another principal using the same ids gets its own, and no answer
// tells it that the other exists.
func TestSafeThreadsBelongToTheirPrincipal(t *testing.T) {
	up := newCountingUpstream(t, 3, 5*time.Millisecond)
	ts := serveYAML(t, twoPrincipals+`agents: {a: {type: agui, url: "`+up.URL+`", a2ui: {disabled: true}}}`)
	if code, fs := runAll(t, ts.URL, "a", runJSON("t", "r1", "alice's secret"), alice); code != 200 || lastType(fs) != "RUN_FINISHED" {
		t.Fatalf("alice's run: %d %s", code, lastType(fs))
	}
	// Bob on alice's (idle) thread id and with her run id: his own thread.
	code, fs := runAll(t, ts.URL, "a", runJSON("t", "r1", "bob here"), bob)
	if code != 200 || lastType(fs) != "RUN_FINISHED" {
		t.Fatalf("bob's run on the same ids: %d %s, want his own run", code, lastType(fs))
	}
	_, _, bobView := getJSON(t, ts.URL+"/threads/t/messages", bob)
	if strings.Contains(bobView, "alice's secret") || !strings.Contains(bobView, "bob here") {
		t.Errorf("bob's thread t = %s", bobView)
	}
	code, _, aliceView := getJSON(t, ts.URL+"/threads/t/messages", alice)
	if code != 200 || !strings.Contains(aliceView, "alice's secret") || strings.Contains(aliceView, "bob here") {
		t.Errorf("alice's thread t = %d %s", code, aliceView)
	}
	// CopilotKit /connect as bob replays only bob's thread.
	r := doReq(t, "POST", ts.URL+"/api/copilotkit/agent/a/connect", `{"threadId":"t"}`, bob)
	b, _ := io.ReadAll(r.Body)
	r.Body.Close()
	if strings.Contains(string(b), "alice's secret") {
		t.Errorf("bob's /connect shows alice's messages")
	}
	// No oracle: alice's run and thread look to a third party exactly like
	// ones that never existed.
	ts2 := serveYAML(t, twoPrincipals+`agents: {a: {type: agui, url: "`+up.URL+`", a2ui: {disabled: true}}}`)
	runAll(t, ts2.URL, "a", runJSON("t2", "r2", "alice only"), alice)
	for _, tt := range []struct{ method, real, fake string }{
		{"GET", "/runs/r2/events", "/runs/zz/events"},
		{"POST", "/runs/r2/cancel", "/runs/zz/cancel"},
		{"GET", "/threads/t2/messages", "/threads/zz/messages"},
	} {
		r1 := doReq(t, tt.method, ts2.URL+tt.real, "", bob)
		b1, _ := io.ReadAll(r1.Body)
		r1.Body.Close()
		r2 := doReq(t, tt.method, ts2.URL+tt.fake, "", bob)
		b2, _ := io.ReadAll(r2.Body)
		r2.Body.Close()
		norm := func(b []byte) string {
			return strings.NewReplacer("r2", "ID", "zz", "ID", "t2", "ID").Replace(string(b))
		}
		if r1.StatusCode != r2.StatusCode || norm(b1) != norm(b2) {
			t.Errorf("bob %s %s = %d %s; a made-up id = %d %s: the answers differ", tt.method, tt.real, r1.StatusCode, b1, r2.StatusCode, b2)
		}
	}
}

// Row 3: histories expire with their retention and are evicted by total
// size (least recently used first); one thread's history is capped.
func TestSafeHistoriesAreEvicted(t *testing.T) {
	t.Run("retention", func(t *testing.T) {
		up := newCountingUpstream(t, 1, 0)
		ts := serveYAML(t, `
history: {retention: 1s}
agents: {a: {type: agui, url: "`+up.URL+`", a2ui: {disabled: true}}}`)
		runAll(t, ts.URL, "a", runJSON("t", "r", "remember me"), nil)
		if _, _, h := getJSON(t, ts.URL+"/threads/t/messages", nil); !strings.Contains(h, "remember me") {
			t.Fatalf("history right after the run = %s", h)
		}
		time.Sleep(1500 * time.Millisecond)
		if _, _, h := getJSON(t, ts.URL+"/threads/t/messages", nil); strings.Contains(h, "remember me") {
			t.Errorf("history after its retention = %s", h)
		}
	})
	t.Run("total size, least recently used first", func(t *testing.T) {
		up := textUpstream(t, 4, 1024)
		ts := serveYAML(t, `
history: {maxBytes: 40960}
agents: {a: {type: agui, url: "`+up.URL+`", a2ui: {disabled: true}}}`)
		for i := range 40 {
			runAll(t, ts.URL, "a", runJSON(fmt.Sprint("t", i), fmt.Sprint("r", i), fmt.Sprint("thread ", i)), nil)
			if i == 2 {
				getJSON(t, ts.URL+"/threads/t0/messages", nil) // t0 is used again
			}
		}
		if v, ok := metricValue(t, ts.URL, `genui_store_bytes{store="histories"}`); !ok || v > 40960 {
			t.Errorf("histories gauge = %v (present %v), want ≤ 40960", v, ok)
		}
		if _, _, h := getJSON(t, ts.URL+"/threads/t1/messages", nil); strings.Contains(h, "thread 1") {
			t.Errorf("the least recently used thread t1 was kept")
		}
		if _, _, h := getJSON(t, ts.URL+"/threads/t39/messages", nil); !strings.Contains(h, "thread 39") {
			t.Errorf("the newest thread was evicted: %s", h)
		}
	})
	t.Run("one thread", func(t *testing.T) {
		up := textUpstream(t, 2, 1024)
		ts := serveYAML(t, `
history: {maxThreadBytes: 16384}
agents: {a: {type: agui, url: "`+up.URL+`", a2ui: {disabled: true}}}`)
		for i := range 30 {
			runAll(t, ts.URL, "a", runJSON("t", fmt.Sprint("r", i), fmt.Sprint("turn ", i)), nil)
		}
		_, h, raw := getJSON(t, ts.URL+"/threads/t/messages", nil)
		if len(raw) > 17<<10 {
			t.Errorf("thread history is %d bytes, want ≤ 16 KiB", len(raw))
		}
		if !strings.Contains(raw, "turn 29") || strings.Contains(raw, `"turn 0"`) {
			t.Errorf("the cap must drop the oldest messages and keep the newest")
		}
		if n, _ := h["trimmed"].(float64); n == 0 {
			t.Errorf("trimmed = %v, want the number of dropped messages", h["trimmed"])
		}
	})
}

// Row 4: supersede replaces only the principal's own active run.
func TestSafeSupersedeIsPerPrincipal(t *testing.T) {
	up := newCountingUpstream(t, 20, 15*time.Millisecond)
	ts := serveYAML(t, twoPrincipals+`threadPolicy: supersede
detachGrace: 30s
agents: {a: {type: agui, url: "`+up.URL+`", a2ui: {disabled: true}}}`)
	aliceRun := doReq(t, "POST", ts.URL+"/agents/a/run", runJSON("t", "ra", "a"), alice)
	defer aliceRun.Body.Close()
	readFrames(aliceRun.Body, func(f frame) bool { return f.id == "2" })
	if code, fs := runAll(t, ts.URL, "a", runJSON("t", "rb", "b"), bob); code != 200 || lastType(fs) != "RUN_FINISHED" {
		t.Fatalf("bob's run = %d %s", code, lastType(fs))
	}
	if rest := readFrames(aliceRun.Body, nil); lastType(rest) != "RUN_FINISHED" {
		t.Errorf("alice's run ended %s, want RUN_FINISHED (bob must not supersede it)", lastType(rest))
	}
}

// Row 5: with detachGrace 0s, runs whose client is connected are never
// detached, however many start at once.
func TestSafeDetachGraceZeroKeepsConnectedRuns(t *testing.T) {
	up := newCountingUpstream(t, 4, 25*time.Millisecond)
	ts := serveYAML(t, `detachGrace: 0s
limits: {runStartsPerSecond: -1} # 1000 at once from one client
agents: {a: {type: agui, url: "`+up.URL+`", a2ui: {disabled: true}}}`)
	const n = 1000
	var wg sync.WaitGroup
	var bad atomic.Int32
	var firstBad atomic.Value
	client := &http.Client{Transport: &http.Transport{MaxConnsPerHost: 0, MaxIdleConnsPerHost: n}}
	for i := range n {
		wg.Go(func() {
			req, _ := http.NewRequest("POST", ts.URL+"/agents/a/run", strings.NewReader(runJSON(fmt.Sprint("t", i), fmt.Sprint("r", i), "x")))
			req.Header.Set("Content-Type", "application/json")
			resp, err := client.Do(req)
			if err != nil {
				bad.Add(1)
				return
			}
			defer resp.Body.Close()
			if lt := lastType(readFrames(resp.Body, nil)); lt != "RUN_FINISHED" {
				bad.Add(1)
				firstBad.CompareAndSwap(nil, lt)
			}
		})
	}
	wg.Wait()
	if bad.Load() > 0 {
		t.Errorf("%d of %d connected runs did not finish (e.g. %v)", bad.Load(), n, firstBad.Load())
	}
}

// Row 6: a proxied MCP request that reaches the backend is a registered
// run: unique id, resumable, cancellable.
func TestSafeProxiedRequestsAreRegisteredRuns(t *testing.T) {
	up := newCountingUpstream(t, 10, 20*time.Millisecond)
	ts := serveYAML(t, `detachGrace: 30s
agents: {a: {type: agui, url: "`+up.URL+`", a2ui: {disabled: true}}}`)
	body := `{"threadId":"t","runId":"px","messages":[],"forwardedProps":{"__proxiedMCPRequest":{"serverHash":"not-ours","method":"tools/call","params":{"name":"x"}}}}`
	var wg sync.WaitGroup
	codes := make([]int, 2)
	for i := range 2 {
		wg.Go(func() {
			r := doReq(t, "POST", ts.URL+"/agents/a/run", body, nil)
			codes[i] = r.StatusCode
			io.Copy(io.Discard, r.Body)
			r.Body.Close()
		})
	}
	wg.Wait()
	if !(codes[0] == 200 && codes[1] == 409 || codes[0] == 409 && codes[1] == 200) {
		t.Errorf("the same run id twice at once = %v, want one 200 and one 409", codes)
	}
	if r := doReq(t, "GET", ts.URL+"/runs/px/events", "", nil); r.StatusCode != 200 {
		t.Errorf("resume of the proxied run = %d, want 200", r.StatusCode)
	} else {
		r.Body.Close()
	}
}

// rawConn opens a TCP connection to the test server.
func rawConn(t *testing.T, base string) net.Conn {
	t.Helper()
	c, err := net.Dial("tcp", strings.TrimPrefix(base, "http://"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return c
}

// statusWithin reads the HTTP status line the server sends within d, or 0.
func statusWithin(c net.Conn, d time.Duration) int {
	c.SetReadDeadline(time.Now().Add(d))
	line, err := bufio.NewReader(c).ReadString('\n')
	if err != nil {
		return 0
	}
	f := strings.Fields(line)
	if len(f) < 2 {
		return 0
	}
	n, _ := strconv.Atoi(f[1])
	return n
}

// Row 7: no credentials, no body read; a body that trickles gets 408.
func TestSafeSlowBodies(t *testing.T) {
	ts := serveYAML(t, twoPrincipals+`limits: {bodyTimeout: 500ms}
agents: {d: {type: demo}}`)
	head := "POST /agents/d/run HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 200\r\n"
	c := rawConn(t, ts.URL)
	io.WriteString(c, head+"\r\n{")
	if got := statusWithin(c, 2*time.Second); got != 401 {
		t.Errorf("unauthenticated slow body: status %d within 2s, want 401 at once", got)
	}
	c = rawConn(t, ts.URL)
	io.WriteString(c, head+"Authorization: Bearer "+aliceTok+"\r\n\r\n{")
	go func() {
		for range 10 {
			time.Sleep(300 * time.Millisecond)
			if _, err := io.WriteString(c, " "); err != nil {
				return
			}
		}
	}()
	if got := statusWithin(c, 3*time.Second); got != http.StatusRequestTimeout {
		t.Errorf("trickled body: status %d, want 408", got)
	}
}

// Row 8: the CPU-heavy A2UI routes need auth, take small bodies, cap
// concurrent requests and error lists.
func TestSafeA2UIRoutes(t *testing.T) {
	ts := serveYAML(t, twoPrincipals+`a2uiApi: {maxConcurrentPerPrincipal: 1}
agents: {d: {type: demo}}`)
	msg := `{"version":"v0.9","createSurface":{"surfaceId":"s","catalogId":"https://a2ui.org/specification/v0_9/basic_catalog.json"}}`
	if r := doReq(t, "POST", ts.URL+"/a2ui/validate", msg, nil); r.StatusCode != 401 {
		t.Errorf("validate without credentials = %d, want 401", r.StatusCode)
	}
	big := "[" + strings.Repeat(msg+",", (2<<20)/len(msg)) + msg + "]"
	if r := doReq(t, "POST", ts.URL+"/a2ui/validate", big, alice); r.StatusCode != 413 {
		t.Errorf("2 MiB body = %d, want 413 (default cap 1 MiB)", r.StatusCode)
	}
	// Errors: the first 100 and a count.
	bad := "[" + strings.Repeat(`{"version":"v0.9","nope":1},`, 149) + `{"version":"v0.9","nope":1}]`
	r := doReq(t, "POST", ts.URL+"/a2ui/validate", bad, alice)
	var res struct {
		Errors     []any
		ErrorCount int
	}
	json.NewDecoder(r.Body).Decode(&res)
	r.Body.Close()
	if len(res.Errors) != 100 || res.ErrorCount < 150 {
		t.Errorf("150 bad messages: %d errors listed, errorCount %d; want 100 and ≥ 150", len(res.Errors), res.ErrorCount)
	}
	// One request of alice in flight (its body still arriving): her
	// second gets 429 with Retry-After; bob is not affected.
	c := rawConn(t, ts.URL)
	io.WriteString(c, "POST /a2ui/validate HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nAuthorization: Bearer "+aliceTok+"\r\nContent-Length: 1000\r\n\r\n[")
	// The server takes the slot once it has read the first request's
	// head: ask again until it has (no fixed sleep, so a loaded machine
	// cannot make the test flaky).
	for deadline := time.Now().Add(10 * time.Second); ; {
		r = doReq(t, "POST", ts.URL+"/a2ui/validate", msg, alice)
		r.Body.Close()
		if r.StatusCode == http.StatusTooManyRequests || time.Now().After(deadline) {
			break
		}
		time.Sleep(10 * time.Millisecond)
	}
	if r.StatusCode != http.StatusTooManyRequests || r.Header.Get("Retry-After") == "" {
		t.Errorf("alice's second concurrent validate = %d (Retry-After %q), want 429 with Retry-After", r.StatusCode, r.Header.Get("Retry-After"))
	}
	if r := doReq(t, "POST", ts.URL+"/a2ui/validate", msg, bob); r.StatusCode != 200 {
		t.Errorf("bob's validate = %d, want 200", r.StatusCode)
	}
	pub := serveYAML(t, twoPrincipals+`a2uiApi: {public: true}
agents: {d: {type: demo}}`)
	if r := doReq(t, "POST", pub.URL+"/a2ui/validate", msg, nil); r.StatusCode != 200 {
		t.Errorf("public validate = %d, want 200", r.StatusCode)
	}
}

// Row 9: the trusted header is believed only from the configured proxies,
// and only once.
func TestSafeTrustedHeader(t *testing.T) {
	far := serveYAML(t, `auth: {trustedHeader: X-User, trustedProxies: ["10.0.0.0/8"]}
agents: {d: {type: demo}}`)
	if r := doReq(t, "POST", far.URL+"/agents/d/run", runBody, map[string]string{"X-User": "alice"}); r.StatusCode != 401 {
		t.Errorf("trusted header from a non-proxy address = %d, want 401", r.StatusCode)
	}
	near := serveYAML(t, `auth: {trustedHeader: X-User, trustedProxies: ["127.0.0.0/8"]}
agents: {d: {type: demo}}`)
	req, _ := http.NewRequest("POST", near.URL+"/agents/d/run", strings.NewReader(runBody))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Add("X-User", "alice")
	req.Header.Add("X-User", "bob")
	r, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	r.Body.Close()
	if r.StatusCode != 400 {
		t.Errorf("the trusted header twice = %d, want 400", r.StatusCode)
	}
	if code, fs := runAll(t, near.URL, "d", runBody, map[string]string{"X-User": "alice"}); code != 200 || lastType(fs) != "RUN_FINISHED" {
		t.Errorf("from the proxy = %d %s", code, lastType(fs))
	}
}

// Row 10: ids and roles are checked, not trusted.
func TestSafeInputIsChecked(t *testing.T) {
	ts := serveYAML(t, `agents: {d: {type: demo}}`)
	long := strings.Repeat("a", 10<<10)
	for _, tt := range []struct{ name, body, field string }{
		{"invalid UTF-8", "{\"threadId\":\"t\xff\xfe\",\"runId\":\"r1\",\"messages\":[]}", "threadId"},
		{"invalid UTF-8 in a message", "{\"threadId\":\"t2\",\"runId\":\"r2\",\"messages\":[{\"id\":\"m\",\"role\":\"user\",\"content\":\"a\xc3\"}]}", "messages[0].content"},
		{"role", `{"threadId":"t3","runId":"r3","messages":[{"id":"m","role":"hacker","content":"x"}]}`, "messages[0].role"},
		{"long threadId", `{"threadId":"` + long + `","runId":"r4","messages":[]}`, "threadId"},
		{"long message id", `{"threadId":"t5","runId":"r5","messages":[{"id":"` + long + `","role":"user","content":"x"}]}`, "messages[0].id"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			r := doReq(t, "POST", ts.URL+"/agents/d/run", tt.body, nil)
			var eb errorBody
			json.NewDecoder(r.Body).Decode(&eb)
			r.Body.Close()
			if r.StatusCode != 400 || !strings.Contains(eb.Message, tt.field) {
				t.Errorf("= %d %+v, want 400 naming %s", r.StatusCode, eb, tt.field)
			}
		})
	}
}

// Row 12: cancel and stop refuse cross-site simple requests.
func TestSafeCrossSiteCancelRefused(t *testing.T) {
	up := newCountingUpstream(t, 15, 20*time.Millisecond)
	ts := serveYAML(t, `detachGrace: 30s
cors: {origins: ["https://app.example.com"]}
agents: {a: {type: agui, url: "`+up.URL+`", a2ui: {disabled: true}}}`)
	run := doReq(t, "POST", ts.URL+"/agents/a/run", runJSON("t", "r", "x"), nil)
	defer run.Body.Close()
	readFrames(run.Body, func(f frame) bool { return f.id == "2" })
	for _, path := range []string{"/runs/r/cancel", "/api/copilotkit/agent/a/stop/t"} {
		req, _ := http.NewRequest("POST", ts.URL+path, strings.NewReader("a=b"))
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		req.Header.Set("Origin", "https://evil.example")
		req.Header.Set("Sec-Fetch-Site", "cross-site")
		r, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		r.Body.Close()
		if r.StatusCode != 403 {
			t.Errorf("cross-site POST %s = %d, want 403", path, r.StatusCode)
		}
	}
	if rest := readFrames(run.Body, nil); lastType(rest) != "RUN_FINISHED" {
		t.Errorf("the run ended %s, want RUN_FINISHED", lastType(rest))
	}
	// An allowed origin may.
	req, _ := http.NewRequest("POST", ts.URL+"/runs/r/cancel", nil)
	req.Header.Set("Origin", "https://app.example.com")
	if r, _ := http.DefaultClient.Do(req); r == nil || r.StatusCode != 200 {
		t.Errorf("cancel from a CORS origin refused")
	}
}

// Row 20: unknown upstream codes do not become metric series.
func TestSafeMetricLabelsBounded(t *testing.T) {
	codes := []string{"weird-code-1", strings.Repeat("z", 5000)}
	var i atomic.Int32
	up := scripted(t, func(enc *agui.Encoder, flush func(), in *agui.RunAgentInput, r *http.Request) {
		enc.Encode("", &agui.RunStarted{ThreadID: in.ThreadID, RunID: in.RunID})
		enc.Encode("", &agui.RunError{Message: "boom", Code: codes[int(i.Add(1)-1)%len(codes)]})
	})
	ts := serveYAML(t, `agents: {a: {type: agui, url: "`+up.URL+`", a2ui: {disabled: true}}}`)
	for n := range 2 {
		runAll(t, ts.URL, "a", runJSON(fmt.Sprint("t", n), fmt.Sprint("r", n), "x"), nil)
	}
	_, _, m := getJSON(t, ts.URL+"/metrics", nil)
	if strings.Contains(m, "weird-code-1") || strings.Contains(m, "zzzzzzzz") {
		t.Errorf("an upstream's code became a label")
	}
	if v, _ := metricValue(t, ts.URL, `genui_runs_errored_total{agent="a",code="other"}`); v != 2 {
		t.Errorf(`runs_errored{code="other"} = %v, want 2`, v)
	}
}

// Row 17: every secret is redacted where the config is printed.
func TestSafeRedactedConfig(t *testing.T) {
	src := `
sandboxKey: sandbox-secret-key-1
runlog: {backend: redis, url: "redis://:redis-pass-9@127.0.0.1:6379/0"}
auth: {bearerTokens: {alice: alice-secret-tok}}
mcpServers: {m: {url: "http://127.0.0.1:1/mcp", headers: {Authorization: "Bearer mcp-secret-1"}}}
agents:
  a: {type: agui, url: "http://user:agent-pass-3@127.0.0.1:1/x?token=query-secret-4&mode=x", headers: {X-Key: header-secret-5}}
  l: {type: langgraph, url: "http://127.0.0.1:2/", graph: g, apiKey: lg-secret-6, assistantConfig: {openai_key: assist-secret-7, nested: {k: assist-secret-8}}}
`
	cfg, err := ParseConfig([]byte(src), func(string) string { return "" })
	if err != nil {
		t.Fatal(err)
	}
	out := cfg.Redacted()
	for _, s := range []string{"sandbox-secret-key-1", "redis-pass-9", "alice-secret-tok", "mcp-secret-1", "agent-pass-3", "query-secret-4", "header-secret-5", "lg-secret-6", "assist-secret-7", "assist-secret-8"} {
		if strings.Contains(out, s) {
			t.Errorf("the printed config shows %s", s)
		}
	}
	if !strings.Contains(out, "mode=x") || !strings.Contains(out, "127.0.0.1:6379") {
		t.Errorf("redaction hid more than the secrets:\n%s", out)
	}
}

// Rows 18 and 19: LangGraph agents honour their connection settings and
// never send credentials to another origin on a redirect; keys a backend
// does not honour are config errors.
func TestSafeBackendConnections(t *testing.T) {
	var leaked atomic.Value
	other := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if k := r.Header.Get("X-Api-Key") + r.Header.Get("Authorization") + r.Header.Get("X-Static"); k != "" {
			leaked.Store(k)
		}
		w.WriteHeader(404)
	}))
	defer other.Close()
	redirect := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, other.URL+r.URL.Path, http.StatusTemporaryRedirect)
	}))
	defer redirect.Close()
	ts := serveYAML(t, `agents:
  lg: {type: langgraph, url: "`+redirect.URL+`", graph: g, apiKey: lg-key-123}
  ag: {type: agui, url: "`+redirect.URL+`/run", headers: {Authorization: "Bearer agui-key"}}`)
	for _, a := range []string{"lg", "ag"} {
		_, fs := runAll(t, ts.URL, a, runJSON("t-"+a, "r-"+a, "x"), nil)
		if !strings.HasPrefix(lastType(fs), "RUN_ERROR") {
			t.Errorf("%s through a cross-origin redirect ended %s, want RUN_ERROR", a, lastType(fs))
		}
	}
	if k := leaked.Load(); k != nil {
		t.Errorf("credentials reached another origin: %v", k)
	}

	var seen atomic.Value
	hung := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		seen.Store(r.Header.Clone())
		select {
		case <-r.Context().Done():
		case <-time.After(10 * time.Second):
		}
	}))
	defer hung.Close()
	ts = serveYAML(t, `agents:
  lg: {type: langgraph, url: "`+hung.URL+`", graph: g, connectTimeout: 300ms, headers: {X-Static: s1}, forwardHeaders: [x-request-id]}`)
	start := time.Now()
	_, fs := runAll(t, ts.URL, "lg", runJSON("t", "r", "x"), map[string]string{"X-Request-Id": "req-7"})
	if el := time.Since(start); el > 3*time.Second || lastType(fs) != "RUN_ERROR:upstream_unreachable" {
		t.Errorf("hung LangGraph with connectTimeout 300ms ended %s after %s", lastType(fs), el)
	}
	if h, _ := seen.Load().(http.Header); h == nil || h.Get("X-Static") != "s1" || h.Get("X-Request-Id") != "req-7" {
		t.Errorf("LangGraph request headers = %v, want X-Static and the forwarded X-Request-Id", h)
	}

	for _, bad := range []string{
		`agents: {a: {type: agui, url: "http://x/", graph: g}}`,
		`agents: {a: {type: agui, url: "http://x/", apiKey: k}}`,
		`agents: {a: {type: demo, url: "http://x/"}}`,
		`agents: {a: {type: langgraph, url: "http://x/", graph: g, delay: 1s}}`,
	} {
		if _, err := ParseConfig([]byte(bad), func(string) string { return "" }); err == nil {
			t.Errorf("%s: accepted, want a config error", bad)
		}
	}
}

var _ = regexp.MustCompile
var _ = context.Background

// allocSink keeps the test's garbage from being optimised away.
var allocSink []byte

// TestMemoryReturnWaitsWhileBusy: memory released by the stores goes back
// to the OS once the process is quiet, not while it allocates more than
// a quarter of its live heap between two checks (a flood or steady load,
// where the runtime reuses the free memory at once), and the released
// bytes are not forgotten meanwhile.
func TestMemoryReturnWaitsWhileBusy(t *testing.T) {
	var freed atomic.Int64
	r := memoryReturn{freed: &freed}
	r.due()
	freed.Store(16 << 20)
	var live runtime.MemStats
	runtime.ReadMemStats(&live)
	for n := uint64(0); n < 2*live.HeapAlloc+64<<20; n += 4 << 10 {
		allocSink = make([]byte, 4<<10)
	}
	if r.due() {
		t.Fatal("due while the process allocates twice its live heap between checks")
	}
	// Steady load (1,000 streams on the Redis log) allocates about its
	// live heap in 5 s: that is busy too, not a time to scavenge the heap.
	runtime.ReadMemStats(&live)
	for n := uint64(0); n < live.HeapAlloc/2+1<<20; n += 4 << 10 {
		allocSink = make([]byte, 4<<10)
	}
	if r.due() {
		t.Fatal("due while the process allocates half its live heap between checks")
	}
	if !r.due() {
		t.Fatal("not due once the process is quiet, with 16 MiB released")
	}
	if freed.Load() != 0 {
		t.Fatalf("released bytes not reset after a return: %d", freed.Load())
	}
	debug.FreeOSMemory() // what returnMemory does when due
	if r.due() {
		t.Fatal("due again right after a return, with nothing released")
	}
}
