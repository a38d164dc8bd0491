package mcpapps_test

import (
	"encoding/base64"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/genui-adapter/genui-adapter/mcpapps"
)

func TestSandbox(t *testing.T) {
	sb, err := mcpapps.NewSandbox("http://127.0.0.1:8081", nil, mcpapps.SandboxOptions{})
	if err != nil {
		t.Fatal(err)
	}
	ui := map[string]any{"csp": map[string]any{"connectDomains": []any{"https://api.example.com"}}}
	u, err := sb.URL(ui, "http://localhost:3000")
	if err != nil || !strings.HasPrefix(u, "http://127.0.0.1:8081/sandbox.html?t=") {
		t.Fatalf("URL = %q, %v", u, err)
	}
	get := func(target string) *httptest.ResponseRecorder {
		rec := httptest.NewRecorder()
		sb.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, target, nil))
		return rec
	}
	path := strings.TrimPrefix(u, "http://127.0.0.1:8081")
	rec := get(path)
	if rec.Code != 200 || rec.Header().Get("Content-Security-Policy") != mcpapps.CSP(ui) || rec.Header().Get("Cache-Control") != "no-store" {
		t.Fatalf("sandbox page: %d %v", rec.Code, rec.Header())
	}
	if !strings.Contains(rec.Body.String(), `const HOST = "http://localhost:3000"`) || !strings.Contains(rec.Body.String(), "sandbox-proxy-ready") {
		t.Errorf("proxy page does not pin the host origin:\n%s", rec.Body.String())
	}
	// A tampered ticket (a looser policy) is refused.
	tampered := path[:len(path)-3] + "AAA"
	if rec := get(tampered); rec.Code != http.StatusForbidden {
		t.Errorf("tampered ticket: %d", rec.Code)
	}
	if rec := get("/sandbox.html"); rec.Code != http.StatusForbidden {
		t.Errorf("no ticket: %d", rec.Code)
	}
	// The sandbox origin serves nothing else.
	for _, p := range []string{"/", "/agents", "/static/mcp-apps-host.js"} {
		if rec := get(p); rec.Code != http.StatusNotFound {
			t.Errorf("GET %s on the sandbox origin = %d, want 404", p, rec.Code)
		}
	}
	// Another key does not accept this ticket (tickets are signed).
	other, _ := mcpapps.NewSandbox("http://127.0.0.1:8081", []byte("another key"), mcpapps.SandboxOptions{})
	rec = httptest.NewRecorder()
	other.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, path, nil))
	if rec.Code != http.StatusForbidden {
		t.Errorf("ticket accepted under another key: %d", rec.Code)
	}
	if _, err := sb.URL(ui, "javascript:alert(1)"); err == nil {
		t.Error("a non-http host origin was accepted")
	}
	if rec := get(strings.Replace(path, "sandbox.html", "sandbox.html", 1)); !strings.Contains(rec.Body.String(), "window.top === window") {
		t.Error("the proxy page does not refuse to run at the top level")
	}
}

// NewSandbox's ttl is how long a ticket is valid (0: the default).
func TestSandboxTicketTTL(t *testing.T) {
	for _, tt := range []struct{ ttl, want time.Duration }{{0, mcpapps.DefaultSandboxTicketTTL}, {time.Minute, time.Minute}} {
		sb, err := mcpapps.NewSandbox("http://127.0.0.1:8081", nil, mcpapps.SandboxOptions{TicketTTL: tt.ttl})
		if err != nil {
			t.Fatal(err)
		}
		u, err := sb.URL(nil, "http://localhost:3000")
		if err != nil {
			t.Fatal(err)
		}
		payload, _, _ := strings.Cut(u[strings.Index(u, "?t=")+3:], ".")
		b, err := base64.RawURLEncoding.DecodeString(payload)
		var tk struct {
			Exp int64 `json:"e"`
		}
		if err != nil || json.Unmarshal(b, &tk) != nil {
			t.Fatalf("ticket %q: %v", payload, err)
		}
		if got := time.Until(time.Unix(tk.Exp, 0)); got < tt.want-5*time.Second || got > tt.want+time.Second {
			t.Errorf("ttl %v: the ticket is valid for %v, want %v", tt.ttl, got, tt.want)
		}
	}
}
