package dataview

import (
	"encoding/json"
	"fmt"
	"strconv"

	"github.com/genui-adapter/genui-adapter/a2ui"
	"github.com/genui-adapter/genui-adapter/schemas"
)

// The toolkit's A2UI renderings: basic-catalog surfaces (surface id
// "main"; the adapter renames it per tool call). The basic catalog has no
// chart, no iframe and no sortable table: charts become tables of their
// series with a caption that says so, a page becomes its link, a table is
// sorted once and capped.

const surfaceID = "main"

// builder collects a surface's components with unique ids.
type builder struct {
	comps []a2ui.Component
	n     int
}

func (b *builder) id(prefix string) string {
	b.n++
	return prefix + "-" + strconv.Itoa(b.n)
}

func (b *builder) add(c a2ui.Component) string {
	b.comps = append(b.comps, c)
	return c.ID
}

func (b *builder) text(s, variant string) string {
	return b.add(a2ui.Text(b.id("text"), s, variant))
}

func (b *builder) column(children []string) string {
	return b.add(a2ui.Column(b.id("col"), children))
}

func (b *builder) row(children []string) string {
	return b.add(a2ui.Row(b.id("row"), children))
}

func (b *builder) card(child string) string {
	return b.add(a2ui.Card(b.id("card"), child))
}

// grid is a table as rows of texts: a header row, then the cells.
func (b *builder) grid(header []string, rows [][]string) string {
	var lines []string
	var h []string
	for _, c := range header {
		if c == "" {
			c = "Label"
		}
		h = append(h, b.text("**"+c+"**", "body"))
	}
	lines = append(lines, b.row(h), b.add(a2ui.Divider(b.id("divider"))))
	for _, r := range rows {
		var cells []string
		for _, c := range r {
			cells = append(cells, b.text(c, "body"))
		}
		lines = append(lines, b.row(cells))
	}
	return b.column(lines)
}

// messages is the surface: createSurface, the components with root, and
// an optional data model.
func (b *builder) messages(root string, data map[string]any) []map[string]any {
	b.comps = append(b.comps, a2ui.Column("root", []string{root}))
	msgs := []a2ui.Message{
		&a2ui.CreateSurface{SurfaceID: surfaceID, CatalogID: schemas.BasicCatalogID},
		&a2ui.UpdateComponents{SurfaceID: surfaceID, Components: b.comps},
	}
	if data != nil {
		msgs = append(msgs, &a2ui.UpdateDataModel{SurfaceID: surfaceID, Path: "/", Value: data})
	}
	return asMaps(msgs)
}

// inCatalog names the frontend's catalog in createSurface (the toolkit
// uses only basic-catalog components, which catalogs such as CopilotKit's
// include); "" keeps the basic catalog.
func inCatalog(msgs []map[string]any, catalog string) []map[string]any {
	if catalog == "" {
		return msgs
	}
	for _, m := range msgs {
		if cs, ok := m["createSurface"].(map[string]any); ok {
			cs["catalogId"] = catalog
		}
	}
	return msgs
}

func asMaps(msgs []a2ui.Message) []map[string]any {
	var out []map[string]any
	for _, m := range msgs {
		b, _ := json.Marshal(m)
		var mm map[string]any
		_ = json.Unmarshal(b, &mm)
		out = append(out, mm)
	}
	return out
}

// maxSurfaceRows caps the rows a chart's table shows in A2UI.
const maxSurfaceRows = 50

func chartSurface(title string, charts []chart) []map[string]any {
	b := &builder{}
	var parts []string
	if title != "" {
		parts = append(parts, b.text(title, "h3"))
	}
	for _, c := range charts {
		var inner []string
		if c.Title != "" {
			inner = append(inner, b.text(c.Title, "h4"))
		}
		unit := ""
		if c.Unit != "" {
			unit = " (" + c.Unit + ")"
		}
		inner = append(inner, b.text(fmt.Sprintf("A %s chart, shown as a table: the A2UI basic catalog has no chart component.", c.Type), "caption"))
		switch c.Type {
		case "gauge":
			inner = append(inner, b.text(fmt.Sprintf("%s, on a scale of %s to %s", valueText(*c.Value, c.Unit), number(*c.Min, -1), number(*c.Max, -1)), "h3"))
		case "scatter":
			header := []string{"Series", "x", "y"}
			var rows [][]string
			for _, s := range c.Series {
				for _, p := range s.Points {
					rows = append(rows, []string{or(s.Name, "series"), number(p[0], -1), number(p[1], -1)})
				}
			}
			inner = append(inner, b.grid(header, capRows(b, &inner, rows)))
		default:
			header := []string{""}
			for i, s := range c.Series {
				header = append(header, or(s.Name, "Series "+strconv.Itoa(i+1))+unit)
			}
			var rows [][]string
			for i, l := range c.Labels {
				r := []string{label(l)}
				for _, s := range c.Series {
					r = append(r, number(s.Values[i], -1))
				}
				rows = append(rows, r)
			}
			inner = append(inner, b.grid(header, capRows(b, &inner, rows)))
		}
		parts = append(parts, b.card(b.column(inner)))
	}
	return b.messages(b.column(parts), nil)
}

