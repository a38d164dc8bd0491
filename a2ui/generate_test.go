package a2ui_test

import (
	"encoding/json"
	"fmt"
	"math/rand"
	"strings"
	"testing"

	"github.com/genui-adapter/genui-adapter/a2ui"
)

func genAndValidate(t testing.TB, v *a2ui.Validator, input string, o a2ui.GenerateOptions) ([][]byte, []a2ui.Error) {
	t.Helper()
	msgs, err := a2ui.Generate(json.RawMessage(input), o)
	if err != nil {
		t.Fatalf("Generate(%.80s): %v", input, err)
	}
	var raw [][]byte
	for _, m := range msgs {
		b, err := json.Marshal(m)
		if err != nil {
			t.Fatal(err)
		}
		raw = append(raw, b)
	}
	return raw, v.ValidateBatch(raw)
}

var strictGen = a2ui.MustValidator(a2ui.Options{Strict: true, CheckBindings: true, MaxTemplateItems: 200})

func TestGenerateShapes(t *testing.T) {
	for _, tt := range []struct {
		name, in string
		want     []string // substrings of the updateComponents / data JSON
	}{
		{"table", `[{"id":"A-1","customer":"Ada","total":12.5,"paid":true,"placedAt":"2026-11-01"},{"id":"A-2","customer":"Linus","total":1999,"paid":false,"placedAt":"2026-11-02"}]`,
			[]string{`"text":"2 rows"`, `"text":"Customer"`, `"name":"pick"`, `"id":{"path":"c0"}`, `"call":"formatCurrency"`, `"call":"formatDate"`, `"componentId":"tr`, `"name":{"path":"c3"}`, `"c1":"Ada"`, `"c3":"check"`}},
		{"record", `{"name":"Ada Lovelace","age":36,"active":true,"address":{"city":"London","zip":"N1"},"orders":[{"id":1},{"id":2}],"photo":"https://example.com/a.png"}`,
			[]string{`"text":"Name"`, `"text":"Address","variant":"h4"`, `"text":"Orders","variant":"h4"`, `"text":"2 rows"`, `"component":"Image"`, `"call":"formatNumber"`, `"Yes"`}},
		{"list", `["red","green","blue"]`, []string{`"text":"3 items"`, `"v":"green"`}},
		{"empty array", `[]`, []string{`"text":"No results"`}},
		{"empty object", `{}`, []string{`"text":"No results"`}},
		{"null", `null`, []string{`"text":"No results"`}},
		{"scalar", `42`, []string{`"call":"formatNumber"`}},
		{"unicode", `[{"名前":"東京","emoji":"🚀","rtl":"مرحبا"}]`, []string{`"c0":"東京"`, `"c1":"🚀"`}},
		{"deep", `{"a":{"b":{"c":{"d":{"e":{"f":1}}}}}}`, []string{`{\"e\":{\"f\":1}}`}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			raw, errs := genAndValidate(t, strictGen, tt.in, a2ui.GenerateOptions{SurfaceID: "s", RowAction: "pick", Source: "orders"})
			if len(errs) > 0 {
				t.Fatalf("generated surface is invalid: %v\n%s", errs, raw)
			}
			all := string(raw[1]) + string(raw[2])
			for _, w := range tt.want {
				if !strings.Contains(all, w) {
					t.Errorf("output lacks %s\n%s", w, all)
				}
			}
			if !strings.Contains(string(raw[1]), `{"id":"root","component":"Card"`) {
				t.Errorf("root is not first: %.100s", raw[1])
			}
		})
	}
}

func TestGenerateCapsRowsAndIsDeterministic(t *testing.T) {
	var rows []string
	for i := range 250 {
		rows = append(rows, fmt.Sprintf(`{"n":%d,"name":"row %d"}`, i, i))
	}
	in := "[" + strings.Join(rows, ",") + "]"
	raw, errs := genAndValidate(t, strictGen, in, a2ui.GenerateOptions{SurfaceID: "s", Title: "Orders"})
	if len(errs) > 0 {
		t.Fatal(errs)
	}
	if !strings.Contains(string(raw[1]), "Showing 200 of 250") || !strings.Contains(string(raw[1]), "250 rows") {
		t.Errorf("no row cap summary: %.300s", raw[1])
	}
	var dm struct {
		UpdateDataModel struct {
			Value struct {
				V []any `json:"v"`
			} `json:"value"`
		} `json:"updateDataModel"`
	}
	json.Unmarshal(raw[2], &dm)
	if len(dm.UpdateDataModel.Value.V) != 200 {
		t.Errorf("%d rows in the data model, want 200", len(dm.UpdateDataModel.Value.V))
	}
	raw2, _ := genAndValidate(t, strictGen, in, a2ui.GenerateOptions{SurfaceID: "s", Title: "Orders"})
	for i := range raw {
		if string(raw[i]) != string(raw2[i]) {
			t.Fatal("Generate is not deterministic")
		}
	}
}

