package a2ui_test

import (
	"context"
	"encoding/json"
	"iter"
	"strings"
	"testing"

	"github.com/genui-adapter/genui-adapter/a2ui"
	"github.com/genui-adapter/genui-adapter/agui"
)

func TestClientVersion(t *testing.T) {
	for _, tc := range []struct {
		props, want, err string
	}{
		{``, "", ""},
		{`{}`, "", ""},
		{`{"a2uiClientCapabilities": null}`, "", ""},
		{`{"a2uiClientCapabilities": {"v0.9": {"supportedCatalogIds": ["https://a2ui.org/specification/v0_9/basic_catalog.json"]}}}`, "v0.9", ""},
		{`{"a2uiClientCapabilities": {"v0.9": {"supportedCatalogIds": []}, "v0.9.1": {"supportedCatalogIds": []}}}`, "v0.9.1", ""},
		{`{"a2uiClientCapabilities": {"v0.8": {"supportedCatalogIds": ["https://a2ui.org/specification/v0_8/standard_catalog_definition.json"]}}}`, "v0.8", ""},
		{`{"a2uiClientCapabilities": {"supportedCatalogIds": ["https://a2ui.org/specification/v0_8/standard_catalog_definition.json"]}}`, "v0.8", ""},
		{`{"a2uiClientCapabilities": {"v0.8": {"supportedCatalogIds": []}, "v0.9": {"supportedCatalogIds": []}}}`, "v0.9", ""},
		{`{"a2uiClientCapabilities": {"v1.0": {"supportedCatalogIds": []}}}`, "", ""},
		{`{"a2uiClientCapabilities": {"v0.9": {"supportedCatalogIds": []}, "inlineCatalogs": []}}`, "v0.9", ""},
		{`{"a2uiClientCapabilities": "v0.8"}`, "", "is not an object"},
		{`{"a2uiClientCapabilities": {"v0.8": true}}`, "", `["v0.8"] is not an object`},
		{`{"a2uiClientCapabilities": {"v0.9": {"supportedCatalogIds": "basic"}}}`, "", `["v0.9"].supportedCatalogIds is not a list of strings`},
		{`{"a2uiClientCapabilities": {"supportedCatalogIds": [1]}}`, "", "supportedCatalogIds is not a list of strings"},
	} {
		in := &agui.RunAgentInput{ForwardedProps: agui.JSON(tc.props)}
		got, err := a2ui.ClientVersion(in)
		if tc.err != "" {
			if err == nil || !strings.Contains(err.Error(), tc.err) {
				t.Errorf("%s: err = %v, want %q", tc.props, err, tc.err)
			}
			continue
		}
		if err != nil || got != tc.want {
			t.Errorf("%s: %q, %v; want %q", tc.props, got, err, tc.want)
		}
	}
}

// TestClientVersionSameError: a declaration with several faults is
// refused with the same error every time.
func TestClientVersionSameError(t *testing.T) {
	in := &agui.RunAgentInput{ForwardedProps: agui.JSON(`{"a2uiClientCapabilities": {"v0.8": true, "v0.9": 1, "v0.9.1": "x", "supportedCatalogIds": 2}}`)}
	_, first := a2ui.ClientVersion(in)
	for i := 0; i < runs; i++ {
		if _, err := a2ui.ClientVersion(in); err == nil || err.Error() != first.Error() {
			t.Fatalf("run %d: %v, then %v", i, first, err)
		}
	}
	if want := `forwardedProps.a2uiClientCapabilities.supportedCatalogIds is not a list of strings`; first.Error() != want {
		t.Errorf("err = %v, want %s", first, want)
	}
}

// events is a backend that emits the given events between RUN_STARTED and
// RUN_FINISHED.
type events []agui.Event

func (e events) Run(ctx context.Context, req *agui.Request) iter.Seq2[agui.Event, error] {
	return func(yield func(agui.Event, error) bool) {
		all := append([]agui.Event{&agui.RunStarted{ThreadID: "t", RunID: "r"}}, e...)
		all = append(all, &agui.RunFinished{ThreadID: "t", RunID: "r"})
		for _, ev := range all {
			if !yield(ev, nil) {
				return
			}
		}
	}
}

func emitRun(t *testing.T, caps string, evs ...agui.Event) []agui.Event {
	t.Helper()
	in := &agui.RunAgentInput{ThreadID: "t", RunID: "r"}
	if caps != "" {
		in.ForwardedProps = agui.JSON(`{"a2uiClientCapabilities":` + caps + `}`)
	}
	var out []agui.Event
	for ev, err := range a2ui.Emit(mwValidator, nil)(events(evs)).Run(context.Background(), &agui.Request{Input: in}) {
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, ev)
	}
	return out
}

