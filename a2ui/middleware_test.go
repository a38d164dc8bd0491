package a2ui_test

import (
	"bytes"
	"context"
	"encoding/json"
	"iter"
	"log/slog"
	"strings"
	"testing"

	"github.com/genui-adapter/genui-adapter/a2ui"
	"github.com/genui-adapter/genui-adapter/agui"
)

// scripted is a backend that records its input and emits one tool call
// with the given result.
type scripted struct {
	tool, result string
	extra        []agui.Event
	got          *agui.RunAgentInput
}

func (s *scripted) Run(ctx context.Context, req *agui.Request) iter.Seq2[agui.Event, error] {
	in := req.Input
	s.got = in
	return func(yield func(agui.Event, error) bool) {
		evs := []agui.Event{
			&agui.RunStarted{ThreadID: in.ThreadID, RunID: in.RunID},
			&agui.ToolCallStart{ToolCallID: "c1", ToolCallName: s.tool},
			&agui.ToolCallEnd{ToolCallID: "c1"},
			&agui.ToolCallResult{MessageID: "r1", ToolCallID: "c1", Content: s.result},
		}
		evs = append(evs, s.extra...)
		evs = append(evs, &agui.RunFinished{ThreadID: in.ThreadID, RunID: in.RunID})
		for _, e := range evs {
			if !yield(e, nil) {
				return
			}
		}
	}
}

var mwValidator = a2ui.MustValidator(a2ui.Options{})

func run(t *testing.T, cfg a2ui.Config, be *scripted, in *agui.RunAgentInput) []agui.Event {
	t.Helper()
	if in == nil {
		in = &agui.RunAgentInput{ThreadID: "t", RunID: "r", Messages: []agui.Message{{ID: "u", Role: agui.RoleUser, Content: agui.Text("hi")}}}
	}
	var out []agui.Event
	for ev, err := range a2ui.Middleware(mwValidator, cfg)(be).Run(context.Background(), &agui.Request{Input: in}) {
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, ev)
	}
	return out
}

func snapshots(evs []agui.Event) []*agui.ActivitySnapshot {
	var out []*agui.ActivitySnapshot
	for _, e := range evs {
		if s, ok := e.(*agui.ActivitySnapshot); ok {
			out = append(out, s)
		}
	}
	return out
}

func TestMiddlewareStructuredResultBecomesSurface(t *testing.T) {
	be := &scripted{tool: "list_orders", result: `[{"id":"A-1","total":12.5},{"id":"A-2","total":3}]`}
	evs := run(t, a2ui.Config{}, be, nil)
	snaps := snapshots(evs)
	if len(snaps) != 1 {
		t.Fatalf("%d snapshots, want 1: %v", len(snaps), evs)
	}
	s := snaps[0]
	if s.MessageID != "a2ui-surface-c1" || s.ActivityType != "a2ui-surface" || s.Replace == nil || !*s.Replace {
		t.Errorf("snapshot = %+v", s)
	}
	// It comes right after the result.
	for i, e := range evs {
		if e == agui.Event(s) && evs[i-1].Type() != agui.TypeToolCallResult {
			t.Errorf("snapshot follows %s, want TOOL_CALL_RESULT", evs[i-1].Type())
		}
	}
	var content struct {
		Ops []json.RawMessage `json:"a2ui_operations"`
	}
	if err := json.Unmarshal(s.Content, &content); err != nil || len(content.Ops) != 3 {
		t.Fatalf("content = %s", s.Content)
	}
	for i, op := range []string{"createSurface", "updateComponents", "updateDataModel"} {
		if !strings.Contains(string(content.Ops[i]), `"version":"v0.9","`+op+`"`) {
			t.Errorf("op %d = %.80s, want %s", i, content.Ops[i], op)
		}
	}
	if !strings.Contains(string(content.Ops[0]), `"catalogId":"https://a2ui.org/specification/v0_9/catalogs/basic/catalog.json"`) {
		t.Errorf("catalog = %s", content.Ops[0])
	}
	if !strings.Contains(string(content.Ops[2]), `"title":"List orders"`) {
		t.Errorf("title missing: %s", content.Ops[2])
	}
	var raw [][]byte
	for _, o := range content.Ops {
		raw = append(raw, o)
	}
	if errs := a2ui.MustValidator(a2ui.Options{Strict: true, CheckBindings: true}).ValidateBatch(raw); len(errs) > 0 {
		t.Errorf("emitted surface invalid: %v", errs)
	}
}

