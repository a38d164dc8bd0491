package adapter

import (
	"strings"
	"testing"
)

// TestCardStateKeptPerCard: a card's last ui/update-model-context is kept
// on its thread and handed back to the same card (a reload), never to
// another principal or thread; one over mcpApps.maxCardStateBytes is
// refused with -32602.
func TestCardStateKeptPerCard(t *testing.T) {
	ts := serveYAML(t, twoPrincipals+"mcpApps: {maxCardStateBytes: 200}\nagents: {demo: {type: demo, mcpServers: [refunds]}}")
	card := showRefundCard(t, ts.URL, "ta", alice)
	other := showRefundCard(t, ts.URL, "tb", alice)
	req := func(method string, params map[string]any) map[string]any {
		return map[string]any{"serverHash": card.ServerHash, "serverId": card.ServerID, "method": method, "params": params}
	}
	get := req("genui-adapter/card-state", map[string]any{})
	if got := proxied(t, ts.URL, "ta", get, alice); got != `{"modelContext":null}` {
		t.Fatalf("state before any update = %s", got)
	}
	for _, text := range []string{"first", "RF-1001 approved"} {
		set := req("ui/update-model-context", map[string]any{"content": []any{map[string]any{"type": "text", "text": text}}})
		if got := proxied(t, ts.URL, "ta", set, alice); got != `{}` {
			t.Fatalf("update-model-context = %s", got)
		}
	}
	if got := proxied(t, ts.URL, "ta", get, alice); !strings.Contains(got, "RF-1001 approved") || strings.Contains(got, "first") {
		t.Errorf("the kept state = %s, want the last update", got)
	}
	// Another card (of another thread) has its own: none.
	otherGet := map[string]any{"serverHash": other.ServerHash, "serverId": other.ServerID, "method": "genui-adapter/card-state", "params": map[string]any{}}
	if got := proxied(t, ts.URL, "tb", otherGet, alice); got != `{"modelContext":null}` {
		t.Errorf("another card's state = %s", got)
	}
	// Bob with alice's card, alice's card on another thread: refused.
	if got := proxied(t, ts.URL, "ta", get, bob); !strings.Contains(got, `"code":-32600`) || strings.Contains(got, "approved") {
		t.Errorf("bob read alice's card state: %s", got)
	}
	if got := proxied(t, ts.URL, "elsewhere", get, alice); !strings.Contains(got, `"code":-32600`) || strings.Contains(got, "approved") {
		t.Errorf("the card state was read on another thread: %s", got)
	}
	big := req("ui/update-model-context", map[string]any{"content": []any{map[string]any{"type": "text", "text": strings.Repeat("x", 300)}}})
	if got := proxied(t, ts.URL, "ta", big, alice); !strings.Contains(got, `"code":-32602`) || !strings.Contains(got, "maxCardStateBytes") {
		t.Errorf("an oversized model context = %s", got)
	}
	if got := proxied(t, ts.URL, "ta", get, alice); !strings.Contains(got, "RF-1001 approved") {
		t.Errorf("the refused update replaced the state: %s", got)
	}
}
