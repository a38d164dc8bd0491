package mcpapps_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/genui-adapter/genui-adapter/agui"
	"github.com/genui-adapter/genui-adapter/mcpapps"
	"github.com/genui-adapter/genui-adapter/mcpapps/mcpappstest"
)

// runAs runs a with in for principal and returns the events.
func runAs(t *testing.T, a agui.Agent, principal string, in *agui.RunAgentInput) []agui.Event {
	t.Helper()
	var out []agui.Event
	for ev, err := range agui.Normalize(agui.Output)(a).Run(context.Background(), &agui.Request{Input: in, Principal: principal}) {
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, ev)
	}
	return out
}

func firstCard(evs []agui.Event) (mcpapps.Card, bool) {
	for _, e := range evs {
		if a, ok := e.(*agui.ActivitySnapshot); ok && a.ActivityType == mcpapps.ActivityType {
			var c mcpapps.Card
			json.Unmarshal(a.Content, &c)
			return c, true
		}
	}
	return mcpapps.Card{}, false
}

// An inline UI resource is part of one tool result: another principal's
// card of the same server cannot read it back (it may carry the first
// principal's data), nor does it stand in for the server's resource.
func TestInlineUIResourceIsTheCallersOnly(t *testing.T) {
	fx := mcpappstest.New()
	p := newPool(t, mcpapps.ServerConfig{ID: "fx", Transport: inMemory(fx)})
	cfg := mcpapps.Config{Servers: []string{"fx"}, Caps: mcpapps.NewCapabilities([]byte("k"), 0)}
	tool := map[string]string{"ta": "inline_ui", "tb": "weather"}
	be := &script{round: func(in *agui.RunAgentInput, n int) []agui.Event {
		if len(in.Messages) > 0 {
			return []agui.Event{&agui.RunFinished{ThreadID: in.ThreadID, RunID: in.RunID}}
		}
		return append(callEvents([2]string{"c-" + in.ThreadID, tool[in.ThreadID]}), &agui.RunFinished{ThreadID: in.ThreadID, RunID: in.RunID})
	}}
	mw := mcpapps.Middleware(p, cfg)
	read := func(principal, thread string, card mcpapps.Card, uri string) string {
		req, _ := json.Marshal(map[string]any{"serverHash": card.ServerHash, "method": "resources/read", "params": map[string]any{"uri": uri}})
		fp, _ := json.Marshal(map[string]json.RawMessage{mcpapps.ProxiedRequestKey: req})
		evs := runAs(t, mw(be), principal, &agui.RunAgentInput{ThreadID: thread, RunID: "read-" + principal, ForwardedProps: agui.JSON(fp)})
		fin, _ := evs[len(evs)-1].(*agui.RunFinished)
		if fin == nil {
			t.Fatalf("read ended with %v", evs[len(evs)-1])
		}
		return string(fin.Result)
	}
	alice, ok := firstCard(runAs(t, mw(be), "alice", &agui.RunAgentInput{ThreadID: "ta", RunID: "ra"}))
	if !ok || alice.ResourceURI != "ui://fx/inline.html" {
		t.Fatalf("alice's card %+v", alice)
	}
	bob, ok := firstCard(runAs(t, mw(be), "bob", &agui.RunAgentInput{ThreadID: "tb", RunID: "rb"}))
	if !ok {
		t.Fatal("bob got no card")
	}
	if got := read("bob", "tb", bob, "ui://fx/inline.html"); strings.Contains(got, "Inline") {
		t.Errorf("bob's card read alice's inline resource: %s", got)
	}
	if got := read("alice", "ta", alice, "ui://fx/inline.html"); !strings.Contains(got, "Inline") {
		t.Errorf("alice's card cannot read its own inline resource: %s", got)
	}
	// The sandbox ticket of alice's card (its capability's caller).
	if r, err := p.UIResource(context.Background(), &mcpapps.Caller{Principal: "alice", ThreadID: "ta"}, "fx", "ui://fx/inline.html"); err != nil || r.HTML != mcpappstest.InlineHTML {
		t.Errorf("UIResource for alice = %v, %v", r, err)
	}
	if r, err := p.UIResource(context.Background(), nil, "fx", "ui://fx/inline.html"); err == nil {
		t.Errorf("UIResource for no one = %v", r)
	}
}
