package agui_test

import (
	"encoding/json"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/genui-adapter/genui-adapter/agui"
)

func TestTranscript(t *testing.T) {
	tr := agui.NewTranscript([]agui.Message{{ID: "u1", Role: agui.RoleUser, Content: agui.Text("hi")}})
	f := false
	for _, ev := range []agui.Event{
		&agui.RunStarted{ThreadID: "t", RunID: "r"},
		&agui.TextMessageStart{MessageID: "m1"},
		&agui.TextMessageContent{MessageID: "m1", Delta: "Hel"},
		&agui.TextMessageContent{MessageID: "m1", Delta: "lo"},
		&agui.TextMessageEnd{MessageID: "m1"},
		&agui.ToolCallStart{ToolCallID: "c1", ToolCallName: "f", ParentMessageID: "m1"},
		&agui.ToolCallArgs{ToolCallID: "c1", Delta: `{"a":`},
		&agui.ToolCallArgs{ToolCallID: "c1", Delta: `1}`},
		&agui.ToolCallStart{ToolCallID: "c2", ToolCallName: "g"},
		&agui.ToolCallResult{MessageID: "t1", ToolCallID: "c1", Content: "ok"},
		&agui.ActivitySnapshot{MessageID: "a1", ActivityType: "a2ui-surface", Content: agui.JSON(`{"n":1,"l":[1]}`)},
		&agui.ActivityDelta{MessageID: "a1", ActivityType: "a2ui-surface", Patch: agui.JSON(`[{"op":"replace","path":"/n","value":2},{"op":"add","path":"/l/-","value":3},{"op":"add","path":"/k","value":"v"}]`)},
		&agui.ActivitySnapshot{MessageID: "a1", ActivityType: "a2ui-surface", Content: agui.JSON(`{"ignored":true}`), Replace: &f},
	} {
		tr.Apply(ev)
	}
	tr.Merge([]agui.Message{{ID: "u1", Role: agui.RoleUser, Content: agui.Text("hi")}, {ID: "u2", Role: agui.RoleUser, Content: agui.Text("again")}})
	got, _ := json.Marshal(tr.Messages())
	want := `[{"id":"u1","role":"user","content":"hi"},{"id":"m1","role":"assistant","content":"Hello","toolCalls":[{"id":"c1","type":"function","function":{"name":"f","arguments":"{\"a\":1}"}}]},{"id":"c2","role":"assistant","toolCalls":[{"id":"c2","type":"function","function":{"name":"g","arguments":""}}]},{"id":"t1","role":"tool","content":"ok","toolCallId":"c1"},{"id":"a1","role":"activity","content":{"k":"v","l":[1,3],"n":2},"activityType":"a2ui-surface"},{"id":"u2","role":"user","content":"again"}]`
	if diff := cmp.Diff(want, string(got)); diff != "" {
		t.Errorf("transcript (-want +got):\n%s", diff)
	}
}

func TestApplyPatchErrors(t *testing.T) {
	for _, p := range []string{`[{"op":"replace","path":"/nope","value":1}]`, `[{"op":"remove","path":"/a/9"}]`, `[{"op":"test","path":"/a","value":[2]}]`, `[{"op":"jump","path":"/"}]`} {
		if _, err := agui.ApplyPatch([]byte(`{"a":[1]}`), []byte(p)); err == nil {
			t.Errorf("ApplyPatch(%s) succeeded", p)
		}
	}
	out, err := agui.ApplyPatch([]byte(`{"a":[1,2],"b":{"c":1}}`), []byte(`[{"op":"move","from":"/b/c","path":"/a/0"},{"op":"copy","from":"/a","path":"/d"},{"op":"remove","path":"/b"}]`))
	if err != nil || string(out) != `{"a":[1,1,2],"d":[1,1,2]}` {
		t.Errorf("ApplyPatch = %s, %v", out, err)
	}
}

// BenchmarkTranscriptLongMessage folds one message of 100 000 deltas: the
// cost per delta must not grow with the message (it did, quadratically).
func BenchmarkTranscriptLongMessage(b *testing.B) {
	for b.Loop() {
		tr := agui.NewTranscript(nil)
		tr.Apply(&agui.TextMessageStart{MessageID: "m"})
		tr.Apply(&agui.ToolCallStart{ToolCallID: "c", ToolCallName: "f"})
		for range 100000 {
			tr.Apply(&agui.TextMessageContent{MessageID: "m", Delta: "token "})
			tr.Apply(&agui.ToolCallArgs{ToolCallID: "c", Delta: "x"})
		}
		if n := len(tr.Messages()[0].Content.String()); n != 600000 {
			b.Fatalf("content length %d", n)
		}
	}
}

