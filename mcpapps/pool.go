package mcpapps

import (
	"context"
	"crypto/md5"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"mime"
	"net/http"
	"os"
	"os/exec"
	"strings"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/genui-adapter/genui-adapter/agui"
)

// ServerConfig says how to reach one MCP server. Exactly one of Command,
// URL and Transport is set.
type ServerConfig struct {
	ID string
	// Command starts a stdio server (argv).
	Command []string
	// URL is a streamable HTTP endpoint; Headers go with every request.
	URL     string
	Headers map[string]string
	// CallerHeaders name the HTTP headers that carry who a request is
	// made for (keys "principal" and "thread"), HTTP servers only.
	CallerHeaders map[string]string
	// ForwardHeaders lists inbound request headers (e.g. Authorization,
	// the end user's bearer token) copied to the server's HTTP requests
	// made for that request's run or card, HTTP servers only.
	ForwardHeaders []string
	// Transport builds the transport of an in-process server (or a test
	// fixture); it is called on every (re)connect.
	Transport func() mcp.Transport
	// A2UI declares application/a2ui+json to the server (the draft
	// A2UI-over-MCP-Apps extension): A2UI its results carry becomes
	// surfaces, whose actions call its tools.
	A2UI bool
	// ProtocolVersion is the MCP protocol version asked of the server,
	// one of ProtocolVersions ("": DefaultProtocolVersion).
	ProtocolVersion string
}

// DefaultProtocolVersion is the MCP protocol version a server is asked
// for unless its ServerConfig names another. Pinned, not negotiated:
// go-sdk v1.7+ first probes with server/discover (protocol 2026-07-28),
// and a legacy stdio server that exits when its first message is not
// initialize kills that fallback (go-sdk #1177). 2025-11-25 is what every
// npm MCP App peer speaks.
const DefaultProtocolVersion = "2025-11-25"

// ProtocolVersions are the versions a ServerConfig may ask for.
var ProtocolVersions = []string{"2025-06-18", "2025-11-25", "2026-07-28"}

// PoolOptions tune a Pool. Zero values mean the defaults.
type PoolOptions struct {
	// Logger receives one record per connection change, refused resource
	// and similar, with the server id as attribute "server"; nil discards.
	Logger *slog.Logger
	// MaxResourceBytes caps a UI resource's HTML (default
	// DefaultMaxResourceBytes).
	MaxResourceBytes int
	// MaxKeptResources bounds the UI resources read and kept per server
	// connection, and as many inline ones (default
	// DefaultMaxKeptResources); beyond it others are dropped.
	MaxKeptResources int
	// MaxInstructionBytes caps a server's instructions given to agents
	// (default DefaultMaxInstructionBytes); the rest is cut.
	MaxInstructionBytes int
	// MaxCSPDomains caps the domains one list of a UI resource's
	// _meta.ui.csp may declare (default DefaultMaxCSPDomains); the rest
	// are dropped (logged).
	MaxCSPDomains int
	// MaxMessageBytes caps one message an HTTP MCP server sends (default
	// DefaultMaxMessageBytes, or twice MaxResourceBytes if that is more):
	// a JSON response's body, an SSE event. A
	// larger one fails the request and the connection, which is made
	// again. A stdio server's messages are capped at the MCP SDK's
	// 16 MiB.
	MaxMessageBytes int
	// ConnectTimeout bounds one connection attempt (default 20 s).
	ConnectTimeout time.Duration
	// MaxBackoff caps the wait between reconnection attempts (default 30 s).
	MaxBackoff time.Duration
	// WrapHTTP, if set, wraps the HTTP transport of every HTTP server
	// (trace context propagation, say).
	WrapHTTP func(http.RoundTripper) http.RoundTripper
	// URLAllowlist are the origins (scheme://host[:port]) a card may show
	// as an external page: a text/uri-list UI resource, render_url. None
	// by default.
	URLAllowlist []string
	// Tracer starts a span for each MCP request, under the span of its
	// call's ctx; nil: no spans.
	Tracer agui.Tracer
}

