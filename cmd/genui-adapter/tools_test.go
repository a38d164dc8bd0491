package main

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"
)

func TestHealthcheck(t *testing.T) {
	addr := freeAddr(t)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	env := map[string]string{"GENUI_LISTEN": addr, "GENUI_SANDBOX_LISTEN": "127.0.0.1:0"}
	done := make(chan error, 1)
	var out, errb syncBuffer
	go func() {
		done <- run(ctx, []string{"genui-adapter"}, func(k string) string { return env[k] }, &out, &errb)
	}()
	waitHealthy(t, "http://"+addr)
	var o syncBuffer
	if err := run(context.Background(), []string{"genui-adapter", "healthcheck"}, func(k string) string { return env[k] }, &o, &o); err != nil || !strings.Contains(o.String(), "healthy") {
		t.Errorf("healthcheck of a running instance = %v %q", err, o.String())
	}
	cancel()
	<-done
	if err := run(context.Background(), []string{"genui-adapter", "healthcheck", "-timeout", "500ms"}, func(k string) string { return env[k] }, &o, &o); err == nil {
		t.Errorf("healthcheck of a stopped instance succeeded")
	}
}

func TestCheckDoctor(t *testing.T) {
	dir := t.TempDir()
	broken := filepath.Join(dir, "broken.sse")
	os.WriteFile(broken, []byte(`data: {"type":"RUN_STARTED","threadId":"t","runId":"r"}

data: {"type":"TEXT_MESSAGE_START","messageId":"m","role":"assistant","name":null}

data: {"type":"TEXT_MESSAGE_CONTENT","messageId":"m","delta":"hi"}

data: {"type":"SOMETHING_NEW","x":1}

`), 0o644)
	var out syncBuffer
	err := run(context.Background(), []string{"genui-adapter", "check", broken}, func(string) string { return "" }, &out, &out)
	if !errors.Is(err, errViolations) {
		t.Errorf("check of a broken recording = %v, want violations\n%s", err, out.String())
	}
	for _, want := range []string{"null_field", "unknown_event", "missing_terminal", "0.0.57", "ending RUN_ERROR"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("the report lacks %q:\n%s", want, out.String())
		}
	}
	up := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		w.Write([]byte("data: {\"type\":\"RUN_STARTED\",\"threadId\":\"genui-check\",\"runId\":\"genui-check-run\"}\n\ndata: {\"type\":\"RUN_FINISHED\",\"threadId\":\"genui-check\",\"runId\":\"genui-check-run\"}\n\n"))
	}))
	defer up.Close()
	out = syncBuffer{}
	if err := run(context.Background(), []string{"genui-adapter", "check", up.URL}, func(string) string { return "" }, &out, &out); err != nil || !strings.Contains(out.String(), "no violations") {
		t.Errorf("check of a clean endpoint = %v\n%s", err, out.String())
	}
	// An endpoint that cannot be reached: the report says why.
	dead := httptest.NewServer(http.NotFoundHandler())
	dead.Close()
	out = syncBuffer{}
	err = run(context.Background(), []string{"genui-adapter", "check", dead.URL}, func(string) string { return "" }, &out, &out)
	if !errors.Is(err, errViolations) || !strings.Contains(out.String(), "upstream_unreachable") || !strings.Contains(out.String(), "cause: Post") || !strings.Contains(out.String(), "connection refused") {
		t.Errorf("check of an unreachable endpoint = %v\n%s", err, out.String())
	}
}

func TestA2UIValidateCommand(t *testing.T) {
	var out syncBuffer
	example := filepath.Join("..", "..", "schemas", "testdata", "examples", "basic", "33_financial-data-grid.json")
	if err := run(context.Background(), []string{"genui-adapter", "a2ui", "validate", example}, func(string) string { return "" }, &out, &out); err != nil || !strings.Contains(out.String(), "0 errors") {
		t.Errorf("a2ui validate of the official example = %v\n%s", err, out.String())
	}
	out = syncBuffer{}
	v08 := filepath.Join("..", "..", "schemas", "testdata", "v0_8", "basic", "13_coffee-order.json")
	if err := run(context.Background(), []string{"genui-adapter", "a2ui", "validate", v08}, func(string) string { return "" }, &out, &out); err != nil || !strings.Contains(out.String(), "A2UI v0.8, 3 messages, 0 errors") {
		t.Errorf("a2ui validate of the official v0.8 example = %v\n%s", err, out.String())
	}
	out = syncBuffer{}
	v10 := filepath.Join("..", "..", "schemas", "testdata", "v1_0", "13_coffee-order.json")
	if err := run(context.Background(), []string{"genui-adapter", "a2ui", "validate", v10}, func(string) string { return "" }, &out, &out); err != nil || !strings.Contains(out.String(), "A2UI v1.0, 3 messages, 0 errors") {
		t.Errorf("a2ui validate of the official v1.0 example = %v\n%s", err, out.String())
	}
	bad := filepath.Join(t.TempDir(), "bad.jsonl")
	os.WriteFile(bad, []byte("{\"version\":\"v0.9\",\"updateComponents\":{\"surfaceId\":\"nope\",\"components\":[{\"id\":\"root\",\"component\":\"Text\",\"text\":\"x\"}]}}\n{\"version\":\"v0.9\",\"nope\":{}}\n"), 0o644)
	out = syncBuffer{}
	if err := run(context.Background(), []string{"genui-adapter", "a2ui", "validate", bad}, func(string) string { return "" }, &out, &out); !errors.Is(err, errViolations) || !strings.Contains(out.String(), "message 1") {
		t.Errorf("a2ui validate of a bad file = %v\n%s", err, out.String())
	}
}

