package adapter

import (
	"embed"
	"net/http"
	"path/filepath"

	"github.com/labstack/echo/v5"
)

// The playground's own files: plain HTML, CSS and JS, no build step.
//
//go:embed playground
var playgroundFS embed.FS

func handlePlaygroundIndex() echo.HandlerFunc {
	page, _ := playgroundFS.ReadFile("playground/index.html")
	return func(c *echo.Context) error {
		c.Response().Header().Set("Cache-Control", "no-cache")
		return c.HTMLBlob(http.StatusOK, page)
	}
}

func handlePlaygroundFile() echo.HandlerFunc {
	types := map[string]string{".js": "text/javascript; charset=utf-8", ".css": "text/css; charset=utf-8", ".html": "text/html; charset=utf-8"}
	return func(c *echo.Context) error {
		name := filepath.Base(c.Param("file"))
		b, err := playgroundFS.ReadFile("playground/" + name)
		if err != nil || types[filepath.Ext(name)] == "" {
			return &httpError{Status: http.StatusNotFound, Code: "not_found", Msg: "no playground file " + name}
		}
		c.Response().Header().Set("Cache-Control", "no-cache")
		return c.Blob(http.StatusOK, types[filepath.Ext(name)], b)
	}
}

// handleVendor serves the third-party files the binary embeds (the A2UI
// renderer bundle and its icon font, built by `make playground-vendor`).
func handleVendor() echo.HandlerFunc {
	types := map[string]string{".js": "text/javascript; charset=utf-8", ".woff2": "font/woff2"}
	return func(c *echo.Context) error {
		name := filepath.Base(c.Param("file"))
		b, err := playgroundFS.ReadFile("playground/vendor/" + name)
		if err != nil || types[filepath.Ext(name)] == "" {
			return &httpError{Status: http.StatusNotFound, Code: "not_found", Msg: "no vendor file " + name}
		}
		c.Response().Header().Set("Cache-Control", "public, max-age=3600")
		return c.Blob(http.StatusOK, types[filepath.Ext(name)], b)
	}
}
