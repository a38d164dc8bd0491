// Package jwtauth verifies JWT bearer tokens against a JWKS URL: the
// signature with a key the issuer publishes (rotations are picked up by a
// periodic refresh and, rate-limited, when a token names an unknown key),
// the issuer, the audience, the expiry with a clock skew, and an algorithm
// from an allow-list. The principal is one string claim of the token.
package jwtauth

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"time"
	"unicode"

	"github.com/MicahParks/keyfunc/v3"
	"github.com/golang-jwt/jwt/v5"
	"golang.org/x/time/rate"

	"github.com/genui-adapter/genui-adapter/agui/origin"
)

// Defaults for the Config fields left zero.
const (
	DefaultClockSkew       = 30 * time.Second
	DefaultRefreshInterval = 10 * time.Minute
	DefaultUnknownKeyEvery = 30 * time.Second
	DefaultPrincipalClaim  = "sub"
	// MaxPrincipalBytes bounds the principal (it names runs and threads).
	MaxPrincipalBytes = 256
)

// DefaultAlgorithms are the asymmetric algorithms accepted unless the
// config names others. HMAC and "none" are never accepted: a JWKS holds
// public keys.
var DefaultAlgorithms = []string{"RS256", "RS384", "RS512", "PS256", "PS384", "PS512", "ES256", "ES384", "ES512", "EdDSA"}

var asymmetric = map[string]bool{}

func init() {
	for _, a := range DefaultAlgorithms {
		asymmetric[a] = true
	}
}

// Config says which tokens are good.
type Config struct {
	JWKSURL  string
	Issuer   string
	Audience string
	// ClockSkew is the leeway on exp, nbf and iat.
	ClockSkew time.Duration
	// PrincipalClaim names the string claim that becomes the principal.
	PrincipalClaim string
	Algorithms     []string
	// RefreshInterval is how often the key set is fetched again.
	RefreshInterval time.Duration
	// UnknownKeyEvery is the least time between fetches caused by a token
	// whose key id is not in the set (so a new key is found before the
	// next refresh, and random key ids cannot hammer the issuer).
	UnknownKeyEvery time.Duration
	// Client fetches the key set (default: a client with a 10 s timeout).
	Client *http.Client
}

// unknownKeyWait bounds what a token with an unknown key id waits for:
// the rate limiter, then the key set fetch it causes.
const unknownKeyWait = 5 * time.Second

// Check reports the first problem with c, naming the field.
func (c Config) Check() error {
	if c.JWKSURL == "" || !(strings.HasPrefix(c.JWKSURL, "https://") || strings.HasPrefix(c.JWKSURL, "http://")) {
		return fmt.Errorf("jwksURL: %q is not an http(s) URL", c.JWKSURL)
	}
	if c.Issuer == "" {
		return errors.New("issuer: required (the iss every token must carry)")
	}
	if c.Audience == "" {
		return errors.New("audience: required (the aud every token must carry)")
	}
	if c.ClockSkew < 0 || c.RefreshInterval < 0 || c.UnknownKeyEvery < 0 {
		return errors.New("durations must not be negative")
	}
	for _, a := range c.Algorithms {
		if !asymmetric[a] {
			return fmt.Errorf("algorithms: %q is not one of %s", a, strings.Join(DefaultAlgorithms, ", "))
		}
	}
	return nil
}

// Verifier checks tokens. It owns a goroutine that refreshes the key set
// until Close.
type Verifier struct {
	keys   keyfunc.Keyfunc
	parser *jwt.Parser
	claim  string
	stop   context.CancelFunc
}

