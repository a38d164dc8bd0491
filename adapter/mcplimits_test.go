package adapter

import (
	"encoding/base64"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/genui-adapter/genui-adapter/mcpapps"
)

// Each mcpApps limit reaches the mcpapps option it sets; unset, the
// option is zero (mcpapps's default).
func TestMCPAppsLimitsReachOptions(t *testing.T) {
	cfg, err := ParseConfig([]byte(`mcpApps:
  maxKeptResources: 2
  maxInstructionBytes: 10
  maxCSPDomains: 3
  maxDownloadFiles: 2
  maxToolArgumentBytes: 100
  maxRoundBytes: 1000
  proxiedRequestTimeout: 5s
  maxViewLogCards: 7
  maxServerMessageBytes: 33554432
agents: {demo: {type: demo}}
`), func(string) string { return "" })
	if err != nil {
		t.Fatal(err)
	}
	m := cfg.MCPApps
	if got, want := m.poolOptions(), (mcpapps.PoolOptions{MaxKeptResources: 2, MaxInstructionBytes: 10, MaxCSPDomains: 3}); got.MaxKeptResources != want.MaxKeptResources || got.MaxInstructionBytes != want.MaxInstructionBytes || got.MaxCSPDomains != want.MaxCSPDomains {
		t.Errorf("pool options %+v, want %+v", got, want)
	}
	if got := m.poolOptions().MaxMessageBytes; got != 32<<20 {
		t.Errorf("pool MaxMessageBytes %d, want 32 MiB", got)
	}
	if got := m.viewLogOptions(); got.MaxCards != 7 {
		t.Errorf("view log options %+v, want MaxCards 7", got)
	}
	c := m.middleware(mcpapps.Config{})
	if c.Downloads.MaxFiles != 2 || c.MaxToolArgumentBytes != 100 || c.MaxRoundBytes != 1000 || c.ProxiedRequestTimeout != 5*time.Second {
		t.Errorf("middleware config: downloads %+v, arguments %d, round %d, timeout %v", c.Downloads, c.MaxToolArgumentBytes, c.MaxRoundBytes, c.ProxiedRequestTimeout)
	}
	var zero MCPAppsConfig
	if p := zero.poolOptions(); p.MaxKeptResources != 0 || p.MaxInstructionBytes != 0 || p.MaxCSPDomains != 0 || zero.viewLogOptions() != (mcpapps.ViewLogOptions{}) {
		t.Errorf("an empty mcpApps sets options: %+v %+v", p, zero.viewLogOptions())
	}
}

// mcpApps.sandboxTicketTTL is how long the sandbox URL of a card is
// valid (default 10 minutes).
func TestSandboxTicketTTLConfig(t *testing.T) {
	for _, tt := range []struct {
		yaml string
		want time.Duration
	}{{"", 10 * time.Minute}, {"mcpApps: {sandboxTicketTTL: 1m}\n", time.Minute}} {
		cfg, err := ParseConfig([]byte(tt.yaml+"agents: {demo: {type: demo}}\n"), func(string) string { return "" })
		if err != nil {
			t.Fatal(err)
		}
		s, err := NewServer(nil, cfg)
		if err != nil {
			t.Fatal(err)
		}
		u, err := s.sandbox.URL(nil, "http://localhost:3000")
		s.Close()
		if err != nil {
			t.Fatal(err)
		}
		payload, _, _ := strings.Cut(u[strings.Index(u, "?t=")+3:], ".")
		b, _ := base64.RawURLEncoding.DecodeString(payload)
		var tk struct {
			Exp int64 `json:"e"`
		}
		if err := json.Unmarshal(b, &tk); err != nil {
			t.Fatalf("ticket %q: %v", payload, err)
		}
		if got := time.Until(time.Unix(tk.Exp, 0)); got < tt.want-5*time.Second || got > tt.want+time.Second {
			t.Errorf("config %q: the ticket is valid for %v, want %v", tt.yaml, got, tt.want)
		}
	}
}
