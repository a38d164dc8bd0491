package adapter

import (
	"context"
	"encoding/json"
	"iter"
	"strconv"
	"strings"
	"time"

	"github.com/genui-adapter/genui-adapter/a2ui"
	"github.com/genui-adapter/genui-adapter/agui"
	"github.com/genui-adapter/genui-adapter/schemas"
)

// demoAgent is the built-in scripted agent: no LLM, deterministic output
// for a given input, paced by delay so that streaming is visible. A
// keyword in the user's message picks a scenario: table, record, metrics,
// chart, form, app, error; anything else gets a greeting listing them and
// the shipments table.
type demoAgent struct {
	delay time.Duration
	// pageURL is the page the url scenario asks render_url to show.
	pageURL string
}

// demoPageURL is the page the demo's render_url shows: the adapter's own
// /playground/page.html when its origin is on the toolkit's URL allowlist
// (the built-in configuration's is), else the first allowlisted origin,
// else a page the toolkit refuses (the refusal is the demo then).
func demoPageURL(cfg Config) string {
	allowed := origins(cfg.Toolkit.URLAllowlist)
	self := "http://" + strings.ToLower(cfg.Listen)
	for _, o := range allowed {
		if o == self {
			return self + "/playground/page.html"
		}
	}
	if len(allowed) > 0 {
		return allowed[0] + "/"
	}
	return "https://example.com/"
}

// demoScenarios lists the keywords, in the greeting's order.
var demoScenarios = []string{"dashboard", "kpis", "orders", "html", "url", "ask", "table", "record", "metrics", "chart", "form", "app", "error"}

// toolkitDemos are the scenarios that call the genui toolkit (the adapter
// runs the tool; this agent gets its result in a follow-up run).
var toolkitDemos = map[string]struct {
	say, tool string
	args      any
}{
	"dashboard": {"Here is the quarter at a glance.", "render_chart", map[string]any{"title": "Q3 at a glance", "columns": 2, "charts": []any{
		map[string]any{"type": "bar", "title": "Sales by region", "labels": []string{"North", "South", "East", "West"}, "series": []any{map[string]any{"name": "2025", "values": []float64{120, 95, 143, 88}}, map[string]any{"name": "2026", "values": []float64{132, 101, 150, 97}}}, "unit": "k€"},
		map[string]any{"type": "line", "title": "Weekly orders", "labels": []string{"W1", "W2", "W3", "W4", "W5"}, "series": []any{map[string]any{"name": "orders", "values": []float64{310, 342, 335, 371, 390}}}},
		map[string]any{"type": "donut", "title": "Channel mix", "labels": []string{"Web", "App", "Partners"}, "series": []any{map[string]any{"values": []float64{54, 31, 15}}}},
		map[string]any{"type": "gauge", "title": "Quota", "value": 82, "max": 100, "unit": "%"},
	}}},
	"kpis": {"This week's numbers.", "render_metrics", map[string]any{"title": "This week", "metrics": []any{
		map[string]any{"label": "Revenue", "value": 128400, "unit": "€", "delta": 4.2, "deltaUnit": "%"},
		map[string]any{"label": "Orders", "value": 342, "delta": 12},
		map[string]any{"label": "Churn", "value": 2.1, "unit": "%", "delta": -0.3, "good": "down"},
	}}},
	"orders": {"These are the latest orders.", "render_table", map[string]any{"title": "Latest orders", "pageSize": 5,
		"columns": []any{map[string]any{"key": "id", "label": "Order"}, map[string]any{"key": "customer"}, map[string]any{"key": "total", "type": "currency", "currency": "EUR"}, map[string]any{"key": "placed", "type": "date"}, map[string]any{"key": "paid", "type": "boolean"}},
		"rows": []any{
			map[string]any{"id": "SO-9001", "customer": "Grace Hopper", "total": 129.9, "placed": "2026-11-20", "paid": true},
			map[string]any{"id": "SO-9014", "customer": "Alan Turing", "total": 42, "placed": "2026-11-26", "paid": false},
			map[string]any{"id": "SO-9020", "customer": "Ada Lovelace", "total": 1890.5, "placed": "2026-11-27", "paid": true},
			map[string]any{"id": "SO-9021", "customer": "Edsger Dijkstra", "total": 310, "placed": "2026-11-28", "paid": true},
			map[string]any{"id": "SO-9033", "customer": "Barbara Liskov", "total": 77.25, "placed": "2026-11-29", "paid": false},
			map[string]any{"id": "SO-9040", "customer": "Donald Knuth", "total": 512, "placed": "2026-11-30", "paid": true},
		}, "sort": map[string]any{"key": "total", "desc": true}}},
	"chart": {"Sales by region, in thousands.", "render_chart", map[string]any{"type": "bar", "title": "Sales by region", "unit": "k€",
		"labels": []string{"North", "South", "East", "West", "Central"}, "series": []any{map[string]any{"name": "2026", "values": []float64{120, 95, 143, 88, 61}}}}},
	"html": {"A styled summary, written as HTML.", "render_html", map[string]any{"title": "Release notes", "html": "<h3 style='margin:0'>Version 2.0</h3><ul><li><b>Charts</b>: eight kinds</li><li><b>Tables</b>: sort and page</li></ul><p id='probe'>No scripts, no network.</p>"}},
	"ask":  {"One question first.", "ask_user", map[string]any{"question": "Which plan should I prepare?", "mode": "single", "options": []string{"Basic", "Pro", "Enterprise"}}},
}

