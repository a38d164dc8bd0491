package agui

import (
	"encoding/json"
	"strings"
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

// Checkpoint gives the watcher the backend's state and every registered
// snapshot, and nothing with no watcher, while held off (the watcher is
// told, with nil, when the hold starts) or once asked.
func TestHandoverCheckpoint(t *testing.T) {
	h := NewHandover()
	h.Checkpoint(func() json.RawMessage { t.Fatal("no watcher: state asked for"); return nil })
	var got []string
	h.Watch(func(take func() HandoverState) {
		if take == nil {
			got = append(got, "held")
			return
		}
		st := take()
		b, _ := json.Marshal(st)
		got = append(got, string(b))
	})
	n := 1
	stop := h.Snapshot("m", func() any { return map[string]int{"n": n} })
	h.Checkpoint(func() json.RawMessage { return json.RawMessage(`"b1"`) })
	n = 2
	h.Checkpoint(func() json.RawMessage { return json.RawMessage(`"b2"`) })
	stop()
	h.Checkpoint(func() json.RawMessage { return json.RawMessage(`"b3"`) })
	release := h.Hold()
	h.Checkpoint(func() json.RawMessage { return json.RawMessage(`"held"`) })
	release()
	h.Ask()
	h.Checkpoint(func() json.RawMessage { return json.RawMessage(`"asked"`) })
	want := []string{`{"backend":"b1","parts":{"m":{"n":1}}}`, `{"backend":"b2","parts":{"m":{"n":2}}}`, `{"backend":"b3"}`, "held"}
	if strings.Join(got, "|") != strings.Join(want, "|") {
		t.Fatalf("checkpoints %v, want %v", got, want)
	}
	var nilH *Handover
	nilH.Watch(nil)
	nilH.Snapshot("m", nil)()
	nilH.Checkpoint(nil)
}
