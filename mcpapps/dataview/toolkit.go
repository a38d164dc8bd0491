package dataview

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/genui-adapter/genui-adapter/mcpapps"
)

// Options configure the toolkit. Zero values mean the defaults given.
type Options struct {
	// URLAllowlist are the origins render_url may show (none by default).
	URLAllowlist []string
	// HTMLScripts lets render_html's HTML run scripts (still without
	// network). Off by default.
	HTMLScripts bool
	// MaxHTMLBytes caps render_html's HTML (default 256 KiB).
	MaxHTMLBytes int
	// MaxRows caps render_table's and show_data's rows (default 200).
	MaxRows int
	// MaxCharts caps a render_chart dashboard (default 8).
	MaxCharts int
	// MaxSeries caps a chart's series (default 10).
	MaxSeries int
	// MaxPoints caps a series' values or points, and a chart's labels
	// (default 500).
	MaxPoints int
	// Answers receives ask_user's answers (answer_user); nil: ask_user
	// answers are refused.
	Answers *mcpapps.Answers
}

func (o Options) withDefaults() Options {
	def := func(v *int, d int) {
		if *v <= 0 {
			*v = d
		}
	}
	def(&o.MaxHTMLBytes, 256<<10)
	def(&o.MaxRows, 200)
	def(&o.MaxCharts, 8)
	def(&o.MaxSeries, 10)
	def(&o.MaxPoints, 500)
	return o
}

// PageURI is render_url's View: the data view's document with a CSP that
// lets it frame the allowlisted origins (and nothing else).
const PageURI = "ui://genui/page-view"

// Tool names.
const (
	ToolChart   = "render_chart"
	ToolMetrics = "render_metrics"
	ToolTable   = "render_table"
	ToolHTML    = "render_html"
	ToolURL     = "render_url"
	ToolAsk     = "ask_user"
	ToolAnswer  = "answer_user"
	ToolRefresh = "refresh"
	ToolShow    = "show_data"
)

// refreshable are the tools refresh may re-run: the ones that only draw.
var refreshable = []string{ToolShow, ToolChart, ToolMetrics, ToolTable}

type toolkit struct {
	opts    Options
	schemas inputSchemas
	run     map[string]func(ctx context.Context, c mcpapps.Caller, args json.RawMessage) *mcp.CallToolResult
}

func failed(format string, args ...any) *mcp.CallToolResult {
	return &mcp.CallToolResult{IsError: true, Content: []mcp.Content{&mcp.TextContent{Text: fmt.Sprintf(format, args...)}}}
}

// shown is a tool result: text for the model (and hosts that render no
// UI), the normalised input for the View, and the A2UI rendering when the
// run renders A2UI.
func shown(c mcpapps.Caller, text string, sc map[string]any, a2 func() []map[string]any) *mcp.CallToolResult {
	r := &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: text}}, StructuredContent: sc}
	if a2 != nil && (c.Renders == nil || slices.Contains(c.Renders, "a2ui")) {
		b, _ := json.Marshal(inCatalog(a2(), c.Catalog))
		r.Content = append(r.Content, &mcp.EmbeddedResource{Resource: &mcp.ResourceContents{URI: "a2ui://genui/" + sc["kind"].(string), MIMEType: mcpapps.A2UIMIMEType, Text: string(b)}})
	}
	return r
}

func uiMeta(uri string) mcp.Meta {
	return mcp.Meta{"ui": map[string]any{"resourceUri": uri}, "ui/resourceUri": uri}
}

