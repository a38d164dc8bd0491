package dataview_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/genui-adapter/genui-adapter/mcpapps"
	"github.com/genui-adapter/genui-adapter/mcpapps/dataview"
)

// TestBuiltinServer drives the genui server through a real go-sdk client
// (the adapter's pool): tools, visibility, the View resource and CSP.
func TestBuiltinServer(t *testing.T) {
	srv := dataview.NewServer()
	p, err := mcpapps.NewPool([]mcpapps.ServerConfig{{ID: dataview.ServerID, Transport: func() mcp.Transport {
		st, ct := mcp.NewInMemoryTransports()
		if _, err := srv.Connect(context.Background(), st, nil); err != nil {
			t.Error(err)
		}
		return ct
	}}}, mcpapps.PoolOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	ctx := context.Background()
	if err := p.WaitReady(ctx); err != nil {
		t.Fatal(err)
	}
	show, ok1 := p.Tool("genui", "show_data")
	refresh, ok2 := p.Tool("genui", "refresh")
	if !ok1 || !ok2 || show.ResourceURI != dataview.ResourceURI || !show.ModelVisible() || refresh.ModelVisible() || !refresh.AppVisible() {
		t.Fatalf("catalogue: %+v %+v", show, refresh)
	}
	r, err := p.UIResource(ctx, nil, "genui", dataview.ResourceURI)
	if err != nil || !strings.Contains(r.HTML, "ui/initialize") || !strings.Contains(r.HTML, "ui/notifications/size-changed") {
		t.Fatalf("resource: %v", err)
	}
	if mcpapps.CSP(r.UI) != mcpapps.DefaultCSP {
		t.Errorf("CSP = %q, want the spec default (no external domains)", mcpapps.CSP(r.UI))
	}
	res, err := p.Call(ctx, nil, "genui", "show_data", map[string]any{"title": "Sales", "data": map[string]any{"north": 12, "south": 7}})
	if err != nil || res.IsError {
		t.Fatalf("show_data: %v %+v", err, res)
	}
	b, _ := json.Marshal(res.StructuredContent)
	if string(b) != `{"data":{"north":12,"south":7},"kind":"data","title":"Sales","tool":"show_data"}` {
		t.Errorf("structuredContent = %s", b)
	}
	if res, _ := p.Call(ctx, nil, "genui", "show_data", map[string]any{}); res == nil || !res.IsError {
		t.Errorf("show_data without data: %+v", res)
	}
}
