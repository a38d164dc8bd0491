package adapter

import (
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"go.yaml.in/yaml/v3"
)

// aguiAt is an agui backend at url.
func aguiAt(url string) *AGUIConfig { return &AGUIConfig{UpstreamConfig: UpstreamConfig{URL: url}} }

func TestParseConfigErrors(t *testing.T) {
	env := map[string]string{"TOKEN": "s3cret"}
	getenv := func(k string) string { return env[k] }
	for _, tt := range []struct {
		name, yaml, wantMsg string
	}{
		{"unknown key", "listen: x\nagents: {demo: {type: demo}}\nlisten2: y\n", "listen2: unknown key (line 3) (did you mean listen?)"},
		{"unknown agent key", "agents:\n  orders:\n    type: agui\n    url: http://x\n    timeout: 5m\n", "agents.orders.timeout: unknown key (line 5) (did you mean idleTimeout?)"},
		{"unknown nested key", "runlog: {backend: memory, maxByte: 1}\nagents: {demo: {type: demo}}\n", "runlog.maxByte: unknown key (line 1) (did you mean maxBytes?)"},
		{"validation names its line", "agents:\n  a:\n    type: agui\n    url: 'ftp://x'\n", "agents.a.url: \"ftp://x\" is not an http(s) URL (line 4)"},
		{"no agents", "listen: 127.0.0.1:1\n", "at least one agent"},
		{"missing type", "agents: {a: {url: http://x}}\n", "agents.a.type: required"},
		{"unknown type", "agents: {a: {type: grpc}}\n", "unknown type \"grpc\""},
		{"agui without url", "agents: {a: {type: agui}}\n", "agents.a.url: required"},
		{"agui bad url", "agents: {a: {type: agui, url: 'ftp://x'}}\n", "not an http(s) URL"},
		{"bad agent id", "agents: {'a b': {type: demo}}\n", "agent ids may hold"},
		{"unset env", "agents: {a: {type: agui, url: http://x, headers: {Authorization: 'Bearer ${MISSING}'}}}\n", "MISSING is not set (line 1)"},
		{"bad duration", "heartbeat: soon\nagents: {demo: {type: demo}}\n", "not a duration"},
		{"cors wildcard with credentials", "cors: {origins: ['*'], credentials: true}\nagents: {demo: {type: demo}}\n", "cannot be used with credentials"},
		{"cors not an origin", "cors: {origins: ['https://a.example.com/path']}\nagents: {demo: {type: demo}}\n", "is not an origin"},
		{"negative cap", "maxBodyBytes: -1\nagents: {demo: {type: demo}}\n", "must not be negative"},
		{"yaml syntax", "agents: [\n", "yaml"},
		{"mcp server both", "mcpServers: {m: {command: [node], url: 'http://x'}}\nagents: {demo: {type: demo}}\n", "exactly one of command"},
		{"mcp server neither", "mcpServers: {m: {}}\nagents: {demo: {type: demo}}\n", "exactly one of command"},
		{"mcp url with credentials", "mcpServers: {m: {url: 'http://u:p@x/mcp'}}\nagents: {demo: {type: demo}}\n", "without credentials"},
		{"unknown mcp server", "agents: {demo: {type: demo, mcpServers: [nope]}}\n", "\"nope\" is not in mcpServers"},
		{"mcp protocol version", "mcpServers: {m: {url: 'http://x/mcp', protocolVersion: 2024-01-01}}\nagents: {demo: {type: demo}}\n", "mcpServers.m.protocolVersion: \"2024-01-01\" is not one of"},
		{"negative resource cap", "mcpApps: {maxResourceBytes: -1}\nagents: {demo: {type: demo}}\n", "must not be negative"},
		{"message cap under the resource cap", "mcpApps: {maxServerMessageBytes: 1048576}\nagents: {demo: {type: demo}}\n", "mcpApps.maxServerMessageBytes: 1048576 is not above the largest UI resource (maxResourceBytes, 4194304)"},
		{"negative message cap", "mcpApps:\n  maxServerMessageBytes: -1\nagents: {demo: {type: demo}}\n", "mcpApps.maxServerMessageBytes: must not be negative (line 2)"},
		{"negative mcpApps.maxKeptResources", "mcpApps:\n  maxKeptResources: -1\nagents: {demo: {type: demo}}\n", "mcpApps.maxKeptResources: must not be negative (line 2)"},
		{"negative mcpApps.maxInstructionBytes", "mcpApps:\n  maxInstructionBytes: -1\nagents: {demo: {type: demo}}\n", "mcpApps.maxInstructionBytes: must not be negative (line 2)"},
		{"negative mcpApps.maxCSPDomains", "mcpApps:\n  maxCSPDomains: -1\nagents: {demo: {type: demo}}\n", "mcpApps.maxCSPDomains: must not be negative (line 2)"},
		{"negative mcpApps.maxDownloadFiles", "mcpApps:\n  maxDownloadFiles: -1\nagents: {demo: {type: demo}}\n", "mcpApps.maxDownloadFiles: must not be negative (line 2)"},
		{"negative mcpApps.maxToolArgumentBytes", "mcpApps:\n  maxToolArgumentBytes: -1\nagents: {demo: {type: demo}}\n", "mcpApps.maxToolArgumentBytes: must not be negative (line 2)"},
		{"negative mcpApps.maxRoundBytes", "mcpApps:\n  maxRoundBytes: -1\nagents: {demo: {type: demo}}\n", "mcpApps.maxRoundBytes: must not be negative (line 2)"},
		{"negative mcpApps.maxViewLogCards", "mcpApps:\n  maxViewLogCards: -1\nagents: {demo: {type: demo}}\n", "mcpApps.maxViewLogCards: must not be negative (line 2)"},
		{"negative mcpApps.proxiedRequestTimeout", "mcpApps:\n  proxiedRequestTimeout: -1s\nagents: {demo: {type: demo}}\n", "mcpApps.proxiedRequestTimeout: must not be negative (line 2)"},
		{"negative mcpApps.sandboxTicketTTL", "mcpApps:\n  sandboxTicketTTL: -1m\nagents: {demo: {type: demo}}\n", "mcpApps.sandboxTicketTTL: must not be negative (line 2)"},
		{"runlog redis without url", "runlog: {backend: redis}\nagents: {demo: {type: demo}}\n", "runlog.url: required"},
		{"runlog unknown backend", "runlog: {backend: etcd}\nagents: {demo: {type: demo}}\n", "not memory or redis"},
		{"bad thread policy", "threadPolicy: queue\nagents: {demo: {type: demo}}\n", "not reject or supersede"},
		{"short token", "auth: {bearerTokens: {a: short}}\nagents: {demo: {type: demo}}\n", "at least 8"},
		{"two auth modes", "auth: {bearerTokens: {a: longenough1}, trustedHeader: X-User}\nagents: {demo: {type: demo}}\n", "not both"},
		{"bad a2ui version", "agents: {demo: {type: demo, a2ui: {version: v1}}}\n", "a2ui.version"},
		{"toolkit allowlist path", "toolkit: {urlAllowlist: ['https://a.example.com/docs']}\nagents: {demo: {type: demo}}\n", "toolkit.urlAllowlist[0]"},
		{"toolkit allowlist wildcard", "toolkit: {urlAllowlist: ['https://*.example.com']}\nagents: {demo: {type: demo}}\n", "no path or wildcard"},
		{"toolkit allowlist scheme", "toolkit: {urlAllowlist: ['javascript:x']}\nagents: {demo: {type: demo}}\n", "is not an origin"},
		{"download type with a parameter", "mcpApps: {downloadMIMETypes: ['text/csv; charset=utf-8']}\nagents: {demo: {type: demo}}\n", "mcpApps.downloadMIMETypes[0]"},
		{"download type wildcard", "mcpApps: {downloadMIMETypes: ['image/*']}\nagents: {demo: {type: demo}}\n", "no parameters or wildcards"},
		{"view log rate negative", "mcpApps: {viewLogRate: -1}\nagents: {demo: {type: demo}}\n", "mcpApps.viewLogRate"},
		{"toolkit negative cap", "toolkit: {maxRows: -1}\nagents: {demo: {type: demo}}\n", "must not be negative"},
		{"gcPercent below -1", "gcPercent: -2\nagents: {demo: {type: demo}}\n", "gcPercent: -1 (collections left to memoryLimit"},
		{"gcPercent off without a limit", "gcPercent: -1\nmemoryLimit: 0\nagents: {demo: {type: demo}}\n", "which must then be set"},
		{"toolkit unknown key", "toolkit: {maxRowz: 3}\nagents: {demo: {type: demo}}\n", "toolkit.maxRowz: unknown key"},
		{"wrong type names its key", "agents:\n  foo:\n    type: agui\n    url: http://x\n    maxToolRounds: lots\n", `agents.foo.maxToolRounds: cannot use "lots" as an integer (line 5)`},
		{"wrong top-level type", "listen: x\nmaxBodyBytes: lots\nagents: {demo: {type: demo}}\n", `maxBodyBytes: cannot use "lots" as an integer (line 2)`},
		{"list for a mapping", "agents: [demo]\n", "agents: cannot use a list as a mapping (key: value) (line 1)"},
		{"scalar for a list", "cors: {origins: https://a.example.com}\nagents: {demo: {type: demo}}\n", `cors.origins: cannot use "https://a.example.com" as a list`},
		{"mapping for a scalar", "listen: {host: x}\nagents: {demo: {type: demo}}\n", "listen: cannot use a mapping as a string (line 1)"},
		{"not a boolean", "debug:\n  pprof: maybe\nagents: {demo: {type: demo}}\n", `debug.pprof: cannot use "maybe" as a boolean (true or false) (line 2)`},
		{"bad agent duration", "agents:\n  demo:\n    type: demo\n    delay: soon\n", `agents.demo.delay: "soon" is not a duration like 15s (line 4)`},
		{"negative cap names its key", "listen: x\nhistory:\n  maxBytes: -1\nagents: {demo: {type: demo}}\n", "history.maxBytes: must not be negative (line 3)"},
		{"negative agent timeout", "agents:\n  a:\n    type: agui\n    url: http://x\n    idleTimeout: -1s\n", "agents.a.idleTimeout: must not be negative (line 5)"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			_, err := ParseConfig([]byte(tt.yaml), getenv)
			if !errors.Is(err, ErrConfig) {
				t.Fatalf("ParseConfig(%q) = %v, want an ErrConfig", tt.yaml, err)
			}
			if !strings.Contains(err.Error(), tt.wantMsg) {
				t.Errorf("ParseConfig(%q) = %q, want it to mention %q", tt.yaml, err, tt.wantMsg)
			}
		})
	}
}

