package agui_test

import (
	"context"
	"fmt"
	"iter"
	"strings"

	"github.com/genui-adapter/genui-adapter/agui"
)

// ExampleChain wraps a tiny Agent in two middlewares. The first one given
// is the outermost: greet sees the delta shout has already upper-cased, so
// only "hello" is in capitals.
func ExampleChain() {
	hello := agui.AgentFunc(func(ctx context.Context, req *agui.Request) iter.Seq2[agui.Event, error] {
		in := req.Input
		return func(yield func(agui.Event, error) bool) {
			_ = yield(&agui.RunStarted{ThreadID: in.ThreadID, RunID: in.RunID}, nil) &&
				yield(&agui.TextMessageStart{MessageID: "m1", Role: "assistant"}, nil) &&
				yield(&agui.TextMessageContent{MessageID: "m1", Delta: "hello"}, nil) &&
				yield(&agui.TextMessageEnd{MessageID: "m1"}, nil) &&
				yield(&agui.RunFinished{ThreadID: in.ThreadID, RunID: in.RunID}, nil)
		}
	})
	// each returns a middleware that rewrites every event with f.
	each := func(f func(agui.Event) agui.Event) agui.Middleware {
		return func(next agui.Agent) agui.Agent {
			return agui.AgentFunc(func(ctx context.Context, req *agui.Request) iter.Seq2[agui.Event, error] {
				return func(yield func(agui.Event, error) bool) {
					agui.PassThrough(next.Run(ctx, req), yield, func(ev agui.Event) bool { return yield(f(ev), nil) })
				}
			})
		}
	}
	shout := each(func(ev agui.Event) agui.Event {
		if c, ok := ev.(*agui.TextMessageContent); ok {
			return &agui.TextMessageContent{MessageID: c.MessageID, Delta: strings.ToUpper(c.Delta)}
		}
		return ev
	})
	greet := each(func(ev agui.Event) agui.Event {
		if c, ok := ev.(*agui.TextMessageContent); ok {
			return &agui.TextMessageContent{MessageID: c.MessageID, Delta: c.Delta + ", world"}
		}
		return ev
	})

	agent := agui.Chain(hello, greet, shout)
	for ev, err := range agent.Run(context.Background(), &agui.Request{Input: &agui.RunAgentInput{ThreadID: "t1", RunID: "r1"}}) {
		if err != nil {
			fmt.Println("error:", err)
			return
		}
		b, _ := ev.MarshalJSON()
		fmt.Println(string(b))
	}
	// Output:
	// {"type":"RUN_STARTED","threadId":"t1","runId":"r1"}
	// {"type":"TEXT_MESSAGE_START","messageId":"m1","role":"assistant"}
	// {"type":"TEXT_MESSAGE_CONTENT","messageId":"m1","delta":"HELLO, world"}
	// {"type":"TEXT_MESSAGE_END","messageId":"m1"}
	// {"type":"RUN_FINISHED","threadId":"t1","runId":"r1"}
}

// ExampleNormalize repairs a broken upstream stream: it sends text content
// for a message it never started and then stops without a terminal event.
// In Output mode the client still gets a stream it accepts: RUN_STARTED
// first (echoing the request's ids), the message opened before its content,
// and a RUN_ERROR with a stable code.
func ExampleNormalize() {
	broken := agui.AgentFunc(func(ctx context.Context, req *agui.Request) iter.Seq2[agui.Event, error] {
		return func(yield func(agui.Event, error) bool) {
			_ = yield(&agui.TextMessageContent{MessageID: "m1", Delta: "half a rep"}, nil)
		}
	})
	agent := agui.Chain(broken, agui.Normalize(agui.Output))
	for ev, err := range agent.Run(context.Background(), &agui.Request{Input: &agui.RunAgentInput{ThreadID: "t1", RunID: "r1"}}) {
		if err != nil {
			fmt.Println("error:", err)
			return
		}
		b, _ := ev.MarshalJSON()
		fmt.Println(string(b))
	}
	// Output:
	// {"type":"RUN_STARTED","threadId":"t1","runId":"r1"}
	// {"type":"TEXT_MESSAGE_START","messageId":"m1","role":"assistant"}
	// {"type":"TEXT_MESSAGE_CONTENT","messageId":"m1","delta":"half a rep"}
	// {"type":"RUN_ERROR","message":"upstream agent ended the stream without RUN_FINISHED or RUN_ERROR","code":"upstream_truncated"}
}
