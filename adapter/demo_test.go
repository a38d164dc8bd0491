package adapter

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"testing"

	"github.com/genui-adapter/genui-adapter/agui"
)

// TestDemoScenarios runs every keyword through the whole chain (A2UI,
// MCP Apps with the built-in refunds server) and checks what each shows.
func TestDemoScenarios(t *testing.T) {
	cfg := DefaultConfig()
	cfg.Agents["demo"].Backend.(*DemoConfig).Delay = 0
	ts := newTestServer(t, cfg)
	for i, tt := range []struct {
		say  string
		want []string // substrings of the stream
	}{
		{"hello", []string{`Say one of: dashboard, kpis, orders, html, url, ask, table, record, metrics, chart, form, app, error`, `"toolCallName":"list_shipments"`, `"activityType":"a2ui-surface"`}},
		{"show me a table", []string{`"toolCallName":"list_shipments"`, `"activityType":"a2ui-surface"`, `"STATE_SNAPSHOT"`}},
		{"a record please", []string{`"toolCallName":"get_customer"`, `Grace Hopper`, `"activityType":"a2ui-surface"`}},
		{"metrics", []string{`"toolCallName":"get_kpis"`, `conversionRate`}},
		{"chart", []string{`"toolCallName":"render_chart"`, `Central`, `"activityType":"a2ui-surface"`}},
		{"form", []string{`"toolCallName":"feedback_form"`, `submit_feedback`, `"activityType":"a2ui-surface"`}},
		{"app", []string{`"toolCallName":"review_refund"`, `"activityType":"mcp-apps"`, `ui://refund/review.html`, `The refund review card is above`}},
		{"error", []string{`"code":"demo_error"`}},
	} {
		body := fmt.Sprintf(`{"threadId":"t%d","runId":"r%d","messages":[{"id":"u","role":"user","content":%q}]}`, i, i, tt.say)
		_, out := post(t, ts.URL+"/agents/demo/run", "application/json", body)
		evs := decodeEvents(t, out)
		all := out + spoken(evs)
		for _, w := range tt.want {
			if !strings.Contains(all, w) {
				t.Errorf("%q: stream lacks %s", tt.say, w)
			}
		}
		if last := evs[len(evs)-1].Type(); last != agui.TypeRunFinished && last != agui.TypeRunError {
			t.Errorf("%q ended with %s", tt.say, last)
		}
	}
	// The form's button round-trips as an action the agent answers.
	fp, _ := json.Marshal(map[string]any{"a2uiAction": map[string]any{"userAction": map[string]any{"name": "submit_feedback", "surfaceId": "feedback", "sourceComponentId": "submit", "context": map[string]any{"comment": "great", "contact": true}}}})
	body := fmt.Sprintf(`{"threadId":"tf","runId":"rf","messages":[{"id":"u","role":"user","content":"form"}],"forwardedProps":%s}`, fp)
	_, out := post(t, ts.URL+"/agents/demo/run", "application/json", body)
	if said := spoken(decodeEvents(t, out)); !strings.Contains(said, `submit_feedback`) || !strings.Contains(said, "Thanks! I received your action") {
		t.Errorf("action reply: %s", out)
	}
}

// spoken joins the text the agent streamed.
func spoken(evs []agui.Event) string {
	var b strings.Builder
	for _, e := range evs {
		if c, ok := e.(*agui.TextMessageContent); ok {
			b.WriteString(c.Delta)
		}
	}
	return b.String()
}

// TestDemoURLShowsAllowedPage: with the built-in configuration the demo's
// render_url asks for the adapter's own page, which the toolkit allows and
// shows as a card, and the page is served.
func TestDemoURLShowsAllowedPage(t *testing.T) {
	cfg := DefaultConfig()
	cfg.Agents["demo"].Backend.(*DemoConfig).Delay = 0
	ts := newTestServer(t, cfg)
	body := `{"threadId":"tu","runId":"ru","messages":[{"id":"u","role":"user","content":"url"}],"forwardedProps":{"genuiRender":["mcp-apps"]}}`
	_, out := post(t, ts.URL+"/agents/demo/run", "application/json", body)
	all := out + spoken(decodeEvents(t, out))
	for _, w := range []string{`"toolCallName":"render_url"`, `"activityType":"mcp-apps"`, `http://127.0.0.1:8080/playground/page.html`, "Done: it is shown above"} {
		if !strings.Contains(all, w) {
			t.Errorf("url: stream lacks %s", w)
		}
	}
	if strings.Contains(all, "refused") {
		t.Errorf("url: the toolkit refused the demo's page: %s", spoken(decodeEvents(t, out)))
	}
	res, err := http.Get(ts.URL + "/playground/page.html")
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	if res.StatusCode != http.StatusOK || !strings.HasPrefix(res.Header.Get("Content-Type"), "text/html") {
		t.Errorf("/playground/page.html: %d %s", res.StatusCode, res.Header.Get("Content-Type"))
	}
}

// TestDemoReportsNoRepairs: the demo's runs, tool rounds included, need
// no repair; the ids of the adapter's own follow-up rounds are not the
// agent's mistakes.
func TestDemoReportsNoRepairs(t *testing.T) {
	cfg := DefaultConfig()
	cfg.Agents["demo"].Backend.(*DemoConfig).Delay = 0
	ts := newTestServer(t, cfg)
	for i, say := range []string{"table", "app", "dashboard", "html"} {
		body := fmt.Sprintf(`{"threadId":"nr%d","runId":"nr%d","messages":[{"id":"u","role":"user","content":%q}],"forwardedProps":{"genuiDebug":true,"genuiRender":["a2ui","mcp-apps"]}}`, i, i, say)
		_, out := post(t, ts.URL+"/agents/demo/run", "application/json", body)
		if strings.Contains(out, "genui-adapter.repairs") {
			t.Errorf("%q: the demo's run reports repairs:\n%s", say, out)
		}
		if !strings.Contains(out, fmt.Sprintf(`"type":"RUN_FINISHED","threadId":"nr%d","runId":"nr%d"`, i, i)) {
			t.Errorf("%q: no RUN_FINISHED with the client's ids", say)
		}
	}
}