func TestMiddlewareCatalogVersionAndFilters(t *testing.T) {
	in := &agui.RunAgentInput{ThreadID: "t", RunID: "r", Context: []agui.ContextItem{{Description: a2ui.SchemaContextDescription, Value: `{"catalogId":"https://a2ui.org/specification/v0_9/basic_catalog.json","components":{}}`}}}
	be := &scripted{tool: "t", result: `{"a":1}`}
	s := snapshots(run(t, a2ui.Config{Version: "v0.9.1"}, be, in))[0]
	if !strings.Contains(string(s.Content), `basic_catalog.json`) || !strings.Contains(string(s.Content), `"version":"v0.9.1"`) {
		t.Errorf("content = %.300s", s.Content)
	}
	for _, tt := range []struct {
		name string
		cfg  a2ui.Config
		want int
	}{
		{"off", a2ui.Config{Disabled: true}, 0},
		{"allow list hit", a2ui.Config{Tools: []string{"t"}}, 1},
		{"allow list miss", a2ui.Config{Tools: []string{"other"}}, 0},
		{"deny", a2ui.Config{DenyTools: []string{"t"}}, 0},
	} {
		if got := len(snapshots(run(t, tt.cfg, &scripted{tool: "t", result: `[1,2]`}, nil))); got != tt.want {
			t.Errorf("%s: %d snapshots, want %d", tt.name, got, tt.want)
		}
	}
	if got := len(snapshots(run(t, a2ui.Config{}, &scripted{tool: "t", result: `plain text`}, nil))); got != 0 {
		t.Errorf("plain text result rendered")
	}
}

func TestMiddlewareAgentA2UIValidated(t *testing.T) {
	good := `{"a2ui_operations":[{"version":"v0.9","createSurface":{"surfaceId":"x","catalogId":"https://a2ui.org/specification/v0_9/catalogs/basic/catalog.json"}},{"version":"v0.9","updateComponents":{"surfaceId":"x","components":[{"id":"root","component":"Text","text":"hi"}]}}]}`
	bad := `{"a2ui_operations":[{"version":"v0.9","createSurface":{"surfaceId":"x","catalogId":"https://a2ui.org/specification/v0_9/catalogs/basic/catalog.json"}},{"version":"v0.9","updateComponents":{"surfaceId":"x","components":[{"id":"root","component":"Column","children":["ghost"]}]}}]}`
	var logged bytes.Buffer
	cfg := a2ui.Config{Logger: slog.New(slog.NewTextHandler(&logged, nil))}

	s := snapshots(run(t, cfg, &scripted{tool: "render", result: good}, nil))[0]
	if !strings.Contains(string(s.Content), `"a2ui_operations"`) {
		t.Errorf("valid agent A2UI not passed: %s", s.Content)
	}
	doubleEncoded, _ := json.Marshal(good)
	if s := snapshots(run(t, cfg, &scripted{tool: "render", result: string(doubleEncoded)}, nil)); len(s) != 1 || !strings.Contains(string(s[0].Content), "a2ui_operations") {
		t.Errorf("double-encoded operations not recognised")
	}
	s = snapshots(run(t, cfg, &scripted{tool: "render", result: bad}, nil))[0]
	if !strings.Contains(string(s.Content), `"status":"failed"`) || strings.Contains(string(s.Content), "a2ui_operations") || !strings.Contains(string(s.Content), "unresolved_child") {
		t.Errorf("invalid agent A2UI reached the client: %s", s.Content)
	}
	// An upstream a2ui-surface activity is validated too.
	act := &agui.ActivitySnapshot{MessageID: "m", ActivityType: "a2ui-surface", Content: agui.JSON(bad[:0] + `{"a2ui_operations":[{"version":"v0.9","updateComponents":{"surfaceId":"nope","components":[{"id":"root","component":"Text","text":"x"}]}}]}`)}
	evs := run(t, cfg, &scripted{tool: "x", result: "ok", extra: []agui.Event{act}}, nil)
	s = snapshots(evs)[0]
	if !strings.Contains(string(s.Content), `"status":"failed"`) {
		t.Errorf("invalid upstream activity passed: %s", s.Content)
	}
	if n := strings.Count(logged.String(), "level=WARN"); n != 2 {
		t.Errorf("logged %d rejections, want 2:\n%s", n, logged.String())
	}
}