// ErrUnknownServer is returned for a server id the pool does not know.
var ErrUnknownServer = errors.New("unknown MCP server")

// Pool keeps one long-lived client session per configured server, with
// its tool catalogue, and reconnects with backoff when a server goes away.
// Calls reuse the session: no handshake per call. Safe for concurrent use.
type Pool struct {
	opts    PoolOptions
	servers map[string]*server
	byHash  map[string]string
	ctx     context.Context
	cancel  context.CancelFunc
	wg      sync.WaitGroup
}

type server struct {
	cfg  ServerConfig
	hash string

	mu        sync.Mutex
	session   *mcp.ClientSession
	ready     chan struct{} // closed while a session is up
	tools     map[string]Tool
	order     []string
	listing   map[string]map[string]any // resource uri -> listing _meta.ui
	resources map[string]*Resource      // UI resources read, by uri
	// inline are the UI resources tool results carried, by inlineKey:
	// part of one result, for the principal and thread it was made for.
	inline map[string]*Resource
	// instructions are the server's guidance from initialize.
	instructions string
	// ui is the server's capabilities.extensions["io.modelcontextprotocol/ui"]
	// from initialize (nil: it declared none).
	ui map[string]any
}

// NewPool starts connecting to every server in the background; calls wait
// for their server's session (or their context).
func NewPool(cfgs []ServerConfig, opts PoolOptions) (*Pool, error) {
	if opts.Logger == nil {
		opts.Logger = slog.New(slog.DiscardHandler)
	}
	if opts.MaxResourceBytes == 0 {
		opts.MaxResourceBytes = DefaultMaxResourceBytes
	}
	if opts.MaxKeptResources == 0 {
		opts.MaxKeptResources = DefaultMaxKeptResources
	}
	if opts.MaxInstructionBytes == 0 {
		opts.MaxInstructionBytes = DefaultMaxInstructionBytes
	}
	if opts.MaxCSPDomains == 0 {
		opts.MaxCSPDomains = DefaultMaxCSPDomains
	}
	if opts.MaxMessageBytes == 0 {
		opts.MaxMessageBytes = max(DefaultMaxMessageBytes, 2*opts.MaxResourceBytes)
	}
	if opts.ConnectTimeout == 0 {
		opts.ConnectTimeout = 20 * time.Second
	}
	if opts.MaxBackoff == 0 {
		opts.MaxBackoff = 30 * time.Second
	}
	p := &Pool{opts: opts, servers: map[string]*server{}, byHash: map[string]string{}}
	p.ctx, p.cancel = context.WithCancel(context.Background())
	for _, c := range cfgs {
		n := 0
		for _, set := range []bool{len(c.Command) > 0, c.URL != "", c.Transport != nil} {
			if set {
				n++
			}
		}
		if c.ID == "" || n != 1 {
			p.cancel()
			return nil, fmt.Errorf("mcpapps: server %q needs an id and exactly one of command, url or an in-process transport", c.ID)
		}
		if _, dup := p.servers[c.ID]; dup {
			p.cancel()
			return nil, fmt.Errorf("mcpapps: server id %q used twice", c.ID)
		}
		s := &server{cfg: c, hash: serverHash(c), ready: make(chan struct{})}
		p.servers[c.ID] = s
		p.byHash[s.hash] = c.ID
	}
	for _, s := range p.servers {
		p.wg.Go(func() { p.keepConnected(s) })
	}
	return p, nil
}

// serverHash is the card's opaque server id. For HTTP servers it is
// md5(JSON {type,url}), as @ag-ui/mcp-apps-middleware 0.1.x computes it.
func serverHash(c ServerConfig) string {
	var v any
	switch {
	case c.URL != "":
		v = struct {
			Type string `json:"type"`
			URL  string `json:"url"`
		}{"http", c.URL}
	case len(c.Command) > 0:
		v = map[string]any{"type": "stdio", "command": c.Command}
	default:
		v = map[string]any{"type": "inprocess", "id": c.ID}
	}
	b, _ := json.Marshal(v)
	sum := md5.Sum(b)
	return hex.EncodeToString(sum[:])
}

