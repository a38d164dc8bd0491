package a2ui_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/genui-adapter/genui-adapter/a2ui"
	"github.com/genui-adapter/genui-adapter/agui"
)

// bridgeEvents is what @ag-ui/a2a 0.0.6 emits for an A2A message holding
// the v0.8 messages ops: an empty {"operations": []} snapshot (replace
// false), then one delta per message adding it to /operations/-.
func bridgeEvents(id string, ops []json.RawMessage) []agui.Event {
	f := false
	evs := []agui.Event{&agui.ActivitySnapshot{MessageID: id, ActivityType: a2ui.ActivityType, Content: agui.JSON(`{"operations":[]}`), Replace: &f}}
	for _, op := range ops {
		p, _ := json.Marshal([]map[string]any{{"op": "add", "path": "/operations/-", "value": op}})
		evs = append(evs, &agui.ActivityDelta{MessageID: id, ActivityType: a2ui.ActivityType, Patch: agui.JSON(p)})
	}
	return evs
}

// The AG-UI A2A bridge's surfaces (@ag-ui/a2a: "operations", built by
// deltas) become one checked, converted a2ui_operations snapshot per burst
// of deltas; a surface over MaxHeldMessages fails; other events pass.
func TestMiddlewareBridgeSurfaces(t *testing.T) {
	coffee, _ := os.ReadFile(filepath.Join(v08Examples, "basic", "13_coffee-order.json"))
	var ops []json.RawMessage
	if err := json.Unmarshal(coffee, &ops); err != nil {
		t.Fatal(err)
	}
	extra := append(bridgeEvents("gallery-coffee-order", ops), &agui.TextMessageStart{MessageID: "m", Role: "assistant"})
	be := &scripted{tool: "noop", result: `"ok"`, extra: extra}
	evs := run(t, a2ui.Config{}, be, nil)
	snaps := snapshots(evs)
	if len(snaps) != 1 {
		t.Fatalf("%d snapshots, want 1", len(snaps))
	}
	for _, e := range evs {
		if _, ok := e.(*agui.ActivityDelta); ok {
			t.Errorf("a bridge delta passed: %+v", e)
		}
	}
	var got struct {
		Ops    []map[string]json.RawMessage `json:"a2ui_operations"`
		Status string                       `json:"status"`
	}
	if err := json.Unmarshal(snaps[0].Content, &got); err != nil || got.Status != "" || len(got.Ops) != 3 {
		t.Fatalf("surface = %.600s", snaps[0].Content)
	}
	if snaps[0].MessageID != "gallery-coffee-order" || snaps[0].Replace == nil || !*snaps[0].Replace {
		t.Errorf("snapshot %q replace %v", snaps[0].MessageID, snaps[0].Replace)
	}
	if _, ok := got.Ops[0]["createSurface"]; !ok {
		t.Errorf("first operation %v, want createSurface (converted from v0.8)", got.Ops[0])
	}
	if _, ok := evs[len(evs)-2].(*agui.TextMessageStart); !ok {
		t.Errorf("the event after the burst is %T", evs[len(evs)-2])
	}

	// Capped: past MaxHeldMessages the surface fails.
	v := a2ui.MustValidator(a2ui.Options{MaxHeldMessages: 2})
	var capped []agui.Event
	for ev, err := range a2ui.Middleware(v, a2ui.Config{})(&scripted{tool: "noop", result: `"ok"`, extra: bridgeEvents("s", ops)}).Run(context.Background(), &agui.Request{Input: &agui.RunAgentInput{ThreadID: "t", RunID: "r"}}) {
		if err != nil {
			t.Fatal(err)
		}
		capped = append(capped, ev)
	}
	if s := snapshots(capped); len(s) != 1 || !strings.Contains(string(s[0].Content), `"status":"failed"`) || !strings.Contains(string(s[0].Content), "more than 2") {
		t.Errorf("capped = %v", s)
	}
}