// shipments is the demo's structured tool result.
var shipments = []map[string]any{
	{"id": "SH-1001", "destination": "Lyon, FR", "carrier": "DHL", "status": "in_transit", "weightKg": 12.5, "eta": "2026-12-02"},
	{"id": "SH-1002", "destination": "Austin, US", "carrier": "UPS", "status": "delivered", "weightKg": 3.2, "eta": "2026-11-27"},
	{"id": "SH-1003", "destination": "Osaka, JP", "carrier": "FedEx", "status": "in_transit", "weightKg": 48, "eta": "2026-12-05"},
}

var customer = map[string]any{
	"name": "Grace Hopper", "email": "grace@example.com", "tier": "gold", "active": true, "lifetimeValue": 18250.75,
	"address":      map[string]any{"street": "1 Navy Way", "city": "Arlington", "country": "US"},
	"recentOrders": []map[string]any{{"id": "SO-9001", "total": 129.9, "placedAt": "2026-11-20"}, {"id": "SO-9014", "total": 42, "placedAt": "2026-11-26"}},
}

var kpis = map[string]any{"revenue": 128400, "orders": 342, "conversionRate": 3.4, "activeUsers": 1893}

func lastUserText(in *agui.RunAgentInput) string {
	for i := len(in.Messages) - 1; i >= 0; i-- {
		if in.Messages[i].Role == agui.RoleUser {
			return in.Messages[i].Content.String()
		}
	}
	return ""
}

// toolkitReply is the demo's answer to a toolkit tool's result: what the
// user answered, or what was shown or refused.
func toolkitReply(in *agui.RunAgentInput, result agui.Message) string {
	name := ""
	for _, m := range in.Messages {
		for _, c := range m.ToolCalls {
			if c.ID == result.ToolCallID {
				name = c.Function.Name
			}
		}
	}
	content := result.Content.String()
	switch {
	case name == "ask_user":
		var r struct {
			Answer  any  `json:"answer"`
			Pending bool `json:"pending"`
		}
		if json.Unmarshal([]byte(content), &r) == nil && r.Answer != nil {
			b, _ := json.Marshal(r.Answer)
			return "Thanks, you answered " + string(b) + ". I will prepare that."
		}
		if r.Pending {
			return "Answer in the form above when you are ready."
		}
		return "No answer came; ask me again when you are ready."
	case strings.HasPrefix(name, "render_"):
		if strings.HasPrefix(content, name) || strings.HasPrefix(content, `{"error"`) {
			return "The toolkit refused: " + content
		}
		return "Done: it is shown above (" + name + ")."
	}
	return ""
}