// capRows keeps maxSurfaceRows rows and notes the rest.
func capRows(b *builder, inner *[]string, rows [][]string) [][]string {
	if len(rows) <= maxSurfaceRows {
		return rows
	}
	*inner = append(*inner, b.text(fmt.Sprintf("The first %d of %d rows.", maxSurfaceRows, len(rows)), "caption"))
	return rows[:maxSurfaceRows]
}

func metricsSurface(title string, ms []metric) []map[string]any {
	b := &builder{}
	var parts []string
	if title != "" {
		parts = append(parts, b.text(title, "h3"))
	}
	var tiles []string
	flush := func() {
		if len(tiles) > 0 {
			parts = append(parts, b.row(tiles))
			tiles = nil
		}
	}
	arrows := map[string]string{"up": "▲", "down": "▼", "flat": "▶"}
	for _, m := range ms {
		inner := []string{b.text(m.Label, "caption"), b.text(valueText(m.Value, m.Unit), "h3")}
		if m.Delta != nil {
			word := map[string]string{"good": "better", "bad": "worse", "neutral": "unchanged"}[m.Tone]
			inner = append(inner, b.text(fmt.Sprintf("%s %s (%s)", arrows[m.Trend], deltaText(*m.Delta, or(m.DeltaUnit, m.Unit)), word), "caption"))
		}
		tiles = append(tiles, b.card(b.column(inner)))
		if len(tiles) == 4 {
			flush()
		}
	}
	flush()
	return b.messages(b.column(parts), nil)
}

func tableSurface(in tableIn, total int) []map[string]any {
	b := &builder{}
	var parts []string
	if in.Title != "" {
		parts = append(parts, b.text(in.Title, "h3"))
	}
	caption := fmt.Sprintf("%d rows", total)
	if len(in.Rows) < total {
		caption = fmt.Sprintf("The first %d of %d rows", len(in.Rows), total)
	}
	if in.Sort != nil {
		dir := "ascending"
		if in.Sort.Desc {
			dir = "descending"
		}
		caption += fmt.Sprintf(", sorted by %s (%s)", humanLabel(in.Columns, in.Sort.Key), dir)
	}
	parts = append(parts, b.text(caption+".", "caption"))
	var header []string
	for _, c := range in.Columns {
		header = append(header, c.Label)
	}
	var rows [][]string
	for _, r := range in.Rows {
		var cells []string
		for _, c := range in.Columns {
			cells = append(cells, cell(c, r[c.Key]))
		}
		rows = append(rows, cells)
	}
	parts = append(parts, b.grid(header, rows))
	return b.messages(b.column(parts), nil)
}

func humanLabel(cols []column, key string) string {
	for _, c := range cols {
		if c.Key == key {
			return c.Label
		}
	}
	return key
}

func urlSurface(title, u string) []map[string]any {
	b := &builder{}
	inner := []string{}
	if title != "" {
		inner = append(inner, b.text(title, "h4"))
	}
	inner = append(inner,
		b.text("A2UI cannot embed a web page; open it here:", "caption"),
		b.text(fmt.Sprintf("[%s](%s)", u, u), "body"))
	return b.messages(b.card(b.column(inner)), nil)
}

// askSurface is the question as a form: a choice picker (single or
// multiple) or a text field, and a Send button whose action, answer_user,
// carries the answer to the waiting tool call.
func askSurface(in askIn) []map[string]any {
	b := &builder{}
	inner := []string{b.text(in.Question, "h4")}
	var data map[string]any
	switch in.Mode {
	case "text":
		data = map[string]any{"answer": ""}
		inner = append(inner, b.add(a2ui.TextField("answer-field", or(in.Placeholder, "Your answer"), a2ui.Bind("/answer"))))
	default:
		data = map[string]any{"answer": []any{}}
		variant := "mutuallyExclusive"
		if in.Mode == "multiple" {
			variant = "multipleSelection"
		}
		var opts []map[string]any
		for _, o := range in.Options {
			opts = append(opts, map[string]any{"label": o, "value": o})
		}
		inner = append(inner, b.add(a2ui.Component{ID: "answer-field", Type: "ChoicePicker", Props: map[string]any{
			"label": "Choose", "variant": variant, "options": opts, "value": a2ui.Bind("/answer"),
		}}))
	}
	label := b.text("Send", "body")
	inner = append(inner, b.add(a2ui.Button("send", label, a2ui.EventAction(ToolAnswer, map[string]any{"answer": a2ui.Bind("/answer"), "mode": in.Mode, "question": in.Question}), "primary")))
	return b.messages(b.card(b.column(inner)), data)
}

// answeredSurface replaces the form by a line saying what happened.
func answeredSurface(line string) []map[string]any {
	b := &builder{}
	return asMaps([]a2ui.Message{&a2ui.UpdateComponents{SurfaceID: surfaceID, Components: append(b.comps,
		a2ui.Column("root", []string{"answered"}), a2ui.Text("answered", line, "body"))}})
}

func dataSurface(title string, data json.RawMessage, maxRows int) []map[string]any {
	msgs, err := a2ui.Generate(data, a2ui.GenerateOptions{SurfaceID: surfaceID, Title: title, MaxRows: maxRows})
	if err != nil {
		return nil
	}
	return asMaps(msgs)
}
