package adapter

import (
	"bytes"
	"errors"
	"fmt"
	"net/url"
	"os"
	"regexp"
	"sort"
	"strings"
	"time"

	"go.yaml.in/yaml/v3"
)

// Config is the whole service configuration (genui-adapter.yaml).
type Config struct {
	// Listen is the address of the main listener.
	Listen string `yaml:"listen"`
	// LogLevel is debug, info, warn or error.
	LogLevel string `yaml:"logLevel,omitempty"`
	CORS     CORS   `yaml:"cors,omitempty"`
	// Heartbeat is the idle time after which a ": keep-alive" comment is
	// written to an SSE stream. Zero means 15 s.
	Heartbeat Duration `yaml:"heartbeat,omitempty"`
	// MaxBodyBytes caps request bodies. Zero means 8 MiB.
	MaxBodyBytes int64 `yaml:"maxBodyBytes,omitempty"`
	// MaxEventBytes caps one upstream event. Zero means 10 MiB.
	MaxEventBytes int `yaml:"maxEventBytes,omitempty"`
	// ShutdownGrace is how long running streams may go on after SIGTERM
	// before they are ended with RUN_ERROR{code:"shutdown"}. Zero means 10 s.
	ShutdownGrace Duration `yaml:"shutdownGrace,omitempty"`
	// Agents maps agent ids to their configuration.
	Agents map[string]AgentConfig `yaml:"agents"`
	// SandboxListen is the address of the MCP Apps sandbox origin (default
	// 127.0.0.1:8081; started when MCP servers are configured).
	SandboxListen string `yaml:"sandboxListen,omitempty"`
	// SandboxOrigin is the sandbox's public origin (default
	// http://<sandboxListen>). It must differ from the main origin.
	SandboxOrigin string `yaml:"sandboxOrigin,omitempty"`
	// SandboxKey signs sandbox tickets; instances sharing a sandbox origin
	// need the same key (default: random per process).
	SandboxKey string `yaml:"sandboxKey,omitempty"`
	// MCPServers are the MCP servers agents may use (by id).
	MCPServers map[string]MCPServerConfig `yaml:"mcpServers,omitempty"`
	// RunLog keeps runs' events for resume, cancel and history.
	RunLog RunLogConfig `yaml:"runlog,omitempty"`
	// Auth binds runs to principals; without it everyone is "anonymous".
	Auth AuthConfig `yaml:"auth,omitempty"`
	// DetachGrace is how long a run goes on with no client attached
	// before it is cancelled (default 30 s).
	// 0s cancels the run as soon as its last reader goes away.
	DetachGrace *Duration `yaml:"detachGrace,omitempty"`
	// ThreadPolicy says what a run on a busy thread does: "reject" (409,
	// default) or "supersede" (the old run is cancelled).
	ThreadPolicy string `yaml:"threadPolicy,omitempty"`
	// CopilotKit serves the CopilotRuntime v2 routes so that a CopilotKit
	// frontend talks to the adapter directly.
	CopilotKit CopilotKitConfig `yaml:"copilotkit,omitempty"`
	// PlaygroundVendor is the folder `make playground-vendor` builds the
	// playground's A2UI renderer bundle into (default "playground-vendor").
	PlaygroundVendor string `yaml:"playgroundVendor,omitempty"`
	// InstanceID names this process in run records (default: random).
	InstanceID string `yaml:"instanceId,omitempty"`
}

// MCPServerConfig says how to reach an MCP server: a stdio command or a
// streamable HTTP URL with headers.
type MCPServerConfig struct {
	Command []string          `yaml:"command,omitempty"`
	URL     string            `yaml:"url,omitempty"`
	Headers map[string]string `yaml:"headers,omitempty"`
}

// CopilotKitConfig places the CopilotRuntime routes.
type CopilotKitConfig struct {
	// BasePath is the runtimeUrl path (default /api/copilotkit).
	BasePath string `yaml:"basePath,omitempty"`
	// Disabled turns the routes off.
	Disabled bool `yaml:"disabled,omitempty"`
}

func (c CopilotKitConfig) base() string {
	if c.BasePath == "" {
		return "/api/copilotkit"
	}
	return "/" + strings.Trim(c.BasePath, "/")
}

// RunLogConfig selects the run log backend.
type RunLogConfig struct {
	// Backend is "memory" (default) or "redis".
	Backend string `yaml:"backend,omitempty"`
	// URL is the Redis URL (redis://host:port/db).
	URL string `yaml:"url,omitempty"`
	// Retention keeps ended runs and histories this long (default 1 h).
	Retention Duration `yaml:"retention,omitempty"`
	// MaxEventsPerRun caps one run's kept events (default 100 000).
	MaxEventsPerRun int `yaml:"maxEventsPerRun,omitempty"`
	// MaxBytes caps the memory backend's event bytes (default 256 MiB).
	MaxBytes int64 `yaml:"maxBytes,omitempty"`
	// Prefix namespaces Redis keys (default "genui:").
	Prefix string `yaml:"prefix,omitempty"`
}

