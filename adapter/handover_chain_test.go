package adapter

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/genui-adapter/genui-adapter/agui"
)

// The agent chain as the adapter builds it ((*Server).chain) over the
// LangGraph backend survives a hand-over: a run asked to hand over after
// any of its events stops where the whole chain can go on, and a fresh
// chain of another instance rejoining from the kept state (after a JSON
// round trip) yields the rest; together, exactly the events of the run
// uninterrupted.
//
// The LangGraph server is a stand-in serving scripted run streams the way
// the Agent Server does for stream_resumable runs (integer frame ids; GET
// .../runs/{r}/stream with Last-Event-ID serves the frames after it),
// shared by both instances as a deployment shares its LangGraph server.

// lgScript is one LangGraph run stream: frames of event and data.
type lgScript [][2]string

// lgServer serves, per LangGraph thread, the n-th POST .../runs/stream
// with the n-th script (the last one again after that).
type lgServer struct {
	scripts []lgScript
	// paced: each frame is flushed on its own, a moment after the last
	// (checkpoints fall between frames); msIDs: langgraph dev's ids, one
	// per millisecond ("<ms>-0"), three frames to an id.
	paced, msIDs bool
	mu           sync.Mutex
	posts        map[string]int   // thread -> run requests served
	bodies       []map[string]any // run requests' bodies
	cancels      int
	paths        []string
}

func (s *lgServer) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	var body map[string]any
	_ = json.NewDecoder(r.Body).Decode(&body)
	s.mu.Lock()
	s.paths = append(s.paths, r.Method+" "+r.URL.Path)
	s.mu.Unlock()
	parts := strings.Split(strings.Trim(r.URL.Path, "/"), "/")
	switch {
	case r.Method == http.MethodPost && r.URL.Path == "/threads":
		json.NewEncoder(w).Encode(map[string]any{"thread_id": body["thread_id"]})
	case strings.HasSuffix(r.URL.Path, "/cancel"):
		s.mu.Lock()
		s.cancels++
		s.mu.Unlock()
		w.WriteHeader(http.StatusAccepted)
	case strings.HasSuffix(r.URL.Path, "/state"):
		w.Write([]byte(`{"values":{}}`))
	case strings.HasSuffix(r.URL.Path, "/history"):
		w.Write([]byte(`[]`))
	case r.Method == http.MethodPost && len(parts) == 4 && parts[2] == "runs" && parts[3] == "stream":
		s.mu.Lock()
		n := s.posts[parts[1]]
		s.posts[parts[1]] = n + 1
		s.bodies = append(s.bodies, body)
		s.mu.Unlock()
		s.stream(w, min(n, len(s.scripts)-1), -1)
	case r.Method == http.MethodGet && len(parts) == 5 && parts[4] == "stream":
		n, err := strconv.Atoi(strings.TrimPrefix(parts[3], "lg-run-"))
		if err != nil || n >= len(s.scripts) {
			http.NotFound(w, r)
			return
		}
		s.stream(w, n, s.after(r.Header.Get("Last-Event-ID")))
	case r.Method == http.MethodGet && len(parts) == 4 && parts[2] == "runs":
		w.Write([]byte(`{"status":"success"}`))
	default:
		http.NotFound(w, r)
	}
}

// frameID is frame i's id.
func (s *lgServer) frameID(i int) string {
	if s.msIDs {
		return strconv.Itoa(1000+i/3) + "-0"
	}
	return strconv.Itoa(i)
}

// after is the index of the last frame at or before Last-Event-ID id (-1
// for none): the frames after it are served.
func (s *lgServer) after(id string) int {
	if !s.msIDs {
		last, err := strconv.Atoi(id)
		if err != nil {
			return -1
		}
		return last
	}
	ms, _, ok := strings.Cut(id, "-")
	m, err := strconv.Atoi(ms)
	if !ok || err != nil {
		return -1
	}
	return (m-1000)*3 + 2 // the frames of ids after <m>-<any>
}

// stream writes script n's frames after index last; frame 0 is the run's
// metadata.
func (s *lgServer) stream(w http.ResponseWriter, n, last int) {
	w.Header().Set("Content-Type", "text/event-stream")
	frames := append(lgScript{{"metadata", fmt.Sprintf(`{"run_id":"lg-run-%d","attempt":1}`, n)}}, s.scripts[n]...)
	for i, f := range frames {
		if i > last {
			w.Write([]byte("event: " + f[0] + "\ndata: " + f[1] + "\nid: " + s.frameID(i) + "\n\n"))
			if s.paced {
				w.(http.Flusher).Flush()
				time.Sleep(2 * time.Millisecond)
			}
		}
	}
}

