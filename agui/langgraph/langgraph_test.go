package langgraph

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/genui-adapter/genui-adapter/agui"
	"github.com/genui-adapter/genui-adapter/agui/aguihttp"
	"go.uber.org/goleak"
	"golang.org/x/tools/txtar"
)

var update = flag.Bool("update", false, "rewrite golden files")

// The testdata/streams/*.txtar upstream streams were recorded from a real `langgraphjs dev`
// server (@langchain/langgraph-cli 1.5.1, @langchain/langgraph 1.7.3)
// running testdata/graph.mjs; e2e/langgraph runs the same graphs live.

// replay is a LangGraph Agent Server stand-in that serves a recorded run
// stream, cut after cut frames (0: whole), and resumes it from
// Last-Event-ID on GET .../runs/{id}/stream.
type replay struct {
	t       *testing.T
	frames  []string
	cut     int
	status  string // run status reported by GET /threads/{t}/runs/{r}
	mu      sync.Mutex
	bodies  []map[string]any
	paths   []string
	lastID  []string
	hold    bool // keep the stream open after the frames
	resumed bool
	state   string // GET .../state (default: empty values)
	history string // POST .../history (default: [])
	stall   bool   // a run's stream sends its first frame, then nothing; resumptions nothing
	// noSubgraphs fails a run asked for stream_subgraphs before it
	// streams anything, as the JavaScript server 2.0.0 does; the probe
	// run too, unless probePasses.
	noSubgraphs, probePasses bool
	probes                   int    // probe runs served
	schemas                  string // GET /assistants/{id}/schemas (default: 404; "500": fails)
	// assistant, when set, is the only id the schemas route takes (422
	// for any other, as the Python server answers a graph id); POST
	// /assistants/search names it.
	assistant string
	// finished: a resume request gets no frames, as the Python server
	// answers one for a run that has ended.
	finished bool
	// onHold, when set, is called when a held stream has sent its
	// frames; the stream then sends the rest and ends.
	onHold func()
}

// archive reads testdata/streams/name.txtar: the recorded upstream.sse,
// the run status the server reported after it, and the expected
// agui.jsonl.
func archive(t *testing.T, name string) *txtar.Archive {
	ar, err := txtar.ParseFile(filepath.Join("testdata", "streams", name+".txtar"))
	if err != nil {
		t.Fatal(err)
	}
	return ar
}

func section(ar *txtar.Archive, name string) string {
	for _, f := range ar.Files {
		if f.Name == name {
			return string(f.Data)
		}
	}
	return ""
}

func newReplay(t *testing.T, name string) *replay {
	ar := archive(t, name)
	var frames []string
	for _, f := range strings.Split(section(ar, "upstream.sse"), "\n\n") {
		if strings.TrimSpace(f) != "" {
			frames = append(frames, f+"\n\n")
		}
	}
	return &replay{t: t, frames: frames, status: strings.TrimSpace(section(ar, "status"))}
}

func (r *replay) ServeHTTP(w http.ResponseWriter, req *http.Request) {
	r.mu.Lock()
	r.paths = append(r.paths, req.Method+" "+req.URL.Path)
	var body map[string]any
	if req.Body != nil {
		_ = json.NewDecoder(req.Body).Decode(&body)
	}
	r.bodies = append(r.bodies, body)
	r.lastID = append(r.lastID, req.Header.Get("Last-Event-ID"))
	r.mu.Unlock()
	refused := "event: metadata\ndata: {\"run_id\":\"refused-run\",\"attempt\":1}\nid: 0\n\n" +
		"event: error\ndata: {\ndata:   \"error\": \"TypeError\",\ndata:   \"message\": \"Cannot read properties of undefined (reading 'map')\"\ndata: }\nid: 1\n\n"
	switch {
	case req.Method == http.MethodPost && req.URL.Path == "/threads":
		id, _ := body["thread_id"].(string)
		if id == "" {
			id = "probe-thread"
		}
		json.NewEncoder(w).Encode(map[string]string{"thread_id": id})
	case req.Method == http.MethodPost && req.URL.Path == "/assistants/search" && r.assistant != "":
		fmt.Fprintf(w, `[{"assistant_id":%q,"graph_id":%q}]`, r.assistant, body["graph_id"])
	case strings.HasSuffix(req.URL.Path, "/schemas") && r.assistant != "" && req.URL.Path != "/assistants/"+r.assistant+"/schemas":
		w.WriteHeader(http.StatusUnprocessableEntity)
		io.WriteString(w, `{"detail":"Invalid assistant ID: must be a UUID"}`)
	case req.Method == http.MethodDelete:
		w.WriteHeader(http.StatusNoContent)
	case req.URL.Path == "/threads/probe-thread/runs/stream":
		r.mu.Lock()
		r.probes++
		r.mu.Unlock()
		w.Header().Set("Content-Type", "text/event-stream")
		if r.noSubgraphs && !r.probePasses {
			io.WriteString(w, refused)
			return
		}
		io.WriteString(w, "event: metadata\ndata: {\"run_id\":\"probe-run\"}\n\nevent: values\ndata: {\"messages\":[]}\n\n")
	case strings.HasSuffix(req.URL.Path, "/schemas") && r.schemas == "500":
		http.Error(w, `{"detail":"Cannot find module 'typescript'"}`, http.StatusInternalServerError)
	case strings.HasSuffix(req.URL.Path, "/schemas") && r.schemas != "":
		io.WriteString(w, r.schemas)
	case strings.HasSuffix(req.URL.Path, "/state"):
		r.mu.Lock()
		st := r.state
		r.mu.Unlock()
		if st == "" {
			st = `{"values":{}}`
		}
		io.WriteString(w, st)
	case strings.HasSuffix(req.URL.Path, "/history"):
		r.mu.Lock()
		h := r.history
		r.mu.Unlock()
		if h == "" {
			h = `[]`
		}
		io.WriteString(w, h)
	case strings.HasSuffix(req.URL.Path, "/cancel"):
		w.WriteHeader(http.StatusAccepted)
	case strings.HasSuffix(req.URL.Path, "/stream") && r.noSubgraphs && body["stream_subgraphs"] == true:
		w.Header().Set("Content-Type", "text/event-stream")
		io.WriteString(w, refused)
	case strings.HasSuffix(req.URL.Path, "/stream"):
		w.Header().Set("Content-Type", "text/event-stream")
		frames := r.frames
		if r.stall {
			if req.Method == http.MethodGet {
				frames = nil
			} else {
				frames = frames[:1]
			}
			r.hold = true
		} else if req.Method == http.MethodGet { // resume after Last-Event-ID
			var from int
			fmt.Sscan(req.Header.Get("Last-Event-ID"), &from)
			frames = frames[from+1:]
			if r.finished {
				frames = nil
			}
			r.mu.Lock()
			r.resumed = true
			r.mu.Unlock()
		} else if r.cut > 0 {
			frames = frames[:r.cut]
		}
		for _, f := range frames {
			io.WriteString(w, f)
		}
		w.(http.Flusher).Flush()
		if r.hold {
			if r.onHold != nil {
				r.onHold()
				for _, f := range r.frames[len(frames):] {
					io.WriteString(w, f)
				}
				return
			}
			<-req.Context().Done()
		}
	case req.Method == http.MethodGet && strings.Contains(req.URL.Path, "/runs/"):
		r.mu.Lock()
		st := r.status
		if r.cut > 0 && !r.resumed {
			st = "running"
		}
		r.mu.Unlock()
		json.NewEncoder(w).Encode(map[string]string{"status": st})
	default:
		http.NotFound(w, req)
	}
}

