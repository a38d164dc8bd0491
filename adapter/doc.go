// Package adapter is the HTTP edge of genui-adapter: configuration, the
// agent registry and per-agent middleware chains, the SSE writer, CORS,
// metrics, the built-in demo agent and the routes (all in routes.go).
//
// Handlers decode requests into agui types and hand them to agents; no
// protocol logic lives here. Echo stays inside this package.
package adapter
