package a2ui

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/genui-adapter/genui-adapter/agui"
)

// TestBridgeHoldsNoMoreThanMax: a bridge surface that goes on past max
// messages fails, and what it holds stops growing there, however many
// more deltas come.
func TestBridgeHoldsNoMoreThanMax(t *testing.T) {
	f := false
	evs := []agui.Event{&agui.ActivitySnapshot{MessageID: "s", ActivityType: ActivityType, Content: agui.JSON(`{"operations":[]}`), Replace: &f}}
	for range 100 {
		p, _ := json.Marshal([]map[string]any{{"op": "add", "path": "/operations/-", "value": map[string]any{"deleteSurface": map[string]any{"surfaceId": "s"}}}})
		evs = append(evs, &agui.ActivityDelta{MessageID: "s", ActivityType: ActivityType, Patch: agui.JSON(p)})
	}
	br := &bridge{max: 2, held: map[string][]json.RawMessage{}}
	var out []agui.Event
	for ev, err := range br.run(func(yield func(agui.Event, error) bool) {
		for _, e := range evs {
			if !yield(e, nil) {
				return
			}
		}
	}, nil) {
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, ev)
	}
	if len(out) != 1 || !strings.Contains(string(out[0].(*agui.ActivitySnapshot).Content), `"status":"failed"`) {
		t.Fatalf("events = %v, want one failed surface", out)
	}
	if n := len(br.held["s"]); n > br.max+1 {
		t.Errorf("the surface holds %d messages, want no more than %d", n, br.max+1)
	}
}
