package agui_test

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"golang.org/x/tools/txtar"

	"github.com/genui-adapter/genui-adapter/agui"
)

func TestScanFrames(t *testing.T) {
	for _, tt := range []struct {
		name    string
		in      string
		max     int
		want    []agui.Frame
		wantErr error
	}{
		{name: "lf", in: "data: a\n\n", want: []agui.Frame{{Data: []byte("a")}}},
		{name: "crlf", in: "data: a\r\n\r\ndata: b\r\n\r\n", want: []agui.Frame{{Data: []byte("a")}, {Data: []byte("b")}}},
		{name: "no space after colon", in: "data:a\n\n", want: []agui.Frame{{Data: []byte("a")}}},
		{name: "multi-line data", in: "data: a\ndata: b\n\n", want: []agui.Frame{{Data: []byte("a\nb")}}},
		{name: "comments skipped", in: ": hi\n\ndata: a\n: inline\n\n", want: []agui.Frame{{Data: []byte("a")}}},
		{name: "fields", in: "event: values\nid: 7\nretry: 1500\ndata: {}\n\n", want: []agui.Frame{{Event: "values", ID: "7", Retry: 1500, Data: []byte("{}")}}},
		{name: "id persists", in: "id: 1\ndata: a\n\ndata: b\n\n", want: []agui.Frame{{ID: "1", Data: []byte("a")}, {ID: "1", Data: []byte("b")}}},
		{name: "unterminated complete json", in: "data: {\"a\":1}", want: []agui.Frame{{Data: []byte(`{"a":1}`)}}},
		{name: "unterminated partial", in: "data: {\"a\":", wantErr: agui.ErrTruncatedFrame},
		{name: "too large", in: "data: " + strings.Repeat("x", 100) + "\n\n", max: 50, wantErr: agui.ErrEventTooLarge},
		{name: "too large over lines", in: strings.Repeat("data: xxxxxxxxxx\n", 10) + "\n", max: 50, wantErr: agui.ErrEventTooLarge},
		{name: "huge line", in: "data: " + strings.Repeat("x", 200<<10) + "\n\n", max: 100 << 10, wantErr: agui.ErrEventTooLarge},
		{name: "long line under cap", in: "data: " + strings.Repeat("x", 100<<10) + "\n\n", want: []agui.Frame{{Data: bytes.Repeat([]byte("x"), 100<<10)}}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			var got []agui.Frame
			var err error
			for f, e := range agui.ScanFrames(strings.NewReader(tt.in), tt.max) {
				if e != nil {
					err = e
					break
				}
				f.Data = append([]byte(nil), f.Data...)
				got = append(got, f)
			}
			if !errors.Is(err, tt.wantErr) {
				t.Fatalf("ScanFrames(%.40q) error = %v, want %v", tt.in, err, tt.wantErr)
			}
			if tt.wantErr == nil {
				if diff := cmp.Diff(tt.want, got); diff != "" {
					t.Errorf("ScanFrames(%.40q) frames (-want +got):\n%s", tt.in, diff)
				}
			}
		})
	}
}

func TestEncoderFraming(t *testing.T) {
	var b bytes.Buffer
	enc := agui.NewEncoder(&b)
	if err := enc.Retry(3000); err != nil {
		t.Fatal(err)
	}
	if err := enc.Comment("keep-alive"); err != nil {
		t.Fatal(err)
	}
	if err := enc.Encode("42", &agui.TextMessageContent{MessageID: "m", Delta: "a\nb"}); err != nil {
		t.Fatal(err)
	}
	// Pretty JSON from a RAW event's payload is compacted to one line.
	if err := enc.EncodeData("", []byte("{\n  \"type\": \"RAW\",\n  \"event\": {}\n}")); err != nil {
		t.Fatal(err)
	}
	want := "retry: 3000\n\n: keep-alive\n\nid: 42\ndata: {\"type\":\"TEXT_MESSAGE_CONTENT\",\"messageId\":\"m\",\"delta\":\"a\\nb\"}\n\ndata: {\"type\":\"RAW\",\"event\":{}}\n\n"
	if diff := cmp.Diff(want, b.String()); diff != "" {
		t.Errorf("frames (-want +got):\n%s", diff)
	}
}

