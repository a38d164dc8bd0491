// Package tracing is the service's OpenTelemetry: spans exported over
// OTLP/HTTP (off unless configured), the agui.Tracer the protocol packages
// start their spans with, W3C trace context taken from clients and sent on
// to upstream agents, LangGraph and HTTP MCP servers, and trace ids in the
// logs.
package tracing

import (
	"context"
	"errors"
	"fmt"
	"io"
	"iter"
	"log/slog"
	"net/http"
	"sync"
	"time"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/exporters/otlp/otlptrace/otlptracehttp"
	"go.opentelemetry.io/otel/propagation"
	"go.opentelemetry.io/otel/sdk/resource"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	semconv "go.opentelemetry.io/otel/semconv/v1.37.0"
	"go.opentelemetry.io/otel/trace"

	"github.com/genui-adapter/genui-adapter/agui"
	"github.com/genui-adapter/genui-adapter/agui/origin"
)

// Config turns tracing on.
type Config struct {
	// Endpoint is the OTLP/HTTP base URL (http://collector:4318); spans
	// go to its /v1/traces.
	Endpoint string
	// Headers go with every export (an API key, say).
	Headers map[string]string
	// SampleRatio of the traces this service starts (default 1); a
	// client's sampled flag is followed.
	SampleRatio float64
	ServiceName string
	// Instance is service.instance.id.
	Instance string
	// Exporter replaces the OTLP exporter (tests).
	Exporter sdktrace.SpanExporter
}

// Provider owns the exporter; Shutdown flushes it.
type Provider struct {
	tp     *sdktrace.TracerProvider
	tracer trace.Tracer
	prop   propagation.TextMapPropagator
}

// New starts a provider; a nil Provider (tracing off) is valid for every
// method.
func New(ctx context.Context, c Config) (*Provider, error) {
	exp := c.Exporter
	if exp == nil {
		if c.Endpoint == "" {
			return nil, errors.New("tracing: no endpoint")
		}
		var err error
		// The exporter's own client would follow a redirect anywhere with
		// the configured headers (often the collector's API key).
		client := &http.Client{Transport: http.DefaultTransport.(*http.Transport).Clone(), Timeout: 10 * time.Second, CheckRedirect: origin.SameOrigin}
		exp, err = otlptracehttp.New(ctx, otlptracehttp.WithEndpointURL(c.Endpoint+"/v1/traces"), otlptracehttp.WithHeaders(c.Headers), otlptracehttp.WithHTTPClient(client))
		if err != nil {
			return nil, fmt.Errorf("tracing: %w", err)
		}
	}
	if c.SampleRatio == 0 {
		c.SampleRatio = 1
	}
	if c.ServiceName == "" {
		c.ServiceName = "genui-adapter"
	}
	res := resource.NewWithAttributes(semconv.SchemaURL, semconv.ServiceName(c.ServiceName), semconv.ServiceInstanceID(c.Instance))
	tp := sdktrace.NewTracerProvider(
		sdktrace.WithBatcher(exp),
		sdktrace.WithResource(res),
		sdktrace.WithSampler(sdktrace.ParentBased(sdktrace.TraceIDRatioBased(c.SampleRatio))),
	)
	return &Provider{
		tp:     tp,
		tracer: tp.Tracer("github.com/genui-adapter/genui-adapter"),
		prop:   propagation.NewCompositeTextMapPropagator(propagation.TraceContext{}, propagation.Baggage{}),
	}, nil
}

// Shutdown exports what is buffered and stops.
func (p *Provider) Shutdown(ctx context.Context) error {
	if p == nil {
		return nil
	}
	return p.tp.Shutdown(ctx)
}

// Tracer is the agui.Tracer of this provider (nil when off).
func (p *Provider) Tracer() agui.Tracer {
	if p == nil {
		return nil
	}
	return p.start
}

func (p *Provider) start(ctx context.Context, name string, kv ...string) (context.Context, func(error)) {
	ctx, span := p.tracer.Start(ctx, name, trace.WithAttributes(attrs(kv)...))
	return ctx, endFunc(span)
}

func endFunc(span trace.Span) func(error) {
	return func(err error) {
		if err != nil {
			span.SetStatus(codes.Error, err.Error())
		}
		span.End()
	}
}

func attrs(kv []string) []attribute.KeyValue {
	out := make([]attribute.KeyValue, 0, len(kv)/2)
	for i := 0; i+1 < len(kv); i += 2 {
		if kv[i+1] != "" {
			out = append(out, attribute.String(kv[i], kv[i+1]))
		}
	}
	return out
}

// Run returns the runs.StartRequest.Span of a run a request starts: the
// run's span, a server span under the client's traceparent (if any).
// What the run does is traced with Tracer (runs.StartRequest.Tracer).
// Nil when off.
func (p *Provider) Run(h http.Header, kv ...string) func(context.Context) (context.Context, func(error)) {
	if p == nil {
		return nil
	}
	parent := trace.SpanContextFromContext(p.prop.Extract(context.Background(), propagation.HeaderCarrier(h)))
	return func(ctx context.Context) (context.Context, func(error)) {
		if parent.IsValid() {
			ctx = trace.ContextWithRemoteSpanContext(ctx, parent)
		}
		ctx, span := p.tracer.Start(ctx, "genui.run", trace.WithSpanKind(trace.SpanKindServer), trace.WithAttributes(attrs(kv)...))
		return ctx, endFunc(span)
	}
}

