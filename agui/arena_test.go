package agui

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"iter"
	"strings"
	"testing"
	"unsafe"
)

// arenaStream is an SSE stream of n canonical deltas of the three kinds,
// some longer than an arena block takes; want holds each event's data.
func arenaStream(n int) (stream []byte, want []string) {
	var b bytes.Buffer
	for i := range n {
		var d string
		switch i % 3 {
		case 0:
			d = fmt.Sprintf(`{"type":"TEXT_MESSAGE_CONTENT","messageId":"m%d","delta":"tok %d"}`, i%5, i)
		case 1:
			d = fmt.Sprintf(`{"type":"TOOL_CALL_ARGS","toolCallId":"c%d","delta":"arg %d"}`, i%5, i)
		default:
			d = fmt.Sprintf(`{"type":"REASONING_MESSAGE_CONTENT","messageId":"r","delta":"think %d"}`, i)
		}
		if i%50 == 7 {
			d = fmt.Sprintf(`{"type":"TEXT_MESSAGE_CONTENT","messageId":"m","delta":"%s"}`, strings.Repeat("x", arenaBytes/2))
		}
		want = append(want, d)
		fmt.Fprintf(&b, "data: %s\n\n", d)
	}
	return b.Bytes(), want
}

// A busy stream's events share blocks; each must still be its own event:
// its fields, its bytes, and an append to its bytes must not reach a
// neighbour.
func TestArenaEventsAreIndependent(t *testing.T) {
	stream, want := arenaStream(600)
	var evs []Event
	for ev, err := range Decode(bytes.NewReader(stream), 0) {
		if err != nil {
			t.Fatal(err)
		}
		evs = append(evs, ev)
	}
	if len(evs) != len(want) {
		t.Fatalf("%d events, want %d", len(evs), len(want))
	}
	for i, ev := range evs {
		b, _ := ev.MarshalJSON()
		if string(b) != want[i] {
			t.Fatalf("event %d: %s, want %s", i, b, want[i])
		}
		_ = append(b, "\n\n-overwrite-"...) // as a frame writer might
	}
	for i, ev := range evs {
		if b, _ := ev.MarshalJSON(); string(b) != want[i] {
			t.Fatalf("event %d after its neighbours' bytes were appended to: %s, want %s", i, b, want[i])
		}
	}
	// Changing one event changes no other of its block.
	const i = arenaAfter + 3 // a TOOL_CALL_ARGS (i%3 == 1)
	evs[i].(*ToolCallArgs).Delta = "changed"
	if b, _ := evs[i+3].MarshalJSON(); string(b) != want[i+3] {
		t.Fatalf("a neighbour changed: %s", b)
	}
}

// The point of the arena: past arenaAfter, a stream's deltas cost a small
// fraction of an allocation each, not two.
func TestArenaAllocationsPerDelta(t *testing.T) {
	const n = 3000
	stream, _ := arenaStream(n)
	r := bytes.NewReader(stream)
	allocs := testing.AllocsPerRun(5, func() {
		r.Reset(stream)
		for _, err := range Decode(r, 0) {
			if err != nil {
				t.Fatal(err)
			}
		}
	})
	// Two per delta before arenaAfter and for the long ones; a block of
	// events per arenaEvents, a block of bytes per 30 or so.
	if per := allocs / n; per > 0.4 {
		t.Fatalf("%.2f allocations per delta (%.0f for %d), want at most 0.4", per, allocs, n)
	}
}

// A quiet stream never starts a block.
func TestArenaQuietStreamAllocatesAlone(t *testing.T) {
	var a arena
	for range arenaAfter {
		if b := a.copy([]byte("abc")); cap(b) != 3 {
			t.Fatalf("cap %d", cap(b))
		}
		if a.inBlocks() {
			t.Fatal("in blocks before arenaAfter deltas")
		}
	}
	if a.bytes != nil {
		t.Fatal("a quiet stream holds a block")
	}
	a.copy([]byte("abc"))
	if !a.inBlocks() || len(a.bytes) != arenaBytes-3 {
		t.Fatalf("after arenaAfter deltas: in blocks %v, %d bytes left", a.inBlocks(), len(a.bytes))
	}
}

