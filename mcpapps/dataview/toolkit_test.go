package dataview_test

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/genui-adapter/genui-adapter/a2ui"
	"github.com/genui-adapter/genui-adapter/mcpapps"
	"github.com/genui-adapter/genui-adapter/mcpapps/dataview"
)

// toolkitPool serves the toolkit through the adapter's pool (a real
// go-sdk client and server, in memory).
func toolkitPool(t *testing.T, opts dataview.Options) *mcpapps.Pool {
	t.Helper()
	srv := dataview.NewToolkitServer(opts)
	p, err := mcpapps.NewPool([]mcpapps.ServerConfig{{ID: dataview.ServerID, A2UI: true, Transport: func() mcp.Transport {
		st, ct := mcp.NewInMemoryTransports()
		if _, err := srv.Connect(context.Background(), st, nil); err != nil {
			t.Error(err)
		}
		return ct
	}}}, mcpapps.PoolOptions{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = p.Close() })
	if err := p.WaitReady(context.Background()); err != nil {
		t.Fatal(err)
	}
	return p
}

func caller(renders ...string) *mcpapps.Caller {
	return &mcpapps.Caller{Principal: "alice", ThreadID: "t1", ToolCallID: "call-1", Source: "model", Renders: renders}
}

func text(r *mcp.CallToolResult) string {
	var s []string
	for _, c := range r.Content {
		if t, ok := c.(*mcp.TextContent); ok {
			s = append(s, t.Text)
		}
	}
	return strings.Join(s, "\n")
}

// surfaceOf is the A2UI a result embeds, checked by the validator with
// the official schemas (strict: orphans, bindings).
func surfaceOf(t *testing.T, r *mcp.CallToolResult, before ...json.RawMessage) []json.RawMessage {
	t.Helper()
	v, err := a2ui.NewValidator(a2ui.Options{Strict: true})
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range r.Content {
		e, ok := c.(*mcp.EmbeddedResource)
		if !ok || e.Resource.MIMEType != mcpapps.A2UIMIMEType {
			continue
		}
		var msgs []json.RawMessage
		if err := json.Unmarshal([]byte(e.Resource.Text), &msgs); err != nil {
			t.Fatal(err)
		}
		var raw [][]byte
		for _, m := range append(before, msgs...) {
			raw = append(raw, m)
		}
		if errs := v.ValidateBatch(raw); len(errs) > 0 {
			t.Fatalf("the A2UI is not valid: %v\n%s", errs, e.Resource.Text)
		}
		return msgs
	}
	return nil
}