// chunk is a messages-tuple frame of a chat model's streamed chunk in
// node.
func chunk(node string, msg map[string]any) [2]string {
	msg["type"] = "AIMessageChunk"
	b, _ := json.Marshal([]any{msg, map[string]any{"langgraph_node": node, "ls_integration": "langchain_chat_model"}})
	return [2]string{"messages", string(b)}
}

// toolMessage is a messages-tuple frame of a tool's result in node.
func toolMessage(node, id, call, content string) [2]string {
	b, _ := json.Marshal([]any{map[string]any{"type": "tool", "id": id, "tool_call_id": call, "content": content}, map[string]any{"langgraph_node": node}})
	return [2]string{"messages", string(b)}
}

func values(v string) [2]string { return [2]string{"values", v} }

const handoverA2UI = `{"a2ui_operations":[{"version":"v0.9","createSurface":{"surfaceId":"summary","catalogId":"https://a2ui.org/specification/v0_9/catalogs/basic/catalog.json"}},{"version":"v0.9","updateComponents":{"surfaceId":"summary","components":[{"id":"root","component":"Text","text":"2 open orders"}]}}]}`

// richScript has reasoning, streamed text, streamed tool calls, a
// structured tool result (a generated A2UI surface and a data-view card),
// a tool result that is A2UI (the agent's surface), custom events, state
// snapshots and steps.
func richScript() lgScript {
	human := `{"id":"u1","type":"human","content":"hi"}`
	return lgScript{
		values(`{"messages":[` + human + `]}`),
		chunk("agent", map[string]any{"id": "ai-1", "content": []any{map[string]any{"type": "thinking", "thinking": "Orders, "}}}),
		chunk("agent", map[string]any{"id": "ai-1", "content": []any{map[string]any{"type": "thinking", "thinking": "then a summary."}}}),
		chunk("agent", map[string]any{"id": "ai-1", "content": "Let me "}),
		chunk("agent", map[string]any{"id": "ai-1", "content": "look."}),
		chunk("agent", map[string]any{"id": "ai-1", "content": "", "tool_call_chunks": []any{map[string]any{"id": "call_1", "name": "list_orders", "args": `{"status"`, "index": 0}}}),
		chunk("agent", map[string]any{"id": "ai-1", "content": "", "tool_call_chunks": []any{map[string]any{"args": `:"open"}`, "index": 0}}}),
		chunk("agent", map[string]any{"id": "ai-1", "content": "", "tool_call_chunks": []any{map[string]any{"id": "call_2", "name": "show_summary", "args": `{}`, "index": 1}}}),
		{"updates", `{"agent":{}}`},
		{"custom", `{"progress":1}`},
		toolMessage("tools", "tool-1", "call_1", `{"orders":[{"id":1,"total":9.5},{"id":2,"total":3}]}`),
		toolMessage("tools", "tool-2", "call_2", handoverA2UI),
		values(`{"messages":[` + human + `],"rows":[{"id":1},{"id":2}]}`),
		chunk("answer", map[string]any{"id": "ai-2", "content": "Two open orders"}),
		chunk("answer", map[string]any{"id": "ai-2", "content": ", 12.5 in all."}),
		values(`{"messages":[` + human + `,{"id":"ai-2","type":"ai","content":"Two open orders, 12.5 in all."}],"rows":[{"id":1},{"id":2}]}`),
	}
}

// mcpScripts: the model calls show_data, a tool of the bound MCP server
// genui that the adapter runs, and answers in a follow-up run.
func mcpScripts() []lgScript {
	human := `{"id":"u1","type":"human","content":"hi"}`
	return []lgScript{{
		values(`{"messages":[` + human + `]}`),
		chunk("agent", map[string]any{"id": "ai-1", "content": "Here "}),
		chunk("agent", map[string]any{"id": "ai-1", "content": "are the sales."}),
		{"custom", `{"progress":1}`},
		chunk("agent", map[string]any{"id": "ai-1", "content": "", "tool_call_chunks": []any{map[string]any{"id": "call_s", "name": "show_data", "args": `{"title":"Sales",`, "index": 0}}}),
		chunk("agent", map[string]any{"id": "ai-1", "content": "", "tool_call_chunks": []any{map[string]any{"args": `"data":{"north":12,"south":7}}`, "index": 0}}}),
		values(`{"messages":[` + human + `,{"id":"ai-1","type":"ai","content":"Here are the sales."}]}`),
	}, {
		chunk("agent", map[string]any{"id": "ai-2", "content": "North leads."}),
		values(`{"messages":[` + human + `,{"id":"ai-2","type":"ai","content":"North leads."}]}`),
	}}
}

