package mcpapps

import (
	"slices"
	"strings"
)

// DefaultCSP is the policy for a resource that declares no _meta.ui.csp.
const DefaultCSP = "default-src 'none'; script-src 'self' 'unsafe-inline'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; media-src 'self' data:; connect-src 'none'; object-src 'none'"

// cleanDomains keeps the declared sources that cannot inject directives or
// widen the policy: no ';', quotes, spaces or newlines, no "*" alone, no
// scheme-only sources, no keywords.
func cleanDomains(v any) []string {
	var in []string
	switch x := v.(type) {
	case []any:
		for _, e := range x {
			if s, ok := e.(string); ok {
				in = append(in, s)
			}
		}
	case []string:
		in = x
	}
	var out []string
	for _, d := range in {
		switch {
		case d == "" || strings.ContainsAny(d, "; '\"\r\n\t,"):
		case d == "*" || strings.HasSuffix(d, ":") || strings.HasPrefix(d, "'"):
		default:
			if !slices.Contains(out, d) {
				out = append(out, d)
			}
		}
	}
	return out
}

// CSP builds a resource's Content-Security-Policy from its _meta.ui per
// the MCP Apps spec: the restrictive default when csp is absent; otherwise
// declared domains only (resourceDomains for scripts, styles, images,
// fonts and media; connectDomains for connect-src; frameDomains for
// frame-src, else 'none'; baseUriDomains for base-uri, else 'self'),
// always object-src 'none'. It is never looser than declared.
func CSP(ui map[string]any) string {
	csp, ok := ui["csp"].(map[string]any)
	if !ok {
		return DefaultCSP
	}
	res := cleanDomains(csp["resourceDomains"])
	conn := cleanDomains(csp["connectDomains"])
	frame := cleanDomains(csp["frameDomains"])
	base := cleanDomains(csp["baseUriDomains"])
	join := func(fixed string, extra []string) string {
		return strings.TrimSpace(fixed + " " + strings.Join(extra, " "))
	}
	d := []string{
		"default-src 'none'",
		"script-src " + join("'self' 'unsafe-inline'", res),
		"style-src " + join("'self' 'unsafe-inline'", res),
		"img-src " + join("'self' data:", res),
		"media-src " + join("'self' data:", res),
		"font-src " + join("'self'", res),
		"connect-src " + join("'self'", conn),
	}
	if len(frame) > 0 {
		d = append(d, "frame-src "+strings.Join(frame, " "))
	} else {
		d = append(d, "frame-src 'none'")
	}
	if len(base) > 0 {
		d = append(d, "base-uri "+strings.Join(base, " "))
	} else {
		d = append(d, "base-uri 'self'")
	}
	d = append(d, "object-src 'none'")
	return strings.Join(d, "; ")
}

// Allow maps _meta.ui.permissions to the iframe allow attribute.
func Allow(ui map[string]any) string {
	p, _ := ui["permissions"].(map[string]any)
	var out []string
	for _, k := range []struct{ meta, allow string }{{"camera", "camera"}, {"microphone", "microphone"}, {"geolocation", "geolocation"}, {"clipboardWrite", "clipboard-write"}} {
		if _, ok := p[k.meta]; ok {
			out = append(out, k.allow)
		}
	}
	return strings.Join(out, "; ")
}
