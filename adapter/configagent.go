package adapter

import (
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"reflect"
	"strings"
	"time"

	"go.yaml.in/yaml/v3"

	"github.com/genui-adapter/genui-adapter/agui/aguihttp"
	"github.com/genui-adapter/genui-adapter/agui/origin"
)

// UnmarshalYAML decodes an agent entry after its type key: the keys every
// type has into a, the type's own into a new Backend of that type. Every
// key neither has is refused (checkKeys), one of another type's naming it.
func (a *AgentConfig) UnmarshalYAML(n *yaml.Node) error {
	if errs := checkKeys(n, reflect.TypeFor[AgentConfig](), "", keyIndex{}); len(errs) > 0 {
		return errors.Join(errs...)
	}
	typ, rest := splitType(n) // a type of agentTypes: checkKeys says so
	b := reflect.New(reflect.TypeOf(agentTypes[typ]).Elem()).Interface().(Backend)
	type common AgentConfig // without UnmarshalYAML
	if err := rest.Decode((*common)(a)); err != nil {
		return err
	}
	if err := rest.Decode(b); err != nil {
		return err
	}
	a.Backend = b
	return nil
}

// MarshalYAML writes the entry as users write it: the type key, the
// common keys and the type's own in one mapping.
func (a AgentConfig) MarshalYAML() (any, error) {
	type common AgentConfig // without MarshalYAML
	c := a
	c.Backend = nil
	var out, own yaml.Node
	if err := out.Encode((*common)(&c)); err != nil {
		return nil, err
	}
	if a.Backend != nil {
		if err := own.Encode(a.Backend); err != nil {
			return nil, err
		}
	}
	typ := []*yaml.Node{{Kind: yaml.ScalarNode, Value: "type"}, {Kind: yaml.ScalarNode, Value: a.Type()}}
	out.Content = append(append(typ, out.Content...), own.Content...)
	out.Style = 0 // an empty mapping was encoded as {}
	return &out, nil
}

// splitType returns an agent entry's type and the entry without it.
func splitType(n *yaml.Node) (string, *yaml.Node) {
	rest := *n
	rest.Content = nil
	typ := ""
	for i := 0; i+1 < len(n.Content); i += 2 {
		if n.Content[i].Value == "type" {
			typ = n.Content[i+1].Value
			continue
		}
		rest.Content = append(rest.Content, n.Content[i], n.Content[i+1])
	}
	return typ, &rest
}

// keyShape makes an agent entry's keys those of AgentConfig and of its
// type's Backend; a key of another type is refused naming the types that
// have it.
func (AgentConfig) keyShape(n *yaml.Node, path string, line int) (shape, []error) {
	var tn *yaml.Node
	for i := 0; i+1 < len(n.Content); i += 2 {
		if n.Content[i].Value == "type" {
			tn = n.Content[i+1]
		}
	}
	p := join(path, "type")
	switch {
	case tn == nil:
		return shape{}, []error{keyErr(p, line, "required (%s)", orList(typeNames))}
	case tn.Kind == yaml.ScalarNode && tn.Value == "":
		return shape{}, []error{keyErr(p, tn.Line, "required (%s)", orList(typeNames))}
	case tn.Kind != yaml.ScalarNode:
		return shape{}, []error{keyErr(p, tn.Line, "cannot use %s as a string", describe(tn))}
	}
	proto, ok := agentTypes[tn.Value]
	if !ok {
		return shape{}, []error{keyErr(p, tn.Line, "unknown type %q (want %s)", tn.Value, orList(typeNames))}
	}
	return shape{
		also: reflect.TypeOf(proto),
		elsewhere: func(key string) string {
			var has []string
			for _, name := range typeNames {
				if _, ok := yamlFields(reflect.TypeOf(agentTypes[name]))[key]; ok {
					has = append(has, name)
				}
			}
			if len(has) == 0 {
				return ""
			}
			s := "s"
			if len(has) == 1 {
				s = ""
			}
			return fmt.Sprintf("only for type%s %s, not %s", s, andList(has), tn.Value)
		},
	}, nil
}

// validate adds the entry's problems, under path (agents.<id>).
func (a AgentConfig) validate(p *problems, path string, servers map[string]MCPServerConfig) {
	if a.Backend == nil {
		p.add(join(path, "type"), "required (%s)", orList(typeNames))
	} else {
		a.Backend.validate(p, path)
	}
	switch a.A2UI.Version {
	case "", "v0.9", "v0.9.1":
	default:
		p.add(path+".a2ui.version", "%q is not v0.9 or v0.9.1", a.A2UI.Version)
	}
	switch a.A2UI.ActionMode {
	case "", "tool", "user_message":
	default:
		p.add(path+".a2ui.actionMode", "%q is not tool or user_message", a.A2UI.ActionMode)
	}
	for _, r := range a.Render {
		if r != "a2ui" && r != "mcp-apps" {
			p.add(path+".render", "%q is not a2ui or mcp-apps", r)
		}
	}
	for _, m := range a.MCPServers {
		if _, ok := servers[m]; !ok && !builtinServer(m) {
			p.add(path+".mcpServers", "%q is not in mcpServers", m)
		}
	}
}