// runBody is the body of the last run request.
func (r *replay) runBody() map[string]any {
	r.mu.Lock()
	defer r.mu.Unlock()
	for i := len(r.paths) - 1; i >= 0; i-- {
		if strings.HasSuffix(r.paths[i], "/runs/stream") && strings.HasPrefix(r.paths[i], "POST") {
			return r.bodies[i]
		}
	}
	return nil
}

func run(t *testing.T, a *Agent, in *agui.RunAgentInput) (string, error) {
	t.Helper()
	var b bytes.Buffer
	for ev, err := range a.Run(t.Context(), &agui.Request{Input: in}) {
		if err != nil {
			return b.String(), err
		}
		j, _ := json.Marshal(ev)
		b.Write(j)
		b.WriteByte('\n')
	}
	return b.String(), nil
}

func golden(t *testing.T, name, got string) {
	t.Helper()
	ar := archive(t, name)
	if *update {
		for i, f := range ar.Files {
			if f.Name == "agui.jsonl" {
				ar.Files[i].Data = []byte(got)
			}
		}
		os.WriteFile(filepath.Join("testdata", "streams", name+".txtar"), txtar.Format(ar), 0o644)
	}
	if want := section(ar, "agui.jsonl"); got != want {
		t.Errorf("%s: events differ from the archive's agui.jsonl\ngot:\n%s\nwant:\n%s", name, got, want)
	}
}

func input(msgs ...agui.Message) *agui.RunAgentInput {
	return &agui.RunAgentInput{ThreadID: "thread-1", RunID: "run-1", Messages: msgs}
}

func TestRecordedStreams(t *testing.T) {
	for _, g := range []string{"chat", "tools", "approve", "fail"} {
		t.Run(g, func(t *testing.T) {
			rp := newReplay(t, g)
			srv := httptest.NewServer(rp)
			defer srv.Close()
			// The archives keep the server's error text (ExposeErrors).
			got, err := run(t, &Agent{Upstream: aguihttp.Upstream{URL: srv.URL, ExposeErrors: true}, Graph: g}, input(agui.Message{ID: "u1", Role: agui.RoleUser, Content: agui.Text("hi")}))
			if err != nil {
				// A failed run ends with the RUN_ERROR Normalize makes of it.
				j, _ := json.Marshal(agui.AsRunError(err))
				got += string(j) + "\n"
			}
			golden(t, g, got)
			// Every stream is one valid AG-UI run.
			var evs []agui.Event
			for _, line := range strings.Split(strings.TrimSpace(got), "\n") {
				ev, err := agui.ParseEvent([]byte(line))
				if err != nil {
					t.Fatalf("unparseable output %s: %v", line, err)
				}
				evs = append(evs, ev)
			}
			if _, ok := evs[0].(*agui.RunStarted); !ok {
				t.Errorf("first event %T", evs[0])
			}
			switch evs[len(evs)-1].(type) {
			case *agui.RunFinished, *agui.RunError:
			default:
				t.Errorf("last event %T", evs[len(evs)-1])
			}
		})
	}
}

func TestChatTextIsOneMessage(t *testing.T) {
	srv := httptest.NewServer(newReplay(t, "chat"))
	defer srv.Close()
	tr := agui.NewTranscript(nil)
	for ev, err := range (&Agent{Upstream: aguihttp.Upstream{URL: srv.URL}, Graph: "chat", NoMessagesSnapshot: true}).Run(t.Context(), &agui.Request{Input: input()}) {
		if err != nil {
			t.Fatal(err)
		}
		tr.Apply(ev)
	}
	msgs := tr.Messages()
	if len(msgs) != 1 || msgs[0].Content.String() != "Hello from LangGraph" {
		t.Fatalf("transcript %+v, want one assistant message with the whole text", msgs)
	}
}

// The run ends with the thread's messages as LangGraph holds them, with
// the ids the stream used (unless configured off).
func TestMessagesSnapshotAtEnd(t *testing.T) {
	srv := httptest.NewServer(newReplay(t, "tools"))
	defer srv.Close()
	var streamed []string
	var snap *agui.MessagesSnapshot
	var after []agui.EventType
	for ev, err := range (&Agent{Upstream: aguihttp.Upstream{URL: srv.URL}, Graph: "tools"}).Run(t.Context(), &agui.Request{Input: input(agui.Message{ID: "u1", Role: agui.RoleUser, Content: agui.Text("hi")})}) {
		if err != nil {
			t.Fatal(err)
		}
		switch e := ev.(type) {
		case *agui.TextMessageStart:
			streamed = append(streamed, e.MessageID)
		case *agui.ToolCallResult:
			streamed = append(streamed, e.MessageID)
		case *agui.MessagesSnapshot:
			snap = e
			continue
		}
		if snap != nil {
			after = append(after, ev.Type())
		}
	}
	if snap == nil || len(after) != 1 || after[0] != agui.TypeRunFinished {
		t.Fatalf("snapshot %v, then %v; want it right before RUN_FINISHED", snap, after)
	}
	have := map[string]bool{}
	for _, m := range snap.Messages {
		have[m.ID] = true
	}
	for _, id := range streamed {
		if !have[id] {
			t.Errorf("streamed message %s is not in the snapshot %+v", id, snap.Messages)
		}
	}
	if snap.Messages[0].ID != "u1" || snap.Messages[0].Role != agui.RoleUser {
		t.Errorf("snapshot starts with %+v", snap.Messages[0])
	}
}