// TestA2UIValidateConfigLimits checks that a2ui validate applies the
// a2uiLimits of the service's config (-config, or GENUI_CONFIG as serve
// reads it), so the offline check refuses what the service would.
func TestA2UIValidateConfigLimits(t *testing.T) {
	example := filepath.Join("..", "..", "schemas", "testdata", "examples", "basic", "33_financial-data-grid.json")
	cfg := filepath.Join(t.TempDir(), "genui.yaml")
	if err := os.WriteFile(cfg, []byte("agents: {demo: {type: demo}}\na2uiLimits:\n  maxComponents: 2\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name string
		args []string
		env  map[string]string
	}{
		{"flag", []string{"-config", cfg, example}, nil},
		{"environment", []string{example}, map[string]string{"GENUI_CONFIG": cfg}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var out syncBuffer
			err := run(context.Background(), append([]string{"genui-adapter", "a2ui", "validate"}, tc.args...), func(k string) string { return tc.env[k] }, &out, &out)
			if !errors.Is(err, errViolations) || !strings.Contains(out.String(), "components") {
				t.Errorf("a2ui validate with maxComponents 2 = %v\n%s", err, out.String())
			}
		})
	}
	var out syncBuffer
	err := run(context.Background(), []string{"genui-adapter", "a2ui", "validate", "-config", filepath.Join(t.TempDir(), "missing.yaml"), example}, func(string) string { return "" }, &out, &out)
	if err == nil || !strings.Contains(err.Error(), "missing.yaml") {
		t.Errorf("a2ui validate with a missing config = %v, want an error naming the file", err)
	}
}

// TestA2UIValidateCounts checks that the summary line counts in words
// that agree with their numbers.
func TestA2UIValidateCounts(t *testing.T) {
	one := filepath.Join(t.TempDir(), "one.json")
	os.WriteFile(one, []byte(`{"version":"v0.9","nope":{}}`), 0o644)
	var out syncBuffer
	err := run(context.Background(), []string{"genui-adapter", "a2ui", "validate", one}, func(string) string { return "" }, &out, &out)
	if !errors.Is(err, errViolations) || !strings.Contains(out.String(), ", 1 message, 1 error\n") {
		t.Errorf("a2ui validate of one bad message = %v\n%s", err, out.String())
	}
}

// TestCheckEventsAfterTerminal checks that check reports an upstream that
// goes on after its terminal event (every client fails on it: "The run has
// already finished"), from a recording and from a live endpoint, though
// the normaliser stops reading there.
func TestCheckEventsAfterTerminal(t *testing.T) {
	stream := "data: {\"type\":\"RUN_STARTED\",\"threadId\":\"t\",\"runId\":\"r\"}\n\n" +
		"data: {\"type\":\"RUN_FINISHED\",\"threadId\":\"t\",\"runId\":\"r\"}\n\n" +
		"data: {\"type\":\"STEP_STARTED\",\"stepName\":\"s\"}\n\n"
	file := filepath.Join(t.TempDir(), "after.sse")
	os.WriteFile(file, []byte(stream), 0o644)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		io.WriteString(w, stream)
	}))
	defer srv.Close()
	for _, target := range []string{file, srv.URL} {
		var out syncBuffer
		err := run(context.Background(), []string{"genui-adapter", "check", target}, func(string) string { return "" }, &out, &out)
		if !errors.Is(err, errViolations) || !strings.Contains(out.String(), "after_terminal") {
			t.Errorf("check %s = %v, want after_terminal\n%s", target, err, out.String())
		}
	}
}