func (d *DemoConfig) validate(*problems, string) {}

func (a *AGUIConfig) validate(p *problems, path string) {
	if a == nil {
		a = new(AGUIConfig)
	}
	a.UpstreamConfig.validate(p, path, "agui")
	switch a.UpstreamThreads {
	case "", "scoped", "client":
	default:
		p.add(path+".upstreamThreads", "%q is not scoped or client", a.UpstreamThreads)
	}
}

func (l *LangGraphConfig) validate(p *problems, path string) {
	if l == nil {
		l = new(LangGraphConfig)
	}
	l.UpstreamConfig.validate(p, path, "langgraph")
	if l.Graph == "" {
		p.add(path+".graph", "required for type langgraph (the graph or assistant id)")
	}
}

func (a *A2AConfig) validate(p *problems, path string) {
	if a == nil {
		a = new(A2AConfig)
	}
	a.UpstreamConfig.validate(p, path, "a2a")
}

// validate adds the shared keys' problems; typ names the agent's type.
func (u UpstreamConfig) validate(p *problems, path, typ string) {
	if v, err := url.Parse(u.URL); u.URL == "" {
		p.add(path+".url", "required for type %s", typ)
	} else if err != nil || (v.Scheme != "http" && v.Scheme != "https") || v.Host == "" {
		p.add(path+".url", "%q is not an http(s) URL", u.URL)
	}
	for i, o := range u.AllowedOrigins {
		if _, err := origin.Of(o); err != nil {
			p.add(fmt.Sprintf("%s.allowedOrigins[%d]", path, i), "%v", err)
		}
	}
}

func (d *DemoConfig) redacted() Backend { return d }

func (a *AGUIConfig) redacted() Backend {
	if a == nil {
		return a
	}
	c := *a
	c.UpstreamConfig = a.UpstreamConfig.redacted()
	return &c
}

func (l *LangGraphConfig) redacted() Backend {
	if l == nil {
		return l
	}
	c := *l
	c.UpstreamConfig = l.UpstreamConfig.redacted()
	if c.APIKey != "" {
		c.APIKey = redacted
	}
	if len(l.AssistantConfig) > 0 {
		c.AssistantConfig = make(map[string]any, len(l.AssistantConfig))
		for k := range l.AssistantConfig {
			c.AssistantConfig[k] = redacted
		}
	}
	return &c
}

func (a *A2AConfig) redacted() Backend {
	if a == nil {
		return a
	}
	return &A2AConfig{UpstreamConfig: a.UpstreamConfig.redacted()}
}

// redacted hides the header values and the URL's secrets.
func (u UpstreamConfig) redacted() UpstreamConfig {
	u.Headers = redactValues(u.Headers)
	u.URL = redactURL(u.URL)
	return u
}

// upstream is what an HTTP backend is given for the shared keys: URL,
// headers, timeouts, the service-wide event cap and error exposure, the
// client (nil: the backend's default; one of its own when http2 or
// tracing needs its transport, which wrap wraps) and the origin policy.
func (u UpstreamConfig) upstream(cfg Config, http2 bool, wrap func(http.RoundTripper) http.RoundTripper) (aguihttp.Upstream, error) {
	up := aguihttp.Upstream{
		URL:            u.URL,
		Headers:        u.Headers,
		ForwardHeaders: u.ForwardHeaders,
		ConnectTimeout: time.Duration(u.ConnectTimeout),
		IdleTimeout:    time.Duration(u.IdleTimeout),
		MaxEventSize:   cfg.MaxEventBytes,
		ExposeErrors:   cfg.ExposeUpstreamErrors,
	}
	if http2 || cfg.Tracing.on() {
		t := aguihttp.NewTransport()
		if http2 {
			var p http.Protocols
			p.SetUnencryptedHTTP2(true) // http:// upstreams
			p.SetHTTP2(true)            // https:// upstreams
			t.Protocols = &p
		}
		up.Client = &http.Client{Transport: wrap(t)} // redirects follow the origin policy (aguihttp.Upstream)
	}
	var err error
	if up.Origins, err = origin.NewPolicy(u.URL, u.AllowedOrigins); err != nil {
		return aguihttp.Upstream{}, fmt.Errorf("%w: %v", ErrConfig, err)
	}
	return up, nil
}

// orList writes "a, b or c".
func orList(s []string) string { return list(s, "or") }

// andList writes "a, b and c".
func andList(s []string) string { return list(s, "and") }

func list(s []string, word string) string {
	if len(s) < 2 {
		return strings.Join(s, "")
	}
	return strings.Join(s[:len(s)-1], ", ") + " " + word + " " + s[len(s)-1]
}
