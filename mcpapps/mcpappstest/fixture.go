// Package mcpappstest provides a go-sdk MCP App fixture server for tests:
// UI tools with nested and flat _meta, app-only and model-only tools, a
// resource with CSP metadata, a wrong MIME type and a non-ui:// URI.
package mcpappstest

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Instructions is the guidance the fixture gives in initialize.
const Instructions = "Call weather with a city name; temperatures are in Celsius."

// InlineHTML is the UI the inline_ui tool carries in its result.
const InlineHTML = "<!doctype html><html><body><h1>Inline</h1></body></html>"

// CounterA2UI is the counter tool's surface.
const CounterA2UI = `[{"version":"v0.9","createSurface":{"surfaceId":"counter","catalogId":"https://a2ui.org/specification/v0_9/catalogs/basic/catalog.json"}},` +
	`{"version":"v0.9","updateComponents":{"surfaceId":"counter","components":[{"id":"root","component":"Column","children":["n","inc"]},` +
	`{"id":"n","component":"Text","text":{"path":"/count"}},{"id":"inc","component":"Button","child":"incl","action":{"event":{"name":"increment","context":{"step":1}}}},` +
	`{"id":"incl","component":"Text","text":"Add one"}]}},` +
	`{"version":"v0.9","updateDataModel":{"surfaceId":"counter","path":"/count","value":0}}]`

func declaresA2UI(ss *mcp.ServerSession) bool {
	ip := ss.InitializeParams()
	if ip == nil || ip.Capabilities == nil {
		return false
	}
	ext, _ := ip.Capabilities.Extensions["io.modelcontextprotocol/ui"].(map[string]any)
	types, _ := ext["mimeTypes"].([]any)
	for _, t := range types {
		if t == "application/a2ui+json" {
			return true
		}
	}
	return false
}

// HTML is the fixture's UI resource body.
const HTML = "<!doctype html><html><body><h1>Weather</h1></body></html>"

// Server is the fixture. Barrier, when set, makes "slow" wait until it is
// closed (to prove calls run in parallel).
type Server struct {
	*mcp.Server
	mu      sync.Mutex
	Calls   []string
	Barrier chan struct{}
	Arrived chan string
	// Callers holds, per call, the _meta["genui-adapter/caller"] it
	// carried (nil when absent).
	Callers []map[string]any
	count   float64
}

func (s *Server) record(name string, meta mcp.Meta) {
	c, _ := meta["genui-adapter/caller"].(map[string]any)
	s.mu.Lock()
	s.Calls = append(s.Calls, name)
	s.Callers = append(s.Callers, c)
	s.mu.Unlock()
}

// LastCaller returns the caller metadata of the last call.
func (s *Server) LastCaller() map[string]any {
	s.mu.Lock()
	defer s.mu.Unlock()
	if len(s.Callers) == 0 {
		return nil
	}
	return s.Callers[len(s.Callers)-1]
}

// CallCount returns how many calls the named tool got.
func (s *Server) CallCount(name string) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	n := 0
	for _, c := range s.Calls {
		if c == name {
			n++
		}
	}
	return n
}

func text(t string) []mcp.Content { return []mcp.Content{&mcp.TextContent{Text: t}} }

