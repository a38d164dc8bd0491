package agui

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"iter"
	"time"
)

// Request is one run as an Agent receives it: the client's input and what
// the service knows of the run. It is built once per run; an Agent or
// Middleware reads it and never changes it (WithInput makes a copy with
// another input). The zero value of each field but Input means "none".
type Request struct {
	// Input is what the client sent.
	Input *RunAgentInput
	// Principal is who runs it; "" for an unauthenticated deployment.
	// Backends that keep state per thread derive their upstream thread
	// from it (ScopedThreadID), so that two principals using the same
	// threadId never share upstream state.
	Principal string
	// Header is the inbound request's headers (canonical keys, as an
	// http.Header), for backends that forward some of them; may be nil.
	Header map[string][]string
	// Stats receives the run's measurements; nil: they are dropped.
	Stats Stats
	// Tracer starts the run's spans (see StartSpan); nil: no spans.
	Tracer Tracer
	// BeforeRead is called by a backend right before it blocks reading its
	// upstream: the service flushes the events it has queued for its
	// client there, so a burst goes out in one write and a lone event at
	// once. nil: no-op.
	BeforeRead func()
	// Handover, when set, may ask the backend to stop the run where
	// another process can rejoin it (see Rejoiner); nil: never.
	Handover *Handover
}

// WithInput returns a copy of r with another input (a middleware that
// rewrites the input passes the copy on).
func (r *Request) WithInput(in *RunAgentInput) *Request {
	c := *r
	c.Input = in
	return &c
}

// ReadHook returns r's BeforeRead hook, or a no-op (r may be nil).
func (r *Request) ReadHook() func() {
	if r == nil || r.BeforeRead == nil {
		return noHook
	}
	return r.BeforeRead
}

func noHook() {}

// StartSpan starts a span with r's tracer under ctx's span; without one
// (or with a nil r) it returns ctx and a no-op.
func (r *Request) StartSpan(ctx context.Context, name string, attrs ...string) (context.Context, func(err error)) {
	if r == nil {
		return ctx, noEnd
	}
	return r.Tracer.StartSpan(ctx, name, attrs...)
}

// Agent runs a Request and streams its events. The sequence ends when the
// run ends, when ctx is cancelled, or when the caller stops ranging; in
// each case the agent releases what it holds (connections, goroutines)
// before the range loop returns. An error yielded ends the sequence.
type Agent interface {
	Run(ctx context.Context, req *Request) iter.Seq2[Event, error]
}

// AgentFunc adapts a function to Agent.
type AgentFunc func(ctx context.Context, req *Request) iter.Seq2[Event, error]

// Run implements Agent.
func (f AgentFunc) Run(ctx context.Context, req *Request) iter.Seq2[Event, error] {
	return f(ctx, req)
}

// Middleware wraps an Agent, rewriting its input, its events or both.
type Middleware func(next Agent) Agent

// Chain wraps a in the middlewares, the first one outermost.
func Chain(a Agent, mws ...Middleware) Agent {
	for i := len(mws) - 1; i >= 0; i-- {
		a = mws[i](a)
	}
	return a
}

// PassThrough is the loop of a middleware that passes its inner agent's
// stream on: it runs seq (next.Run's events) and hands each event to f,
// which yields it, changed or not, with or without events of its own
// after it, and reports whether to go on (false when a yield did). A nil
// f yields each event as it is. An error from seq is yielded as it is and
// ends the stream. PassThrough returns once seq has returned: when it
// ended, or when the consumer, f or an error stopped it (the inner agent
// has then released what it holds).
func PassThrough(seq iter.Seq2[Event, error], yield func(Event, error) bool, f func(Event) bool) {
	// A direct call rather than a range loop, whose state would escape
	// with its body: one allocation less per run.
	seq(func(ev Event, err error) bool {
		switch {
		case err != nil:
			yield(ev, err)
			return false
		case f == nil:
			return yield(ev, nil)
		default:
			return f(ev)
		}
	})
}

// Error codes of RUN_ERROR events this package produces.
const (
	CodeUpstreamTruncated   = "upstream_truncated"
	CodeUpstreamInvalid     = "upstream_invalid"
	CodeUpstreamUnreachable = "upstream_unreachable"
	CodeUpstreamStatus      = "upstream_status"
	CodeUpstreamTooLarge    = "upstream_event_too_large"
	// CodeOriginNotAllowed: a URL a peer chose (an A2A agent card's
	// endpoint, a redirect) is on an origin the agent may not reach.
	CodeOriginNotAllowed = "origin_not_allowed"
	CodeShutdown         = "shutdown"
	CodeInternal         = "internal"
	// CodeOwnerLost: the process running the run lost it (another took
	// it over, or its thread); a backend leaves its upstream run alone.
	CodeOwnerLost = "owner_lost"
	// CodeLogUnavailable: the process running the run gave it up because
	// the run log did not answer; another process may take the run over
	// (from a checkpoint in the log), now or once the log answers, so a
	// backend leaves its upstream run alone.
	CodeLogUnavailable = "run_log_unavailable"
)

// RunFailure is an error that ends a run with a RUN_ERROR of a given code. An
// Agent yields one to say why its stream ended; Normalize turns it into the
// client's RUN_ERROR.
type RunFailure struct {
	Code    string
	Message string
	Err     error
}

func (e *RunFailure) Error() string {
	if e.Err != nil {
		return fmt.Sprintf("%s: %s: %v", e.Code, e.Message, e.Err)
	}
	return e.Code + ": " + e.Message
}

// Unwrap returns the cause.
func (e *RunFailure) Unwrap() error { return e.Err }

// AsRunError turns err into the RUN_ERROR event a client sees.
func AsRunError(err error) *RunError {
	var re *RunFailure
	if errors.As(err, &re) {
		return &RunError{Message: re.Message, Code: re.Code}
	}
	switch {
	case errors.Is(err, ErrEventTooLarge):
		return &RunError{Message: "upstream sent an event larger than the configured limit", Code: CodeUpstreamTooLarge}
	case errors.Is(err, ErrTruncatedFrame):
		return &RunError{Message: "upstream stream ended inside an event", Code: CodeUpstreamTruncated}
	case errors.Is(err, ErrMalformedEvent):
		return &RunError{Message: "upstream sent data that is not an AG-UI event", Code: CodeUpstreamInvalid}
	}
	return &RunError{Message: "upstream stream failed", Code: CodeUpstreamTruncated}
}

// ScopedThreadID is the thread id an upstream sees for the client's
// threadId when principal runs it: the id itself for the empty principal,
// otherwise the id with a suffix derived from the principal.
func ScopedThreadID(principal, threadID string) string {
	if principal == "" {
		return threadID
	}
	h := sha256.Sum256([]byte("genui-adapter/principal\x00" + principal))
	return threadID + "~" + hex.EncodeToString(h[:8])
}

// Stats receives per-run measurements from agents (Request.Stats).
type Stats interface {
	// UpstreamLatency reports the time from request to response headers.
	UpstreamLatency(d time.Duration)
	// Repair reports one repair Normalize applied.
	Repair(kind string)
	// Failed reports the error behind a RUN_ERROR that Normalize made of
	// an agent's failure (an upstream that cannot be reached, a cut or
	// malformed stream): the client sees only its code and a fixed
	// message, so this is where the cause is kept. ctx is the run's.
	Failed(ctx context.Context, err error)
}
