package adapter

import (
	"crypto/subtle"
	"net/http"
	"strings"
)

// anonymous is the principal when no auth is configured.
const anonymous = "anonymous"

// principal says who is calling, per the auth config: the name of the
// bearer token presented, the trusted header's value, or "anonymous".
func (s *Server) principal(r *http.Request) (string, error) {
	a := s.cfg.Auth
	switch {
	case len(a.BearerTokens) > 0:
		tok, ok := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer ")
		if ok {
			for name, want := range a.BearerTokens {
				if subtle.ConstantTimeCompare([]byte(tok), []byte(want)) == 1 {
					return name, nil
				}
			}
		}
		return "", &httpError{Status: http.StatusUnauthorized, Code: "unauthorized", Msg: "a valid Authorization: Bearer token is required"}
	case a.TrustedHeader != "":
		if p := r.Header.Get(a.TrustedHeader); p != "" {
			return p, nil
		}
		return "", &httpError{Status: http.StatusUnauthorized, Code: "unauthorized", Msg: "the " + a.TrustedHeader + " header is required"}
	}
	return anonymous, nil
}

func errForbidden(what string) error {
	return &httpError{Status: http.StatusForbidden, Code: "forbidden", Msg: what + " belongs to another principal"}
}
