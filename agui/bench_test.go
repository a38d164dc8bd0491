package agui_test

import (
	"bytes"
	"context"
	"io"
	"iter"
	"testing"

	"github.com/genui-adapter/genui-adapter/agui"
)

func benchStream(n int) []byte {
	var b bytes.Buffer
	enc := agui.NewEncoder(&b)
	enc.Encode("", &agui.RunStarted{ThreadID: "t", RunID: "r"})
	enc.Encode("", &agui.TextMessageStart{MessageID: "m", Role: "assistant"})
	for range n {
		enc.Encode("", &agui.TextMessageContent{MessageID: "m", Delta: "hello world "})
	}
	enc.Encode("", &agui.TextMessageEnd{MessageID: "m"})
	enc.Encode("", &agui.RunFinished{ThreadID: "t", RunID: "r"})
	return b.Bytes()
}

// BenchmarkDecodeNormalizeEncode is the per-event work of the relay: decode
// the upstream frame, run both normaliser modes, encode the client frame.
func BenchmarkDecodeNormalizeEncode(b *testing.B) {
	const n = 10000
	data := benchStream(n)
	req := &agui.Request{Input: &agui.RunAgentInput{ThreadID: "t", RunID: "r"}}
	b.ReportAllocs()
	for b.Loop() {
		src := agui.AgentFunc(func(ctx context.Context, _ *agui.Request) iter.Seq2[agui.Event, error] {
			return agui.Decode(bytes.NewReader(data), 0)
		})
		a := agui.Chain(src, agui.Normalize(agui.Output), agui.Normalize(agui.Canonical))
		enc := agui.NewEncoder(io.Discard)
		count := 0
		for ev, err := range a.Run(context.Background(), req) {
			if err != nil {
				b.Fatal(err)
			}
			enc.Encode("", ev)
			count++
		}
		if count != n+4 {
			b.Fatalf("%d events", count)
		}
	}
	b.ReportMetric(float64(b.N*(n+4))/b.Elapsed().Seconds(), "events/s")
}
