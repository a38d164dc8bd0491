package adapter

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"log/slog"
	"net/http"
	"os"
	"sort"
	"sync"
	"sync/atomic"
	"time"

	"github.com/labstack/echo/v5"

	"github.com/genui-adapter/genui-adapter/a2ui"
	"github.com/genui-adapter/genui-adapter/adapter/runlog"
	"github.com/genui-adapter/genui-adapter/agui"
	"github.com/genui-adapter/genui-adapter/agui/langgraph"
	"github.com/genui-adapter/genui-adapter/mcpapps"
	"github.com/genui-adapter/genui-adapter/mcpapps/dataview"
)

// agentEntry is a configured agent with its middleware chain.
type agentEntry struct {
	id    string
	cfg   AgentConfig
	chain agui.Agent
}

// Server is the HTTP service. It implements http.Handler.
type Server struct {
	cfg     Config
	logger  *slog.Logger
	metrics *metrics
	agents  map[string]*agentEntry
	echo    *echo.Echo
	a2ui    *a2ui.Validator

	// runsCtx is cancelled, with a *agui.RunErr cause, to end every running
	// stream at shutdown.
	runsCtx    context.Context
	cancelRuns context.CancelCauseFunc
	streams    sync.WaitGroup // SSE responses
	executors  sync.WaitGroup // running runs
	draining   atomic.Bool

	log      runlog.Log
	pool     *mcpapps.Pool    // nil without MCP servers
	sandbox  *mcpapps.Sandbox // nil without MCP servers
	instance string
	local    sync.Map // run id -> *localRun, for runs this instance executes
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
	v, err := a2ui.NewValidator(a2ui.Options{})
	if err != nil {
		return nil, err
	}
	s := &Server{cfg: cfg, logger: logger, metrics: newMetrics(), agents: map[string]*agentEntry{}, a2ui: v, instance: cfg.InstanceID}
	if s.instance == "" {
		s.instance = newInstanceID()
	}
	if s.log, err = openRunLog(cfg); err != nil {
		return nil, err
	}
	if s.pool, err = newPool(cfg, logger); err != nil {
		s.log.Close()
		return nil, err
	}
	{
		origin := cfg.SandboxOrigin
		if origin == "" {
			origin = "http://" + cfg.sandboxListen()
		}
		if s.sandbox, err = mcpapps.NewSandbox(origin, []byte(cfg.SandboxKey)); err != nil {
			s.Close()
			return nil, err
		}
	}
	s.runsCtx, s.cancelRuns = context.WithCancelCause(context.Background())
	for _, id := range cfg.agentIDs() {
		ac := cfg.Agents[id]
		backend, err := newBackend(ac, cfg)
		if err != nil {
			return nil, fmt.Errorf("agent %s: %w", id, err)
		}
		s.agents[id] = &agentEntry{id: id, cfg: ac, chain: s.chain(id, ac, backend)}
	}
	e := echo.New()
	e.Logger = logger
	e.HTTPErrorHandler = errorHandler(logger)
	s.echo = e
	s.routes(e)
	return s, nil
}

// newBackend builds the agent a config entry names.
func newBackend(ac AgentConfig, cfg Config) (agui.Agent, error) {
	switch ac.Type {
	case "demo":
		return &demoAgent{delay: time.Duration(ac.Delay)}, nil
	case "agui":
		return &agui.HTTPAgent{
			URL:            ac.URL,
			Headers:        ac.Headers,
			ForwardHeaders: ac.ForwardHeaders,
			ConnectTimeout: time.Duration(ac.ConnectTimeout),
			IdleTimeout:    time.Duration(ac.IdleTimeout),
			MaxEventSize:   cfg.MaxEventBytes,
		}, nil
	case "langgraph":
		return &langgraph.Agent{
			URL:             ac.URL,
			Graph:           ac.Graph,
			APIKey:          ac.APIKey,
			AssistantConfig: ac.AssistantConfig,
			MaxEventSize:    cfg.MaxEventBytes,
		}, nil
	}
	return nil, fmt.Errorf("%w: unknown agent type %q", ErrConfig, ac.Type)
}

