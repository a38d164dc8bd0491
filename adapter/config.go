package adapter

import (
	"bytes"
	"errors"
	"fmt"
	"maps"
	"net/url"
	"os"
	"reflect"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	"go.yaml.in/yaml/v3"

	sdktrace "go.opentelemetry.io/otel/sdk/trace"

	"github.com/genui-adapter/genui-adapter/adapter/jwtauth"
)

// Config is the whole service configuration (genui-adapter.yaml).
type Config struct {
	// Listen is the address of the main listener (default
	// 127.0.0.1:8080; --listen and GENUI_LISTEN override it).
	Listen string `yaml:"listen"`
	// LogLevel is debug, info, warn or error (default info; debug logs
	// every repair).
	LogLevel string `yaml:"logLevel,omitempty"`
	// CORS is the cross-origin policy for browsers on other origins.
	CORS CORS `yaml:"cors,omitempty"`
	// Heartbeat is the idle time after which a ": keep-alive" comment is
	// written to an SSE stream. Zero means 15 s.
	Heartbeat Duration `yaml:"heartbeat,omitempty"`
	// StreamTakeover (default true): an SSE stream to an HTTP/1.1 client
	// (a run's, a resume's, CopilotKit's /connect) goes on on the
	// connection taken over from net/http, written by a goroutine of its
	// own, so an idle stream holds no request goroutine and no net/http
	// buffers (about 20 KiB less per stream). When the stream ends the
	// connection goes back to net/http for the client's next request
	// (keep-alive). HTTP/2 streams always go through net/http.
	StreamTakeover *bool `yaml:"streamTakeover,omitempty"`
	// MaxBodyBytes caps request bodies. Zero means 8 MiB.
	MaxBodyBytes int64 `yaml:"maxBodyBytes,omitempty"`
	// MaxEventBytes caps one upstream event. Zero means 10 MiB.
	MaxEventBytes int `yaml:"maxEventBytes,omitempty"`
	// ShutdownGrace is how long running streams may go on after SIGTERM
	// before they are ended with RUN_ERROR{code:"shutdown"}. Zero means 10 s.
	ShutdownGrace Duration `yaml:"shutdownGrace,omitempty"`
	// ExposeUpstreamErrors quotes an upstream's error answer (the start
	// of its body, or its JSON detail) in RUN_ERROR.message, for
	// development. Off by default: the client sees the status and a fixed
	// text, and the body goes to the log with the run's id, since an
	// upstream's error page may hold stack traces, internal addresses or
	// secrets. The built-in demo config (no config file) turns it on.
	ExposeUpstreamErrors bool `yaml:"exposeUpstreamErrors,omitempty"`
	// Agents maps agent ids to their configuration.
	Agents map[string]AgentConfig `yaml:"agents"`
	// SandboxListen is the address of the MCP Apps sandbox origin (default
	// 127.0.0.1:8081; started when MCP servers are configured).
	SandboxListen string `yaml:"sandboxListen,omitempty"`
	// SandboxOrigin is the sandbox's public origin (default
	// http://<sandboxListen>). It must differ from the main origin.
	SandboxOrigin string `yaml:"sandboxOrigin,omitempty"`
	// PublicOrigins are the origins (scheme://host[:port]) of the pages
	// that embed MCP Apps cards: this service's own public origin (the
	// playground) behind a proxy, your app's. A sandbox ticket is issued
	// for a hostOrigin listed here or in cors.origins. Default none: then
	// a hostOrigin is also accepted when it is the ticket request's Origin
	// header (what a browser sends with its POST), so same-origin use
	// needs no configuration; once set, only the listed origins get
	// tickets. The request's Host never counts.
	PublicOrigins []string `yaml:"publicOrigins,omitempty"`
	// SandboxKey signs sandbox tickets; instances sharing a sandbox origin
	// need the same key (default: random per process).
	SandboxKey string `yaml:"sandboxKey,omitempty"`
	// MCPServers are the MCP servers agents may use (by id).
	MCPServers map[string]MCPServerConfig `yaml:"mcpServers,omitempty"`
	// MCPApps configures the cards' capabilities.
	MCPApps MCPAppsConfig `yaml:"mcpApps,omitempty"`
	// Toolkit configures the built-in "genui" server's tools.
	Toolkit ToolkitConfig `yaml:"toolkit,omitempty"`
	// RunLog keeps runs' events for resume, cancel and history.
	RunLog RunLogConfig `yaml:"runlog,omitempty"`
	// Auth binds runs to principals; without it everyone is "anonymous".
	Auth AuthConfig `yaml:"auth,omitempty"`
	// DetachGrace is how long a run goes on with no client attached
	// before it is cancelled (default 30 s).
	// 0s cancels the run as soon as its last reader goes away.
	DetachGrace *Duration `yaml:"detachGrace,omitempty"`
	// ThreadPolicy says what a run on a busy thread does: "reject" (409,
	// default) or "supersede" (the old run is cancelled).
	ThreadPolicy string `yaml:"threadPolicy,omitempty"`
	// CopilotKit serves the CopilotRuntime v2 routes so that a CopilotKit
	// frontend talks to the adapter directly.
	CopilotKit CopilotKitConfig `yaml:"copilotkit,omitempty"`
	// InstanceID names this process in run records (default: random).
	InstanceID string `yaml:"instanceId,omitempty"`
	// History bounds the thread histories kept for reloads and
	// CopilotKit's /connect.
	History HistoryConfig `yaml:"history,omitempty"`
	// Limits bound what one client can hold.
	Limits LimitsConfig `yaml:"limits,omitempty"`
	// A2UILimits caps what the A2UI validator and converters take and
	// keep, for every surface that passes through and for /a2ui/validate
	// and /a2ui/render.
	A2UILimits A2UILimits `yaml:"a2uiLimits,omitempty"`
	// A2UIAPI configures POST /a2ui/validate and /a2ui/render.
	A2UIAPI A2UIAPIConfig `yaml:"a2uiApi,omitempty"`
	// MemoryLimit is the Go runtime's soft memory limit in bytes
	// (GOMEMLIMIT, unless that variable is set; default 7/8 of the
	// container's memory limit, 1 GiB without one: DefaultMemoryLimit).
	// That is 448 MiB in a 512 MiB container, which the stores' budgets
	// are sized for: run log 128 MiB, histories 64 MiB, transcripts
	// 64 MiB, tails 32 MiB. 0 leaves the runtime's default.
	MemoryLimit *int64 `yaml:"memoryLimit,omitempty"`
	// GCPercent is the garbage collector's GOGC (unless that variable is
	// set): default 200 (DefaultGCPercent) while a memory limit is set (the
	// limit caps the heap; fewer collections while thousands of streams
	// are open), the runtime's 100 without one. -1 leaves collections to
	// the memory limit alone and needs one.
	GCPercent *int `yaml:"gcPercent,omitempty"`
	// Debug turns on diagnostics.
	Debug DebugConfig `yaml:"debug,omitempty"`
	// Tracing exports OpenTelemetry traces (off unless otlpEndpoint is set).
	Tracing TracingConfig `yaml:"tracing,omitempty"`
}

