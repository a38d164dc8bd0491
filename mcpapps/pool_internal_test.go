package mcpapps

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// A View (resources/read) or a server may name a new ui:// URI each time
// (a resource template): the UI resources kept per connection stay
// within PoolOptions.MaxKeptResources, and so do the inline ones.
func TestUIResourceCacheBounded(t *testing.T) {
	for _, tt := range []struct {
		max, want int
	}{{0, DefaultMaxKeptResources}, {2, 2}} {
		t.Run(fmt.Sprint(tt.max), func(t *testing.T) {
			srv := mcp.NewServer(&mcp.Implementation{Name: "tpl", Version: "1"}, nil)
			srv.AddResourceTemplate(&mcp.ResourceTemplate{URITemplate: "ui://tpl/{id}", Name: "view", MIMEType: MIMEType}, func(ctx context.Context, req *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
				return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{{URI: req.Params.URI, MIMEType: MIMEType, Text: "<!doctype html><p>x</p>"}}}, nil
			})
			p, err := NewPool([]ServerConfig{{ID: "tpl", Transport: func() mcp.Transport {
				st, ct := mcp.NewInMemoryTransports()
				go srv.Connect(context.Background(), st, nil)
				return ct
			}}}, PoolOptions{MaxKeptResources: tt.max})
			if err != nil {
				t.Fatal(err)
			}
			defer p.Close()
			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			defer cancel()
			who := &Caller{Principal: "mallory", ThreadID: "t"}
			for i := range tt.want + 50 {
				uri := fmt.Sprintf("ui://tpl/%d", i)
				if _, err := p.UIResource(ctx, who, "tpl", uri); err != nil {
					t.Fatal(err)
				}
				if _, err := p.keepInline("tpl", who, &mcp.ResourceContents{URI: uri + "/inline", MIMEType: MIMEType, Text: "<p>y</p>"}); err != nil {
					t.Fatal(err)
				}
			}
			s := p.servers["tpl"]
			s.mu.Lock()
			n, inline := len(s.resources), len(s.inline)
			s.mu.Unlock()
			if n != tt.want || inline != tt.want {
				t.Errorf("%d UI resources and %d inline ones kept, want %d each", n, inline, tt.want)
			}
		})
	}
}

// PoolOptions.MaxInstructionBytes cuts a server's instructions.
func TestMaxInstructionBytes(t *testing.T) {
	long := strings.Repeat("i", DefaultMaxInstructionBytes+100)
	for _, tt := range []struct {
		max, want int
	}{{0, DefaultMaxInstructionBytes}, {10, 10}} {
		t.Run(fmt.Sprint(tt.max), func(t *testing.T) {
			srv := mcp.NewServer(&mcp.Implementation{Name: "ins", Version: "1"}, &mcp.ServerOptions{Instructions: long})
			p, err := NewPool([]ServerConfig{{ID: "ins", Transport: func() mcp.Transport {
				st, ct := mcp.NewInMemoryTransports()
				go srv.Connect(context.Background(), st, nil)
				return ct
			}}}, PoolOptions{MaxInstructionBytes: tt.max})
			if err != nil {
				t.Fatal(err)
			}
			defer p.Close()
			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			defer cancel()
			if err := p.WaitReady(ctx); err != nil {
				t.Fatal(err)
			}
			if got := len(p.Instructions("ins")); got != tt.want {
				t.Errorf("instructions are %d bytes, want %d", got, tt.want)
			}
		})
	}
}

// PoolOptions.MaxCSPDomains caps each domain list a UI resource's
// _meta.ui.csp declares: the first ones are kept, the rest dropped, and
// the card still renders.
func TestMaxCSPDomains(t *testing.T) {
	domains := func(n int) []any {
		out := make([]any, n)
		for i := range out {
			out[i] = fmt.Sprintf("https://d%d.example.com", i)
		}
		return out
	}
	for _, tt := range []struct {
		max, declared, want int
	}{{0, DefaultMaxCSPDomains + 1, DefaultMaxCSPDomains}, {0, DefaultMaxCSPDomains, DefaultMaxCSPDomains}, {2, 5, 2}} {
		t.Run(fmt.Sprint(tt.max, "/", tt.declared), func(t *testing.T) {
			ui := map[string]any{"csp": map[string]any{"resourceDomains": domains(tt.declared), "connectDomains": domains(tt.declared)}}
			srv := mcp.NewServer(&mcp.Implementation{Name: "csp", Version: "1"}, nil)
			srv.AddResource(&mcp.Resource{URI: "ui://csp/view", Name: "view", MIMEType: MIMEType}, func(ctx context.Context, req *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
				return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{{URI: req.Params.URI, MIMEType: MIMEType, Text: "<p>x</p>", Meta: mcp.Meta{"ui": ui}}}}, nil
			})
			p, err := NewPool([]ServerConfig{{ID: "csp", Transport: func() mcp.Transport {
				st, ct := mcp.NewInMemoryTransports()
				go srv.Connect(context.Background(), st, nil)
				return ct
			}}}, PoolOptions{MaxCSPDomains: tt.max})
			if err != nil {
				t.Fatal(err)
			}
			defer p.Close()
			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			defer cancel()
			who := &Caller{Principal: "p", ThreadID: "t"}
			read, err := p.UIResource(ctx, who, "csp", "ui://csp/view")
			if err != nil {
				t.Fatal(err)
			}
			inline, err := p.keepInline("csp", who, &mcp.ResourceContents{URI: "ui://csp/inline", MIMEType: MIMEType, Text: "<p>y</p>", Meta: mcp.Meta{"ui": ui}})
			if err != nil {
				t.Fatal(err)
			}
			for _, r := range []*Resource{read, inline} {
				policy := CSP(r.UI)
				for _, dir := range []string{"script-src", "connect-src"} {
					n := 0
					for d := range strings.SplitSeq(policy, "; ") {
						if strings.HasPrefix(d, dir+" ") {
							n = strings.Count(d, ".example.com")
						}
					}
					if n != tt.want {
						t.Errorf("%s: %s allows %d declared domains, want %d", r.URI, dir, n, tt.want)
					}
				}
				if tt.want < tt.declared && strings.Contains(policy, fmt.Sprintf("https://d%d.example.com", tt.want)) {
					t.Errorf("%s: a domain past the cap is allowed: %s", r.URI, policy)
				}
			}
			if got := len(ui["csp"].(map[string]any)["resourceDomains"].([]any)); got != tt.declared {
				t.Errorf("the server's _meta.ui was changed: %d domains, want %d", got, tt.declared)
			}
		})
	}
}
