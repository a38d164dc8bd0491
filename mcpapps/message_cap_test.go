package mcpapps_test

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/genui-adapter/genui-adapter/mcpapps"
)

// TestServerMessageCapped: an HTTP MCP server's message larger than
// PoolOptions.MaxMessageBytes fails its call with an error naming the
// cap, whether the server answers with a JSON body (which the MCP SDK
// reads whole) or an SSE event; smaller ones go through, and so do calls
// after the connection is made again.
func TestServerMessageCapped(t *testing.T) {
	for _, jsonResponse := range []bool{true, false} {
		name := "sse"
		if jsonResponse {
			name = "json"
		}
		t.Run(name, func(t *testing.T) {
			s := mcp.NewServer(&mcp.Implementation{Name: "big", Version: "1"}, nil)
			s.AddTool(&mcp.Tool{Name: "text", InputSchema: map[string]any{"type": "object", "properties": map[string]any{"n": map[string]any{"type": "integer"}}}},
				func(_ context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
					var args struct{ N int }
					_ = json.Unmarshal(req.Params.Arguments, &args)
					return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: strings.Repeat("x", args.N)}}}, nil
				})
			ts := httptest.NewServer(mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return s }, &mcp.StreamableHTTPOptions{JSONResponse: jsonResponse}))
			defer ts.Close()
			p, err := mcpapps.NewPool([]mcpapps.ServerConfig{{ID: "big", URL: ts.URL}}, mcpapps.PoolOptions{Logger: testLogger(t), MaxMessageBytes: 64 << 10})
			if err != nil {
				t.Fatal(err)
			}
			defer p.Close()
			ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
			defer cancel()
			if err := p.WaitReady(ctx); err != nil {
				t.Fatal(err)
			}
			if _, err := p.Call(ctx, nil, "big", "text", map[string]any{"n": 1000}); err != nil {
				t.Fatalf("a small result: %v", err)
			}
			short, cancelShort := context.WithTimeout(ctx, 5*time.Second)
			_, err = p.Call(short, nil, "big", "text", map[string]any{"n": 200 << 10})
			cancelShort()
			if err == nil {
				t.Fatal("a 200 KiB result went through a 64 KiB cap")
			}
			if jsonResponse && !strings.Contains(err.Error(), "larger than 65536 bytes") {
				t.Errorf("the error does not name the cap: %v", err)
			}
			for {
				if _, err := p.Call(ctx, nil, "big", "text", map[string]any{"n": 1000}); err == nil {
					break
				} else if ctx.Err() != nil {
					t.Fatalf("no call went through after the large one: %v", err)
				}
				time.Sleep(50 * time.Millisecond)
			}
		})
	}
}
