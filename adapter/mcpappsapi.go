package adapter

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"strings"

	"github.com/labstack/echo/v5"

	"github.com/genui-adapter/genui-adapter/agui"
	"github.com/genui-adapter/genui-adapter/agui/origin"
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
// {serverHash (the card's capability) | serverId, uri, hostOrigin} → {url,
// allow, prefersBorder, csp}. It takes the same auth as runs; hostOrigin
// must be one the deployment serves (hostOriginAllowed); a capability
// must be the caller's (a plain serverId or serverHash is refused unless
// mcpApps.acceptPlainServerHash); uri must be a ui:// resource of the card's server
// (or one a tool result carried inline for the capability's principal
// and thread). The
// CSP is built here from the resource the adapter read; the client never
// supplies a policy.
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
		hostOrigin, ok := s.hostOriginAllowed(c.Request(), req.HostOrigin)
		if !ok {
			return &httpError{Status: http.StatusForbidden, Code: "host_origin_not_allowed", Msg: fmt.Sprintf("hostOrigin %q is not in publicOrigins or cors.origins, nor the Origin of this request", req.HostOrigin)}
		}
		id := req.ServerID
		var who *mcpapps.Caller // the card's principal and thread, when it has a capability
		switch {
		case mcpapps.IsCapability(req.ServerHash):
			cp, err := s.caps.Check(req.ServerHash)
			if err != nil || cp.Principal != s.capPrincipal(c) {
				if err == nil {
					err = mcpapps.ErrForeignCapability
				}
				return &httpError{Status: http.StatusForbidden, Code: "bad_capability", Msg: err.Error()}
			}
			if id != "" && id != cp.Server {
				return errBadRequest("serverId and the card's capability name different servers", nil)
			}
			id = cp.Server
			who = &mcpapps.Caller{Principal: cp.Principal, ThreadID: cp.Thread, ToolCallID: cp.ToolCall, Source: "app"}
		case !s.cfg.MCPApps.AcceptPlainServerHash:
			// As for the card's proxied requests: naming a server is not
			// enough to have the adapter read its resources.
			return &httpError{Status: http.StatusForbidden, Code: "capability_required", Msg: "a card's sandbox needs the card's capability (the serverHash of its mcp-apps activity); a plain serverId or serverHash is accepted only with mcpApps.acceptPlainServerHash"}
		case id == "":
			var ok bool
			if id, ok = s.pool.ByHash(req.ServerHash); !ok {
				return &httpError{Status: http.StatusNotFound, Code: "unknown_server", Msg: "no MCP server has this serverHash"}
			}
		case !s.pool.Has(id):
			return &httpError{Status: http.StatusNotFound, Code: "unknown_server", Msg: "no MCP server " + id}
		}
		res, err := s.pool.UIResource(c.Request().Context(), who, id, req.URI)
		if err != nil {
			return &httpError{Status: http.StatusUnprocessableEntity, Code: "not_renderable", Msg: err.Error(), Err: err}
		}
		u, err := s.sandbox.URL(res.UI, hostOrigin)
		if err != nil {
			return errBadRequest(err.Error(), nil)
		}
		return c.JSON(http.StatusOK, map[string]any{"url": u, "allow": mcpapps.Allow(res.UI), "prefersBorder": res.UI["prefersBorder"] == true, "csp": mcpapps.CSP(res.UI)})
	}
}

// hostOriginAllowed: the page embedding a card must be on an origin the
// deployment serves: one in publicOrigins or cors.origins or, with no
// publicOrigins, the request's Origin (which a browser sets and a page
// cannot). Never because of Host, which any client may set. It returns
// the origin as a browser writes it, which the sandbox page compares its
// parent's with.
func (s *Server) hostOriginAllowed(r *http.Request, hostOrigin string) (string, bool) {
	u, err := url.Parse(hostOrigin)
	if err != nil || u.Path != "" || u.RawQuery != "" || u.Fragment != "" || u.Opaque != "" || strings.HasSuffix(u.Hostname(), ".") {
		return "", false
	}
	want, err := origin.OfURL(u)
	if err != nil {
		return "", false
	}
	allowed := false
	for _, list := range [][]string{s.cfg.PublicOrigins, s.cfg.CORS.Origins} {
		for _, o := range list {
			if c, err := origin.Of(o); err == nil && c == want {
				allowed = true
			}
		}
	}
	if !allowed && len(s.cfg.PublicOrigins) == 0 {
		got, err := origin.Of(r.Header.Get("Origin"))
		allowed = err == nil && got == want
	}
	return origin.Serialized(want), allowed
}

// capPrincipal is the principal card capabilities carry for this request:
// the agents' view of it ("" without auth).
func (s *Server) capPrincipal(c *echo.Context) string {
	if !s.authenticated() {
		return ""
	}
	return principalOf(c)
}

// renewCards re-signs the capabilities of the cards in a thread replayed
// to its owner (after a reload their capabilities may have expired).
func (s *Server) renewCards(c *echo.Context, thread string, msgs []agui.Message) []agui.Message {
	out := make([]agui.Message, len(msgs))
	for i, m := range msgs {
		if m.Role == agui.RoleActivity && m.ActivityType == mcpapps.ActivityType && m.Content.Object != nil {
			m.Content = agui.Object(s.caps.Renew(m.Content.Object, s.capPrincipal(c), thread))
		}
		out[i] = m
	}
	return out
}