// register adds the toolkit's tools to s.
func (k *toolkit) register(s *mcp.Server) {
	add := func(name, desc string, schema map[string]any, meta mcp.Meta, fn func(ctx context.Context, c mcpapps.Caller, args json.RawMessage) *mcp.CallToolResult) {
		k.run[name] = fn
		s.AddTool(&mcp.Tool{Name: name, Description: desc, InputSchema: schema, Meta: meta},
			func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
				c, _ := mcpapps.CallerOf(req.Params.Meta)
				if err := k.schemas.check(name, req.Params.Arguments); err != nil {
					return failed("%s: invalid input: %v. Fix these and call %s again.", name, err, name), nil
				}
				return fn(ctx, c, req.Params.Arguments), nil
			})
	}
	add(ToolChart, chartDescription, chartSchema(), uiMeta(ResourceURI), k.chart)
	add(ToolMetrics, metricsDescription, metricsSchema(), uiMeta(ResourceURI), k.metrics)
	add(ToolTable, tableDescription, tableSchema(), uiMeta(ResourceURI), k.table)
	add(ToolHTML, fmt.Sprintf(htmlDescription, k.opts.MaxHTMLBytes), htmlSchema(), uiMeta(ResourceURI), k.html)
	add(ToolURL, urlDescription(k.opts.URLAllowlist), urlSchema(), uiMeta(PageURI), k.url)
	add(ToolAsk, askDescription, askSchema(), uiMeta(ResourceURI), k.ask)
	appOnly := func() mcp.Meta { return mcp.Meta{"ui": map[string]any{"visibility": []string{"app"}}} }
	add(ToolAnswer, "The user's answer to an ask_user question (called by its card or surface).",
		map[string]any{"type": "object", "required": []string{"answer"}, "properties": map[string]any{"answer": map[string]any{}, "mode": map[string]any{"type": "string"}, "question": map[string]any{"type": "string"}}}, appOnly(), k.answer)
	add(ToolRefresh, "Re-run the tool that produced a card with its original input (called by the card).",
		map[string]any{"type": "object", "required": []string{"tool"}, "properties": map[string]any{"tool": map[string]any{"enum": refreshable}, "input": map[string]any{"type": "object"}}}, appOnly(), k.refresh)
}

const chartDescription = `Show a chart to the user (drawn as SVG in a card; a table where only A2UI is rendered).
Types: bar, line, area (labels + one or more series of values, one value per label), pie/donut (labels + one series), scatter (series of [x, y] points), gauge (value, min, max), radar (3+ labels + series).
Example: {"type":"bar","title":"Sales by region","labels":["North","South"],"series":[{"name":"2025","values":[120,95]},{"name":"2026","values":[132,101]}],"unit":"k€"}
Gauge: {"type":"gauge","title":"CPU","value":73,"max":100,"unit":"%"}
Dashboard (several charts in one card): {"title":"Q3","columns":2,"charts":[{"type":"line",...},{"type":"pie",...}]}`

const metricsDescription = `Show KPI tiles: a value with its unit, the change against the previous period and its trend.
Example: {"title":"This week","metrics":[{"label":"Revenue","value":128400,"unit":"€","delta":4.2,"deltaUnit":"%"},{"label":"Churn","value":2.1,"unit":"%","delta":-0.3,"good":"down"}]}`

const tableDescription = `Show rows as a table the user can sort and page.
Columns are optional (default: every key); a column's type formats it: string, number, integer, currency (with "currency": "EUR"), percent (0.25 → 25 %), date (ISO 8601), boolean.
Example: {"title":"Orders","columns":[{"key":"id","label":"Order"},{"key":"total","type":"currency","currency":"EUR"},{"key":"placed","type":"date"}],"rows":[{"id":"SO-1","total":129.9,"placed":"2026-11-20"}],"sort":{"key":"total","desc":true},"pageSize":10}`

const htmlDescription = `Show HTML you write (an explanation with layout, a styled summary) in a sandboxed card. It has no network and, unless the deployment allows it, no scripts: inline CSS and data: images only. At most %d bytes. Not shown where only A2UI is rendered.
Example: {"title":"Summary","html":"<h2>Done</h2><p style='color:#3b6fd8'>3 of 4 checks passed.</p>"}`

func urlDescription(allow []string) string {
	list := "none: this deployment embeds no sites"
	if len(allow) > 0 {
		list = strings.Join(allow, ", ")
	}
	return `Show an external web page in a card. Only pages of these origins can be shown (` + list + `); for any other site, give the link as text.
Example: {"url":"https://example.com/report","title":"Report","height":600}`
}

const askDescription = `Ask the user a question and wait for the answer, which is this tool's result: {"answer": ...} (a string for single choice and text, a list for multiple choice; null if the user did not answer in time).
Example: {"question":"Which plan?","mode":"single","options":["Basic","Pro"]}
Free text: {"question":"What should the report be called?","mode":"text","placeholder":"Q3 report"}`

