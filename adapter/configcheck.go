package adapter

import (
	"errors"
	"fmt"
	"mime"
	"net/netip"
	"net/url"
	"reflect"
	"regexp"
	"slices"
	"strings"
	"time"

	"github.com/genui-adapter/genui-adapter/adapter/runs"
	"github.com/genui-adapter/genui-adapter/agui/origin"
	"github.com/genui-adapter/genui-adapter/mcpapps"
)

// problems are a config's problems, each naming its YAML path.
type problems []error

func (p *problems) add(path, format string, args ...any) {
	*p = append(*p, fmt.Errorf("%w: %s: %s", ErrConfig, path, fmt.Sprintf(format, args...)))
}

var agentID = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9_.-]*$`)

// Validate reports every problem with the configuration, joined
// (errors.Join), each naming its key: section by section, then every
// number or duration below zero (negativeKeys).
func (c *Config) Validate() error {
	var p problems
	c.validateTop(&p)
	c.CORS.validate(&p)
	for i, o := range c.PublicOrigins {
		if u, err := url.Parse(o); err != nil || (u.Path != "" && u.Path != "/") || u.RawQuery != "" || u.Fragment != "" {
			p.add(fmt.Sprintf("publicOrigins[%d]", i), "%q is not an origin like https://app.example.com", o)
		} else if _, err := origin.Of(o); err != nil {
			p.add(fmt.Sprintf("publicOrigins[%d]", i), "%v", err)
		}
	}
	c.RunLog.validate(&p)
	for _, id := range sortedKeys(c.MCPServers) {
		c.MCPServers[id].validate(&p, id)
	}
	c.Auth.validate(&p)
	c.Tracing.validate(&p)
	c.Toolkit.validate(&p)
	c.MCPApps.validate(&p)
	c.Limits.validate(&p)
	for _, id := range c.agentIDs() {
		if !agentID.MatchString(id) {
			p.add("agents."+id, "agent ids may hold letters, digits, '_', '-' and '.'")
		}
		c.Agents[id].validate(&p, "agents."+id, c.MCPServers)
	}
	for _, path := range negativeKeys(reflect.ValueOf(*c), "") {
		p.add(path, "must not be negative")
	}
	return errors.Join(p...)
}

// validateTop checks the top-level keys of no section.
func (c *Config) validateTop(p *problems) {
	if c.Listen == "" {
		p.add("listen", "must not be empty")
	}
	if len(c.Agents) == 0 {
		p.add("agents", "at least one agent is required")
	}
	switch c.ThreadPolicy {
	case "", "reject", "supersede":
	default:
		p.add("threadPolicy", "%q is not reject or supersede", c.ThreadPolicy)
	}
	if c.GCPercent != nil && (*c.GCPercent < -1 || (*c.GCPercent == -1 && c.MemoryLimitBytes() == 0)) {
		p.add("gcPercent", "-1 (collections left to memoryLimit, which must then be set) or at least 0, got %d", *c.GCPercent)
	}
}

func (c CORS) validate(p *problems) {
	for _, o := range c.Origins {
		if o == "*" {
			if c.Credentials {
				p.add("cors.origins", "\"*\" cannot be used with credentials: true; list the origins")
			}
			continue
		}
		u, err := url.Parse(o)
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || u.Path != "" {
			p.add("cors.origins", "%q is not an origin like https://app.example.com", o)
		}
	}
}

func (r RunLogConfig) validate(p *problems) {
	switch r.Backend {
	case "", "memory":
	case "redis":
		if r.URL == "" {
			p.add("runlog.url", "required for backend redis (redis://127.0.0.1:6379/0)")
		}
	default:
		p.add("runlog.backend", "%q is not memory or redis", r.Backend)
	}
	if r.LeaseTTL != 0 && time.Duration(r.LeaseTTL) < 300*time.Millisecond {
		p.add("runlog.leaseTTL", "at least 300ms")
	}
	lease := runs.DefaultLeaseTTL
	if r.LeaseTTL != 0 {
		lease = time.Duration(r.LeaseTTL)
	}
	if r.OutageTolerance != 0 && time.Duration(r.OutageTolerance) < lease {
		p.add("runlog.outageTolerance", "at least leaseTTL (%s)", lease)
	}
	if r.MaxHandoverBytes < 0 {
		p.add("runlog.maxHandoverBytes", "not negative")
	}
	if r.HandoverClaimTimeout < 0 {
		p.add("runlog.handoverClaimTimeout", "not negative")
	}
	if r.CheckpointInterval < 0 {
		p.add("runlog.checkpointInterval", "not negative")
	}
}

// validate checks the server of that id.
func (m MCPServerConfig) validate(p *problems, id string) {
	path := "mcpServers." + id
	if !agentID.MatchString(id) {
		p.add(path, "ids may hold letters, digits, '_', '-' and '.'")
	}
	if builtinServer(id) {
		p.add(path, "%q is a built-in server's id", id)
	}
	if (len(m.Command) > 0) == (m.URL != "") {
		p.add(path, "set exactly one of command (stdio) or url (streamable HTTP)")
	}
	if m.ProtocolVersion != "" && !slices.Contains(mcpapps.ProtocolVersions, m.ProtocolVersion) {
		p.add(path+".protocolVersion", "%q is not one of %s", m.ProtocolVersion, strings.Join(mcpapps.ProtocolVersions, ", "))
	}
	if m.URL == "" && (len(m.CallerHeaders) > 0 || len(m.ForwardHeaders) > 0) {
		p.add(path, "callerHeaders and forwardHeaders are for HTTP servers (url)")
	}
	for _, k := range sortedKeys(m.CallerHeaders) {
		if k != "principal" && k != "thread" {
			p.add(path+".callerHeaders", "%q is not principal or thread", k)
		}
	}
	if m.URL != "" {
		if u, err := url.Parse(m.URL); err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || u.User != nil {
			p.add(path+".url", "%q is not an http(s) URL without credentials", m.URL)
		}
	}
}

func (a AuthConfig) validate(p *problems) {
	if (len(a.BearerTokens) > 0 || a.JWT != nil) && a.TrustedHeader != "" {
		p.add("auth", "use bearer tokens (bearerTokens, jwt) or trustedHeader, not both")
	}
	if a.JWT != nil {
		if err := a.JWT.verifierConfig().Check(); err != nil {
			*p = append(*p, fmt.Errorf("%w: auth.jwt.%s", ErrConfig, err))
		}
	}
	for _, name := range sortedKeys(a.BearerTokens) {
		if len(a.BearerTokens[name]) < 8 {
			p.add("auth.bearerTokens."+name, "tokens must be at least 8 characters")
		}
	}
	for _, tp := range a.TrustedProxies {
		if _, err := netip.ParsePrefix(tp); err != nil {
			if _, err := netip.ParseAddr(tp); err != nil {
				p.add("auth.trustedProxies", "%q is not a CIDR like 10.0.0.0/8 or an address", tp)
			}
		}
	}
	if len(a.TrustedProxies) > 0 && a.TrustedHeader == "" {
		p.add("auth.trustedProxies", "only used with trustedHeader")
	}
}

func (t TracingConfig) validate(p *problems) {
	if t.OTLPEndpoint != "" {
		if u, err := url.Parse(t.OTLPEndpoint); err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || u.User != nil {
			p.add("tracing.otlpEndpoint", "%q is not an http(s) URL without credentials", t.OTLPEndpoint)
		}
	}
	if r := t.SampleRatio; r != nil && (*r < 0 || *r > 1) {
		p.add("tracing.sampleRatio", "%v is not between 0 and 1", *r)
	}
}

func (t ToolkitConfig) validate(p *problems) {
	for i, o := range t.URLAllowlist {
		if u, err := url.Parse(o); err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || u.User != nil || (u.Path != "" && u.Path != "/") || u.RawQuery != "" || u.Fragment != "" || strings.ContainsAny(u.Host, "*") {
			p.add(fmt.Sprintf("toolkit.urlAllowlist[%d]", i), "%q is not an origin like https://example.com (scheme and host, no path or wildcard)", o)
		}
	}
}

func (m MCPAppsConfig) validate(p *problems) {
	if m.MaxServerMessageBytes > 0 && m.MaxServerMessageBytes <= max(m.MaxResourceBytes, mcpapps.DefaultMaxResourceBytes) {
		p.add("mcpApps.maxServerMessageBytes", "%d is not above the largest UI resource (maxResourceBytes, %d), which a message carries with its JSON escaping", m.MaxServerMessageBytes, max(m.MaxResourceBytes, mcpapps.DefaultMaxResourceBytes))
	}
	for i, t := range m.DownloadMIMETypes {
		if mt, params, err := mime.ParseMediaType(t); err != nil || len(params) > 0 || strings.Contains(mt, "*") {
			p.add(fmt.Sprintf("mcpApps.downloadMIMETypes[%d]", i), "%q is not a media type like text/csv (no parameters or wildcards)", t)
		}
	}
}

func (l LimitsConfig) validate(p *problems) {
	if r := l.RunStartsPerSecond; !(r == -1 || r == 0 || (r >= 0.001 && r <= 1e6)) {
		p.add("limits.runStartsPerSecond", "runs per second from 0.001 to 1e6, or -1 for no limit, got %v", r)
	}
}
