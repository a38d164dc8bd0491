package adapter

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"net/netip"
	"os"
	"runtime/debug"
	rtmetrics "runtime/metrics"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/labstack/echo/v5"

	"github.com/genui-adapter/genui-adapter/a2ui"
	"github.com/genui-adapter/genui-adapter/adapter/jwtauth"
	"github.com/genui-adapter/genui-adapter/adapter/runlog"
	"github.com/genui-adapter/genui-adapter/adapter/runs"
	"github.com/genui-adapter/genui-adapter/adapter/tracing"
	"github.com/genui-adapter/genui-adapter/agui"
	"github.com/genui-adapter/genui-adapter/agui/a2a"
	"github.com/genui-adapter/genui-adapter/agui/aguihttp"
	"github.com/genui-adapter/genui-adapter/agui/langgraph"
	"github.com/genui-adapter/genui-adapter/internal/takeover"
	"github.com/genui-adapter/genui-adapter/mcpapps"
	"github.com/genui-adapter/genui-adapter/mcpapps/dataview"
)

// agentEntry is a configured agent with its middleware chain.
type agentEntry struct {
	id    string
	cfg   AgentConfig
	chain agui.Agent
	// direct is the backend with only the normalisers around it: what a
	// suggestion run (CopilotKit's agent/:id/suggest) runs.
	direct  agui.Agent
	backend agui.Agent   // what capabilities read what the backend knows from
	keeper  threadKeeper // the backend, when it keeps its threads' conversations
	// rejoinable: the backend can rejoin a run another instance stopped
	// (agui.Rejoiner), so a drain hands its runs over; they carry the
	// headers it forwards (forward).
	rejoinable bool
	forward    []string
}

// Server is the HTTP service. It implements http.Handler.
type Server struct {
	cfg     Config
	logger  *slog.Logger
	metrics *metrics
	agents  map[string]*agentEntry
	echo    *echo.Echo
	a2ui    *a2ui.Validator

	streams  sync.WaitGroup // SSE responses
	draining atomic.Bool
	conns    *takeover.Conns // the connections of taken-over streams (streamTakeover)

	log            runlog.Log
	runs           *runs.Manager
	pool           *mcpapps.Pool    // nil without MCP servers
	sandbox        *mcpapps.Sandbox // nil without MCP servers
	instance       string
	trustedProxies []netip.Prefix
	tokens         []namedToken  // auth.bearerTokens
	heavy          *limiter      // the CPU-heavy A2UI routes
	starts         *startLimiter // run starts per principal; nil: no limit
	caps           *mcpapps.Capabilities
	answers        *mcpapps.Answers
	// viewLogs limits what cards' Views log, across agents.
	viewLogs   *mcpapps.ViewLogs
	jwt        *jwtauth.Verifier // nil without auth.jwt
	tracing    *tracing.Provider // nil without tracing
	stopMemory context.CancelFunc
	memoryDone chan struct{}
	freed      atomic.Int64 // bytes the stores released since the last check

	// The answer relay's listener (with the Redis run log): stopAnswers
	// ends it, answersDone is closed when it has ended; nil without.
	stopAnswers context.CancelFunc
	answersDone <-chan struct{}
}

// reachable turns a listen address into one a browser on this machine
// can reach: a wildcard host (0.0.0.0, ::, none) becomes 127.0.0.1.
func reachable(listen string) string {
	host, port, err := net.SplitHostPort(listen)
	if err != nil {
		return listen
	}
	if ip, err := netip.ParseAddr(host); host == "" || (err == nil && ip.IsUnspecified()) {
		host = "127.0.0.1"
	}
	return net.JoinHostPort(host, port)
}