func TestHumanize(t *testing.T) {
	for in, want := range map[string]string{"shipmentCount": "Shipment count", "created_at": "Created at", "ID": "ID", "userID": "User ID", "HTTPStatus": "HTTP status", "x": "X", "eta": "Eta", "id": "ID", "imageUrl": "Image URL"} {
		if got := a2ui.Humanize(in); got != want {
			t.Errorf("Humanize(%q) = %q, want %q", in, got, want)
		}
	}
}

// randomJSON builds a random JSON value of bounded size.
func randomJSON(r *rand.Rand, depth int) any {
	keys := []string{"id", "name", "price", "createdAt", "active", "image", "a/b", "~x", "", "ünï", "nested", "list", "total_usd"}
	switch k := r.Intn(9); {
	case depth > 5 || k < 3:
		switch r.Intn(7) {
		case 0:
			return r.Intn(100000) - 500
		case 1:
			return r.Float64() * 1000
		case 2:
			return r.Intn(2) == 0
		case 3:
			return nil
		case 4:
			return "2026-11-29T10:00:00Z"
		case 5:
			return "https://example.com/p.png"
		default:
			return strings.Repeat("word ", r.Intn(4)) + "\"quoted\" ${x} <b>"
		}
	case k < 6:
		n := r.Intn(6)
		arr := make([]any, n)
		same := r.Intn(2) == 0
		for i := range arr {
			if same {
				m := map[string]any{}
				for j := 0; j < 1+r.Intn(4); j++ {
					m[keys[r.Intn(len(keys))]] = randomJSON(r, depth+2)
				}
				arr[i] = m
			} else {
				arr[i] = randomJSON(r, depth+1)
			}
		}
		return arr
	default:
		m := map[string]any{}
		for j := 0; j < r.Intn(6); j++ {
			m[keys[r.Intn(len(keys))]] = randomJSON(r, depth+1)
		}
		return m
	}
}

// TestGeneratePropertyAlwaysValid: every generated surface passes the
// strict validator, whatever the input.
func TestGeneratePropertyAlwaysValid(t *testing.T) {
	r := rand.New(rand.NewSource(1))
	n := 3000
	if testing.Short() {
		n = 300
	}
	for i := range n {
		b, _ := json.Marshal(randomJSON(r, 0))
		raw, errs := genAndValidate(t, strictGen, string(b), a2ui.GenerateOptions{SurfaceID: "s", MaxRows: 50, RowAction: "select_row"})
		if len(errs) > 0 {
			t.Fatalf("case %d: input %s\ngenerated an invalid surface: %v\n%s\n%s", i, b, errs, raw[1], raw[2])
		}
	}
}

func FuzzGenerate(f *testing.F) {
	for _, s := range []string{`[]`, `{}`, `[{"a":1}]`, `{"a":{"b":[1,"x",true,null]}}`, `"x"`, `[[1,2],[3]]`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		if !json.Valid(b) {
			return
		}
		msgs, err := a2ui.Generate(b, a2ui.GenerateOptions{SurfaceID: "s", MaxRows: 20})
		if err != nil {
			return
		}
		var raw [][]byte
		for _, m := range msgs {
			mb, _ := json.Marshal(m)
			raw = append(raw, mb)
		}
		if errs := strictGen.ValidateBatch(raw); len(errs) > 0 {
			t.Fatalf("input %s generated an invalid surface: %v", b, errs)
		}
	})
}

// A table's header row and its row template have the same number of
// cells, each with the same weight, so that the columns line up (the row
// button's column too).
func TestTableColumnsLineUp(t *testing.T) {
	raw, errs := genAndValidate(t, strictGen, `[{"id":"A-1","customer":"Ada","total":12.5,"paid":true}]`, a2ui.GenerateOptions{SurfaceID: "s", RowAction: "pick"})
	if len(errs) > 0 {
		t.Fatal(errs)
	}
	var uc struct {
		UpdateComponents struct {
			Components []map[string]any `json:"components"`
		} `json:"updateComponents"`
	}
	json.Unmarshal(raw[1], &uc)
	byID := map[string]map[string]any{}
	for _, c := range uc.UpdateComponents.Components {
		byID[c["id"].(string)] = c
	}
	weights := func(prefix string) []any {
		for id, c := range byID {
			if strings.HasPrefix(id, prefix) && c["component"] == "Row" {
				var w []any
				for _, child := range c["children"].([]any) {
					w = append(w, byID[child.(string)]["weight"])
				}
				return w
			}
		}
		t.Fatalf("no %s row in %s", prefix, raw[1])
		return nil
	}
	head, row := weights("thead"), weights("tr")
	// A cell without a weight is as wide as its content, which differs
	// between the header ("") and the rows ("Select"): every cell has one.
	if len(head) != 5 || fmt.Sprint(head) != fmt.Sprint(row) || strings.Contains(fmt.Sprint(head), "nil") {
		t.Errorf("header weights %v, row weights %v", head, row)
	}
}