// volatile are what differs between two runs of one chain, or between
// two instances: ids the adapter draws at random (tool results of MCP
// calls, data-view cards) and capabilities (signed with an expiry).
var (
	randomID = regexp.MustCompile(`\b(mcp-apps-)?[0-9a-f]{24}\b`)
	capToken = regexp.MustCompile(`gcap1\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+`)
)

// normalised replaces each random id by its rank of first appearance and
// every capability by "CAP".
func normalised(lines []string) string {
	ids := map[string]string{}
	out := make([]string, len(lines))
	for i, l := range lines {
		l = capToken.ReplaceAllString(l, "CAP")
		out[i] = randomID.ReplaceAllStringFunc(l, func(id string) string {
			if n, ok := ids[id]; ok {
				return n
			}
			ids[id] = "ID" + strconv.Itoa(len(ids))
			return ids[id]
		})
	}
	return strings.Join(out, "\n")
}

func chainLines(t *testing.T, s *Server, req *agui.Request, at func(n int)) []string {
	t.Helper()
	var out []string
	for ev, err := range s.agents["lg"].chain.Run(t.Context(), req) {
		if err != nil {
			out = append(out, "error: "+err.Error())
			break
		}
		b, _ := json.Marshal(ev)
		out = append(out, string(b))
		if at != nil {
			at(len(out))
		}
	}
	return out
}

func handoverInstance(t *testing.T, url, graph string) *Server {
	t.Helper()
	cfg, err := ParseConfig([]byte(`sandboxKey: handover-test-key
agents:
  lg: {type: langgraph, url: "`+url+`", graph: `+graph+`, subgraphs: false, render: [a2ui, mcp-apps], mcpServers: [genui]}
`), func(string) string { return "" })
	if err != nil {
		t.Fatal(err)
	}
	s, err := NewServer(nil, cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

func TestChainHandover(t *testing.T) {
	var current atomic.Pointer[lgServer]
	up := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { current.Load().ServeHTTP(w, r) }))
	defer up.Close()
	a, b := handoverInstance(t, up.URL, "g"), handoverInstance(t, up.URL, "g")
	input := func() *agui.RunAgentInput {
		return &agui.RunAgentInput{ThreadID: "thread-1", RunID: "run-1", Messages: []agui.Message{{ID: "u1", Role: agui.RoleUser, Content: agui.Text("hi")}}}
	}
	for name, scripts := range map[string][]lgScript{"rich": {richScript()}, "mcp": mcpScripts()} {
		t.Run(name, func(t *testing.T) {
			whole := &lgServer{scripts: scripts, posts: map[string]int{}}
			current.Store(whole)
			want := chainLines(t, a, &agui.Request{Input: input()}, nil)
			if strings.HasPrefix(want[len(want)-1], "error") || !strings.Contains(want[len(want)-1], "RUN_FINISHED") {
				t.Fatalf("the uninterrupted run:\n%s", strings.Join(want, "\n"))
			}
			wantBodies := normalisedBodies(whole.bodies)
			handed := 0
			for k := 1; k < len(want); k++ {
				lg := &lgServer{scripts: scripts, posts: map[string]int{}}
				current.Store(lg)
				h := agui.NewHandover()
				got := chainLines(t, a, &agui.Request{Input: input(), Handover: h}, func(n int) {
					if n == k {
						h.Ask()
					}
				})
				if st, ok := h.Kept(); ok {
					handed++
					js, _ := json.Marshal(st)
					var back agui.HandoverState
					if err := json.Unmarshal(js, &back); err != nil {
						t.Fatal(err)
					}
					got = append(got, chainLines(t, b, &agui.Request{Input: input(), Handover: agui.Resume(back)}, nil)...)
				}
				if g, w := normalised(got), normalised(want); g != w {
					t.Fatalf("asked at event %d (stopped: %v):\n%s\nwant\n%s", k, h.Stopped(), g, w)
				}
				if g := normalisedBodies(lg.bodies); g != wantBodies {
					t.Fatalf("asked at event %d: the run requests\n%s\nwant\n%s", k, g, wantBodies)
				}
				if lg.cancels != 0 {
					t.Fatalf("asked at event %d: the LangGraph run was cancelled", k)
				}
			}
			t.Logf("%d of %d asks handed over", handed, len(want)-1)
			if handed == 0 {
				t.Fatal("no hand-over")
			}
		})
	}
}