// NewServer builds the service from a validated config. A nil logger
// discards logs.
func NewServer(logger *slog.Logger, cfg Config) (*Server, error) {
	if logger == nil {
		logger = slog.New(slog.DiscardHandler)
	}
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	if cfg.Auth.on() && cfg.hasCards() && len(cfg.PublicOrigins) == 0 {
		// With auth on this is a shared deployment: without publicOrigins
		// a client with credentials may name any Origin for a ticket.
		logger.Warn("publicOrigins is not set: sandbox tickets go to whatever Origin a ticket request names; list the origins of the pages that embed cards (docs/security.md)")
	}
	v, err := a2ui.NewValidator(cfg.A2UILimits.Options())
	if err != nil {
		return nil, err
	}
	var tp *tracing.Provider
	if t := cfg.Tracing; t.on() {
		ratio := 1.0
		if t.SampleRatio != nil {
			ratio = *t.SampleRatio
			if ratio == 0 {
				ratio = -1 // TraceIDRatioBased: never
			}
		}
		if tp, err = tracing.New(context.Background(), tracing.Config{Endpoint: strings.TrimSuffix(t.OTLPEndpoint, "/"), Headers: t.Headers, SampleRatio: ratio, ServiceName: t.ServiceName, Instance: cfg.InstanceID, Exporter: t.exporter}); err != nil {
			return nil, err
		}
		logger = slog.New(tracing.LogHandler(logger.Handler()))
	}
	s := &Server{cfg: cfg, logger: logger, tracing: tp, metrics: newMetrics(), agents: map[string]*agentEntry{}, a2ui: v, instance: cfg.InstanceID, conns: takeover.New()}
	if s.instance == "" {
		s.instance = newInstanceID()
	}
	s.trustedProxies = trustedProxies(cfg.Auth.TrustedProxies)
	s.tokens = namedTokens(cfg.Auth.BearerTokens)
	capKey := cfg.MCPApps.CapabilityKey
	if capKey == "" {
		capKey = cfg.SandboxKey
	}
	s.caps = mcpapps.NewCapabilities([]byte(capKey), time.Duration(cfg.MCPApps.CapabilityTTL))
	s.heavy = newLimiter(cfg.A2UIAPI.maxConcurrent(), cfg.A2UIAPI.maxPerPrincipal())
	s.starts = newStartLimiter(cfg.Limits, time.Now())
	if s.log, err = s.openRunLog(); err != nil {
		_ = tp.Shutdown(context.Background())
		return nil, err
	}
	if s.runs, err = runs.New(s.log, runs.Config{
		Instance:               s.instance,
		DetachGrace:            cfg.detachGrace(),
		Supersede:              cfg.ThreadPolicy == "supersede",
		LeaseTTL:               time.Duration(cfg.RunLog.LeaseTTL),
		MaxReadersPerPrincipal: cfg.Limits.MaxReadersPerPrincipal,
		MaxTranscriptBytes:     cfg.History.MaxRunBytes,
		MaxLiveTranscriptBytes: cfg.History.MaxLiveBytes,
		MaxThreadBytes:         cfg.History.MaxThreadBytes,
		MaxTailBytes:           cfg.Limits.MaxTailBytes,
		MaxThreadPage:          cfg.CopilotKit.Threads.MaxPage,
		MaxTitleBytes:          cfg.CopilotKit.Threads.MaxTitleBytes,
		MaxThreadEventBytes:    cfg.CopilotKit.Threads.MaxEventBytes,
		MaxThreadRuns:          cfg.History.MaxThreadRuns,
		Batch:                  cfg.RunLog.Backend == "redis",
		OutageTolerance:        time.Duration(cfg.RunLog.OutageTolerance),
		MaxHandoverBytes:       cfg.RunLog.MaxHandoverBytes,
		HandoverClaimTimeout:   time.Duration(cfg.RunLog.HandoverClaimTimeout),
		CheckpointInterval:     time.Duration(cfg.RunLog.CheckpointInterval),
		MaxUnwrittenBytes:      cfg.RunLog.MaxBytes,
		Logger:                 logger,
		Observer:               s.metrics,
	}); err != nil {
		s.log.Close()
		return nil, err
	}
	s.metrics.watchStores(s.log, s.runs)
	{
		ctx, cancel := context.WithCancel(context.Background())
		s.stopMemory, s.memoryDone = cancel, make(chan struct{})
		go func() { defer close(s.memoryDone); s.returnMemory(ctx) }()
	}
	if cfg.Auth.JWT != nil {
		if s.jwt, err = jwtauth.New(cfg.Auth.JWT.verifierConfig()); err != nil {
			s.Close()
			return nil, fmt.Errorf("auth.jwt: %w", err)
		}
	}
	s.viewLogs = mcpapps.NewViewLogs(cfg.MCPApps.viewLogOptions())
	s.answers = mcpapps.NewAnswers(nil) // one instance: answers meet in memory
	if rl, ok := s.log.(*runlog.Redis); ok {
		// Answers given through any instance reach a run waiting on
		// another.
		ar := rl.AnswerRelay(s.instance)
		s.answers = mcpapps.NewAnswers(ar)
		ctx, cancel := context.WithCancel(context.Background())
		done, err := ar.Listen(ctx, func(key string, answer []byte) bool {
			if !s.answers.Receive(key, answer) {
				// Its wait ended as the answer came.
				logger.Info("an answer relayed from another instance found its question closed")
				return false
			}
			return true
		})
		if err != nil {
			cancel()
			s.Close()
			return nil, fmt.Errorf("run log: listen for answers: %w", err)
		}
		s.stopAnswers, s.answersDone = cancel, done
	}
	s.answers.MaxBytes = cfg.Toolkit.MaxAnswerBytes
	if s.pool, err = newPool(cfg, logger, s.tracing.Transport, s.tracing.Tracer(), s.a2ui, s.answers); err != nil {
		s.Close()
		return nil, err
	}
	{
		origin := cfg.SandboxOrigin
		if origin == "" {
			origin = "http://" + reachable(cfg.sandboxListen())
		}
		if s.sandbox, err = mcpapps.NewSandbox(origin, []byte(cfg.SandboxKey), mcpapps.SandboxOptions{
			TicketTTL:    time.Duration(cfg.MCPApps.SandboxTicketTTL),
			IsolateCards: cfg.MCPApps.IsolateCards,
		}); err != nil {
			s.Close()
			return nil, err
		}
	}
	for _, id := range cfg.agentIDs() {
		ac := cfg.Agents[id]
		backend, err := newBackend(ac, cfg, s.tracing.Transport, s.a2ui)
		if err != nil {
			s.Close()
			return nil, fmt.Errorf("agent %s: %w", id, err)
		}
		s.agents[id] = &agentEntry{id: id, cfg: ac, chain: s.chain(id, ac, backend), direct: directChain(backend), backend: backend}
		s.agents[id].keeper, _ = backend.(threadKeeper)
		if lg, ok := backend.(*langgraph.Agent); ok {
			lg.Logger = s.logger
			s.agents[id].forward = lg.Upstream.ForwardHeaders
		}
		_, s.agents[id].rejoinable = backend.(agui.Rejoiner)
	}
	s.runs.AcceptHandovers(s.rejoin)
	e := echo.New()
	e.Logger = logger
	e.HTTPErrorHandler = errorHandler(logger)
	s.echo = e
	s.routes(e)
	return s, nil
}