func TestToolkitRendersBothWays(t *testing.T) {
	p := toolkitPool(t, dataview.Options{URLAllowlist: []string{"https://example.com"}})
	cases := []struct {
		tool   string
		args   string
		kind   string
		text   []string // in the text for the model
		a2ui   []string // in the surface
		noA2UI bool
	}{
		{"render_chart", `{"type":"bar","title":"Sales","labels":["North","South"],"series":[{"name":"2025","values":[120,95]},{"name":"2026","values":[132,101]}],"unit":"k€"}`, "chart",
			[]string{"North=120 k€", "South=101 k€"}, []string{"no chart component", "**2026 (k€)**", "132"}, false},
		{"render_chart", `{"title":"Ops","charts":[{"type":"gauge","value":73,"unit":"%"},{"type":"pie","labels":["a","b"],"series":[{"values":[1,3]}]},{"type":"scatter","series":[{"name":"s","points":[[1,2],[3,4]]}]},{"type":"radar","labels":["x","y","z"],"series":[{"values":[1,2,3]}]},{"type":"area","labels":["q1","q2"],"series":[{"values":[5,6]}]},{"type":"line","labels":["d1","d2"],"series":[{"values":[7,8]}]},{"type":"donut","labels":["p","q"],"series":[{"values":[2,2]}]}]}`, "chart",
			[]string{"Ops:", "73 % of 0–100", "2 points"}, []string{"A gauge chart", "scale of 0 to 100", "A scatter chart"}, false},
		{"render_metrics", `{"title":"Week","metrics":[{"label":"Revenue","value":128400,"unit":"€","delta":4.2,"deltaUnit":"%"},{"label":"Churn","value":2.1,"unit":"%","delta":-0.3,"good":"down"}]}`, "metrics",
			[]string{"Revenue €128,400 (+4.2%)", "Churn 2.1% (−0.3%)"}, []string{"▲ +4.2% (better)", "▼ −0.3% (better)"}, false},
		{"render_table", `{"title":"Orders","columns":[{"key":"id"},{"key":"total","type":"currency","currency":"EUR"},{"key":"share","type":"percent"}],"rows":[{"id":"A","total":5,"share":0.25},{"id":"B","total":1234.5,"share":0.5}],"sort":{"key":"total","desc":true}}`, "table",
			[]string{"2 rows", "Total"}, []string{"EUR 1,234.50", "25 %", "sorted by Total (descending)"}, false},
		{"render_url", `{"url":"https://example.com/report","title":"Report"}`, "url", []string{"https://example.com/report"}, []string{"](https://example.com/report)"}, false},
		{"render_html", `{"html":"<p>hi</p>"}`, "html", []string{"no network, no scripts"}, nil, true},
		{"show_data", `{"title":"Shipments","data":[{"id":"SH-1","kg":3}]}`, "data", []string{"1 items"}, []string{"SH-1"}, false},
	}
	for _, c := range cases {
		t.Run(c.tool+"/"+c.kind, func(t *testing.T) {
			res, err := p.Call(context.Background(), caller("mcp-apps", "a2ui"), "genui", c.tool, json.RawMessage(c.args))
			if err != nil || res.IsError {
				t.Fatalf("%v %s", err, text(res))
			}
			if sc, _ := res.StructuredContent.(map[string]any); sc["kind"] != c.kind {
				t.Errorf("kind = %v, want %s", sc["kind"], c.kind)
			}
			for _, w := range c.text {
				if !strings.Contains(text(res), w) {
					t.Errorf("text %q lacks %q", text(res), w)
				}
			}
			msgs := surfaceOf(t, res)
			if c.noA2UI != (msgs == nil) {
				t.Fatalf("A2UI present = %v, want %v", msgs != nil, !c.noA2UI)
			}
			all, _ := json.Marshal(msgs)
			for _, w := range c.a2ui {
				if !strings.Contains(string(all), w) {
					t.Errorf("surface lacks %q: %s", w, all)
				}
			}
			// A run that renders only cards gets no A2UI.
			res, _ = p.Call(context.Background(), caller("mcp-apps"), "genui", c.tool, json.RawMessage(c.args))
			if surfaceOf(t, res) != nil {
				t.Error("A2UI sent to a run that renders only cards")
			}
		})
	}
}