// A tool call whose parent message was never streamed (LangGraph sends a
// node's tool calls whole) makes an assistant message with the parent's
// id, as the client does, so that the upstream sees its own message id
// again in the follow-up.
func TestToolCallParentNamesTheMessage(t *testing.T) {
	tr := agui.NewTranscript([]agui.Message{{ID: "u1", Role: agui.RoleUser, Content: agui.Text("hi")}})
	tr.Apply(&agui.ToolCallStart{ToolCallID: "c1", ToolCallName: "f", ParentMessageID: "lg-msg-1"})
	tr.Apply(&agui.ToolCallEnd{ToolCallID: "c1"})
	tr.Apply(&agui.ToolCallStart{ToolCallID: "c2", ToolCallName: "g", ParentMessageID: "u1"})
	ms := tr.Messages()
	if len(ms) != 3 || ms[1].ID != "lg-msg-1" || ms[1].ToolCalls[0].ID != "c1" || ms[2].ID != "c2" || ms[0].Role != agui.RoleUser {
		t.Errorf("messages %+v", ms)
	}
}

// Deltas of interleaved messages, a budget running out, a snapshot and a
// message restarted after its END all land where they belong (the last
// message's builder is kept between deltas).
func TestTranscriptInterleavedDeltas(t *testing.T) {
	tr := agui.NewTranscript(nil)
	budget := 12 // for text; new messages are always let in
	tr.SetBudget(func(n int) bool {
		if n >= 64 {
			return true
		}
		if n > budget {
			return false
		}
		budget -= n
		return true
	})
	for _, ev := range []agui.Event{
		&agui.TextMessageStart{MessageID: "a"},
		&agui.ReasoningMessageStart{MessageID: "b"},
		&agui.TextMessageContent{MessageID: "a", Delta: "a1"},
		&agui.TextMessageContent{MessageID: "a", Delta: "a2"},
		&agui.ReasoningMessageContent{MessageID: "b", Delta: "b1"},
		&agui.TextMessageContent{MessageID: "a", Delta: "a3"},
		&agui.TextMessageEnd{MessageID: "a"},
		&agui.TextMessageContent{MessageID: "a", Delta: "a4"}, // after END: appended to the kept content
		&agui.TextMessageContent{MessageID: "a", Delta: "this one is over the budget"},
		&agui.TextMessageContent{MessageID: "a", Delta: "a5"}, // cut: dropped
		&agui.ReasoningMessageContent{MessageID: "b", Delta: "b2"},
	} {
		tr.Apply(ev)
	}
	got := map[string]string{}
	for _, m := range tr.Messages() {
		got[m.ID] = m.Content.String()
	}
	want := map[string]string{"a": "a1a2a3a4" + agui.CutMarker, "b": "b1b2"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("contents (-want +got):\n%s", diff)
	}
}

// A cut message drops its later deltas (the transcript skips its lookups
// while they come one after another) and the messages around it go on.
func TestTranscriptCutMessageStaysCut(t *testing.T) {
	tr := agui.NewTranscript(nil)
	tr.SetBudget(func(n int) bool { return n >= 64 || n < 20 }) // new messages in; only the long delta is refused
	for _, ev := range []agui.Event{
		&agui.TextMessageStart{MessageID: "a"},
		&agui.TextMessageStart{MessageID: "b"},
		&agui.TextMessageContent{MessageID: "a", Delta: "a1"},
		&agui.TextMessageContent{MessageID: "a", Delta: "this one is over the budget"},
		&agui.TextMessageContent{MessageID: "a", Delta: "a2"},
		&agui.TextMessageContent{MessageID: "a", Delta: "a3"},
		&agui.TextMessageContent{MessageID: "b", Delta: "b1"},
		&agui.TextMessageContent{MessageID: "a", Delta: "a4"},
		&agui.TextMessageContent{MessageID: "b", Delta: "b2"},
		&agui.TextMessageContent{MessageID: "c", Delta: "c1"}, // no such message
		&agui.TextMessageStart{MessageID: "c"},
		&agui.TextMessageContent{MessageID: "c", Delta: "c2"},
		&agui.TextMessageContent{MessageID: "a", Delta: "a5"},
		&agui.TextMessageEnd{MessageID: "b"},
		&agui.TextMessageContent{MessageID: "b", Delta: "b3"},
	} {
		tr.Apply(ev)
	}
	got := map[string]string{}
	for _, m := range tr.Messages() {
		got[m.ID] = m.Content.String()
	}
	want := map[string]string{"a": "a1" + agui.CutMarker, "b": "b1b2b3", "c": "c2"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("contents (-want +got):\n%s", diff)
	}
}

// BenchmarkTranscriptCutDeltas is a long run's deltas after its history
// is full.
func BenchmarkTranscriptCutDeltas(b *testing.B) {
	tr := agui.NewTranscript(nil)
	tr.SetBudget(func(n int) bool { return n >= 64 }) // messages in, text out
	tr.Apply(&agui.TextMessageStart{MessageID: "m"})
	ev := &agui.TextMessageContent{MessageID: "m", Delta: "token "}
	for b.Loop() {
		tr.Apply(ev)
	}
}
