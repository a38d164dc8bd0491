package agui

import "context"

// Tracer starts a span named name under ctx's, with attributes given as
// key, value pairs; it returns the span's context and the function that
// ends it (with the error the work ended with, or nil). The service
// installs one (OpenTelemetry) with WithTracer; the protocol packages only
// call StartSpan, which costs nothing without one.
type Tracer func(ctx context.Context, name string, attrs ...string) (context.Context, func(err error))

type tracerKey struct{}

// WithTracer installs t for the work done under ctx.
func WithTracer(ctx context.Context, t Tracer) context.Context {
	return context.WithValue(ctx, tracerKey{}, t)
}

// TracerFrom returns ctx's tracer, or nil.
func TracerFrom(ctx context.Context) Tracer {
	t, _ := ctx.Value(tracerKey{}).(Tracer)
	return t
}

func noEnd(error) {}

// StartSpan starts a span with ctx's tracer; without one it returns ctx
// and a no-op.
func StartSpan(ctx context.Context, name string, attrs ...string) (context.Context, func(err error)) {
	if t := TracerFrom(ctx); t != nil {
		return t(ctx, name, attrs...)
	}
	return ctx, noEnd
}
