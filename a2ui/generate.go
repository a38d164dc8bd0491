package a2ui

import (
	"encoding/json"
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"unicode"

	"github.com/genui-adapter/genui-adapter/schemas"
)

// GenerateOptions shape a generated surface. Zero values mean the defaults
// given.
type GenerateOptions struct {
	// SurfaceID names the surface. Default "surface".
	SurfaceID string
	// Title heads the surface (e.g. the humanised tool name). Default none.
	Title string
	// CatalogID goes into createSurface. Default schemas.BasicCatalogID.
	CatalogID string
	// Version is the envelope version. Default "v0.9".
	Version string
	// MaxRows caps table rows; the rest are summarised. Default 200.
	MaxRows int
	// MaxColumns caps table columns. Default 8.
	MaxColumns int
	// MaxDepth is how deep nested objects become sections before the rest
	// is shown as compact JSON text. Default 3.
	MaxDepth int
	// RowAction, when set, gives every row of a table that has an id-like
	// column ("id", "...Id", "..._id") a button that sends this action name
	// with context {"id": <the row's id>, "source": Source}. Empty: none.
	RowAction string
	// Source names where the data came from (the tool), for RowAction.
	Source string
}

func (o GenerateOptions) withDefaults() GenerateOptions {
	if o.SurfaceID == "" {
		o.SurfaceID = "surface"
	}
	if o.CatalogID == "" {
		o.CatalogID = schemas.BasicCatalogID
	}
	if o.Version == "" {
		o.Version = DefaultVersion
	}
	if o.MaxRows == 0 {
		o.MaxRows = 200
	}
	if o.MaxColumns == 0 {
		o.MaxColumns = 8
	}
	if o.MaxDepth == 0 {
		o.MaxDepth = 3
	}
	return o
}

// object is a JSON object that remembers its key order.
type object struct {
	keys []string
	m    map[string]any
}

// plain turns ordered values back into plain JSON values.
func plain(v any) any {
	switch x := v.(type) {
	case *object:
		m := make(map[string]any, len(x.m))
		for k, e := range x.m {
			m[k] = plain(e)
		}
		return m
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = plain(e)
		}
		return out
	}
	return v
}

func compactJSON(v any) string {
	b, _ := json.Marshal(plain(v))
	return string(b)
}

// Humanize turns a key like "shipmentCount" or "created_at" into a label
// like "Shipment count" or "Created at".
func Humanize(key string) string {
	var words []string
	var cur []rune
	flush := func() {
		if len(cur) > 0 {
			words = append(words, string(cur))
			cur = nil
		}
	}
	rs := []rune(key)
	for i, r := range rs {
		switch {
		case r == '_' || r == '-' || r == ' ' || r == '.':
			flush()
		case unicode.IsUpper(r) && len(cur) > 0 && (unicode.IsLower(cur[len(cur)-1]) || (i+1 < len(rs) && unicode.IsLower(rs[i+1]))):
			flush()
			cur = append(cur, r)
		default:
			cur = append(cur, r)
		}
	}
	flush()
	for i, w := range words {
		if acronyms[strings.ToLower(w)] {
			words[i] = strings.ToUpper(w)
			continue
		}
		if i == 0 {
			r := []rune(w)
			r[0] = unicode.ToUpper(r[0])
			words[i] = string(r)
		} else if !isAcronym(w) {
			words[i] = strings.ToLower(w)
		}
	}
	if len(words) == 0 {
		return key
	}
	return strings.Join(words, " ")
}

// acronyms are written in capitals when they stand as a word.
var acronyms = map[string]bool{"id": true, "url": true, "uri": true, "api": true, "sku": true, "ip": true, "uuid": true}

func isAcronym(w string) bool {
	return len(w) > 1 && strings.ToUpper(w) == w
}

var (
	moneyKey = regexp.MustCompile(`(?i)(price|amount|total|cost|revenue|balance|salary|fee|subtotal|tax|payment|usd|eur|gbp)`)
	dateVal  = regexp.MustCompile(`^\d{4}-\d{2}-\d{2}([T ]\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:?\d{2})?)?$`)
	imageVal = regexp.MustCompile(`(?i)^https?://[^\s]+\.(png|jpe?g|gif|webp|svg|avif)(\?[^\s]*)?$`)
	currency = regexp.MustCompile(`^[A-Z]{3}$`)
)

