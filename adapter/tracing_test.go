package adapter

import (
	"bytes"
	"context"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
	collectortrace "go.opentelemetry.io/proto/otlp/collector/trace/v1"
	"google.golang.org/protobuf/proto"

	"github.com/genui-adapter/genui-adapter/agui"
	"github.com/genui-adapter/genui-adapter/mcpapps/mcpappstest"
)

const (
	inboundTrace  = "4bf92f3577b34da6a3ce929d0e0e4736"
	inboundParent = "00f067aa0ba902b7"
)

// headerLog records one header of every request a handler serves.
type headerLog struct {
	mu   sync.Mutex
	seen []string
}

func (l *headerLog) wrap(name string, h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		l.mu.Lock()
		l.seen = append(l.seen, r.Header.Get(name))
		l.mu.Unlock()
		h.ServeHTTP(w, r)
	})
}

func (l *headerLog) all() []string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return append([]string(nil), l.seen...)
}

// tracedFixture: an AG-UI upstream whose first round calls a backend tool
// with a tabular result (an A2UI surface) and the MCP fixture's weather
// tool over HTTP; the second round answers. Both record traceparent.
func tracedFixture(t *testing.T) (agentURL, mcpURL string, upstream, mcpSeen *headerLog) {
	upstream, mcpSeen = &headerLog{}, &headerLog{}
	fx := mcpappstest.New()
	m := httptest.NewServer(mcpSeen.wrap("traceparent", mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return fx.Server }, nil)))
	t.Cleanup(m.Close)
	up := scripted(t, func(enc *agui.Encoder, flush func(), in *agui.RunAgentInput, r *http.Request) {
		enc.Encode("", &agui.RunStarted{ThreadID: in.ThreadID, RunID: in.RunID})
		if last := in.Messages[len(in.Messages)-1]; last.Role == "tool" {
			enc.Encode("", &agui.TextMessageStart{MessageID: "m2", Role: "assistant"})
			enc.Encode("", &agui.TextMessageContent{MessageID: "m2", Delta: "done"})
			enc.Encode("", &agui.TextMessageEnd{MessageID: "m2"})
		} else {
			enc.Encode("", &agui.ToolCallStart{ToolCallID: "tc-orders", ToolCallName: "list_orders"})
			enc.Encode("", &agui.ToolCallArgs{ToolCallID: "tc-orders", Delta: "{}"})
			enc.Encode("", &agui.ToolCallEnd{ToolCallID: "tc-orders"})
			enc.Encode("", &agui.ToolCallResult{MessageID: "r1", ToolCallID: "tc-orders", Content: `[{"id":"A-1","total":12.5},{"id":"A-2","total":7}]`})
			enc.Encode("", &agui.ToolCallStart{ToolCallID: "tc-weather", ToolCallName: "weather"})
			enc.Encode("", &agui.ToolCallArgs{ToolCallID: "tc-weather", Delta: `{"city":"Oslo"}`})
			enc.Encode("", &agui.ToolCallEnd{ToolCallID: "tc-weather"})
		}
		enc.Encode("", &agui.RunFinished{ThreadID: in.ThreadID, RunID: in.RunID})
	})
	wrapped := httptest.NewServer(upstream.wrap("traceparent", up.Config.Handler))
	t.Cleanup(wrapped.Close)
	return wrapped.URL, m.URL, upstream, mcpSeen
}

func tracedConfig(t *testing.T, agentURL, mcpURL, tracing string) Config {
	cfg, err := ParseConfig([]byte(tracing+`
mcpServers: {fx: {url: "`+mcpURL+`"}}
agents: {a: {type: agui, url: "`+agentURL+`", mcpServers: [fx]}}`), func(string) string { return "" })
	if err != nil {
		t.Fatal(err)
	}
	zero := Duration(0)
	cfg.DetachGrace = &zero
	return cfg
}

func tracedRun(t *testing.T, s *Server) {
	t.Helper()
	ts := serveAdopted(s)
	defer ts.Close()
	code, fs := runAll(t, ts.URL, "a", runJSON("t", "r1", "orders and weather"), map[string]string{"traceparent": "00-" + inboundTrace + "-" + inboundParent + "-01"})
	if code != 200 || lastType(fs) != "RUN_FINISHED" {
		t.Fatalf("run: %d %s", code, lastType(fs))
	}
}

