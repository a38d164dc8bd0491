package adapter

import (
	"net/http"
	"slices"
	"strings"

	"github.com/labstack/echo/v5"
)

// corsMiddleware applies an exact-origin CORS policy. A listed origin is
// echoed back (never "*" in credentialed mode); "*" in the list allows any
// origin without credentials. Preflights from other origins get 403;
// allowed ones may use every method a route takes (GET, POST, and PATCH
// and DELETE for the CopilotKit thread mutations).
func corsMiddleware(p CORS) echo.MiddlewareFunc {
	any := slices.Contains(p.Origins, "*")
	return func(next echo.HandlerFunc) echo.HandlerFunc {
		return func(c *echo.Context) error {
			req := c.Request()
			origin := req.Header.Get("Origin")
			h := c.Response().Header()
			if origin == "" {
				return next(c)
			}
			h.Add("Vary", "Origin")
			allowed := slices.Contains(p.Origins, origin)
			preflight := req.Method == http.MethodOptions && req.Header.Get("Access-Control-Request-Method") != ""
			if !allowed && !any {
				if preflight {
					return &httpError{Status: http.StatusForbidden, Code: "cors_origin_not_allowed", Msg: "origin " + origin + " is not in cors.origins"}
				}
				return next(c)
			}
			if allowed && p.Credentials {
				h.Set("Access-Control-Allow-Origin", origin)
				h.Set("Access-Control-Allow-Credentials", "true")
			} else if allowed {
				h.Set("Access-Control-Allow-Origin", origin)
			} else {
				h.Set("Access-Control-Allow-Origin", "*")
			}
			if !preflight {
				h.Set("Access-Control-Expose-Headers", "Content-Type")
				return next(c)
			}
			h.Add("Vary", "Access-Control-Request-Method")
			h.Add("Vary", "Access-Control-Request-Headers")
			h.Set("Access-Control-Allow-Methods", "GET, POST, PATCH, DELETE, OPTIONS")
			if rh := req.Header.Get("Access-Control-Request-Headers"); rh != "" {
				h.Set("Access-Control-Allow-Headers", strings.ToLower(rh))
			}
			h.Set("Access-Control-Max-Age", "600")
			return c.NoContent(http.StatusNoContent)
		}
	}
}
