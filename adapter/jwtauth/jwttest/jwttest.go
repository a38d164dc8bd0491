// Package jwttest is a local identity provider for tests: a JWKS endpoint
// served by httptest whose keys can be rotated, and a signer for tokens.
package jwttest

import (
	"context"
	"crypto"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/rsa"
	"fmt"
	"net/http"
	"net/http/httptest"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/MicahParks/jwkset"
	"github.com/golang-jwt/jwt/v5"
)

// Issuer serves a JWKS and signs tokens with its current key.
type Issuer struct {
	Server   *httptest.Server
	Issuer   string
	Audience string
	// Delay slows every key set response (a remote identity provider).
	Delay atomic.Int64 // nanoseconds

	mu      sync.Mutex
	keys    []key // published
	current key
	n       int
	fetches atomic.Int64
}

type key struct {
	kid    string
	alg    string
	signer crypto.Signer
}

// New starts an issuer with one RS256 key; it is closed with the test.
func New(t testing.TB) *Issuer {
	t.Helper()
	is := &Issuer{Audience: "genui-adapter"}
	is.Server = httptest.NewServer(http.HandlerFunc(is.serveJWKS))
	t.Cleanup(is.Server.Close)
	is.Issuer = is.Server.URL + "/"
	is.Rotate(t, "RS256", false)
	return is
}

// JWKSURL is the key set's address.
func (is *Issuer) JWKSURL() string { return is.Server.URL + "/jwks.json" }

// Fetches counts the key set requests served.
func (is *Issuer) Fetches() int64 { return is.fetches.Load() }

// Rotate makes a new key (RS256 or ES256) the signing key; keepOld keeps
// the previous keys published.
func (is *Issuer) Rotate(t testing.TB, alg string, keepOld bool) string {
	t.Helper()
	var s crypto.Signer
	var err error
	switch alg {
	case "RS256":
		s, err = rsa.GenerateKey(rand.Reader, 2048)
	case "ES256":
		s, err = ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	default:
		t.Fatalf("jwttest: alg %s", alg)
	}
	if err != nil {
		t.Fatal(err)
	}
	is.mu.Lock()
	defer is.mu.Unlock()
	is.n++
	k := key{kid: fmt.Sprintf("key-%d", is.n), alg: alg, signer: s}
	if !keepOld {
		is.keys = nil
	}
	is.keys = append(is.keys, k)
	is.current = k
	return k.kid
}

// Claims are the standard claims of a good token for this issuer, valid
// for an hour, for sub.
func (is *Issuer) Claims(sub string) jwt.MapClaims {
	now := time.Now()
	return jwt.MapClaims{"iss": is.Issuer, "aud": is.Audience, "sub": sub, "iat": now.Unix(), "exp": now.Add(time.Hour).Unix()}
}

// Sign signs claims with the current key.
func (is *Issuer) Sign(t testing.TB, claims jwt.MapClaims) string {
	t.Helper()
	is.mu.Lock()
	k := is.current
	is.mu.Unlock()
	return SignWith(t, k.alg, k.kid, k.signer, claims)
}

// SignWith signs claims with any key (an attacker's, say).
func SignWith(t testing.TB, alg, kid string, key any, claims jwt.MapClaims) string {
	t.Helper()
	tok := jwt.NewWithClaims(jwt.GetSigningMethod(alg), claims)
	if kid != "" {
		tok.Header["kid"] = kid
	}
	s, err := tok.SignedString(key)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// PublicKey is the current key's public half.
func (is *Issuer) PublicKey() crypto.PublicKey {
	is.mu.Lock()
	defer is.mu.Unlock()
	return is.current.signer.Public()
}

func (is *Issuer) serveJWKS(w http.ResponseWriter, r *http.Request) {
	if r.URL.Path != "/jwks.json" {
		http.NotFound(w, r)
		return
	}
	is.fetches.Add(1)
	time.Sleep(time.Duration(is.Delay.Load()))
	is.mu.Lock()
	keys := append([]key(nil), is.keys...)
	is.mu.Unlock()
	set := jwkset.NewMemoryStorage()
	for _, k := range keys {
		j, err := jwkset.NewJWKFromKey(k.signer.Public(), jwkset.JWKOptions{Metadata: jwkset.JWKMetadataOptions{KID: k.kid, ALG: jwkset.ALG(k.alg), USE: jwkset.UseSig}})
		if err != nil {
			http.Error(w, err.Error(), 500)
			return
		}
		_ = set.KeyWrite(context.Background(), j)
	}
	b, err := set.JSONPublic(context.Background())
	if err != nil {
		http.Error(w, err.Error(), 500)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	_, _ = w.Write(b)
}