// trustedProxies parses auth.trustedProxies (validated), default loopback.
func trustedProxies(list []string) []netip.Prefix {
	if len(list) == 0 {
		list = []string{"127.0.0.0/8", "::1/128"}
	}
	var out []netip.Prefix
	for _, p := range list {
		if pf, err := netip.ParsePrefix(p); err == nil {
			out = append(out, pf.Masked())
		} else if a, err := netip.ParseAddr(p); err == nil {
			out = append(out, netip.PrefixFrom(a, a.BitLen()))
		}
	}
	return out
}

// newBackend builds the agent a config entry names.
// wrap (tracing) wraps the upstream transports.
func newBackend(ac AgentConfig, cfg Config, wrap func(http.RoundTripper) http.RoundTripper, v *a2ui.Validator) (agui.Agent, error) {
	switch b := ac.Backend.(type) {
	case *DemoConfig:
		var delay time.Duration
		if b != nil {
			delay = time.Duration(b.Delay)
		}
		return &demoAgent{delay: delay, pageURL: demoPageURL(cfg)}, nil
	case *AGUIConfig:
		up, err := b.upstream(cfg, b.HTTP2, wrap)
		if err != nil {
			return nil, err
		}
		return &aguihttp.Agent{
			Upstream:        up,
			ClientThreadIDs: b.UpstreamThreads == "client",
		}, nil
	case *A2AConfig:
		up, err := b.upstream(cfg, false, wrap)
		if err != nil {
			return nil, err
		}
		return &a2a.Agent{
			Upstream: up,
			NewCheck: a2uiCheck(v),
		}, nil
	case *LangGraphConfig:
		up, err := b.upstream(cfg, false, wrap)
		if err != nil {
			return nil, err
		}
		return &langgraph.Agent{
			Upstream:            up,
			Graph:               b.Graph,
			APIKey:              b.APIKey,
			AssistantConfig:     b.AssistantConfig,
			ClientConfigKeys:    b.ClientConfigKeys,
			NoMessagesSnapshot:  b.MessagesSnapshot != nil && !*b.MessagesSnapshot,
			NoSubgraphs:         b.Subgraphs != nil && !*b.Subgraphs,
			NoCopilotKitHelpers: b.CopilotKitHelpers != nil && !*b.CopilotKitHelpers,
		}, nil
	}
	return nil, fmt.Errorf("%w: agent type %q", ErrConfig, ac.Type())
}

