package adapter

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"go.uber.org/goleak"

	"github.com/genui-adapter/genui-adapter/agui"
)

// countingUpstream streams RUN_STARTED, n CUSTOM events numbered 1..n
// every interval, then RUN_FINISHED. It counts requests whose context was
// cancelled before the end (aborted upstreams).
type countingUpstream struct {
	*httptest.Server
	aborted atomic.Int32
	started atomic.Int32
}

func newCountingUpstream(t *testing.T, n int, interval time.Duration) *countingUpstream {
	u := &countingUpstream{}
	u.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		in, _ := agui.ParseRunAgentInput(mustRead(r.Body))
		u.started.Add(1)
		w.Header().Set("Content-Type", "text/event-stream")
		enc := agui.NewEncoder(w)
		rc := http.NewResponseController(w)
		enc.Encode("", &agui.RunStarted{ThreadID: in.ThreadID, RunID: in.RunID})
		rc.Flush()
		for i := 1; i <= n; i++ {
			select {
			case <-r.Context().Done():
				u.aborted.Add(1)
				return
			case <-time.After(interval):
			}
			enc.Encode("", &agui.Custom{Name: "n", Value: agui.JSON(strconv.Itoa(i))})
			rc.Flush()
		}
		enc.Encode("", &agui.RunFinished{ThreadID: in.ThreadID, RunID: in.RunID})
	}))
	t.Cleanup(u.Close)
	return u
}

func mustRead(r io.Reader) []byte { b, _ := io.ReadAll(r); return b }

type frame struct {
	id   string
	data string
}

// readFrames reads SSE frames from body until it ends or stop says so.
func readFrames(body io.Reader, stop func(f frame) bool) []frame {
	var out []frame
	for f, err := range agui.ScanFrames(body, 0) {
		if err != nil {
			break
		}
		if len(f.Data) == 0 {
			continue // the retry hint
		}
		fr := frame{id: f.ID, data: string(f.Data)}
		out = append(out, fr)
		if stop != nil && stop(fr) {
			break
		}
	}
	return out
}

