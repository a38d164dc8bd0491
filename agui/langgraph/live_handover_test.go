package langgraph

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/genui-adapter/genui-adapter/agui"
	"github.com/genui-adapter/genui-adapter/agui/aguihttp"
)

// shape is the events' types, one line each, with TEXT_MESSAGE_CONTENT
// folded into one line of all their text (message ids differ per run).
func shape(jsonl string) string {
	var b strings.Builder
	var text strings.Builder
	for _, line := range strings.Split(strings.TrimSpace(jsonl), "\n") {
		var e struct {
			Type  string `json:"type"`
			Delta string `json:"delta"`
		}
		_ = json.Unmarshal([]byte(line), &e)
		if e.Type == "TEXT_MESSAGE_CONTENT" {
			text.WriteString(e.Delta)
			continue
		}
		if text.Len() > 0 {
			fmt.Fprintf(&b, "TEXT %q\n", text.String())
			text.Reset()
		}
		if e.Type == "" {
			e.Type = line
		}
		b.WriteString(e.Type + "\n")
	}
	return b.String()
}

// TestLiveHandover runs against a real `langgraph dev` at
// GENUI_LANGGRAPH_URL serving e2e/langgraph-python (skipped without it).
func TestLiveHandover(t *testing.T) {
	url := os.Getenv("GENUI_LANGGRAPH_URL")
	if url == "" {
		t.Skip("GENUI_LANGGRAPH_URL is not set")
	}
	in := func(thread string) *agui.RunAgentInput {
		return &agui.RunAgentInput{ThreadID: thread, RunID: "run-" + thread, Messages: []agui.Message{{ID: "u-" + thread, Role: agui.RoleUser, Content: agui.Text("hello")}}}
	}
	var want bytes.Buffer
	collect(&want, (&Agent{Upstream: aguihttp.Upstream{URL: url}, Graph: "chat"}).Run(t.Context(), &agui.Request{Input: in(t.Name() + "-whole")}), nil)
	total := strings.Count(want.String(), "\n")
	t.Logf("whole run: %d events\n%s", total, shape(want.String()))
	handed := 0
	for j := 1; j < total; j++ {
		thread := fmt.Sprintf("%s-%d", t.Name(), j)
		h := agui.NewHandover()
		var got bytes.Buffer
		collect(&got, (&Agent{Upstream: aguihttp.Upstream{URL: url}, Graph: "chat"}).Run(t.Context(), &agui.Request{Input: in(thread), Handover: h}), func(n int) {
			if n == j {
				h.Ask()
			}
		})
		if state, ok := h.State(); ok {
			handed++
			collect(&got, (&Agent{Upstream: aguihttp.Upstream{URL: url}, Graph: "chat"}).Rejoin(t.Context(), &agui.Request{Input: in(thread)}, state), nil)
		}
		if shape(got.String()) != shape(want.String()) {
			t.Errorf("ask at %d: got\n%s\nwant\n%s", j, shape(got.String()), shape(want.String()))
		}
	}
	t.Logf("%d of %d asks handed over", handed, total-1)
	if handed == 0 {
		t.Fatal("no hand-over")
	}
}