// The same chain keeps checkpoints as it goes (agui.Handover.Checkpoint),
// between upstream frames, without stopping: a fresh chain of another
// instance rejoining from any of them (after a JSON round trip), as a
// take-over after the first instance died does, yields exactly the
// events the run yielded after that checkpoint, so the events the log
// has already can be matched one for one and the rest follow. Frames of
// one id (langgraph dev's, one per millisecond) may be split by a
// checkpoint.
func TestChainCheckpoint(t *testing.T) {
	var current atomic.Pointer[lgServer]
	up := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { current.Load().ServeHTTP(w, r) }))
	defer up.Close()
	a, b := handoverInstance(t, up.URL, "g"), handoverInstance(t, up.URL, "g")
	input := func() *agui.RunAgentInput {
		return &agui.RunAgentInput{ThreadID: "thread-1", RunID: "run-1", Messages: []agui.Message{{ID: "u1", Role: agui.RoleUser, Content: agui.Text("hi")}}}
	}
	for _, msIDs := range []bool{false, true} {
		for name, scripts := range map[string][]lgScript{"rich": {richScript()}, "mcp": mcpScripts()} {
			t.Run(fmt.Sprintf("%s/msIDs=%v", name, msIDs), func(t *testing.T) {
				whole := &lgServer{scripts: scripts, posts: map[string]int{}, paced: true, msIDs: msIDs}
				current.Store(whole)
				type kept struct {
					n  int
					st agui.HandoverState
				}
				var cps []kept
				n := 0
				h := agui.NewHandover()
				held := false
				h.Watch(func(take func() agui.HandoverState) {
					if take == nil {
						held = true // the MCP call: no checkpoint holds from here
						return
					}
					if held {
						t.Errorf("a checkpoint after event %d, while held off", n)
					}
					if len(cps) == 0 || cps[len(cps)-1].n != n {
						cps = append(cps, kept{n, take()})
					}
				})
				want := chainLines(t, a, &agui.Request{Input: input(), Handover: h}, func(k int) { n = k })
				if !strings.Contains(want[len(want)-1], "RUN_FINISHED") {
					t.Fatalf("the run:\n%s", strings.Join(want, "\n"))
				}
				// Frames are paced so that most reads bring one; a loaded
				// machine may bring several at once, so fewer checkpoints.
				if len(cps) == 0 {
					t.Fatal("no checkpoint")
				}
				if held != (name == "mcp") {
					t.Fatalf("held off: %v", held)
				}
				for _, cp := range cps {
					// The first run request was made: a follow-up run
					// gets the second script.
					lg := &lgServer{scripts: scripts, posts: map[string]int{}, msIDs: msIDs}
					for tid := range whole.posts {
						lg.posts[tid] = 1
					}
					current.Store(lg)
					js, _ := json.Marshal(cp.st)
					var back agui.HandoverState
					if err := json.Unmarshal(js, &back); err != nil {
						t.Fatal(err)
					}
					got := append(slices.Clone(want[:cp.n]), chainLines(t, b, &agui.Request{Input: input(), Handover: agui.Resume(back)}, nil)...)
					if g, w := normalised(got), normalised(want); g != w {
						t.Fatalf("rejoined from the checkpoint after event %d:\n%s\nwant\n%s", cp.n, g, w)
					}
					if len(lg.bodies) != len(whole.bodies)-1 {
						t.Fatalf("checkpoint after event %d: %d run requests upstream, want %d (the follow-up rounds)", cp.n, len(lg.bodies), len(whole.bodies)-1)
					}
				}
				t.Logf("%d checkpoints over %d events", len(cps), len(want))
			})
		}
	}
}

// normalisedBodies is the run requests' inputs, with random ids
// normalised: a follow-up run's input is the first run's transcript.
func normalisedBodies(bodies []map[string]any) string {
	var lines []string
	for _, b := range bodies {
		in, _ := json.Marshal(b["input"])
		lines = append(lines, string(in))
	}
	return normalised(lines)
}

