package adapter

import (
	"net/http"
	"net/http/pprof"
	"strings"

	"github.com/labstack/echo/v5"
	"github.com/labstack/echo/v5/middleware"
	"github.com/prometheus/client_golang/prometheus/promhttp"
)

// routes registers the whole HTTP API.
func (s *Server) routes(e *echo.Echo) {
	e.Pre(corsMiddleware(s.cfg.CORS))
	e.Use(middleware.Recover())
	e.Use(requestLog(s.logger))

	e.GET("/", handlePlaygroundIndex())
	e.GET("/playground/:file", handlePlaygroundFile())
	e.GET("/vendor/:file", handleVendor())
	e.GET("/healthz", handleHealth())
	e.GET("/readyz", handleReady(s))
	e.GET("/metrics", echo.WrapHandler(promhttp.HandlerFor(s.metrics.reg, promhttp.HandlerOpts{})))
	e.GET("/agents", handleAgents(s))
	e.GET("/agents/:agentId/capabilities", handleCapabilities(s))
	// Who is calling is settled from the headers, before any body is read.
	auth := requireAuth(s)
	e.POST("/agents/:agentId/run", handleRun(s), auth)
	e.GET("/runs/:runId/events", handleRunEvents(s), auth)
	e.POST("/runs/:runId/cancel", handleRunCancel(s), auth)
	e.GET("/threads/:threadId/messages", handleThreadMessages(s), auth)
	e.GET("/static/mcp-apps-host.js", handleHostScript())
	e.POST("/mcp-apps/sandbox", handleSandboxURL(s), auth)
	if !s.cfg.CopilotKit.Disabled {
		base := s.cfg.CopilotKit.base()
		e.GET(base+"/info", handleCPKInfo(s))
		e.POST(base+"/agent/:agentId/run", handleCPKRun(s), auth)
		e.POST(base+"/agent/:agentId/connect", handleCPKConnect(s), auth)
		e.POST(base+"/agent/:agentId/suggest", handleCPKSuggest(s), auth)
		e.POST(base+"/agent/:agentId/stop/:threadId", handleCPKStop(s), auth)
		s.cpkThreadRoutes(e, base, auth)
		e.Any(base, handleCPKSingle(s))
		e.Any(base+"/", handleCPKSingle(s))
		e.RouteNotFound(base+"/*", handleCPKNotFound())
	}
	if s.cfg.Debug.Pprof {
		e.GET("/debug/pprof/*", echo.WrapHandler(http.HandlerFunc(pprofHandler)), auth)
	}
	// Auth (unless a2uiApi.public), concurrency and body caps are in
	// heavyBody.
	e.POST("/a2ui/validate", handleA2UIValidate(s))
	e.POST("/a2ui/render", handleA2UIRender(s))
}

// pprofHandler serves net/http/pprof's pages (debug.pprof).
func pprofHandler(w http.ResponseWriter, r *http.Request) {
	switch name := strings.TrimPrefix(r.URL.Path, "/debug/pprof/"); name {
	case "":
		pprof.Index(w, r)
	case "cmdline":
		pprof.Cmdline(w, r)
	case "profile":
		pprof.Profile(w, r)
	case "symbol":
		pprof.Symbol(w, r)
	case "trace":
		pprof.Trace(w, r)
	default:
		pprof.Handler(name).ServeHTTP(w, r)
	}
}

func handleHealth() echo.HandlerFunc {
	return func(c *echo.Context) error {
		return c.JSON(http.StatusOK, map[string]string{"status": "ok"})
	}
}

func handleReady(s *Server) echo.HandlerFunc {
	return func(c *echo.Context) error {
		if s.draining.Load() {
			return &httpError{Status: http.StatusServiceUnavailable, Code: "draining", Msg: "the server is shutting down"}
		}
		ctx, cancel := readyCtx(c)
		defer cancel()
		if err := s.runs.Ready(ctx); err != nil {
			s.logger.Warn("not ready: the run log does not answer", "error", err)
			return &httpError{Status: http.StatusServiceUnavailable, Code: "runlog_unreachable", Msg: "the run log does not answer"}
		}
		return c.JSON(http.StatusOK, map[string]string{"status": "ready"})
	}
}

func handleAgents(s *Server) echo.HandlerFunc {
	list := s.agentList()
	return func(c *echo.Context) error {
		return c.JSON(http.StatusOK, map[string]any{"agents": list})
	}
}
