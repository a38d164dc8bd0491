package jwtauth_test

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/golang-jwt/jwt/v5"
	"go.uber.org/goleak"

	"github.com/genui-adapter/genui-adapter/adapter/jwtauth"
	"github.com/genui-adapter/genui-adapter/adapter/jwtauth/jwttest"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

func newVerifier(t *testing.T, is *jwttest.Issuer, mod func(*jwtauth.Config)) *jwtauth.Verifier {
	t.Helper()
	c := jwtauth.Config{JWKSURL: is.JWKSURL(), Issuer: is.Issuer, Audience: is.Audience}
	if mod != nil {
		mod(&c)
	}
	v, err := jwtauth.New(c)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(v.Close)
	return v
}

func TestVerdicts(t *testing.T) {
	is := jwttest.New(t)
	v := newVerifier(t, is, nil)
	attacker, _ := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	pubDER, _ := x509.MarshalPKIXPublicKey(is.PublicKey())
	with := func(mod func(jwt.MapClaims)) jwt.MapClaims {
		c := is.Claims("alice")
		mod(c)
		return c
	}
	now := time.Now()
	cases := []struct {
		name, token, principal, reason string
	}{
		{"good", is.Sign(t, is.Claims("alice")), "alice", ""},
		{"audience list", is.Sign(t, with(func(c jwt.MapClaims) { c["aud"] = []string{"other", is.Audience} })), "alice", ""},
		{"expired within skew", is.Sign(t, with(func(c jwt.MapClaims) { c["exp"] = now.Add(-10 * time.Second).Unix() })), "alice", ""},
		{"expired", is.Sign(t, with(func(c jwt.MapClaims) { c["exp"] = now.Add(-time.Minute).Unix() })), "", "expired"},
		{"no exp", is.Sign(t, with(func(c jwt.MapClaims) { delete(c, "exp") })), "", "no exp"},
		{"not yet", is.Sign(t, with(func(c jwt.MapClaims) { c["nbf"] = now.Add(time.Hour).Unix() })), "", "not valid yet"},
		{"wrong audience", is.Sign(t, with(func(c jwt.MapClaims) { c["aud"] = "someone-else" })), "", "another audience"},
		{"wrong issuer", is.Sign(t, with(func(c jwt.MapClaims) { c["iss"] = "https://evil.example/" })), "", "another issuer"},
		{"no sub", is.Sign(t, with(func(c jwt.MapClaims) { delete(c, "sub") })), "", `no string "sub" claim`},
		{"numeric sub", is.Sign(t, with(func(c jwt.MapClaims) { c["sub"] = 42 })), "", `no string "sub" claim`},
		{"control char sub", is.Sign(t, with(func(c jwt.MapClaims) { c["sub"] = "a\nb" })), "", "not a usable principal"},
		{"huge sub", is.Sign(t, with(func(c jwt.MapClaims) { c["sub"] = strings.Repeat("x", 300) })), "", "not a usable principal"},
		{"attacker key, known kid", jwttest.SignWith(t, "ES256", "key-1", attacker, is.Claims("alice")), "", "not signed by a key"},
		{"HS256 keyed with the public key", jwttest.SignWith(t, "HS256", "key-1", pubDER, is.Claims("alice")), "", "signature"},
		{"alg none", jwttest.SignWith(t, "none", "key-1", jwt.UnsafeAllowNoneSignatureType, is.Claims("alice")), "", "signature"},
		{"not a jwt", "opaque-static-token", "", "not a JWT"},
	}
	for _, c := range cases {
		p, err := v.Principal(context.Background(), c.token)
		if c.reason == "" {
			if err != nil || p != c.principal {
				t.Errorf("%s: got %q, %v; want %q", c.name, p, err, c.principal)
			}
			continue
		}
		if err == nil || !strings.Contains(err.Error(), c.reason) {
			t.Errorf("%s: got %q, %v; want an error with %q", c.name, p, err, c.reason)
		}
	}
}

func TestPrincipalClaimAndAlgorithms(t *testing.T) {
	is := jwttest.New(t)
	v := newVerifier(t, is, func(c *jwtauth.Config) { c.PrincipalClaim = "email"; c.Algorithms = []string{"ES256"} })
	claims := is.Claims("u-1")
	claims["email"] = "alice@example.com"
	if _, err := v.Principal(context.Background(), is.Sign(t, claims)); err == nil {
		t.Fatal("an RS256 token was accepted with algorithms: [ES256]")
	}
	is.Rotate(t, "ES256", false)
	p, err := v.Principal(context.Background(), is.Sign(t, claims))
	if err != nil || p != "alice@example.com" {
		t.Fatalf("got %q, %v", p, err)
	}
}