// AuthConfig says who is calling. With BearerTokens, every run, resume,
// cancel and history request needs "Authorization: Bearer <token>" and the
// principal is the token's name; with TrustedHeader (set by a proxy you
// trust) the principal is that header's value.
type AuthConfig struct {
	BearerTokens  map[string]string `yaml:"bearerTokens,omitempty"`
	TrustedHeader string            `yaml:"trustedHeader,omitempty"`
}

// CORS is the cross-origin policy: an exact list of allowed origins.
type CORS struct {
	Origins     []string `yaml:"origins,omitempty"`
	Credentials bool     `yaml:"credentials,omitempty"`
}

// AgentConfig configures one agent.
type AgentConfig struct {
	// Type is "demo", "agui" (an AG-UI endpoint) or "langgraph" (a
	// LangGraph Agent Server: url plus graph).
	Type string `yaml:"type"`
	// Graph is the LangGraph graph or assistant id (langgraph only).
	Graph string `yaml:"graph,omitempty"`
	// APIKey is sent as x-api-key to a LangGraph server (langgraph only).
	APIKey string `yaml:"apiKey,omitempty"`
	// AssistantConfig is merged into every LangGraph run's config.
	AssistantConfig map[string]any `yaml:"assistantConfig,omitempty"`
	URL             string         `yaml:"url,omitempty"`
	Description     string         `yaml:"description,omitempty"`
	// Headers are sent to the upstream with every request.
	Headers map[string]string `yaml:"headers,omitempty"`
	// ForwardHeaders lists inbound headers copied to the upstream.
	ForwardHeaders []string `yaml:"forwardHeaders,omitempty"`
	// ConnectTimeout bounds the wait for upstream response headers.
	ConnectTimeout Duration `yaml:"connectTimeout,omitempty"`
	// IdleTimeout ends a silent upstream stream.
	IdleTimeout Duration `yaml:"idleTimeout,omitempty"`
	// Delay paces the demo agent's events (demo only).
	Delay Duration `yaml:"delay,omitempty"`
	// A2UI configures structured tool results as A2UI surfaces.
	A2UI A2UIConfig `yaml:"a2ui,omitempty"`
	// MCPServers binds MCP servers (ids of the top-level mcpServers) whose
	// tools the agent may call; UI tools render as MCP Apps cards.
	MCPServers []string `yaml:"mcpServers,omitempty"`
	// MaxToolRounds bounds the follow-up runs after MCP tool calls
	// (default 5).
	MaxToolRounds int `yaml:"maxToolRounds,omitempty"`
	// Render says how structured tool results are shown: "a2ui" (A2UI
	// surfaces), "mcp-apps" (cards of the built-in data view) or both.
	// Default [a2ui]. A run may ask for others in forwardedProps.genuiRender.
	Render []string `yaml:"render,omitempty"`
}

// A2UIConfig is the per-agent A2UI middleware configuration. Surfaces are
// on by default for every tool.
type A2UIConfig struct {
	Disabled   bool     `yaml:"disabled,omitempty"`
	Tools      []string `yaml:"tools,omitempty"`
	DenyTools  []string `yaml:"denyTools,omitempty"`
	MaxRows    int      `yaml:"maxRows,omitempty"`
	CatalogID  string   `yaml:"catalogId,omitempty"`
	Version    string   `yaml:"version,omitempty"`
	ActionMode string   `yaml:"actionMode,omitempty"`
	RowAction  string   `yaml:"rowAction,omitempty"`
}

// Duration is a time.Duration written as "15s" in YAML.
type Duration time.Duration

// UnmarshalYAML implements yaml.Unmarshaler.
func (d *Duration) UnmarshalYAML(n *yaml.Node) error {
	v, err := time.ParseDuration(n.Value)
	if err != nil {
		return fmt.Errorf("line %d: %q is not a duration like 15s", n.Line, n.Value)
	}
	*d = Duration(v)
	return nil
}

// MarshalYAML implements yaml.Marshaler.
func (d Duration) MarshalYAML() (any, error) { return time.Duration(d).String(), nil }

// Default configuration values.
const (
	DefaultListen        = "127.0.0.1:8080"
	DefaultHeartbeat     = 15 * time.Second
	DefaultMaxBodyBytes  = 8 << 20
	DefaultShutdownGrace = 10 * time.Second
)

// DefaultConfig is what the service runs with no config file: the built-in
// demo agent on 127.0.0.1:8080.
func DefaultConfig() Config {
	return Config{
		Listen: DefaultListen,
		Agents: map[string]AgentConfig{"demo": {Type: "demo", Description: "Built-in scripted demo agent (no LLM): say table, record, metrics, chart, form, app or error",
			Delay: Duration(30 * time.Millisecond), MCPServers: []string{"refunds"}}},
	}
}