// a2uiCheck filters the A2UI messages an A2A agent sends, per run: v0.8
// messages are converted to v0.9.1 (surfaces carry over from one DataPart
// to the next), each message is checked against the message schema and
// the catalog, and what is left out or cannot be expressed is reported;
// the rest is applied (as the A2UI extension asks).
func a2uiCheck(v *a2ui.Validator) func() a2a.Check {
	return func() a2a.Check {
		up := v.NewUpgrader("")
		return func(msgs []json.RawMessage, _ func(string) bool) (keep []json.RawMessage, dropped []string) {
			u := up.Next(msgs)
			for _, e := range u.Issues {
				dropped = append(dropped, fmt.Sprintf("message %d: %s at %s: %s", e.Index, e.Rule, e.Path, e.Message))
			}
			for i, m := range u.Messages {
				if errs := v.SchemaOnly(m); len(errs) > 0 {
					dropped = append(dropped, fmt.Sprintf("message %d: %s at %s: %s", u.Sources[i], errs[0].Rule, errs[0].Path, errs[0].Message))
					continue
				}
				keep = append(keep, m)
			}
			return keep, dropped
		}
	}
}

// poolOptions are the limits of the MCP server pool.
func (m MCPAppsConfig) poolOptions() mcpapps.PoolOptions {
	return mcpapps.PoolOptions{MaxResourceBytes: m.MaxResourceBytes, MaxMessageBytes: m.MaxServerMessageBytes, MaxKeptResources: m.MaxKeptResources, MaxInstructionBytes: m.MaxInstructionBytes, MaxCSPDomains: m.MaxCSPDomains}
}

// viewLogOptions bound what cards' Views log.
func (m MCPAppsConfig) viewLogOptions() mcpapps.ViewLogOptions {
	return mcpapps.ViewLogOptions{Rate: m.ViewLogRate, Burst: m.ViewLogBurst, MaxBytes: m.MaxViewLogBytes, MaxCards: m.MaxViewLogCards}
}