// TracingConfig turns OpenTelemetry traces on.
type TracingConfig struct {
	// OTLPEndpoint is an OTLP/HTTP collector's base URL
	// (http://127.0.0.1:4318); spans go to its /v1/traces.
	OTLPEndpoint string `yaml:"otlpEndpoint,omitempty"`
	// Headers are sent with every export request (an API key, say).
	Headers map[string]string `yaml:"headers,omitempty"`
	// SampleRatio of new traces (default 1); a client's traceparent
	// decides for its own.
	SampleRatio *float64 `yaml:"sampleRatio,omitempty"`
	// ServiceName is the service.name resource attribute (default
	// genui-adapter).
	ServiceName string `yaml:"serviceName,omitempty"`

	exporter sdktrace.SpanExporter // tests: instead of OTLP
}

func (t TracingConfig) on() bool { return t.OTLPEndpoint != "" || t.exporter != nil }

// DebugConfig turns on diagnostics.
type DebugConfig struct {
	// Pprof serves net/http/pprof under /debug/pprof/ on the main listener
	// (behind the same auth as runs). Off by default: profiles reveal
	// internals.
	Pprof bool `yaml:"pprof,omitempty"`
}

// HistoryConfig bounds thread histories.
type HistoryConfig struct {
	// Retention drops a thread's history this long after it was last
	// saved or read (default 24 h).
	Retention Duration `yaml:"retention,omitempty"`
	// MaxBytes caps all histories together in the memory backend
	// (default 64 MiB); the least recently used threads go first.
	MaxBytes int64 `yaml:"maxBytes,omitempty"`
	// MaxThreadBytes caps one thread's history, both backends (default
	// 1 MiB); its oldest messages go first.
	MaxThreadBytes int64 `yaml:"maxThreadBytes,omitempty"`
	// MaxRunBytes caps what one run adds to its thread's history
	// (default 1 MiB); beyond it the history is cut with a marker (the
	// live stream never is).
	MaxRunBytes int64 `yaml:"maxRunBytes,omitempty"`
	// MaxLiveBytes caps the transcripts of all running runs together
	// (default 64 MiB).
	MaxLiveBytes int64 `yaml:"maxLiveBytes,omitempty"`
	// MaxThreadsPerPrincipal caps one principal's threads, both backends
	// (default 1000); over it the thread whose last run is oldest is
	// removed (its record and history). A thread's record (title,
	// archived, created, updated, last run, run ids) lives with its
	// history: the same retention and, in memory, the same maxBytes.
	MaxThreadsPerPrincipal int `yaml:"maxThreadsPerPrincipal,omitempty"`
	// MaxThreadRuns caps the run ids a thread's record keeps, its newest
	// (default 100): CopilotKit's thread events and state are read from
	// the events of these runs that runlog.retention still keeps.
	MaxThreadRuns int `yaml:"maxThreadRuns,omitempty"`
}

// LimitsConfig bounds clients.
type LimitsConfig struct {
	// BodyTimeout bounds reading a request body (default 10 s; 408
	// after it).
	BodyTimeout Duration `yaml:"bodyTimeout,omitempty"`
	// MaxReadersPerPrincipal caps one principal's concurrent resume and
	// connect streams per instance (default 64; 429 beyond).
	MaxReadersPerPrincipal int `yaml:"maxReadersPerPrincipal,omitempty"`
	// MaxTailBytes caps the recent events kept in process for readers
	// (default 32 MiB).
	MaxTailBytes int64 `yaml:"maxTailBytes,omitempty"`
	// WriteTimeout drops a stream whose client has not taken a write for
	// this long (default 30 s). A run waits for its slowest connected
	// reader (as a direct connection would) rather than run ahead of it,
	// so this bounds how long one stuck client can hold a run back. It
	// also bounds writing an answer of the CopilotKit thread endpoints
	// (from the request's arrival): past it the connection is dropped.
	WriteTimeout Duration `yaml:"writeTimeout,omitempty"`
	// RunStartsPerSecond is how many runs one principal may start per
	// second on this instance, on average (default 10; 0.001 to 1e6;
	// -1: no limit).
	// Each principal has a token bucket of runStartBurst starts that
	// refills at this rate; a start over it is refused with 429, a
	// Retry-After header and error "too_many_run_starts". Every route
	// that starts a run counts (AG-UI, CopilotKit, the single route).
	// Without auth every client address is a principal of its own
	// (IPv6: its /64); behind a reverse proxy, without auth, all clients
	// share the proxy's. With several instances the limit is per
	// instance.
	RunStartsPerSecond float64 `yaml:"runStartsPerSecond,omitempty"`
	// RunStartBurst is how many runs a principal may start at once, its
	// bucket's size (default 40).
	RunStartBurst int `yaml:"runStartBurst,omitempty"`
	// RunStartPrincipals caps the principals whose run-start buckets
	// are kept at once (default 65536; about 4 MiB at most). A bucket
	// that has refilled is dropped; at the cap, another principal's
	// bucket is dropped to make room (that principal starts afresh).
	RunStartPrincipals int `yaml:"runStartPrincipals,omitempty"`
}

// A2UILimits caps the A2UI validator and converters.
type A2UILimits struct {
	// MaxMessageBytes caps one A2UI message (default 1 MiB); a larger
	// one is refused with too_large.
	MaxMessageBytes int `yaml:"maxMessageBytes,omitempty"`
	// MaxComponents caps the components of one surface (default 1000).
	MaxComponents int `yaml:"maxComponents,omitempty"`
	// MaxTemplateItems caps an array a template iterates (default 1000).
	MaxTemplateItems int `yaml:"maxTemplateItems,omitempty"`
	// MaxDepth caps the component tree's depth and a message's JSON
	// nesting (default 50).
	MaxDepth int `yaml:"maxDepth,omitempty"`
	// MaxFunctionDepth caps nested function calls (default 5).
	MaxFunctionDepth int `yaml:"maxFunctionDepth,omitempty"`
	// MaxHeldMessages caps the v0.8 messages a stream's converter holds
	// for surfaces waiting for beginRendering, and the messages of one
	// @ag-ui/a2a surface held to be sent whole (default 1000); over it a
	// message is left out and reported.
	MaxHeldMessages int `yaml:"maxHeldMessages,omitempty"`
	// MaxRemembered caps the schema verdicts, and apart the version
	// probes, the validator remembers so that a message seen before is
	// not checked again (default 8192 each; at most about 3 MB; each is
	// forgotten whole when full).
	MaxRemembered int `yaml:"maxRemembered,omitempty"`
}