// Request returns ctx with the client's trace context, for work a request
// does outside a run (an MCP Apps card's tool call, say, which the pool
// traces with Tracer).
func (p *Provider) Request(ctx context.Context, h http.Header) context.Context {
	if p == nil {
		return ctx
	}
	return p.prop.Extract(ctx, propagation.HeaderCarrier(h))
}

// Transport wraps base: each request is a client span, and carries its
// traceparent. The span ends when the response body is closed or read
// to its end (an SSE stream's span is the whole upstream connection).
// Nil p returns base.
func (p *Provider) Transport(base http.RoundTripper) http.RoundTripper {
	if p == nil {
		return base
	}
	if base == nil {
		base = http.DefaultTransport
	}
	return &transport{p: p, base: base}
}

type transport struct {
	p    *Provider
	base http.RoundTripper
}

func (t *transport) RoundTrip(r *http.Request) (*http.Response, error) {
	ctx := r.Context()
	if !trace.SpanContextFromContext(ctx).IsValid() {
		return t.base.RoundTrip(r) // not part of a trace (a health ping, say)
	}
	ctx, span := t.p.tracer.Start(ctx, r.Method, trace.WithSpanKind(trace.SpanKindClient), trace.WithAttributes(
		semconv.HTTPRequestMethodKey.String(r.Method),
		semconv.ServerAddress(r.URL.Hostname()),
		semconv.URLFull(r.URL.Scheme+"://"+r.URL.Host+r.URL.Path),
	))
	r = r.Clone(ctx)
	t.p.prop.Inject(ctx, propagation.HeaderCarrier(r.Header))
	resp, err := t.base.RoundTrip(r)
	if err != nil {
		span.SetStatus(codes.Error, err.Error())
		span.End()
		return nil, err
	}
	span.SetAttributes(semconv.HTTPResponseStatusCode(resp.StatusCode))
	if resp.StatusCode >= 400 {
		span.SetStatus(codes.Error, resp.Status)
	}
	resp.Body = &spanBody{ReadCloser: resp.Body, span: span}
	return resp, nil
}

type spanBody struct {
	io.ReadCloser
	span trace.Span
	once sync.Once
}

func (b *spanBody) Read(p []byte) (int, error) {
	n, err := b.ReadCloser.Read(p)
	if err != nil {
		b.end(err)
	}
	return n, err
}

func (b *spanBody) Close() error {
	b.end(nil)
	return b.ReadCloser.Close()
}

func (b *spanBody) end(err error) {
	b.once.Do(func() {
		if err != nil && !errors.Is(err, io.EOF) {
			b.span.SetStatus(codes.Error, err.Error())
		}
		b.span.End()
	})
}

// LogHandler adds trace_id and span_id to every record logged with a
// context inside a span.
func LogHandler(h slog.Handler) slog.Handler { return logHandler{h} }

type logHandler struct{ slog.Handler }

func (h logHandler) Handle(ctx context.Context, r slog.Record) error {
	if sc := trace.SpanContextFromContext(ctx); sc.IsValid() {
		r = r.Clone()
		r.AddAttrs(slog.String("trace_id", sc.TraceID().String()), slog.String("span_id", sc.SpanID().String()))
	}
	return h.Handler.Handle(ctx, r)
}

func (h logHandler) WithAttrs(as []slog.Attr) slog.Handler {
	return logHandler{h.Handler.WithAttrs(as)}
}

func (h logHandler) WithGroup(name string) slog.Handler {
	return logHandler{h.Handler.WithGroup(name)}
}

// ToolCalls is the middleware that gives each tool call of a run a span,
// from its TOOL_CALL_START to its TOOL_CALL_RESULT (or the run's end: a
// frontend tool's result comes in the next run). A run stopped for a
// hand-over ends its open spans there: the rejoining run does not trace
// the results of calls started before the stop.
func ToolCalls() agui.Middleware {
	return func(next agui.Agent) agui.Agent {
		return agui.AgentFunc(func(ctx context.Context, req *agui.Request) iter.Seq2[agui.Event, error] {
			if req.Tracer == nil {
				return next.Run(ctx, req)
			}
			return func(yield func(agui.Event, error) bool) {
				open := map[string]func(error){}
				defer func() {
					for _, end := range open {
						end(nil)
					}
				}()
				agui.PassThrough(next.Run(ctx, req), yield, func(ev agui.Event) bool {
					switch e := ev.(type) {
					case *agui.ToolCallStart:
						if _, dup := open[e.ToolCallID]; !dup && len(open) < maxOpenToolSpans {
							_, open[e.ToolCallID] = req.StartSpan(ctx, "tool_call "+e.ToolCallName, "gen_ai.operation.name", "execute_tool", "gen_ai.tool.name", e.ToolCallName, "gen_ai.tool.call.id", e.ToolCallID)
						}
					case *agui.ToolCallResult:
						if end, ok := open[e.ToolCallID]; ok {
							end(nil)
							delete(open, e.ToolCallID)
						}
					}
					return yield(ev, nil)
				})
			}
		})
	}
}

// maxOpenToolSpans bounds the spans one run holds open.
const maxOpenToolSpans = 256