// Hash returns a server's hash, or "".
func (p *Pool) Hash(id string) string {
	if s := p.servers[id]; s != nil {
		return s.hash
	}
	return ""
}

// ByHash resolves a hash this pool minted to its server id.
func (p *Pool) ByHash(hash string) (string, bool) {
	id, ok := p.byHash[hash]
	return id, ok
}

// A2UI reports whether the server was told the host renders A2UI.
func (p *Pool) A2UI(id string) bool {
	s := p.servers[id]
	return s != nil && s.cfg.A2UI
}

// Has reports whether id is a configured server.
func (p *Pool) Has(id string) bool { return p.servers[id] != nil }

// CallerMetaKey is the _meta key under which every MCP request the
// adapter makes for a run or a card says who it is made for (a Caller),
// so that the server can authorize: visibility is only a host convention.
const CallerMetaKey = "genui-adapter/caller"

// Caller is who a request to an MCP server is made for.
type Caller struct {
	// Principal is the authenticated principal ("anonymous" without auth).
	Principal  string `json:"principal"`
	ThreadID   string `json:"threadId"`
	RunID      string `json:"runId,omitempty"`
	ToolCallID string `json:"toolCallId,omitempty"`
	// Source is "model" (the agent called the tool) or "app" (a card did).
	Source string `json:"source"`
	// Renders says how the run shows results: "mcp-apps" (cards),
	// "a2ui" (surfaces), or both; absent when unknown.
	Renders []string `json:"renders,omitempty"`
	// Catalog is the A2UI catalog the run's frontend renders (for servers
	// that return A2UI).
	Catalog string `json:"a2uiCatalogId,omitempty"`
	// Header is the inbound request's headers, copied to an HTTP server
	// as its ForwardHeaders name them; never sent in _meta.
	Header http.Header `json:"-"`
}

// anonymous is c with the principal "anonymous" when it has none (nil
// stays nil).
func (c *Caller) orAnonymous() *Caller {
	if c == nil || c.Principal != "" {
		return c
	}
	cc := *c
	cc.Principal = "anonymous"
	return &cc
}

// callerMeta is the _meta of a request made for c (nil: none).
func callerMeta(c *Caller) mcp.Meta {
	if c == nil {
		return nil
	}
	return mcp.Meta{CallerMetaKey: c}
}

// callerKey carries a call's Caller from a Pool method, through the MCP
// SDK (which sends each request with its call's ctx and has no other
// per-request channel), to headerTransport. It never leaves this file.
type callerKey struct{}

// forCaller is the ctx of one MCP request made for c: with c's headers
// for an HTTP server's transport.
func forCaller(ctx context.Context, c *Caller) context.Context {
	if c == nil {
		return ctx
	}
	return context.WithValue(ctx, callerKey{}, c)
}

type headerTransport struct {
	base    http.RoundTripper
	headers map[string]string
	caller  map[string]string // "principal", "thread" -> header name
	forward []string
	// maxJSON caps a JSON response's body (PoolOptions.MaxMessageBytes),
	// which the MCP SDK reads whole; its SSE events it caps itself.
	maxJSON int
}

func (t *headerTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	ctx := r.Context()
	r = r.Clone(ctx)
	if c, ok := ctx.Value(callerKey{}).(*Caller); ok {
		if h := t.caller["principal"]; h != "" {
			r.Header.Set(h, c.Principal)
		}
		if h := t.caller["thread"]; h != "" {
			r.Header.Set(h, c.ThreadID)
		}
		if c.Header != nil {
			for _, name := range t.forward {
				for _, v := range c.Header.Values(name) {
					r.Header.Add(name, v)
				}
			}
		}
	}
	for k, v := range t.headers {
		r.Header.Set(k, v)
	}
	resp, err := t.base.RoundTrip(r)
	if err == nil && t.maxJSON > 0 {
		if mt, _, _ := mime.ParseMediaType(resp.Header.Get("Content-Type")); mt == "application/json" {
			resp.Body = &cappedBody{ReadCloser: resp.Body, left: int64(t.maxJSON), max: t.maxJSON}
		}
	}
	return resp, err
}