// A rejoin whose hand-over state lacks a middleware's part, or has one
// that cannot be read, or whose backend state is unreadable, ends with one
// RUN_ERROR (code internal) naming what is wrong: no RUN_STARTED, no
// panic, no new run upstream.
func TestChainRejoinBadState(t *testing.T) {
	var current atomic.Pointer[lgServer]
	up := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { current.Load().ServeHTTP(w, r) }))
	defer up.Close()
	a, b := handoverInstance(t, up.URL, "g"), handoverInstance(t, up.URL, "g")
	input := func() *agui.RunAgentInput {
		return &agui.RunAgentInput{ThreadID: "thread-1", RunID: "run-1", Messages: []agui.Message{{ID: "u1", Role: agui.RoleUser, Content: agui.Text("hi")}}}
	}
	current.Store(&lgServer{scripts: []lgScript{richScript()}, posts: map[string]int{}})
	h := agui.NewHandover()
	chainLines(t, a, &agui.Request{Input: input(), Handover: h}, func(n int) {
		if n == 12 {
			h.Ask()
		}
	})
	kept, ok := h.Kept()
	if !ok {
		t.Fatal("not stopped")
	}
	parts := []string{"normalize.output", "normalize.canonical", "a2ui", "mcpapps", "dataview"}
	for _, p := range parts {
		if _, ok := kept.Parts[p]; !ok {
			t.Fatalf("no part %q kept: %v", p, kept.Parts)
		}
	}
	type variant struct {
		name, want string
		st         agui.HandoverState
	}
	var variants []variant
	for _, p := range parts {
		for how, v := range map[string]json.RawMessage{"missing": nil, "unreadable": json.RawMessage(`"?"`)} {
			st := agui.HandoverState{Backend: kept.Backend, Parts: map[string]json.RawMessage{}}
			for k, raw := range kept.Parts {
				st.Parts[k] = raw
			}
			if v == nil {
				delete(st.Parts, p)
			} else {
				st.Parts[p] = v
			}
			variants = append(variants, variant{how + " " + p, strconv.Quote(p), st})
		}
	}
	variants = append(variants, variant{"unreadable backend state", "LangGraph", agui.HandoverState{Backend: json.RawMessage(`{}`), Parts: kept.Parts}})
	for _, v := range variants {
		lg := &lgServer{scripts: []lgScript{richScript()}, posts: map[string]int{}}
		current.Store(lg)
		got := chainLines(t, b, &agui.Request{Input: input(), Handover: agui.Resume(v.st)}, nil)
		last := got[len(got)-1]
		var re struct{ Type, Code, Message string }
		_ = json.Unmarshal([]byte(last), &re)
		if re.Type != "RUN_ERROR" || re.Code != agui.CodeInternal || !strings.Contains(re.Message, v.want) {
			t.Errorf("%s: ends with %s, want RUN_ERROR internal naming %s", v.name, last, v.want)
		}
		for _, l := range got {
			if strings.Contains(l, `"RUN_STARTED"`) {
				t.Errorf("%s: %s", v.name, l)
			}
		}
		for _, p := range lg.paths {
			if strings.HasPrefix(p, "POST") {
				t.Errorf("%s: %s upstream", v.name, p)
			}
		}
	}
}

// runShape is a run's events as their types, one line each (with the
// activity type, tool or step name), TEXT_MESSAGE_CONTENT folded into one
// line of their text: what two runs of a live graph have in common (the
// LangGraph server's message and run ids differ).
func runShape(lines []string) string {
	var b, text strings.Builder
	for _, l := range lines {
		var e struct{ Type, Delta, ActivityType, ToolCallName, StepName string }
		_ = json.Unmarshal([]byte(l), &e)
		if e.Type == "TEXT_MESSAGE_CONTENT" {
			text.WriteString(e.Delta)
			continue
		}
		if text.Len() > 0 {
			fmt.Fprintf(&b, "TEXT %q\n", text.String())
			text.Reset()
		}
		if e.Type == "" {
			e.Type = l
		}
		b.WriteString(strings.TrimSpace(e.Type + " " + e.ActivityType + e.ToolCallName + e.StepName))
		b.WriteByte('\n')
	}
	return b.String()
}

