package agui_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"io"
	"iter"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"golang.org/x/tools/txtar"

	"github.com/genui-adapter/genui-adapter/agui"
)

var update = flag.Bool("update", false, "rewrite golden files")

// recorder collects repairs and failures.
type recorder struct {
	repairs  []string
	failures []error
}

func (r *recorder) UpstreamLatency(time.Duration) {}
func (r *recorder) Repair(kind string)            { r.repairs = append(r.repairs, kind) }
func (r *recorder) Failed(_ context.Context, err error) {
	r.failures = append(r.failures, err)
}

// errReader returns data, then err.
type errReader struct {
	r   io.Reader
	err error
}

func (e *errReader) Read(p []byte) (int, error) {
	n, err := e.r.Read(p)
	if err == io.EOF {
		return n, e.err
	}
	return n, err
}

// streamAgent decodes an upstream SSE body with the real decoder.
func streamAgent(body io.Reader, max int) agui.Agent {
	return agui.AgentFunc(func(ctx context.Context, req *agui.Request) iter.Seq2[agui.Event, error] {
		dec := agui.Decoder{MaxEventSize: max}
		if req.Stats != nil {
			dec.Repaired = req.Stats.Repair
		}
		return dec.Events(body)
	})
}

// TestNormalizeGolden runs every testdata/normalize/*.txtar: the archive
// comment says why the rule exists (first line) and may set "max: N" (the
// event cap) or "fail: reset" (the connection breaks after the bytes); the
// "upstream" file is the raw upstream body, "client" what the client must
// receive, "repairs" the repairs reported, in order.
func TestNormalizeGolden(t *testing.T) {
	files, _ := filepath.Glob("testdata/normalize/*.txtar")
	if len(files) < 30 {
		t.Fatalf("found %d golden files, want at least 30", len(files))
	}
	for _, file := range files {
		t.Run(strings.TrimSuffix(filepath.Base(file), ".txtar"), func(t *testing.T) {
			ar, err := txtar.ParseFile(file)
			if err != nil {
				t.Fatal(err)
			}
			max := 0
			var failErr error
			for _, line := range strings.Split(string(ar.Comment), "\n") {
				if v, ok := strings.CutPrefix(line, "max: "); ok {
					max, _ = strconv.Atoi(v)
				}
				if line == "fail: reset" {
					failErr = errors.New("connection reset by peer")
				}
			}
			if !strings.Contains(strings.SplitN(string(ar.Comment), "\n", 2)[0], " ") {
				t.Fatalf("%s: the first comment line must say why the rule exists", file)
			}
			files := map[string][]byte{}
			for _, f := range ar.Files {
				files[f.Name] = f.Data
			}
			upstream := bytes.ReplaceAll(files["upstream"], []byte("\\r"), []byte("\r"))
			var body io.Reader = bytes.NewReader(upstream)
			if failErr != nil {
				body = &errReader{r: body, err: failErr}
			}
			rec := &recorder{}
			ctx := context.Background()
			in := &agui.Request{Input: &agui.RunAgentInput{ThreadID: "t", RunID: "r"}, Stats: rec}
			a := agui.Chain(streamAgent(body, max), agui.Normalize(agui.Output), agui.Normalize(agui.Canonical))
			var out bytes.Buffer
			enc := agui.NewEncoder(&out)
			for ev, err := range a.Run(ctx, in) {
				if err != nil {
					t.Fatalf("Normalize(Output) yielded an error: %v", err)
				}
				if err := enc.Encode("", ev); err != nil {
					t.Fatal(err)
				}
			}
			gotRepairs := strings.Join(rec.repairs, "\n")
			if gotRepairs != "" {
				gotRepairs += "\n"
			}
			if *update {
				ar.Files = []txtar.File{{Name: "upstream", Data: files["upstream"]}, {Name: "client", Data: out.Bytes()}, {Name: "repairs", Data: []byte(gotRepairs)}}
				if err := os.WriteFile(file, txtar.Format(ar), 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			if diff := cmp.Diff(string(files["client"]), out.String()); diff != "" {
				t.Errorf("client stream mismatch (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(string(files["repairs"]), gotRepairs); diff != "" {
				t.Errorf("repairs mismatch (-want +got):\n%s", diff)
			}
			checkClientGrammar(t, out.Bytes())
		})
	}
}

// checkClientGrammar re-checks, independently of Normalize, the rules every
// client version enforces on what we send.
func checkClientGrammar(t *testing.T, stream []byte) {
	t.Helper()
	if bytes.Contains(stream, []byte("\r")) {
		t.Error("output contains CR")
	}
	if bytes.Contains(stream, []byte(":null")) {
		t.Error("output contains a null field")
	}
	var types []agui.EventType
	terminals := 0
	open := map[string]bool{}
	var repairs []string
	dec := agui.Decoder{Repaired: func(kind string) { repairs = append(repairs, kind) }}
	for ev, err := range dec.Events(bytes.NewReader(stream)) {
		if err != nil {
			t.Fatalf("output does not decode: %v", err)
		}
		types = append(types, ev.Type())
		if len(repairs) > 0 {
			t.Errorf("output event %s needed repairs %v", ev.Type(), repairs)
			repairs = nil
		}
		switch e := ev.(type) {
		case *agui.RunStarted:
			if e.ThreadID != "t" || e.RunID != "r" {
				t.Errorf("RUN_STARTED ids = %q/%q, want t/r", e.ThreadID, e.RunID)
			}
		case *agui.RunFinished:
			terminals++
			if len(open) > 0 {
				t.Errorf("RUN_FINISHED while open: %v", open)
			}
			if e.Outcome != nil && e.Outcome.Type == "cancelled" {
				t.Error("outcome cancelled reached the client")
			}
		case *agui.RunError:
			terminals++
		case *agui.TextMessageStart:
			open["text:"+e.MessageID] = true
		case *agui.TextMessageEnd:
			delete(open, "text:"+e.MessageID)
		case *agui.ToolCallStart:
			open["tool:"+e.ToolCallID] = true
		case *agui.ToolCallEnd:
			delete(open, "tool:"+e.ToolCallID)
		case *agui.StepStarted:
			open["step:"+e.StepName] = true
		case *agui.StepFinished:
			delete(open, "step:"+e.StepName)
		case *agui.SubagentStarted, *agui.SubagentFinished, *agui.SubagentError, *agui.Unknown,
			*agui.TextMessageChunk, *agui.ToolCallChunk, *agui.ThinkingStart:
			t.Errorf("%s reached the client", ev.Type())
		}
	}
	if len(types) == 0 || types[0] != agui.TypeRunStarted {
		t.Errorf("first event = %v, want RUN_STARTED", types)
	}
	if terminals != 1 {
		t.Errorf("%d terminal events, want exactly 1", terminals)
	}
	if last := types[len(types)-1]; last != agui.TypeRunFinished && last != agui.TypeRunError {
		t.Errorf("last event = %s, want a terminal event", last)
	}
}

// TestNormalizeShutdownCause checks that cancelling the run with a *RunFailure
// cause ends the stream with that RUN_ERROR, while a plain cancellation
// ends it silently.
func TestNormalizeShutdownCause(t *testing.T) {
	blocking := agui.AgentFunc(func(ctx context.Context, req *agui.Request) iter.Seq2[agui.Event, error] {
		in := req.Input
		return func(yield func(agui.Event, error) bool) {
			if !yield(&agui.RunStarted{ThreadID: in.ThreadID, RunID: in.RunID}, nil) {
				return
			}
			if !yield(&agui.TextMessageStart{MessageID: "m"}, nil) {
				return
			}
			<-ctx.Done()
		}
	})
	for _, tt := range []struct {
		name  string
		cause error
		want  []agui.EventType
	}{
		{"shutdown", &agui.RunFailure{Code: agui.CodeShutdown, Message: "bye"}, []agui.EventType{agui.TypeRunStarted, agui.TypeTextMessageStart, agui.TypeRunError}},
		{"client gone", errors.New("gone"), []agui.EventType{agui.TypeRunStarted, agui.TypeTextMessageStart}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			ctx, cancel := context.WithCancelCause(context.Background())
			defer cancel(nil)
			var got []agui.EventType
			var last agui.Event
			for ev := range agui.Normalize(agui.Output)(blocking).Run(ctx, &agui.Request{Input: &agui.RunAgentInput{ThreadID: "t", RunID: "r"}}) {
				got = append(got, ev.Type())
				last = ev
				if len(got) == 2 {
					cancel(tt.cause)
				}
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Fatalf("events (-want +got):\n%s", diff)
			}
			if re, ok := last.(*agui.RunError); ok && re.Code != agui.CodeShutdown {
				t.Errorf("RUN_ERROR code = %q, want shutdown", re.Code)
			}
		})
	}
}

// TestNormalizeReportsFailureCause checks that the error behind an
// agent's failure reaches the run's Stats, while its client sees only the
// RUN_ERROR's code and fixed message; a run cancelled with a cause (a
// stop, a shutdown) and a stream cut without a terminal event are no
// agent failure.
func TestNormalizeReportsFailureCause(t *testing.T) {
	refused := errors.New("dial tcp 127.0.0.1:1: connect: connection refused")
	failing := agui.AgentFunc(func(ctx context.Context, req *agui.Request) iter.Seq2[agui.Event, error] {
		return func(yield func(agui.Event, error) bool) {
			yield(nil, &agui.RunFailure{Code: agui.CodeUpstreamUnreachable, Message: "cannot reach the upstream agent", Err: refused})
		}
	})
	cut := agui.AgentFunc(func(ctx context.Context, req *agui.Request) iter.Seq2[agui.Event, error] {
		in := req.Input
		return func(yield func(agui.Event, error) bool) {
			yield(&agui.RunStarted{ThreadID: in.ThreadID, RunID: in.RunID}, nil)
		}
	})
	stopped := agui.AgentFunc(func(ctx context.Context, req *agui.Request) iter.Seq2[agui.Event, error] {
		return func(yield func(agui.Event, error) bool) { <-ctx.Done() }
	})
	for _, tt := range []struct {
		name  string
		agent agui.Agent
		stop  bool
		want  error // nil: no failure reported
		code  string
	}{
		{"unreachable", failing, false, refused, agui.CodeUpstreamUnreachable},
		{"no terminal event", cut, false, nil, agui.CodeUpstreamTruncated},
		{"stopped", stopped, true, nil, agui.CodeShutdown},
	} {
		t.Run(tt.name, func(t *testing.T) {
			rec := &recorder{}
			ctx, cancel := context.WithCancelCause(context.Background())
			defer cancel(nil)
			var last agui.Event
			for ev := range agui.Normalize(agui.Output)(tt.agent).Run(ctx, &agui.Request{Input: &agui.RunAgentInput{ThreadID: "t", RunID: "r"}, Stats: rec}) {
				last = ev
				if tt.stop && ev.Type() == agui.TypeRunStarted {
					cancel(&agui.RunFailure{Code: agui.CodeShutdown, Message: "bye"})
				}
			}
			re, ok := last.(*agui.RunError)
			if !ok || re.Code != tt.code {
				t.Fatalf("last event %#v, want RUN_ERROR %s", last, tt.code)
			}
			if strings.Contains(re.Message, "refused") {
				t.Errorf("the client sees the cause: %q", re.Message)
			}
			if tt.want == nil {
				if len(rec.failures) != 0 {
					t.Errorf("failures reported: %v", rec.failures)
				}
				return
			}
			if len(rec.failures) != 1 || !errors.Is(rec.failures[0], tt.want) {
				t.Fatalf("failures reported: %v, want one wrapping %v", rec.failures, tt.want)
			}
		})
	}
}

// TestNormalizeStartsBeforeUpstream checks that Output sends RUN_STARTED
// (with the request's ids and parent) before the backend is asked, merges
// the upstream's own RUN_STARTED into it, and still reports an upstream
// that never started its run.
func TestNormalizeStartsBeforeUpstream(t *testing.T) {
	for _, tt := range []struct {
		name    string
		first   agui.Event // the upstream's RUN_STARTED, if any
		repairs []string
	}{
		{"upstream starts", &agui.RunStarted{ThreadID: "t", RunID: "r"}, nil},
		{"upstream's own ids", &agui.RunStarted{ThreadID: "ut", RunID: "ur", ParentRunID: "up", Input: agui.JSON(`{}`)}, []string{agui.RepairRunIDs, agui.RepairRunInputDropped}},
		{"upstream never starts", nil, []string{agui.RepairMissingRunStarted}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			var got []agui.Event
			asked := -1 // events the client had when the backend was asked
			backend := agui.AgentFunc(func(ctx context.Context, req *agui.Request) iter.Seq2[agui.Event, error] {
				return func(yield func(agui.Event, error) bool) {
					asked = len(got)
					if tt.first != nil && !yield(tt.first, nil) {
						return
					}
					for _, ev := range []agui.Event{&agui.TextMessageStart{MessageID: "m", Role: "assistant"}, &agui.TextMessageEnd{MessageID: "m"}, &agui.RunFinished{ThreadID: "t", RunID: "r"}} {
						if !yield(ev, nil) {
							return
						}
					}
				}
			})
			rec := &recorder{}
			ctx := context.Background()
			for ev, err := range agui.Normalize(agui.Output)(backend).Run(ctx, &agui.Request{Input: &agui.RunAgentInput{ThreadID: "t", RunID: "r", ParentRunID: "p"}, Stats: rec}) {
				if err != nil {
					t.Fatal(err)
				}
				got = append(got, ev)
			}
			if asked != 1 {
				t.Fatalf("the backend was asked after %d events, want 1 (RUN_STARTED first)", asked)
			}
			want := []string{
				`{"type":"RUN_STARTED","threadId":"t","runId":"r","parentRunId":"p"}`,
				`{"type":"TEXT_MESSAGE_START","messageId":"m","role":"assistant"}`,
				`{"type":"TEXT_MESSAGE_END","messageId":"m"}`,
				`{"type":"RUN_FINISHED","threadId":"t","runId":"r"}`,
			}
			var wire []string
			for _, ev := range got {
				b, err := json.Marshal(ev)
				if err != nil {
					t.Fatal(err)
				}
				wire = append(wire, string(b))
			}
			if diff := cmp.Diff(want, wire); diff != "" {
				t.Errorf("events (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tt.repairs, rec.repairs); diff != "" {
				t.Errorf("repairs (-want +got):\n%s", diff)
			}
		})
	}
}
