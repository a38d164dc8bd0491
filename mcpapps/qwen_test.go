package mcpapps_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/genui-adapter/genui-adapter/agui"
	"github.com/genui-adapter/genui-adapter/examples/qwen-apps/qwenapps"
	"github.com/genui-adapter/genui-adapter/mcpapps"
)

func qwenPool(t *testing.T, allow []string) *mcpapps.Pool {
	t.Helper()
	srv := qwenapps.NewServer("https://docs.example.com/guide")
	p, err := mcpapps.NewPool([]mcpapps.ServerConfig{{ID: "qwen", Transport: func() mcp.Transport {
		st, ct := mcp.NewInMemoryTransports()
		go srv.Connect(context.Background(), st, nil)
		return ct
	}}}, mcpapps.PoolOptions{Logger: testLogger(t), URLAllowlist: allow})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { p.Close() })
	if err := p.WaitReady(context.Background()); err != nil {
		t.Fatal(err)
	}
	return p
}

func callWith(id, name, args string) []agui.Event {
	return []agui.Event{&agui.ToolCallStart{ToolCallID: id, ToolCallName: name}, &agui.ToolCallArgs{ToolCallID: id, Delta: args}, &agui.ToolCallEnd{ToolCallID: id}}
}

func cardOf(evs []agui.Event) (mcpapps.Card, int) {
	for i, e := range evs {
		if a, ok := e.(*agui.ActivitySnapshot); ok && a.ActivityType == "mcp-apps" {
			var c mcpapps.Card
			_ = json.Unmarshal(a.Content, &c)
			return c, i
		}
	}
	return mcpapps.Card{}, -1
}

// An app response (JSON text) becomes a card of the View it names, with
// its data for mcp-app-data and its preferred frame size; the View, plain
// text/html, is served to the card as an MCP App resource.
func TestQwenAppResponse(t *testing.T) {
	p := qwenPool(t, nil)
	caps := mcpapps.NewCapabilities([]byte("k"), 0)
	be := &script{round: func(in *agui.RunAgentInput, n int) []agui.Event {
		if n > 0 {
			return []agui.Event{&agui.RunFinished{ThreadID: in.ThreadID, RunID: in.RunID}}
		}
		return append(callWith("d1", "show_dashboard", `{}`), &agui.RunFinished{ThreadID: in.ThreadID, RunID: in.RunID})
	}}
	mw := mcpapps.Middleware(p, mcpapps.Config{Servers: []string{"qwen"}, Caps: caps})
	evs := runAll(t, mw(be), &agui.RunAgentInput{ThreadID: "t", RunID: "r"})
	card, _ := cardOf(evs)
	data, _ := json.Marshal(card.AppData)
	if card.ResourceURI != qwenapps.DashboardURI || !strings.Contains(string(data), `"East"`) || len(card.PreferredFrameSize) != 2 || card.PreferredFrameSize[0] != 640 || card.PreferredFrameSize[1] != 360 {
		t.Fatalf("card %+v", card)
	}
	req, _ := json.Marshal(map[string]any{"serverHash": card.ServerHash, "method": "resources/read", "params": map[string]any{"uri": card.ResourceURI}})
	fp, _ := json.Marshal(map[string]json.RawMessage{mcpapps.ProxiedRequestKey: req})
	evs = runAll(t, mw(be), &agui.RunAgentInput{ThreadID: "t", RunID: "r2", ForwardedProps: agui.JSON(fp)})
	fin, _ := evs[len(evs)-1].(*agui.RunFinished)
	if fin == nil || !strings.Contains(string(fin.Result), `text/html;profile=mcp-app`) || !strings.Contains(string(fin.Result), "mcp-app-ready") {
		t.Errorf("the card's read got %v", evs[len(evs)-1])
	}
	// Plain text/html is accepted only for a View an app response names.
	if _, err := p.UIResource(context.Background(), nil, "qwen", qwenapps.AskFormURI); err == nil {
		t.Error("a plain text/html resource was accepted as a tool's UI")
	}
}