// TestCheckEndlessAfterTerminal checks that check does not wait for an
// endpoint that keeps its stream open after the terminal event: it
// reports what came within trailingWait and ends.
func TestCheckEndlessAfterTerminal(t *testing.T) {
	for _, tc := range []struct {
		extra string
		want  bool
	}{{"", false}, {"data: {\"type\":\"STEP_STARTED\",\"stepName\":\"s\"}\n\n", true}} {
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "text/event-stream")
			io.WriteString(w, "data: {\"type\":\"RUN_STARTED\",\"threadId\":\"t\",\"runId\":\"r\"}\n\ndata: {\"type\":\"RUN_FINISHED\",\"threadId\":\"t\",\"runId\":\"r\"}\n\n"+tc.extra)
			w.(http.Flusher).Flush()
			<-r.Context().Done()
		}))
		var out syncBuffer
		start := time.Now()
		err := run(context.Background(), []string{"genui-adapter", "check", srv.URL}, func(string) string { return "" }, &out, &out)
		if took := time.Since(start); took > trailingWait+5*time.Second {
			t.Errorf("check took %v with a stream left open", took)
		}
		if got := strings.Contains(out.String(), "after_terminal"); got != tc.want || tc.want != errors.Is(err, errViolations) {
			t.Errorf("check of an open stream (extra %q) = %v, after_terminal %v, want %v\n%s", tc.extra, err, got, tc.want, out.String())
		}
		srv.CloseClientConnections()
		srv.Close()
	}
}

// TestCheckLangGraph checks that check -langgraph GRAPH runs the graph of
// a LangGraph Agent Server through the langgraph backend, as the service
// does: the run goes to the server's own API, not an AG-UI POST.
func TestCheckLangGraph(t *testing.T) {
	var paths []string
	var mu sync.Mutex
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		paths = append(paths, r.Method+" "+r.URL.Path)
		mu.Unlock()
		http.Error(w, `{"detail":"graph nope not found"}`, http.StatusNotFound)
	}))
	defer srv.Close()
	var out syncBuffer
	err := run(context.Background(), []string{"genui-adapter", "check", "-langgraph", "nope", srv.URL}, func(string) string { return "" }, &out, &out)
	if !errors.Is(err, errViolations) || !strings.Contains(out.String(), "RUN_ERROR") {
		t.Errorf("check -langgraph of a server without the graph = %v\n%s", err, out.String())
	}
	mu.Lock()
	defer mu.Unlock()
	if len(paths) == 0 || slices.Contains(paths, "POST /") {
		t.Errorf("requests %v, want the LangGraph API's", paths)
	}
}

// TestCheckAfterTerminalAsClientsSee: check reports after_terminal for
// what follows a terminal event as the clients judge it: a RUN_ERROR
// after RUN_FINISHED, or a second run (RUN_STARTED after RUN_FINISHED),
// is accepted by every client, and a malformed event after the terminal
// fails every client as much as a well-formed one.
func TestCheckAfterTerminalAsClientsSee(t *testing.T) {
	S := "data: {\"type\":\"RUN_STARTED\",\"threadId\":\"t\",\"runId\":\"r\"}\n\n"
	F := "data: {\"type\":\"RUN_FINISHED\",\"threadId\":\"t\",\"runId\":\"r\"}\n\n"
	for _, tc := range []struct {
		name, stream string
		want         bool
	}{
		{"run error after finished", S + F + "data: {\"type\":\"RUN_ERROR\",\"message\":\"late\"}\n\n", false},
		{"a second run", S + F + "data: {\"type\":\"RUN_STARTED\",\"threadId\":\"t\",\"runId\":\"r2\"}\n\ndata: {\"type\":\"STEP_STARTED\",\"stepName\":\"s\"}\n\ndata: {\"type\":\"STEP_FINISHED\",\"stepName\":\"s\"}\n\ndata: {\"type\":\"RUN_FINISHED\",\"threadId\":\"t\",\"runId\":\"r2\"}\n\n", false},
		{"a step after the second run", S + F + "data: {\"type\":\"RUN_STARTED\",\"threadId\":\"t\",\"runId\":\"r2\"}\n\ndata: {\"type\":\"RUN_FINISHED\",\"threadId\":\"t\",\"runId\":\"r2\"}\n\ndata: {\"type\":\"STEP_STARTED\",\"stepName\":\"s\"}\n\n", true},
		{"anything after run error", S + F + "data: {\"type\":\"RUN_ERROR\",\"message\":\"late\"}\n\ndata: {\"type\":\"RUN_ERROR\",\"message\":\"again\"}\n\n", true},
		{"a malformed event after finished", S + F + "data: {\"type\":\"STEP_STARTED\",\"stepName\":\n\n", true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := filepath.Join(t.TempDir(), "x.sse")
			os.WriteFile(f, []byte(tc.stream), 0o644)
			var out syncBuffer
			err := run(context.Background(), []string{"genui-adapter", "check", f}, func(string) string { return "" }, &out, &out)
			if got := strings.Contains(out.String(), "after_terminal"); got != tc.want || got != errors.Is(err, errViolations) {
				t.Errorf("check = %v, after_terminal %v, want %v\n%s", err, got, tc.want, out.String())
			}
		})
	}
}