// feedbackForm is an A2UI form whose button sends submit_feedback.
func feedbackForm(catalog string) []a2ui.Message {
	const sid = "feedback"
	comps := []a2ui.Component{
		a2ui.Card("root", "form"),
		a2ui.Column("form", []string{"form-title", "comment", "contact", "submit"}),
		a2ui.Text("form-title", "Send us feedback", "h3"),
		a2ui.TextField("comment", "Comment", a2ui.Bind("/form/comment")),
		a2ui.CheckBox("contact", "You may contact me", a2ui.Bind("/form/contact")),
		a2ui.Button("submit", "submit-label", a2ui.EventAction("submit_feedback", map[string]any{"comment": a2ui.Bind("/form/comment"), "contact": a2ui.Bind("/form/contact")}), "primary"),
		a2ui.Text("submit-label", "Submit", ""),
	}
	return []a2ui.Message{
		&a2ui.CreateSurface{SurfaceID: sid, CatalogID: catalog},
		&a2ui.UpdateComponents{SurfaceID: sid, Components: comps},
		&a2ui.UpdateDataModel{SurfaceID: sid, Path: "/", Value: map[string]any{"form": map[string]any{"comment": "", "contact": false}}},
	}
}

func catalogOf(in *agui.RunAgentInput) string {
	for _, c := range in.Context {
		if c.Description == a2ui.SchemaContextDescription {
			var s struct {
				CatalogID string `json:"catalogId"`
			}
			if json.Unmarshal([]byte(c.Value), &s) == nil && s.CatalogID != "" {
				return s.CatalogID
			}
		}
	}
	return schemas.BasicCatalogID
}

// suggestTool is the tool CopilotKit's suggestion runs force.
const suggestTool = "copilotkitSuggest"

// demoSuggestions are the demo agent's suggestions: some of its scenarios.
var demoSuggestions = map[string]any{"suggestions": []map[string]string{
	{"title": "Show a table", "message": "table"},
	{"title": "Open the refund app", "message": "app"},
	{"title": "Fill in a form", "message": "form"},
}}

// forcedTool is the tool forwardedProps.toolChoice forces, if the input
// offers it ("" otherwise).
func forcedTool(in *agui.RunAgentInput) string {
	var choice struct {
		Function struct {
			Name string `json:"name"`
		} `json:"function"`
	}
	if json.Unmarshal(in.ForwardedProp("toolChoice"), &choice) != nil {
		return ""
	}
	for _, t := range in.Tools {
		if t.Name == choice.Function.Name {
			return t.Name
		}
	}
	return ""
}