// With tracing on, the run is a span under the client's traceparent;
// the upstream connections, each tool call, each MCP call and the A2UI
// generation and validation are spans in the same trace; the upstream
// agent and the HTTP MCP server receive traceparent; the logs carry the
// trace id.
func TestTracingSpansAndPropagation(t *testing.T) {
	agentURL, mcpURL, upstream, mcpSeen := tracedFixture(t)
	cfg := tracedConfig(t, agentURL, mcpURL, "")
	exp := tracetest.NewInMemoryExporter()
	cfg.Tracing.exporter = keepSpans{exp}
	logger, logs := keptLog()
	s, err := NewServer(logger, cfg)
	if err != nil {
		t.Fatal(err)
	}
	tracedRun(t, s)
	s.Close() // flushes the spans

	for _, tp := range upstream.all() {
		if !strings.HasPrefix(tp, "00-"+inboundTrace+"-") || strings.Contains(tp, inboundParent) {
			t.Errorf("upstream traceparent = %q, want the client's trace with the adapter's span", tp)
		}
	}
	var mcpTraced int
	for _, tp := range mcpSeen.all() {
		if strings.HasPrefix(tp, "00-"+inboundTrace+"-") {
			mcpTraced++
		}
	}
	if mcpTraced == 0 {
		t.Errorf("the HTTP MCP server never received the run's traceparent: %q", mcpSeen.all())
	}

	spans := exp.GetSpans()
	byName := map[string]int{}
	var runSpanID string
	for _, sp := range spans {
		byName[sp.Name]++
		if sp.SpanContext.TraceID().String() != inboundTrace {
			t.Errorf("span %s is in trace %s, not the client's", sp.Name, sp.SpanContext.TraceID())
		}
		if sp.Name == "genui.run" {
			runSpanID = sp.SpanContext.SpanID().String()
			if sp.Parent.SpanID().String() != inboundParent {
				t.Errorf("genui.run's parent = %s, want the client's span %s", sp.Parent.SpanID(), inboundParent)
			}
		}
	}
	for name, min := range map[string]int{"genui.run": 1, "POST": 2, "tool_call list_orders": 1, "tool_call weather": 1, "tools/call weather": 1, "a2ui.generate": 1, "a2ui.validate": 1} {
		if byName[name] < min {
			t.Errorf("%d %q spans, want at least %d (spans: %v)", byName[name], name, min, byName)
		}
	}
	upstreamSpans := 0
	for _, sp := range spans {
		for _, a := range sp.Attributes {
			if sp.Name == "POST" && a.Key == "url.full" && strings.HasPrefix(a.Value.AsString(), agentURL) {
				upstreamSpans++
				if sp.Parent.SpanID().String() != runSpanID {
					t.Errorf("an upstream span's parent is %s, not the run", sp.Parent.SpanID())
				}
			}
		}
	}
	if upstreamSpans != 2 {
		t.Errorf("%d upstream connection spans, want 2 (one per round)", upstreamSpans)
	}
	out := logs()
	if !strings.Contains(out, `"msg":"run ended"`) || !strings.Contains(out, `"trace_id":"`+inboundTrace+`"`) {
		t.Errorf("logs without the trace id:\n%s", out)
	}
}

// Off by default: nothing is propagated.
func TestTracingOffByDefault(t *testing.T) {
	agentURL, mcpURL, upstream, _ := tracedFixture(t)
	s, err := NewServer(nil, tracedConfig(t, agentURL, mcpURL, ""))
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	tracedRun(t, s)
	for _, tp := range upstream.all() {
		if tp != "" {
			t.Errorf("tracing off, but the upstream got traceparent %q", tp)
		}
	}
}

