package mcpapps

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// A View (resources/read) or a server may name a new ui:// URI each time
// (a resource template): the UI resources kept per connection stay
// bounded.
func TestUIResourceCacheBounded(t *testing.T) {
	srv := mcp.NewServer(&mcp.Implementation{Name: "tpl", Version: "1"}, nil)
	srv.AddResourceTemplate(&mcp.ResourceTemplate{URITemplate: "ui://tpl/{id}", Name: "view", MIMEType: MIMEType}, func(ctx context.Context, req *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
		return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{{URI: req.Params.URI, MIMEType: MIMEType, Text: "<!doctype html><p>x</p>"}}}, nil
	})
	p, err := NewPool([]ServerConfig{{ID: "tpl", Transport: func() mcp.Transport {
		st, ct := mcp.NewInMemoryTransports()
		go srv.Connect(context.Background(), st, nil)
		return ct
	}}}, PoolOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	for i := range maxKeptResources + 50 {
		if _, err := p.UIResource(ctx, &Caller{Principal: "mallory", ThreadID: "t"}, "tpl", fmt.Sprintf("ui://tpl/%d", i)); err != nil {
			t.Fatal(err)
		}
	}
	s := p.servers["tpl"]
	s.mu.Lock()
	n := len(s.resources)
	s.mu.Unlock()
	if n > maxKeptResources {
		t.Errorf("%d UI resources kept, at most %d", n, maxKeptResources)
	}
}