// cappedBody fails a read past max bytes.
type cappedBody struct {
	io.ReadCloser
	left int64 // bytes still allowed; below 0 once past max
	max  int
}

func (b *cappedBody) Read(p []byte) (int, error) {
	if b.left >= 0 {
		if int64(len(p)) > b.left+1 {
			p = p[:b.left+1] // one byte past max tells a larger body
		}
		n, err := b.ReadCloser.Read(p)
		if b.left -= int64(n); b.left >= 0 {
			return n, err
		}
	}
	return 0, fmt.Errorf("the MCP server's response is larger than %d bytes (mcpApps.maxServerMessageBytes)", b.max)
}

func (p *Pool) transport(c ServerConfig) mcp.Transport {
	switch {
	case c.Transport != nil:
		return c.Transport()
	case c.URL != "":
		var base http.RoundTripper = http.DefaultTransport.(*http.Transport).Clone()
		if p.opts.WrapHTTP != nil {
			base = p.opts.WrapHTTP(base)
		}
		client := &http.Client{
			Transport: &headerTransport{base: base, headers: c.Headers, caller: c.CallerHeaders, forward: c.ForwardHeaders, maxJSON: p.opts.MaxMessageBytes},
			// Keep every request on the configured origin.
			CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
		}
		return &mcp.StreamableClientTransport{Endpoint: c.URL, HTTPClient: client, MaxRetries: -1, MaxEventSize: p.opts.MaxMessageBytes}
	default:
		cmd := exec.Command(c.Command[0], c.Command[1:]...)
		cmd.Stderr = os.Stderr
		return &mcp.CommandTransport{Command: cmd, TerminateDuration: 2 * time.Second}
	}
}

func (p *Pool) connect(s *server) (*mcp.ClientSession, error) {
	caps := &mcp.ClientCapabilities{}
	mimeTypes := []string{MIMEType}
	if s.cfg.A2UI {
		mimeTypes = append(mimeTypes, A2UIMIMEType)
	}
	caps.AddExtension(ExtensionID, map[string]any{"mimeTypes": mimeTypes})
	client := mcp.NewClient(&mcp.Implementation{Name: "genui-adapter", Version: "0.1.0"}, &mcp.ClientOptions{
		Capabilities: caps,
		ToolListChangedHandler: func(ctx context.Context, _ *mcp.ToolListChangedRequest) {
			p.wg.Go(func() {
				if err := p.refresh(p.ctx, s); err != nil {
					p.opts.Logger.Info("mcp: refreshing tools after list_changed failed", "server", s.cfg.ID, "err", err)
				}
			})
		},
	})
	ctx, cancel := context.WithTimeout(p.ctx, p.opts.ConnectTimeout)
	defer cancel()
	version := s.cfg.ProtocolVersion
	if version == "" {
		version = DefaultProtocolVersion
	}
	return client.Connect(ctx, p.transport(s.cfg), &mcp.ClientSessionOptions{ProtocolVersion: version})
}

// keepConnected owns a server's session: connect, serve until the
// connection drops, reconnect with backoff, until the pool closes.
func (p *Pool) keepConnected(s *server) {
	backoff := 100 * time.Millisecond
	for p.ctx.Err() == nil {
		cs, err := p.connect(s)
		if err != nil {
			p.opts.Logger.Info("mcp: connect failed; retrying", "server", s.cfg.ID, "retry_in", backoff, "err", err)
			select {
			case <-p.ctx.Done():
				return
			case <-time.After(backoff):
			}
			backoff = min(2*backoff, p.opts.MaxBackoff)
			continue
		}
		backoff = 100 * time.Millisecond
		s.mu.Lock()
		s.session = cs
		s.instructions = ""
		s.ui = nil
		if ir := cs.InitializeResult(); ir != nil {
			if ir.Capabilities != nil {
				s.ui, _ = ir.Capabilities.Extensions[ExtensionID].(map[string]any)
			}
			s.instructions = ir.Instructions
			if len(s.instructions) > p.opts.MaxInstructionBytes {
				s.instructions = s.instructions[:p.opts.MaxInstructionBytes]
			}
		}
		s.mu.Unlock()
		if err := p.refresh(p.ctx, s); err != nil {
			p.opts.Logger.Info("mcp: listing tools failed", "server", s.cfg.ID, "err", err)
		}
		s.mu.Lock()
		close(s.ready)
		s.mu.Unlock()
		p.opts.Logger.Info("mcp: connected", "server", s.cfg.ID, "tools", len(s.tools), "mcp_apps", declared(s.ui))
		stop := context.AfterFunc(p.ctx, func() { cs.Close() })
		_ = cs.Wait()
		stop()
		s.mu.Lock()
		s.session = nil
		s.ready = make(chan struct{})
		s.resources = nil
		s.inline = nil
		s.mu.Unlock()
		if p.ctx.Err() == nil {
			p.opts.Logger.Info("mcp: connection lost; reconnecting", "server", s.cfg.ID)
		}
	}
}

