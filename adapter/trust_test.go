package adapter

// Regression tests for the MCP Apps trust boundary issue, over HTTP.

import (
	"encoding/json"
	"fmt"
	"io"
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
	if got := proxied(t, ts.URL, "t", req, alice); !strings.Contains(got, `"isError":true`) || !strings.Contains(got, "capability") {
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

func TestTrustSandboxTickets(t *testing.T) {
	ts := serveYAML(t, twoPrincipals+`cors: {origins: ["https://app.example.com"]}
agents: {demo: {type: demo, mcpServers: [refunds]}}`)
	card := showRefundCard(t, ts.URL, "t", alice)
	body := func(origin string) string {
		b, _ := json.Marshal(map[string]any{"serverHash": card.ServerHash, "serverId": card.ServerID, "uri": card.ResourceURI, "hostOrigin": origin})
		return string(b)
	}
	for _, tt := range []struct {
		name   string
		body   string
		hdr    map[string]string
		status int
	}{
		{"no credentials", body(ts.URL), nil, 401},
		{"an origin not on the allowlist", body("https://evil.example"), alice, 403},
		{"another principal's card", body(ts.URL), bob, 403},
		{"the service's own origin", body(ts.URL), alice, 200},
		{"a CORS origin", body("https://app.example.com"), alice, 200},
	} {
		r := doReq(t, "POST", ts.URL+"/mcp-apps/sandbox", tt.body, tt.hdr)
		b, _ := io.ReadAll(r.Body)
		r.Body.Close()
		if r.StatusCode != tt.status {
			t.Errorf("%s: %d %s, want %d", tt.name, r.StatusCode, b, tt.status)
		}
	}
}

var _ = agui.CheckID