// middleware sets c's fields that come from mcpApps.
func (m MCPAppsConfig) middleware(c mcpapps.Config) mcpapps.Config {
	c.AcceptPlainServerHash = m.AcceptPlainServerHash
	c.Downloads = mcpapps.DownloadOptions{MIMETypes: m.DownloadMIMETypes, MaxBytes: m.MaxDownloadBytes, MaxFiles: m.MaxDownloadFiles}
	c.MaxCardStateBytes = m.MaxCardStateBytes
	c.MaxToolArgumentBytes = m.MaxToolArgumentBytes
	c.MaxRoundBytes = m.MaxRoundBytes
	c.ProxiedRequestTimeout = time.Duration(m.ProxiedRequestTimeout)
	return c
}

// newPool connects to the built-in and configured MCP servers (in the
// background).
func newPool(cfg Config, logger *slog.Logger, wrap func(http.RoundTripper) http.RoundTripper, tracer agui.Tracer, v *a2ui.Validator, answers *mcpapps.Answers) (*mcpapps.Pool, error) {
	servers := builtinServers(v, cfg.Toolkit, answers)
	for _, id := range sortedKeys(cfg.MCPServers) {
		m := cfg.MCPServers[id]
		servers = append(servers, mcpapps.ServerConfig{ID: id, Command: m.Command, URL: m.URL, Headers: m.Headers, CallerHeaders: m.CallerHeaders, ForwardHeaders: m.ForwardHeaders, A2UI: m.A2UI, ProtocolVersion: m.ProtocolVersion})
	}
	opts := cfg.MCPApps.poolOptions()
	opts.Logger, opts.WrapHTTP, opts.Tracer, opts.URLAllowlist = logger, wrap, tracer, origins(cfg.Toolkit.URLAllowlist)
	return mcpapps.NewPool(servers, opts)
}

// chain is the one place that orders the middlewares around a backend,
// outermost first: the output grammar; the A2UI version the client
// renders; A2UI surfaces; MCP Apps; data-view
// cards for the backend's own structured results; the canonicalising
// normaliser right on the backend. A2UI sits outside MCP Apps so that
// structured results of MCP tools, which the MCP Apps middleware emits,
// also become surfaces; data-view cards sit inside it so that MCP tools,
// which bring their own UI, are not wrapped twice (docs/architecture.md).
func (s *Server) chain(id string, ac AgentConfig, backend agui.Agent) agui.Agent {
	logger := s.logger.With("agent", id)
	return agui.Chain(backend,
		agui.Normalize(agui.Output),
		tracing.ToolCalls(),
		a2ui.Emit(s.a2ui, logger),
		a2ui.Middleware(s.a2ui, a2ui.Config{
			Disabled:   ac.A2UI.Disabled,
			Tools:      ac.A2UI.Tools,
			DenyTools:  ac.A2UI.DenyTools,
			MaxRows:    ac.A2UI.MaxRows,
			CatalogID:  ac.A2UI.CatalogID,
			Version:    ac.A2UI.Version,
			ActionMode: ac.A2UI.ActionMode,
			RowAction:  ac.A2UI.RowAction,
			// Actions on an MCP server's surface are that server's.
			ServerAction: mcpapps.ServerSurfaceAction,
			Enabled:      func(in *agui.RunAgentInput) bool { return renderModes(in, ac.Render)["a2ui"] },
			Logger:       logger,
		}),
		mcpapps.Middleware(s.pool, s.cfg.MCPApps.middleware(mcpapps.Config{
			Servers:       ac.MCPServers,
			ProxyOnly:     []string{dataview.ServerID},
			MaxToolRounds: ac.MaxToolRounds,
			Logger:        logger,
			Caps:          s.caps,
			Renders:       func(in *agui.RunAgentInput) []string { return renderList(in, ac.Render) },
			Dual:          []string{dataview.ServerID},
			Answers:       s.answers,
			Catalog:       func(in *agui.RunAgentInput) string { return a2ui.CatalogOf(in, ac.A2UI.CatalogID) },
			AnswerWait:    time.Duration(s.cfg.Toolkit.AnswerWait),
			ViewLogs:      s.viewLogs,
			CardStates:    cardStates{s.runs, s.cfg.MCPApps.MaxCardStates},
		})),
		dataview.Cards(s.pool, s.caps, func(in *agui.RunAgentInput) bool { return renderModes(in, ac.Render)["mcp-apps"] }),
		agui.Normalize(agui.Canonical),
	)
}