// refresh re-reads the tool catalogue and the resource listing.
func (p *Pool) refresh(ctx context.Context, s *server) error {
	s.mu.Lock()
	cs := s.session
	s.mu.Unlock()
	if cs == nil {
		return nil
	}
	tools := map[string]Tool{}
	var order []string
	for t, err := range cs.Tools(ctx, nil) {
		if err != nil {
			return err
		}
		tool, bad, badVis := toolFromMCP(t)
		if bad != "" {
			p.opts.Logger.Info("mcp: tool names a UI that is not ui://; it is treated as having no UI", "server", s.cfg.ID, "tool", t.Name, "ui", bad)
		}
		if badVis {
			p.opts.Logger.Info("mcp: tool has a malformed _meta.ui.visibility; read restrictively", "server", s.cfg.ID, "tool", t.Name, "visibility", t.Meta["ui"].(map[string]any)["visibility"], "read_as", tool.Visibility)
		}
		tools[t.Name] = tool
		order = append(order, t.Name)
	}
	listing := map[string]map[string]any{}
	if res, err := cs.ListResources(ctx, nil); err == nil {
		for _, r := range res.Resources {
			if ui, ok := r.Meta["ui"].(map[string]any); ok {
				listing[r.URI] = ui
			}
		}
	}
	s.mu.Lock()
	s.tools, s.order, s.listing = tools, order, listing
	s.mu.Unlock()
	return nil
}

// session waits for the server's session.
func (p *Pool) session(ctx context.Context, id string) (*server, *mcp.ClientSession, error) {
	s := p.servers[id]
	if s == nil {
		return nil, nil, fmt.Errorf("%w: %q", ErrUnknownServer, id)
	}
	for {
		s.mu.Lock()
		cs, ready := s.session, s.ready
		s.mu.Unlock()
		select {
		case <-ready:
			if cs != nil {
				return s, cs, nil
			}
		default:
		}
		select {
		case <-ctx.Done():
			return nil, nil, fmt.Errorf("mcp %s: not connected: %w", id, ctx.Err())
		case <-ready:
		}
	}
}

