package mcpapps

import (
	"bytes"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"embed"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"html/template"
	"net/http"
	"net/url"
	"strings"
	"time"
)

//go:embed assets/sandbox.html assets/mcp-apps-host.js
var assets embed.FS

// HostScript is the host bridge script (served as /static/mcp-apps-host.js).
func HostScript() []byte {
	b, _ := assets.ReadFile("assets/mcp-apps-host.js")
	return b
}

// Sandbox mints and checks the tokens that carry a card's CSP to the
// sandbox origin, and serves the sandbox proxy page. The policy comes only
// from the resource's metadata as read by the adapter, never from the
// client. Safe for concurrent use.
type Sandbox struct {
	key     []byte
	origin  string // public origin of the sandbox listener
	ttl     time.Duration
	isolate bool // SandboxOptions.IsolateCards
}

// DefaultSandboxTicketTTL is how long a sandbox ticket is valid unless
// NewSandbox is given another lifetime.
const DefaultSandboxTicketTTL = 10 * time.Minute

// SandboxOptions are a Sandbox's settings.
type SandboxOptions struct {
	// TicketTTL is how long a ticket is valid (0: DefaultSandboxTicketTTL).
	TicketTTL time.Duration
	// IsolateCards gives each card's View an opaque origin (its frame
	// without allow-same-origin, whatever the host asks): no card can
	// reach another's frame, and Views have no storage and send
	// "Origin: null".
	IsolateCards bool
}

// NewSandbox returns a Sandbox for origin (e.g. "http://127.0.0.1:8081").
// key signs tokens (several instances behind one sandbox origin need the
// same key); nil means a random key.
func NewSandbox(origin string, key []byte, opts SandboxOptions) (*Sandbox, error) {
	u, err := url.Parse(origin)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, fmt.Errorf("mcpapps: sandbox origin %q is not an http(s) origin", origin)
	}
	if len(key) == 0 {
		key = make([]byte, 32)
		_, _ = rand.Read(key)
	}
	ttl := opts.TicketTTL
	if ttl <= 0 {
		ttl = DefaultSandboxTicketTTL
	}
	return &Sandbox{key: key, origin: strings.TrimRight(origin, "/"), ttl: ttl, isolate: opts.IsolateCards}, nil
}

// Origin is the sandbox's public origin.
func (s *Sandbox) Origin() string { return s.origin }

type ticket struct {
	CSP  string `json:"c"`
	Host string `json:"h"`
	Exp  int64  `json:"e"`
}

// URL returns the sandbox page URL for a card showing a resource with the
// given _meta.ui, embedded by a page of origin host.
func (s *Sandbox) URL(ui map[string]any, host string) (string, error) {
	u, err := url.Parse(host)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || u.Path != "" {
		return "", fmt.Errorf("host origin %q is not an origin", host)
	}
	payload, _ := json.Marshal(ticket{CSP: CSP(ui), Host: host, Exp: time.Now().Add(s.ttl).Unix()})
	mac := hmac.New(sha256.New, s.key)
	mac.Write(payload)
	tok := base64.RawURLEncoding.EncodeToString(payload) + "." + base64.RawURLEncoding.EncodeToString(mac.Sum(nil))
	return s.origin + "/sandbox.html?t=" + tok, nil
}

var errBadTicket = errors.New("invalid or expired sandbox ticket")

func (s *Sandbox) check(tok string) (ticket, error) {
	p, sig, ok := strings.Cut(tok, ".")
	if !ok {
		return ticket{}, errBadTicket
	}
	payload, err1 := base64.RawURLEncoding.DecodeString(p)
	got, err2 := base64.RawURLEncoding.DecodeString(sig)
	if err1 != nil || err2 != nil {
		return ticket{}, errBadTicket
	}
	mac := hmac.New(sha256.New, s.key)
	mac.Write(payload)
	if !hmac.Equal(got, mac.Sum(nil)) {
		return ticket{}, errBadTicket
	}
	var t ticket
	if json.Unmarshal(payload, &t) != nil || time.Now().Unix() > t.Exp {
		return ticket{}, errBadTicket
	}
	return t, nil
}

var proxyPage = template.Must(template.ParseFS(assets, "assets/sandbox.html"))

// ServeHTTP serves the sandbox origin: the proxy page at /sandbox.html with
// the card's CSP as a header, and nothing else (so connect-src 'self'
// leads nowhere).
func (s *Sandbox) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.URL.Path != "/sandbox.html" || (r.Method != http.MethodGet && r.Method != http.MethodHead) {
		http.NotFound(w, r)
		return
	}
	t, err := s.check(r.URL.Query().Get("t"))
	if err != nil {
		http.Error(w, err.Error(), http.StatusForbidden)
		return
	}
	var buf bytes.Buffer
	if err := proxyPage.Execute(&buf, struct {
		HostOrigin string
		Isolate    bool
	}{t.Host, s.isolate}); err != nil {
		http.Error(w, "internal error", http.StatusInternalServerError)
		return
	}
	h := w.Header()
	h.Set("Content-Security-Policy", t.CSP)
	h.Set("Cache-Control", "no-store")
	h.Set("Content-Type", "text/html; charset=utf-8")
	h.Set("X-Content-Type-Options", "nosniff")
	h.Set("Referrer-Policy", "no-referrer")
	w.Write(buf.Bytes())
}
