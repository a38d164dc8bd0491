package mcpapps

import (
	"encoding/json"
	"fmt"
	"html"
	"net/url"
	"slices"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// URIListMIMEType is a UI resource that names an external page (RFC 2483:
// one URI per line, # comments) to show in a card, if its origin is on the
// deployment's allowlist.
const URIListMIMEType = "text/uri-list"

// FrameSizeKey is the _meta key (MCP-UI, qwen-agent) of an app's
// preferred [width, height].
const FrameSizeKey = "mcpui.dev/ui-preferred-frame-size"

// AllowedURL checks that raw is an absolute http(s) URL whose origin is on
// allow, and returns that origin. The error says what to do instead.
func AllowedURL(raw string, allow []string) (string, error) {
	u, err := url.Parse(strings.TrimSpace(raw))
	if err != nil || (u.Scheme != "https" && u.Scheme != "http") || u.Host == "" || u.User != nil {
		return "", fmt.Errorf("%q is not an absolute http(s) URL", raw)
	}
	origin := u.Scheme + "://" + strings.ToLower(u.Host)
	if !slices.Contains(allow, origin) {
		if len(allow) == 0 {
			return "", fmt.Errorf("%s is not on this deployment's allowlist of embeddable sites (it allows none); give the user the link as text instead", origin)
		}
		return "", fmt.Errorf("%s is not on this deployment's allowlist of embeddable sites (%s); give the user the link as text instead", origin, strings.Join(allow, ", "))
	}
	return origin, nil
}

// ExternalPage is a View that shows the page at u (whose origin is
// origin) in a frame filling the card: it completes the MCP Apps
// handshake and asks for height. Its _meta.ui lets the card frame only
// that origin.
func ExternalPage(u, origin, title string, height int) (string, map[string]any) {
	if height <= 0 {
		height = 480
	}
	page := fmt.Sprintf(`<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>%[1]s</title>
<style>html,body{margin:0;height:%[3]dpx}iframe{border:0;width:100%%;height:%[3]dpx;display:block}</style></head>
<body><iframe id="page" title="%[1]s" src="%[2]s" referrerpolicy="no-referrer"></iframe>
<script>
(() => {
  const send = (m) => window.parent.postMessage(m, "*");
  window.addEventListener("message", (e) => {
    const m = e.data || {};
    if (m.jsonrpc !== "2.0") return;
    if (m.id === 1 && m.method === undefined) {
      send({ jsonrpc: "2.0", method: "ui/notifications/initialized", params: {} });
      send({ jsonrpc: "2.0", method: "ui/notifications/size-changed", params: { height: %[3]d } });
    } else if ((m.method === "ui/resource-teardown" || m.method === "ping") && m.id !== undefined) {
      send({ jsonrpc: "2.0", id: m.id, result: {} });
    }
  });
  send({ jsonrpc: "2.0", id: 1, method: "ui/initialize", params: { protocolVersion: "2026-01-26", appInfo: { name: "genui-external-page", version: "1.0.0" }, appCapabilities: {} } });
})();
</script></body></html>`, html.EscapeString(title), html.EscapeString(u), height)
	return page, map[string]any{"csp": map[string]any{"frameDomains": []string{origin}}, "prefersBorder": true}
}

// externalPage turns a text/uri-list resource into an ExternalPage View
// of its first URI, if allowed.
func (p *Pool) externalPage(list, uri string) (*Resource, error) {
	for line := range strings.Lines(list) {
		line = strings.TrimSpace(line)
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		origin, err := AllowedURL(line, p.opts.URLAllowlist)
		if err != nil {
			return nil, fmt.Errorf("%w: %s names %v", ErrNotRenderable, uri, err)
		}
		page, ui := ExternalPage(line, origin, line, 0)
		return &Resource{URI: uri, MIMEType: MIMEType, HTML: page, UI: ui}, nil
	}
	return nil, fmt.Errorf("%w: %s lists no URI", ErrNotRenderable, uri)
}

// app is the app response of a server written the qwen-agent way:
// {"type": "app", "resourceUri": "ui://…", "data": {…}, "_meta":
// {"mcpui.dev/ui-preferred-frame-size": [w, h]}}.
type app struct {
	Type        string         `json:"type"`
	ResourceURI string         `json:"resourceUri"`
	Data        any            `json:"data"`
	Meta        map[string]any `json:"_meta"`
	FrameSize   []float64      `json:"-"`
}

// appResponse finds an app response in a result: its structured content,
// else its only text content parsed as JSON.
func appResponse(r *mcp.CallToolResult) (app, bool) {
	var raw []byte
	if r.StructuredContent != nil {
		raw, _ = json.Marshal(r.StructuredContent)
	} else if len(r.Content) == 1 {
		if t, ok := r.Content[0].(*mcp.TextContent); ok {
			raw = []byte(strings.TrimSpace(t.Text))
		}
	}
	var a app
	if len(raw) == 0 || raw[0] != '{' || json.Unmarshal(raw, &a) != nil || a.Type != "app" || !strings.HasPrefix(a.ResourceURI, "ui://") {
		return app{}, false
	}
	if fs, ok := a.Meta[FrameSizeKey].([]any); ok && len(fs) == 2 {
		w, wok := fs[0].(float64)
		h, hok := fs[1].(float64)
		if wok && hok && w > 0 && h > 0 && w <= 4096 && h <= 4096 {
			a.FrameSize = []float64{w, h}
		}
	}
	return a, true
}

// AwaitsResponse reports whether a View written the qwen-agent way can
// answer (it posts mcp-app-response): its tool's result is then the
// user's response.
func (r *Resource) AwaitsResponse() bool { return strings.Contains(r.HTML, "mcp-app-response") }
