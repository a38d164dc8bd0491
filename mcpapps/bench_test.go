package mcpapps_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"os"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/genui-adapter/genui-adapter/mcpapps"
	"github.com/genui-adapter/genui-adapter/mcpapps/mcpappstest"
)

// benchTool is the tool the benchmarks call: "refresh" on the Go fixture,
// or GENUI_BENCH_MCP_TOOL on the server at GENUI_BENCH_MCP_URL (e.g. the
// npm server-basic-vanillajs over HTTP with get-time).
func benchTool() string {
	if t := os.Getenv("GENUI_BENCH_MCP_TOOL"); t != "" {
		return t
	}
	return "refresh"
}

func httpFixture(b *testing.B) string {
	if u := os.Getenv("GENUI_BENCH_MCP_URL"); u != "" {
		return u
	}
	fx := mcpappstest.New()
	ts := httptest.NewServer(mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return fx.Server }, nil))
	b.Cleanup(func() { ts.CloseClientConnections(); ts.Close() })
	return ts.URL
}

// BenchmarkCallWarmPool is a proxied tools/call through the adapter's
// long-lived session (streamable HTTP on loopback).
func BenchmarkCallWarmPool(b *testing.B) {
	url := httpFixture(b)
	p, err := mcpapps.NewPool([]mcpapps.ServerConfig{{ID: "fx", URL: url}}, mcpapps.PoolOptions{})
	if err != nil {
		b.Fatal(err)
	}
	ctx := context.Background()
	if err := p.WaitReady(ctx); err != nil {
		b.Fatal(err)
	}
	for b.Loop() {
		if _, err := p.Call(ctx, nil, "fx", benchTool(), map[string]any{}); err != nil {
			b.Fatal(err)
		}
	}
	b.StopTimer()
	p.Close()
}

// BenchmarkCallFreshConnection is what @ag-ui/mcp-apps-middleware does: a
// new connection (initialize handshake) for every call.
func BenchmarkCallFreshConnection(b *testing.B) {
	url := httpFixture(b)
	ctx := context.Background()
	for b.Loop() {
		c := mcp.NewClient(&mcp.Implementation{Name: "fresh", Version: "1"}, nil)
		cs, err := c.Connect(ctx, &mcp.StreamableClientTransport{Endpoint: url}, &mcp.ClientSessionOptions{ProtocolVersion: "2025-11-25"})
		if err != nil {
			b.Fatal(err)
		}
		if _, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: benchTool(), Arguments: map[string]any{}}); err != nil {
			b.Fatal(err)
		}
		cs.Close()
	}
}