// TestParseConfigReportsEveryError: every unknown key and wrong type, or
// every validation error, comes back at once, each with its path and line.
func TestParseConfigReportsEveryError(t *testing.T) {
	for _, tt := range []struct {
		name, yaml string
		want       []string
	}{
		{"keys and types", "listen2: x\nheartbeat: soon\nmaxBodyBytes: lots\nagents:\n  a: {type: demo, dealy: 1s}\n", []string{
			"listen2: unknown key (line 1) (did you mean listen?)",
			`heartbeat: "soon" is not a duration like 15s (line 2)`,
			`maxBodyBytes: cannot use "lots" as an integer (line 3)`,
			"agents.a.dealy: unknown key (line 5) (did you mean delay?)",
		}},
		{"validation", "threadPolicy: queue\nrunlog: {backend: etcd, leaseTTL: 2s, outageTolerance: 1s}\nagents:\n  a:\n    type: agui\n  b:\n    type: agui\n    url: 'ftp://x'\n    maxToolRounds: -1\n", []string{
			`threadPolicy: "queue" is not reject or supersede (line 1)`,
			`runlog.backend: "etcd" is not memory or redis (line 2)`,
			"runlog.outageTolerance: at least leaseTTL (2s) (line 2)",
			"agents.a.url: required for type agui (line 4)",
			`agents.b.url: "ftp://x" is not an http(s) URL (line 8)`,
			"agents.b.maxToolRounds: must not be negative (line 9)",
		}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			_, err := ParseConfig([]byte(tt.yaml), func(string) string { return "" })
			if !errors.Is(err, ErrConfig) {
				t.Fatalf("ParseConfig = %v, want an ErrConfig", err)
			}
			for _, w := range tt.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("the error lacks %q:\n%v", w, err)
				}
			}
			if n := strings.Count(err.Error(), "\n") + 1; n != len(tt.want) {
				t.Errorf("%d errors, want %d:\n%v", n, len(tt.want), err)
			}
		})
	}
}

