package adapter

// Regression tests for the MCP Apps trust boundary issue, over HTTP.

import (
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"strings"
	"testing"

	"github.com/genui-adapter/genui-adapter/agui"
	"github.com/genui-adapter/genui-adapter/mcpapps"
)

// proxied posts a card's request on thread and returns RUN_FINISHED.result.
func proxied(t *testing.T, base, thread string, req map[string]any, hdr map[string]string) string {
	t.Helper()
	fp, _ := json.Marshal(map[string]any{"__proxiedMCPRequest": req})
	body := fmt.Sprintf(`{"threadId":%q,"runId":"px-%d","messages":[],"forwardedProps":%s}`, thread, nextProxied(), fp)
	code, fs := runAll(t, base, "demo", body, hdr)
	if code != 200 || len(fs) == 0 {
		t.Fatalf("proxied request = %d", code)
	}
	var fin struct {
		Type   string
		Result json.RawMessage
	}
	json.Unmarshal([]byte(fs[len(fs)-1].data), &fin)
	return string(fin.Result)
}

var proxiedN int

func nextProxied() int { proxiedN++; return proxiedN }

// showRefundCard runs the demo's "app" scenario on thread and returns the
// card's content.
func showRefundCard(t *testing.T, base, thread string, hdr map[string]string) mcpapps.Card {
	t.Helper()
	_, fs := runAll(t, base, "demo", runJSON(thread, "show-"+thread, "app"), hdr)
	for _, f := range fs {
		var ev struct {
			Type, ActivityType string
			Content            mcpapps.Card
		}
		json.Unmarshal([]byte(f.data), &ev)
		if ev.Type == "ACTIVITY_SNAPSHOT" && ev.ActivityType == "mcp-apps" {
			return ev.Content
		}
	}
	t.Fatalf("no card in %v", fs)
	return mcpapps.Card{}
}

func TestTrustCardCapabilities(t *testing.T) {
	ts := serveYAML(t, twoPrincipals+`agents: {demo: {type: demo, mcpServers: [refunds]}}`)
	decide := func(id string) map[string]any {
		return map[string]any{"method": "tools/call", "params": map[string]any{"name": "decide_refund", "arguments": map[string]any{"refundId": id, "decision": "approve"}}}
	}
	// No card was shown to anyone: naming the server is not enough.
	req := decide("RF-1002")
	req["serverId"] = "refunds"
	if got := proxied(t, ts.URL, "t", req, alice); !strings.Contains(got, `"code":-32600`) || !strings.Contains(got, "capability") {
		t.Fatalf("a card-less approval of RF-1002 = %s", got)
	}
	// A card shown to alice works for alice on her thread, and the
	// refund server records who approved.
	card := showRefundCard(t, ts.URL, "ta", alice)
	if !mcpapps.IsCapability(card.ServerHash) || card.ToolCallID == "" {
		t.Fatalf("card = %+v", card)
	}
	withCard := func(r map[string]any, c mcpapps.Card) map[string]any {
		r["serverHash"], r["serverId"] = c.ServerHash, c.ServerID
		return r
	}
	if got := proxied(t, ts.URL, "ta", withCard(decide("RF-1001"), card), bob); !strings.Contains(got, "another conversation") {
		t.Errorf("bob using alice's card = %s", got)
	}
	if got := proxied(t, ts.URL, "elsewhere", withCard(decide("RF-1001"), card), alice); !strings.Contains(got, "another conversation") {
		t.Errorf("alice's card on another thread = %s", got)
	}
	if got := proxied(t, ts.URL, "ta", withCard(map[string]any{"method": "resources/read", "params": map[string]any{"uri": "https://example.com/x"}}, card), alice); !strings.Contains(got, "only ui:// resources") {
		t.Errorf("a card reading a non-ui:// resource = %s", got)
	}
	got := proxied(t, ts.URL, "ta", withCard(decide("RF-1001"), card), alice)
	if !strings.Contains(got, `"status":"approved"`) || !strings.Contains(got, `"decidedBy":"alice"`) {
		t.Errorf("alice's approval through her card = %s", got)
	}
	// The thread replayed to alice carries her card, renewed; bob's
	// replay of "ta" is his own (empty) thread.
	_, h, raw := getJSON(t, ts.URL+"/threads/ta/messages", alice)
	if !strings.Contains(raw, `"activityType":"mcp-apps"`) || !strings.Contains(raw, "gcap1.") {
		t.Errorf("alice's history = %v", h)
	}
}

