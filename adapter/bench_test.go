package adapter

import (
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/genui-adapter/genui-adapter/agui"
)

// BenchmarkRelay streams an unpaced upstream run through the adapter over
// real loopback listeners; compare with BenchmarkDirect.
func BenchmarkRelay(b *testing.B) { benchRelay(b, true) }

// BenchmarkDirect reads the same upstream without the adapter.
func BenchmarkDirect(b *testing.B) { benchRelay(b, false) }

func benchRelay(b *testing.B, via bool) {
	const n = 20000
	url := benchTarget(b, textRun(n), via)
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		i++ // a run id is used once
		body := fmt.Sprintf(`{"threadId":"t%d","runId":"r%d","messages":[{"id":"u","role":"user","content":"hi"}]}`, i, i)
		if got := postRun(b, url, body); got != n+4 {
			b.Fatalf("got %d events", got)
		}
	}
	b.ReportMetric(float64(b.N*(n+4))/b.Elapsed().Seconds(), "events/s")
}

// BenchmarkRunStart is a whole short run through the adapter (request,
// RUN_STARTED, one delta, RUN_FINISHED) over one keep-alive connection:
// what each of many streams costs to start, in time and allocation. The
// body carries forwardedProps, as the load tool's runs do.
func BenchmarkRunStart(b *testing.B) {
	url := benchTarget(b, textRun(1), true)
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		i++
		body := fmt.Sprintf(`{"threadId":"t%d","runId":"r%d","messages":[],"forwardedProps":{"N":1,"Rate":20,"Flush":false}}`, i, i)
		if got := postRun(b, url, body); got != 5 {
			b.Fatalf("got %d events", got)
		}
	}
}

// textRun is an upstream run's SSE body: one text message of n deltas.
func textRun(n int) string {
	var frames strings.Builder
	enc := agui.NewEncoder(&frames)
	enc.Encode("", &agui.RunStarted{ThreadID: "t", RunID: "r"})
	enc.Encode("", &agui.TextMessageStart{MessageID: "m"})
	for range n {
		enc.Encode("", &agui.TextMessageContent{MessageID: "m", Delta: "token "})
	}
	enc.Encode("", &agui.TextMessageEnd{MessageID: "m"})
	enc.Encode("", &agui.RunFinished{ThreadID: "t", RunID: "r"})
	return frames.String()
}

// benchTarget serves body as an upstream run over a real loopback
// listener and returns where to POST a run: through the adapter (via),
// or the upstream itself. Both stop when b ends.
func benchTarget(b *testing.B, body string, via bool) string {
	up := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		io.WriteString(w, body)
	}))
	b.Cleanup(up.Close)
	if !via {
		return up.URL
	}
	// Runs back to back from one client: no run-start limit.
	s, err := NewServer(nil, Config{Listen: "x", Limits: LimitsConfig{RunStartsPerSecond: -1}, Agents: map[string]AgentConfig{"a": {Backend: aguiAt(up.URL)}}})
	if err != nil {
		b.Fatal(err)
	}
	ts := serveAdopted(s)
	b.Cleanup(ts.Close)
	return ts.URL + "/agents/a/run"
}

// postRun posts a run and reads its stream to the end: how many events.
func postRun(b *testing.B, url, body string) int {
	resp, err := http.Post(url, "application/json", strings.NewReader(body))
	if err != nil {
		b.Fatal(err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != 200 {
		bb, _ := io.ReadAll(resp.Body)
		b.Fatalf("HTTP %d: %s", resp.StatusCode, bb)
	}
	got := 0
	for _, err := range agui.Decode(resp.Body, 0) {
		if err != nil {
			b.Fatal(err)
		}
		got++
	}
	return got
}
