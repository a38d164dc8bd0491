package adapter

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/genui-adapter/genui-adapter/a2ui"
	"github.com/genui-adapter/genui-adapter/agui"
	"github.com/genui-adapter/genui-adapter/agui/a2a"
	"github.com/genui-adapter/genui-adapter/agui/aguihttp"
)

// A v0.8 A2A agent (card with the v0.8 extension, one message per
// DataPart, beginRendering last, as the official examples order them) is
// shown as one v0.9.1 surface; a v0.9.1 message on its surface is left
// out and reported in a2ui.errors, the rest applied.
func TestA2AV08AgentConverted(t *testing.T) {
	part := func(msg string) string {
		return `{"kind":"artifact-update","taskId":"T1","artifact":{"artifactId":"a","parts":[{"kind":"data","data":` + msg + `,"metadata":{"mimeType":"application/json+a2ui"}}]}}`
	}
	results := []string{
		`{"kind":"task","id":"T1","contextId":"C","status":{"state":"working"}}`,
		part(`{"surfaceUpdate":{"surfaceId":"s","components":[{"id":"top","component":{"Text":{"text":{"path":"/greeting"},"usageHint":"h2"}}}]}}`),
		part(`{"dataModelUpdate":{"surfaceId":"s","contents":[{"key":"greeting","valueString":"Hello from v0.8"}]}}`),
		part(`{"beginRendering":{"surfaceId":"s","root":"top"}}`),
		part(`{"version":"v0.9.1","updateDataModel":{"surfaceId":"s","path":"/greeting","value":"mixed"}}`),
		`{"kind":"status-update","taskId":"T1","status":{"state":"completed"},"final":true}`,
	}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if strings.HasSuffix(r.URL.Path, "agent-card.json") {
			fmt.Fprintf(w, `{"name":"v08","url":"http://%s/rpc","protocolVersion":"0.3.0","capabilities":{"extensions":[{"uri":%q}]}}`, r.Host, a2a.ExtensionV08)
			return
		}
		w.Header().Set("Content-Type", "text/event-stream")
		for _, res := range results {
			fmt.Fprintf(w, "data: {\"jsonrpc\":\"2.0\",\"id\":1,\"result\":%s}\n\n", res)
		}
	}))
	defer srv.Close()
	v := a2ui.MustValidator(a2ui.Options{})
	agent := &a2a.Agent{Upstream: aguihttp.Upstream{URL: srv.URL}, NewCheck: a2uiCheck(v)}
	in := &agui.RunAgentInput{ThreadID: "t", RunID: "r", Messages: []agui.Message{{ID: "u", Role: agui.RoleUser, Content: agui.Text("hi")}}}
	var snaps []*agui.ActivitySnapshot
	var errs []string
	for ev, err := range agent.Run(context.Background(), &agui.Request{Input: in}) {
		if err != nil {
			t.Fatal(err)
		}
		switch e := ev.(type) {
		case *agui.ActivitySnapshot:
			snaps = append(snaps, e)
		case *agui.Custom:
			if e.Name == "a2ui.errors" {
				errs = append(errs, string(e.Value))
			}
		}
	}
	if len(snaps) != 1 {
		t.Fatalf("%d snapshots, want 1 (at beginRendering)", len(snaps))
	}
	var content struct {
		Ops []json.RawMessage `json:"a2ui_operations"`
	}
	json.Unmarshal(snaps[0].Content, &content)
	var ops [][]byte
	for _, o := range content.Ops {
		ops = append(ops, o)
	}
	if len(ops) != 3 {
		t.Fatalf("operations: %s", snaps[0].Content)
	}
	if verrs := v.ValidateBatch(ops); len(verrs) > 0 {
		t.Errorf("converted surface fails v0.9.1: %v", verrs)
	}
	all := string(snaps[0].Content)
	for _, want := range []string{`"component":"Text","id":"root","text":{"path":"/greeting"},"variant":"h2"`, `"value":{"greeting":"Hello from v0.8"}`} {
		if !strings.Contains(all, want) {
			t.Errorf("surface lacks %s: %s", want, all)
		}
	}
	if len(errs) != 1 || !strings.Contains(errs[0], a2ui.RuleMixedVersions) {
		t.Errorf("a2ui.errors = %v", errs)
	}
}
