package adapter

import (
	"net/http"

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
	e.GET("/vendor/:file", handleVendor(s.cfg.playgroundVendor()))
	e.GET("/healthz", handleHealth())
	e.GET("/readyz", handleReady(s))
	e.GET("/metrics", echo.WrapHandler(promhttp.HandlerFor(s.metrics.reg, promhttp.HandlerOpts{})))
	e.GET("/agents", handleAgents(s))
	e.POST("/agents/:agentId/run", handleRun(s))
	e.GET("/runs/:runId/events", handleRunEvents(s))
	e.POST("/runs/:runId/cancel", handleRunCancel(s))
	e.GET("/threads/:threadId/messages", handleThreadMessages(s))
	e.GET("/static/mcp-apps-host.js", handleHostScript())
	e.POST("/mcp-apps/sandbox", handleSandboxURL(s))
	if !s.cfg.CopilotKit.Disabled {
		base := s.cfg.CopilotKit.base()
		e.GET(base+"/info", handleCPKInfo(s))
		e.POST(base+"/agent/:agentId/run", handleCPKRun(s))
		e.POST(base+"/agent/:agentId/connect", handleCPKConnect(s))
		e.POST(base+"/agent/:agentId/stop/:threadId", handleCPKStop(s))
		e.Any(base, handleCPKSingle(s))
		e.Any(base+"/", handleCPKSingle(s))
		e.RouteNotFound(base+"/*", handleCPKNotFound())
	}
	e.POST("/a2ui/validate", handleA2UIValidate(s.a2ui, s.cfg.maxBody()))
	e.POST("/a2ui/render", handleA2UIRender(s.a2ui, s.cfg.maxBody()))
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
		return c.JSON(http.StatusOK, map[string]string{"status": "ready"})
	}
}

func handleAgents(s *Server) echo.HandlerFunc {
	list := s.agentList()
	return func(c *echo.Context) error {
		return c.JSON(http.StatusOK, map[string]any{"agents": list})
	}
}