// The OTLP/HTTP exporter: spans reach a receiver at tracing.otlpEndpoint,
// with the service's name.
func TestTracingOTLPReceiver(t *testing.T) {
	var mu sync.Mutex
	names := map[string]bool{}
	var service string
	recv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/v1/traces" || r.Header.Get("Content-Type") != "application/x-protobuf" {
			http.Error(w, "unexpected "+r.URL.Path, 400)
			return
		}
		b, _ := io.ReadAll(r.Body)
		var req collectortrace.ExportTraceServiceRequest
		if err := proto.Unmarshal(b, &req); err != nil {
			http.Error(w, err.Error(), 400)
			return
		}
		mu.Lock()
		for _, rs := range req.ResourceSpans {
			for _, a := range rs.Resource.Attributes {
				if a.Key == "service.name" {
					service = a.Value.GetStringValue()
				}
			}
			for _, ss := range rs.ScopeSpans {
				for _, sp := range ss.Spans {
					names[sp.Name] = true
				}
			}
		}
		mu.Unlock()
		w.Header().Set("Content-Type", "application/x-protobuf")
		out, _ := proto.Marshal(&collectortrace.ExportTraceServiceResponse{})
		w.Write(out)
	}))
	defer recv.Close()
	agentURL, mcpURL, _, _ := tracedFixture(t)
	s, err := NewServer(nil, tracedConfig(t, agentURL, mcpURL, `tracing: {otlpEndpoint: "`+recv.URL+`", serviceName: orders-ui}`))
	if err != nil {
		t.Fatal(err)
	}
	tracedRun(t, s)
	s.Close() // exports what is buffered
	mu.Lock()
	defer mu.Unlock()
	if !names["genui.run"] || !names["tools/call weather"] || service != "orders-ui" {
		t.Errorf("the receiver got spans %v from service %q", names, service)
	}
}

func TestTracingConfigErrors(t *testing.T) {
	for _, c := range []struct{ src, want string }{
		{`tracing: {otlpEndpoint: "collector:4318"}`, "tracing.otlpEndpoint"},
		{`tracing: {otlpEndpoint: "http://u:p@collector:4318"}`, "without credentials"},
		{`tracing: {otlpEndpoint: "http://collector:4318", sampleRatio: 2}`, "tracing.sampleRatio"},
		{`tracing: {endpoint: "http://collector:4318"}`, "did you mean"},
	} {
		_, err := ParseConfig([]byte(c.src+"\nagents: {a: {type: demo}}"), func(string) string { return "" })
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want %q", c.src, err, c.want)
		}
	}
}

// keepSpans keeps the spans past Shutdown (the in-memory exporter's
// Shutdown forgets them).
type keepSpans struct{ *tracetest.InMemoryExporter }

func (keepSpans) Shutdown(context.Context) error { return nil }

type lockedWriter struct {
	w  io.Writer
	mu *sync.Mutex
}

func (l *lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
}

// keptLog returns a JSON logger whose lines are kept, and a func that
// returns the lines written so far.
func keptLog() (*slog.Logger, func() string) {
	var buf bytes.Buffer
	var mu sync.Mutex
	return slog.New(slog.NewJSONHandler(&lockedWriter{w: &buf, mu: &mu}, nil)), func() string {
		mu.Lock()
		defer mu.Unlock()
		return buf.String()
	}
}

// A LangGraph server receives the run's traceparent too (here one that
// refuses everything: the run ends in RUN_ERROR, the header was sent), and
// the log line that says why the run failed carries the trace.
func TestTracingLangGraphPropagation(t *testing.T) {
	seen := &headerLog{}
	lg := httptest.NewServer(seen.wrap("traceparent", http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Error(w, `{"detail":"no"}`, http.StatusServiceUnavailable)
	})))
	defer lg.Close()
	cfg, err := ParseConfig([]byte(`agents: {a: {type: langgraph, url: "`+lg.URL+`", graph: g}}`), func(string) string { return "" })
	if err != nil {
		t.Fatal(err)
	}
	cfg.Tracing.exporter = keepSpans{tracetest.NewInMemoryExporter()}
	logger, logs := keptLog()
	s, err := NewServer(logger, cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	ts := serveAdopted(s)
	defer ts.Close()
	runAll(t, ts.URL, "a", runJSON("t", "r1", "hi"), map[string]string{"traceparent": "00-" + inboundTrace + "-" + inboundParent + "-01"})
	got := seen.all()
	if len(got) == 0 || !strings.HasPrefix(got[0], "00-"+inboundTrace+"-") {
		t.Errorf("LangGraph requests carried traceparent %q", got)
	}
	out := logs()
	var failed bool
	for _, l := range strings.Split(out, "\n") {
		if strings.Contains(l, `"msg":"agent failed"`) && strings.Contains(l, "503") && strings.Contains(l, `"trace_id":"`+inboundTrace+`"`) {
			failed = true
		}
	}
	if !failed {
		t.Errorf("no agent failed line with the cause and the trace id:\n%s", out)
	}
}