// kind classifies a column or value for formatting.
type valueKind int

const (
	kindText valueKind = iota
	kindNumber
	kindMoney
	kindDate
	kindBool
	kindImage
)

func classify(key string, v any) valueKind {
	switch x := v.(type) {
	case json.Number:
		if moneyKey.MatchString(key) {
			return kindMoney
		}
		return kindNumber
	case bool:
		return kindBool
	case string:
		if dateVal.MatchString(x) {
			return kindDate
		}
		if imageVal.MatchString(x) {
			return kindImage
		}
	}
	return kindText
}

// gen builds one surface.
type gen struct {
	o        GenerateOptions
	comps    []Component
	data     map[string]any
	n        int
	currency string
}

func (g *gen) id(prefix string) string {
	g.n++
	return prefix + strconv.Itoa(g.n)
}

func (g *gen) add(c Component) string {
	g.comps = append(g.comps, c)
	return c.ID
}

// Generate turns a JSON value into the messages of one surface:
// createSurface, updateComponents (root first) and updateDataModel. It uses
// only basic-catalog components, is deterministic, and keeps all values in
// the data model so updates are data-only. An array of objects becomes a
// table, an array of scalars a list, an object a key/value card with
// sections, an empty value "No results".
func Generate(raw json.RawMessage, opts GenerateOptions) ([]Message, error) {
	v, err := decodeOrdered(raw)
	if err != nil {
		return nil, fmt.Errorf("a2ui: generate: %w", err)
	}
	o := opts.withDefaults()
	g := &gen{o: o, data: map[string]any{}, currency: "USD"}
	if obj, ok := v.(*object); ok {
		if c, ok := obj.m["currency"].(string); ok && currency.MatchString(c) {
			g.currency = c
		}
	}
	var body []string
	if o.Title != "" {
		g.data["title"] = o.Title
		body = append(body, g.add(Text("title", Bind("/title"), "h3")))
	}
	body = append(body, g.value("", v, "/v", 0)...)
	g.comps = append([]Component{Card("root", "root-col"), Column("root-col", body)}, g.comps...)
	return []Message{
		&CreateSurface{Version: o.Version, SurfaceID: o.SurfaceID, CatalogID: o.CatalogID},
		&UpdateComponents{Version: o.Version, SurfaceID: o.SurfaceID, Components: g.comps},
		&UpdateDataModel{Version: o.Version, SurfaceID: o.SurfaceID, Path: "/", Value: g.data},
	}, nil
}

// setData stores v at the absolute data path p (a chain of safe keys).
func (g *gen) setData(p string, v any) {
	segs := strings.Split(strings.TrimPrefix(p, "/"), "/")
	m := g.data
	for _, s := range segs[:len(segs)-1] {
		next, ok := m[s].(map[string]any)
		if !ok {
			next = map[string]any{}
			m[s] = next
		}
		m = next
	}
	m[segs[len(segs)-1]] = v
}

// value renders v (found under key) and returns the ids of the components
// to place in the parent column. p is a free data path for it.
func (g *gen) value(key string, v any, p string, depth int) []string {
	switch x := v.(type) {
	case nil:
		return []string{g.add(Text(g.id("empty"), "No results", "body"))}
	case []any:
		if len(x) == 0 {
			return []string{g.add(Text(g.id("empty"), "No results", "body"))}
		}
		if depth > g.o.MaxDepth {
			return []string{g.jsonText(v, p)}
		}
		allObj := true
		for _, e := range x {
			if _, ok := e.(*object); !ok {
				allObj = false
				break
			}
		}
		if allObj {
			return g.table(key, x, p)
		}
		return g.list(key, x, p)
	case *object:
		if len(x.keys) == 0 {
			return []string{g.add(Text(g.id("empty"), "No results", "body"))}
		}
		if depth > g.o.MaxDepth {
			return []string{g.jsonText(v, p)}
		}
		return g.record(x, p, depth)
	default:
		return []string{g.scalar(key, v, p)}
	}
}

func (g *gen) jsonText(v any, p string) string {
	g.setData(p, compactJSON(v))
	return g.add(Text(g.id("json"), Bind(p), "body"))
}