// A2UIAPIConfig configures the CPU-heavy A2UI routes.
type A2UIAPIConfig struct {
	// Public serves them without credentials (limits then apply per
	// client address).
	Public bool `yaml:"public,omitempty"`
	// MaxBodyBytes caps their bodies (default 1 MiB).
	MaxBodyBytes int64 `yaml:"maxBodyBytes,omitempty"`
	// MaxConcurrent caps requests in progress in total (default 4).
	MaxConcurrent int `yaml:"maxConcurrent,omitempty"`
	// MaxConcurrentPerPrincipal caps one principal's (default 2).
	MaxConcurrentPerPrincipal int `yaml:"maxConcurrentPerPrincipal,omitempty"`
	// MaxErrors caps the errors listed in an answer (default 100; the
	// answer counts them all).
	MaxErrors int `yaml:"maxErrors,omitempty"`
}

// MCPServerConfig says how to reach an MCP server: a stdio command or a
// streamable HTTP URL with headers.
type MCPServerConfig struct {
	// Command starts a stdio server: the program and its arguments (set
	// exactly one of command or url).
	Command []string `yaml:"command,omitempty"`
	// URL is a streamable HTTP server's endpoint (http or https, no
	// credentials in it).
	URL string `yaml:"url,omitempty"`
	// Headers are sent with every request to an HTTP server.
	Headers map[string]string `yaml:"headers,omitempty"`
	// CallerHeaders name HTTP headers that tell the server who a request
	// is made for: {principal: X-Genui-Principal, thread: X-Genui-Thread}
	// (HTTP servers; every request also carries _meta["genui-adapter/caller"]).
	CallerHeaders map[string]string `yaml:"callerHeaders,omitempty"`
	// ForwardHeaders copies inbound request headers to the server's
	// requests made for that run or card, e.g. [Authorization] to pass
	// the end user's bearer token on (HTTP servers).
	ForwardHeaders []string `yaml:"forwardHeaders,omitempty"`
	// A2UI declares application/a2ui+json to the server: the A2UI its
	// results carry becomes surfaces, whose actions call its tools.
	A2UI bool `yaml:"a2ui,omitempty"`
	// ProtocolVersion is the MCP protocol version asked of the server
	// (default 2025-11-25, what every npm MCP App server speaks):
	// 2026-07-28 for a server on that wire (server/discover, capabilities
	// in every request's _meta). The official Python SDK declares
	// io.modelcontextprotocol/ui only there, and a stateless server sees
	// the adapter's MCP Apps capability only there.
	ProtocolVersion string `yaml:"protocolVersion,omitempty"`
}

// ToolkitConfig configures the generative UI toolkit (the built-in "genui"
// MCP server) and the external pages cards may show.
type ToolkitConfig struct {
	// URLAllowlist are the origins (scheme://host[:port]) render_url and
	// text/uri-list UI resources may show in a card. None by default.
	URLAllowlist []string `yaml:"urlAllowlist,omitempty"`
	// HTMLScripts lets render_html's HTML run scripts (never with
	// network). Off by default.
	HTMLScripts bool `yaml:"htmlScripts,omitempty"`
	// MaxHTMLBytes caps render_html's HTML (default 256 KiB).
	MaxHTMLBytes int `yaml:"maxHTMLBytes,omitempty"`
	// MaxRows caps render_table's and show_data's rows (default 200).
	MaxRows int `yaml:"maxRows,omitempty"`
	// MaxCharts caps a render_chart dashboard (default 8).
	MaxCharts int `yaml:"maxCharts,omitempty"`
	// MaxSeries caps a chart's series (default 10).
	MaxSeries int `yaml:"maxSeries,omitempty"`
	// MaxPoints caps a series' values and a chart's labels (default 500).
	MaxPoints int `yaml:"maxPoints,omitempty"`
	// AnswerWait is how long a run waits for the user's answer to
	// ask_user (or an app's mcp-app-response) before the agent is told
	// there was none (default 10m).
	AnswerWait Duration `yaml:"answerWait,omitempty"`
	// MaxAnswerBytes caps the JSON of one answer to ask_user (or an app's
	// mcp-app-response); a larger one is refused and the question stays
	// open (default 256 KiB). Relayed between instances an answer crosses
	// Redis pub/sub, whose output limit (32 MiB by default) it must stay
	// well under.
	MaxAnswerBytes int `yaml:"maxAnswerBytes,omitempty"`
}