// A View that can answer (it posts mcp-app-response) holds its tool's
// result: the card shows at once, and the response, sent by the card with
// its capability, is the result the agent gets in the same run.
func TestQwenAppResponseIsTheToolResult(t *testing.T) {
	p := qwenPool(t, nil)
	caps := mcpapps.NewCapabilities([]byte("k"), 0)
	answers := mcpapps.NewAnswers(nil)
	be := &script{round: func(in *agui.RunAgentInput, n int) []agui.Event {
		if n > 0 {
			last := in.Messages[len(in.Messages)-1]
			return []agui.Event{&agui.TextMessageStart{MessageID: "m", Role: "assistant"}, &agui.TextMessageContent{MessageID: "m", Delta: "got " + last.Content.String()}, &agui.TextMessageEnd{MessageID: "m"}, &agui.RunFinished{ThreadID: in.ThreadID, RunID: in.RunID}}
		}
		return append(callWith("q1", "ask_preference", `{"question":"Which?","options":["A","B"]}`), &agui.RunFinished{ThreadID: in.ThreadID, RunID: in.RunID})
	}}
	cfg := mcpapps.Config{Servers: []string{"qwen"}, Caps: caps, Answers: answers, AnswerWait: 5 * time.Second}
	mw := mcpapps.Middleware(p, cfg)
	respond := func(card mcpapps.Card, thread string) string {
		req, _ := json.Marshal(map[string]any{"serverHash": card.ServerHash, "method": mcpapps.AppResponseMethod, "params": map[string]any{"payload": map[string]any{"choice": "B"}}})
		fp, _ := json.Marshal(map[string]json.RawMessage{mcpapps.ProxiedRequestKey: req})
		evs := runAll(t, mw(be), &agui.RunAgentInput{ThreadID: thread, RunID: "resp-" + thread, ForwardedProps: agui.JSON(fp)})
		fin, _ := evs[len(evs)-1].(*agui.RunFinished)
		if fin == nil {
			return ""
		}
		return string(fin.Result)
	}
	// The host answers as soon as it is shown the card, before the run
	// takes its next event: the question is open by then.
	var card mcpapps.Card
	var out []agui.Event
	for ev, err := range mw(be).Run(context.Background(), &agui.Request{Input: &agui.RunAgentInput{ThreadID: "t", RunID: "r", ForwardedProps: agui.JSON(`{"mcpAppsHost":{"concurrentRequests":true}}`)}}) {
		if err != nil {
			t.Fatal(err)
		}
		if _, ok := ev.(*agui.ToolCallResult); ok && card.ResourceURI == "" {
			t.Fatal("the result came before the answer")
		}
		if c, i := cardOf([]agui.Event{ev}); i == 0 && card.ResourceURI == "" {
			card = c
			if card.ResourceURI != qwenapps.AskFormURI {
				t.Fatalf("card %+v", card)
			}
			if got := respond(card, "other-thread"); strings.Contains(got, `"delivered":true`) {
				t.Fatalf("a response on another thread was delivered: %s", got)
			}
			if got := respond(card, "t"); !strings.Contains(got, `"delivered":true`) {
				t.Fatalf("the card's response, sent as soon as the card was shown: %s", got)
			}
			continue
		}
		out = append(out, ev)
	}
	var said strings.Builder
	var result string
	for _, ev := range out {
		switch e := ev.(type) {
		case *agui.ToolCallResult:
			result = e.Content
		case *agui.TextMessageContent:
			said.WriteString(e.Delta)
		}
	}
	if result != `{"answer":{"choice":"B"}}` || !strings.Contains(said.String(), `got {"answer":{"choice":"B"}}`) {
		t.Errorf("result %q, agent said %q", result, said.String())
	}
}

// A text/uri-list UI resource is an external page card when its origin is
// on the allowlist, and no card otherwise.
func TestURIListResource(t *testing.T) {
	for _, allow := range [][]string{{"https://docs.example.com"}, nil} {
		p := qwenPool(t, allow)
		be := &script{round: func(in *agui.RunAgentInput, n int) []agui.Event {
			if n > 0 {
				return []agui.Event{&agui.RunFinished{ThreadID: in.ThreadID, RunID: in.RunID}}
			}
			return append(callWith("o1", "open_docs", `{}`), &agui.RunFinished{ThreadID: in.ThreadID, RunID: in.RunID})
		}}
		evs := runAll(t, mcpapps.Middleware(p, mcpapps.Config{Servers: []string{"qwen"}})(be), &agui.RunAgentInput{ThreadID: "t", RunID: "r"})
		card, i := cardOf(evs)
		if allow == nil {
			if i >= 0 {
				t.Errorf("a page off the allowlist got a card: %+v", card)
			}
			continue
		}
		r, err := p.UIResource(context.Background(), nil, "qwen", qwenapps.DocsURI)
		if i < 0 || err != nil || !strings.Contains(r.HTML, `src="https://docs.example.com/guide"`) || !strings.Contains(mcpapps.CSP(r.UI), "frame-src https://docs.example.com") {
			t.Errorf("card %+v, resource %v %v", card, r, err)
		}
	}
}