// formatted returns the DynamicString that shows the value bound at path
// (absolute, or relative inside a template) for its kind.
func (g *gen) formatted(k valueKind, path string) any {
	switch k {
	case kindNumber:
		return Call("formatNumber", map[string]any{"value": Bind(path), "grouping": true}, "string")
	case kindMoney:
		return Call("formatCurrency", map[string]any{"value": Bind(path), "currency": g.currency}, "string")
	case kindDate:
		return Call("formatDate", map[string]any{"value": Bind(path), "format": "MMM d, yyyy"}, "string")
	}
	return Bind(path)
}

// scalar renders one value bound at p.
func (g *gen) scalar(key string, v any, p string) string {
	k := classify(key, v)
	switch k {
	case kindBool:
		b := v.(bool)
		g.setData(p, yesNo(b))
		g.setData(p+"_icon", iconFor(b))
		ic := g.add(Icon(g.id("icon"), Bind(p+"_icon")))
		tx := g.add(Text(g.id("val"), Bind(p), "body"))
		return g.add(Row(g.id("bool"), []string{ic, tx}).Set("align", "center"))
	case kindImage:
		g.setData(p, v)
		return g.add(Image(g.id("img"), Bind(p), "smallFeature").Set("fit", "cover").Set("description", Humanize(key)))
	case kindNumber, kindMoney, kindDate:
		g.setData(p, plain(v))
		return g.add(Text(g.id("val"), g.formatted(k, p), "body"))
	}
	s, ok := v.(string)
	if !ok {
		s = compactJSON(v)
	}
	g.setData(p, s)
	return g.add(Text(g.id("val"), Bind(p), "body"))
}

func yesNo(b bool) string {
	if b {
		return "Yes"
	}
	return "No"
}

func iconFor(b bool) string {
	if b {
		return "check"
	}
	return "close"
}

// record renders an object as label/value rows, nested objects as titled
// sections and nested arrays as tables or lists.
func (g *gen) record(o *object, p string, depth int) []string {
	var out []string
	for i, k := range o.keys {
		v := o.m[k]
		sub := fmt.Sprintf("%s/f%d", p, i)
		label := Humanize(k)
		switch x := v.(type) {
		case *object, []any:
			isEmpty := false
			if obj, ok := x.(*object); ok && len(obj.keys) == 0 {
				isEmpty = true
			}
			if arr, ok := x.([]any); ok && len(arr) == 0 {
				isEmpty = true
			}
			if !isEmpty {
				title := g.add(Text(g.id("h"), label, "h4"))
				kids := append([]string{title}, g.value(k, v, sub, depth+1)...)
				out = append(out, g.add(Column(g.id("sec"), kids)))
				continue
			}
		}
		lab := g.add(Text(g.id("k"), label, "caption"))
		val := g.value(k, v, sub, depth+1)
		row := Row(g.id("kv"), append([]string{lab}, val...)).Set("justify", "spaceBetween").Set("align", "center")
		out = append(out, g.add(row))
	}
	return out
}

// list renders an array of scalars (or mixed values) as a template list.
func (g *gen) list(key string, arr []any, p string) []string {
	n := len(arr)
	shown := arr
	if n > g.o.MaxRows {
		shown = arr[:g.o.MaxRows]
	}
	items := make([]any, len(shown))
	kind := kindText
	for i, e := range shown {
		k := classify(key, e)
		if i == 0 {
			kind = k
		} else if k != kind {
			kind = kindText
		}
	}
	if kind == kindBool || kind == kindImage {
		kind = kindText
	}
	for i, e := range shown {
		switch x := e.(type) {
		case string:
			items[i] = map[string]any{"v": x}
		case json.Number:
			if kind == kindText {
				items[i] = map[string]any{"v": x.String()}
			} else {
				items[i] = map[string]any{"v": x}
			}
		case bool:
			items[i] = map[string]any{"v": yesNo(x)}
		default:
			items[i] = map[string]any{"v": compactJSON(x)}
		}
	}
	g.setData(p, items)
	itemID := g.id("item")
	g.add(Text(itemID, g.formatted(kind, "v"), "body"))
	out := []string{
		g.add(Text(g.id("count"), pluralCount(n, "item"), "caption")),
		g.add(Column(g.id("list"), Template(itemID, p))),
	}
	if n > len(shown) {
		out = append(out, g.add(Text(g.id("more"), fmt.Sprintf("Showing %d of %d", len(shown), n), "caption")))
	}
	return out
}