// TestRoundTrip encodes one of every event type, decodes it back and checks
// the JSON is identical and free of nulls.
func TestRoundTrip(t *testing.T) {
	tr := true
	one := int64(1)
	events := []agui.Event{
		&agui.RunStarted{ThreadID: "t", RunID: "r", ParentRunID: "p"},
		&agui.RunFinished{ThreadID: "t", RunID: "r", Result: agui.JSON(`{"a":1}`), Outcome: &agui.Outcome{Type: "interrupt", Interrupts: []agui.Interrupt{{ID: "i", Reason: "x"}}}, Usage: []agui.TokenUsage{{InputTokens: &one}}},
		&agui.RunError{Message: "m", Code: "c"},
		&agui.StepStarted{StepName: "s"}, &agui.StepFinished{StepName: "s"},
		&agui.TextMessageStart{MessageID: "m", Role: "assistant", Name: "n"},
		&agui.TextMessageContent{MessageID: "m", Delta: ""},
		&agui.TextMessageEnd{MessageID: "m"},
		&agui.TextMessageChunk{MessageID: "m", Delta: "d"},
		&agui.ToolCallStart{ToolCallID: "c", ToolCallName: "n", ParentMessageID: "m"},
		&agui.ToolCallArgs{ToolCallID: "c", Delta: "{}"},
		&agui.ToolCallEnd{ToolCallID: "c"},
		&agui.ToolCallChunk{ToolCallID: "c", ToolCallName: "n"},
		&agui.ToolCallResult{MessageID: "x", ToolCallID: "c", Content: "r", Role: "tool"},
		&agui.StateSnapshot{Snapshot: agui.JSON(`{"s":[1]}`)},
		&agui.StateDelta{Delta: agui.JSON(`[{"op":"add","path":"/a","value":1}]`)},
		&agui.MessagesSnapshot{Messages: []agui.Message{{ID: "u", Role: agui.RoleUser, Content: agui.Text("hi")}, {ID: "a", Role: agui.RoleActivity, ActivityType: "x", Content: agui.Content{Object: []byte(`{"k":1}`)}}}},
		&agui.ActivitySnapshot{MessageID: "a", ActivityType: "x", Content: agui.JSON(`{}`), Replace: &tr},
		&agui.ActivityDelta{MessageID: "a", ActivityType: "x", Patch: agui.JSON(`[]`)},
		&agui.Raw{Event: agui.JSON(`{}`), Source: "s"},
		&agui.Custom{Name: "n", Value: agui.JSON(`1`)},
		&agui.ReasoningStart{MessageID: "r"}, &agui.ReasoningMessageStart{MessageID: "r", Role: "reasoning"},
		&agui.ReasoningMessageContent{MessageID: "r", Delta: "d"}, &agui.ReasoningMessageEnd{MessageID: "r"},
		&agui.ReasoningMessageChunk{MessageID: "r"}, &agui.ReasoningEnd{MessageID: "r"},
		&agui.ReasoningEncryptedValue{Subtype: "message", EntityID: "e", EncryptedValue: "v"},
		&agui.SubagentStarted{Base: agui.Base{SubagentRunID: "s"}, Name: "n"},
		&agui.SubagentFinished{Base: agui.Base{SubagentRunID: "s"}},
		&agui.SubagentError{Base: agui.Base{SubagentRunID: "s"}, Message: "m"},
		&agui.ThinkingStart{Title: "t"}, &agui.ThinkingEnd{}, &agui.ThinkingTextMessageStart{},
		&agui.ThinkingTextMessageContent{Delta: "d"}, &agui.ThinkingTextMessageEnd{},
	}
	if len(events) != 36 {
		t.Fatalf("%d event types covered, want 31 + 5 THINKING_*", len(events))
	}
	var b bytes.Buffer
	enc := agui.NewEncoder(&b)
	var want []string
	for _, ev := range events {
		data, err := ev.MarshalJSON()
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.HasPrefix(data, []byte(`{"type":"`+string(ev.Type())+`"`)) {
			t.Errorf("%s: JSON does not start with its type: %s", ev.Type(), data)
		}
		if bytes.Contains(data, []byte("null")) {
			t.Errorf("%s: JSON has a null: %s", ev.Type(), data)
		}
		want = append(want, string(data))
		if err := enc.Encode("", ev); err != nil {
			t.Fatal(err)
		}
	}
	var got []string
	for ev, err := range agui.Decode(&b, 0) {
		if err != nil {
			t.Fatal(err)
		}
		if _, ok := ev.(*agui.Unknown); ok {
			t.Errorf("decoded as unknown: %v", ev.Type())
		}
		data, _ := ev.MarshalJSON()
		got = append(got, string(data))
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("round trip (-want +got):\n%s", diff)
	}
}

// FuzzDecode feeds arbitrary bytes to the decoder and the normaliser: they
// must never panic, and whatever decodes must re-encode to JSON that decodes
// again to the same type.
func FuzzDecode(f *testing.F) {
	files, _ := filepath.Glob("testdata/normalize/*.txtar")
	for _, file := range files {
		ar, err := txtar.ParseFile(file)
		if err != nil {
			f.Fatal(err)
		}
		for _, af := range ar.Files {
			if af.Name == "upstream" {
				f.Add(af.Data)
			}
		}
	}
	seeds, _ := filepath.Glob("testdata/sse/*")
	for _, s := range seeds {
		b, err := os.ReadFile(s)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		for ev, err := range agui.Decode(bytes.NewReader(data), 1<<16) {
			if err != nil {
				return
			}
			if _, ok := ev.(*agui.Unknown); ok {
				continue
			}
			b, err := ev.MarshalJSON()
			if err != nil {
				t.Fatalf("re-encode %s: %v", ev.Type(), err)
			}
			ev2, err := agui.ParseEvent(b)
			if err != nil || ev2.Type() != ev.Type() {
				t.Fatalf("re-decode of %s = %v, %v", b, ev2, err)
			}
		}
	})
}

// EncodeDataSeq writes what EncodeData writes with the number as its id.
func TestEncodeDataSeq(t *testing.T) {
	for _, seq := range []int64{0, 7, 99, 100, 123456789, -1} {
		var a, b bytes.Buffer
		data := []byte("{\n\"type\": \"RUN_STARTED\"}")
		if err := agui.NewEncoder(&a).EncodeData(strconv.FormatInt(seq, 10), data); err != nil {
			t.Fatal(err)
		}
		if err := agui.NewEncoder(&b).EncodeDataSeq(seq, data); err != nil {
			t.Fatal(err)
		}
		if a.String() != b.String() {
			t.Errorf("seq %d: %q, want %q", seq, b.String(), a.String())
		}
	}
}
