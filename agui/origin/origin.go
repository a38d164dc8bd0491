// Package origin decides where the adapter's outbound requests may go.
//
// Every URL the adapter fetches has an owner: the operator (a configured
// url) or a peer (an A2A agent card's endpoint, a redirect). A URL a peer
// chose is used only when its origin is the configured one or is listed
// in the upstream's allowedOrigins, and credentials (configured headers,
// forwarded headers) go only to the configured origin.
//
// Origins are compared in canonical form, "scheme://host:port": the
// scheme http or https, the host lower case, international names in
// punycode (IDNA lookup rules), IPv6 literals in brackets in their
// shortest form, and the port always written (80 and 443 by default). A
// trailing dot is kept: the absolute name "agent.dev." is another host
// than "agent.dev", which the resolver first tries under its search
// domains. URLs carrying userinfo (user:password@) are refused.
package origin

import (
	"errors"
	"fmt"
	"net/http"
	"net/netip"
	"net/url"
	"strconv"
	"strings"

	"golang.org/x/net/idna"
)

// ErrNotAllowed is wrapped by the error a Policy returns for a URL on an
// origin it does not allow.
var ErrNotAllowed = errors.New("origin not allowed")

// ErrInvalid is wrapped by the error Of returns for a URL that has no
// canonical origin.
var ErrInvalid = errors.New("not an absolute http(s) URL without credentials")

// Of returns the canonical origin of an absolute http(s) URL.
func Of(raw string) (string, error) {
	u, err := url.Parse(raw)
	if err != nil {
		return "", fmt.Errorf("%w: %q", ErrInvalid, raw)
	}
	return OfURL(u)
}

// OfURL is Of for a parsed URL.
func OfURL(u *url.URL) (string, error) {
	if u == nil {
		return "", ErrInvalid
	}
	scheme := strings.ToLower(u.Scheme)
	if scheme != "http" && scheme != "https" || u.Opaque != "" {
		return "", fmt.Errorf("%w: %q has scheme %q", ErrInvalid, u.Redacted(), u.Scheme)
	}
	if u.User != nil {
		return "", fmt.Errorf("%w: %q carries userinfo", ErrInvalid, u.Redacted())
	}
	host, port := u.Hostname(), u.Port()
	if host == "" {
		return "", fmt.Errorf("%w: %q has no host", ErrInvalid, u.Redacted())
	}
	switch {
	case port == "" && scheme == "http":
		port = "80"
	case port == "" && scheme == "https":
		port = "443"
	default:
		n, err := strconv.ParseUint(port, 10, 16)
		if err != nil || n == 0 {
			return "", fmt.Errorf("%w: %q has port %q", ErrInvalid, u.Redacted(), port)
		}
		port = strconv.FormatUint(n, 10)
	}
	h, err := canonicalHost(host)
	if err != nil {
		return "", fmt.Errorf("%w: %q: %v", ErrInvalid, u.Redacted(), err)
	}
	return scheme + "://" + h + ":" + port, nil
}

// Serialized is a canonical origin (Of's) as a browser writes it, for
// comparing with window.origin or a message's origin: the default port
// left out.
func Serialized(canonical string) string {
	if s, ok := strings.CutSuffix(canonical, ":80"); ok && strings.HasPrefix(canonical, "http://") {
		return s
	}
	if s, ok := strings.CutSuffix(canonical, ":443"); ok && strings.HasPrefix(canonical, "https://") {
		return s
	}
	return canonical
}

// canonicalHost is host (without brackets or port) in canonical form,
// bracketed if it is an IPv6 literal.
func canonicalHost(host string) (string, error) {
	if strings.Contains(host, ":") {
		a, err := netip.ParseAddr(host)
		if err != nil || !a.Is6() || a.Zone() != "" {
			return "", fmt.Errorf("bad IPv6 literal %q (zones are refused)", host)
		}
		return "[" + a.String() + "]", nil
	}
	if !isASCII(host) {
		// What net/http dials for a non-ASCII name.
		a, err := idna.Lookup.ToASCII(host)
		if err != nil {
			return "", fmt.Errorf("bad international host name %q: %v", host, err)
		}
		host = a
	}
	// A trailing dot stays: "agent.dev." is the absolute name, while
	// "agent.dev" is first tried under the resolver's search domains (in
	// Kubernetes, the service agent of namespace dev): two hosts.
	host = strings.ToLower(host)
	name, absolute := strings.CutSuffix(host, ".")
	if name == "" || len(name) > 253 {
		return "", errors.New("bad host name length")
	}
	for label := range strings.SplitSeq(name, ".") {
		if label == "" || len(label) > 63 {
			return "", fmt.Errorf("bad host name %q", host)
		}
		for i := 0; i < len(label); i++ {
			c := label[i]
			if !('a' <= c && c <= 'z' || '0' <= c && c <= '9' || c == '-' || c == '_') {
				return "", fmt.Errorf("bad character %q in host name %q", c, host)
			}
		}
	}
	if a, err := netip.ParseAddr(host); err == nil && !absolute {
		return a.String(), nil
	}
	return host, nil
}

func isASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= 0x80 {
			return false
		}
	}
	return true
}

// Policy is where one upstream may be reached: its configured origin
// (home), which also receives its credentials, and the other origins its
// operator allows peers to send it to. A nil *Policy allows nothing. A
// Policy is safe for concurrent use.
type Policy struct {
	home  string
	allow map[string]bool
}

// NewPolicy builds the policy of an upstream configured at the URL
// configured, with allowed the origins (or URLs, of which only the
// origin counts) its peer's documents and redirects may also name.
// Userinfo in configured (the operator's basic auth) does not count; an
// allowed origin may not have any.
func NewPolicy(configured string, allowed []string) (*Policy, error) {
	u, err := url.Parse(configured)
	if err != nil {
		return nil, fmt.Errorf("url: %w: %q", ErrInvalid, configured)
	}
	u.User = nil
	home, err := OfURL(u)
	if err != nil {
		return nil, fmt.Errorf("url: %w", err)
	}
	p := &Policy{home: home, allow: map[string]bool{}}
	for _, a := range allowed {
		o, err := Of(a)
		if err != nil {
			return nil, fmt.Errorf("allowedOrigins: %w", err)
		}
		p.allow[o] = true
	}
	return p, nil
}

// Home is the configured origin.
func (p *Policy) Home() string {
	if p == nil {
		return ""
	}
	return p.home
}

// Allowed returns nil when raw's origin is home or allowed, else an error
// naming raw that wraps ErrNotAllowed (or ErrInvalid).
func (p *Policy) Allowed(raw string) error {
	u, err := url.Parse(raw)
	if err != nil {
		return fmt.Errorf("%w: %q", ErrInvalid, raw)
	}
	return p.AllowedURL(u)
}

// AllowedURL is Allowed for a parsed URL.
func (p *Policy) AllowedURL(u *url.URL) error {
	o, err := OfURL(u)
	if err != nil {
		return err
	}
	if p != nil && (o == p.home || p.allow[o]) {
		return nil
	}
	return fmt.Errorf("%w: %s (origin %s; configured %s)", ErrNotAllowed, u.Redacted(), o, p.Home())
}

// IsHome reports whether u is on the configured origin, where
// credentials may go (userinfo aside: the configured URL may carry the
// operator's).
func (p *Policy) IsHome(u *url.URL) bool {
	if u == nil {
		return false
	}
	bare := *u
	bare.User = nil
	o, err := OfURL(&bare)
	return err == nil && p != nil && o == p.home
}

// Allowed reports whether raw may be fetched for an upstream configured
// at configured with allowed origins allow: Allowed(configured,
// allow).Allowed(raw), for a single check.
func Allowed(configured string, allow []string, raw string) error {
	p, err := NewPolicy(configured, allow)
	if err != nil {
		return err
	}
	return p.Allowed(raw)
}

// MaxRedirects is how many redirects a request follows.
const MaxRedirects = 10

// keptOffHome are the only request headers a redirect to an origin other
// than home keeps: what describes the request, never who makes it.
var keptOffHome = map[string]bool{
	"Accept": true, "Accept-Encoding": true, "Content-Type": true, "Content-Length": true, "User-Agent": true,
	"A2a-Version": true, "A2a-Extensions": true, "X-A2a-Extensions": true,
	"Traceparent": true, "Tracestate": true,
}

// CheckRedirect is an http.Client CheckRedirect for this policy: it
// follows at most MaxRedirects redirects, only to allowed origins, and
// strips every header but those describing the request (Accept,
// Content-Type, User-Agent, A2A's, trace context) from one that leaves
// the home origin. With a nil policy, home is the first request's origin
// and nothing else is allowed.
func (p *Policy) CheckRedirect(req *http.Request, via []*http.Request) error {
	if len(via) >= MaxRedirects {
		return fmt.Errorf("stopped after %d redirects", MaxRedirects)
	}
	if p == nil {
		home, err := OfURL(via[0].URL)
		if err != nil {
			return err
		}
		p = &Policy{home: home}
	}
	if err := p.AllowedURL(req.URL); err != nil {
		return fmt.Errorf("refused a redirect from %s: %w", via[len(via)-1].URL.Redacted(), err)
	}
	if !p.IsHome(req.URL) {
		StripCredentials(req.Header)
	}
	return nil
}

// SameOrigin is an http.Client CheckRedirect that follows at most
// MaxRedirects redirects, within the first request's origin only: for
// clients whose URL is configured and never leaves its server (JWKS,
// OTLP).
func SameOrigin(req *http.Request, via []*http.Request) error {
	return (*Policy)(nil).CheckRedirect(req, via)
}

// StripCredentials deletes from h every header but those describing the
// request (Accept, Content-Type, User-Agent, A2A's, trace context).
func StripCredentials(h http.Header) {
	for k := range h {
		if !keptOffHome[http.CanonicalHeaderKey(k)] {
			delete(h, k)
		}
	}
}
