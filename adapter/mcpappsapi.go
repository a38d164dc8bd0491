package adapter

import (
	"encoding/json"
	"net/http"

	"github.com/labstack/echo/v5"

	"github.com/genui-adapter/genui-adapter/mcpapps"
)

func handleHostScript() echo.HandlerFunc {
	script := mcpapps.HostScript()
	return func(c *echo.Context) error {
		c.Response().Header().Set("Cache-Control", "no-cache")
		return c.Blob(http.StatusOK, "text/javascript; charset=utf-8", script)
	}
}

// handleSandboxURL gives the host bridge the sandbox URL of a card: POST
// {serverId|serverHash, uri, hostOrigin} → {url, allow, prefersBorder,
// csp}. The CSP is built here from the resource the adapter read; the
// client never supplies a policy.
func handleSandboxURL(s *Server) echo.HandlerFunc {
	return func(c *echo.Context) error {
		if s.pool == nil {
			return &httpError{Status: http.StatusNotFound, Code: "no_mcp_servers", Msg: "no MCP server is configured"}
		}
		body, err := s.readBody(c, 64<<10, true)
		if err != nil {
			return err
		}
		var req struct {
			ServerID, ServerHash, URI, HostOrigin string
		}
		if err := json.Unmarshal(body, &req); err != nil {
			return errBadRequest("body must be {serverId|serverHash, uri, hostOrigin}", err)
		}
		id := req.ServerID
		if id == "" {
			var ok bool
			if id, ok = s.pool.ByHash(req.ServerHash); !ok {
				return &httpError{Status: http.StatusNotFound, Code: "unknown_server", Msg: "no MCP server has this serverHash"}
			}
		} else if !s.pool.Has(id) {
			return &httpError{Status: http.StatusNotFound, Code: "unknown_server", Msg: "no MCP server " + id}
		}
		res, err := s.pool.UIResource(c.Request().Context(), id, req.URI)
		if err != nil {
			return &httpError{Status: http.StatusUnprocessableEntity, Code: "not_renderable", Msg: err.Error(), Err: err}
		}
		u, err := s.sandbox.URL(res.UI, req.HostOrigin)
		if err != nil {
			return errBadRequest(err.Error(), nil)
		}
		return c.JSON(http.StatusOK, map[string]any{"url": u, "allow": mcpapps.Allow(res.UI), "prefersBorder": res.UI["prefersBorder"] == true, "csp": mcpapps.CSP(res.UI)})
	}
}