// TestCheckLangGraphThread checks that check -langgraph runs the graph on
// a thread of its own each time and deletes it after: two checks at once
// (a graph each, in CI) do not share a LangGraph thread, and the user's
// server is left with no thread of check's.
func TestCheckLangGraphThread(t *testing.T) {
	var mu sync.Mutex
	created, deleted := map[string]bool{}, map[string]bool{}
	var runs []string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var body map[string]any
		json.NewDecoder(r.Body).Decode(&body)
		mu.Lock()
		defer mu.Unlock()
		switch {
		case r.Method == http.MethodPost && r.URL.Path == "/threads":
			id, _ := body["thread_id"].(string)
			if id == "" {
				id = "probe-thread"
			}
			created[id] = true
			json.NewEncoder(w).Encode(map[string]string{"thread_id": id})
		case r.Method == http.MethodDelete && strings.HasPrefix(r.URL.Path, "/threads/"):
			deleted[strings.TrimPrefix(r.URL.Path, "/threads/")] = true
			w.WriteHeader(http.StatusNoContent)
		case r.Method == http.MethodPost && strings.HasSuffix(r.URL.Path, "/runs/stream"):
			if !strings.HasPrefix(r.URL.Path, "/threads/probe-thread/") {
				runs = append(runs, r.URL.Path)
			}
			w.Header().Set("Content-Type", "text/event-stream")
			io.WriteString(w, "event: metadata\ndata: {\"run_id\":\"run-1\"}\n\nevent: values\ndata: {\"messages\":[]}\n\nevent: end\ndata: null\n\n")
		default:
			http.Error(w, `{"detail":"not found"}`, http.StatusNotFound)
		}
	}))
	defer srv.Close()
	for range 2 {
		var out syncBuffer
		if err := run(context.Background(), []string{"genui-adapter", "check", "-langgraph", "chat", srv.URL}, func(string) string { return "" }, &out, &out); err != nil {
			t.Fatalf("check -langgraph = %v\n%s", err, out.String())
		}
	}
	mu.Lock()
	defer mu.Unlock()
	if len(runs) != 2 || runs[0] == runs[1] {
		t.Errorf("the two checks ran on %v, want a thread each", runs)
	}
	for id := range created {
		if !deleted[id] {
			t.Errorf("thread %s left on the server (created %v, deleted %v)", id, created, deleted)
		}
	}
}

// TestA2UIValidateEnvConfigUnreadable checks that a2ui validate, given a
// GENUI_CONFIG it cannot load (here an agent's ${VAR} unset where the CLI
// runs), warns and validates with the documented defaults; the same file
// named with -config is an error.
func TestA2UIValidateEnvConfigUnreadable(t *testing.T) {
	example := filepath.Join("..", "..", "schemas", "testdata", "examples", "basic", "33_financial-data-grid.json")
	cfg := filepath.Join(t.TempDir(), "genui.yaml")
	os.WriteFile(cfg, []byte("agents: {lg: {type: langgraph, url: \"${LANGGRAPH_URL}\", graph: agent}}\na2uiLimits: {maxComponents: 2}\n"), 0o644)
	var out, errOut syncBuffer
	err := run(context.Background(), []string{"genui-adapter", "a2ui", "validate", example}, func(k string) string {
		if k == "GENUI_CONFIG" {
			return cfg
		}
		return ""
	}, &out, &errOut)
	if err != nil || !strings.Contains(out.String(), "0 errors") || !strings.Contains(errOut.String(), "LANGGRAPH_URL") {
		t.Errorf("a2ui validate with an unreadable GENUI_CONFIG = %v\nstdout: %s\nstderr: %s", err, out.String(), errOut.String())
	}
	out = syncBuffer{}
	err = run(context.Background(), []string{"genui-adapter", "a2ui", "validate", "-config", cfg, example}, func(string) string { return "" }, &out, &out)
	if err == nil || !strings.Contains(err.Error(), "LANGGRAPH_URL") {
		t.Errorf("a2ui validate -config of an unreadable file = %v, want its error", err)
	}
}
