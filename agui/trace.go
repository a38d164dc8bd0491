package agui

import "context"

// Tracer starts a span named name under ctx's, with attributes given as
// key, value pairs; it returns the span's context and the function that
// ends it (with the error the work ended with, or nil). The service gives
// one (OpenTelemetry) in Request.Tracer; the protocol packages only call
// Request.StartSpan, which costs nothing without one.
type Tracer func(ctx context.Context, name string, attrs ...string) (context.Context, func(err error))

func noEnd(error) {}

// StartSpan starts a span with t; a nil t returns ctx and a no-op.
func (t Tracer) StartSpan(ctx context.Context, name string, attrs ...string) (context.Context, func(err error)) {
	if t != nil {
		return t(ctx, name, attrs...)
	}
	return ctx, noEnd
}
