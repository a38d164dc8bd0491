package origin

import (
	"errors"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync/atomic"
	"testing"
)

func TestOf(t *testing.T) {
	for _, tt := range []struct {
		in, want string // want "": refused
	}{
		{"http://example.com", "http://example.com:80"},
		{"https://example.com/a/b?c#d", "https://example.com:443"},
		{"HTTPS://Example.COM", "https://example.com:443"},
		{"https://example.com.", "https://example.com.:443"},
		{"https://Example.com.:443/x", "https://example.com.:443"},
		{"http://127.0.0.1.:1", "http://127.0.0.1.:1"},
		{"http://example.com..", ""},
		{"http://example.com:80", "http://example.com:80"},
		{"http://example.com:8080", "http://example.com:8080"},
		{"http://example.com:08080", "http://example.com:8080"},
		{"http://example.com:", "http://example.com:80"},
		{"https://example.com:80", "https://example.com:80"},
		{"http://127.0.0.1:9000/internal-admin", "http://127.0.0.1:9000"},
		{"http://[::1]:9000", "http://[::1]:9000"},
		{"http://[0:0:0:0:0:0:0:1]/", "http://[::1]:80"},
		{"http://[2001:DB8::1]", "http://[2001:db8::1]:80"},
		{"http://[::ffff:127.0.0.1]:1", "http://[::ffff:127.0.0.1]:1"},
		{"https://bücher.example", "https://xn--bcher-kva.example:443"},
		{"https://BÜCHER.example", "https://xn--bcher-kva.example:443"},
		{"https://xn--bcher-kva.example", "https://xn--bcher-kva.example:443"},
		{"https://ｅｘａｍｐｌｅ.com", "https://example.com:443"}, // fullwidth, as IDNA maps it
		{"https://example。com", "https://example.com:443"}, // ideographic full stop
		{"http://my_service:8000", "http://my_service:8000"},

		{"", ""},
		{"/relative", ""},
		{"example.com", ""},
		{"ftp://example.com", ""},
		{"file:///etc/passwd", ""},
		{"javascript:alert(1)", ""},
		{"http:example.com", ""},
		{"http://user@example.com", ""},
		{"http://user:pass@example.com", ""},
		{"http://:pass@example.com", ""},
		{"http://@example.com", ""},
		{"http://example.com:0", ""},
		{"http://example.com:65536", ""},
		{"http://example.com:-1", ""},
		{"http://example.com:http", ""},
		{"http://[::1", ""},
		{"http://[fe80::1%25eth0]/", ""},
		{"http://%65xample.com", ""},
		{"http://[1.2.3.4]", ""},
		{"http://a..b", ""},
		{"http://.", ""},
		{"http://exa mple.com", ""},
		{"http://exa%00mple.com", ""},
		{"http://" + strings.Repeat("a", 64) + ".com", ""},
	} {
		got, err := Of(tt.in)
		if tt.want == "" {
			if err == nil {
				t.Errorf("Of(%q) = %q; want an error", tt.in, got)
			} else if !errors.Is(err, ErrInvalid) {
				t.Errorf("Of(%q) error %v does not wrap ErrInvalid", tt.in, err)
			}
			continue
		}
		if err != nil || got != tt.want {
			t.Errorf("Of(%q) = %q, %v; want %q", tt.in, got, err, tt.want)
		}
	}
}

func TestSerialized(t *testing.T) {
	for in, want := range map[string]string{
		"https://example.com:443":  "https://example.com",
		"http://example.com:80":    "http://example.com",
		"https://example.com:80":   "https://example.com:80",
		"http://example.com:443":   "http://example.com:443",
		"http://[::1]:8080":        "http://[::1]:8080",
		"http://example.com:8080":  "http://example.com:8080",
		"https://example.com:4430": "https://example.com:4430",
	} {
		if got := Serialized(in); got != want {
			t.Errorf("Serialized(%q) = %q; want %q", in, got, want)
		}
	}
}

