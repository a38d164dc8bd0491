package adapter

import (
	"embed"
	"net/http"
	"os"
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
	types := map[string]string{".js": "text/javascript; charset=utf-8", ".css": "text/css; charset=utf-8"}
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

// handleVendor serves third-party bundles built by `make
// playground-vendor` into dir (never committed).
func handleVendor(dir string) echo.HandlerFunc {
	return func(c *echo.Context) error {
		name := filepath.Base(c.Param("file"))
		b, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil || filepath.Ext(name) != ".js" {
			return &httpError{Status: http.StatusNotFound, Code: "vendor_missing", Msg: "the playground's A2UI renderer bundle is missing: run `make playground-vendor`"}
		}
		c.Response().Header().Set("Cache-Control", "no-cache")
		return c.Blob(http.StatusOK, "text/javascript; charset=utf-8", b)
	}
}