// TestTrustSandboxTickets: a sandbox ticket is issued only for a host
// origin the deployment serves: listed (publicOrigins, cors.origins) or
// the browser's own Origin, never one a forged Host names.
func TestTrustSandboxTickets(t *testing.T) {
	ts := serveYAML(t, twoPrincipals+`cors: {origins: ["https://app.example.com"]}
agents: {demo: {type: demo, mcpServers: [refunds]}}`)
	card := showRefundCard(t, ts.URL, "t", alice)
	body := func(origin string) string {
		b, _ := json.Marshal(map[string]any{"serverHash": card.ServerHash, "serverId": card.ServerID, "uri": card.ResourceURI, "hostOrigin": origin})
		return string(b)
	}
	with := func(base map[string]string, kv ...string) map[string]string {
		h := maps.Clone(base)
		for i := 0; i+1 < len(kv); i += 2 {
			h[kv[i]] = kv[i+1]
		}
		return h
	}
	self := with(alice, "Origin", ts.URL)
	for _, tt := range []struct {
		name   string
		body   string
		hdr    map[string]string
		status int
	}{
		{"no credentials", body(ts.URL), map[string]string{"Origin": ts.URL}, 401},
		{"an origin not on the allowlist", body("https://evil.example"), alice, 403},
		{"another principal's card", body(ts.URL), with(bob, "Origin", ts.URL), 403},
		{"the browser's own origin", body(ts.URL), self, 200},
		{"the browser's own origin, spelled otherwise", body(strings.ToUpper(ts.URL)), self, 200},
		{"a trailing dot", body("https://app.example.com."), alice, 403},
		{"a CORS origin", body("https://app.example.com"), alice, 200},
		{"a CORS origin with the default port", body("https://app.example.com:443"), alice, 200},
		{"the service's host without an Origin", body(ts.URL), alice, 403},
		{"a forged Host, no Origin", body("https://evil.example"), with(alice, "Host", "evil.example"), 403},
		{"another origin than the request's", body("https://evil.example"), self, 403},
		{"a path", body(ts.URL + "/page"), self, 403},
		{"userinfo", body(strings.Replace(ts.URL, "://", "://u@", 1)), self, 403},
	} {
		r := doReq(t, "POST", ts.URL+"/mcp-apps/sandbox", tt.body, tt.hdr)
		b, _ := io.ReadAll(r.Body)
		r.Body.Close()
		if r.StatusCode != tt.status {
			t.Errorf("%s: %d %s, want %d", tt.name, r.StatusCode, b, tt.status)
		}
	}

	// Naming the server is not enough (as for a card's proxied requests):
	// without the card's capability the adapter reads nothing for the
	// caller, unless the deployment accepts plain server hashes.
	plain := func(field, value string) string {
		b, _ := json.Marshal(map[string]any{field: value, "uri": card.ResourceURI, "hostOrigin": ts.URL})
		return string(b)
	}
	for _, tt := range []struct{ name, body string }{
		{"a plain serverId", plain("serverId", card.ServerID)},
		{"a plain serverHash", plain("serverHash", "5d41402abc4b2a76")},
	} {
		r := doReq(t, "POST", ts.URL+"/mcp-apps/sandbox", tt.body, self)
		b, _ := io.ReadAll(r.Body)
		r.Body.Close()
		if r.StatusCode != 403 || !strings.Contains(string(b), "capability_required") {
			t.Errorf("%s: %d %s, want 403 capability_required", tt.name, r.StatusCode, b)
		}
	}
	lax := serveYAML(t, twoPrincipals+`mcpApps: {acceptPlainServerHash: true}
agents: {demo: {type: demo, mcpServers: [refunds]}}`)
	b, _ := json.Marshal(map[string]any{"serverId": card.ServerID, "uri": card.ResourceURI, "hostOrigin": lax.URL})
	if r := doReq(t, "POST", lax.URL+"/mcp-apps/sandbox", string(b), with(alice, "Origin", lax.URL)); r.StatusCode != 200 {
		t.Errorf("a plain serverId with acceptPlainServerHash: %d, want 200", r.StatusCode)
	}

	// With publicOrigins, only listed origins get tickets.
	ts = serveYAML(t, twoPrincipals+`publicOrigins: ["https://chat.example.com"]
agents: {demo: {type: demo, mcpServers: [refunds]}}`)
	card = showRefundCard(t, ts.URL, "t", alice)
	for _, tt := range []struct {
		name   string
		body   string
		hdr    map[string]string
		status int
	}{
		{"a public origin", body("https://chat.example.com"), alice, 200},
		{"a public origin behind a forged Host", body("https://chat.example.com"), with(alice, "Host", "evil.example"), 200},
		{"an unlisted Origin", body(ts.URL), with(alice, "Origin", ts.URL), 403},
	} {
		r := doReq(t, "POST", ts.URL+"/mcp-apps/sandbox", tt.body, tt.hdr)
		b, _ := io.ReadAll(r.Body)
		r.Body.Close()
		if r.StatusCode != tt.status {
			t.Errorf("publicOrigins, %s: %d %s, want %d", tt.name, r.StatusCode, b, tt.status)
		}
	}
}

var _ = agui.CheckID

// A shared deployment (auth on) with MCP servers and no publicOrigins is
// told at start that tickets follow the request's Origin.
func TestPublicOriginsWarning(t *testing.T) {
	for _, tc := range []struct {
		name, yaml string
		warn       bool
	}{
		{"auth, no publicOrigins", twoPrincipals + "agents: {d: {type: demo, mcpServers: [genui]}}\n", true},
		{"auth and publicOrigins", twoPrincipals + "publicOrigins: [\"https://app.example\"]\nagents: {d: {type: demo, mcpServers: [genui]}}\n", false},
		{"no auth (one person's demo)", "agents: {d: {type: demo, mcpServers: [genui]}}\n", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cfg, err := ParseConfig([]byte(tc.yaml), func(string) string { return "" })
			if err != nil {
				t.Fatal(err)
			}
			logger, logs := keptLog()
			s, err := NewServer(logger, cfg)
			if err != nil {
				t.Fatal(err)
			}
			s.Close()
			if got := strings.Contains(logs(), "publicOrigins is not set"); got != tc.warn {
				t.Errorf("warned = %v, want %v; log:\n%s", got, tc.warn, logs())
			}
		})
	}
}