const surfaceOps = `{"a2ui_operations":[
 {"version":"v0.9.1","createSurface":{"surfaceId":"s1","catalogId":"https://a2ui.org/specification/v0_9/catalogs/basic/catalog.json","theme":{"primaryColor":"#112233","agentDisplayName":"Bot"}}},
 {"version":"v0.9","updateComponents":{"surfaceId":"s1","components":[
   {"id":"root","component":"Column","children":["title","list","total","go"]},
   {"id":"title","component":"Text","text":"Orders","variant":"h2"},
   {"id":"list","component":"List","children":{"componentId":"row","path":"/items"}},
   {"id":"row","component":"Text","text":{"path":"name"}},
   {"id":"total","component":"Text","text":{"call":"formatCurrency","args":{"value":{"path":"/total"},"currency":"USD"},"returnType":"string"}},
   {"id":"go","component":"Button","child":"goText","variant":"primary","action":{"event":{"name":"submit","context":{"id":{"path":"/id"},"n":2}}}},
   {"id":"goText","component":"Text","text":"Go"}]}},
 {"version":"v0.9","updateDataModel":{"surfaceId":"s1","path":"/","value":{"id":"A-1","total":12.5,"items":[{"name":"Tea"},{"name":"Cake"}],"meta":{"open":true,"tags":{"a":1}}}}}]}`

func snapshotOf(t *testing.T, evs []agui.Event) map[string]json.RawMessage {
	t.Helper()
	for _, e := range evs {
		if s, ok := e.(*agui.ActivitySnapshot); ok {
			var c map[string]json.RawMessage
			if err := json.Unmarshal(s.Content, &c); err != nil {
				t.Fatal(err)
			}
			return c
		}
	}
	t.Fatalf("no snapshot in %v", evs)
	return nil
}

// TestEmitV08 down-converts a surface for a client that declares only
// v0.8: the golden v0.8 messages, and the lossy parts listed under
// a2ui_issues.
func TestEmitV08(t *testing.T) {
	snap := &agui.ActivitySnapshot{MessageID: "m1", ActivityType: a2ui.ActivityType, Content: agui.JSON(surfaceOps), Replace: ptrTrue()}
	for _, caps := range []string{
		`{"supportedCatalogIds":["https://a2ui.org/specification/v0_8/standard_catalog_definition.json"]}`,
		`{"v0.8":{"supportedCatalogIds":["https://a2ui.org/specification/v0_8/standard_catalog_definition.json"]}}`,
	} {
		c := snapshotOf(t, emitRun(t, caps, snap))
		var ops []json.RawMessage
		_ = json.Unmarshal(c[a2ui.OperationsKey], &ops)
		want := []string{
			`{"beginRendering":{"catalogId":"https://a2ui.org/specification/v0_8/standard_catalog_definition.json","root":"root","styles":{"primaryColor":"#112233"},"surfaceId":"s1"}}`,
			`{"surfaceUpdate":{"components":[` +
				`{"component":{"Column":{"children":{"explicitList":["title","list","total","go"]}}},"id":"root"},` +
				`{"component":{"Text":{"text":{"literalString":"Orders"},"usageHint":"h2"}},"id":"title"},` +
				`{"component":{"List":{"children":{"template":{"componentId":"row","dataBinding":"/items"}}}},"id":"list"},` +
				`{"component":{"Text":{"text":{"path":"name"}}},"id":"row"},` +
				`{"component":{"Text":{"text":{"path":"/total"}}},"id":"total"},` +
				`{"component":{"Button":{"action":{"context":[{"key":"id","value":{"path":"/id"}},{"key":"n","value":{"literalNumber":2}}],"name":"submit"},"child":"goText","primary":true}},"id":"go"},` +
				`{"component":{"Text":{"text":{"literalString":"Go"}}},"id":"goText"}],"surfaceId":"s1"}}`,
			`{"dataModelUpdate":{"contents":[{"key":"id","valueString":"A-1"},{"key":"items","valueString":"[{\"name\":\"Tea\"},{\"name\":\"Cake\"}]"},` +
				`{"key":"meta","valueMap":[{"key":"open","valueBoolean":true},{"key":"tags","valueString":"{\"a\":1}"}]},{"key":"total","valueNumber":12.5}],"path":"/","surfaceId":"s1"}}`,
		}
		if len(ops) != len(want) {
			t.Fatalf("%d ops: %s", len(ops), c[a2ui.OperationsKey])
		}
		for i := range want {
			if string(ops[i]) != want[i] {
				t.Errorf("op %d:\n got %s\nwant %s", i, ops[i], want[i])
			}
		}
		var issues []struct {
			Rule, Path string
			Index      int
		}
		_ = json.Unmarshal(c[a2ui.IssuesKey], &issues)
		got := []string{}
		for _, e := range issues {
			got = append(got, e.Rule+" "+e.Path)
		}
		wantIssues := []string{"not_expressible_in_v08 /createSurface/theme/agentDisplayName", "not_expressible_in_v08 /updateComponents/components/4/text"}
		if strings.Join(got, ",") != strings.Join(wantIssues, ",") {
			t.Errorf("issues = %v, want %v", got, wantIssues)
		}
		// What goes out is valid v0.8: the v0.8 ingest takes it back
		// without refusing anything.
		up := mwValidator.Upgrade(ops, "")
		for _, e := range up.Issues {
			if e.Rule != a2ui.RuleV08NotExpressible {
				t.Errorf("v0.8 ingest refuses the output: %v", e)
			}
		}
	}
}