// NewToolkitServer builds the built-in "genui" server: the generative UI
// toolkit (render_chart, render_metrics, render_table, render_html,
// render_url, ask_user; answer_user and refresh for the cards) and
// show_data.
func NewToolkitServer(opts Options) *mcp.Server {
	opts = opts.withDefaults()
	k := &toolkit{opts: opts, run: map[string]func(context.Context, mcpapps.Caller, json.RawMessage) *mcp.CallToolResult{}}
	k.schemas = compile(map[string]map[string]any{
		ToolChart: chartSchema(), ToolMetrics: metricsSchema(), ToolTable: tableSchema(), ToolHTML: htmlSchema(), ToolURL: urlSchema(), ToolAsk: askSchema(),
		ToolAnswer:  {"type": "object", "required": []string{"answer"}},
		ToolRefresh: {"type": "object", "required": []string{"tool"}, "properties": map[string]any{"tool": map[string]any{"enum": refreshable}, "input": map[string]any{"type": "object"}}},
		ToolShow:    {"type": "object", "required": []string{"data"}},
	})
	s := mcp.NewServer(&mcp.Implementation{Name: "genui", Version: "2.0.0"}, &mcp.ServerOptions{Instructions: instructions})
	k.register(s)
	k.run[ToolShow] = k.show
	addShowData(s, k)
	addView(s, ResourceURI, nil)
	addView(s, PageURI, map[string]any{"frameDomains": opts.URLAllowlist})
	return s
}

const instructions = `Use these tools to show things instead of describing them: render_chart for numbers over categories or time, render_metrics for a few headline numbers, render_table for rows, ask_user when you need the user to choose or type something (its result is the answer), render_html for a styled explanation, render_url for a page of an allowed site. Keep the text of your reply short: the user sees the card.`

// ---- render_chart

type series struct {
	Name   string       `json:"name,omitempty"`
	Values []float64    `json:"values,omitempty"`
	Points [][2]float64 `json:"points,omitempty"`
}

type chart struct {
	Type   string   `json:"type"`
	Title  string   `json:"title,omitempty"`
	Labels []any    `json:"labels,omitempty"`
	Series []series `json:"series,omitempty"`
	Unit   string   `json:"unit,omitempty"`
	Value  *float64 `json:"value,omitempty"`
	Min    *float64 `json:"min,omitempty"`
	Max    *float64 `json:"max,omitempty"`
}

type chartIn struct {
	chart
	Charts  []chart `json:"charts,omitempty"`
	Columns int     `json:"columns,omitempty"`
}

func label(v any) string {
	if f, ok := v.(float64); ok {
		return fmt.Sprint(f)
	}
	return fmt.Sprint(v)
}

// checkChart checks what the schema cannot say (lengths, per-type needs)
// and the caps.
func (k *toolkit) checkChart(c *chart, at string) error {
	if len(c.Series) > k.opts.MaxSeries {
		return fmt.Errorf("%s has %d series; at most %d", at, len(c.Series), k.opts.MaxSeries)
	}
	if len(c.Labels) > k.opts.MaxPoints {
		return fmt.Errorf("%s has %d labels; at most %d", at, len(c.Labels), k.opts.MaxPoints)
	}
	switch c.Type {
	case "gauge":
		if c.Value == nil {
			return fmt.Errorf("%s: a gauge needs value", at)
		}
		lo, hi := 0.0, 100.0
		if c.Min != nil {
			lo = *c.Min
		}
		if c.Max != nil {
			hi = *c.Max
		}
		if hi <= lo {
			return fmt.Errorf("%s: max (%v) must be greater than min (%v)", at, hi, lo)
		}
		c.Min, c.Max = &lo, &hi
		return nil
	case "scatter":
		if len(c.Series) == 0 {
			return fmt.Errorf("%s: a scatter chart needs series with points", at)
		}
		for i, s := range c.Series {
			if len(s.Points) == 0 {
				return fmt.Errorf("%s.series[%d]: a scatter series needs points ([x, y] pairs)", at, i)
			}
			if len(s.Points) > k.opts.MaxPoints {
				return fmt.Errorf("%s.series[%d] has %d points; at most %d", at, i, len(s.Points), k.opts.MaxPoints)
			}
		}
		return nil
	}
	if len(c.Labels) == 0 || len(c.Series) == 0 {
		return fmt.Errorf("%s: a %s chart needs labels and series", at, c.Type)
	}
	if (c.Type == "pie" || c.Type == "donut") && len(c.Series) != 1 {
		return fmt.Errorf("%s: a %s chart takes exactly one series (it has %d)", at, c.Type, len(c.Series))
	}
	if c.Type == "radar" && len(c.Labels) < 3 {
		return fmt.Errorf("%s: a radar chart needs at least 3 labels", at)
	}
	for i, s := range c.Series {
		if len(s.Values) != len(c.Labels) {
			return fmt.Errorf("%s.series[%d] has %d values for %d labels; give one value per label", at, i, len(s.Values), len(c.Labels))
		}
		if c.Type == "pie" || c.Type == "donut" {
			for _, v := range s.Values {
				if v < 0 {
					return fmt.Errorf("%s: a %s chart's values cannot be negative", at, c.Type)
				}
			}
		}
	}
	return nil
}

