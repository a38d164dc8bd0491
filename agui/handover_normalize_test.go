package agui_test

import (
	"context"
	"encoding/json"
	"iter"
	"strconv"
	"strings"
	"testing"

	"github.com/genui-adapter/genui-adapter/agui"
)

// scripted is a backend that stops for a hand-over between any two of
// its events: it keeps the index of the next one, and a rejoin goes on
// from there.
func scripted(events func() []agui.Event) agui.Agent {
	return agui.AgentFunc(func(ctx context.Context, req *agui.Request) iter.Seq2[agui.Event, error] {
		return func(yield func(agui.Event, error) bool) {
			evs, i := events(), 0
			if h := req.Handover; h.Rejoining() {
				if err := json.Unmarshal(h.Resumed(), &i); err != nil {
					yield(nil, err)
					return
				}
			}
			for ; i < len(evs); i++ {
				if i > 0 && req.Handover.Ready() {
					req.Handover.Keep(json.RawMessage(strconv.Itoa(i)))
					return
				}
				if !yield(evs[i], nil) {
					return
				}
			}
		}
	})
}

// normalizeScript leaves chunk streams, THINKING_* spans, steps and text
// open across any cut, and leaves a step open at RUN_FINISHED.
func normalizeScript() []agui.Event {
	return []agui.Event{
		&agui.RunStarted{ThreadID: "t", RunID: "r"},
		&agui.StepStarted{StepName: "plan"},
		&agui.ThinkingStart{},
		&agui.ThinkingTextMessageContent{Delta: "hm"},
		&agui.ThinkingEnd{},
		&agui.TextMessageChunk{MessageID: "m1", Role: "assistant", Delta: "Hel"},
		&agui.TextMessageChunk{Delta: "lo"},
		&agui.ToolCallChunk{ToolCallID: "c1", ToolCallName: "f", Delta: `{"a"`},
		&agui.ToolCallChunk{Delta: `:1}`},
		&agui.ToolCallResult{ToolCallID: "c1", Content: "ok"},
		&agui.TextMessageStart{MessageID: "m2", Role: "assistant"},
		&agui.TextMessageContent{MessageID: "m2", Delta: "Done"},
		&agui.ToolCallResult{ToolCallID: "c2", Content: "no message id"},
		&agui.StateSnapshot{Snapshot: agui.JSON(`{"n":1}`)},
		&agui.RunFinished{ThreadID: "t", RunID: "r"},
	}
}

func lines(t *testing.T, seq iter.Seq2[agui.Event, error], at func(n int)) []string {
	t.Helper()
	var out []string
	for ev, err := range seq {
		if err != nil {
			out = append(out, "error: "+err.Error())
			break
		}
		b, _ := json.Marshal(ev)
		out = append(out, string(b))
		if at != nil {
			at(len(out))
		}
	}
	return out
}

// A chain of the two normalisers stopped for a hand-over after any of its
// events and rejoined by a fresh chain from the kept state (through JSON)
// yields exactly the events of the run uninterrupted: no closing events
// or RUN_ERROR at the stop, no second RUN_STARTED, the same synthesized
// ids.
func TestNormalizeHandover(t *testing.T) {
	chain := func() agui.Agent {
		return agui.Chain(scripted(normalizeScript), agui.Normalize(agui.Output), agui.Normalize(agui.Canonical))
	}
	in := &agui.RunAgentInput{ThreadID: "t", RunID: "r"}
	want := lines(t, chain().Run(t.Context(), &agui.Request{Input: in}), nil)
	stopped := 0
	for k := 1; k < len(want); k++ {
		h := agui.NewHandover()
		got := lines(t, chain().Run(t.Context(), &agui.Request{Input: in, Handover: h}), func(n int) {
			if n == k {
				h.Ask()
			}
		})
		if st, ok := h.Kept(); ok {
			stopped++
			b, _ := json.Marshal(st)
			var back agui.HandoverState
			if err := json.Unmarshal(b, &back); err != nil {
				t.Fatal(err)
			}
			got = append(got, lines(t, chain().Run(t.Context(), &agui.Request{Input: in, Handover: agui.Resume(back)}), nil)...)
		}
		if strings.Join(got, "\n") != strings.Join(want, "\n") {
			t.Fatalf("asked at %d:\n%s\nwant\n%s", k, strings.Join(got, "\n"), strings.Join(want, "\n"))
		}
	}
	if stopped == 0 {
		t.Fatal("no hand-over")
	}
}

// A rejoin whose state lacks a part, or has one that cannot be read,
// ends with RUN_ERROR code internal naming the part.
func TestNormalizeRejoinBadPart(t *testing.T) {
	in := &agui.RunAgentInput{ThreadID: "t", RunID: "r"}
	for _, tc := range []struct {
		parts map[string]json.RawMessage
		part  string
	}{
		{nil, "normalize.output"},
		{map[string]json.RawMessage{"normalize.output": json.RawMessage(`[1]`)}, "normalize.output"},
		{map[string]json.RawMessage{"normalize.output": json.RawMessage(`{}`)}, "normalize.canonical"},
		{map[string]json.RawMessage{"normalize.output": json.RawMessage(`{}`), "normalize.canonical": json.RawMessage(`"x"`)}, "normalize.canonical"},
	} {
		h := agui.Resume(agui.HandoverState{Backend: json.RawMessage(`3`), Parts: tc.parts})
		got := lines(t, agui.Chain(scripted(normalizeScript), agui.Normalize(agui.Output), agui.Normalize(agui.Canonical)).Run(t.Context(), &agui.Request{Input: in, Handover: h}), nil)
		if len(got) != 1 {
			t.Fatalf("parts %v: %d events:\n%s", tc.parts, len(got), strings.Join(got, "\n"))
		}
		var re struct{ Type, Code, Message string }
		_ = json.Unmarshal([]byte(got[0]), &re)
		if re.Type != "RUN_ERROR" || re.Code != agui.CodeInternal || !strings.Contains(re.Message, strconv.Quote(tc.part)) {
			t.Fatalf("parts %v: got %s, want RUN_ERROR internal naming %q", tc.parts, got[0], tc.part)
		}
	}
}