func TestRequestBody(t *testing.T) {
	rp := newReplay(t, "chat")
	srv := httptest.NewServer(rp)
	defer srv.Close()
	a := &Agent{Upstream: aguihttp.Upstream{URL: srv.URL}, Graph: "chat", AssistantConfig: map[string]any{"recursion_limit": 7}}
	in := input(
		agui.Message{ID: "u1", Role: agui.RoleUser, Content: agui.Text("list")},
		agui.Message{ID: "a1", Role: agui.RoleAssistant, ToolCalls: []agui.ToolCall{{ID: "c1", Type: "function", Function: agui.FunctionCall{Name: "f", Arguments: `{"x":1}`}}}},
		agui.Message{ID: "t1", Role: agui.RoleTool, ToolCallID: "c1", Content: agui.Text("ok")},
	)
	if _, err := run(t, a, in); err != nil {
		t.Fatal(err)
	}
	tid := ThreadID("thread-1")
	if rp.paths[0] != "POST /threads" || rp.bodies[0]["thread_id"] != tid || rp.bodies[0]["if_exists"] != "do_nothing" {
		t.Fatalf("thread create: %v %v", rp.paths[0], rp.bodies[0])
	}
	var paths []string // without the subgraph probe's
	for _, p := range rp.paths[1:] {
		if !strings.Contains(p, "probe-thread") && p != "POST /threads" {
			paths = append(paths, p)
		}
	}
	if paths[0] != "GET /assistants/chat/schemas" || paths[1] != "GET /threads/"+tid+"/state" || paths[2] != "POST /threads/"+tid+"/runs/stream" {
		t.Fatalf("requests %v", rp.paths)
	}
	if b := rp.bodies[3]; b["stream_subgraphs"] != true || b["interrupt_before"] != "*" || rp.paths[4] != "DELETE /threads/probe-thread" {
		t.Fatalf("subgraph probe: %v %v", rp.paths, b)
	}
	b, _ := json.Marshal(rp.runBody())
	for _, want := range []string{`"assistant_id":"chat"`, `"recursion_limit":7`, `"type":"human"`, `"tool_calls":[{"args":{"x":1},"id":"c1","name":"f","type":"tool_call"}]`, `"tool_call_id":"c1","type":"tool"`, `"stream_resumable":true`} {
		if !strings.Contains(string(b), want) {
			t.Errorf("run body lacks %s: %s", want, b)
		}
	}
	if ThreadID("thread-1") != tid || ThreadID("thread-2") == tid || len(tid) != 36 {
		t.Errorf("thread id mapping not stable or not a UUID: %s", tid)
	}
}

// A server that cannot stream subgraphs (the JavaScript server 2.0.0
// fails such runs, or never ends them) is found out by one probe run that
// executes no node; runs then go without, and the next runs do not probe
// again. A run that fails before the graph streamed anything while asked
// for subgraphs is run again without them; a graph that fails after it
// started is not run again.
func TestSubgraphsProbedAndRefused(t *testing.T) {
	whole := httptest.NewServer(newReplay(t, "chat"))
	defer whole.Close()
	want, err := run(t, &Agent{Upstream: aguihttp.Upstream{URL: whole.URL}, Graph: "chat"}, input())
	if err != nil {
		t.Fatal(err)
	}
	asked := func(rp *replay) (asked []any) {
		rp.mu.Lock()
		defer rp.mu.Unlock()
		for i, p := range rp.paths {
			if p == "POST /threads/"+ThreadID("thread-1")+"/runs/stream" {
				asked = append(asked, rp.bodies[i]["stream_subgraphs"])
			}
		}
		return asked
	}
	for _, c := range []struct {
		name         string
		probePasses  bool
		first, later string
	}{
		{"probe refused", false, "[<nil>]", "[<nil> <nil>]"},
		{"probe passed, run refused", true, "[true <nil>]", "[true <nil> <nil>]"},
	} {
		rp := newReplay(t, "chat")
		rp.noSubgraphs, rp.probePasses = true, c.probePasses
		srv := httptest.NewServer(rp)
		a := &Agent{Upstream: aguihttp.Upstream{URL: srv.URL}, Graph: "chat"}
		got, err := run(t, a, input())
		if err != nil {
			t.Fatal(err)
		}
		if got != want {
			t.Fatalf("%s: run differs:\n%s\nwant\n%s", c.name, got, want)
		}
		if s := fmt.Sprint(asked(rp)); s != c.first {
			t.Fatalf("%s: stream_subgraphs of the run requests: %s, want %s", c.name, s, c.first)
		}
		if _, err := run(t, a, input()); err != nil {
			t.Fatal(err)
		}
		if s := fmt.Sprint(asked(rp)); s != c.later {
			t.Fatalf("%s: stream_subgraphs of the run requests: %s, want %s", c.name, s, c.later)
		}
		if rp.probes != 1 {
			t.Fatalf("%s: %d probes", c.name, rp.probes)
		}
		srv.Close()
	}

	fail := newReplay(t, "fail")
	srv2 := httptest.NewServer(fail)
	defer srv2.Close()
	_, err = run(t, &Agent{Upstream: aguihttp.Upstream{URL: srv2.URL, ExposeErrors: true}, Graph: "fail"}, input())
	var re *agui.RunFailure
	if !errors.As(err, &re) || re.Code != CodeGraphError || re.Message != "graph exploded" {
		t.Fatalf("failing graph: %v", err)
	}
	n := 0
	for _, p := range fail.paths {
		if strings.HasSuffix(p, "/runs/stream") && !strings.Contains(p, "probe-thread") {
			n++
		}
	}
	if n != 1 {
		t.Fatalf("a graph that failed after it started was run %d times", n)
	}
}

func TestResumeSendsCommand(t *testing.T) {
	rp := newReplay(t, "chat")
	srv := httptest.NewServer(rp)
	defer srv.Close()
	in := input()
	in.Resume = []agui.ResumeEntry{{InterruptID: "i1", Status: "resolved", Payload: agui.JSON(`{"approved":true}`)}}
	if _, err := run(t, &Agent{Upstream: aguihttp.Upstream{URL: srv.URL}, Graph: "approve"}, in); err != nil {
		t.Fatal(err)
	}
	b, _ := json.Marshal(rp.runBody())
	if !strings.Contains(string(b), `"command":{"resume":{"approved":true}}`) || strings.Contains(string(b), `"input"`) {
		t.Fatalf("resume body %s", b)
	}
}

// A stream that drops mid-run resumes from the last event id and the
// client sees the same events as an unbroken run.
func TestDroppedStreamResumes(t *testing.T) {
	whole := httptest.NewServer(newReplay(t, "chat"))
	defer whole.Close()
	want, err := run(t, &Agent{Upstream: aguihttp.Upstream{URL: whole.URL}, Graph: "chat"}, input())
	if err != nil {
		t.Fatal(err)
	}
	rp := newReplay(t, "chat")
	rp.cut = 9
	srv := httptest.NewServer(rp)
	defer srv.Close()
	got, err := run(t, &Agent{Upstream: aguihttp.Upstream{URL: srv.URL}, Graph: "chat"}, input())
	if err != nil {
		t.Fatal(err)
	}
	if got != want {
		t.Fatalf("resumed run differs:\n%s\nwant\n%s", got, want)
	}
	resumes := 0
	for i, p := range rp.paths {
		if strings.HasPrefix(p, "GET /threads/") && strings.HasSuffix(p, "/stream") {
			resumes++
			if rp.lastID[i] != "8" {
				t.Errorf("resume Last-Event-ID %q, want 8", rp.lastID[i])
			}
		}
	}
	if resumes != 1 {
		t.Fatalf("%d resume requests in %v", resumes, rp.paths)
	}
}