// MCPAppsConfig is the MCP Apps trust boundary.
type MCPAppsConfig struct {
	// CapabilityKey signs card capabilities; instances behind one load
	// balancer need the same key (default: derived from sandboxKey, else
	// random per process).
	CapabilityKey string `yaml:"capabilityKey,omitempty"`
	// CapabilityTTL is how long a card's capability is valid (default
	// 24 h; renewed when its thread is replayed to its owner).
	CapabilityTTL Duration `yaml:"capabilityTTL,omitempty"`
	// AcceptPlainServerHash also answers a card's requests (its proxied
	// MCP requests and POST /mcp-apps/sandbox) that carry a plain server
	// hash or id instead of the card's capability, for frontends that
	// cache one. Off by default.
	AcceptPlainServerHash bool `yaml:"acceptPlainServerHash,omitempty"`
	// ViewLogRate is how many log messages (notifications/message,
	// ui/log) one card's View may send a minute (default 60); beyond it
	// they are refused with JSON-RPC error -32000. Counted per instance.
	ViewLogRate int `yaml:"viewLogRate,omitempty"`
	// ViewLogBurst is how many log messages one card's View may send at
	// once (default 20).
	ViewLogBurst int `yaml:"viewLogBurst,omitempty"`
	// MaxViewLogBytes caps one log message of a View, its params as JSON
	// (default 4096); a larger one is refused with -32602.
	MaxViewLogBytes int `yaml:"maxViewLogBytes,omitempty"`
	// MaxViewLogCards is how many cards' log rates are tracked per
	// instance (default 10000); when full, idle cards are forgotten, and
	// if none is idle a new card's log messages are refused with -32000.
	MaxViewLogCards int `yaml:"maxViewLogCards,omitempty"`
	// DownloadMIMETypes are the media types a View may download with
	// ui/download-file (default text/plain, text/csv, text/markdown,
	// application/json, image/png, image/jpeg, application/pdf); another
	// type is refused with -32602.
	DownloadMIMETypes []string `yaml:"downloadMIMETypes,omitempty"`
	// MaxDownloadBytes caps the files of one ui/download-file request
	// together, decoded (default 2 MiB); more is refused with -32602.
	MaxDownloadBytes int `yaml:"maxDownloadBytes,omitempty"`
	// MaxDownloadFiles caps the files of one ui/download-file request
	// (default 16); more are refused with -32602.
	MaxDownloadFiles int `yaml:"maxDownloadFiles,omitempty"`
	// MaxResourceBytes caps one UI resource's HTML read from an MCP
	// server (default 4 MiB); a tool whose resource is larger gets no
	// card (logged). Self-contained renderers such as FastMCP's Prefab
	// bundle (about 7 MB) need more.
	MaxResourceBytes int `yaml:"maxResourceBytes,omitempty"`
	// MaxServerMessageBytes caps one message an HTTP MCP server sends
	// (default 16 MiB, or twice maxResourceBytes if that is more): a JSON
	// response's body or an SSE event. A larger
	// one fails its request and the server's connection, which is made
	// again. It must be above maxResourceBytes: a resource read carries
	// the HTML JSON-escaped (a Go server writes <, > and & as six bytes
	// each). A stdio server's messages are capped at 16 MiB.
	MaxServerMessageBytes int `yaml:"maxServerMessageBytes,omitempty"`
	// MaxKeptResources is how many UI resources read from one MCP server
	// are kept per connection, and as many inline ones (those a tool
	// result carries) (default 256); beyond it others are dropped and
	// read again when needed.
	MaxKeptResources int `yaml:"maxKeptResources,omitempty"`
	// MaxInstructionBytes caps an MCP server's instructions (from
	// initialize) given to agents (default 16384); the rest is cut.
	MaxInstructionBytes int `yaml:"maxInstructionBytes,omitempty"`
	// MaxCSPDomains caps the domains each list of a UI resource's
	// _meta.ui.csp (resourceDomains, connectDomains, frameDomains,
	// baseUriDomains) may declare (default 64); the first ones are kept,
	// the rest dropped (logged) and the card still shown.
	MaxCSPDomains int `yaml:"maxCSPDomains,omitempty"`
	// MaxToolArgumentBytes caps the arguments of one call of an MCP
	// server's tool by the agent (default 1 MiB); a larger call is not
	// made, and the agent gets an error as its result.
	MaxToolArgumentBytes int `yaml:"maxToolArgumentBytes,omitempty"`
	// MaxRoundBytes caps the transcript of one round of tool calls kept
	// for the agent's follow-up run (default 8 MiB); what comes past it
	// is left out of the follow-up.
	MaxRoundBytes int `yaml:"maxRoundBytes,omitempty"`
	// ProxiedRequestTimeout bounds one request of a card's View to its
	// MCP server (default 55 s); past it the request ends with an error.
	// The App's own request timeout is 60 s.
	ProxiedRequestTimeout Duration `yaml:"proxiedRequestTimeout,omitempty"`
	// SandboxTicketTTL is how long a sandbox page URL (its ticket, which
	// carries the card's CSP) is valid (default 10 min).
	SandboxTicketTTL Duration `yaml:"sandboxTicketTTL,omitempty"`
	// IsolateCards gives each card's View an opaque origin: its frame
	// loses allow-same-origin, whatever the host page asks (default
	// false). Cards share sandboxOrigin otherwise, so a View can reach
	// another card's frame on the same page (docs/security.md). An
	// isolated View has no localStorage or cookies, and its requests to
	// the domains its CSP allows carry "Origin: null".
	IsolateCards bool `yaml:"isolateCards,omitempty"`
	// MaxCardStateBytes caps the model context a card's View last set
	// (ui/update-model-context, its params as JSON), kept on its thread
	// and handed back when the card is shown again (default 16384); a
	// larger one is refused with -32602.
	MaxCardStateBytes int `yaml:"maxCardStateBytes,omitempty"`
	// MaxCardStates is how many cards of one thread keep their state
	// (default 32); beyond it the least recently updated is dropped.
	MaxCardStates int `yaml:"maxCardStates,omitempty"`
}

// CopilotKitConfig places the CopilotRuntime routes.
type CopilotKitConfig struct {
	// BasePath is the runtimeUrl path (default /api/copilotkit).
	BasePath string `yaml:"basePath,omitempty"`
	// Disabled turns the routes off.
	Disabled bool `yaml:"disabled,omitempty"`
	// SuggestTimeout bounds one suggestion run (agent/:id/suggest;
	// default 30 s): past it the agent is stopped and the stream ends
	// with RUN_ERROR "suggest_timeout".
	SuggestTimeout Duration `yaml:"suggestTimeout,omitempty"`
	// MaxSuggestBytes caps the events one suggestion run sends (default
	// 1 MiB): past it the agent is stopped and the stream ends with
	// RUN_ERROR "suggest_too_large".
	MaxSuggestBytes int64 `yaml:"maxSuggestBytes,omitempty"`
	// Threads bounds the thread endpoints (/threads...).
	Threads CopilotKitThreadsConfig `yaml:"threads,omitempty"`
}

// CopilotKitThreadsConfig bounds the CopilotKit thread endpoints.
type CopilotKitThreadsConfig struct {
	// MaxPage caps one page of GET /threads (default 100); a larger
	// limit gets this many.
	MaxPage int `yaml:"maxPage,omitempty"`
	// MaxTitleBytes caps a thread's name set with PATCH /threads/{id}
	// (default 256); a longer one is refused (400 title_too_long).
	MaxTitleBytes int `yaml:"maxTitleBytes,omitempty"`
	// MaxEventBytes caps the events GET /threads/{id}/events returns
	// (default 8 MiB); beyond it the answer says truncated.
	MaxEventBytes int `yaml:"maxEventBytes,omitempty"`
}

func (c CopilotKitConfig) suggestTimeout() time.Duration {
	if c.SuggestTimeout == 0 {
		return 30 * time.Second
	}
	return time.Duration(c.SuggestTimeout)
}

func (c CopilotKitConfig) maxSuggestBytes() int64 {
	if c.MaxSuggestBytes == 0 {
		return 1 << 20
	}
	return c.MaxSuggestBytes
}

func (c CopilotKitConfig) base() string {
	if c.BasePath == "" {
		return "/api/copilotkit"
	}
	return "/" + strings.Trim(c.BasePath, "/")
}