// newPool connects to the built-in and configured MCP servers (in the
// background).
func newPool(cfg Config, logger *slog.Logger) (*mcpapps.Pool, error) {
	servers := builtinServers()
	for _, id := range sortedKeys(cfg.MCPServers) {
		m := cfg.MCPServers[id]
		servers = append(servers, mcpapps.ServerConfig{ID: id, Command: m.Command, URL: m.URL, Headers: m.Headers})
	}
	return mcpapps.NewPool(servers, mcpapps.PoolOptions{Logf: func(format string, args ...any) { logger.Info(fmt.Sprintf(format, args...)) }})
}

// chain is the one place that orders the middlewares around a backend,
// outermost first: the output grammar; A2UI surfaces; MCP Apps; data-view
// cards for the backend's own structured results; the canonicalising
// normaliser right on the backend. A2UI sits outside MCP Apps
// (architecture.md has them the other way round) so that structured
// results of MCP tools, which the MCP Apps middleware emits, also become
// surfaces, as the A2UI issue requires; data-view cards sit inside it so
// that MCP tools, which bring their own UI, are not wrapped twice.
func (s *Server) chain(id string, ac AgentConfig, backend agui.Agent) agui.Agent {
	logger := s.logger.With("agent", id)
	return agui.Chain(backend,
		agui.Normalize(agui.Output),
		a2ui.Middleware(s.a2ui, a2ui.Config{
			Disabled:   ac.A2UI.Disabled,
			Tools:      ac.A2UI.Tools,
			DenyTools:  ac.A2UI.DenyTools,
			MaxRows:    ac.A2UI.MaxRows,
			CatalogID:  ac.A2UI.CatalogID,
			Version:    ac.A2UI.Version,
			ActionMode: ac.A2UI.ActionMode,
			RowAction:  ac.A2UI.RowAction,
			Enabled:    func(in *agui.RunAgentInput) bool { return renderModes(in, ac.Render)["a2ui"] },
			Logf:       func(format string, args ...any) { logger.Warn(fmt.Sprintf(format, args...)) },
		}),
		mcpapps.Middleware(s.pool, mcpapps.Config{
			Servers:       ac.MCPServers,
			ProxyOnly:     []string{dataview.ServerID},
			MaxToolRounds: ac.MaxToolRounds,
			Logf:          func(format string, args ...any) { logger.Info(fmt.Sprintf(format, args...)) },
		}),
		dataview.Cards(s.pool, func(in *agui.RunAgentInput) bool { return renderModes(in, ac.Render)["mcp-apps"] }),
		agui.Normalize(agui.Canonical),
	)
}

// ServeHTTP implements http.Handler.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) { s.echo.ServeHTTP(w, r) }

// openRunLog builds the configured run log.
func openRunLog(cfg Config) (runlog.Log, error) {
	rl := cfg.RunLog
	if rl.Backend == "redis" {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		return runlog.NewRedis(ctx, rl.URL, runlog.RedisOptions{
			Prefix: rl.Prefix, Retention: time.Duration(rl.Retention), MaxEventsPerRun: rl.MaxEventsPerRun,
			OwnerLost: func(r runlog.Run) []byte {
				b, _ := (&agui.RunError{Message: fmt.Sprintf("the adapter instance running this run (%s) stopped", r.Instance), Code: "owner_lost"}).MarshalJSON()
				return b
			},
		})
	}
	return runlog.NewMemory(runlog.MemoryOptions{MaxBytes: rl.MaxBytes, Retention: time.Duration(rl.Retention), MaxEventsPerRun: rl.MaxEventsPerRun}), nil
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

// Close releases the run log and the MCP sessions. Call it after Drain.
func (s *Server) Close() error {
	if s.pool != nil {
		s.pool.Close()
	}
	return s.log.Close()
}

// Drain marks the server as draining (readyz answers 503) and waits up to
// grace for running runs and streams to end by themselves. Runs still
// running then are ended with RUN_ERROR{code:"shutdown"} (logged, so a
// client can replay it from another instance); Drain waits for that, at
// most 5 more seconds.
func (s *Server) Drain(grace time.Duration) {
	s.draining.Store(true)
	done := make(chan struct{})
	go func() {
		s.executors.Wait()
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
	s.cancelRuns(&agui.RunErr{Code: agui.CodeShutdown, Message: "the server is shutting down; retry the run"})
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
		out = append(out, agentInfo{ID: id, Type: a.cfg.Type, Description: a.cfg.Description, RunURL: "/agents/" + id + "/run"})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].ID < out[j].ID })
	return out
}