func (k *toolkit) chart(_ context.Context, caller mcpapps.Caller, args json.RawMessage) *mcp.CallToolResult {
	var in chartIn
	if err := json.Unmarshal(args, &in); err != nil {
		return failed("render_chart: %v", err)
	}
	charts := in.Charts
	title := in.Title
	if len(charts) == 0 {
		charts = []chart{in.chart}
		title = ""
	} else if in.Type != "" {
		return failed("render_chart: give either one chart (type, labels, series) or charts, not both")
	}
	if len(charts) > k.opts.MaxCharts {
		return failed("render_chart: %d charts; at most %d in one card", len(charts), k.opts.MaxCharts)
	}
	for i := range charts {
		at := "the chart"
		if len(in.Charts) > 0 {
			at = fmt.Sprintf("charts[%d]", i)
		}
		if err := k.checkChart(&charts[i], at); err != nil {
			return failed("render_chart: %v. Fix it and call render_chart again.", err)
		}
	}
	cols := in.Columns
	if cols == 0 {
		cols = min(2, len(charts))
	}
	sc := map[string]any{"kind": "chart", "tool": ToolChart, "title": title, "charts": charts, "columns": cols}
	var b strings.Builder
	if title != "" {
		fmt.Fprintf(&b, "%s: ", title)
	}
	for i, c := range charts {
		if i > 0 {
			b.WriteString("; ")
		}
		b.WriteString(chartText(c))
	}
	b.WriteString(". Shown to the user as a chart.")
	return shown(caller, b.String(), sc, func() []map[string]any { return chartSurface(title, charts) })
}

// chartText is a chart in words, for the model and text-only hosts.
func chartText(c chart) string {
	var b strings.Builder
	name := c.Title
	if name == "" {
		name = "chart"
	}
	fmt.Fprintf(&b, "%s (%s", name, c.Type)
	unit := ""
	if c.Unit != "" {
		unit = " " + c.Unit
	}
	switch c.Type {
	case "gauge":
		fmt.Fprintf(&b, ") %v%s of %v–%v", *c.Value, unit, *c.Min, *c.Max)
		return b.String()
	case "scatter":
		b.WriteString(")")
		for _, s := range c.Series {
			fmt.Fprintf(&b, " %s: %d points", or(s.Name, "series"), len(s.Points))
		}
		return b.String()
	}
	b.WriteString(")")
	for si, s := range c.Series {
		if si > 0 {
			b.WriteString(";")
		}
		if s.Name != "" {
			fmt.Fprintf(&b, " %s:", s.Name)
		}
		for i, v := range s.Values {
			if i == 20 {
				fmt.Fprintf(&b, " … (%d more)", len(s.Values)-i)
				break
			}
			sep := ","
			if i == 0 {
				sep = ""
			}
			fmt.Fprintf(&b, "%s %s=%v%s", sep, label(c.Labels[i]), v, unit)
		}
	}
	return b.String()
}

func or(s, d string) string {
	if s == "" {
		return d
	}
	return s
}

// ---- render_metrics

type metric struct {
	Label     string   `json:"label"`
	Value     any      `json:"value"`
	Unit      string   `json:"unit,omitempty"`
	Delta     *float64 `json:"delta,omitempty"`
	DeltaUnit string   `json:"deltaUnit,omitempty"`
	Trend     string   `json:"trend,omitempty"`
	Good      string   `json:"good,omitempty"`
	// Tone is derived: "good", "bad" or "neutral".
	Tone string `json:"tone"`
}

func (k *toolkit) metrics(_ context.Context, caller mcpapps.Caller, args json.RawMessage) *mcp.CallToolResult {
	var in struct {
		Title   string   `json:"title"`
		Metrics []metric `json:"metrics"`
	}
	if err := json.Unmarshal(args, &in); err != nil {
		return failed("render_metrics: %v", err)
	}
	if len(in.Metrics) > k.opts.MaxRows {
		return failed("render_metrics: %d metrics; at most %d", len(in.Metrics), k.opts.MaxRows)
	}
	var b strings.Builder
	if in.Title != "" {
		fmt.Fprintf(&b, "%s: ", in.Title)
	}
	for i := range in.Metrics {
		m := &in.Metrics[i]
		if m.Trend == "" {
			m.Trend = "flat"
			if m.Delta != nil && *m.Delta > 0 {
				m.Trend = "up"
			} else if m.Delta != nil && *m.Delta < 0 {
				m.Trend = "down"
			}
		}
		if m.Good == "" {
			m.Good = "up"
		}
		switch {
		case m.Trend == "flat":
			m.Tone = "neutral"
		case m.Trend == m.Good:
			m.Tone = "good"
		default:
			m.Tone = "bad"
		}
		if i > 0 {
			b.WriteString("; ")
		}
		fmt.Fprintf(&b, "%s %s", m.Label, valueText(m.Value, m.Unit))
		if m.Delta != nil {
			fmt.Fprintf(&b, " (%s)", deltaText(*m.Delta, or(m.DeltaUnit, m.Unit)))
		}
	}
	b.WriteString(". Shown to the user as KPI tiles.")
	sc := map[string]any{"kind": "metrics", "tool": ToolMetrics, "title": in.Title, "metrics": in.Metrics}
	return shown(caller, b.String(), sc, func() []map[string]any { return metricsSurface(in.Title, in.Metrics) })
}