// A stream that drops before the run's last values, resumed when the
// run has ended and the server replays nothing: the run still ends with
// the thread's messages, the answer among them.
func TestDroppedStreamOfEndedRunEndsWithThreadMessages(t *testing.T) {
	whole := httptest.NewServer(newReplay(t, "chat"))
	defer whole.Close()
	want, err := run(t, &Agent{Upstream: aguihttp.Upstream{URL: whole.URL}, Graph: "chat"}, input())
	if err != nil {
		t.Fatal(err)
	}
	rp := newReplay(t, "chat")
	last := rp.frames[len(rp.frames)-1] // event: values, the run's last
	data := last[strings.Index(last, "data: ")+len("data: "):]
	rp.state = `{"values":` + data[:strings.Index(data, "\n")] + `}`
	rp.cut = len(rp.frames) - 1
	rp.finished = true
	srv := httptest.NewServer(rp)
	defer srv.Close()
	got, err := run(t, &Agent{Upstream: aguihttp.Upstream{URL: srv.URL}, Graph: "chat"}, input())
	if err != nil {
		t.Fatal(err)
	}
	snapshot := func(out string) string {
		for _, l := range strings.Split(out, "\n") {
			if strings.Contains(l, `"MESSAGES_SNAPSHOT"`) {
				return l
			}
		}
		return ""
	}
	if snapshot(got) == "" || snapshot(got) != snapshot(want) {
		t.Fatalf("messages snapshot after the resume:\n%s\nwant\n%s", snapshot(got), snapshot(want))
	}
}

func TestUnreachableAndHTTPErrors(t *testing.T) {
	_, err := run(t, &Agent{Upstream: aguihttp.Upstream{URL: "http://127.0.0.1:1"}, Graph: "x"}, input())
	var re *agui.RunFailure
	if !errors.As(err, &re) || re.Code != agui.CodeUpstreamUnreachable {
		t.Fatalf("unreachable: %v", err)
	}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/threads" {
			w.Write([]byte(`{}`))
			return
		}
		w.WriteHeader(http.StatusNotFound)
		w.Write([]byte(`{"detail":"Assistant \"nope\" not found"}`))
	}))
	defer srv.Close()
	// The server's complaint goes to the log (in Err), and to the client
	// only when exposed.
	_, err = run(t, &Agent{Upstream: aguihttp.Upstream{URL: srv.URL}, Graph: "nope"}, input())
	if !errors.As(err, &re) || re.Code != agui.CodeUpstreamStatus || !strings.Contains(re.Message, "LangGraph run: HTTP 404") ||
		strings.Contains(re.Message, "nope") || !strings.Contains(re.Err.Error(), `Assistant \\\"nope\\\" not found`) {
		t.Fatalf("404: %q, %v", re.Message, err)
	}
	_, err = run(t, &Agent{Upstream: aguihttp.Upstream{URL: srv.URL, ExposeErrors: true}, Graph: "nope"}, input())
	if !errors.As(err, &re) || re.Code != agui.CodeUpstreamStatus || !strings.Contains(re.Message, `Assistant "nope" not found`) {
		t.Fatalf("404, exposed: %v", err)
	}
}

// A client that goes away mid-run cancels the LangGraph run and leaves
// no goroutine behind.
func TestClientGoneCancelsRun(t *testing.T) {
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	rp := newReplay(t, "chat")
	rp.cut, rp.hold = 5, true
	srv := httptest.NewServer(rp)
	defer srv.Close()
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	n := 0
	for _, err := range (&Agent{Upstream: aguihttp.Upstream{URL: srv.URL}, Graph: "chat"}).Run(ctx, &agui.Request{Input: input()}) {
		if err != nil {
			t.Fatal(err)
		}
		if n++; n == 3 {
			cancel()
		}
	}
	deadline := time.Now().Add(2 * time.Second)
	for {
		rp.mu.Lock()
		last := rp.paths[len(rp.paths)-1]
		rp.mu.Unlock()
		if strings.HasSuffix(last, "/cancel") {
			if !strings.Contains(last, "/runs/01a228db-c56f-75c8-9142-87ed24bcca0c/") {
				t.Fatalf("cancelled the wrong run: %s", last)
			}
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("no cancel sent; last request %s", last)
		}
		time.Sleep(10 * time.Millisecond)
	}
	srv.CloseClientConnections()
}

// FuzzTranslate feeds arbitrary upstream streams to the translator: it
// must not panic, and whatever it emits must start a run only once and
// parse back as AG-UI events.
func FuzzTranslate(f *testing.F) {
	for _, g := range []string{"tools", "approve", "fail"} { // chat (20 KB) slows the coverage-guided engine to a crawl
		ar, err := txtar.ParseFile(filepath.Join("testdata", "streams", g+".txtar"))
		if err != nil {
			f.Fatal(err)
		}
		f.Add([]byte(section(ar, "upstream.sse")))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		var evs []agui.Event
		tr := &translator{in: input(), yield: func(ev agui.Event, err error) bool {
			if ev != nil {
				evs = append(evs, ev)
			}
			return true
		}}
		if done, _ := tr.consume(bytes.NewReader(data), 1<<16); !done {
			tr.finish()
		}
		for _, ev := range evs {
			b, err := json.Marshal(ev)
			if err != nil {
				t.Fatalf("marshal %T: %v", ev, err)
			}
			if _, err := agui.ParseEvent(b); err != nil {
				t.Fatalf("emitted an unparseable event %s: %v", b, err)
			}
			if _, ok := ev.(*agui.RunStarted); ok {
				t.Fatal("the translator must not start runs; Run does")
			}
		}
	})
}

// A consumer that stops reading (a stop, or a middleware ending the run)
// cancels the LangGraph run too, with the context still alive.
func TestConsumerStopCancelsRun(t *testing.T) {
	rp := newReplay(t, "chat")
	rp.cut, rp.hold = 5, true
	srv := httptest.NewServer(rp)
	defer srv.Close()
	defer srv.CloseClientConnections()
	n := 0
	for _, err := range (&Agent{Upstream: aguihttp.Upstream{URL: srv.URL}, Graph: "chat"}).Run(t.Context(), &agui.Request{Input: input()}) {
		if err != nil {
			t.Fatal(err)
		}
		if n++; n == 3 {
			break
		}
	}
	rp.mu.Lock()
	defer rp.mu.Unlock()
	if last := rp.paths[len(rp.paths)-1]; !strings.HasSuffix(last, "/runs/01a228db-c56f-75c8-9142-87ed24bcca0c/cancel") {
		t.Fatalf("no cancel after the consumer stopped; last request %s", last)
	}
}

// BenchmarkTranslate measures the translation of the recorded tools run
// (12 upstream frames) without HTTP.
func BenchmarkTranslate(b *testing.B) {
	ar, err := txtar.ParseFile(filepath.Join("testdata", "streams", "tools.txtar"))
	if err != nil {
		b.Fatal(err)
	}
	data := []byte(section(ar, "upstream.sse"))
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for b.Loop() {
		n := 0
		tr := &translator{in: input(), yield: func(agui.Event, error) bool { n++; return true }}
		if done, _ := tr.consume(bytes.NewReader(data), 1<<20); !done {
			tr.finish()
		}
		if n == 0 {
			b.Fatal("no events")
		}
	}
}