// Run implements agui.Agent.
func (d *demoAgent) Run(ctx context.Context, req *agui.Request) iter.Seq2[agui.Event, error] {
	in := req.Input
	return func(yield func(agui.Event, error) bool) {
		wait := func() bool {
			if d.delay <= 0 {
				return ctx.Err() == nil
			}
			t := time.NewTimer(d.delay)
			defer t.Stop()
			select {
			case <-ctx.Done():
				return false
			case <-t.C:
				return true
			}
		}
		emit := func(ev agui.Event) bool { return wait() && yield(ev, nil) }
		n := 0
		p := in.RunID + "-"
		lastText := ""
		text := func(s string) bool {
			n++
			id := p + "msg-" + string(rune('0'+n))
			lastText = id
			if !emit(&agui.TextMessageStart{MessageID: id, Role: "assistant"}) {
				return false
			}
			for _, w := range strings.SplitAfter(s, " ") {
				if !emit(&agui.TextMessageContent{MessageID: id, Delta: w}) {
					return false
				}
			}
			return emit(&agui.TextMessageEnd{MessageID: id})
		}
		call := func(name string, args, result any) bool {
			n++
			id := p + "call-" + string(rune('0'+n))
			a, _ := json.Marshal(args)
			if !emit(&agui.ToolCallStart{ToolCallID: id, ToolCallName: name, ParentMessageID: lastText}) || !emit(&agui.ToolCallArgs{ToolCallID: id, Delta: string(a)}) || !emit(&agui.ToolCallEnd{ToolCallID: id}) {
				return false
			}
			if result == nil {
				return true // a client-side or MCP tool: its result comes from elsewhere
			}
			r, _ := json.Marshal(result)
			return emit(&agui.ToolCallResult{MessageID: p + "result-" + string(rune('0'+n)), ToolCallID: id, Content: string(r), Role: "tool"})
		}
		state := func(scenario string) bool {
			s, _ := json.Marshal(map[string]any{"scenario": scenario, "turns": len(in.Messages)})
			return emit(&agui.StateSnapshot{Snapshot: agui.JSON(s)})
		}
		finish := func() { emit(&agui.RunFinished{ThreadID: in.ThreadID, RunID: in.RunID}) }
		if !yield(&agui.RunStarted{ThreadID: in.ThreadID, RunID: in.RunID}, nil) {
			return
		}

		// A forced tool choice (CopilotKit's suggestions force
		// copilotkitSuggest): the demo calls it, with scripted arguments.
		if name := forcedTool(in); name == suggestTool {
			if call(name, demoSuggestions, nil) {
				finish()
			}
			return
		}

		// A follow-up turn: the last message is a tool result (an MCP tool
		// the adapter ran, or a user action on an A2UI surface).
		if k := len(in.Messages); k > 0 && in.Messages[k-1].Role == agui.RoleTool {
			last := in.Messages[k-1].Content.String()
			if strings.HasPrefix(last, "User performed action") {
				_ = text("Thanks! I received your action: "+last) && state("action") && emit(&agui.RunFinished{ThreadID: in.ThreadID, RunID: in.RunID})
				return
			}
			if reply := toolkitReply(in, in.Messages[k-1]); reply != "" {
				_ = text(reply) && emit(&agui.RunFinished{ThreadID: in.ThreadID, RunID: in.RunID})
				return
			}
			_ = text("The refund review card is above: approve or reject it there. The server re-checks the amount either way.") && emit(&agui.RunFinished{ThreadID: in.ThreadID, RunID: in.RunID})
			return
		}

		// An answer to ask_user that came as the user's next message.
		if said := lastUserText(in); strings.HasPrefix(said, `Answer to "`) {
			if _, answer, ok := strings.Cut(said, `": `); ok {
				_ = text("Thanks, you answered "+strconv.Quote(answer)+". I will prepare that.") && emit(&agui.RunFinished{ThreadID: in.ThreadID, RunID: in.RunID})
				return
			}
		}
		user := strings.ToLower(lastUserText(in))
		scenario := ""
		for _, s := range demoScenarios {
			if strings.Contains(user, s) {
				scenario = s
				break
			}
		}
		ok := true
		if scenario == "url" {
			if text("Opening the page in a card.") && call("render_url", map[string]any{"url": d.pageURL, "title": "A page in a card"}, nil) {
				finish()
			}
			return
		}
		if d, isToolkit := toolkitDemos[scenario]; isToolkit {
			if text(d.say) && call(d.tool, d.args, nil) {
				finish() // not reached when the adapter runs the tool: it runs this agent again
			}
			return
		}
		switch scenario {
		case "record":
			ok = text("Here is the customer record.") && call("get_customer", map[string]string{"email": "grace@example.com"}, customer) && state(scenario)
		case "metrics":
			ok = text("These are this week's KPIs.") && call("get_kpis", map[string]string{"period": "week"}, kpis) && state(scenario)
		case "form":
			ops := []json.RawMessage{}
			for _, m := range feedbackForm(catalogOf(in)) {
				b, _ := json.Marshal(m)
				ops = append(ops, b)
			}
			ok = text("Please fill in this form; the button sends your answer back to me.") && call("feedback_form", map[string]string{}, map[string]any{"a2ui_operations": ops}) && state(scenario)
		case "app":
			// review_refund is an MCP App tool of the "refunds" server: the
			// adapter calls it and shows its card, then runs this agent again.
			ok = text("Let me open the refund for review.") && call("review_refund", map[string]string{"refundId": "RF-1001"}, nil)
		case "error":
			_ = text("Simulating a failure of the agent now.") && emit(&agui.RunError{Message: "the demo agent failed on purpose", Code: "demo_error"})
			return
		case "table":
			ok = text("Here are this week's shipments.") && call("list_shipments", map[string]string{"status": "any"}, shipments) && state(scenario) && text("There are 3 shipments; 2 are in transit.")
		default:
			ok = text("Hi! I am the genui-adapter demo agent (no LLM). Say one of: "+strings.Join(demoScenarios, ", ")+". Meanwhile, here are the shipments.") &&
				call("list_shipments", map[string]string{"status": "any"}, shipments) && state("greeting") && text("There are 3 shipments; 2 are in transit.")
		}
		if ok {
			finish()
		}
	}
}