// New builds the fixture server.
func New() *Server {
	s := &Server{Server: mcp.NewServer(&mcp.Implementation{Name: "fixture", Version: "1.0.0"}, &mcp.ServerOptions{
		Instructions: Instructions,
		// The MCP Apps extension declared back, as servers may.
		Capabilities: &mcp.ServerCapabilities{Extensions: map[string]any{"io.modelcontextprotocol/ui": map[string]any{"mimeTypes": []string{"text/html;profile=mcp-app"}}}},
	}), Arrived: make(chan string, 16)}
	obj := map[string]any{"type": "object"}
	add := func(t *mcp.Tool, h func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error)) {
		t.InputSchema = obj
		s.AddTool(t, func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			s.record(t.Name, req.Params.Meta)
			return h(ctx, req)
		})
	}
	add(&mcp.Tool{Name: "weather", Description: "Weather for a city", Meta: mcp.Meta{
		"ui":             map[string]any{"resourceUri": "ui://fx/weather.html", "visibility": []string{"model", "app"}},
		"ui/resourceUri": "ui://fx/weather.html",
	}}, func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return &mcp.CallToolResult{Content: text("Sunny, 21°C"), StructuredContent: map[string]any{"tempC": 21}, Meta: mcp.Meta{"viewUUID": "v1"}}, nil
	})
	add(&mcp.Tool{Name: "legacy", Description: "Flat _meta only", Meta: mcp.Meta{"ui/resourceUri": "ui://fx/legacy.html"}},
		func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return &mcp.CallToolResult{Content: []mcp.Content{}, StructuredContent: map[string]any{"rows": []int{1, 2}}}, nil
		})
	add(&mcp.Tool{Name: "refresh", Description: "App-only", Meta: mcp.Meta{"ui": map[string]any{"visibility": []string{"app"}}}},
		func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return &mcp.CallToolResult{Content: text("refreshed")}, nil
		})
	add(&mcp.Tool{Name: "secret", Description: "Model-only", Meta: mcp.Meta{"ui": map[string]any{"visibility": []string{"model"}}}},
		func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return &mcp.CallToolResult{Content: text("secret")}, nil
		})
	add(&mcp.Tool{Name: "string_vis", Description: "visibility is the string \"app\", not a list", Meta: mcp.Meta{"ui": map[string]any{"visibility": "app"}}},
		func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return &mcp.CallToolResult{Content: text("string_vis")}, nil
		})
	add(&mcp.Tool{Name: "odd_vis", Description: "visibility is a number", Meta: mcp.Meta{"ui": map[string]any{"visibility": 7}}},
		func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return &mcp.CallToolResult{Content: text("odd_vis")}, nil
		})
	add(&mcp.Tool{Name: "bad_uri", Description: "Names a non-ui:// UI", Meta: mcp.Meta{"ui": map[string]any{"resourceUri": "https://evil.example.com/x.html"}}},
		func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return &mcp.CallToolResult{Content: text("ok")}, nil
		})
	add(&mcp.Tool{Name: "wrong_mime", Description: "UI with a wrong MIME type", Meta: mcp.Meta{"ui": map[string]any{"resourceUri": "ui://fx/wrong.html"}}},
		func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return &mcp.CallToolResult{Content: text("ok")}, nil
		})
	add(&mcp.Tool{Name: "inline_ui", Description: "Carries its UI in the result"}, func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return &mcp.CallToolResult{Content: []mcp.Content{
			&mcp.TextContent{Text: "shown inline"},
			&mcp.EmbeddedResource{Resource: &mcp.ResourceContents{URI: "ui://fx/inline.html", MIMEType: "text/html;profile=mcp-app", Text: InlineHTML}},
		}}, nil
	})
	add(&mcp.Tool{Name: "broken_ui", Description: "A UI tool whose call fails", Meta: mcp.Meta{"ui": map[string]any{"resourceUri": "ui://fx/weather.html"}}},
		func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return nil, errors.New("the weather service is down")
		})
	// counter returns A2UI (application/a2ui+json) to hosts that declare
	// it, as the draft A2UI-over-MCP-Apps extension says; increment (app
	// only) answers the surface's button with a data model update.
	add(&mcp.Tool{Name: "counter", Description: "A counter surface in A2UI"}, func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		if !declaresA2UI(req.Session) {
			return &mcp.CallToolResult{Content: text("the host does not render A2UI")}, nil
		}
		return &mcp.CallToolResult{Content: []mcp.Content{
			&mcp.TextContent{Text: "Counter at 0."},
			&mcp.EmbeddedResource{Resource: &mcp.ResourceContents{URI: "a2ui://counter", MIMEType: "application/a2ui+json", Text: CounterA2UI}},
		}}, nil
	})
	add(&mcp.Tool{Name: "increment", Description: "Adds step to the counter (app only)", Meta: mcp.Meta{"ui": map[string]any{"visibility": []string{"app"}}}},
		func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			var args struct {
				Step float64 `json:"step"`
			}
			_ = json.Unmarshal(req.Params.Arguments, &args)
			s.mu.Lock()
			s.count += args.Step
			n := s.count
			s.mu.Unlock()
			upd := fmt.Sprintf(`{"version":"v0.9","updateDataModel":{"surfaceId":"counter","path":"/count","value":%v}}`, n)
			return &mcp.CallToolResult{Content: []mcp.Content{
				&mcp.EmbeddedResource{Resource: &mcp.ResourceContents{URI: "a2ui://counter", MIMEType: "application/a2ui+json", Text: upd}},
			}}, nil
		})
	add(&mcp.Tool{Name: "slow", Description: "Waits for the barrier"}, func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		s.Arrived <- "slow"
		if s.Barrier != nil {
			select {
			case <-s.Barrier:
			case <-ctx.Done():
				return nil, ctx.Err()
			}
		}
		return &mcp.CallToolResult{Content: text("slow done")}, nil
	})
	res := func(uri, mime string, meta mcp.Meta, listMeta mcp.Meta) {
		s.AddResource(&mcp.Resource{URI: uri, Name: uri, MIMEType: mime, Meta: listMeta}, func(ctx context.Context, req *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
			return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{{URI: uri, MIMEType: mime, Text: HTML, Meta: meta}}}, nil
		})
	}
	res("ui://fx/weather.html", "text/html;profile=mcp-app", mcp.Meta{"ui": map[string]any{
		"csp":           map[string]any{"connectDomains": []string{"https://api.example.com"}, "resourceDomains": []string{"https://cdn.example.com", "https://x.com; script-src *"}},
		"permissions":   map[string]any{"geolocation": map[string]any{}},
		"prefersBorder": true,
	}}, mcp.Meta{"ui": map[string]any{"prefersBorder": false, "csp": map[string]any{"connectDomains": []string{"https://listing.example.com"}}}})
	res("ui://fx/legacy.html", "text/html;profile=mcp-app", nil, mcp.Meta{"ui": map[string]any{"prefersBorder": false}})
	res("ui://fx/wrong.html", "text/html", nil, nil)
	// A data resource: for the model, never for a card.
	s.AddResource(&mcp.Resource{URI: "file://fx/secret.json", Name: "secret data", MIMEType: "application/json"}, func(ctx context.Context, req *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
		return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{{URI: "file://fx/secret.json", MIMEType: "application/json", Text: `{"secret":42}`}}}, nil
	})
	return s
}