// RunLogConfig selects the run log backend.
type RunLogConfig struct {
	// Backend is "memory" (default) or "redis".
	Backend string `yaml:"backend,omitempty"`
	// URL is the Redis URL (redis://host:port/db).
	URL string `yaml:"url,omitempty"`
	// Retention keeps ended runs this long (default 1 h).
	Retention Duration `yaml:"retention,omitempty"`
	// MaxEventsPerRun caps one run's kept events (default 100 000).
	MaxEventsPerRun int `yaml:"maxEventsPerRun,omitempty"`
	// MaxBytes caps what all runs hold in the memory backend: events plus
	// a small record each (default 128 MiB). With Redis it caps the
	// events of all runs that wait in process for Redis to take them
	// (while it is slow or does not answer, up to outageTolerance): a run
	// with no room waits, and its upstream with it. Checkpoints waiting
	// to be written count too; one with no room is dropped (the run
	// never waits for it). So do the thread histories that go with a
	// run's first and terminal events; one with no room is written on
	// its own. At a drain, the hand-over records built at once (up to
	// maxHandoverBytes each) stay within it together.
	MaxBytes int64 `yaml:"maxBytes,omitempty"`
	// Prefix namespaces Redis keys (default "genui:").
	Prefix string `yaml:"prefix,omitempty"`
	// MaxRunBytes caps one run's kept events, both backends (default
	// 16 MiB); the oldest go first.
	MaxRunBytes int64 `yaml:"maxRunBytes,omitempty"`
	// LeaseTTL is a running run's owner lease with Redis (default 5 s): a
	// stalled owner gives its runs up, and their threads are free again,
	// within it. Every lease TTL each instance looks for the runs of
	// instances that died (leases lapsed a lease TTL ago or more) and
	// ends them with RUN_ERROR owner_lost or offers them for a take-over,
	// whether or not anyone reads them.
	LeaseTTL Duration `yaml:"leaseTTL,omitempty"`
	// OutageTolerance is how long runs go on while Redis does not answer
	// (paused, restarting, unreachable; default 15 s, at least leaseTTL):
	// their events wait in process (within maxBytes) and are written once
	// Redis answers, in order and once each, and the leases that lapsed
	// meanwhile are taken back. A longer outage ends the runs with
	// RUN_ERROR run_log_unavailable.
	OutageTolerance Duration `yaml:"outageTolerance,omitempty"`
	// MaxHandoverBytes caps a run's hand-over record with Redis (default
	// 1 MiB): the run's input, the headers its agent forwards and the
	// state its backend and middlewares keep. At a drain a run whose
	// record is larger is not handed over: it goes on until
	// shutdownGrace ends it with RUN_ERROR shutdown, as runs of backends
	// that cannot be taken over do.
	MaxHandoverBytes int `yaml:"maxHandoverBytes,omitempty"`
	// HandoverClaimTimeout is how long a run handed over at a drain waits,
	// running, for another instance to claim it (default 10 s): its
	// lease and thread are held meanwhile. Unclaimed past it, it ends
	// with RUN_ERROR owner_lost.
	HandoverClaimTimeout Duration `yaml:"handoverClaimTimeout,omitempty"`
	// CheckpointInterval is how often, at most, a run that can be taken
	// over (the langgraph backend) keeps a checkpoint in Redis, with the
	// events it comes after (default 1 s): the state its backend and
	// middlewares would keep at a drain. If its instance dies, another
	// instance offers it for a take-over from the latest checkpoint, and
	// the events after it come again from the upstream, written once.
	CheckpointInterval Duration `yaml:"checkpointInterval,omitempty"`
}

// AuthConfig says who is calling. With BearerTokens, every run, resume,
// cancel and history request needs "Authorization: Bearer <token>" and the
// principal is the token's name; with JWT (alone or alongside
// BearerTokens) a bearer token may also be a JWT from your identity
// provider and the principal is its claim; with TrustedHeader (set by a
// proxy you trust) the principal is that header's value.
type AuthConfig struct {
	// BearerTokens maps principal names to their tokens (at least 8
	// characters each): "Authorization: Bearer <token>" makes the caller
	// that principal.
	BearerTokens map[string]string `yaml:"bearerTokens,omitempty"`
	// JWT also accepts JWT bearer tokens from an identity provider.
	JWT *JWTConfig `yaml:"jwt,omitempty"`
	// TrustedHeader names a header, set by a proxy you trust, whose value
	// is the principal (not with bearerTokens or jwt).
	TrustedHeader string `yaml:"trustedHeader,omitempty"`
	// TrustedProxies are the addresses (CIDRs) the trusted header is
	// believed from (default: loopback); other peers get 401.
	TrustedProxies []string `yaml:"trustedProxies,omitempty"`
}

// on reports whether any auth is configured (else everyone is
// "anonymous").
func (a AuthConfig) on() bool {
	return len(a.BearerTokens) > 0 || a.JWT != nil || a.TrustedHeader != ""
}

// hasCards reports whether any agent may show MCP Apps cards (it uses an
// MCP server, configured or built in).
func (c Config) hasCards() bool {
	for _, a := range c.Agents {
		if len(a.MCPServers) > 0 {
			return true
		}
	}
	return false
}

// JWTConfig verifies JWT bearer tokens against the issuer's JWKS.
type JWTConfig struct {
	// JWKSURL is the issuer's key set (JWKS) URL.
	JWKSURL string `yaml:"jwksURL"`
	// Issuer must equal a token's iss claim.
	Issuer string `yaml:"issuer"`
	// Audience must be in a token's aud claim.
	Audience string `yaml:"audience"`
	// ClockSkew is the leeway on exp/nbf/iat (default 30s).
	ClockSkew Duration `yaml:"clockSkew,omitempty"`
	// PrincipalClaim is the string claim that names the principal
	// (default sub).
	PrincipalClaim string `yaml:"principalClaim,omitempty"`
	// Algorithms allowed (default: the RSA, RSA-PSS, ECDSA and EdDSA
	// ones; never HMAC or none).
	Algorithms []string `yaml:"algorithms,omitempty"`
	// RefreshInterval is how often the key set is fetched (default 10m);
	// a token naming an unknown key id fetches it at most every
	// unknownKeyEvery (default 30s), so rotations are picked up at once.
	RefreshInterval Duration `yaml:"refreshInterval,omitempty"`
	// UnknownKeyEvery is the least time between key set fetches caused by
	// tokens naming an unknown key id (default 30s).
	UnknownKeyEvery Duration `yaml:"unknownKeyEvery,omitempty"`
}