func valueText(v any, unit string) string {
	s := fmt.Sprint(v)
	if f, ok := v.(float64); ok {
		s = number(f, -1)
	}
	if unit == "" {
		return s
	}
	if unit == "%" {
		return s + unit
	}
	if slices.Contains([]string{"$", "€", "£", "¥", "US$"}, unit) {
		return unit + s
	}
	return s + " " + unit
}

func deltaText(d float64, unit string) string {
	sign := "+"
	if d < 0 {
		sign = "−"
	}
	s := sign + number(math.Abs(d), -1)
	if unit == "%" {
		return s + "%"
	}
	if unit != "" {
		return s + " " + unit
	}
	return s
}

// number formats f with thousands separators and, for decimals < 0, up to
// two decimals (none when whole).
func number(f float64, decimals int) string {
	auto := decimals < 0
	if auto {
		if f == math.Trunc(f) {
			decimals = 0
		} else {
			decimals = 2
		}
	}
	s := fmt.Sprintf("%.*f", decimals, math.Abs(f))
	intPart, frac, _ := strings.Cut(s, ".")
	var b strings.Builder
	if f < 0 {
		b.WriteString("-")
	}
	for i, r := range intPart {
		if i > 0 && (len(intPart)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(r)
	}
	if frac != "" {
		if auto {
			frac = strings.TrimRight(frac, "0")
		}
		if frac != "" {
			b.WriteString("." + frac)
		}
	}
	return b.String()
}

// ---- render_table

type column struct {
	Key      string `json:"key"`
	Label    string `json:"label"`
	Type     string `json:"type"`
	Currency string `json:"currency,omitempty"`
	Decimals *int   `json:"decimals,omitempty"`
}

type tableIn struct {
	Title    string           `json:"title,omitempty"`
	Columns  []column         `json:"columns,omitempty"`
	Rows     []map[string]any `json:"rows"`
	PageSize int              `json:"pageSize,omitempty"`
	Sort     *struct {
		Key  string `json:"key"`
		Desc bool   `json:"desc,omitempty"`
	} `json:"sort,omitempty"`
}

func (k *toolkit) table(_ context.Context, caller mcpapps.Caller, args json.RawMessage) *mcp.CallToolResult {
	var in tableIn
	if err := json.Unmarshal(args, &in); err != nil {
		return failed("render_table: %v", err)
	}
	total := len(in.Rows)
	if len(in.Columns) == 0 {
		in.Columns = guessColumns(in.Rows)
	}
	keys := map[string]bool{}
	for i := range in.Columns {
		c := &in.Columns[i]
		if keys[c.Key] {
			return failed("render_table: column %q appears twice", c.Key)
		}
		keys[c.Key] = true
		if c.Label == "" {
			c.Label = humanize(c.Key)
		}
		if c.Type == "" {
			c.Type = guessType(in.Rows, c.Key)
		}
		if c.Type == "currency" && c.Currency == "" {
			c.Currency = "USD"
		}
	}
	if len(in.Columns) > 20 {
		return failed("render_table: %d columns; at most 20", len(in.Columns))
	}
	if in.Sort != nil {
		if !keys[in.Sort.Key] {
			return failed("render_table: sort.key %q is not a column (%s)", in.Sort.Key, strings.Join(slices.Collect(mapsKeys(keys)), ", "))
		}
		sortRows(in.Rows, in.Sort.Key, in.Sort.Desc)
	}
	truncated := 0
	if total > k.opts.MaxRows {
		truncated = total - k.opts.MaxRows
		in.Rows = in.Rows[:k.opts.MaxRows]
	}
	if in.PageSize == 0 {
		in.PageSize = 10
	}
	sc := map[string]any{"kind": "table", "tool": ToolTable, "title": in.Title, "columns": in.Columns, "rows": in.Rows, "pageSize": in.PageSize, "total": total}
	if in.Sort != nil {
		sc["sort"] = in.Sort
	}
	text := fmt.Sprintf("%s: %d rows, columns %s", or(in.Title, "Table"), total, columnList(in.Columns))
	if truncated > 0 {
		text += fmt.Sprintf(" (the first %d are shown; %d more were cut)", k.opts.MaxRows, truncated)
	}
	text += ". Shown to the user as a table. Rows: " + rowsPreview(in.Rows, 5)
	return shown(caller, text, sc, func() []map[string]any { return tableSurface(in, total) })
}

func mapsKeys(m map[string]bool) func(func(string) bool) {
	return func(yield func(string) bool) {
		for _, k := range slices.Sorted(func(y func(string) bool) {
			for k := range m {
				if !y(k) {
					return
				}
			}
		}) {
			if !yield(k) {
				return
			}
		}
	}
}

func columnList(cols []column) string {
	var names []string
	for _, c := range cols {
		names = append(names, c.Label)
	}
	return strings.Join(names, ", ")
}

func rowsPreview(rows []map[string]any, n int) string {
	b, _ := json.Marshal(rows[:min(n, len(rows))])
	s := string(b)
	if len(rows) > n {
		s += fmt.Sprintf(" … (%d more)", len(rows)-n)
	}
	return s
}

func guessColumns(rows []map[string]any) []column {
	var cols []column
	seen := map[string]bool{}
	for _, r := range rows {
		for _, key := range slices.Sorted(func(y func(string) bool) {
			for k := range r {
				if !y(k) {
					return
				}
			}
		}) {
			if !seen[key] {
				seen[key] = true
				cols = append(cols, column{Key: key})
			}
		}
	}
	// The id-like column first.
	slices.SortStableFunc(cols, func(a, b column) int {
		ai, bi := a.Key == "id" || a.Key == "name", b.Key == "id" || b.Key == "name"
		switch {
		case ai && !bi:
			return -1
		case bi && !ai:
			return 1
		}
		return 0
	})
	return cols
}

func guessType(rows []map[string]any, key string) string {
	t := ""
	for _, r := range rows {
		v, ok := r[key]
		if !ok || v == nil {
			continue
		}
		var this string
		switch x := v.(type) {
		case float64:
			this = "number"
			if x == math.Trunc(x) {
				this = "integer"
			}
		case bool:
			this = "boolean"
		case string:
			this = "string"
			if len(x) >= 10 && x[4] == '-' && x[7] == '-' {
				this = "date"
			}
		default:
			return "string"
		}
		switch {
		case t == "":
			t = this
		case t == this:
		case (t == "integer" && this == "number") || (t == "number" && this == "integer"):
			t = "number"
		default:
			return "string"
		}
	}
	return or(t, "string")
}

func sortRows(rows []map[string]any, key string, desc bool) {
	slices.SortStableFunc(rows, func(a, b map[string]any) int {
		c := compare(a[key], b[key])
		if desc {
			return -c
		}
		return c
	})
}

func compare(a, b any) int {
	switch {
	case a == nil && b == nil:
		return 0
	case a == nil:
		return 1 // empty cells last
	case b == nil:
		return -1
	}
	af, aok := a.(float64)
	bf, bok := b.(float64)
	if aok && bok {
		switch {
		case af < bf:
			return -1
		case af > bf:
			return 1
		}
		return 0
	}
	return strings.Compare(fmt.Sprint(a), fmt.Sprint(b))
}

// cell formats a value for its column (A2UI and text; the card formats
// with the browser's locale).
func cell(c column, v any) string {
	if v == nil {
		return ""
	}
	f, isNum := v.(float64)
	dec := -1
	if c.Decimals != nil {
		dec = *c.Decimals
	}
	switch {
	case c.Type == "currency" && isNum:
		if dec < 0 {
			dec = 2
		}
		return c.Currency + " " + number(f, dec)
	case c.Type == "percent" && isNum:
		return number(f*100, dec) + " %"
	case (c.Type == "number" || c.Type == "integer") && isNum:
		return number(f, dec)
	case c.Type == "boolean":
		if b, ok := v.(bool); ok {
			if b {
				return "Yes"
			}
			return "No"
		}
	case c.Type == "date":
		if s, ok := v.(string); ok && len(s) >= 10 {
			return s[:10]
		}
	}
	switch x := v.(type) {
	case string:
		return x
	case float64:
		return number(x, dec)
	}
	b, _ := json.Marshal(v)
	return string(b)
}

func humanize(key string) string {
	var b strings.Builder
	for i, r := range key {
		switch {
		case r == '_' || r == '-':
			b.WriteByte(' ')
			continue
		case i > 0 && r >= 'A' && r <= 'Z' && key[i-1] >= 'a' && key[i-1] <= 'z':
			b.WriteByte(' ')
		}
		if i == 0 {
			b.WriteString(strings.ToUpper(string(r)))
			continue
		}
		b.WriteString(strings.ToLower(string(r)))
	}
	return b.String()
}

// ---- render_html

func (k *toolkit) html(_ context.Context, caller mcpapps.Caller, args json.RawMessage) *mcp.CallToolResult {
	var in struct {
		Title  string `json:"title"`
		HTML   string `json:"html"`
		Height int    `json:"height"`
	}
	if err := json.Unmarshal(args, &in); err != nil {
		return failed("render_html: %v", err)
	}
	if caller.Renders != nil && !slices.Contains(caller.Renders, "mcp-apps") {
		return failed("render_html: this chat renders only A2UI surfaces, which cannot show HTML. Use render_table, render_metrics or render_chart, or answer in text.")
	}
	if len(in.HTML) > k.opts.MaxHTMLBytes {
		return failed("render_html: the HTML is %d bytes; at most %d. Make it shorter.", len(in.HTML), k.opts.MaxHTMLBytes)
	}
	if in.Height == 0 {
		in.Height = 320
	}
	text := fmt.Sprintf("Shown to the user: %s (%d bytes of HTML, no network%s).", or(in.Title, "an HTML card"), len(in.HTML), map[bool]string{true: "", false: ", no scripts"}[k.opts.HTMLScripts])
	return &mcp.CallToolResult{
		Content:           []mcp.Content{&mcp.TextContent{Text: text}},
		StructuredContent: map[string]any{"kind": "html", "tool": ToolHTML, "title": in.Title, "html": in.HTML, "height": in.Height, "scripts": k.opts.HTMLScripts},
	}
}

// ---- render_url

func (k *toolkit) url(_ context.Context, caller mcpapps.Caller, args json.RawMessage) *mcp.CallToolResult {
	var in struct {
		URL    string `json:"url"`
		Title  string `json:"title"`
		Height int    `json:"height"`
	}
	if err := json.Unmarshal(args, &in); err != nil {
		return failed("render_url: %v", err)
	}
	origin, err := mcpapps.AllowedURL(in.URL, k.opts.URLAllowlist)
	if err != nil {
		return failed("render_url refused: %v.", err)
	}
	if in.Height == 0 {
		in.Height = 480
	}
	r := &mcp.CallToolResult{
		Content:           []mcp.Content{&mcp.TextContent{Text: fmt.Sprintf("Shown to the user: the page %s in a card.", in.URL)}},
		StructuredContent: map[string]any{"kind": "url", "tool": ToolURL, "title": in.Title, "url": in.URL, "origin": origin, "height": in.Height},
	}
	if caller.Renders == nil || slices.Contains(caller.Renders, "a2ui") {
		b, _ := json.Marshal(inCatalog(urlSurface(in.Title, in.URL), caller.Catalog))
		r.Content = append(r.Content, &mcp.EmbeddedResource{Resource: &mcp.ResourceContents{URI: "a2ui://genui/url", MIMEType: mcpapps.A2UIMIMEType, Text: string(b)}})
	}
	return r
}

// ---- ask_user

type askIn struct {
	Question    string   `json:"question"`
	Mode        string   `json:"mode,omitempty"`
	Options     []string `json:"options,omitempty"`
	Placeholder string   `json:"placeholder,omitempty"`
}

func (k *toolkit) ask(_ context.Context, caller mcpapps.Caller, args json.RawMessage) *mcp.CallToolResult {
	var in askIn
	if err := json.Unmarshal(args, &in); err != nil {
		return failed("ask_user: %v", err)
	}
	if in.Mode == "" {
		in.Mode = "text"
		if len(in.Options) > 0 {
			in.Mode = "single"
		}
	}
	if in.Mode != "text" && len(in.Options) < 2 {
		return failed("ask_user: a %s-choice question needs at least 2 options", in.Mode)
	}
	if in.Mode == "text" && len(in.Options) > 0 {
		return failed("ask_user: a text question takes no options; use mode single or multiple")
	}
	sc := map[string]any{"kind": "ask", "tool": ToolAsk, "question": in.Question, "mode": in.Mode, "options": in.Options, "placeholder": in.Placeholder}
	r := shown(caller, fmt.Sprintf("Asking the user: %q. Their answer is this tool's result.", in.Question), sc, func() []map[string]any { return askSurface(in) })
	r.Meta = mcp.Meta{mcpapps.AwaitAnswerKey: true}
	return r
}

// answer is answer_user: a card's or surface's answer to the ask_user
// call it was shown for (the caller names it). When a run waits for it,
// the answer is that call's result; otherwise (the host could not answer
// while the run streamed, or the wait ended) it goes to the agent as the
// user's next message: the surface action's run carries it (ForwardKey),
// a card sends it as ui/message.
func (k *toolkit) answer(ctx context.Context, caller mcpapps.Caller, args json.RawMessage) *mcp.CallToolResult {
	var in struct {
		Answer   any    `json:"answer"`
		Question string `json:"question"`
	}
	_ = json.Unmarshal(args, &in)
	// A form sends a list for a choice; a single choice is its one value.
	if l, ok := in.Answer.([]any); ok && len(l) == 1 {
		if s, ok := l[0].(string); ok && caller.Source == "app" && singleHint(args) {
			in.Answer = s
		}
	}
	if s, ok := in.Answer.(string); ok && strings.TrimSpace(s) == "" {
		return failed("answer_user: the answer is empty")
	}
	if l, ok := in.Answer.([]any); ok && len(l) == 0 {
		return failed("answer_user: choose at least one option")
	}
	b, _ := json.Marshal(in.Answer)
	if k.opts.Answers == nil {
		return failed("answer_user: %v", mcpapps.ErrNoQuestion)
	}
	line := "Answered: " + answerText(in.Answer)
	if err := k.opts.Answers.Deliver(ctx, caller, b); err != nil {
		if !errors.Is(err, mcpapps.ErrNoQuestion) {
			// A run may wait on another instance: not "no run waits".
			return failed("answer_user: %v; try again", err)
		}
		q := strings.TrimSpace(in.Question)
		if q == "" {
			q = "the question"
		}
		message := fmt.Sprintf("Answer to %q: %s", q, answerText(in.Answer))
		r := &mcp.CallToolResult{
			Content:           []mcp.Content{&mcp.TextContent{Text: "No run waits for this answer; it goes to the agent as your message."}},
			StructuredContent: map[string]any{"delivered": false, "message": message},
			Meta:              mcp.Meta{mcpapps.ForwardKey: message},
		}
		return shownUpdate(caller, r, answeredSurface(line))
	}
	return shownUpdate(caller, &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "Answer sent."}}, StructuredContent: map[string]any{"delivered": true, "answer": in.Answer}}, answeredSurface(line))
}