// What outlives an event (the normaliser's open ids, the transcript's
// messages and keys) must not be a piece of its arena block: a kept piece
// keeps the whole block. The test scribbles over every delta's bytes once
// the deltas are through, and then nothing kept may have changed.
func TestArenaNothingKeepsAPieceOfABlock(t *testing.T) {
	var phase1 bytes.Buffer
	phase1.WriteString("data: {\"type\":\"RUN_STARTED\",\"threadId\":\"t\",\"runId\":\"r\"}\n\n")
	phase1.WriteString("data: {\"type\":\"TEXT_MESSAGE_START\",\"messageId\":\"m\",\"role\":\"assistant\"}\n\n")
	phase1.WriteString("data: {\"type\":\"TOOL_CALL_START\",\"toolCallId\":\"call\",\"toolCallName\":\"f\"}\n\n")
	for i := range arenaAfter + 1 {
		fmt.Fprintf(&phase1, "data: {\"type\":\"TEXT_MESSAGE_CONTENT\",\"messageId\":\"m\",\"delta\":\"%d \"}\n\n", i)
	}
	// From a block now: deltas of messages and a reasoning message nobody
	// started (the normaliser starts them), and a tool call's arguments.
	fmt.Fprintf(&phase1, "data: {\"type\":\"TOOL_CALL_ARGS\",\"toolCallId\":\"call\",\"delta\":\"{}\"}\n\n")
	for _, id := range []string{"orphan1", "orphan2"} {
		fmt.Fprintf(&phase1, "data: {\"type\":\"TEXT_MESSAGE_CONTENT\",\"messageId\":\"%s\",\"delta\":\"hi\"}\n\n", id)
	}
	fmt.Fprintf(&phase1, "data: {\"type\":\"REASONING_MESSAGE_CONTENT\",\"messageId\":\"think\",\"delta\":\"hmm\"}\n\n")
	phase2 := "data: {\"type\":\"TEXT_MESSAGE_END\",\"messageId\":\"orphan1\"}\n\n" +
		"data: {\"type\":\"TEXT_MESSAGE_CONTENT\",\"messageId\":\"orphan2\",\"delta\":\" there\"}\n\n" +
		"data: {\"type\":\"TEXT_MESSAGE_END\",\"messageId\":\"orphan2\"}\n\n" +
		"data: {\"type\":\"TEXT_MESSAGE_END\",\"messageId\":\"m\"}\n\n" +
		"data: {\"type\":\"TOOL_CALL_END\",\"toolCallId\":\"call\"}\n\n" +
		"data: {\"type\":\"RUN_FINISHED\",\"threadId\":\"t\",\"runId\":\"r\"}\n\n"
	var decoded []Event
	backend := AgentFunc(func(ctx context.Context, req *Request) iter.Seq2[Event, error] {
		return func(yield func(Event, error) bool) {
			// One stream, so one arena: phase 2 follows phase 1 on it.
			r := io.MultiReader(&phase1, &scribbler{events: &decoded}, strings.NewReader(phase2))
			for ev, err := range Decode(r, 0) {
				decoded = append(decoded, ev)
				if !yield(ev, err) {
					return
				}
			}
		}
	})
	tr := NewTranscript(nil)
	var out []string
	for ev, err := range Normalize(Output)(Normalize(Canonical)(backend)).Run(context.Background(), &Request{Input: &RunAgentInput{ThreadID: "t", RunID: "r"}}) {
		if err != nil {
			t.Fatal(err)
		}
		tr.Apply(ev)
		b, _ := ev.MarshalJSON()
		out = append(out, string(b))
	}
	for _, o := range out {
		if strings.Contains(o, "#") {
			t.Errorf("an event after the scribble carries scribbled bytes: %s", o)
		}
	}
	// The normaliser's open ids were intact: it ended each message where
	// the upstream did, and the reasoning message nobody ended at the end.
	var ends []string
	for _, o := range out {
		if strings.Contains(o, `_END"`) {
			ends = append(ends, o)
		}
	}
	want := []string{
		`{"type":"TEXT_MESSAGE_END","messageId":"orphan1"}`,
		`{"type":"TEXT_MESSAGE_END","messageId":"orphan2"}`,
		`{"type":"TEXT_MESSAGE_END","messageId":"m"}`,
		`{"type":"TOOL_CALL_END","toolCallId":"call"}`,
		`{"type":"REASONING_MESSAGE_END","messageId":"think"}`,
	}
	if strings.Join(ends, "\n") != strings.Join(want, "\n") {
		t.Errorf("ends:\n%s\nwant:\n%s", strings.Join(ends, "\n"), strings.Join(want, "\n"))
	}
	var ids []string
	for _, m := range tr.Messages() {
		ids = append(ids, m.ID+"="+m.Content.String())
		for _, c := range m.ToolCalls {
			ids = append(ids, c.ID+"="+c.Function.Arguments)
		}
	}
	for k := range tr.text {
		ids = append(ids, "open text "+k)
	}
	for k := range tr.args {
		ids = append(ids, "open args "+k)
	}
	if s := strings.Join(ids, " "); strings.Contains(s, "#") || !strings.Contains(s, "orphan2=hi there") || !strings.Contains(s, "call={}") {
		t.Errorf("transcript: %s", s)
	}
}

// scribbler reads as nothing; on its first read it overwrites the bytes of
// every delta decoded so far (they are all through the pipeline by then).
type scribbler struct {
	events *[]Event
	done   bool
}

func (s *scribbler) Read([]byte) (int, error) {
	if !s.done {
		s.done = true
		for _, ev := range *s.events {
			// Every delta of the test is in the canonical layout: each
			// is the first field of a keptEvent holding its bytes.
			var w []byte
			switch e := ev.(type) {
			case *TextMessageContent:
				w = (*keptEvent[TextMessageContent])(unsafe.Pointer(e)).wire
			case *ToolCallArgs:
				w = (*keptEvent[ToolCallArgs])(unsafe.Pointer(e)).wire
			case *ReasoningMessageContent:
				w = (*keptEvent[ReasoningMessageContent])(unsafe.Pointer(e)).wire
			}
			for i := range w {
				w[i] = '#'
			}
		}
	}
	return 0, io.EOF
}