func TestToolkitRefusesBadInput(t *testing.T) {
	p := toolkitPool(t, dataview.Options{URLAllowlist: []string{"https://example.com"}, MaxHTMLBytes: 100, MaxSeries: 2})
	cases := []struct{ tool, args, want string }{
		{"render_chart", `{"type":"bar","labels":["a","b"],"series":[{"values":[1]}]}`, "has 1 values for 2 labels"},
		{"render_chart", `{"type":"histogram","labels":["a"],"series":[{"values":[1]}]}`, "/type"},
		{"render_chart", `{"labels":["a"]}`, "invalid input"},
		{"render_chart", `{"type":"gauge"}`, "a gauge needs value"},
		{"render_chart", `{"type":"gauge","value":3,"min":5,"max":1}`, "must be greater than min"},
		{"render_chart", `{"type":"pie","labels":["a","b"],"series":[{"values":[1,2]},{"values":[1,2]}]}`, "exactly one series"},
		{"render_chart", `{"type":"line","labels":["a"],"series":[{"values":[1]},{"values":[1]},{"values":[1]}]}`, "at most 2"},
		{"render_chart", `{"type":"scatter","series":[{"values":[1]}]}`, "needs points"},
		{"render_chart", `{"type":"radar","labels":["a","b"],"series":[{"values":[1,2]}]}`, "at least 3 labels"},
		{"render_metrics", `{"metrics":[{"label":"x"}]}`, "/metrics/0"},
		{"render_table", `{"rows":[{"a":1}],"sort":{"key":"b"}}`, `sort.key "b" is not a column`},
		{"render_table", `{"rows":"nope"}`, "/rows"},
		{"render_html", `{"html":"` + strings.Repeat("x", 101) + `"}`, "at most 100"},
		{"render_url", `{"url":"https://evil.example.org/x"}`, "not on this deployment's allowlist of embeddable sites (https://example.com); give the user the link as text instead"},
		{"render_url", `{"url":"javascript:alert(1)"}`, "not an absolute http(s) URL"},
		{"ask_user", `{"question":"Pick","mode":"single","options":["only"]}`, "at least 2 options"},
		{"ask_user", `{"question":"Name?","mode":"text","options":["a","b"]}`, "takes no options"},
		{"ask_user", `{"mode":"text"}`, "question"},
	}
	for _, c := range cases {
		res, err := p.Call(context.Background(), caller("mcp-apps", "a2ui"), "genui", c.tool, json.RawMessage(c.args))
		if err != nil {
			t.Fatalf("%s %s: %v", c.tool, c.args, err)
		}
		if !res.IsError || !strings.Contains(text(res), c.want) {
			t.Errorf("%s %s: isError=%v %q, want an error with %q", c.tool, c.args, res.IsError, text(res), c.want)
		}
	}
	// render_html where only A2UI is rendered: refused, with what to do.
	res, _ := p.Call(context.Background(), caller("a2ui"), "genui", "render_html", map[string]any{"html": "<b>x</b>"})
	if !res.IsError || !strings.Contains(text(res), "renders only A2UI") {
		t.Errorf("render_html in an A2UI-only run: %q", text(res))
	}
}

// The HTML card: the HTML goes to the View with whether it may run
// scripts (the deployment's choice, never the model's); render_url's View
// may frame exactly the allowlisted origins, the data view nothing.
func TestToolkitHTMLAndPageViews(t *testing.T) {
	for _, scripts := range []bool{false, true} {
		p := toolkitPool(t, dataview.Options{HTMLScripts: scripts, URLAllowlist: []string{"https://example.com"}})
		res, err := p.Call(context.Background(), caller("mcp-apps"), "genui", "render_html", map[string]any{"html": `<p>x</p>`, "scripts": true})
		if err == nil && !res.IsError {
			t.Fatal("render_html accepted a scripts argument from the model")
		}
		res, err = p.Call(context.Background(), caller("mcp-apps"), "genui", "render_html", map[string]any{"html": `<p>x</p>`})
		if err != nil || res.IsError {
			t.Fatal(err, text(res))
		}
		sc := res.StructuredContent.(map[string]any)
		if sc["scripts"] != scripts || sc["html"] != "<p>x</p>" {
			t.Errorf("scripts=%v: %v", scripts, sc)
		}
		page, err := p.UIResource(context.Background(), nil, "genui", dataview.PageURI)
		if err != nil || !strings.Contains(mcpapps.CSP(page.UI), "frame-src https://example.com;") {
			t.Errorf("page view CSP: %v %v", err, page)
		}
		view, _ := p.UIResource(context.Background(), nil, "genui", dataview.ResourceURI)
		if mcpapps.CSP(view.UI) != mcpapps.DefaultCSP {
			t.Errorf("data view CSP %q", mcpapps.CSP(view.UI))
		}
		if tool, _ := p.Tool("genui", "render_url"); tool.ResourceURI != dataview.PageURI {
			t.Errorf("render_url's View is %q", tool.ResourceURI)
		}
	}
}