// runBodyFor runs a against the recorded chat stream and returns the run
// request's body.
func runBodyFor(t *testing.T, a *Agent, ctx context.Context, req *agui.Request) string {
	t.Helper()
	rp := newReplay(t, "chat")
	srv := httptest.NewServer(rp)
	defer srv.Close()
	a.URL, a.Graph = srv.URL, "chat"
	for _, err := range a.Run(ctx, req) {
		if err != nil {
			t.Fatal(err)
		}
	}
	b, _ := json.Marshal(rp.runBody())
	return string(b)
}

// forwardedProps.command from 0.0.5x clients and CopilotKit's interrupt
// hooks: resume (a JSON string holding JSON is parsed), goto, update;
// RunAgentInput.resume wins over command.resume.
func TestForwardedCommand(t *testing.T) {
	in := input()
	in.ForwardedProps = agui.JSON(`{"command":{"resume":"{\"approved\":true}","goto":"review","update":{"step":2},"evil":1}}`)
	b := runBodyFor(t, &Agent{}, t.Context(), &agui.Request{Input: in})
	if !strings.Contains(b, `"command":{"goto":"review","resume":{"approved":true},"update":{"step":2}}`) || strings.Contains(b, `"input"`) || strings.Contains(b, "evil") {
		t.Errorf("command body %s", b)
	}
	in.Resume = []agui.ResumeEntry{{InterruptID: "i1", Status: "resolved", Payload: agui.JSON(`"from input.resume"`)}}
	if b := runBodyFor(t, &Agent{}, t.Context(), &agui.Request{Input: in}); !strings.Contains(b, `"resume":"from input.resume"`) || !strings.Contains(b, `"goto":"review"`) {
		t.Errorf("input.resume did not win: %s", b)
	}
	// A resume never carries input, whatever messages the client sends
	// (Aegra answers 422 to both).
	in = input(agui.Message{ID: "u1", Role: agui.RoleUser, Content: agui.Text("new words")})
	in.Resume = []agui.ResumeEntry{{InterruptID: "i1", Status: "resolved", Payload: agui.JSON(`true`)}}
	if b := runBodyFor(t, &Agent{}, t.Context(), &agui.Request{Input: in}); strings.Contains(b, `"input"`) || strings.Contains(b, "new words") {
		t.Errorf("a resume with messages sent input: %s", b)
	}
	in.Resume, in.ForwardedProps = nil, agui.JSON(`{"command":{"resume":true}}`)
	if b := runBodyFor(t, &Agent{}, t.Context(), &agui.Request{Input: in}); strings.Contains(b, `"input"`) || !strings.Contains(b, `"command":{"resume":true}`) {
		t.Errorf("a command.resume with messages sent input: %s", b)
	}
	// goto without resume still sends the messages.
	in = input(agui.Message{ID: "u1", Role: agui.RoleUser, Content: agui.Text("hi")})
	in.ForwardedProps = agui.JSON(`{"command":{"goto":"review"}}`)
	if b := runBodyFor(t, &Agent{}, t.Context(), &agui.Request{Input: in}); !strings.Contains(b, `"command":{"goto":"review"}`) || !strings.Contains(b, `"input":{"messages"`) {
		t.Errorf("goto body %s", b)
	}
}

// Trust at the graph boundary: the client sets only allow-listed
// configurable and context keys; the principal comes from the adapter.
func TestClientConfigIsAllowListed(t *testing.T) {
	in := input()
	in.ForwardedProps = agui.JSON(`{"config":{"recursion_limit":100000,"configurable":{"model":"gpt-x","user_id":"admin","genui_principal":"mallory"}},"webhook":"http://169.254.169.254/","checkpointId":"cp-1","metadata":{"genui_principal":"mallory","page":"orders"}}`)
	a := &Agent{AssistantConfig: map[string]any{"recursion_limit": 7, "configurable": map[string]any{"user_id": "deployment"}}, ClientConfigKeys: []string{"model"}}
	b := runBodyFor(t, a, t.Context(), &agui.Request{Input: in, Principal: "alice"})
	for _, want := range []string{`"recursion_limit":7`, `"model":"gpt-x"`, `"user_id":"deployment"`, `"genui_principal":"alice"`, `"checkpoint_id":"cp-1"`, `"page":"orders"`} {
		if !strings.Contains(b, want) {
			t.Errorf("run body lacks %s: %s", want, b)
		}
	}
	for _, bad := range []string{"100000", "admin", "mallory", "webhook", "169.254"} {
		if strings.Contains(b, bad) {
			t.Errorf("run body carries the client's %s: %s", bad, b)
		}
	}
	// Default: no client key at all; a client context alone still carries
	// the principal, in context (LangGraph refuses both).
	in.ForwardedProps = agui.JSON(`{"config":{"configurable":{"model":"gpt-x"}},"context":{"model":"gpt-y","tenant":"t1"}}`)
	b = runBodyFor(t, &Agent{ClientConfigKeys: []string{"tenant"}}, t.Context(), &agui.Request{Input: in, Principal: "alice"})
	if strings.Contains(b, "gpt-") || !strings.Contains(b, `"context":{"genui_principal":"alice","tenant":"t1"}`) || strings.Contains(b, `"configurable"`) {
		t.Errorf("context body %s", b)
	}
	if b := runBodyFor(t, &Agent{}, t.Context(), &agui.Request{Input: input()}); strings.Contains(b, "genui_principal") || strings.Contains(b, `"config"`) {
		t.Errorf("unauthenticated run body %s", b)
	}
}

// Regenerate / edit: the client cuts the conversation back to a user
// message the thread holds (perhaps edited); the run forks from the
// checkpoint before that message.
func TestEditForksFromTheCheckpointBefore(t *testing.T) {
	msg := func(id, typ string) string { return `{"id":"` + id + `","type":"` + typ + `","content":"x"}` }
	cp := func(id string, ms ...string) string {
		return `{"checkpoint":{"checkpoint_id":"` + id + `"},"values":{"messages":[` + strings.Join(ms, ",") + `]}}`
	}
	u1, a1, u2, a2 := msg("u1", "human"), msg("a1", "ai"), msg("u2", "human"), msg("a2", "ai")
	user := func(id string) agui.Message {
		return agui.Message{ID: id, Role: agui.RoleUser, Content: agui.Text("edited " + id)}
	}
	asst := agui.Message{ID: "a1", Role: agui.RoleAssistant, Content: agui.Text("x")}
	for _, c := range []struct {
		name string
		in   []agui.Message
		want any
	}{
		{"edit the second question", []agui.Message{user("u1"), asst, user("u2")}, "cp2"},
		{"edit the first question", []agui.Message{user("u1")}, "cp0"},
		{"a new turn", []agui.Message{user("u1"), asst, user("u2"), {ID: "a2", Role: agui.RoleAssistant, Content: agui.Text("x")}, user("u3")}, nil},
		{"a new thread's message", []agui.Message{user("zz")}, nil},
	} {
		rp := newReplay(t, "chat")
		rp.state = `{"values":{"messages":[` + strings.Join([]string{u1, a1, u2, a2}, ",") + `]}}`
		rp.history = "[" + strings.Join([]string{cp("cp4", u1, a1, u2, a2), cp("cp3", u1, a1, u2), cp("cp2", u1, a1), cp("cp1", u1), cp("cp0")}, ",") + "]"
		srv := httptest.NewServer(rp)
		if _, err := run(t, &Agent{Upstream: aguihttp.Upstream{URL: srv.URL}, Graph: "chat"}, input(c.in...)); err != nil {
			t.Fatal(err)
		}
		srv.Close()
		if got := rp.runBody()["checkpoint_id"]; got != c.want {
			t.Errorf("%s: checkpoint_id %v, want %v", c.name, got, c.want)
		}
	}
}

