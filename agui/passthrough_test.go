package agui_test

import (
	"context"
	"errors"
	"fmt"
	"iter"
	"slices"
	"strings"
	"testing"

	"github.com/genui-adapter/genui-adapter/agui"
)

// ExamplePassThrough is a middleware that adds a CUSTOM event after every
// tool result and passes everything else on as it is.
func ExamplePassThrough() {
	backend := agui.AgentFunc(func(ctx context.Context, req *agui.Request) iter.Seq2[agui.Event, error] {
		in := req.Input
		return func(yield func(agui.Event, error) bool) {
			_ = yield(&agui.RunStarted{ThreadID: in.ThreadID, RunID: in.RunID}, nil) &&
				yield(&agui.ToolCallResult{MessageID: "t1", ToolCallID: "c1", Content: "42"}, nil) &&
				yield(&agui.RunFinished{ThreadID: in.ThreadID, RunID: in.RunID}, nil)
		}
	})
	noted := func(next agui.Agent) agui.Agent {
		return agui.AgentFunc(func(ctx context.Context, req *agui.Request) iter.Seq2[agui.Event, error] {
			return func(yield func(agui.Event, error) bool) {
				agui.PassThrough(next.Run(ctx, req), yield, func(ev agui.Event) bool {
					if !yield(ev, nil) {
						return false
					}
					if r, ok := ev.(*agui.ToolCallResult); ok {
						return yield(&agui.Custom{Name: "noted", Value: agui.JSON(`"` + r.ToolCallID + `"`)}, nil)
					}
					return true
				})
			}
		})
	}
	for ev, err := range agui.Chain(backend, noted).Run(context.Background(), &agui.Request{Input: &agui.RunAgentInput{ThreadID: "t", RunID: "r"}}) {
		if err != nil {
			fmt.Println("error:", err)
			return
		}
		b, _ := ev.MarshalJSON()
		fmt.Println(string(b))
	}
	// Output:
	// {"type":"RUN_STARTED","threadId":"t","runId":"r"}
	// {"type":"TOOL_CALL_RESULT","messageId":"t1","toolCallId":"c1","content":"42"}
	// {"type":"CUSTOM","name":"noted","value":"c1"}
	// {"type":"RUN_FINISHED","threadId":"t","runId":"r"}
}

// seqOf yields deltas "0".."n-1" and then, if err is not nil, err and
// one more event (which nobody may see: an error ends a stream). It
// records how far it got and whether it was stopped.
func seqOf(n int, err error, log *[]string) iter.Seq2[agui.Event, error] {
	return func(yield func(agui.Event, error) bool) {
		for i := range n {
			*log = append(*log, fmt.Sprint("sent ", i))
			if !yield(&agui.TextMessageContent{MessageID: "m", Delta: fmt.Sprint(i)}, nil) {
				*log = append(*log, "stopped")
				return
			}
		}
		if err != nil {
			if !yield(nil, err) {
				*log = append(*log, "stopped")
				return
			}
			*log = append(*log, "after error")
			yield(&agui.TextMessageContent{MessageID: "m", Delta: "after error"}, nil)
		}
		*log = append(*log, "ended")
	}
}

func TestPassThrough(t *testing.T) {
	boom := errors.New("boom")
	delta := func(ev agui.Event) string { return ev.(*agui.TextMessageContent).Delta }
	for _, tc := range []struct {
		name    string
		n       int
		err     error
		stopAt  int // the consumer stops after this many items (0: never)
		f       func(yield func(agui.Event, error) bool) func(agui.Event) bool
		want    string // what the consumer got
		wantLog string // what the inner stream did
	}{
		{name: "nil f passes every event", n: 3, want: "0 1 2", wantLog: "sent 0,sent 1,sent 2,ended"},
		{name: "f changes and adds", n: 2, f: func(yield func(agui.Event, error) bool) func(agui.Event) bool {
			return func(ev agui.Event) bool {
				return yield(&agui.TextMessageContent{MessageID: "m", Delta: delta(ev) + "!"}, nil) &&
					yield(&agui.TextMessageContent{MessageID: "m", Delta: "+"}, nil)
			}
		}, want: "0! + 1! +", wantLog: "sent 0,sent 1,ended"},
		{name: "f drops and stops", n: 5, f: func(yield func(agui.Event, error) bool) func(agui.Event) bool {
			return func(ev agui.Event) bool {
				if delta(ev) == "2" {
					return false
				}
				return delta(ev) == "0" || yield(ev, nil)
			}
		}, want: "1", wantLog: "sent 0,sent 1,sent 2,stopped"},
		{name: "consumer stops", n: 5, stopAt: 2, want: "0 1", wantLog: "sent 0,sent 1,stopped"},
		{name: "consumer stops in f", n: 5, stopAt: 3, f: func(yield func(agui.Event, error) bool) func(agui.Event) bool {
			return func(ev agui.Event) bool {
				return yield(ev, nil) && yield(&agui.TextMessageContent{MessageID: "m", Delta: "+"}, nil)
			}
		}, want: "0 + 1", wantLog: "sent 0,sent 1,stopped"},
		{name: "error is yielded and ends it", n: 2, err: boom, want: "0 1 error:boom", wantLog: "sent 0,sent 1,stopped"},
		{name: "error with f", n: 1, err: boom, f: func(yield func(agui.Event, error) bool) func(agui.Event) bool {
			return func(ev agui.Event) bool { return yield(ev, nil) }
		}, want: "0 error:boom", wantLog: "sent 0,stopped"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var got, log []string
			yield := func(ev agui.Event, err error) bool {
				if err != nil {
					got = append(got, "error:"+err.Error())
				} else {
					got = append(got, delta(ev))
				}
				return tc.stopAt == 0 || len(got) < tc.stopAt
			}
			var f func(agui.Event) bool
			if tc.f != nil {
				f = tc.f(yield)
			}
			agui.PassThrough(seqOf(tc.n, tc.err, &log), yield, f)
			if s := strings.Join(got, " "); s != tc.want {
				t.Errorf("consumer got %q, want %q", s, tc.want)
			}
			if s := strings.Join(log, ","); s != tc.wantLog {
				t.Errorf("inner stream: %q, want %q", s, tc.wantLog)
			}
			if slices.Contains(got, "after error") {
				t.Error("an event after the error reached the consumer")
			}
		})
	}
}
