package mcpapps

import (
	"fmt"
	"maps"
	"slices"
	"strings"
)

// DefaultCSP is the policy for a resource that declares no _meta.ui.csp:
// the spec's default, plus object-src, base-uri and form-action 'none'.
const DefaultCSP = "default-src 'none'; script-src 'self' 'unsafe-inline'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; media-src 'self' data:; connect-src 'none'; object-src 'none'; base-uri 'none'; form-action 'none'"

// cspSchemes are the schemes a declared source may name.
var cspSchemes = []string{"http", "https", "ws", "wss"}

// ParseSource parses one declared CSP domain as a CSP host-source and
// returns it normalised (scheme and host lower-cased), or ok false. It
// accepts [scheme://]host[:port][/path] where scheme is http, https, ws or
// wss; host is a DNS name or IPv4 address, optionally with one leading
// "*." subdomain wildcard over at least two labels (*.example.com, not
// *.com); port is digits; path uses unreserved characters. Everything
// else is refused: whitespace and control characters (a browser splits
// the header on them), quotes, ';' and ',', keywords, a bare scheme,
// "*", a wildcard host or port, userinfo, IPv6 literals.
func ParseSource(d string) (string, bool) {
	if d == "" || len(d) > 512 {
		return "", false
	}
	for i := 0; i < len(d); i++ {
		if c := d[i]; c <= 0x20 || c >= 0x7f || strings.IndexByte(";,'\"\\", c) >= 0 {
			return "", false
		}
	}
	rest := d
	scheme := ""
	if i := strings.Index(rest, "://"); i >= 0 {
		scheme = strings.ToLower(rest[:i])
		if !slices.Contains(cspSchemes, scheme) {
			return "", false
		}
		rest = rest[i+3:]
	} else if strings.Contains(rest, ":") && !strings.Contains(strings.SplitN(rest, "/", 2)[0], ".") && !isHostPort(rest) {
		return "", false // a bare scheme such as https: or data:
	}
	path := ""
	if i := strings.IndexByte(rest, '/'); i >= 0 {
		rest, path = rest[:i], rest[i:]
		for _, c := range path {
			if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || strings.ContainsRune("-._~/%", c)) {
				return "", false
			}
		}
	}
	host, port := rest, ""
	if i := strings.LastIndexByte(rest, ':'); i >= 0 {
		host, port = rest[:i], rest[i+1:]
		if port == "" || len(port) > 5 {
			return "", false
		}
		for _, c := range port {
			if c < '0' || c > '9' {
				return "", false // includes the wildcard port
			}
		}
	}
	host = strings.ToLower(host)
	labels := strings.Split(host, ".")
	if labels[0] == "*" {
		labels = labels[1:]
		if len(labels) < 2 {
			return "", false // *, *.com
		}
	}
	for _, l := range labels {
		if l == "" || len(l) > 63 || l[0] == '-' || l[len(l)-1] == '-' {
			return "", false
		}
		for _, c := range l {
			if !(c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '-') {
				return "", false
			}
		}
	}
	out := host
	if scheme != "" {
		out = scheme + "://" + out
	}
	if port != "" {
		out += ":" + port
	}
	return out + path, true
}

// isHostPort reports whether s (no scheme) looks like host:port.
func isHostPort(s string) bool {
	h, p, ok := strings.Cut(strings.SplitN(s, "/", 2)[0], ":")
	if !ok || h == "" || p == "" {
		return false
	}
	for _, c := range p {
		if c < '0' || c > '9' {
			return false
		}
	}
	return true
}

// cleanDomains keeps the declared sources that parse (ParseSource),
// normalised and without duplicates; dropped reports the others, for
// logging.
func cleanDomains(v any) (out, dropped []string) {
	var in []string
	switch x := v.(type) {
	case []any:
		for _, e := range x {
			if s, ok := e.(string); ok {
				in = append(in, s)
			} else {
				dropped = append(dropped, fmt.Sprint(e))
			}
		}
	case []string:
		in = x
	case nil:
	default:
		dropped = append(dropped, fmt.Sprint(x))
	}
	for _, d := range in {
		src, ok := ParseSource(d)
		if !ok {
			dropped = append(dropped, d)
			continue
		}
		if !slices.Contains(out, src) {
			out = append(out, src)
		}
	}
	return out, dropped
}

// DefaultMaxCSPDomains is PoolOptions.MaxCSPDomains's default.
const DefaultMaxCSPDomains = 64

// cspLists are the _meta.ui.csp keys that list domains.
var cspLists = []string{"resourceDomains", "connectDomains", "frameDomains", "baseUriDomains"}

// capCSP returns ui with each of its csp domain lists cut to its first
// max entries, and the entries cut, for logging. ui itself is never
// changed: a list that is cut is cut in a copy.
func capCSP(ui map[string]any, max int) (map[string]any, []string) {
	csp, ok := ui["csp"].(map[string]any)
	if !ok {
		return ui, nil
	}
	var cut []string
	var capped map[string]any
	for _, k := range cspLists {
		var kept any
		switch x := csp[k].(type) {
		case []any:
			if len(x) <= max {
				continue
			}
			for _, e := range x[max:] {
				cut = append(cut, fmt.Sprint(e))
			}
			kept = slices.Clone(x[:max])
		case []string:
			if len(x) <= max {
				continue
			}
			cut = append(cut, x[max:]...)
			kept = slices.Clone(x[:max])
		default:
			continue
		}
		if capped == nil {
			capped = maps.Clone(csp)
		}
		capped[k] = kept
	}
	if capped == nil {
		return ui, nil
	}
	out := maps.Clone(ui)
	out["csp"] = capped
	return out, cut
}

// CSP builds a resource's Content-Security-Policy from its _meta.ui per
// the MCP Apps spec: the restrictive default when csp is absent; otherwise
// declared domains only (resourceDomains for scripts, styles, images,
// fonts and media; connectDomains for connect-src; frameDomains for
// frame-src, else 'none'; baseUriDomains for base-uri, else 'none'), and
// always object-src and form-action 'none'. Each domain is parsed, never
// copied (ParseSource), so the policy never allows more origins than were
// declared.
func CSP(ui map[string]any) string {
	p, _ := CSPReport(ui)
	return p
}

// CSPReport is CSP, also returning the declared domains it dropped.
func CSPReport(ui map[string]any) (policy string, dropped []string) {
	csp, ok := ui["csp"].(map[string]any)
	if !ok {
		return DefaultCSP, nil
	}
	var d1, d2, d3, d4 []string
	res, d1 := cleanDomains(csp["resourceDomains"])
	conn, d2 := cleanDomains(csp["connectDomains"])
	frame, d3 := cleanDomains(csp["frameDomains"])
	base, d4 := cleanDomains(csp["baseUriDomains"])
	dropped = slices.Concat(d1, d2, d3, d4)
	join := func(fixed string, extra []string) string {
		return strings.TrimSpace(fixed + " " + strings.Join(extra, " "))
	}
	or := func(list []string, none string) string {
		if len(list) == 0 {
			return none
		}
		return strings.Join(list, " ")
	}
	d := []string{
		"default-src 'none'",
		"script-src " + join("'self' 'unsafe-inline'", res),
		"style-src " + join("'self' 'unsafe-inline'", res),
		"img-src " + join("'self' data:", res),
		"media-src " + join("'self' data:", res),
		"font-src " + join("'self'", res),
		"connect-src " + join("'self'", conn),
		"frame-src " + or(frame, "'none'"),
		"base-uri " + or(base, "'none'"),
		"object-src 'none'",
		"form-action 'none'",
	}
	return strings.Join(d, "; "), dropped
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
