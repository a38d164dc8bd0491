package adapter

import (
	"io"
	"strings"
	"testing"
	"time"

	"github.com/golang-jwt/jwt/v5"

	"github.com/genui-adapter/genui-adapter/adapter/jwtauth/jwttest"
)

// JWT bearer tokens from a local identity provider: the claim is the
// principal and plugs into the ownership rules (alice's JWT and alice's
// static token are not the same principal unless their names are), bad
// tokens get 401 naming the reason before any body is read, and a rotated
// key is picked up without a restart.
func TestJWTAuth(t *testing.T) {
	is := jwttest.New(t)
	up := newCountingUpstream(t, 2, 0)
	ts := serveYAML(t, `
auth:
  bearerTokens: {ops: ops-token-123}
  jwt: {jwksURL: "`+is.JWKSURL()+`", issuer: "`+is.Issuer+`", audience: "`+is.Audience+`", clockSkew: 5s, principalClaim: email}
agents: {a: {type: agui, url: "`+up.URL+`", a2ui: {disabled: true}}}`)
	tok := func(email string, mod func(jwt.MapClaims)) map[string]string {
		c := is.Claims("sub-" + email)
		c["email"] = email
		if mod != nil {
			mod(c)
		}
		return map[string]string{"Authorization": "Bearer " + is.Sign(t, c)}
	}
	carol := tok("carol@example.com", nil)
	if code, fs := runAll(t, ts.URL, "a", runJSON("t", "r1", "carol's secret"), carol); code != 200 || lastType(fs) != "RUN_FINISHED" {
		t.Fatalf("carol's run with a JWT: %d %s", code, lastType(fs))
	}
	// The static token still works, and is someone else.
	ops := map[string]string{"Authorization": "Bearer ops-token-123"}
	if code, _, h := getJSON(t, ts.URL+"/threads/t/messages", ops); code == 200 && strings.Contains(h, "carol's secret") {
		t.Errorf("the static token's principal sees carol's thread: %s", h)
	}
	dave := tok("dave@example.com", nil)
	if _, _, h := getJSON(t, ts.URL+"/threads/t/messages", dave); strings.Contains(h, "carol's secret") {
		t.Errorf("another JWT principal sees carol's thread: %s", h)
	}
	// A fresh token for carol (new iat, same claim) is the same principal.
	if code, _, h := getJSON(t, ts.URL+"/threads/t/messages", tok("carol@example.com", func(c jwt.MapClaims) { c["iat"] = time.Now().Add(-time.Second).Unix() })); code != 200 || !strings.Contains(h, "carol's secret") {
		t.Errorf("carol's thread with her next token = %d %s", code, h)
	}

	for _, c := range []struct {
		name    string
		headers map[string]string
		want    string
	}{
		{"expired", tok("carol@example.com", func(c jwt.MapClaims) { c["exp"] = time.Now().Add(-time.Minute).Unix() }), "expired"},
		{"wrong audience", tok("carol@example.com", func(c jwt.MapClaims) { c["aud"] = "another-service" }), "another audience"},
		{"no principal claim", tok("", func(c jwt.MapClaims) { delete(c, "email") }), `\"email\" claim`},
		{"claim named like a static token", tok("ops", nil), "static token"},
		{"garbage", map[string]string{"Authorization": "Bearer not-a-token"}, "not a JWT"},
		{"none", nil, "Bearer token is required"},
	} {
		r := doReq(t, "POST", ts.URL+"/agents/a/run", runJSON("t", "rx", "hi"), c.headers)
		b, _ := io.ReadAll(r.Body)
		r.Body.Close()
		if r.StatusCode != 401 || !strings.Contains(string(b), c.want) || !strings.Contains(string(b), `"unauthorized"`) {
			t.Errorf("%s: %d %s, want 401 naming %q", c.name, r.StatusCode, b, c.want)
		}
	}

	// Key rotation: a token signed by the new key works at once.
	is.Rotate(t, "ES256", false)
	if code, fs := runAll(t, ts.URL, "a", runJSON("t3", "r3", "after rotation"), tok("carol@example.com", nil)); code != 200 || lastType(fs) != "RUN_FINISHED" {
		t.Fatalf("run with a token from the rotated key: %d %s", code, lastType(fs))
	}
}

func TestJWTConfigErrors(t *testing.T) {
	for _, c := range []struct{ src, want string }{
		{`auth: {jwt: {issuer: i, audience: a}}`, "auth.jwt.jwksURL"},
		{`auth: {jwt: {jwksURL: "https://idp/jwks", audience: a}}`, "auth.jwt.issuer"},
		{`auth: {jwt: {jwksURL: "https://idp/jwks", issuer: i, audience: a, algorithms: [HS256]}}`, "auth.jwt.algorithms"},
		{`auth: {jwt: {jwksURL: "https://idp/jwks", issuer: i, audience: a}, trustedHeader: X-User}`, "not both"},
		{`auth: {jwt: {jwksURL: "https://idp/jwks", issuer: i, audience: a, skew: 1s}}`, "did you mean"},
	} {
		_, err := ParseConfig([]byte(c.src+"\nagents: {a: {type: demo}}"), func(string) string { return "" })
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want %q", c.src, err, c.want)
		}
	}
}