func (j *JWTConfig) verifierConfig() jwtauth.Config {
	return jwtauth.Config{
		JWKSURL: j.JWKSURL, Issuer: j.Issuer, Audience: j.Audience,
		ClockSkew: time.Duration(j.ClockSkew), PrincipalClaim: j.PrincipalClaim, Algorithms: j.Algorithms,
		RefreshInterval: time.Duration(j.RefreshInterval), UnknownKeyEvery: time.Duration(j.UnknownKeyEvery),
	}
}

// CORS is the cross-origin policy: an exact list of allowed origins.
type CORS struct {
	// Origins are the allowed origins (https://app.example.com), echoed
	// back when a request comes from one; "*" allows any origin, without
	// credentials. None by default; preflights from other origins get 403.
	Origins []string `yaml:"origins,omitempty"`
	// Credentials sends Access-Control-Allow-Credentials: true (never with
	// "*"). Off by default.
	Credentials bool `yaml:"credentials,omitempty"`
}

// AgentConfig configures one agent: the keys below, which every type
// has, and those of its type (the tables after). A key of another type is
// an error naming the type that has it.
type AgentConfig struct {
	// Backend is the agent's type, which says what it talks to and which
	// keys it has besides these: "demo" (the built-in scripted agent),
	// "agui" (an AG-UI endpoint), "langgraph" (a LangGraph Agent Server:
	// url plus graph) or "a2a" (an A2A agent: url is its base URL or agent
	// card). Required. In Go it holds the type's own keys (see Backend);
	// UnmarshalYAML decodes an entry after its type.
	Backend Backend `yaml:"type,omitempty"`
	// Description is shown in GET /agents and CopilotKit's /info.
	Description string `yaml:"description,omitempty"`
	// A2UI configures structured tool results as A2UI surfaces.
	A2UI A2UIConfig `yaml:"a2ui,omitempty"`
	// MCPServers binds MCP servers (ids of the top-level mcpServers) whose
	// tools the agent may call; UI tools render as MCP Apps cards.
	MCPServers []string `yaml:"mcpServers,omitempty"`
	// MaxToolRounds bounds the follow-up runs after MCP tool calls
	// (default 5).
	MaxToolRounds int `yaml:"maxToolRounds,omitempty"`
	// Render says how structured tool results are shown: "a2ui" (A2UI
	// surfaces), "mcp-apps" (cards of the built-in data view) or both.
	// Default [a2ui]. A run may ask for others in forwardedProps.genuiRender.
	Render []string `yaml:"render,omitempty"`
}

// Backend is an agent type's own keys: *DemoConfig, *AGUIConfig,
// *LangGraphConfig or *A2AConfig (agentTypes).
type Backend interface {
	// validate adds the keys' problems, under the agent's path.
	validate(p *problems, path string)
	// redacted is a copy with every secret hidden.
	redacted() Backend
}

// agentTypes are the agent types by their type key, each with the Go type
// its keys decode into. configdoc reads it for the per-type tables of
// docs/configuration.md.
var agentTypes = map[string]Backend{
	"demo":      (*DemoConfig)(nil),
	"agui":      (*AGUIConfig)(nil),
	"langgraph": (*LangGraphConfig)(nil),
	"a2a":       (*A2AConfig)(nil),
}

// typeNames are agentTypes' keys, sorted.
var typeNames = slices.Sorted(maps.Keys(agentTypes))

// Type is the agent's type key ("" without a Backend).
func (a AgentConfig) Type() string {
	if a.Backend == nil {
		return ""
	}
	t := reflect.TypeOf(a.Backend)
	for name, b := range agentTypes {
		if reflect.TypeOf(b) == t {
			return name
		}
	}
	return ""
}

// DemoConfig is the keys of type demo, the built-in scripted agent (no
// LLM).
type DemoConfig struct {
	// Delay paces the demo agent's events.
	Delay Duration `yaml:"delay,omitempty"`
}

// UpstreamConfig is how an HTTP backend reaches its server: the keys
// types agui, langgraph and a2a share (inline in each).
type UpstreamConfig struct {
	// URL is the upstream: the AG-UI endpoint (agui), the Agent Server's
	// base URL (langgraph) or the A2A agent's base URL or card (a2a).
	// Required.
	URL string `yaml:"url,omitempty"`
	// Headers are sent to the upstream with every request.
	Headers map[string]string `yaml:"headers,omitempty"`
	// ForwardHeaders lists inbound headers copied to the upstream.
	ForwardHeaders []string `yaml:"forwardHeaders,omitempty"`
	// AllowedOrigins are the origins (scheme://host[:port]), besides
	// url's own, that a URL the upstream chooses may lead to: an A2A
	// agent card's endpoint, a redirect. Default none: such a URL on
	// another origin ends the run with RUN_ERROR origin_not_allowed and a
	// log line naming it. headers and forwardHeaders are sent to url's
	// origin only, never to these.
	AllowedOrigins []string `yaml:"allowedOrigins,omitempty"`
	// ConnectTimeout bounds the wait for upstream response headers
	// (default 30 s; upstream_unreachable after it).
	ConnectTimeout Duration `yaml:"connectTimeout,omitempty"`
	// IdleTimeout ends an upstream stream that sends nothing for this long
	// (default 5 min; upstream_truncated after it).
	IdleTimeout Duration `yaml:"idleTimeout,omitempty"`
}

// AGUIConfig is the keys of type agui, an AG-UI endpoint.
type AGUIConfig struct {
	UpstreamConfig `yaml:",inline"`
	// HTTP2 speaks HTTP/2 without TLS (prior knowledge) to an http://
	// upstream, so that every run shares a few connections instead of
	// one each (https upstreams negotiate HTTP/2 by themselves).
	HTTP2 bool `yaml:"http2,omitempty"`
	// UpstreamThreads is "scoped" (default: the upstream sees a thread id
	// derived from the principal and the client's threadId, so that two
	// principals never share upstream state) or "client" (the client's
	// threadId unchanged, for upstreams that authorize threads
	// themselves). LangGraph threads are always scoped.
	UpstreamThreads string `yaml:"upstreamThreads,omitempty"`
}