// Tools returns a server's catalogue in listing order (nil before the
// first connection).
func (p *Pool) Tools(id string) []Tool {
	s := p.servers[id]
	if s == nil {
		return nil
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make([]Tool, 0, len(s.order))
	for _, n := range s.order {
		out = append(out, s.tools[n])
	}
	return out
}

// Tool looks one tool up in a server's catalogue.
func (p *Pool) Tool(id, name string) (Tool, bool) {
	s := p.servers[id]
	if s == nil {
		return Tool{}, false
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	t, ok := s.tools[name]
	return t, ok
}

// waitServer waits until the server is connected, or ctx ends.
func (p *Pool) waitServer(ctx context.Context, id string) error {
	_, _, err := p.session(ctx, id)
	return err
}

// WaitReady waits until every server has connected once, or ctx ends.
func (p *Pool) WaitReady(ctx context.Context) error {
	for id := range p.servers {
		if _, _, err := p.session(ctx, id); err != nil {
			return err
		}
	}
	return nil
}

// span starts the span of one MCP request (named as OpenTelemetry's MCP
// conventions name them: the method, then the target).
func (p *Pool) span(ctx context.Context, server, method, target string) (context.Context, func(error)) {
	name := method
	if target != "" {
		name += " " + target
	}
	return p.opts.Tracer.StartSpan(ctx, name, "mcp.method.name", method, "genui.mcp.server", server, "genui.mcp.target", target)
}

// Defaults of PoolOptions.
const (
	// DefaultMaxResourceBytes is PoolOptions.MaxResourceBytes's default.
	DefaultMaxResourceBytes = 4 << 20
	// DefaultMaxMessageBytes is PoolOptions.MaxMessageBytes's default,
	// the MCP SDK's own cap on an SSE event and a stdio line.
	DefaultMaxMessageBytes = mcp.DefaultMaxEventSize
	// DefaultMaxKeptResources is PoolOptions.MaxKeptResources's default.
	DefaultMaxKeptResources = 256
	// DefaultMaxInstructionBytes is PoolOptions.MaxInstructionBytes's
	// default.
	DefaultMaxInstructionBytes = 16 << 10
)

// Instructions are the guidance the server gave in initialize ("" when
// none or not connected).
func (p *Pool) Instructions(id string) string {
	s := p.servers[id]
	if s == nil {
		return ""
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.instructions
}

// declared is the log value of a server's MCP Apps extension settings:
// "none" when it declared none, else the settings as JSON ("{}" for a
// declaration without settings).
func declared(ui map[string]any) string {
	if ui == nil {
		return "none"
	}
	b, err := json.Marshal(ui)
	if err != nil {
		return "unprintable"
	}
	return string(b)
}

// ServerUI is the MCP Apps capability the server declared in initialize,
// capabilities.extensions["io.modelcontextprotocol/ui"]; ok is false when
// it declared none (or is not connected). The adapter renders every
// server's UI resources either way: the extension is the host's to
// declare, and few servers declare it back.
func (p *Pool) ServerUI(id string) (ui map[string]any, ok bool) {
	s := p.servers[id]
	if s == nil {
		return nil, false
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.ui, s.ui != nil
}

// Call calls a tool on a server's session for c (who the request is made
// for, in _meta and the server's caller headers; nil: no one, and the
// empty principal is "anonymous"). So do the other methods that take a
// Caller.
func (p *Pool) Call(ctx context.Context, c *Caller, id, name string, args any) (res *mcp.CallToolResult, err error) {
	c = c.orAnonymous()
	ctx, end := p.span(forCaller(ctx, c), id, "tools/call", name)
	defer func() {
		if err == nil && res != nil && res.IsError {
			end(errors.New("the tool returned an error result"))
			return
		}
		end(err)
	}()
	_, cs, err := p.session(ctx, id)
	if err != nil {
		return nil, err
	}
	res, err = cs.CallTool(ctx, &mcp.CallToolParams{Name: name, Arguments: args, Meta: callerMeta(c)})
	if errors.Is(err, mcp.ErrConnectionClosed) {
		cs.Close() // let keepConnected reconnect
	}
	return res, err
}

// Read reads any resource of a server.
func (p *Pool) Read(ctx context.Context, c *Caller, id, uri string) (_ *mcp.ReadResourceResult, err error) {
	c = c.orAnonymous()
	ctx, end := p.span(forCaller(ctx, c), id, "resources/read", uri)
	defer func() { end(err) }()
	_, cs, err := p.session(ctx, id)
	if err != nil {
		return nil, err
	}
	return cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: uri, Meta: callerMeta(c)})
}

// ListResources lists a server's resources.
func (p *Pool) ListResources(ctx context.Context, c *Caller, id string) (_ *mcp.ListResourcesResult, err error) {
	c = c.orAnonymous()
	ctx, end := p.span(forCaller(ctx, c), id, "resources/list", "")
	defer func() { end(err) }()
	_, cs, err := p.session(ctx, id)
	if err != nil {
		return nil, err
	}
	return cs.ListResources(ctx, &mcp.ListResourcesParams{Meta: callerMeta(c)})
}

// Ping pings a server.
func (p *Pool) Ping(ctx context.Context, c *Caller, id string) error {
	c = c.orAnonymous()
	ctx = forCaller(ctx, c)
	_, cs, err := p.session(ctx, id)
	if err != nil {
		return err
	}
	return cs.Ping(ctx, &mcp.PingParams{Meta: callerMeta(c)})
}

// keepInline checks a UI resource a tool result made for who carried
// inline (MIME type, size) and keeps it for the card's resources/read, as
// if read from the server, for who's principal and thread only: it is
// part of one result, not the server's resource.
func (p *Pool) keepInline(id string, who *Caller, c *mcp.ResourceContents) (*Resource, error) {
	s := p.servers[id]
	if s == nil {
		return nil, ErrUnknownServer
	}
	if c.MIMEType != MIMEType {
		return nil, fmt.Errorf("%w: inline %s has MIME type %q, want %q", ErrNotRenderable, c.URI, c.MIMEType, MIMEType)
	}
	html := c.Text
	if html == "" && len(c.Blob) > 0 {
		html = string(c.Blob)
	}
	if len(html) > p.opts.MaxResourceBytes {
		return nil, fmt.Errorf("%w: inline %s is %d bytes, more than %d", ErrNotRenderable, c.URI, len(html), p.opts.MaxResourceBytes)
	}
	ui, _ := c.Meta["ui"].(map[string]any)
	ui = p.capCSP(ui, id, c.URI)
	r := &Resource{URI: c.URI, MIMEType: c.MIMEType, HTML: html, UI: ui}
	s.mu.Lock()
	if s.inline == nil {
		s.inline = map[string]*Resource{}
	}
	keep(s.inline, inlineKey(who.orAnonymous(), c.URI), r, p.opts.MaxKeptResources)
	s.mu.Unlock()
	return r, nil
}

// inlineKey names an inline resource of uri kept for who ("" for no one:
// nothing is kept for no one).
func inlineKey(who *Caller, uri string) string {
	if who == nil {
		return ""
	}
	return who.Principal + "\x00" + who.ThreadID + "\x00" + uri
}

// keep puts r in m under k, dropping others to stay within max (a
// server that makes a new URI per call).
func keep(m map[string]*Resource, k string, r *Resource, max int) {
	if k == "" {
		return
	}
	for old := range m {
		if len(m) < max {
			break
		}
		delete(m, old)
	}
	m[k] = r
}

// ErrNotRenderable is wrapped when a UI resource may not be rendered.
var ErrNotRenderable = errors.New("UI resource not renderable")

// UIResource reads a tool's UI resource once per connection and caches it
// (at most PoolOptions.MaxKeptResources per connection, others dropped):
// it must be ui://, have exactly the MCP App MIME type and fit the size
// cap. _meta.ui comes from the content item, else from the listing.
func (p *Pool) UIResource(ctx context.Context, c *Caller, id, uri string) (*Resource, error) {
	return p.uiResource(ctx, c, id, uri, false)
}

// appResource is UIResource for the View an app response names (a server
// written the qwen-agent way), which may be plain text/html.
func (p *Pool) appResource(ctx context.Context, c *Caller, id, uri string) (*Resource, error) {
	return p.uiResource(ctx, c, id, uri, true)
}

func (p *Pool) uiResource(ctx context.Context, who *Caller, id, uri string, plainHTML bool) (*Resource, error) {
	who = who.orAnonymous()
	ctx = forCaller(ctx, who)
	s, cs, err := p.session(ctx, id)
	if err != nil {
		return nil, err
	}
	s.mu.Lock()
	if r := s.inline[inlineKey(who, uri)]; r != nil {
		s.mu.Unlock()
		return r, nil
	}
	if r := s.resources[uri]; r != nil {
		s.mu.Unlock()
		return r, nil
	}
	s.mu.Unlock()
	if len(uri) < 5 || uri[:5] != "ui://" {
		return nil, fmt.Errorf("%w: %q is not a ui:// URI", ErrNotRenderable, uri)
	}
	rctx, end := p.span(ctx, id, "resources/read", uri)
	res, err := cs.ReadResource(rctx, &mcp.ReadResourceParams{URI: uri, Meta: callerMeta(who)})
	end(err)
	if err != nil {
		return nil, err
	}
	if len(res.Contents) == 0 {
		return nil, fmt.Errorf("%w: %s has no contents", ErrNotRenderable, uri)
	}
	c := res.Contents[0]
	html := c.Text
	if html == "" && len(c.Blob) > 0 {
		html = string(c.Blob)
	}
	switch mt, _, _ := strings.Cut(c.MIMEType, ";"); {
	case c.MIMEType == MIMEType:
	case plainHTML && strings.TrimSpace(mt) == "text/html":
		// Servers written the qwen-agent (or MCP-UI) way: plain HTML.
		c.MIMEType = MIMEType
	case strings.TrimSpace(mt) == URIListMIMEType:
		page, err := p.externalPage(html, uri)
		if err != nil {
			p.opts.Logger.Info("mcp: external page resource refused", "server", id, "uri", uri, "err", err)
			return nil, err
		}
		p.opts.Logger.Info("mcp: resource is an external page", "server", id, "uri", uri)
		return page, nil
	default:
		p.opts.Logger.Info("mcp: resource has the wrong MIME type; not rendered", "server", id, "uri", uri, "mime_type", c.MIMEType, "want", MIMEType)
		return nil, fmt.Errorf("%w: %s has MIME type %q, want %q", ErrNotRenderable, uri, c.MIMEType, MIMEType)
	}
	if len(html) > p.opts.MaxResourceBytes {
		return nil, fmt.Errorf("%w: %s is %d bytes, more than %d", ErrNotRenderable, uri, len(html), p.opts.MaxResourceBytes)
	}
	ui, _ := c.Meta["ui"].(map[string]any)
	if ui == nil {
		s.mu.Lock()
		ui = s.listing[uri]
		s.mu.Unlock()
	}
	ui = p.capCSP(ui, id, uri)
	r := &Resource{URI: uri, MIMEType: c.MIMEType, HTML: html, UI: ui}
	s.mu.Lock()
	if s.resources == nil {
		s.resources = map[string]*Resource{}
	}
	keep(s.resources, uri, r, p.opts.MaxKeptResources)
	s.mu.Unlock()
	policy, dropped := CSPReport(ui)
	p.opts.Logger.Info("mcp: UI resource", "server", id, "uri", uri, "bytes", len(html), "csp", policy)
	if len(dropped) > 0 {
		p.opts.Logger.Info("mcp: UI resource declares CSP domains that are not valid sources; dropped, never widened", "server", id, "uri", uri, "dropped", dropped)
	}
	return r, nil
}

// capCSP cuts each domain list of ui's csp to PoolOptions.MaxCSPDomains
// (logging what it cut); ui itself is not changed.
func (p *Pool) capCSP(ui map[string]any, id, uri string) map[string]any {
	ui, cut := capCSP(ui, p.opts.MaxCSPDomains)
	if len(cut) > 0 {
		p.opts.Logger.Info("mcp: UI resource declares more CSP domains than mcpApps.maxCSPDomains; the rest dropped", "server", id, "uri", uri, "max", p.opts.MaxCSPDomains, "dropped", cut)
	}
	return ui
}

// ResourceResult is the resources/read result a card gets for a UI
// resource: contents[0] with text and _meta.ui.
func (r *Resource) ResourceResult() map[string]any {
	item := map[string]any{"uri": r.URI, "mimeType": r.MIMEType, "text": r.HTML}
	if r.UI != nil {
		item["_meta"] = map[string]any{"ui": r.UI}
	}
	return map[string]any{"contents": []any{item}}
}

// Close ends every session and waits, at most teardown, for the
// connection goroutines.
func (p *Pool) Close() error {
	p.cancel()
	done := make(chan struct{})
	go func() { p.wg.Wait(); close(done) }()
	select {
	case <-done:
		return nil
	case <-time.After(5 * time.Second):
		return errors.New("mcpapps: some MCP sessions did not close within 5s")
	}
}