// New starts fetching the key set. A key set that cannot be fetched yet is
// not an error (tokens are refused until it can be).
func New(c Config) (*Verifier, error) {
	if err := c.Check(); err != nil {
		return nil, err
	}
	if c.ClockSkew == 0 {
		c.ClockSkew = DefaultClockSkew
	}
	if c.RefreshInterval == 0 {
		c.RefreshInterval = DefaultRefreshInterval
	}
	if c.UnknownKeyEvery == 0 {
		c.UnknownKeyEvery = DefaultUnknownKeyEvery
	}
	if c.PrincipalClaim == "" {
		c.PrincipalClaim = DefaultPrincipalClaim
	}
	if len(c.Algorithms) == 0 {
		c.Algorithms = DefaultAlgorithms
	}
	if c.Client == nil {
		// The key set comes from its configured origin only.
		c.Client = &http.Client{Timeout: 10 * time.Second, CheckRedirect: origin.SameOrigin}
	}
	ctx, stop := context.WithCancel(context.Background())
	keys, err := keyfunc.NewDefaultOverrideCtx(ctx, []string{c.JWKSURL}, keyfunc.Override{
		Client:          c.Client,
		HTTPTimeout:     c.Client.Timeout,
		RefreshInterval: c.RefreshInterval,
		// A token with an unknown key id is refused at once when the
		// limiter's next token is more than unknownKeyWait away. The same
		// deadline bounds the key set fetch it causes: at 1 ms (before)
		// a fetch slower than that failed, and a rotated key was found
		// only at the next periodic refresh.
		RefreshUnknownKID:       rate.NewLimiter(rate.Every(c.UnknownKeyEvery), 1),
		RateLimitWaitMax:        unknownKeyWait,
		RefreshErrorHandlerFunc: func(string) func(context.Context, error) { return func(context.Context, error) {} },
	})
	if err != nil {
		stop()
		return nil, fmt.Errorf("jwksURL: %w", err)
	}
	return &Verifier{
		keys: keys,
		parser: jwt.NewParser(
			jwt.WithValidMethods(c.Algorithms),
			jwt.WithIssuer(c.Issuer),
			jwt.WithAudience(c.Audience),
			jwt.WithLeeway(c.ClockSkew),
			jwt.WithExpirationRequired(),
			jwt.WithIssuedAt(),
		),
		claim: c.PrincipalClaim,
		stop:  stop,
	}, nil
}

// Close stops the key set refresh.
func (v *Verifier) Close() { v.stop() }

// Error is a refused token; its message is safe to show the caller.
type Error struct{ Reason string }

func (e *Error) Error() string { return e.Reason }

// Principal verifies the token and returns its principal claim.
func (v *Verifier) Principal(ctx context.Context, token string) (string, error) {
	claims := jwt.MapClaims{}
	_, err := v.parser.ParseWithClaims(token, claims, v.keys.KeyfuncCtx(ctx))
	if err != nil {
		return "", &Error{Reason: reason(err)}
	}
	p, ok := claims[v.claim].(string)
	switch {
	case !ok || strings.TrimSpace(p) == "":
		return "", &Error{Reason: fmt.Sprintf("the token has no string %q claim", v.claim)}
	case len(p) > MaxPrincipalBytes || strings.ContainsFunc(p, unicode.IsControl):
		return "", &Error{Reason: fmt.Sprintf("the token's %q claim is not a usable principal (at most %d bytes, no control characters)", v.claim, MaxPrincipalBytes)}
	}
	return p, nil
}

// reason says why a token was refused without echoing the token.
func reason(err error) string {
	switch {
	case errors.Is(err, jwt.ErrTokenMalformed):
		return "the bearer token is not a JWT"
	case errors.Is(err, jwt.ErrTokenExpired):
		return "the token has expired"
	case errors.Is(err, jwt.ErrTokenNotValidYet), errors.Is(err, jwt.ErrTokenUsedBeforeIssued):
		return "the token is not valid yet"
	case errors.Is(err, jwt.ErrTokenInvalidAudience):
		return "the token is for another audience"
	case errors.Is(err, jwt.ErrTokenInvalidIssuer):
		return "the token is from another issuer"
	case errors.Is(err, jwt.ErrTokenRequiredClaimMissing):
		return "the token has no exp claim"
	case errors.Is(err, jwt.ErrTokenSignatureInvalid):
		return "the token's signature does not verify"
	case errors.Is(err, keyfunc.ErrKeyfunc), errors.Is(err, jwt.ErrTokenUnverifiable):
		return "the token is not signed by a key in the issuer's key set (or with an algorithm not allowed)"
	}
	return "the token is not valid"
}