// LangGraphConfig is the keys of type langgraph, a LangGraph Agent Server.
type LangGraphConfig struct {
	UpstreamConfig `yaml:",inline"`
	// Graph is the LangGraph graph or assistant id. Required.
	Graph string `yaml:"graph,omitempty"`
	// APIKey is sent as x-api-key to the LangGraph server.
	APIKey string `yaml:"apiKey,omitempty"`
	// AssistantConfig is merged into every LangGraph run's config.
	AssistantConfig map[string]any `yaml:"assistantConfig,omitempty"`
	// ClientConfigKeys are the configurable and context keys a client may
	// set through forwardedProps.config.configurable and
	// forwardedProps.context; default none. The principal is always in
	// configurable.genui_principal (context.genui_principal when the run
	// has a context), set by the adapter.
	ClientConfigKeys []string `yaml:"clientConfigKeys,omitempty"`
	// MessagesSnapshot (default true) ends each run with the thread's
	// messages, as @ag-ui/langgraph does.
	MessagesSnapshot *bool `yaml:"messagesSnapshot,omitempty"`
	// Subgraphs (default true) asks the LangGraph server to stream
	// subgraphs' work (stream_subgraphs), unless the client's
	// forwardedProps.streamSubgraphs is false, when a probe shows the
	// server can: once per agent, and again every 10 minutes, a run on a
	// scratch thread interrupted before its first node (the JavaScript
	// server 2.0.0 fails such runs or never ends them). false never asks.
	Subgraphs *bool `yaml:"subgraphs,omitempty"`
	// CopilotKitHelpers (default true) reads the custom events of the
	// CopilotKit SDKs' LangGraph helpers (copilotkit_emit_state,
	// copilotkit_emit_message, copilotkit_emit_tool_call, copilotkit_exit)
	// from the "events" stream mode, as @ag-ui/langgraph does. That mode
	// repeats every node's input and output and every model token, about
	// doubling what the LangGraph server sends: false leaves it out for
	// graphs that use no helpers.
	CopilotKitHelpers *bool `yaml:"copilotkitHelpers,omitempty"`
}

// A2AConfig is the keys of type a2a, an A2A agent.
type A2AConfig struct {
	UpstreamConfig `yaml:",inline"`
}

// A2UIConfig is the per-agent A2UI middleware configuration. Surfaces are
// on by default for every tool.
type A2UIConfig struct {
	// Disabled turns structured results into surfaces off for the agent
	// (A2UI the agent sends itself is still validated). Off by default.
	Disabled bool `yaml:"disabled,omitempty"`
	// Tools lists the tools whose results become surfaces (default ["*"]:
	// all).
	Tools []string `yaml:"tools,omitempty"`
	// DenyTools lists tools whose results never become surfaces.
	DenyTools []string `yaml:"denyTools,omitempty"`
	// MaxRows caps a generated table's rows (default 200; the surface
	// says "Showing N of M").
	MaxRows int `yaml:"maxRows,omitempty"`
	// CatalogID is the catalog surfaces are made for when the frontend
	// registered none (default: the official basic catalog).
	CatalogID string `yaml:"catalogId,omitempty"`
	// Version is the A2UI envelope version emitted: "v0.9" (default) or
	// "v0.9.1".
	Version string `yaml:"version,omitempty"`
	// ActionMode is how a user action reaches the agent: "tool" (default: a
	// log_a2ui_event tool call and its result) or "user_message" (one user
	// message, for backends that reject undeclared tools).
	ActionMode string `yaml:"actionMode,omitempty"`
	// RowAction is the action a generated table row's "Select" button
	// sends (default "select_row"; "none" for no buttons).
	RowAction string `yaml:"rowAction,omitempty"`
}

// Duration is a time.Duration written as "15s" in YAML.
type Duration time.Duration

// UnmarshalYAML implements yaml.Unmarshaler.
func (d *Duration) UnmarshalYAML(n *yaml.Node) error {
	v, err := time.ParseDuration(n.Value)
	if err != nil {
		return fmt.Errorf("line %d: %q is not a duration like 15s", n.Line, n.Value)
	}
	*d = Duration(v)
	return nil
}

// MarshalYAML implements yaml.Marshaler.
func (d Duration) MarshalYAML() (any, error) { return time.Duration(d).String(), nil }

// Default configuration values.
const (
	DefaultListen        = "127.0.0.1:8080"
	DefaultHeartbeat     = 15 * time.Second
	DefaultMaxBodyBytes  = 8 << 20
	DefaultShutdownGrace = 10 * time.Second
)

// DefaultConfig is what the service runs with no config file: the built-in
// demo agent on 127.0.0.1:8080.
func DefaultConfig() Config {
	return Config{
		Listen:               DefaultListen,
		ExposeUpstreamErrors: true,
		Agents: map[string]AgentConfig{"demo": {Backend: &DemoConfig{Delay: Duration(30 * time.Millisecond)},
			Description: "Built-in scripted demo agent (no LLM)", MCPServers: []string{"refunds", "genui"}}},
		// The demo's render_url shows the adapter's own page.
		Toolkit: ToolkitConfig{URLAllowlist: []string{"http://" + DefaultListen}},
	}
}

// ErrConfig is wrapped by every configuration error.
var ErrConfig = errors.New("config")

var envRef = regexp.MustCompile(`\$\$|\$\{([A-Za-z_][A-Za-z0-9_]*)(:-([^}]*))?\}`)

// commentStart is where a YAML line's comment starts (a # at the start or
// after a space, outside quotes), or len(line).
func commentStart(line []byte) int {
	var quote byte
	for i, c := range line {
		switch {
		case quote != 0:
			if c == quote {
				quote = 0
			}
		case c == '"' || c == '\'':
			quote = c
		case c == '#' && (i == 0 || line[i-1] == ' ' || line[i-1] == '\t'):
			return i
		}
	}
	return len(line)
}

// expandEnv replaces ${VAR} and ${VAR:-default}; $$ is a literal $.
// Comments are left as they are. An unset variable without a default is
// an error naming it.
func expandEnv(src []byte, getenv func(string) string) ([]byte, error) {
	var out []byte
	var missing, lines []string
	for i, line := range bytes.SplitAfter(src, []byte("\n")) {
		c := commentStart(line)
		n := len(missing)
		code, err := expandLine(line[:c], getenv, &missing)
		if err != nil {
			return nil, err
		}
		if len(missing) > n {
			lines = append(lines, strconv.Itoa(i+1))
		}
		out = append(append(out, code...), line[c:]...)
	}
	if len(missing) > 0 {
		return nil, fmt.Errorf("%w: environment variable %s is not set (line %s) (use ${%s:-default} for a default)", ErrConfig, strings.Join(missing, ", "), strings.Join(lines, ", "), missing[0])
	}
	return out, nil
}

func expandLine(src []byte, getenv func(string) string, missingOut *[]string) ([]byte, error) {
	var missing []string
	defer func() { *missingOut = append(*missingOut, missing...) }()
	out := envRef.ReplaceAllFunc(src, func(m []byte) []byte {
		if string(m) == "$$" {
			return []byte("$")
		}
		sub := envRef.FindSubmatch(m)
		name := string(sub[1])
		if v := getenv(name); v != "" {
			return []byte(v)
		}
		if sub[2] != nil {
			return sub[3]
		}
		missing = append(missing, name)
		return nil
	})
	return out, nil
}