func singleHint(args json.RawMessage) bool {
	var in struct {
		Mode string `json:"mode"`
	}
	_ = json.Unmarshal(args, &in)
	return in.Mode == "single"
}

func answerText(v any) string {
	switch x := v.(type) {
	case string:
		return x
	case []any:
		var s []string
		for _, e := range x {
			s = append(s, fmt.Sprint(e))
		}
		return strings.Join(s, ", ")
	}
	b, _ := json.Marshal(v)
	return string(b)
}

// shownUpdate adds A2UI messages (an update of the surface the action came
// from) to a result.
func shownUpdate(c mcpapps.Caller, r *mcp.CallToolResult, msgs []map[string]any) *mcp.CallToolResult {
	if c.Renders == nil || slices.Contains(c.Renders, "a2ui") {
		b, _ := json.Marshal(msgs)
		r.Content = append(r.Content, &mcp.EmbeddedResource{Resource: &mcp.ResourceContents{URI: "a2ui://genui/answer", MIMEType: mcpapps.A2UIMIMEType, Text: string(b)}})
	}
	return r
}

// ---- refresh

func (k *toolkit) refresh(ctx context.Context, caller mcpapps.Caller, args json.RawMessage) *mcp.CallToolResult {
	var in struct {
		Tool  string          `json:"tool"`
		Input json.RawMessage `json:"input"`
	}
	if err := json.Unmarshal(args, &in); err != nil {
		return failed("refresh: %v", err)
	}
	if len(in.Input) == 0 {
		in.Input = json.RawMessage("{}")
	}
	if err := k.schemas.check(in.Tool, in.Input); err != nil {
		return failed("refresh: the input is not valid for %s: %v", in.Tool, err)
	}
	caller.Renders = []string{"mcp-apps"}
	return k.run[in.Tool](ctx, caller, in.Input)
}