func isIDKey(k string) bool {
	return strings.EqualFold(k, "id") || strings.HasSuffix(k, "Id") || strings.HasSuffix(k, "ID") || strings.HasSuffix(strings.ToLower(k), "_id")
}

func pluralCount(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return fmt.Sprintf("%d %ss", n, noun)
}

// table renders an array of objects: the count, a header row, a divider
// and a template row per element over the data at p. Columns are the keys
// in first-seen order; every row holds every column, so bindings resolve.
func (g *gen) table(key string, arr []any, p string) []string {
	var cols []string
	seen := map[string]bool{}
	for _, e := range arr {
		for _, k := range e.(*object).keys {
			if !seen[k] && len(cols) < g.o.MaxColumns {
				seen[k] = true
				cols = append(cols, k)
			}
		}
	}
	if len(cols) == 0 {
		// Only empty objects: nothing to tabulate.
		return g.list(key, arr, p)
	}
	n := len(arr)
	shown := arr
	if n > g.o.MaxRows {
		shown = arr[:g.o.MaxRows]
	}
	// A column is formatted when every row's value has the same kind.
	kinds := make([]valueKind, len(cols))
	for c, k := range cols {
		kind := valueKind(-1)
		for _, e := range shown {
			v, ok := e.(*object).m[k]
			if !ok || v == nil {
				kind = kindText
				break
			}
			vk := classify(k, v)
			if kind == -1 {
				kind = vk
			} else if kind != vk {
				kind = kindText
				break
			}
		}
		if kind == -1 {
			kind = kindText
		}
		kinds[c] = kind
	}
	rows := make([]any, len(shown))
	for i, e := range shown {
		o := e.(*object)
		row := map[string]any{}
		for c, k := range cols {
			cell := "c" + strconv.Itoa(c)
			v := o.m[k]
			switch kinds[c] {
			case kindNumber, kindMoney:
				row[cell] = v
			case kindBool:
				row[cell] = iconFor(v.(bool))
			default:
				switch x := v.(type) {
				case string:
					row[cell] = x
				case nil:
					row[cell] = ""
				case json.Number:
					row[cell] = x.String()
				case bool:
					row[cell] = yesNo(x)
				default:
					row[cell] = compactJSON(x)
				}
			}
		}
		rows[i] = row
	}
	g.setData(p, rows)
	// The section heading (or surface title) names the table; the caption
	// counts it.
	count := pluralCount(n, "row")
	var header, cells []string
	for c, k := range cols {
		header = append(header, g.add(Text(g.id("th"), Humanize(k), "caption").Set("weight", 1)))
		cell := "c" + strconv.Itoa(c)
		id := g.id("td")
		switch kinds[c] {
		case kindBool:
			g.add(Icon(id, Bind(cell)).Set("weight", 1))
		case kindImage:
			g.add(Image(id, Bind(cell), "icon").Set("weight", 1).Set("fit", "cover"))
		default:
			g.add(Text(id, g.formatted(kinds[c], cell), "body").Set("weight", 1))
		}
		cells = append(cells, id)
	}
	if g.o.RowAction != "" {
		for c, k := range cols {
			if !isIDKey(k) || kinds[c] == kindBool || kinds[c] == kindImage {
				continue
			}
			label := g.add(Text(g.id("btnl"), "Select", "body"))
			ctx := map[string]any{"id": Bind("c" + strconv.Itoa(c))}
			if g.o.Source != "" {
				ctx["source"] = g.o.Source
			}
			// The same weight as the header's cell: header and rows keep
			// their columns aligned.
			cells = append(cells, g.add(Button(g.id("btn"), label, EventAction(g.o.RowAction, ctx), "borderless").Set("weight", 1)))
			header = append(header, g.add(Text(g.id("th"), "", "caption").Set("weight", 1)))
			break
		}
	}
	rowID := g.add(Row(g.id("tr"), cells).Set("align", "center"))
	out := []string{
		g.add(Text(g.id("count"), count, "caption")),
		g.add(Row(g.id("thead"), header).Set("align", "center")),
		g.add(Divider(g.id("rule"))),
		g.add(Column(g.id("tbody"), Template(rowID, p))),
	}
	if n > len(shown) {
		out = append(out, g.add(Text(g.id("more"), fmt.Sprintf("Showing %d of %d", len(shown), n), "caption")))
	}
	return out
}