func ptrTrue() *bool { b := true; return &b }

// TestEmitVersionStamp stamps v0.9/v0.9.1 messages with the version the
// client declares: "v0.9" for a renderer that knows only v0.9.
func TestEmitVersionStamp(t *testing.T) {
	snap := &agui.ActivitySnapshot{MessageID: "m1", ActivityType: a2ui.ActivityType, Content: agui.JSON(surfaceOps), Replace: ptrTrue()}
	for caps, want := range map[string]string{
		`{"v0.9":{"supportedCatalogIds":[]}}`:                                     "v0.9",
		`{"v0.9":{"supportedCatalogIds":[]},"v0.9.1":{"supportedCatalogIds":[]}}`: "v0.9.1",
	} {
		c := snapshotOf(t, emitRun(t, caps, snap))
		var ops []map[string]json.RawMessage
		_ = json.Unmarshal(c[a2ui.OperationsKey], &ops)
		if len(ops) != 3 {
			t.Fatalf("%d ops", len(ops))
		}
		for i, op := range ops {
			if string(op["version"]) != `"`+want+`"` {
				t.Errorf("%s: op %d version %s, want %s", caps, i, op["version"], want)
			}
		}
		if _, ok := c[a2ui.IssuesKey]; ok {
			t.Errorf("issues for a version stamp: %s", c[a2ui.IssuesKey])
		}
	}
	// No declaration: the stream as it is.
	evs := emitRun(t, "", snap)
	if evs[1] != agui.Event(snap) {
		t.Errorf("snapshot changed without a declaration: %v", evs[1])
	}
}

// TestEmitV08Delta down-converts the messages a delta appends; what v0.8
// cannot say follows in a CUSTOM a2ui.issues event.
func TestEmitV08Delta(t *testing.T) {
	patch := `[{"op":"add","path":"/a2ui_operations/-","value":{"version":"v0.9","updateDataModel":{"surfaceId":"s1","path":"/total","value":3}}},` +
		`{"op":"add","path":"/a2ui_operations/-","value":{"version":"v0.9","updateDataModel":{"surfaceId":"s1","path":"/gone"}}}]`
	evs := emitRun(t, `{"supportedCatalogIds":[]}`, &agui.ActivityDelta{MessageID: "m1", ActivityType: a2ui.ActivityType, Patch: agui.JSON(patch)})
	if len(evs) != 4 {
		t.Fatalf("events: %v", evs)
	}
	d := evs[1].(*agui.ActivityDelta)
	want := `[{"op":"add","path":"/a2ui_operations/-","value":{"dataModelUpdate":{"contents":[{"key":".","valueNumber":3}],"path":"/total","surfaceId":"s1"}}}]`
	if string(d.Patch) != want {
		t.Errorf("patch:\n got %s\nwant %s", d.Patch, want)
	}
	c, ok := evs[2].(*agui.Custom)
	if !ok || c.Name != a2ui.IssuesEvent || !strings.Contains(string(c.Value), `"path":"/updateDataModel/value"`) || !strings.Contains(string(c.Value), `"index":1`) {
		t.Errorf("issues event: %#v", evs[2])
	}
}

// TestEmitBadCapabilities ends the run with RUN_ERROR (the edge refuses
// it with a 400 before a run starts).
func TestEmitBadCapabilities(t *testing.T) {
	evs := emitRun(t, `{"v0.8": 1}`)
	if len(evs) != 2 {
		t.Fatalf("events: %v", evs)
	}
	if e, ok := evs[1].(*agui.RunError); !ok || e.Code != "invalid_a2ui_capabilities" {
		t.Errorf("got %#v", evs[1])
	}
}
