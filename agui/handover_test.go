package agui

import (
	"encoding/json"
	"testing"
)

func TestHandoverHoldKeepsTheBackendGoing(t *testing.T) {
	h := NewHandover()
	release := h.Hold()
	h.Ask()
	if !h.Asked() || h.Ready() {
		t.Fatalf("asked and held: Asked %v Ready %v, want true false", h.Asked(), h.Ready())
	}
	release()
	release() // a second release must not free another middleware's hold
	if !h.Ready() {
		t.Fatal("released: not Ready")
	}
	other := h.Hold()
	second := h.Hold()
	other()
	other()
	if h.Ready() {
		t.Fatal("one hold left: Ready")
	}
	second()
	var nilH *Handover
	nilH.Hold()()
	if nilH.Ready() || nilH.Stopped() || nilH.Rejoining() {
		t.Fatal("a nil Handover is never ready, stopped or rejoining")
	}
}

func TestHandoverStateRoundTrips(t *testing.T) {
	h := NewHandover()
	if _, ok := h.Kept(); ok || h.Stopped() {
		t.Fatal("nothing kept yet")
	}
	h.Keep(json.RawMessage(`{"run":"r"}`))
	h.KeepPart("normalize", json.RawMessage(`{"open":["m1"]}`))
	st, ok := h.Kept()
	if !ok || !h.Stopped() {
		t.Fatal("kept: not reported")
	}
	b, _ := json.Marshal(st)
	var back HandoverState
	if err := json.Unmarshal(b, &back); err != nil {
		t.Fatal(err)
	}
	r := Resume(back)
	if !r.Rejoining() || string(r.Resumed()) != `{"run":"r"}` {
		t.Fatalf("resumed backend state %s", r.Resumed())
	}
	if p, ok := r.Part("normalize"); !ok || string(p) != `{"open":["m1"]}` {
		t.Fatalf("part %s %v", p, ok)
	}
	if _, ok := r.Part("a2ui"); ok {
		t.Fatal("a part never kept was found")
	}
	if _, ok := NewHandover().Part("normalize"); ok {
		t.Fatal("a run that does not rejoin has no parts")
	}
}