// directChain is the chain of a suggestion run: the backend alone
// between the normalisers, as CopilotRuntime runs one (no A2UI, no MCP
// tools: the client forces its own suggestion tool, so the rest would be
// dead weight and MCP round-trips).
func directChain(backend agui.Agent) agui.Agent {
	return agui.Chain(backend, agui.Normalize(agui.Output), agui.Normalize(agui.Canonical))
}

// ServeHTTP implements http.Handler.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) { s.echo.ServeHTTP(w, r) }

// openRunLog builds the configured run log.
func (s *Server) openRunLog() (runlog.Log, error) {
	cfg := s.cfg
	rl := cfg.RunLog
	if rl.Backend == "redis" {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		return runlog.NewRedis(ctx, rl.URL, runlog.RedisOptions{
			Prefix: rl.Prefix, Retention: time.Duration(rl.Retention), MaxEventsPerRun: rl.MaxEventsPerRun,
			MaxRunBytes: rl.MaxRunBytes, HistoryRetention: time.Duration(cfg.History.Retention), LeaseTTL: time.Duration(rl.LeaseTTL),
			MaxThreadsPerOwner: cfg.History.MaxThreadsPerPrincipal,
		})
	}
	return runlog.NewMemory(runlog.MemoryOptions{
		MaxBytes: rl.MaxBytes, MaxRunBytes: rl.MaxRunBytes, Retention: time.Duration(rl.Retention), MaxEventsPerRun: rl.MaxEventsPerRun,
		MaxHistoryBytes: cfg.History.MaxBytes, HistoryRetention: time.Duration(cfg.History.Retention),
		MaxThreadsPerOwner: cfg.History.MaxThreadsPerPrincipal,
		OnRelease:          func(n int64) { s.freed.Add(n) },
	}), nil
}

// returnMemory gives memory back to the OS after the stores released a
// lot of it (8 MiB since the last check, checked every 5 s) or when the
// heap holds more than 32 MiB free but not returned: an idle process
// would otherwise keep the garbage of a burst of runs until the runtime's
// periodic GC (2 min) and slow background scavenger get to it, and RSS
// would stay at its peak. It waits while the process allocates more than
// a quarter of its live heap between two checks (busyShare): the runtime
// is then collecting on its own and reusing the free memory, and a forced
// collection that hands it back only for it to be faulted in again cost a
// flood about 5% of the adapter's CPU and, at 1,000 streams on the Redis
// log, stalled every stream for as long as the heap was scavenged. The
// soft memory limit still bounds the heap meanwhile. It ends with ctx.
func (s *Server) returnMemory(ctx context.Context) {
	r := memoryReturn{freed: &s.freed}
	r.due() // the baseline for the first check
	t := time.NewTicker(5 * time.Second)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		if r.due() {
			debug.FreeOSMemory()
		}
	}
}

// busyShare: a process that allocated more than its live heap over this
// between two checks is busy, and keeps its free memory.
const busyShare = 4

// memoryReturn decides when returnMemory hands memory back.
type memoryReturn struct {
	freed  *atomic.Int64 // bytes the stores released since the last return
	allocs uint64        // the runtime's cumulative allocations at the last check
}

// due reports whether memory should go back to the OS now, and if so
// starts counting the released bytes afresh.
func (r *memoryReturn) due() bool {
	sample := []rtmetrics.Sample{
		{Name: "/memory/classes/heap/free:bytes"},
		{Name: "/gc/heap/allocs:bytes"},
		{Name: "/memory/classes/heap/objects:bytes"},
	}
	rtmetrics.Read(sample)
	free, total, live := metricUint(sample[0]), metricUint(sample[1]), metricUint(sample[2])
	busy := total-r.allocs > live/busyShare
	r.allocs = total
	if busy || (r.freed.Load() <= 8<<20 && free <= 32<<20) {
		return false
	}
	r.freed.Store(0)
	return true
}