func TestMiddlewareUserAction(t *testing.T) {
	fp := `{"a2uiAction":{"userAction":{"name":"approve","surfaceId":"s-c1","sourceComponentId":"btn","context":{"id": 7},"timestamp":"2026-11-29T10:00:00Z"}},"other":1}`
	in := &agui.RunAgentInput{ThreadID: "t", RunID: "r", Messages: []agui.Message{{ID: "u", Role: agui.RoleUser, Content: agui.Text("hi")}}, ForwardedProps: agui.JSON(fp)}
	be := &scripted{tool: "x", result: "ok"}
	run(t, a2ui.Config{}, be, in)
	msgs := be.got.Messages
	if len(msgs) != 3 || len(in.Messages) != 1 {
		t.Fatalf("messages = %+v (input mutated: %d)", msgs, len(in.Messages))
	}
	call := msgs[1].ToolCalls[0]
	if msgs[1].Role != agui.RoleAssistant || call.Function.Name != "log_a2ui_event" || call.Function.Arguments != `{"name":"approve","surfaceId":"s-c1","sourceComponentId":"btn","context":{"id":7},"timestamp":"2026-11-29T10:00:00Z"}` {
		t.Errorf("assistant message = %+v", msgs[1])
	}
	want := `User performed action "approve" on surface "s-c1" (component: btn). Context: {"id":7}`
	if msgs[2].Role != agui.RoleTool || msgs[2].ToolCallID != call.ID || msgs[2].Content.String() != want {
		t.Errorf("tool message = %+v, want content %q", msgs[2], want)
	}
	if string(be.got.ForwardedProp("a2uiAction")) == "" {
		t.Error("forwardedProps.a2uiAction was removed")
	}

	run(t, a2ui.Config{ActionMode: a2ui.ActionAsUserMessage}, be, in)
	if got := be.got.Messages; len(got) != 2 || got[1].Role != agui.RoleUser || got[1].Content.String() != want {
		t.Errorf("user-message mode = %+v", got)
	}

	bad := &agui.RunAgentInput{ThreadID: "t", RunID: "r", ForwardedProps: agui.JSON(`{"a2uiAction":{"userAction":{"surfaceId":"s"}}}`)}
	evs := run(t, a2ui.Config{}, be, bad)
	if len(evs) != 2 || evs[1].(*agui.RunError).Code != "invalid_a2ui_action" || !strings.Contains(evs[1].(*agui.RunError).Message, "name") {
		t.Errorf("invalid action = %+v", evs)
	}
}

// A tool call that already has its surface (an MCP server's, such as
// ask_user's form, shown before the call's result) keeps it: its JSON
// result does not become a generated surface replacing it.
func TestMiddlewareKeepsAServerSurface(t *testing.T) {
	form := `{"a2ui_operations":[{"version":"v0.9","createSurface":{"surfaceId":"mcp~genui~c1~main~sig","catalogId":"https://a2ui.org/specification/v0_9/catalogs/basic/catalog.json"}},{"version":"v0.9","updateComponents":{"surfaceId":"mcp~genui~c1~main~sig","components":[{"id":"root","component":"Text","text":"Which plan?"}]}}]}`
	t0 := true
	be := agui.AgentFunc(func(ctx context.Context, req *agui.Request) iter.Seq2[agui.Event, error] {
		in := req.Input
		return func(yield func(agui.Event, error) bool) {
			for _, e := range []agui.Event{
				&agui.RunStarted{ThreadID: in.ThreadID, RunID: in.RunID},
				&agui.ToolCallStart{ToolCallID: "c1", ToolCallName: "ask_user"},
				&agui.ToolCallEnd{ToolCallID: "c1"},
				&agui.ActivitySnapshot{MessageID: "a2ui-surface-c1", ActivityType: a2ui.ActivityType, Content: agui.JSON(form), Replace: &t0},
				&agui.ToolCallResult{MessageID: "r1", ToolCallID: "c1", Content: `{"answer":"Pro"}`},
				&agui.RunFinished{ThreadID: in.ThreadID, RunID: in.RunID},
			} {
				if !yield(e, nil) {
					return
				}
			}
		}
	})
	var snaps []*agui.ActivitySnapshot
	for ev, err := range a2ui.Middleware(mwValidator, a2ui.Config{})(be).Run(context.Background(), &agui.Request{Input: &agui.RunAgentInput{ThreadID: "t", RunID: "r"}}) {
		if err != nil {
			t.Fatal(err)
		}
		if s, ok := ev.(*agui.ActivitySnapshot); ok {
			snaps = append(snaps, s)
		}
	}
	if len(snaps) != 1 || !strings.Contains(string(snaps[0].Content), "Which plan?") {
		t.Errorf("%d surfaces; the server's form was replaced: %v", len(snaps), snaps)
	}
}