// A rotation is picked up when a token names the new key, at most once
// per UnknownKeyEvery; a retired key stops working at the next refresh.
func TestRotation(t *testing.T) {
	is := jwttest.New(t)
	v := newVerifier(t, is, func(c *jwtauth.Config) { c.RefreshInterval = 300 * time.Millisecond; c.UnknownKeyEvery = time.Hour })
	old := is.Sign(t, is.Claims("alice"))
	if _, err := v.Principal(context.Background(), old); err != nil {
		t.Fatal(err)
	}
	is.Rotate(t, "ES256", true)
	fresh := is.Sign(t, is.Claims("bob"))
	if p, err := v.Principal(context.Background(), fresh); err != nil || p != "bob" {
		t.Fatalf("token signed by the rotated-in key: %q, %v", p, err)
	}
	// Random key ids cannot make us fetch again (the limiter is spent).
	before := is.Fetches()
	for i := range 20 {
		attacker, _ := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
		tok := jwttest.SignWith(t, "ES256", "nope-"+string(rune('a'+i)), attacker, is.Claims("mallory"))
		if _, err := v.Principal(context.Background(), tok); err == nil {
			t.Fatal("unknown key accepted")
		}
	}
	if got := is.Fetches() - before; got > 1 {
		t.Fatalf("20 unknown key ids caused %d key set fetches", got)
	}
	// Retire the first key: after a refresh its tokens are refused.
	is.Rotate(t, "RS256", false)
	deadline := time.Now().Add(5 * time.Second)
	for {
		_, err := v.Principal(context.Background(), old)
		if err != nil {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("a retired key still verifies after the refresh interval")
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// A key set fetch caused by a new key id may take as long as a remote
// identity provider does (it had 1 ms: a rotated key was then found only
// at the next periodic refresh).
func TestRotationSlowKeySet(t *testing.T) {
	is := jwttest.New(t)
	v := newVerifier(t, is, func(c *jwtauth.Config) { c.RefreshInterval = time.Hour; c.UnknownKeyEvery = time.Hour })
	if _, err := v.Principal(context.Background(), is.Sign(t, is.Claims("alice"))); err != nil {
		t.Fatal(err)
	}
	is.Delay.Store(int64(50 * time.Millisecond))
	is.Rotate(t, "ES256", true)
	if p, err := v.Principal(context.Background(), is.Sign(t, is.Claims("bob"))); err != nil || p != "bob" {
		t.Fatalf("token signed by the rotated-in key, key set served in 50 ms: %q, %v", p, err)
	}
}

func TestConfigCheck(t *testing.T) {
	for _, c := range []struct {
		cfg  jwtauth.Config
		want string
	}{
		{jwtauth.Config{Issuer: "i", Audience: "a"}, "jwksURL"},
		{jwtauth.Config{JWKSURL: "ftp://x", Issuer: "i", Audience: "a"}, "jwksURL"},
		{jwtauth.Config{JWKSURL: "https://x", Audience: "a"}, "issuer"},
		{jwtauth.Config{JWKSURL: "https://x", Issuer: "i"}, "audience"},
		{jwtauth.Config{JWKSURL: "https://x", Issuer: "i", Audience: "a", Algorithms: []string{"HS256"}}, "algorithms"},
		{jwtauth.Config{JWKSURL: "https://x", Issuer: "i", Audience: "a", ClockSkew: -1}, "negative"},
	} {
		if err := c.cfg.Check(); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%+v: %v, want %q", c.cfg, err, c.want)
		}
	}
}

// TestKeySetStaysOnItsOrigin: a jwksURL that redirects to another origin
// is not followed there, so keys served elsewhere never verify a token.
func TestKeySetStaysOnItsOrigin(t *testing.T) {
	is := jwttest.New(t)
	hop := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, is.JWKSURL(), http.StatusFound)
	}))
	defer hop.Close()
	v := newVerifier(t, is, func(c *jwtauth.Config) { c.JWKSURL = hop.URL + "/jwks.json" })
	if p, err := v.Principal(context.Background(), is.Sign(t, is.Claims("alice"))); err == nil {
		t.Errorf("a token verified with keys from another origin: %q", p)
	}
	if n := is.Fetches(); n != 0 {
		t.Errorf("the redirect was followed to another origin %d times", n)
	}
}
