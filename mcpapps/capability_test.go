package mcpapps

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/genui-adapter/genui-adapter/agui"
)

func TestCapabilities(t *testing.T) {
	now := time.Unix(1_800_000_000, 0)
	c := NewCapabilities([]byte("k"), time.Hour)
	c.now = func() time.Time { return now }
	tok := c.Mint(Capability{Server: "s", Resource: "ui://s/x.html", ToolCall: "c1", Principal: "alice", Thread: "t", Tools: []string{"go"}})
	if !IsCapability(tok) {
		t.Fatalf("token %q", tok)
	}
	cp, err := c.CheckFor(tok, "alice", "t")
	if err != nil || cp.Server != "s" || !cp.allows("go") || cp.allows("other") {
		t.Fatalf("CheckFor = %+v, %v", cp, err)
	}
	for _, tt := range []struct {
		name, tok, principal, thread string
		want                         error
	}{
		{"missing", "", "alice", "t", ErrNoCapability},
		{"plain hash", "d41d8cd98f00b204e9800998ecf8427e", "alice", "t", ErrNoCapability},
		{"forged signature", tok[:len(tok)-2] + "xx", "alice", "t", ErrForgedCapability},
		{"forged claims", capPrefix + "eyJzIjoicyIsInAiOiJib2IifQ." + strings.SplitN(tok, ".", 3)[2], "bob", "t", ErrForgedCapability},
		{"garbage", capPrefix + "!!!", "alice", "t", ErrForgedCapability},
		{"another principal", tok, "bob", "t", ErrForeignCapability},
		{"another thread", tok, "alice", "t2", ErrForeignCapability},
	} {
		if _, err := c.CheckFor(tt.tok, tt.principal, tt.thread); !errors.Is(err, tt.want) {
			t.Errorf("%s: %v, want %v", tt.name, err, tt.want)
		}
	}
	now = now.Add(61 * time.Minute)
	if _, err := c.CheckFor(tok, "alice", "t"); !errors.Is(err, ErrExpiredCapability) {
		t.Errorf("after its TTL: %v", err)
	}
	// A replayed thread renews its owner's cards, not anyone else's.
	content, _ := json.Marshal(map[string]any{"serverHash": tok, "resourceUri": "ui://s/x.html"})
	var renewed struct{ ServerHash string }
	json.Unmarshal(c.Renew(content, "alice", "t"), &renewed)
	if _, err := c.CheckFor(renewed.ServerHash, "alice", "t"); err != nil {
		t.Errorf("renewed capability: %v", err)
	}
	if got := c.Renew(content, "bob", "t"); string(got) != string(content) {
		t.Errorf("bob renewed alice's card")
	}
}

// TestExpiredCapabilityRefused: an expired card cannot call.
func TestExpiredCapabilityRefused(t *testing.T) {
	p, err := NewPool(nil, PoolOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	c := NewCapabilities(nil, time.Minute)
	tok := c.Mint(Capability{Server: "s", Principal: "alice", Thread: "t", Tools: []string{"go"}})
	c.now = func() time.Time { return time.Now().Add(2 * time.Minute) }
	raw, _ := json.Marshal(map[string]any{"serverHash": tok, "method": "tools/call", "params": map[string]any{"name": "go"}})
	var logged bytes.Buffer
	got, ours := answerProxied(context.Background(), p, Config{Servers: []string{"s"}, Caps: c}, &agui.Request{Input: &agui.RunAgentInput{ThreadID: "t", RunID: "r"}, Principal: "alice"}, raw, slog.New(slog.NewTextHandler(&logged, nil)))
	if !ours || !strings.Contains(string(got), "expired") || !strings.Contains(string(got), `"code":-32600`) || logged.Len() == 0 {
		t.Errorf("expired capability: %s (ours %v, logged %q)", got, ours, logged.String())
	}
}