// A graph that declares its output keys shows only those in snapshots
// (its private keys stay on the server, as with @ag-ui/langgraph); one
// whose server cannot say shows every key.
func TestSnapshotsShowOnlyOutputKeys(t *testing.T) {
	frames := []string{
		"event: metadata\ndata: {\"run_id\":\"r1\"}\nid: 0\n\n",
		"event: values\ndata: {\"messages\":[],\"plan\":[\"a\"],\"secret\":\"s3\"}\nid: 1\n\n",
		"event: custom\ndata: 1\nid: 2\n\n",
	}
	for _, tc := range []struct{ schemas, assistant, want, not, keys string }{
		{`{"output_schema":{"properties":{"messages":{},"plan":{}}}}`, "", `{"plan":["a"]}`, "s3", "messages,plan"},
		{``, "", `{"plan":["a"],"secret":"s3"}`, "", ""},
		{`{"output_schema":{}}`, "", `{"plan":["a"],"secret":"s3"}`, "", ""},
		// The Python server: the schemas of the graph's assistant.
		{`{"output_schema":{"properties":{"messages":{},"plan":{}}}}`, "5f1e5d2c-0d1e-5b8e-9d44-6a0f3c1b2a77", `{"plan":["a"]}`, "s3", "messages,plan"},
		// A schema route that fails (the JavaScript server without
		// typescript) does not fail the run.
		{`500`, "", `{"plan":["a"],"secret":"s3"}`, "", ""},
	} {
		rp := &replay{t: t, frames: frames, status: "success", schemas: tc.schemas, assistant: tc.assistant}
		srv := httptest.NewServer(rp)
		a := &Agent{Upstream: aguihttp.Upstream{URL: srv.URL}, Graph: "g"}
		if a.OutputKeys() != nil {
			t.Errorf("output keys before any run: %v", a.OutputKeys())
		}
		out, err := run(t, a, input(agui.Message{ID: "u1", Role: agui.RoleUser, Content: agui.Text("hi")}))
		if got := strings.Join(a.OutputKeys(), ","); got != tc.keys {
			t.Errorf("schemas %q: OutputKeys = %q, want %q", tc.schemas, got, tc.keys)
		}
		srv.Close()
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(out, `"type":"STATE_SNAPSHOT","snapshot":`+tc.want) {
			t.Errorf("schemas %q: want snapshot %s in\n%s", tc.schemas, tc.want, out)
		}
		if tc.not != "" && strings.Contains(out, tc.not) {
			t.Errorf("schemas %q: a private key reached the client:\n%s", tc.schemas, out)
		}
	}
}

// A server that goes silent mid-run, and stays silent on every
// resumption, ends the run with upstream_truncated after the bounded
// retries: never a hang.
func TestSilentStreamEnds(t *testing.T) {
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	rp := newReplay(t, "chat")
	rp.stall = true
	srv := httptest.NewServer(rp)
	defer srv.Close()
	defer srv.CloseClientConnections()
	start := time.Now()
	_, err := run(t, &Agent{Upstream: aguihttp.Upstream{URL: srv.URL, IdleTimeout: 100 * time.Millisecond}, Graph: "chat", MaxReconnects: 2}, input())
	var re *agui.RunFailure
	if !errors.As(err, &re) || re.Code != agui.CodeUpstreamTruncated {
		t.Fatalf("silent stream: %v", err)
	}
	if d := time.Since(start); d > 5*time.Second {
		t.Fatalf("took %v", d)
	}
}

// Each resume entry answers the interrupt it names: one answer to the
// only pending interrupt is the bare answer, several (or one of several
// pending) a map by interrupt id, a cancelled one the official adapter's
// marker, and an id that is not pending an error before any run.
func TestResumeValue(t *testing.T) {
	e := func(id, status, payload string) agui.ResumeEntry {
		return agui.ResumeEntry{InterruptID: id, Status: status, Payload: agui.JSON(payload)}
	}
	for _, c := range []struct {
		name    string
		entries []agui.ResumeEntry
		pending []string
		known   bool
		want    string
	}{
		{"one of one", []agui.ResumeEntry{e("i1", "resolved", `{"ok":true}`)}, []string{"i1"}, true, `{"ok":true}`},
		{"legacy id, one pending", []agui.ResumeEntry{e("legacy", "resolved", `"yes"`)}, []string{"i1"}, true, `"yes"`},
		{"one of two", []agui.ResumeEntry{e("i2", "resolved", `"yes"`)}, []string{"i1", "i2"}, true, `{"i2":"yes"}`},
		{"two of two", []agui.ResumeEntry{e("i1", "resolved", `1`), e("i2", "cancelled", ``)}, []string{"i1", "i2"}, true, `{"i1":1,"i2":{"__agui_cancelled__":true,"interrupt_id":"i2"}}`},
		{"state unknown", []agui.ResumeEntry{e("i1", "resolved", `1`), e("i2", "resolved", `2`)}, nil, false, `{"i1":1,"i2":2}`},
		{"not pending", []agui.ResumeEntry{e("i1", "resolved", `1`), e("gone", "resolved", `2`)}, []string{"i1", "i2"}, true, `error`},
		{"none pending", []agui.ResumeEntry{e("i1", "resolved", `1`), e("i2", "resolved", `2`)}, nil, true, `error`},
	} {
		v, err := resumeValue(c.entries, c.pending, c.known)
		got := "error"
		if err == nil {
			b, _ := json.Marshal(v)
			got = string(b)
		} else if re := (*agui.RunFailure)(nil); !errors.As(err, &re) || re.Code != CodeInterruptNotPending {
			t.Errorf("%s: error %v", c.name, err)
		}
		if got != c.want {
			t.Errorf("%s: resume %s, want %s", c.name, got, c.want)
		}
	}
}

// A LangGraph interrupt becomes the AG-UI interrupt @ag-ui/langgraph
// makes of it.
func TestInterruptShape(t *testing.T) {
	for raw, want := range map[string]string{
		`{"id":"i1","value":{"question":"Refund?"}}`:     `{"id":"i1","reason":"langgraph:interrupt","metadata":{"langgraph":{"raw":{"question":"Refund?"}},"value":{"question":"Refund?"}}}`,
		`{"id":"i2","value":"Approve?","when":"during"}`: `{"id":"i2","reason":"langgraph:interrupt","message":"Approve?","metadata":{"langgraph":{"raw":"Approve?","when":"during"},"value":"Approve?"}}`,
		`{"id":"i3","value":{"reason":"tool_approval","message":"Run refund?","tool_call_id":"c1","response_schema":{"type":"boolean"},"expiresAt":"2027-01-01T00:00:00Z"}}`: `{"id":"i3","reason":"tool_approval","message":"Run refund?","toolCallId":"c1","responseSchema":{"type":"boolean"},"expiresAt":"2027-01-01T00:00:00Z","metadata":{"langgraph":{"raw":{"reason":"tool_approval","message":"Run refund?","tool_call_id":"c1","response_schema":{"type":"boolean"},"expiresAt":"2027-01-01T00:00:00Z"}},"value":{"reason":"tool_approval","message":"Run refund?","tool_call_id":"c1","response_schema":{"type":"boolean"},"expiresAt":"2027-01-01T00:00:00Z"}}}`,
	} {
		b, _ := json.Marshal(aguiInterrupt(json.RawMessage(raw)))
		if string(b) != want {
			t.Errorf("%s:\n got %s\nwant %s", raw, b, want)
		}
	}
}