func TestParseConfigDocumentedShape(t *testing.T) {
	src := `
listen: 127.0.0.1:9090
cors: {origins: ["https://app.example.com"], credentials: false}
heartbeat: 5s
agents:
  demo: {type: demo}
  orders:
    type: agui
    url: http://127.0.0.1:9000/agent
    description: Order lookup agent
    headers: {Authorization: "Bearer ${ORDERS_TOKEN}", X-Tenant: "${TENANT:-acme}", X-Cost: "$$5"}
    forwardHeaders: [x-request-id]
`
	cfg, err := ParseConfig([]byte(src), func(k string) string {
		if k == "ORDERS_TOKEN" {
			return "tok"
		}
		return ""
	})
	if err != nil {
		t.Fatal(err)
	}
	o := cfg.Agents["orders"].Backend.(*AGUIConfig)
	if got := o.Headers["Authorization"]; got != "Bearer tok" {
		t.Errorf("Authorization = %q", got)
	}
	if got := o.Headers["X-Tenant"]; got != "acme" {
		t.Errorf("X-Tenant = %q, want the default", got)
	}
	if got := o.Headers["X-Cost"]; got != "$5" {
		t.Errorf("X-Cost = %q, want $$ to become $", got)
	}
	if cfg.Listen != "127.0.0.1:9090" || cfg.heartbeat() != 5*time.Second || o.ForwardHeaders[0] != "x-request-id" || cfg.Agents["orders"].Description != "Order lookup agent" {
		t.Errorf("cfg = %+v", cfg)
	}
	if red := cfg.Redacted(); strings.Contains(red, "tok") || !strings.Contains(red, "<redacted>") {
		t.Errorf("Redacted() leaks a header value:\n%s", red)
	}
}