func TestPolicy(t *testing.T) {
	p, err := NewPolicy("https://agent.example.com/.well-known/agent-card.json", []string{"https://API.agent.example.com", "http://[::1]:9000/ignored/path"})
	if err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		url     string
		allowed bool
		home    bool
	}{
		{"https://agent.example.com/a2a", true, true},
		{"https://agent.example.com:443/a2a", true, true},
		{"https://AGENT.example.com/a2a", true, true},
		{"https://agent.example.com./a2a", false, false}, // the absolute name, not the configured one
		{"https://api.agent.example.com/v1", true, false},
		{"http://[0::1]:9000/x", true, false},
		{"http://agent.example.com/a2a", false, false},       // scheme
		{"https://agent.example.com:8443/a2a", false, false}, // port
		{"https://evil.example.com/a2a", false, false},
		{"https://agent.example.com.evil.com/", false, false},
		{"https://user@agent.example.com/a2a", false, true}, // userinfo: never a peer's; the operator's in a configured URL
		{"http://127.0.0.1:8080/internal-admin", false, false},
		{"http://[::1]:9001/", false, false},
		{"/relative", false, false},
	} {
		err := p.Allowed(tt.url)
		if (err == nil) != tt.allowed {
			t.Errorf("Allowed(%q) = %v; want allowed %v", tt.url, err, tt.allowed)
		}
		if err != nil && !errors.Is(err, ErrNotAllowed) && !errors.Is(err, ErrInvalid) {
			t.Errorf("Allowed(%q) = %v; wraps neither sentinel", tt.url, err)
		}
		if err != nil && errors.Is(err, ErrNotAllowed) && !strings.Contains(err.Error(), tt.url) {
			t.Errorf("Allowed(%q) = %v; should name the URL", tt.url, err)
		}
		u, _ := url.Parse(tt.url)
		if got := p.IsHome(u); got != tt.home {
			t.Errorf("IsHome(%q) = %v; want %v", tt.url, got, tt.home)
		}
	}
	if p, err := NewPolicy("https://u:p@agent.example.com", nil); err != nil || p.Home() != "https://agent.example.com:443" {
		t.Errorf("a configured URL with the operator's userinfo: %v, %v", p.Home(), err)
	}
	if _, err := NewPolicy("https://agent.example.com", []string{"https://u@other.example.com"}); err == nil {
		t.Error("an allowed origin with userinfo was accepted")
	}
	if _, err := NewPolicy("https://agent.example.com", []string{"*"}); err == nil {
		t.Error("a wildcard allowed origin was accepted")
	}
	var none *Policy
	if err := none.Allowed("https://agent.example.com"); !errors.Is(err, ErrNotAllowed) {
		t.Errorf("nil policy: %v", err)
	}
	if err := Allowed("http://a.example", nil, "http://A.example:80/x"); err != nil {
		t.Errorf("Allowed on the configured origin: %v", err)
	}
}

// TestCheckRedirect follows real redirects: to home with every header, to
// an allowed origin with none of the credentials, never to another
// origin.
func TestCheckRedirect(t *testing.T) {
	type seen struct {
		hits atomic.Int32
		hdr  atomic.Pointer[http.Header]
	}
	serve := func(s *seen, h http.HandlerFunc) *httptest.Server {
		ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			s.hits.Add(1)
			c := r.Header.Clone()
			s.hdr.Store(&c)
			h(w, r)
		}))
		t.Cleanup(ts.Close)
		return ts
	}
	ok := func(w http.ResponseWriter, _ *http.Request) { w.WriteHeader(http.StatusOK) }
	var allowedSeen, foreignSeen, homeSeen seen
	allowed := serve(&allowedSeen, ok)
	foreign := serve(&foreignSeen, ok)
	home := serve(&homeSeen, func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/to-home":
			http.Redirect(w, r, "/ok", http.StatusTemporaryRedirect)
		case "/to-allowed":
			http.Redirect(w, r, allowed.URL+"/x", http.StatusTemporaryRedirect)
		case "/to-foreign":
			http.Redirect(w, r, foreign.URL+"/x", http.StatusFound)
		case "/to-userinfo":
			http.Redirect(w, r, strings.Replace(allowed.URL, "://", "://u:p@", 1), http.StatusFound)
		default:
			w.WriteHeader(http.StatusOK)
		}
	})
	p, err := NewPolicy(home.URL, []string{allowed.URL})
	if err != nil {
		t.Fatal(err)
	}
	client := &http.Client{CheckRedirect: p.CheckRedirect}
	get := func(path string) error {
		req, _ := http.NewRequest(http.MethodPost, home.URL+path, strings.NewReader("{}"))
		req.Header.Set("Authorization", "Bearer secret")
		req.Header.Set("X-Api-Key", "k")
		req.Header.Set("X-User-Token", "u")
		req.Header.Set("Accept", "text/event-stream")
		resp, err := client.Do(req)
		if err == nil {
			resp.Body.Close()
		}
		return err
	}
	if err := get("/to-home"); err != nil {
		t.Fatal(err)
	}
	if h := *homeSeen.hdr.Load(); h.Get("X-Api-Key") != "k" || h.Get("Authorization") != "Bearer secret" {
		t.Errorf("a redirect within home lost its headers: %v", h)
	}
	if err := get("/to-allowed"); err != nil {
		t.Fatal(err)
	}
	h := *allowedSeen.hdr.Load()
	for _, k := range []string{"Authorization", "X-Api-Key", "X-User-Token", "Referer"} {
		if h.Get(k) != "" {
			t.Errorf("a redirect to an allowed origin carried %s: %v", k, h)
		}
	}
	if h.Get("Accept") != "text/event-stream" {
		t.Errorf("a redirect to an allowed origin lost Accept: %v", h)
	}
	if err := get("/to-foreign"); !errors.Is(err, ErrNotAllowed) {
		t.Errorf("a redirect to a foreign origin: %v", err)
	}
	n := allowedSeen.hits.Load()
	if err := get("/to-userinfo"); err == nil {
		t.Error("a redirect to a URL with userinfo was followed")
	}
	if foreignSeen.hits.Load() != 0 || allowedSeen.hits.Load() != n {
		t.Errorf("refused redirects reached their target: foreign %d", foreignSeen.hits.Load())
	}
	// A nil policy keeps to the first request's origin.
	var none *Policy
	client.CheckRedirect = none.CheckRedirect
	if err := get("/to-home"); err != nil {
		t.Errorf("nil policy, a redirect within the origin: %v", err)
	}
	if err := get("/to-allowed"); !errors.Is(err, ErrNotAllowed) {
		t.Errorf("nil policy, a redirect to another origin: %v", err)
	}
}