// TestChainHandoverLive is TestChainHandover against a real `langgraph
// dev` at GENUI_LANGGRAPH_URL serving e2e/langgraph-python (skipped
// without it), graph GENUI_LANGGRAPH_GRAPH (default tools: a tool whose
// JSON result becomes an A2UI surface and a data-view card), each ask on
// a thread of its own; the runs are compared by shape.
func TestChainHandoverLive(t *testing.T) {
	url := os.Getenv("GENUI_LANGGRAPH_URL")
	if url == "" {
		t.Skip("GENUI_LANGGRAPH_URL is not set")
	}
	graph := os.Getenv("GENUI_LANGGRAPH_GRAPH")
	if graph == "" {
		graph = "tools"
	}
	a, b := handoverInstance(t, url, graph), handoverInstance(t, url, graph)
	input := func(thread string) *agui.RunAgentInput {
		return &agui.RunAgentInput{ThreadID: thread, RunID: "run-" + thread, Messages: []agui.Message{{ID: "u-" + thread, Role: agui.RoleUser, Content: agui.Text("weather in Paris")}}}
	}
	want := chainLines(t, a, &agui.Request{Input: input(t.Name() + "-whole")}, nil)
	t.Logf("whole run: %d events\n%s", len(want), runShape(want))
	handed := 0
	for k := 1; k < len(want); k++ {
		thread := fmt.Sprintf("%s-%d", t.Name(), k)
		h := agui.NewHandover()
		got := chainLines(t, a, &agui.Request{Input: input(thread), Handover: h}, func(n int) {
			if n == k {
				h.Ask()
			}
		})
		if st, ok := h.Kept(); ok {
			handed++
			js, _ := json.Marshal(st)
			var back agui.HandoverState
			if err := json.Unmarshal(js, &back); err != nil {
				t.Fatal(err)
			}
			got = append(got, chainLines(t, b, &agui.Request{Input: input(thread), Handover: agui.Resume(back)}, nil)...)
		}
		if g, w := runShape(got), runShape(want); g != w {
			t.Errorf("asked at %d:\n%s\nwant\n%s", k, g, w)
		}
	}
	t.Logf("%d of %d asks handed over", handed, len(want)-1)
	if handed == 0 {
		t.Fatal("no hand-over")
	}
}

// TestChainCheckpointLive is TestChainCheckpoint against a real `langgraph
// dev` at GENUI_LANGGRAPH_URL (skipped without it; e2e/langgraph/live.test.js
// runs it on the Python server), graph GENUI_LANGGRAPH_GRAPH (default
// tools): one run keeps a checkpoint before every read of its stream, and
// another chain rejoins the same run from each, while it goes on or after
// it ended; with what the first run yielded before the checkpoint, each
// is the run's shape.
func TestChainCheckpointLive(t *testing.T) {
	url := os.Getenv("GENUI_LANGGRAPH_URL")
	if url == "" {
		t.Skip("GENUI_LANGGRAPH_URL is not set")
	}
	graph := os.Getenv("GENUI_LANGGRAPH_GRAPH")
	if graph == "" {
		graph = "tools"
	}
	a, b := handoverInstance(t, url, graph), handoverInstance(t, url, graph)
	thread := t.Name()
	input := func() *agui.RunAgentInput {
		return &agui.RunAgentInput{ThreadID: thread, RunID: "run-" + thread, Messages: []agui.Message{{ID: "u-" + thread, Role: agui.RoleUser, Content: agui.Text("weather in Paris")}}}
	}
	type kept struct {
		n  int
		st agui.HandoverState
	}
	var cps []kept
	n := 0
	h := agui.NewHandover()
	h.Watch(func(take func() agui.HandoverState) {
		if take != nil && (len(cps) == 0 || cps[len(cps)-1].n != n) {
			cps = append(cps, kept{n, take()})
		}
	})
	want := chainLines(t, a, &agui.Request{Input: input(), Handover: h}, func(k int) { n = k })
	if !strings.Contains(want[len(want)-1], "RUN_FINISHED") {
		t.Fatalf("the run:\n%s", strings.Join(want, "\n"))
	}
	t.Logf("%d checkpoints over %d events\n%s", len(cps), len(want), runShape(want))
	if len(cps) == 0 {
		t.Fatal("no checkpoint")
	}
	for _, cp := range cps {
		js, _ := json.Marshal(cp.st)
		var back agui.HandoverState
		if err := json.Unmarshal(js, &back); err != nil {
			t.Fatal(err)
		}
		got := append(slices.Clone(want[:cp.n]), chainLines(t, b, &agui.Request{Input: input(), Handover: agui.Resume(back)}, nil)...)
		if g, w := runShape(got), runShape(want); g != w {
			t.Errorf("rejoined from the checkpoint after event %d:\n%s\nwant\n%s", cp.n, g, w)
		}
	}
}