// BenchmarkEventsMode measures what the "events" stream mode (on by
// default for CopilotKit's helpers; copilotkitHelpers: false leaves it
// out) costs the adapter: the same recorded runs read with and without
// their events frames. Bytes/op is what the LangGraph server sends.
func BenchmarkEventsMode(b *testing.B) {
	for _, g := range []string{"chat", "helpers"} {
		ar, err := txtar.ParseFile(filepath.Join("testdata", "streams", "events-"+g+".txtar"))
		if err != nil {
			b.Fatal(err)
		}
		with := section(ar, "upstream.sse")
		var without strings.Builder
		for _, f := range strings.SplitAfter(with, "\n\n") {
			if !strings.HasPrefix(f, "event: events") {
				without.WriteString(f)
			}
		}
		for _, c := range []struct{ name, stream string }{{"with", with}, {"without", without.String()}} {
			b.Run(g+"/"+c.name, func(b *testing.B) {
				b.SetBytes(int64(len(c.stream)))
				b.ReportAllocs()
				for b.Loop() {
					t := &translator{in: input(), yield: func(agui.Event, error) bool { return true }, snapshot: true}
					if _, err := t.consume(strings.NewReader(c.stream), agui.DefaultMaxEventSize); err != nil {
						b.Fatal(err)
					}
				}
			})
		}
	}
}

// The JavaScript server 2.0.0 indents the JSON it streams: tool call
// arguments passed on as text are compact all the same.
func TestIndentedJSONArgumentsAreCompact(t *testing.T) {
	stream := "event: metadata\ndata: {\n  \"run_id\": \"r1\"\n}\n\n" +
		"event: events\ndata: {\ndata:   \"event\": \"on_custom_event\",\ndata:   \"name\": \"copilotkit_manually_emit_tool_call\",\ndata:   \"data\": {\ndata:     \"id\": \"c1\", \"name\": \"show\",\ndata:     \"args\": {\ndata:       \"percent\": 50\ndata:     }\ndata:   }\ndata: }\n\n" +
		"event: messages\ndata: [\ndata:   {\"id\": \"m1\", \"type\": \"ai\", \"content\": \"\", \"tool_calls\": [{\"id\": \"c2\", \"name\": \"f\", \"args\": {\ndata:     \"x\": 1\ndata:   }}]},\ndata:   {\"langgraph_node\": \"n\"}\ndata: ]\n\n"
	var args []string
	tr := &translator{in: input(), yield: func(ev agui.Event, _ error) bool {
		if a, ok := ev.(*agui.ToolCallArgs); ok {
			args = append(args, a.Delta)
		}
		return true
	}}
	if _, err := tr.consume(strings.NewReader(stream), 0); err != nil {
		t.Fatal(err)
	}
	if fmt.Sprint(args) != `[{"percent":50} {"x":1}]` {
		t.Fatalf("arguments %q", args)
	}
}

// A thread's conversation comes from the state of the LangGraph thread the
// AG-UI thread maps to for the principal; a thread the server does not
// have is none, and a failing server an error.
func TestThreadMessages(t *testing.T) {
	var asked []string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		asked = append(asked, r.URL.Path)
		switch r.URL.Path {
		case "/threads/" + ThreadID(agui.ScopedThreadID("alice", "t1")) + "/state":
			io.WriteString(w, `{"values":{"messages":[{"id":"u1","type":"human","content":"hi"},{"id":"a1","type":"ai","content":"","tool_calls":[{"id":"c1","name":"f","args":{"x":1}}]},{"id":"t1","type":"tool","tool_call_id":"c1","content":"ok"}]}}`)
		case "/threads/" + ThreadID("t1") + "/state":
			http.Error(w, `{"detail":"boom"}`, http.StatusInternalServerError)
		default:
			http.Error(w, `{"detail":"Thread not found"}`, http.StatusNotFound)
		}
	}))
	defer srv.Close()
	a := &Agent{Upstream: aguihttp.Upstream{URL: srv.URL}, Graph: "g"}
	msgs, err := a.ThreadMessages(t.Context(), "alice", "t1")
	if err != nil {
		t.Fatal(err)
	}
	b, _ := json.Marshal(msgs)
	if want := `[{"id":"u1","role":"user","content":"hi"},{"id":"a1","role":"assistant","content":"","toolCalls":[{"id":"c1","type":"function","function":{"name":"f","arguments":"{\"x\":1}"}}]},{"id":"t1","role":"tool","content":"ok","toolCallId":"c1"}]`; string(b) != want {
		t.Fatalf("messages\n%s\nwant\n%s", b, want)
	}
	if msgs, err := a.ThreadMessages(t.Context(), "bob", "t1"); msgs != nil || err != nil {
		t.Fatalf("another principal's thread: %v %v", msgs, err)
	}
	// The server's answer goes to the log (Err), not to the client.
	var re *agui.RunFailure
	if _, err := a.ThreadMessages(t.Context(), "", "t1"); !errors.As(err, &re) || !strings.Contains(re.Message, "HTTP 500") || !strings.Contains(re.Err.Error(), "boom") {
		t.Fatalf("failing server: %v", err)
	}
}

// A LangGraph error event carries the server's exception text (internal
// host names, SQL, secrets in a message): it reaches the client only when
// upstream errors are exposed; otherwise RUN_ERROR has a fixed text and
// the exception goes to the log (the yielded error's cause).
func TestErrorEventNotExposed(t *testing.T) {
	const secret = "psycopg.OperationalError: connection to db.internal:5432 failed: password authentication failed for user admin"
	frame := "event: error\ndata: {\"error\":\"OperationalError\",\"message\":\"" + secret + "\"}\n\n"
	for _, expose := range []bool{false, true} {
		var seen []string
		var cause error
		tr := &translator{in: input(), expose: expose, yield: func(ev agui.Event, err error) bool {
			if err != nil {
				cause = err
				ev = agui.AsRunError(err)
			}
			if re, ok := ev.(*agui.RunError); ok {
				if re.Code != "langgraph_error" {
					t.Errorf("expose=%v: code %q", expose, re.Code)
				}
				seen = append(seen, re.Message)
			}
			return true
		}}
		if _, err := tr.consume(strings.NewReader(frame), 1<<16); err != nil {
			t.Fatal(err)
		}
		if len(seen) != 1 {
			t.Fatalf("expose=%v: RUN_ERRORs %q", expose, seen)
		}
		if got := strings.Contains(seen[0], "db.internal"); got != expose {
			t.Errorf("expose=%v: RUN_ERROR message %q", expose, seen[0])
		}
		if !expose && (cause == nil || !strings.Contains(cause.Error(), "db.internal")) {
			t.Errorf("the exception is not in the logged cause: %v", cause)
		}
	}
}