// FuzzOf checks the origin rule's invariants on any input: an origin is
// canonical (Of of it is itself), carries no userinfo, path or default
// port left implicit, and a URL is allowed by a policy exactly when its
// origin is the policy's home.
func FuzzOf(f *testing.F) {
	for _, s := range []string{
		"http://example.com", "HTTPS://Example.COM./x", "http://[::1]:80", "http://[::ffff:1.2.3.4]",
		"https://bücher.example", "http://u:p@h", "http://h:0080", "http://h:", "http://%65.com",
		"http://a..b", "https://ｅｘａｍｐｌｅ.com", "http://127.0.0.1:9000/internal-admin", "http://[fe80::1%25eth0]/",
		"http://example.com\\@evil.com", "http://evil.com#@example.com", "//example.com",
	} {
		f.Add(s, "http://example.com")
	}
	f.Fuzz(func(t *testing.T, raw, configured string) {
		o, err := Of(raw)
		if err != nil {
			if !errors.Is(err, ErrInvalid) {
				t.Fatalf("Of(%q) error %v does not wrap ErrInvalid", raw, err)
			}
			return
		}
		u, perr := url.Parse(o)
		if perr != nil || u.User != nil || u.Path != "" || u.RawQuery != "" || u.Fragment != "" || u.Port() == "" {
			t.Fatalf("Of(%q) = %q is not a bare origin with its port", raw, o)
		}
		if again, err := Of(o); err != nil || again != o {
			t.Fatalf("Of(%q) = %q, but Of(%q) = %q, %v", raw, o, o, again, err)
		}
		if o != strings.ToLower(o) {
			t.Fatalf("Of(%q) = %q is not lower case", raw, o)
		}
		// The host net/http would dial is the one the origin names.
		ru, _ := url.Parse(raw)
		if ru.User != nil {
			t.Fatalf("Of(%q) accepted userinfo", raw)
		}
		p, err := NewPolicy(configured, nil)
		if err != nil {
			return
		}
		if allowed := p.Allowed(raw) == nil; allowed != (o == p.Home()) {
			t.Fatalf("policy home %q: Allowed(%q) = %v, origin %q", p.Home(), raw, allowed, o)
		}
	})
}

// A name with a trailing dot is absolute; without, the resolver tries its
// search domains first. In Kubernetes "http://agent.dev:8080" is the
// service agent of namespace dev (agent.dev.svc.cluster.local) while
// "http://agent.dev.:8080" is the public name agent.dev, which anyone may
// register: a peer naming the latter must not count as home and get the
// credentials.
func TestTrailingDotIsAnotherHost(t *testing.T) {
	p, err := NewPolicy("http://agent.dev:8080", nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, raw := range []string{"http://agent.dev.:8080/rpc", "http://AGENT.dev.:8080/"} {
		u, _ := url.Parse(raw)
		if p.IsHome(u) || p.Allowed(raw) == nil {
			t.Errorf("home %s: %s is treated as home", p.Home(), raw)
		}
	}
	q, err := NewPolicy("https://api.example.com./", nil)
	if err != nil {
		t.Fatal(err)
	}
	if u, _ := url.Parse("https://api.example.com/x"); q.IsHome(u) {
		t.Errorf("home %s: the relative name is treated as home", q.Home())
	}
	if u, _ := url.Parse("https://API.example.com.:443/x"); !q.IsHome(u) {
		t.Errorf("home %s: its own absolute name is not home", q.Home())
	}
}