// Every secret a config can hold is hidden in the start-up print.
func TestRedactedHidesSecrets(t *testing.T) {
	cfg := Config{
		Auth:       AuthConfig{BearerTokens: map[string]string{"alice": "secret-bearer"}},
		MCPServers: map[string]MCPServerConfig{"m": {URL: "http://x/mcp", Headers: map[string]string{"Authorization": "secret-mcp"}}},
		Agents: map[string]AgentConfig{
			"a":  {Backend: &AGUIConfig{UpstreamConfig: UpstreamConfig{URL: "http://x", Headers: map[string]string{"Authorization": "secret-agui"}}}},
			"lg": {Backend: &LangGraphConfig{UpstreamConfig: UpstreamConfig{URL: "http://x"}, Graph: "g", APIKey: "secret-langsmith"}},
		},
	}
	red := cfg.Redacted()
	if strings.Contains(red, "secret") {
		t.Errorf("Redacted() leaks a secret:\n%s", red)
	}
	for _, want := range []string{"alice:", "Authorization:", "apiKey: <redacted>", "graph: g"} {
		if !strings.Contains(red, want) {
			t.Errorf("Redacted() lost %q:\n%s", want, red)
		}
	}
}

// TestDocsExamplesLoad: every YAML example in the README and in docs/
// loads as written, with no environment set.
func TestDocsExamplesLoad(t *testing.T) {
	files, err := filepath.Glob("../docs/*.md")
	if err != nil {
		t.Fatal(err)
	}
	files = append([]string{"../README.md"}, files...)
	total := 0
	for _, f := range files {
		text, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		blocks := strings.Split(string(text), "```yaml\n")[1:]
		total += len(blocks)
		for i, b := range blocks {
			src, _, _ := strings.Cut(b, "```")
			if _, err := ParseConfig([]byte(src), func(string) string { return "" }); err != nil {
				t.Errorf("%s: YAML example %d does not load: %v\n%s", f, i+1, err, src)
			}
		}
	}
	if total == 0 {
		t.Fatal("no YAML example in the README or docs/")
	}
}

// TestCommentsAreNotExpanded: a commented-out line may name a variable
// that is not set.
func TestCommentsAreNotExpanded(t *testing.T) {
	src := "agents: {demo: {type: demo}}  # set ${NOT_SET} later\n# sandboxKey: \"${ALSO_NOT_SET}\"\nlisten: \"127.0.0.1:1#${PORTLESS:-x}\"\n"
	cfg, err := ParseConfig([]byte(src), func(string) string { return "" })
	if err != nil || cfg.Listen != "127.0.0.1:1#x" {
		t.Errorf("ParseConfig = %+v, %v", cfg.Listen, err)
	}
}