// The output schema keeps a graph's private state keys on the server: a
// refresh the server cannot answer (down, overloaded, slow) keeps the
// keys it gave, rather than turning the filter off for a TTL. A server
// that answers without a schema (a 404, no properties) shows every key.
func TestOutputKeysKeptWhenTheServerCannotAnswer(t *testing.T) {
	var status atomic.Int32
	status.Store(200)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if s := int(status.Load()); s != 200 {
			w.WriteHeader(s)
			return
		}
		io.WriteString(w, `{"output_schema":{"properties":{"answer":{}}}}`)
	}))
	defer srv.Close()
	ctx := context.Background()
	expire := func(a *Agent) {
		a.schemaMu.Lock()
		a.schemaAt = time.Now().Add(-2 * schemaTTL)
		a.schemaMu.Unlock()
	}
	a := &Agent{Upstream: aguihttp.Upstream{URL: srv.URL}, Graph: "g"}
	if keys := a.outputKeys(ctx, nil); !keys["answer"] || len(keys) != 1 {
		t.Fatalf("keys %v", keys)
	}
	for _, s := range []int32{503, 500, 429} {
		status.Store(s)
		expire(a)
		if keys := a.outputKeys(ctx, nil); !keys["answer"] || len(keys) != 1 {
			t.Errorf("a %d on refresh: keys %v, want the last known {answer}", s, keys)
		}
	}
	a.URL = "http://127.0.0.1:1"
	expire(a)
	if keys := a.outputKeys(ctx, nil); !keys["answer"] || len(keys) != 1 {
		t.Errorf("unreachable on refresh: keys %v, want the last known {answer}", keys)
	}
	// The server says it has no schema now (a redeployed graph): every key.
	a.URL = srv.URL
	status.Store(404)
	expire(a)
	if keys := a.outputKeys(ctx, nil); keys != nil {
		t.Errorf("a 404: keys %v, want nil (every key)", keys)
	}
}

// A run its process gives up because the run log did not answer (or lost
// to another process) leaves the LangGraph run going: another instance
// may have taken it over from its checkpoint, or will once the log
// answers, and a cancel would cut the run it follows short.
func TestLogUnavailableLeavesRunAlone(t *testing.T) {
	for _, code := range []string{agui.CodeOwnerLost, agui.CodeLogUnavailable} {
		t.Run(code, func(t *testing.T) {
			rp := newReplay(t, "chat")
			rp.cut, rp.hold = 5, true
			srv := httptest.NewServer(rp)
			defer srv.Close()
			defer srv.CloseClientConnections()
			ctx, cancel := context.WithCancelCause(t.Context())
			defer cancel(nil)
			n := 0
			for _, err := range (&Agent{Upstream: aguihttp.Upstream{URL: srv.URL}, Graph: "chat"}).Run(ctx, &agui.Request{Input: input()}) {
				if err != nil {
					t.Fatal(err)
				}
				if n++; n == 3 {
					cancel(&agui.RunFailure{Code: code, Message: "given up"})
				}
			}
			time.Sleep(100 * time.Millisecond)
			rp.mu.Lock()
			defer rp.mu.Unlock()
			for _, p := range rp.paths {
				if strings.HasSuffix(p, "/cancel") {
					t.Fatalf("the LangGraph run was cancelled (%s) though the run was given up with %s", p, code)
				}
			}
		})
	}
}

// A probe the server does not answer as a run (it does not know the graph
// yet, or it went down between creating the probe's thread and running it)
// finds nothing about subgraphs: the next run
// probes again and streams subgraphs from a server that can, rather than
// going without them for subgraphsRecheck.
func TestSubgraphsProbeUnansweredFindsNothing(t *testing.T) {
	for _, down := range []struct {
		name string
		fail func(w http.ResponseWriter)
	}{
		{"graph unknown", func(w http.ResponseWriter) {
			http.Error(w, `{"detail":"No assistant found for \"chat\"."}`, http.StatusNotFound)
		}},
		{"connection dropped", func(w http.ResponseWriter) {
			c, _, err := w.(http.Hijacker).Hijack()
			if err == nil {
				c.Close()
			}
		}},
	} {
		t.Run(down.name, func(t *testing.T) {
			rp := newReplay(t, "chat")
			var off atomic.Bool
			off.Store(true)
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				if off.Load() && strings.HasSuffix(r.URL.Path, "/runs/stream") {
					down.fail(w)
					return
				}
				rp.ServeHTTP(w, r)
			}))
			defer srv.Close()
			a := &Agent{Upstream: aguihttp.Upstream{URL: srv.URL}, Graph: "chat", Logger: slog.New(slog.DiscardHandler)}
			if _, err := run(t, a, input()); err == nil {
				t.Fatal("a run while the server was down succeeded")
			}
			off.Store(false)
			if _, err := run(t, a, input()); err != nil {
				t.Fatal(err)
			}
			rp.mu.Lock()
			defer rp.mu.Unlock()
			var asked []any
			for i, p := range rp.paths {
				if p == "POST /threads/"+ThreadID("thread-1")+"/runs/stream" {
					asked = append(asked, rp.bodies[i]["stream_subgraphs"])
				}
			}
			if fmt.Sprint(asked) != "[true]" || rp.probes != 1 {
				t.Errorf("once the server is back: stream_subgraphs %v, probes %d; want [true] after one probe", asked, rp.probes)
			}
		})
	}
}

// A probe the server takes in but does not answer in time (the JavaScript
// server 2.0.0 may never end a run asked for subgraphs, and a server or
// proxy that sends its headers with the first frame then sends none) is
// a finding: runs go without subgraphs and the next run does not wait on
// another probe.
func TestSubgraphsProbeTimeoutIsAFinding(t *testing.T) {
	rp := newReplay(t, "chat")
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/threads/probe-thread/runs/stream" {
			rp.mu.Lock()
			rp.probes++
			rp.mu.Unlock()
			io.Copy(io.Discard, r.Body) // so that the client's leaving ends r's context
			<-r.Context().Done()        // taken in, never answered
			return
		}
		rp.ServeHTTP(w, r)
	}))
	defer srv.Close()
	a := &Agent{Upstream: aguihttp.Upstream{URL: srv.URL, ConnectTimeout: 300 * time.Millisecond}, Graph: "chat", Logger: slog.New(slog.DiscardHandler)}
	for range 2 {
		if _, err := run(t, a, input()); err != nil {
			t.Fatal(err)
		}
	}
	rp.mu.Lock()
	defer rp.mu.Unlock()
	if rp.probes != 1 {
		t.Errorf("%d probes of a server that never answered one, want 1", rp.probes)
	}
}