// ErrConfig is wrapped by every configuration error.
var ErrConfig = errors.New("config")

var envRef = regexp.MustCompile(`\$\$|\$\{([A-Za-z_][A-Za-z0-9_]*)(:-([^}]*))?\}`)

// expandEnv replaces ${VAR} and ${VAR:-default}; $$ is a literal $. An
// unset variable without a default is an error naming it.
func expandEnv(src []byte, getenv func(string) string) ([]byte, error) {
	var missing []string
	out := envRef.ReplaceAllFunc(src, func(m []byte) []byte {
		if string(m) == "$$" {
			return []byte("$")
		}
		sub := envRef.FindSubmatch(m)
		name := string(sub[1])
		if v := getenv(name); v != "" {
			return []byte(v)
		}
		if sub[2] != nil {
			return sub[3]
		}
		missing = append(missing, name)
		return nil
	})
	if len(missing) > 0 {
		return nil, fmt.Errorf("%w: environment variable %s is not set (use ${%s:-default} for a default)", ErrConfig, strings.Join(missing, ", "), missing[0])
	}
	return out, nil
}

// LoadConfig reads a YAML config file, substituting environment variables,
// and validates it. Unknown keys are errors.
func LoadConfig(path string, getenv func(string) string) (Config, error) {
	src, err := os.ReadFile(path)
	if err != nil {
		return Config{}, fmt.Errorf("%w: %w", ErrConfig, err)
	}
	return ParseConfig(src, getenv)
}

// ParseConfig parses and validates YAML config text.
func ParseConfig(src []byte, getenv func(string) string) (Config, error) {
	src, err := expandEnv(src, getenv)
	if err != nil {
		return Config{}, err
	}
	cfg := Config{Listen: DefaultListen}
	dec := yaml.NewDecoder(bytes.NewReader(src))
	dec.KnownFields(true)
	if err := dec.Decode(&cfg); err != nil {
		return Config{}, fmt.Errorf("%w: %w", ErrConfig, err)
	}
	if err := cfg.Validate(); err != nil {
		return Config{}, err
	}
	return cfg, nil
}