func doReq(t *testing.T, method, url, body string, hdr map[string]string) *http.Response {
	t.Helper()
	req, _ := http.NewRequest(method, url, strings.NewReader(body))
	if body != "" {
		req.Header.Set("Content-Type", "application/json")
	}
	for k, v := range hdr {
		if k == "Host" {
			req.Host = v // what a non-browser client may claim
			continue
		}
		req.Header.Set(k, v)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	return resp
}

func dur(d time.Duration) *Duration { x := Duration(d); return &x }

func TestResumeAfterDisconnect(t *testing.T) {
	up := newCountingUpstream(t, 30, 10*time.Millisecond)
	ts := newTestServer(t, Config{Listen: "x", DetachGrace: dur(5 * time.Second), Agents: map[string]AgentConfig{"a": {Backend: aguiAt(up.URL), A2UI: A2UIConfig{Disabled: true}}}})
	resp := doReq(t, "POST", ts.URL+"/agents/a/run", `{"threadId":"t","runId":"r1","messages":[]}`, nil)
	first := readFrames(resp.Body, func(f frame) bool { return f.id == "5" })
	resp.Body.Close() // the client drops after event 5
	time.Sleep(60 * time.Millisecond)
	if up.aborted.Load() != 0 {
		t.Fatal("the run died with its first client")
	}
	resp = doReq(t, "GET", ts.URL+"/runs/r1/events", "", map[string]string{"Last-Event-ID": "5"})
	if resp.StatusCode != 200 {
		t.Fatalf("resume status %d", resp.StatusCode)
	}
	rest := readFrames(resp.Body, nil)
	resp.Body.Close()
	all := append(first, rest...)
	if len(all) != 32 {
		t.Fatalf("%d events, want 32 (RUN_STARTED, 30, RUN_FINISHED)", len(all))
	}
	for i, f := range all {
		if f.id != strconv.Itoa(i+1) {
			t.Fatalf("event %d has id %q: duplicate or hole", i, f.id)
		}
	}
	if !strings.Contains(all[31].data, "RUN_FINISHED") {
		t.Errorf("last = %s", all[31].data)
	}
	// ?after= works too, and replaying an ended run ends.
	resp = doReq(t, "GET", ts.URL+"/runs/r1/events?after=30", "", nil)
	tail := readFrames(resp.Body, nil)
	resp.Body.Close()
	if len(tail) != 2 || tail[0].id != "31" {
		t.Errorf("after=30 gave %+v", tail)
	}
	// The thread history holds what the run produced.
	resp = doReq(t, "GET", ts.URL+"/threads/t/messages", "", nil)
	var h struct{ Messages []agui.Message }
	json.NewDecoder(resp.Body).Decode(&h)
	resp.Body.Close()
	if resp.StatusCode != 200 {
		t.Errorf("history status %d", resp.StatusCode)
	}
}

func TestDetachGraceCancelsUpstream(t *testing.T) {
	up := newCountingUpstream(t, 1000, 20*time.Millisecond)
	ts := newTestServer(t, Config{Listen: "x", DetachGrace: dur(150 * time.Millisecond), Agents: map[string]AgentConfig{"a": {Backend: aguiAt(up.URL)}}})
	resp := doReq(t, "POST", ts.URL+"/agents/a/run", `{"threadId":"t","runId":"r","messages":[]}`, nil)
	readFrames(resp.Body, func(f frame) bool { return f.id == "2" })
	resp.Body.Close()
	deadline := time.Now().Add(3 * time.Second)
	for up.aborted.Load() == 0 && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	if up.aborted.Load() != 1 {
		t.Fatal("upstream not cancelled after the detach grace")
	}
	// The log says why it ended.
	resp = doReq(t, "GET", ts.URL+"/runs/r/events?after=2", "", nil)
	fr := readFrames(resp.Body, nil)
	resp.Body.Close()
	if last := fr[len(fr)-1].data; !strings.Contains(last, `"code":"detached"`) {
		t.Errorf("last event = %s, want RUN_ERROR detached", last)
	}
}

func TestCancelRoute(t *testing.T) {
	up := newCountingUpstream(t, 1000, 20*time.Millisecond)
	ts := newTestServer(t, Config{Listen: "x", Agents: map[string]AgentConfig{"a": {Backend: aguiAt(up.URL)}}})
	resp := doReq(t, "POST", ts.URL+"/agents/a/run", `{"threadId":"t","runId":"r","messages":[]}`, nil)
	defer resp.Body.Close()
	br := bufio.NewReader(resp.Body)
	frames := make(chan []frame, 1)
	go func() { frames <- readFrames(br, nil) }()
	time.Sleep(80 * time.Millisecond)
	cr := doReq(t, "POST", ts.URL+"/runs/r/cancel", "", nil)
	var out map[string]any
	json.NewDecoder(cr.Body).Decode(&out)
	cr.Body.Close()
	if out["stopped"] != true {
		t.Fatalf("cancel = %v", out)
	}
	got := <-frames
	if last := got[len(got)-1].data; !strings.Contains(last, `"type":"RUN_ERROR"`) || !strings.Contains(last, `"code":"cancelled"`) {
		t.Errorf("stream ended with %s", last)
	}
	time.Sleep(50 * time.Millisecond)
	if up.aborted.Load() != 1 {
		t.Error("upstream request not aborted")
	}
	cr = doReq(t, "POST", ts.URL+"/runs/r/cancel", "", nil)
	json.NewDecoder(cr.Body).Decode(&out)
	cr.Body.Close()
	if out["stopped"] != false {
		t.Errorf("second cancel = %v, want stopped false", out)
	}
	if r := doReq(t, "POST", ts.URL+"/runs/nope/cancel", "", nil); r.StatusCode != 404 {
		t.Errorf("cancel unknown run = %d", r.StatusCode)
	}
}

func TestThreadBusyAndSupersede(t *testing.T) {
	up := newCountingUpstream(t, 1000, 20*time.Millisecond)
	for _, policy := range []string{"reject", "supersede"} {
		t.Run(policy, func(t *testing.T) {
			ts := newTestServer(t, Config{Listen: "x", ThreadPolicy: policy, DetachGrace: dur(time.Minute), Agents: map[string]AgentConfig{"a": {Backend: aguiAt(up.URL)}}})
			r1 := doReq(t, "POST", ts.URL+"/agents/a/run", `{"threadId":"t","runId":"r1","messages":[]}`, nil)
			defer r1.Body.Close()
			readFrames(r1.Body, func(f frame) bool { return f.id == "1" })
			r2 := doReq(t, "POST", ts.URL+"/agents/a/run", `{"threadId":"t","runId":"r2","messages":[]}`, nil)
			defer r2.Body.Close()
			if policy == "reject" {
				var eb errorBody
				json.NewDecoder(r2.Body).Decode(&eb)
				if r2.StatusCode != 409 || eb.Error != "thread_busy" || eb.RunID != "r1" {
					t.Errorf("second run = %d %+v", r2.StatusCode, eb)
				}
				return
			}
			if r2.StatusCode != 200 {
				t.Fatalf("superseding run = %d", r2.StatusCode)
			}
			rest := readFrames(r1.Body, nil)
			if last := rest[len(rest)-1].data; !strings.Contains(last, `"code":"superseded"`) {
				t.Errorf("old run ended with %s", last)
			}
		})
	}
	// A reused run id is refused.
	ts := newTestServer(t, Config{Listen: "x", Agents: map[string]AgentConfig{"d": {Backend: &DemoConfig{}}}})
	doReq(t, "POST", ts.URL+"/agents/d/run", `{"threadId":"x","runId":"same","messages":[]}`, nil).Body.Close()
	if r := doReq(t, "POST", ts.URL+"/agents/d/run", `{"threadId":"y","runId":"same","messages":[]}`, nil); r.StatusCode != 409 {
		t.Errorf("reused run id = %d", r.StatusCode)
	}
}

func TestPrincipals(t *testing.T) {
	ts := serveYAML(t, twoPrincipals+`agents: {d: {type: demo}}`)
	if r := doReq(t, "POST", ts.URL+"/agents/d/run", runBody, nil); r.StatusCode != 401 {
		t.Errorf("no token = %d", r.StatusCode)
	}
	if r := doReq(t, "POST", ts.URL+"/agents/d/run", runBody, map[string]string{"Authorization": "Bearer wrong-token"}); r.StatusCode != 401 {
		t.Errorf("bad token = %d", r.StatusCode)
	}
	r := doReq(t, "POST", ts.URL+"/agents/d/run", runBody, alice)
	io.ReadAll(r.Body)
	r.Body.Close()
	// Bob has no run r (alice's is hers alone) and his thread t is empty.
	for _, tt := range []struct{ method, path string }{{"GET", "/runs/r/events"}, {"POST", "/runs/r/cancel"}} {
		if r := doReq(t, tt.method, ts.URL+tt.path, "", bob); r.StatusCode != 404 {
			t.Errorf("bob %s %s = %d, want 404", tt.method, tt.path, r.StatusCode)
		}
		if r := doReq(t, tt.method, ts.URL+tt.path, "", alice); r.StatusCode != 200 {
			t.Errorf("alice %s %s = %d, want 200", tt.method, tt.path, r.StatusCode)
		}
	}
	if _, h, _ := getJSON(t, ts.URL+"/threads/t/messages", bob); len(h["messages"].([]any)) != 0 {
		t.Errorf("bob's thread t = %v, want empty", h)
	}
	// Alice's history holds the demo conversation, activity messages included.
	r = doReq(t, "GET", ts.URL+"/threads/t/messages", "", alice)
	var h struct{ Messages []agui.Message }
	json.NewDecoder(r.Body).Decode(&h)
	r.Body.Close()
	roles := ""
	for _, m := range h.Messages {
		roles += string(m.Role) + ","
	}
	if roles != "user,assistant,tool,activity,assistant," {
		t.Errorf("history roles = %s", roles)
	}
}

func TestResumeErrors(t *testing.T) {
	cfg := Config{Listen: "x", RunLog: RunLogConfig{MaxEventsPerRun: 5}, Agents: map[string]AgentConfig{"d": {Backend: &DemoConfig{}}}}
	ts := newTestServer(t, cfg)
	r := doReq(t, "POST", ts.URL+"/agents/d/run", runBody, nil)
	io.ReadAll(r.Body)
	r.Body.Close()
	for _, tt := range []struct {
		path, lastID string
		status       int
		code         string
	}{
		{"/runs/r/events", "1", 410, "resume_gap"},
		{"/runs/nope/events", "", 404, "run_not_found"},
		{"/runs/r/events", "abc", 400, "bad_request"},
	} {
		resp := doReq(t, "GET", ts.URL+tt.path, "", map[string]string{"Last-Event-ID": tt.lastID})
		var eb errorBody
		json.NewDecoder(resp.Body).Decode(&eb)
		resp.Body.Close()
		if resp.StatusCode != tt.status || eb.Error != tt.code {
			t.Errorf("GET %s after %q = %d %+v, want %d %s", tt.path, tt.lastID, resp.StatusCode, eb, tt.status, tt.code)
		}
	}
}

// TestNoLeaksOverDetachResumeCancel cycles runs through detach, resume and
// cancel and checks that no goroutine outlives them.
func TestNoLeaksOverDetachResumeCancel(t *testing.T) {
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	up := newCountingUpstream(t, 100000, 5*time.Millisecond)
	// 100 runs as fast as they go: no run-start limit.
	s, err := NewServer(nil, Config{Listen: "x", DetachGrace: dur(time.Minute), Limits: LimitsConfig{RunStartsPerSecond: -1}, Agents: map[string]AgentConfig{"a": {Backend: aguiAt(up.URL)}}})
	if err != nil {
		t.Fatal(err)
	}
	ts := serveAdopted(s)
	client := &http.Client{Transport: &http.Transport{}}
	for i := range 100 {
		id := fmt.Sprintf("r%d", i)
		req, _ := http.NewRequest("POST", ts.URL+"/agents/a/run", strings.NewReader(fmt.Sprintf(`{"threadId":"t%d","runId":"%s","messages":[]}`, i, id)))
		req.Header.Set("Content-Type", "application/json")
		resp, err := client.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		readFrames(resp.Body, func(f frame) bool { return f.id == "2" })
		resp.Body.Close() // detach
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		req, _ = http.NewRequestWithContext(ctx, "GET", ts.URL+"/runs/"+id+"/events", nil)
		req.Header.Set("Last-Event-ID", "2")
		resp, err = client.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		readFrames(resp.Body, func(f frame) bool { return f.id == "3" }) // resumed
		creq, _ := http.NewRequest("POST", ts.URL+"/runs/"+id+"/cancel", nil)
		cresp, err := client.Do(creq)
		if err != nil {
			t.Fatal(err)
		}
		cresp.Body.Close()
		rest := readFrames(resp.Body, nil)
		resp.Body.Close()
		cancel()
		if len(rest) == 0 || !strings.Contains(rest[len(rest)-1].data, "cancelled") {
			t.Fatalf("cycle %d ended with %v", i, rest)
		}
	}
	ts.CloseClientConnections()
	s.Drain(time.Second)
	ts.Close()
	s.Close()
	up.Close()
	client.CloseIdleConnections()
	http.DefaultClient.CloseIdleConnections()
	if got := up.aborted.Load(); got != 100 {
		t.Errorf("%d upstreams aborted, want 100", got)
	}
}

// TestEventsFlushWithoutUpstreamReads: an agent that produces an event and
// then works without reading an upstream (the demo agent paced at 1 s, as
// an MCP tool call would be) still gets it to the client at once: queued
// events are flushed before an upstream read or after a short delay.
func TestEventsFlushWithoutUpstreamReads(t *testing.T) {
	ts := serveYAML(t, `agents: {d: {type: demo, delay: 1s}}`)
	start := time.Now()
	r := doReq(t, "POST", ts.URL+"/agents/d/run", runBody, nil)
	defer r.Body.Close()
	fs := readFrames(r.Body, func(f frame) bool { return strings.Contains(f.data, "RUN_STARTED") })
	if len(fs) == 0 || time.Since(start) > 500*time.Millisecond {
		t.Errorf("RUN_STARTED arrived after %s, want well under the agent's 1 s pace", time.Since(start))
	}
}

// CopilotKit's useInterrupt resumes a legacy interrupt with the
// interrupted run's own id: a resume may reuse an ended run's id (it runs
// as "<id>.resume-N"); anything else may not.
func TestResumeMayReuseARunID(t *testing.T) {
	up := newCountingUpstream(t, 1, 0)
	ts := serveYAML(t, `agents: {a: {type: agui, url: "`+up.URL+`", a2ui: {disabled: true}}}`)
	if code, fs := runAll(t, ts.URL, "a", runJSON("t", "r1", "hi"), nil); code != 200 || lastType(fs) != "RUN_FINISHED" {
		t.Fatalf("first run: %d", code)
	}
	resume := `{"threadId":"t","runId":"r1","messages":[],"forwardedProps":{"command":{"resume":{"approved":true}}}}`
	for _, want := range []string{"r1.resume-1", "r1.resume-2"} {
		code, fs := runAll(t, ts.URL, "a", resume, nil)
		if code != 200 || len(fs) == 0 || !strings.Contains(fs[0].data, `"runId":"`+want+`"`) {
			t.Fatalf("resume with the used id: %d %v, want a run %s", code, fs, want)
		}
	}
	if code, _ := runAll(t, ts.URL, "a", runJSON("t", "r1", "again"), nil); code != http.StatusConflict {
		t.Errorf("a plain run with a used id = %d, want 409", code)
	}
}

// TestThreadMessagesDuringRun: while a run streams, the thread's messages
// already hold the user's message and name the active run, so a client
// that reloads shows the message and resumes the run
// (GET /runs/{id}/events).
func TestThreadMessagesDuringRun(t *testing.T) {
	up := newCountingUpstream(t, 1000, 20*time.Millisecond)
	ts := newTestServer(t, Config{Listen: "x", Agents: map[string]AgentConfig{"a": {Backend: aguiAt(up.URL)}}})
	resp := doReq(t, "POST", ts.URL+"/agents/a/run", `{"threadId":"tm","runId":"rm","messages":[{"id":"u1","role":"user","content":"hello during the run"}]}`, nil)
	defer resp.Body.Close()
	br := bufio.NewReader(resp.Body)
	frames := make(chan []frame, 1)
	go func() { frames <- readFrames(br, nil) }()
	time.Sleep(80 * time.Millisecond)
	hr := doReq(t, "GET", ts.URL+"/threads/tm/messages", "", nil)
	var th struct {
		Messages []struct {
			ID, Role string
			Content  any
		}
		ActiveRunID string
	}
	json.NewDecoder(hr.Body).Decode(&th)
	hr.Body.Close()
	if th.ActiveRunID != "rm" {
		t.Errorf("activeRunId = %q, want rm", th.ActiveRunID)
	}
	if len(th.Messages) == 0 || th.Messages[0].ID != "u1" || th.Messages[0].Content != "hello during the run" {
		t.Errorf("messages during the run = %+v, want the user's message", th.Messages)
	}
	doReq(t, "POST", ts.URL+"/runs/rm/cancel", "", nil).Body.Close()
	<-frames
}