// In the image the sandbox listens on 0.0.0.0:8081; the cards' origin
// must still be one a browser can open.
func TestSandboxOriginFromWildcardListen(t *testing.T) {
	for in, want := range map[string]string{
		"0.0.0.0:8081":   "127.0.0.1:8081",
		"[::]:8081":      "127.0.0.1:8081",
		":8081":          "127.0.0.1:8081",
		"10.1.2.3:8081":  "10.1.2.3:8081",
		"localhost:9000": "localhost:9000",
	} {
		if got := reachable(in); got != want {
			t.Errorf("reachable(%q) = %q, want %q", in, got, want)
		}
	}
}

// The shared deployment's instance config (examples/deploy, also the
// Kubernetes ConfigMap) loads with the variables the manifests set, and
// refuses to start without its keys.
func TestDeployInstanceConfigLoads(t *testing.T) {
	src, err := os.ReadFile("../examples/deploy/instance.yaml")
	if err != nil {
		t.Fatal(err)
	}
	env := map[string]string{"GENUI_SANDBOX_KEY": "k8s-sandbox-key-0123456789", "GENUI_CAPABILITY_KEY": "k8s-capability-key-0123"}
	cfg, err := ParseConfig(src, func(k string) string { return env[k] })
	if err != nil {
		t.Fatal(err)
	}
	if cfg.RunLog.Backend != "redis" || cfg.Auth.JWT == nil || cfg.SandboxOrigin != "https://sandbox.example.com" || cfg.MCPApps.CapabilityKey == "" {
		t.Errorf("instance config = %+v", cfg)
	}
	if _, err := ParseConfig(src, func(string) string { return "" }); err == nil || !strings.Contains(err.Error(), "GENUI_SANDBOX_KEY") {
		t.Errorf("without its keys: %v, want an error naming GENUI_SANDBOX_KEY", err)
	}
}

// TestAgentEntryDecodedAfterType: an agent entry decodes into its type's
// own config, and the decoder itself (yaml.Unmarshal, not only
// ParseConfig) refuses a key the type does not have, with its line.
func TestAgentEntryDecodedAfterType(t *testing.T) {
	var a AgentConfig
	if err := yaml.Unmarshal([]byte("type: langgraph\nurl: http://lg:2024\ngraph: g\nmessagesSnapshot: false\nmaxToolRounds: 2\n"), &a); err != nil {
		t.Fatal(err)
	}
	lg, ok := a.Backend.(*LangGraphConfig)
	if !ok || a.Type() != "langgraph" || lg.URL != "http://lg:2024" || lg.Graph != "g" || lg.MessagesSnapshot == nil || *lg.MessagesSnapshot || a.MaxToolRounds != 2 {
		t.Errorf("decoded %+v, backend %#v", a, a.Backend)
	}
	for _, tt := range []struct{ name, yaml, want string }{
		{"unknown key", "type: agui\nurl: http://x\ntimeout: 5m\n", "timeout: unknown key (line 3) (did you mean idleTimeout?)"},
		{"another type's key", "type: a2a\nurl: http://x\ngraph: g\n", "graph: only for type langgraph, not a2a (line 3)"},
		{"no type", "url: http://x\n", "type: required (a2a, agui, demo or langgraph)"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			var a AgentConfig
			err := yaml.Unmarshal([]byte(tt.yaml), &a)
			if !errors.Is(err, ErrConfig) || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("yaml.Unmarshal(%q) = %v, want an ErrConfig with %q", tt.yaml, err, tt.want)
			}
		})
	}
}

// TestAgentKeyOfAnotherType: a key that belongs to another agent type is
// refused with its path and line, naming the types that have it, even
// when its value is the zero one.
func TestAgentKeyOfAnotherType(t *testing.T) {
	for _, tt := range []struct{ name, yaml, want string }{
		{"graph on agui", "agents:\n  x:\n    type: agui\n    url: http://x\n    graph: weather\n", "agents.x.graph: only for type langgraph, not agui (line 5)"},
		{"url on demo", "agents:\n  d:\n    type: demo\n    url: http://x\n", "agents.d.url: only for types a2a, agui and langgraph, not demo (line 4)"},
		{"http2 false on langgraph", "agents:\n  lg:\n    type: langgraph\n    url: http://x\n    graph: g\n    http2: false\n", "agents.lg.http2: only for type agui, not langgraph (line 6)"},
		{"delay on a2a", "agents:\n  b: {type: a2a, url: 'http://x', delay: 1s}\n", "agents.b.delay: only for type demo, not a2a (line 2)"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			_, err := ParseConfig([]byte(tt.yaml), func(string) string { return "" })
			if !errors.Is(err, ErrConfig) || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("ParseConfig = %v, want an ErrConfig with %q", err, tt.want)
			}
		})
	}
}