// LoadConfig reads a YAML config file, substituting environment variables,
// and validates it. Unknown keys are errors.
func LoadConfig(path string, getenv func(string) string) (Config, error) {
	src, err := os.ReadFile(path)
	if err != nil {
		return Config{}, fmt.Errorf("%w: %w", ErrConfig, err)
	}
	return ParseConfig(src, getenv)
}

// ParseConfig parses and validates YAML config text.
func ParseConfig(src []byte, getenv func(string) string) (Config, error) {
	src, err := expandEnv(src, getenv)
	if err != nil {
		return Config{}, err
	}
	cfg := Config{Listen: DefaultListen}
	var doc yaml.Node
	if err := yaml.Unmarshal(src, &doc); err != nil {
		return Config{}, fmt.Errorf("%w: %w", ErrConfig, err)
	}
	// checkKeys, not the decoder's KnownFields, refuses unknown keys:
	// it reports all of them (and every value of the wrong kind) at
	// once, each with its path, line and the closest known key.
	idx := keyIndex{}
	if errs := checkKeys(&doc, reflect.TypeOf(cfg), "", idx); len(errs) > 0 {
		return Config{}, errors.Join(errs...)
	}
	if err := doc.Decode(&cfg); err != nil {
		return Config{}, fmt.Errorf("%w: %w", ErrConfig, err)
	}
	if err := cfg.Validate(); err != nil {
		return Config{}, withLine(err, idx)
	}
	return cfg, nil
}

func sortedKeys[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

func (c *Config) agentIDs() []string {
	ids := make([]string, 0, len(c.Agents))
	for id := range c.Agents {
		ids = append(ids, id)
	}
	sort.Strings(ids)
	return ids
}

// Redacted returns the config as YAML with every secret hidden, for
// printing at start: tokens, keys, header values, passwords and secret
// query parameters of URLs, and LangGraph assistantConfig values.
func (c Config) Redacted() string {
	cp := c
	cp.Auth.BearerTokens = redactValues(c.Auth.BearerTokens)
	if cp.SandboxKey != "" {
		cp.SandboxKey = redacted
	}
	cp.RunLog.URL = redactURL(c.RunLog.URL)
	if cp.MCPApps.CapabilityKey != "" {
		cp.MCPApps.CapabilityKey = redacted
	}
	if len(c.MCPServers) > 0 {
		cp.MCPServers = map[string]MCPServerConfig{}
		for id, m := range c.MCPServers {
			m.Headers = redactValues(m.Headers)
			m.URL = redactURL(m.URL)
			cp.MCPServers[id] = m
		}
	}
	cp.Agents = map[string]AgentConfig{}
	for id, a := range c.Agents {
		if a.Backend != nil {
			a.Backend = a.Backend.redacted()
		}
		cp.Agents[id] = a
	}
	b, _ := yaml.Marshal(cp)
	return string(b)
}

const redacted = "<redacted>"

// redactValues keeps a map's keys and hides its values.
func redactValues(m map[string]string) map[string]string {
	if len(m) == 0 {
		return m
	}
	out := make(map[string]string, len(m))
	for k := range m {
		out[k] = redacted
	}
	return out
}

// secretParam says which query parameters carry secrets.
var secretParam = regexp.MustCompile(`(?i)(token|key|secret|pass|auth|sig|credential|session)`)

// redactURL hides a URL's password and secret query parameters.
func redactURL(raw string) string {
	if raw == "" {
		return raw
	}
	u, err := url.Parse(raw)
	if err != nil {
		return redacted
	}
	if u.User != nil {
		if _, has := u.User.Password(); has {
			u.User = url.UserPassword(u.User.Username(), "xxxxx")
		}
	}
	if u.RawQuery != "" {
		q := u.Query()
		for k := range q {
			if secretParam.MatchString(k) {
				q[k] = []string{"xxxxx"}
			}
		}
		u.RawQuery = q.Encode()
	}
	return u.String()
}

func (c *Config) heartbeat() time.Duration {
	if c.Heartbeat == 0 {
		return DefaultHeartbeat
	}
	return time.Duration(c.Heartbeat)
}

func (c *Config) maxBody() int64 {
	if c.MaxBodyBytes == 0 {
		return DefaultMaxBodyBytes
	}
	return c.MaxBodyBytes
}

// SandboxAddr is where the sandbox listener listens.
func (c *Config) sandboxListen() string {
	if c.SandboxListen == "" {
		return "127.0.0.1:8081"
	}
	return c.SandboxListen
}

// SandboxAddr returns the sandbox listen address.
func (c *Config) SandboxAddr() string { return c.sandboxListen() }

func (c *Config) writeTimeout() time.Duration {
	if c.Limits.WriteTimeout == 0 {
		return 30 * time.Second
	}
	return time.Duration(c.Limits.WriteTimeout)
}

func (c *Config) bodyTimeout() time.Duration {
	if c.Limits.BodyTimeout == 0 {
		return 10 * time.Second
	}
	return time.Duration(c.Limits.BodyTimeout)
}

func (c *Config) streamTakeover() bool { return c.StreamTakeover == nil || *c.StreamTakeover }

// MemoryLimitBytes is the soft memory limit to set (0: none).
func (c *Config) MemoryLimitBytes() int64 {
	if c.MemoryLimit == nil {
		return DefaultMemoryLimit()
	}
	return *c.MemoryLimit
}

// DefaultGCPercent is gcPercent's default while a memory limit is set.
// With 10,000 open streams at 1 event/s it about halved the p99 (a
// collection's mark phase) and used less CPU than 100, for at most 3 KiB
// more per stream (docs/performance.md).
const DefaultGCPercent = 200

// GOGC is the garbage collector's percentage to set.
func (c *Config) GOGC() int {
	switch {
	case c.GCPercent != nil:
		return *c.GCPercent
	case c.MemoryLimitBytes() > 0:
		return DefaultGCPercent
	}
	return 100
}

func (c *Config) detachGrace() time.Duration {
	if c.DetachGrace == nil {
		return 30 * time.Second
	}
	return time.Duration(*c.DetachGrace)
}

// Grace returns the shutdown grace period.
func (c *Config) Grace() time.Duration {
	if c.ShutdownGrace == 0 {
		return DefaultShutdownGrace
	}
	return time.Duration(c.ShutdownGrace)
}