// ask_user's answer meets the waiting call through Answers, bound to the
// principal, thread and tool call.
func TestAnswerUser(t *testing.T) {
	answers := mcpapps.NewAnswers(nil)
	p := toolkitPool(t, dataview.Options{Answers: answers})
	res, err := p.Call(context.Background(), caller("a2ui"), "genui", "ask_user", map[string]any{"question": "Which plan?", "options": []string{"Basic", "Pro"}})
	if err != nil || res.IsError || res.Meta[mcpapps.AwaitAnswerKey] != true {
		t.Fatalf("ask_user: %v %+v", err, res)
	}
	form := surfaceOf(t, res)
	all, _ := json.Marshal(form)
	for _, w := range []string{`"ChoicePicker"`, `"mutuallyExclusive"`, `"answer_user"`} {
		if !strings.Contains(string(all), w) {
			t.Errorf("the form lacks %s: %s", w, all)
		}
	}
	owner := mcpapps.Caller{Principal: "alice", ThreadID: "t1", ToolCallID: "call-1"}
	got := make(chan json.RawMessage, 1)
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	go func() {
		a, _ := answers.Wait(ctx, owner, 5*time.Second)
		got <- a
	}()
	for deadline := time.Now().Add(2 * time.Second); !answers.Waiting(context.Background(), owner); time.Sleep(10 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("the call never waited")
		}
	}
	// Another principal, another thread, another call: not theirs to
	// answer; their answer goes to their own agent as a message.
	for _, c := range []mcpapps.Caller{{Principal: "bob", ThreadID: "t1", ToolCallID: "call-1"}, {Principal: "alice", ThreadID: "t2", ToolCallID: "call-1"}, {Principal: "alice", ThreadID: "t1", ToolCallID: "call-2"}} {
		c.Source = "app"
		r, _ := p.Call(context.Background(), &c, "genui", "answer_user", map[string]any{"answer": []string{"Pro"}, "mode": "single", "question": "Which plan?"})
		sc, _ := r.StructuredContent.(map[string]any)
		if r.IsError || sc["delivered"] != false || r.Meta[mcpapps.ForwardKey] != `Answer to "Which plan?": Pro` {
			t.Fatalf("%+v: %q %v %v", c, text(r), sc, r.Meta)
		}
		if !answers.Waiting(context.Background(), owner) {
			t.Fatalf("%+v answered alice's question", c)
		}
	}
	c := owner
	c.Source = "app"
	r, _ := p.Call(context.Background(), &c, "genui", "answer_user", map[string]any{"answer": []string{"Pro"}, "mode": "single"})
	if sc, _ := r.StructuredContent.(map[string]any); sc["delivered"] != true {
		t.Fatalf("the owner's answer: %q", text(r))
	}
	all, _ = json.Marshal(surfaceOf(t, r, form...))
	if !strings.Contains(string(all), "Answered: Pro") {
		t.Errorf("the surface update: %s", all)
	}
	if a := <-got; string(a) != `"Pro"` {
		t.Errorf("answer = %s, want \"Pro\" (a single choice is its value)", a)
	}
	if err := answers.Deliver(context.Background(), owner, json.RawMessage(`"again"`)); !errors.Is(err, mcpapps.ErrNoQuestion) {
		t.Errorf("a second answer: %v", err)
	}
}

// refresh re-runs a drawing tool with its input; never ask_user.
func TestRefresh(t *testing.T) {
	p := toolkitPool(t, dataview.Options{})
	in := map[string]any{"type": "bar", "labels": []string{"a"}, "series": []any{map[string]any{"values": []int{4}}}}
	res, err := p.Call(context.Background(), caller(), "genui", "refresh", map[string]any{"tool": "render_chart", "input": in})
	if err != nil || res.IsError || res.StructuredContent.(map[string]any)["kind"] != "chart" {
		t.Fatalf("refresh: %v %q", err, text(res))
	}
	for _, bad := range []map[string]any{{"tool": "ask_user", "input": map[string]any{"question": "x"}}, {"tool": "render_chart", "input": map[string]any{"type": "nope"}}} {
		if res, _ := p.Call(context.Background(), caller(), "genui", "refresh", bad); !res.IsError {
			t.Errorf("refresh %v: not refused", bad)
		}
	}
}