// TestConfigProblemsJoined: the problems of several sections and agents
// come back together, as one errors.Join of one error each, every one
// naming its YAML path and line: first those of the keys and their kinds
// (the document cannot be decoded), then those of the values.
func TestConfigProblemsJoined(t *testing.T) {
	for _, tt := range []struct {
		name, yaml string
		want       []string
	}{
		{"keys", "listen: x\nlimits: {maxTailBytes: lots}\nagents:\n  a:\n    type: agui\n    url: http://x\n    graph: g\n    apiKey: k\n  d: {type: demo, http2: true}\n  z: {type: grpc}\n", []string{
			`limits.maxTailBytes: cannot use "lots" as an integer (line 2)`,
			"agents.a.graph: only for type langgraph, not agui (line 7)",
			"agents.a.apiKey: only for type langgraph, not agui (line 8)",
			"agents.d.http2: only for type agui, not demo (line 9)",
			`agents.z.type: unknown type "grpc" (want a2a, agui, demo or langgraph) (line 10)`,
		}},
		{"validation", "listen: x\ncors: {origins: ['https://a.example.com/x']}\nlimits:\n  maxTailBytes: -1\nmcpServers:\n  m: {}\nauth: {trustedProxies: [10.0.0.0/8]}\ntracing: {sampleRatio: 2}\nagents:\n  lg: {type: langgraph, url: 'http://x'}\n  a: {type: agui, url: 'http://x', upstreamThreads: all}\n", []string{
			`cors.origins: "https://a.example.com/x" is not an origin like https://app.example.com (line 2)`,
			"limits.maxTailBytes: must not be negative (line 4)",
			"mcpServers.m: set exactly one of command (stdio) or url (streamable HTTP) (line 6)",
			"auth.trustedProxies: only used with trustedHeader (line 7)",
			"tracing.sampleRatio: 2 is not between 0 and 1 (line 8)",
			"agents.lg.graph: required for type langgraph (the graph or assistant id) (line 10)",
			`agents.a.upstreamThreads: "all" is not scoped or client (line 11)`,
		}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			_, err := ParseConfig([]byte(tt.yaml), func(string) string { return "" })
			j, ok := err.(interface{ Unwrap() []error })
			if !ok {
				t.Fatalf("ParseConfig = %v, want errors joined", err)
			}
			errs := j.Unwrap()
			if len(errs) != len(tt.want) {
				t.Errorf("%d errors, want %d:\n%v", len(errs), len(tt.want), err)
			}
			for _, w := range tt.want {
				if !slices.ContainsFunc(errs, func(e error) bool { return errors.Is(e, ErrConfig) && e.Error() == "config: "+w }) {
					t.Errorf("no error %q in:\n%v", w, err)
				}
			}
		})
	}
}

// TestExampleConfigsLoad: every config file under examples/ loads as
// written (the variables it needs set), and the start-up print of each
// (Redacted) is a config of the same shape that loads again.
func TestExampleConfigsLoad(t *testing.T) {
	files, err := filepath.Glob("../examples/*/genui-adapter.yaml")
	if err != nil {
		t.Fatal(err)
	}
	files = append(files, "../examples/deploy/instance.yaml")
	if len(files) < 4 {
		t.Fatalf("only %d example configs: %q", len(files), files)
	}
	env := map[string]string{"GENUI_SANDBOX_KEY": "k8s-sandbox-key-0123456789", "GENUI_CAPABILITY_KEY": "k8s-capability-key-0123"}
	getenv := func(k string) string { return env[k] }
	for _, f := range files {
		src, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		cfg, err := ParseConfig(src, getenv)
		if err != nil {
			t.Errorf("%s does not load: %v", f, err)
			continue
		}
		again, err := ParseConfig([]byte(cfg.Redacted()), getenv)
		if err != nil {
			t.Errorf("%s: its Redacted() does not load: %v\n%s", f, err, cfg.Redacted())
			continue
		}
		for id, a := range cfg.Agents {
			if b := again.Agents[id]; b.Type() != a.Type() || b.Description != a.Description || !reflect.DeepEqual(b.MCPServers, a.MCPServers) {
				t.Errorf("%s: agent %s reloaded from Redacted() as %+v, want %+v", f, id, b, a)
			}
		}
	}
}
