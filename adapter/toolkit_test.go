package adapter

import (
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/genui-adapter/genui-adapter/agui"
)

func toolkitServer(t *testing.T, edit func(*Config)) string {
	t.Helper()
	cfg := DefaultConfig()
	cfg.Agents["demo"].Backend.(*DemoConfig).Delay = 0
	if edit != nil {
		edit(&cfg)
	}
	return newTestServer(t, cfg).URL
}

func sayBody(thread, run, say string, fp map[string]any) string {
	b, _ := json.Marshal(map[string]any{"threadId": thread, "runId": run, "messages": []any{map[string]any{"id": "u-" + run, "role": "user", "content": say}}, "forwardedProps": fp})
	return string(b)
}

// TestToolkitThroughTheChain: each toolkit tool, called by the demo agent,
// runs in the adapter and shows as a card, a surface or both, by the
// run's render mode; the agent gets the text result in the same run.
func TestToolkitThroughTheChain(t *testing.T) {
	url := toolkitServer(t, func(c *Config) { c.Toolkit.URLAllowlist = []string{"https://example.com"} })
	both := map[string]any{"genuiRender": []string{"a2ui", "mcp-apps"}}
	cards := map[string]any{"genuiRender": []string{"mcp-apps"}}
	for i, tt := range []struct {
		say     string
		fp      map[string]any
		want    []string
		notWant []string
	}{
		{"dashboard", both, []string{`"activityType":"mcp-apps"`, `ui://genui/data-view`, `"activityType":"a2ui-surface"`, `mcp~genui~`, `no chart component`, `Done: it is shown above (render_chart)`}, nil},
		{"dashboard", cards, []string{`"activityType":"mcp-apps"`, `Done: it is shown above`}, []string{`"activityType":"a2ui-surface"`}},
		{"kpis", nil, []string{`"activityType":"a2ui-surface"`, `Revenue`, `(better)`}, []string{`"activityType":"mcp-apps"`}},
		{"orders", nil, []string{`"activityType":"a2ui-surface"`, `EUR 1,890.50`, `sorted by Total (descending)`}, nil},
		{"html", nil, []string{`renders only A2UI`, `The toolkit refused`}, []string{`"activityType":"mcp-apps"`}},
		{"html", cards, []string{`"activityType":"mcp-apps"`, `ui://genui/data-view`, `"kind":"html"`, `"scripts":false`}, nil},
		{"url", cards, []string{`"activityType":"mcp-apps"`, `ui://genui/page-view`, `"url":"https://example.com/"`}, nil},
	} {
		_, out := post(t, url+"/agents/demo/run", "application/json", sayBody(fmt.Sprintf("tk%d", i), fmt.Sprintf("r%d", i), tt.say, tt.fp))
		evs := decodeEvents(t, out)
		all := out + spoken(evs)
		for _, w := range tt.want {
			if !strings.Contains(all, w) {
				t.Errorf("%q %v: stream lacks %s\n%s", tt.say, tt.fp, w, out)
			}
		}
		for _, w := range tt.notWant {
			if strings.Contains(all, w) {
				t.Errorf("%q %v: stream has %s", tt.say, tt.fp, w)
			}
		}
		if evs[len(evs)-1].Type() != agui.TypeRunFinished {
			t.Errorf("%q ended with %s", tt.say, evs[len(evs)-1].Type())
		}
	}
	// render_url outside the allowlist: refused with what to do instead.
	url2 := toolkitServer(t, func(c *Config) { c.Toolkit.URLAllowlist = nil })
	_, out := post(t, url2+"/agents/demo/run", "application/json", sayBody("u", "u1", "url", cards))
	// The card shows the refusal (an error result reaches the View).
	if !strings.Contains(out, "not on this deployment") || !strings.Contains(out, `"isError":true`) || strings.Contains(out, `"kind":"url"`) {
		t.Errorf("render_url outside the allowlist: %s", out)
	}
}

// stream reads a run's events as they come.
type stream struct {
	events chan agui.Event
	all    strings.Builder
	said   strings.Builder // the agent's text
}