var agentID = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9_.-]*$`)

// Validate reports the first problem with the configuration.
func (c *Config) Validate() error {
	bad := func(format string, args ...any) error {
		return fmt.Errorf("%w: %s", ErrConfig, fmt.Sprintf(format, args...))
	}
	if c.Listen == "" {
		return bad("listen: must not be empty")
	}
	if len(c.Agents) == 0 {
		return bad("agents: at least one agent is required")
	}
	for _, o := range c.CORS.Origins {
		if o == "*" {
			if c.CORS.Credentials {
				return bad("cors.origins: \"*\" cannot be used with credentials: true; list the origins")
			}
			continue
		}
		u, err := url.Parse(o)
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || u.Path != "" {
			return bad("cors.origins: %q is not an origin like https://app.example.com", o)
		}
	}
	switch c.RunLog.Backend {
	case "", "memory":
	case "redis":
		if c.RunLog.URL == "" {
			return bad("runlog.url: required for backend redis (redis://127.0.0.1:6379/0)")
		}
	default:
		return bad("runlog.backend: %q is not memory or redis", c.RunLog.Backend)
	}
	for _, id := range sortedKeys(c.MCPServers) {
		m := c.MCPServers[id]
		if !agentID.MatchString(id) {
			return bad("mcpServers.%s: ids may hold letters, digits, '_', '-' and '.'", id)
		}
		if builtinServer(id) {
			return bad("mcpServers.%s: %q is a built-in server's id", id, id)
		}
		if (len(m.Command) > 0) == (m.URL != "") {
			return bad("mcpServers.%s: set exactly one of command (stdio) or url (streamable HTTP)", id)
		}
		if m.URL != "" {
			u, err := url.Parse(m.URL)
			if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || u.User != nil {
				return bad("mcpServers.%s.url: %q is not an http(s) URL without credentials", id, m.URL)
			}
		}
	}
	switch c.ThreadPolicy {
	case "", "reject", "supersede":
	default:
		return bad("threadPolicy: %q is not reject or supersede", c.ThreadPolicy)
	}
	if len(c.Auth.BearerTokens) > 0 && c.Auth.TrustedHeader != "" {
		return bad("auth: use bearerTokens or trustedHeader, not both")
	}
	for name, tok := range c.Auth.BearerTokens {
		if len(tok) < 8 {
			return bad("auth.bearerTokens.%s: tokens must be at least 8 characters", name)
		}
	}
	if c.MaxBodyBytes < 0 || c.MaxEventBytes < 0 || c.Heartbeat < 0 || c.ShutdownGrace < 0 || (c.DetachGrace != nil && *c.DetachGrace < 0) || c.RunLog.MaxEventsPerRun < 0 || c.RunLog.MaxBytes < 0 {
		return bad("limits and durations must not be negative")
	}
	for _, id := range c.agentIDs() {
		a := c.Agents[id]
		switch a.A2UI.Version {
		case "", "v0.9", "v0.9.1":
		default:
			return bad("agents.%s.a2ui.version: %q is not v0.9 or v0.9.1", id, a.A2UI.Version)
		}
		switch a.A2UI.ActionMode {
		case "", "tool", "user_message":
		default:
			return bad("agents.%s.a2ui.actionMode: %q is not tool or user_message", id, a.A2UI.ActionMode)
		}
		for _, r := range a.Render {
			if r != "a2ui" && r != "mcp-apps" {
				return bad("agents.%s.render: %q is not a2ui or mcp-apps", id, r)
			}
		}
		for _, m := range a.MCPServers {
			if _, ok := c.MCPServers[m]; !ok && !builtinServer(m) {
				return bad("agents.%s.mcpServers: %q is not in mcpServers", id, m)
			}
		}
		if a.MaxToolRounds < 0 {
			return bad("agents.%s.maxToolRounds: must not be negative", id)
		}
		if a.A2UI.MaxRows < 0 {
			return bad("agents.%s.a2ui.maxRows: must not be negative", id)
		}
		if !agentID.MatchString(id) {
			return bad("agents.%s: agent ids may hold letters, digits, '_', '-' and '.'", id)
		}
		switch a.Type {
		case "demo":
		case "agui", "langgraph":
			u, err := url.Parse(a.URL)
			if a.URL == "" {
				return bad("agents.%s.url: required for type %s", id, a.Type)
			}
			if a.Type == "langgraph" && a.Graph == "" {
				return bad("agents.%s.graph: required for type langgraph (the graph or assistant id)", id)
			}
			if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
				return bad("agents.%s.url: %q is not an http(s) URL", id, a.URL)
			}
		case "":
			return bad("agents.%s.type: required (demo, agui or langgraph)", id)
		default:
			return bad("agents.%s.type: unknown type %q (want demo, agui or langgraph)", id, a.Type)
		}
	}
	return nil
}

func sortedKeys[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

func (c *Config) agentIDs() []string {
	ids := make([]string, 0, len(c.Agents))
	for id := range c.Agents {
		ids = append(ids, id)
	}
	sort.Strings(ids)
	return ids
}

// Redacted returns the config as YAML with header values hidden, for
// printing at start.
func (c Config) Redacted() string {
	cp := c
	cp.Auth.BearerTokens = redactValues(c.Auth.BearerTokens)
	if len(c.MCPServers) > 0 {
		cp.MCPServers = map[string]MCPServerConfig{}
		for id, m := range c.MCPServers {
			m.Headers = redactValues(m.Headers)
			cp.MCPServers[id] = m
		}
	}
	cp.Agents = map[string]AgentConfig{}
	for id, a := range c.Agents {
		a.Headers = redactValues(a.Headers)
		if a.APIKey != "" {
			a.APIKey = "<redacted>"
		}
		cp.Agents[id] = a
	}
	b, _ := yaml.Marshal(cp)
	return string(b)
}

// redactValues keeps a map's keys and hides its values.
func redactValues(m map[string]string) map[string]string {
	if len(m) == 0 {
		return m
	}
	out := make(map[string]string, len(m))
	for k := range m {
		out[k] = "<redacted>"
	}
	return out
}

func (c *Config) heartbeat() time.Duration {
	if c.Heartbeat == 0 {
		return DefaultHeartbeat
	}
	return time.Duration(c.Heartbeat)
}

func (c *Config) maxBody() int64 {
	if c.MaxBodyBytes == 0 {
		return DefaultMaxBodyBytes
	}
	return c.MaxBodyBytes
}

func (c *Config) playgroundVendor() string {
	if c.PlaygroundVendor == "" {
		return "playground-vendor"
	}
	return c.PlaygroundVendor
}

// SandboxAddr is where the sandbox listener listens.
func (c *Config) sandboxListen() string {
	if c.SandboxListen == "" {
		return "127.0.0.1:8081"
	}
	return c.SandboxListen
}

// SandboxAddr returns the sandbox listen address.
func (c *Config) SandboxAddr() string { return c.sandboxListen() }

func (c *Config) detachGrace() time.Duration {
	if c.DetachGrace == nil {
		return 30 * time.Second
	}
	return time.Duration(*c.DetachGrace)
}

// Grace returns the shutdown grace period.
func (c *Config) Grace() time.Duration {
	if c.ShutdownGrace == 0 {
		return DefaultShutdownGrace
	}
	return time.Duration(c.ShutdownGrace)
}