// metricUint is a runtime metric's value, or 0 if it is not a uint64.
func metricUint(m rtmetrics.Sample) uint64 {
	if m.Value.Kind() != rtmetrics.KindUint64 {
		return 0
	}
	return m.Value.Uint64()
}

func newInstanceID() string {
	var b [6]byte
	_, _ = rand.Read(b[:])
	host, _ := os.Hostname()
	return host + "-" + hex.EncodeToString(b[:])
}

// SandboxHandler serves the MCP Apps sandbox origin, or is nil when no MCP
// server is configured. Serve it on its own listener (another origin).
func (s *Server) SandboxHandler() http.Handler {
	if s.sandbox == nil {
		return nil
	}
	return s.sandbox
}

// Close releases the runs, the run log and the MCP sessions. Call it
// after Drain.
func (s *Server) Close() error {
	s.conns.Close()
	if s.jwt != nil {
		s.jwt.Close()
	}
	if s.tracing != nil {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		if err := s.tracing.Shutdown(ctx); err != nil {
			s.logger.Warn("cannot export the last spans", "error", err)
		}
		cancel()
	}
	if s.stopMemory != nil {
		s.stopMemory()
		<-s.memoryDone
	}
	if s.pool != nil {
		s.pool.Close()
	}
	if s.stopAnswers != nil {
		s.stopAnswers()
		<-s.answersDone
	}
	if s.runs != nil {
		s.runs.Close()
	}
	return s.log.Close()
}

// Drain marks the server as draining (readyz answers 503), hands the
// runs that can be taken over to other instances (runs.Manager.HandOver:
// with Redis, agents whose backend can rejoin a run) and waits up to
// grace for running runs and streams to end by themselves. Runs still
// running then are ended with RUN_ERROR{code:"shutdown"} (logged, so a
// client can replay it from another instance); Drain waits for that as
// long as a run's last append may take (runlog.outageTolerance plus one
// operation's timeout), then at most 5 more seconds for the streams.
func (s *Server) Drain(grace time.Duration) {
	s.draining.Store(true)
	// At once, so that runs move while this instance still serves them.
	s.runs.HandOver()
	done := make(chan struct{})
	go func() {
		s.runs.Wait()
		s.streams.Wait()
		close(done)
	}()
	t := time.NewTimer(grace)
	defer t.Stop()
	select {
	case <-done:
		return
	case <-t.C:
	}
	s.runs.Shutdown(&agui.RunFailure{Code: agui.CodeShutdown, Message: "the server is shutting down; retry the run"})
	// A run's last event must be in the log before the process goes, or
	// a reader elsewhere ends the run owner_lost: wait for the runs as
	// long as their appends may take (the log may be in an outage within
	// its tolerance), then for the streams.
	ended := make(chan struct{})
	go func() { s.runs.Wait(); close(ended) }()
	select {
	case <-ended:
	case <-time.After(s.runs.EndWithin()):
		s.logger.Warn("runs did not write their last event after shutdown was signalled")
	}
	select {
	case <-done:
	case <-time.After(5 * time.Second):
		s.logger.Warn("streams did not end after shutdown was signalled")
	}
}

// agentInfo is one entry of GET /agents.
type agentInfo struct {
	ID          string `json:"id"`
	Type        string `json:"type"`
	Description string `json:"description,omitempty"`
	RunURL      string `json:"runUrl"`
}

func (s *Server) agentList() []agentInfo {
	out := make([]agentInfo, 0, len(s.agents))
	for id, a := range s.agents {
		out = append(out, agentInfo{ID: id, Type: a.cfg.Type(), Description: a.cfg.Description, RunURL: "/agents/" + id + "/run"})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].ID < out[j].ID })
	return out
}