func startRun(t *testing.T, url, body string) *stream {
	t.Helper()
	resp, err := http.Post(url, "application/json", strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	return readStream(resp)
}

// readStream decodes resp's events into a stream as they come.
func readStream(resp *http.Response) *stream {
	s := &stream{events: make(chan agui.Event, 256)}
	go func() {
		defer resp.Body.Close()
		defer close(s.events)
		for ev, err := range agui.Decode(resp.Body, 0) {
			if err != nil {
				return
			}
			s.events <- ev
		}
	}()
	return s
}

// until returns the first event f accepts, failing after 10 s.
func (s *stream) until(t *testing.T, f func(agui.Event) bool) agui.Event {
	t.Helper()
	timeout := time.After(10 * time.Second)
	for {
		select {
		case ev, ok := <-s.events:
			if !ok {
				t.Fatal("the stream ended")
			}
			b, _ := json.Marshal(ev)
			s.all.Write(b)
			if c, ok := ev.(*agui.TextMessageContent); ok {
				s.said.WriteString(c.Delta)
			}
			if f(ev) {
				return ev
			}
		case <-timeout:
			t.Fatalf("timed out; so far: %s", s.all.String())
		}
	}
}

func (s *stream) rest(t *testing.T) string {
	s.until(t, func(ev agui.Event) bool { return ev.Type() == agui.TypeRunFinished || ev.Type() == agui.TypeRunError })
	return s.all.String() + s.said.String()
}

// TestAskUserSameRun: ask_user holds its tool's result until the user
// answers, through the A2UI form (an action on the server's surface,
// alongside the waiting run) or through the card (a proxied answer_user
// with the card's capability); the agent gets the answer in the same run.
func TestAskUserSameRun(t *testing.T) {
	url := toolkitServer(t, nil)
	run := url + "/agents/demo/run"

	host := map[string]any{"mcpAppsHost": map[string]any{"concurrentRequests": true}}
	// A2UI: the form's Send.
	s := startRun(t, run, sayBody("ask-a", "a1", "ask", host))
	snap := s.until(t, func(ev agui.Event) bool {
		a, ok := ev.(*agui.ActivitySnapshot)
		return ok && a.ActivityType == "a2ui-surface"
	}).(*agui.ActivitySnapshot)
	var content struct {
		Ops []map[string]map[string]any `json:"a2ui_operations"`
	}
	_ = json.Unmarshal(snap.Content, &content)
	sid, _ := content.Ops[0]["createSurface"]["surfaceId"].(string)
	if !strings.HasPrefix(sid, "mcp~genui~") || !strings.Contains(string(snap.Content), "ChoicePicker") {
		t.Fatalf("the question's surface: %s", snap.Content)
	}
	action := func(thread, surface string, answer any) string {
		fp := map[string]any{"a2uiAction": map[string]any{"userAction": map[string]any{"name": "answer_user", "surfaceId": surface, "sourceComponentId": "send", "context": map[string]any{"answer": answer, "mode": "single"}}}}
		b, _ := json.Marshal(map[string]any{"threadId": thread, "runId": fmt.Sprintf("act-%d", time.Now().UnixNano()), "messages": []any{}, "forwardedProps": fp})
		_, out := post(t, run, "application/json", string(b))
		return out
	}
	// A forged surface id, or the right one on another thread: refused.
	if out := action("ask-a", strings.Replace(sid, "~main~", "~other~", 1), []string{"Pro"}); !strings.Contains(out, "RUN_ERROR") {
		t.Errorf("a forged surface id answered: %s", out)
	}
	if out := action("elsewhere", sid, []string{"Pro"}); !strings.Contains(out, "RUN_ERROR") {
		t.Errorf("another thread answered: %s", out)
	}
	out := action("ask-a", sid, []string{"Pro"})
	if !strings.Contains(out, "Answered: Pro") || !strings.Contains(out, "RUN_FINISHED") {
		t.Fatalf("the answer's run: %s", out)
	}
	rest := s.rest(t)
	if !strings.Contains(rest, `\"answer\":\"Pro\"`) || !strings.Contains(rest, `you answered`) {
		t.Errorf("the waiting run did not continue with the answer: %s", rest)
	}
	// The form stays the call's one surface (its answer is not made into
	// another surface replacing it).
	if n := strings.Count(rest, `"type":"ACTIVITY_SNAPSHOT"`); n != 1 {
		t.Errorf("%d surface snapshots, want 1: %s", n, rest)
	}
	// Answering again: the question is closed.
	// Answering again: no run waits; the answer goes to the agent as the
	// user's message, in the action's run.
	if out := action("ask-a", sid, []string{"Basic"}); !strings.Contains(spoken(decodeEvents(t, out)), `you answered "Basic"`) {
		t.Errorf("a second answer: %s", out)
	}

	// MCP Apps: the card's answer_user with its capability.
	s = startRun(t, run, sayBody("ask-c", "c1", "ask", map[string]any{"genuiRender": []string{"mcp-apps"}, "mcpAppsHost": map[string]any{"concurrentRequests": true}}))
	card := s.until(t, func(ev agui.Event) bool {
		a, ok := ev.(*agui.ActivitySnapshot)
		return ok && a.ActivityType == "mcp-apps"
	}).(*agui.ActivitySnapshot)
	var c struct {
		ServerHash string `json:"serverHash"`
	}
	_ = json.Unmarshal(card.Content, &c)
	proxied := func(thread, hash string) string {
		fp := map[string]any{"__proxiedMCPRequest": map[string]any{"serverHash": hash, "serverId": "genui", "method": "tools/call", "params": map[string]any{"name": "answer_user", "arguments": map[string]any{"answer": "Enterprise"}}}}
		b, _ := json.Marshal(map[string]any{"threadId": thread, "runId": fmt.Sprintf("px-%d", time.Now().UnixNano()), "messages": []any{}, "forwardedProps": fp})
		_, out := post(t, run, "application/json", string(b))
		return out
	}
	if out := proxied("elsewhere", c.ServerHash); !strings.Contains(out, `"code":-32600`) {
		t.Errorf("the capability worked on another thread: %s", out)
	}
	if out := proxied("ask-c", c.ServerHash); !strings.Contains(out, `delivered`) {
		t.Fatalf("the card's answer: %s", out)
	}
	if rest := s.rest(t); !strings.Contains(rest, `Enterprise`) || strings.Contains(rest, `"activityType":"a2ui-surface"`) {
		t.Errorf("the waiting run: %s", rest)
	}
}

// TestAskUserTimesOut: with no answer within toolkit.answerWait the agent
// is told so, and the run ends normally.
func TestAskUserTimesOut(t *testing.T) {
	url := toolkitServer(t, func(c *Config) { c.Toolkit.AnswerWait = Duration(300 * time.Millisecond) })
	_, out := post(t, url+"/agents/demo/run", "application/json", sayBody("late", "l1", "ask", map[string]any{"mcpAppsHost": map[string]any{"concurrentRequests": true}}))
	out += spoken(decodeEvents(t, out))
	if !strings.Contains(out, `did not answer within 300ms`) || !strings.Contains(out, "No answer came") || !strings.Contains(out, "RUN_FINISHED") {
		t.Errorf("%s", out)
	}
}

// TestAskUserNextRun: a host that sends surface actions and card requests
// only between runs (CopilotKit's renderers) gets the question and the end
// of the run at once; the form's answer then runs the agent with it as
// the user's message (locked on the thread, in its history), and a card's
// answer_user says where the answer goes.
func TestAskUserNextRun(t *testing.T) {
	url := toolkitServer(t, nil)
	run := url + "/agents/demo/run"
	_, out := post(t, run, "application/json", sayBody("nx", "n1", "ask", nil))
	evs := decodeEvents(t, out)
	if said := spoken(evs); !strings.Contains(said, "Answer in the form above") || !strings.Contains(out, `\"pending\":true`) {
		t.Fatalf("the question's run: %s", out)
	}
	var sid string
	for _, ev := range evs {
		if a, ok := ev.(*agui.ActivitySnapshot); ok && a.ActivityType == "a2ui-surface" {
			var c struct {
				Ops []map[string]map[string]any `json:"a2ui_operations"`
			}
			_ = json.Unmarshal(a.Content, &c)
			sid, _ = c.Ops[0]["createSurface"]["surfaceId"].(string)
		}
	}
	fp := map[string]any{"a2uiAction": map[string]any{"userAction": map[string]any{"name": "answer_user", "surfaceId": sid, "sourceComponentId": "send", "context": map[string]any{"answer": []string{"Basic"}, "mode": "single", "question": "Which plan should I prepare?"}}}}
	b, _ := json.Marshal(map[string]any{"threadId": "nx", "runId": "n2", "messages": []any{}, "forwardedProps": fp})
	_, out = post(t, run, "application/json", string(b))
	if !strings.Contains(out, "Answered: Basic") || !strings.Contains(spoken(decodeEvents(t, out)), `you answered "Basic"`) {
		t.Fatalf("the answer's run: %s", out)
	}
	// That run is the thread's: its history has the answer as a user turn.
	_, hist := get(t, url+"/threads/nx/messages")
	if !strings.Contains(hist, `Answer to \"Which plan should I prepare?\": Basic`) {
		t.Errorf("history: %s", hist)
	}
}

func get(t *testing.T, url string) (*http.Response, string) {
	t.Helper()
	resp, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var b strings.Builder
	_, _ = io.Copy(&b, resp.Body)
	return resp, b.String()
}

// toolkit.maxAnswerBytes reaches the answers' cap.
func TestMaxAnswerBytesConfigured(t *testing.T) {
	cfg, err := ParseConfig([]byte("toolkit: {maxAnswerBytes: 1024}\nagents: {d: {type: demo}}\n"), func(string) string { return "" })
	if err != nil {
		t.Fatal(err)
	}
	s, err := NewServer(slog.New(slog.DiscardHandler), cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if s.answers.MaxBytes != 1024 {
		t.Errorf("answers cap = %d, want 1024 from toolkit.maxAnswerBytes", s.answers.MaxBytes)
	}
}
