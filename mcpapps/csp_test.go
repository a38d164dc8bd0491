package mcpapps_test

import (
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/genui-adapter/genui-adapter/mcpapps"
)

func TestParseSource(t *testing.T) {
	for _, tt := range []struct {
		in, want string // want "" = refused
	}{
		{"https://cdn.example.com", "https://cdn.example.com"},
		{"HTTPS://CDN.Example.com", "https://cdn.example.com"},
		{"https://*.tiles.org", "https://*.tiles.org"},
		{"*.example.com", "*.example.com"},
		{"cdn.example.com", "cdn.example.com"},
		{"wss://ws.example.com:8443", "wss://ws.example.com:8443"},
		{"https://api.example.com/v1/", "https://api.example.com/v1/"},
		{"localhost:3000", "localhost:3000"},
		{"http://127.0.0.1:9000", "http://127.0.0.1:9000"},
		// Hostile or too wide: dropped, never copied.
		{"https://a.com\f*", ""},
		{"https://a.com\x00", ""},
		{"https://a.com\v", ""},
		{"https://a.com *", ""},
		{"https://a.com\n*", ""},
		{"https://a.com\u00a0*", ""},
		{"https://a.com;script-src *", ""},
		{"https://a.com,https://b.com", ""},
		{"'unsafe-eval'", ""},
		{"'self'", ""},
		{"*", ""},
		{"https://*", ""},
		{"*:*", ""},
		{"http://*:*", ""},
		{"https://a.com:*", ""},
		{"*.com", ""},
		{"https://*.com", ""},
		{"https:", ""},
		{"data:", ""},
		{"blob:", ""},
		{"javascript:alert(1)", ""},
		{"ftp://files.example.com", ""},
		{"https://user:pw@a.com", ""},
		{"https://[::1]:80", ""},
		{"https://a*.com", ""},
		{"https://a.*.com", ""},
		{"https://-a.com", ""},
		{"https://a.com/path'", ""},
		{"https://a.com/p?q=1", ""},
		{"", ""},
		{strings.Repeat("a", 600) + ".com", ""},
	} {
		got, ok := mcpapps.ParseSource(tt.in)
		if (tt.want == "") == ok || got != tt.want {
			t.Errorf("ParseSource(%q) = %q, %v; want %q", tt.in, got, ok, tt.want)
		}
	}
}

// fixedSources are what a policy may hold beyond declared domains.
var fixedSources = []string{"'none'", "'self'", "'unsafe-inline'", "data:"}

var directives = []string{"default-src", "script-src", "style-src", "img-src", "media-src", "font-src", "connect-src", "frame-src", "base-uri", "object-src", "form-action"}

// checkPolicy fails unless every source of every directive is a fixed one
// or a declared domain as ParseSource accepts it, and the header holds no
// byte a browser would split or choke on.
func checkPolicy(t *testing.T, policy string, declared []string) {
	t.Helper()
	allowed := map[string]bool{}
	for _, d := range declared {
		if s, ok := mcpapps.ParseSource(d); ok {
			allowed[s] = true
		}
	}
	for i := 0; i < len(policy); i++ {
		if c := policy[i]; c < 0x20 || c >= 0x7f {
			t.Fatalf("policy holds byte %#x: %q", c, policy)
		}
	}
	seen := map[string]bool{}
	for _, dir := range strings.Split(policy, "; ") {
		f := strings.Split(dir, " ")
		if !slices.Contains(directives, f[0]) || seen[f[0]] {
			t.Fatalf("unexpected directive %q in %q", f[0], policy)
		}
		seen[f[0]] = true
		for _, src := range f[1:] {
			if !slices.Contains(fixedSources, src) && !allowed[src] {
				t.Fatalf("source %q was not declared (declared %q)", src, declared)
			}
			if src == "*" || strings.HasSuffix(src, ":*") || src == "https:" || src == "http:" {
				t.Fatalf("wide source %q in %q", src, policy)
			}
		}
	}
}

// TestCSPNeverAllowsMoreThanDeclared is the property: whatever the declared
// domains, the emitted header allows no origin that was not declared (in
// its parsed form), injects no directive and holds no separator byte.
func TestCSPNeverAllowsMoreThanDeclared(t *testing.T) {
	pieces := []string{"https://", "http://", "wss://", "*.", "*", "a", "b.com", ".", ":", "443", "/", "x", ";", " ", "\f", "\t", "\n", "\x00", "'", "\"", ",", "self", "data:", "-", "é", "\u2028", "example.org", "script-src", "%", "@"}
	r := rand.New(rand.NewPCG(1, 2))
	for range 20000 {
		var declared []string
		for range r.IntN(4) {
			var b strings.Builder
			for range 1 + r.IntN(6) {
				b.WriteString(pieces[r.IntN(len(pieces))])
			}
			declared = append(declared, b.String())
		}
		list := make([]any, len(declared))
		for i, d := range declared {
			list[i] = d
		}
		key := []string{"resourceDomains", "connectDomains", "frameDomains", "baseUriDomains"}[r.IntN(4)]
		policy := mcpapps.CSP(map[string]any{"csp": map[string]any{key: list}})
		checkPolicy(t, policy, declared)
	}
	checkPolicy(t, mcpapps.DefaultCSP, nil)
	if !strings.Contains(mcpapps.DefaultCSP, "base-uri 'none'") || !strings.Contains(mcpapps.DefaultCSP, "form-action 'none'") {
		t.Errorf("the default policy lacks base-uri or form-action: %s", mcpapps.DefaultCSP)
	}
	if p := mcpapps.CSP(map[string]any{"csp": map[string]any{"baseUriDomains": []any{"https://base.example.com"}}}); !strings.Contains(p, "base-uri https://base.example.com") || !strings.Contains(p, "form-action 'none'") {
		t.Errorf("declared base-uri: %s", p)
	}
}

// FuzzParseSource: an accepted source is printable ASCII without
// separators, and parsing it again gives the same source.
func FuzzParseSource(f *testing.F) {
	for _, s := range []string{"https://a.com", "*.x.org:8080/p", "https://a.com\f*", "*:*"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		got, ok := mcpapps.ParseSource(s)
		if !ok {
			return
		}
		if strings.ContainsAny(got, " ;,'\"") || got == "*" {
			t.Fatalf("ParseSource(%q) = %q", s, got)
		}
		checkPolicy(t, mcpapps.CSP(map[string]any{"csp": map[string]any{"connectDomains": []any{s}}}), []string{s})
		if again, ok := mcpapps.ParseSource(got); !ok || again != got {
			t.Fatalf("not stable: %q -> %q -> %q", s, got, again)
		}
	})
}