// A surface that names the basic catalog (an A2A agent's, an MCP
// server's) is shown in the catalog the frontend registered (CopilotKit's,
// which includes the basic components and renders no other).
func TestMiddlewareRetargetsTheBasicCatalog(t *testing.T) {
	ops := `{"a2ui_operations":[{"version":"v0.9","createSurface":{"surfaceId":"s","catalogId":"https://a2ui.org/specification/v0_9/catalogs/basic/catalog.json"}},{"version":"v0.9","updateComponents":{"surfaceId":"s","components":[{"id":"root","component":"Text","text":"hi"}]}}]}`
	for _, tt := range []struct{ registered, want string }{
		{"copilotkit://app-catalog", `"catalogId":"copilotkit://app-catalog"`},
		{"", `"catalogId":"https://a2ui.org/specification/v0_9/catalogs/basic/catalog.json"`},
	} {
		be := &scripted{tool: "x", result: "plain text", extra: []agui.Event{&agui.ActivitySnapshot{MessageID: "a", ActivityType: a2ui.ActivityType, Content: agui.JSON(ops)}}}
		in := &agui.RunAgentInput{ThreadID: "t", RunID: "r"}
		if tt.registered != "" {
			in.Context = []agui.ContextItem{{Description: a2ui.SchemaContextDescription, Value: `{"catalogId":"` + tt.registered + `","components":{}}`}}
		}
		snaps := snapshots(run(t, a2ui.Config{}, be, in))
		if len(snaps) != 1 || !strings.Contains(string(snaps[0].Content), tt.want) {
			t.Errorf("registered %q: %v", tt.registered, snaps)
		}
	}
}

// TestMiddlewareChainedOnce: an upstream that is another adapter (its A2UI
// middleware made the call's surface already) gets the surface once, not
// the one the upstream sent and a copy of it made again here; a surface the
// upstream sends for the call that differs from the one made here still
// replaces it.
func TestMiddlewareChainedOnce(t *testing.T) {
	in := &agui.RunAgentInput{ThreadID: "t", RunID: "r", Messages: []agui.Message{{ID: "u", Role: agui.RoleUser, Content: agui.Text("hi")}}}
	be := &scripted{tool: "list_orders", result: `[{"id":"A-1","total":12.5},{"id":"A-2","total":3}]`}
	mw := a2ui.Middleware(mwValidator, a2ui.Config{})
	var evs []agui.Event
	for ev, err := range mw(mw(be)).Run(context.Background(), &agui.Request{Input: in}) {
		if err != nil {
			t.Fatal(err)
		}
		evs = append(evs, ev)
	}
	if snaps := snapshots(evs); len(snaps) != 1 || snaps[0].MessageID != "a2ui-surface-c1" {
		t.Fatalf("%d snapshots through two middlewares, want 1 (a2ui-surface-c1): %v", len(snaps), evs)
	}

	other := &agui.ActivitySnapshot{MessageID: "a2ui-surface-c1", ActivityType: a2ui.ActivityType, Replace: ptrTo(true),
		Content: agui.JSON(`{"a2ui_operations":[{"version":"v0.9","deleteSurface":{"surfaceId":"s"}}]}`)}
	be = &scripted{tool: "list_orders", result: `[{"id":"A-1","total":12.5}]`, extra: []agui.Event{other}}
	if snaps := snapshots(run(t, a2ui.Config{}, be, in)); len(snaps) != 2 {
		t.Fatalf("%d snapshots, want 2 (the one made here, then the upstream's different one)", len(snaps))
	}
}

func ptrTo[T any](v T) *T { return &v }

// TestMiddlewareChainedRevertKept: the copy of a surface made here is
// dropped only while it is what the client shows; once the upstream has
// changed that surface (a snapshot of its own, a delta), a snapshot that
// puts back the content made here is a real update and is sent.
func TestMiddlewareChainedRevertKept(t *testing.T) {
	result := `[{"id":"A-1","total":12.5},{"id":"A-2","total":3}]`
	snaps := snapshots(run(t, a2ui.Config{}, &scripted{tool: "list_orders", result: result}, nil))
	if len(snaps) != 1 {
		t.Fatalf("%d snapshots, want 1", len(snaps))
	}
	id, made := snaps[0].MessageID, string(snaps[0].Content)
	snap := func(content string) agui.Event {
		return &agui.ActivitySnapshot{MessageID: id, ActivityType: a2ui.ActivityType, Replace: ptrTo(true), Content: agui.JSON(content)}
	}
	other := `{"a2ui_operations":[{"version":"v0.9","deleteSurface":{"surfaceId":"s"}}]}`
	for _, tc := range []struct {
		name  string
		extra []agui.Event
		want  int
	}{
		{"a snapshot between", []agui.Event{snap(other), snap(made)}, 3},
		{"a delta between", []agui.Event{&agui.ActivityDelta{MessageID: id, ActivityType: a2ui.ActivityType, Patch: agui.JSON(`[{"op":"replace","path":"/a2ui_operations","value":[]}]`)}, snap(made)}, 2},
		{"the copy twice", []agui.Event{snap(made), snap(other), snap(made)}, 3},
	} {
		t.Run(tc.name, func(t *testing.T) {
			evs := run(t, a2ui.Config{}, &scripted{tool: "list_orders", result: result, extra: tc.extra}, nil)
			if got := snapshots(evs); len(got) != tc.want {
				t.Errorf("%d snapshots, want %d (the one made here, then every upstream change): %v", len(got), tc.want, evs)
			}
		})
	}
}
