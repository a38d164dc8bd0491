package adapter

import (
	"crypto/subtle"
	"net"
	"net/http"
	"net/netip"
	"net/url"
	"slices"
	"strings"

	"github.com/labstack/echo/v5"
)

// anonymous is the principal when no auth is configured.
const anonymous = "anonymous"

// principalKey is where requireAuth leaves the principal.
const principalKey = "genui.principal"

// authenticated reports whether auth is configured (principals are real).
func (s *Server) authenticated() bool {
	a := s.cfg.Auth
	return len(a.BearerTokens) > 0 || a.JWT != nil || a.TrustedHeader != ""
}

// principal says who is calling, from the headers alone (so that it runs
// before any body is read): the name of the static bearer token presented
// or the principal claim of a verified JWT, the trusted header's value
// (only from a trusted proxy, and only once), or "anonymous".
func (s *Server) principal(r *http.Request) (string, error) {
	a := s.cfg.Auth
	switch {
	case len(a.BearerTokens) > 0 || s.jwt != nil:
		tok, ok := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer ")
		if !ok || len(r.Header.Values("Authorization")) != 1 || tok == "" {
			return "", errUnauthorized("a valid Authorization: Bearer token is required")
		}
		for _, nt := range s.tokens {
			if subtle.ConstantTimeCompare([]byte(tok), nt.token) == 1 {
				return nt.name, nil
			}
		}
		if s.jwt == nil {
			return "", errUnauthorized("a valid Authorization: Bearer token is required")
		}
		p, err := s.jwt.Principal(r.Context(), tok)
		if err != nil {
			return "", errUnauthorized("bearer token refused: " + err.Error())
		}
		// A token's claim cannot pass for a static token's name: the two
		// would share runs and threads.
		if _, clash := a.BearerTokens[p]; clash {
			return "", errUnauthorized("bearer token refused: its principal is the name of a static token")
		}
		return p, nil
	case a.TrustedHeader != "":
		if !s.fromTrustedProxy(r) {
			return "", &httpError{Status: http.StatusUnauthorized, Code: "unauthorized", Msg: "requests must come through a trusted proxy (auth.trustedProxies)"}
		}
		vals := r.Header.Values(a.TrustedHeader)
		switch {
		case len(vals) > 1:
			return "", &httpError{Status: http.StatusBadRequest, Code: "bad_request", Msg: "the " + a.TrustedHeader + " header must appear once"}
		case len(vals) == 0 || strings.TrimSpace(vals[0]) == "":
			return "", &httpError{Status: http.StatusUnauthorized, Code: "unauthorized", Msg: "the " + a.TrustedHeader + " header is required"}
		}
		return strings.TrimSpace(vals[0]), nil
	}
	return anonymous, nil
}

// namedToken is a static bearer token and its principal's name.
type namedToken struct {
	name  string
	token []byte
}

// namedTokens lists auth.bearerTokens once, in name order, for every
// request to go through without sorting or converting them again.
func namedTokens(tokens map[string]string) []namedToken {
	var out []namedToken
	for _, name := range sortedKeys(tokens) {
		out = append(out, namedToken{name: name, token: []byte(tokens[name])})
	}
	return out
}

func errUnauthorized(msg string) error {
	return &httpError{Status: http.StatusUnauthorized, Code: "unauthorized", Msg: msg}
}

// fromTrustedProxy reports whether the connection comes from one of
// auth.trustedProxies (default: loopback).
func (s *Server) fromTrustedProxy(r *http.Request) bool {
	host, _, err := net.SplitHostPort(r.RemoteAddr)
	if err != nil {
		host = r.RemoteAddr
	}
	ip, err := netip.ParseAddr(host)
	if err != nil {
		return false
	}
	ip = ip.Unmap()
	for _, p := range s.trustedProxies {
		if p.Contains(ip) {
			return true
		}
	}
	return false
}

// requireAuth resolves the principal before the handler reads anything.
func requireAuth(s *Server) echo.MiddlewareFunc {
	return func(next echo.HandlerFunc) echo.HandlerFunc {
		return func(c *echo.Context) error {
			p, err := s.principal(c.Request())
			if err != nil {
				return err
			}
			c.Set(principalKey, p)
			return next(c)
		}
	}
}

// principalOf returns the principal requireAuth found.
func principalOf(c *echo.Context) string {
	p, _ := c.Get(principalKey).(string)
	if p == "" {
		return anonymous
	}
	return p
}

// checkOrigin refuses a state-changing request a browser sent from
// another site (a simple cross-site POST needs no preflight): its Origin
// must be the service's own or in cors.origins.
func (s *Server) checkOrigin(r *http.Request) error {
	origin := r.Header.Get("Origin")
	if origin == "" {
		if r.Header.Get("Sec-Fetch-Site") == "cross-site" {
			return errCrossSite()
		}
		return nil // not a browser, or a same-origin request
	}
	if slices.Contains(s.cfg.CORS.Origins, origin) || slices.Contains(s.cfg.CORS.Origins, "*") {
		return nil
	}
	if u, err := url.Parse(origin); err == nil && u.Host != "" && strings.EqualFold(u.Host, r.Host) {
		return nil
	}
	return errCrossSite()
}

func errCrossSite() error {
	return &httpError{Status: http.StatusForbidden, Code: "cross_site_refused", Msg: "this request came from another site; its Origin must be this service's or in cors.origins"}
}
