package a2ui_test

import (
	"context"
	"encoding/json"
	"iter"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/genui-adapter/genui-adapter/a2ui"
	"github.com/genui-adapter/genui-adapter/agui"
)

// stoppable is a backend that stops for a hand-over between any two of
// its events, keeping the index of the next one; a rejoin goes on from
// there. before, if set, is called before each event it yields (with its
// index), as a hand-over may be asked at any time.
type stoppable struct {
	evs    []agui.Event
	before func(i int)
}

func (s stoppable) Run(ctx context.Context, req *agui.Request) iter.Seq2[agui.Event, error] {
	return func(yield func(agui.Event, error) bool) {
		i := 0
		if h := req.Handover; h.Rejoining() {
			if err := json.Unmarshal(h.Resumed(), &i); err != nil {
				yield(nil, err)
				return
			}
		}
		for ; i < len(s.evs); i++ {
			if s.before != nil {
				s.before(i)
			}
			if i > 0 && req.Handover.Ready() {
				req.Handover.Keep(json.RawMessage(strconv.Itoa(i)))
				return
			}
			if !yield(s.evs[i], nil) {
				return
			}
		}
	}
}

// handoverEvents streams a render call (its surface grows with its
// arguments, then its result settles it), an A2A bridge surface built by
// deltas, and a structured tool result (a generated surface titled after
// its tool).
func handoverEvents(t *testing.T) func() []agui.Event {
	coffee, _ := os.ReadFile(filepath.Join(v08Examples, "basic", "13_coffee-order.json"))
	var ops []json.RawMessage
	if err := json.Unmarshal(coffee, &ops); err != nil {
		t.Fatal(err)
	}
	authored, errs := mwValidator.Author([]byte(goodRender), "", "")
	if len(errs) > 0 {
		t.Fatal(errs)
	}
	result, _ := json.Marshal(map[string]any{a2ui.OperationsKey: authored})
	return func() []agui.Event {
		evs := []agui.Event{
			&agui.RunStarted{ThreadID: "t", RunID: "r"},
			&agui.ToolCallStart{ToolCallID: "render-1", ToolCallName: a2ui.RenderToolName},
		}
		for rest := goodRender; rest != ""; {
			n := strings.Index(rest, "},")
			if n < 0 {
				n = len(rest) - 2
			}
			evs = append(evs, &agui.ToolCallArgs{ToolCallID: "render-1", Delta: rest[:n+2]})
			rest = rest[n+2:]
		}
		evs = append(evs,
			&agui.ToolCallEnd{ToolCallID: "render-1"},
			&agui.ToolCallStart{ToolCallID: "c1", ToolCallName: "list_orders"},
			&agui.ToolCallArgs{ToolCallID: "c1", Delta: "{}"},
			&agui.ToolCallEnd{ToolCallID: "c1"})
		evs = append(evs, bridgeEvents("coffee", ops)...)
		return append(evs,
			&agui.TextMessageStart{MessageID: "m", Role: "assistant"},
			&agui.TextMessageContent{MessageID: "m", Delta: "Here."},
			&agui.TextMessageEnd{MessageID: "m"},
			&agui.ToolCallResult{MessageID: "r1", ToolCallID: "render-1", Content: string(result), Role: "tool"},
			&agui.ToolCallResult{MessageID: "r2", ToolCallID: "c1", Content: `{"orders":[{"id":1,"total":9.5}]}`, Role: "tool"},
			&agui.ToolCallStart{ToolCallID: "render-2", ToolCallName: a2ui.RenderToolName},
			&agui.ToolCallArgs{ToolCallID: "render-2", Delta: goodRender[:strings.Index(goodRender, "},")+2]},
			&agui.RunFinished{ThreadID: "t", RunID: "r"},
		)
	}
}

func eventLines(seq iter.Seq2[agui.Event, error], at func(int)) []string {
	var out []string
	for ev, err := range seq {
		if err != nil {
			return append(out, "error: "+err.Error())
		}
		b, _ := json.Marshal(ev)
		out = append(out, string(b))
		if at != nil {
			at(len(out))
		}
	}
	return out
}

// Middleware (and Emit) between the normalisers, stopped for a hand-over
// asked after any event it yields, or before any event of its backend,
// and rejoined by a fresh chain from the kept state (through JSON), yield
// exactly the events of the run uninterrupted: the render call's progress
// and its failure at the end, the bridge's held burst, the tool names of
// calls started before the stop.
func TestMiddlewareHandover(t *testing.T) {
	events := handoverEvents(t)
	for _, client := range []string{"", `{"v0.8":{}}`} {
		in := &agui.RunAgentInput{ThreadID: "t", RunID: "r"}
		if client != "" {
			in.ForwardedProps = agui.JSON(`{"` + a2ui.CapabilitiesKey + `":` + client + `}`)
		}
		chain := func(before func(int)) agui.Agent {
			return agui.Chain(stoppable{events(), before}, agui.Normalize(agui.Output), a2ui.Emit(mwValidator, nil), a2ui.Middleware(mwValidator, a2ui.Config{}), agui.Normalize(agui.Canonical))
		}
		want := eventLines(chain(nil).Run(t.Context(), &agui.Request{Input: in}), nil)
		for _, need := range []string{`"messageId":"a2ui-surface-render-1"`, `"messageId":"coffee"`, "List orders", `"status":"failed"`} {
			if !strings.Contains(strings.Join(want, "\n"), need) {
				t.Fatalf("the run uninterrupted has no %s:\n%s", need, strings.Join(want, "\n"))
			}
		}
		stopped := 0
		try := func(what string, h *agui.Handover, got []string) {
			if st, ok := h.Kept(); ok {
				stopped++
				b, _ := json.Marshal(st)
				var back agui.HandoverState
				if err := json.Unmarshal(b, &back); err != nil {
					t.Fatal(err)
				}
				got = append(got, eventLines(chain(nil).Run(t.Context(), &agui.Request{Input: in, Handover: agui.Resume(back)}), nil)...)
			}
			if g, w := strings.Join(got, "\n"), strings.Join(want, "\n"); g != w {
				t.Fatalf("client %s, asked %s:\n%s\nwant\n%s", client, what, g, w)
			}
		}
		for k := 1; k < len(want); k++ {
			h := agui.NewHandover()
			try("after event "+strconv.Itoa(k), h, eventLines(chain(nil).Run(t.Context(), &agui.Request{Input: in, Handover: h}), func(n int) {
				if n == k {
					h.Ask()
				}
			}))
		}
		for j := 1; j < len(events()); j++ {
			h := agui.NewHandover()
			try("before backend event "+strconv.Itoa(j), h, eventLines(chain(func(i int) {
				if i == j {
					h.Ask()
				}
			}).Run(t.Context(), &agui.Request{Input: in, Handover: h}), nil))
		}
		if stopped == 0 {
			t.Fatal("no hand-over")
		}
	}
}
