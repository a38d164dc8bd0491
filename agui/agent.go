package agui

import (
	"context"
	"errors"
	"fmt"
	"iter"
)

// Agent runs a RunAgentInput and streams its events. The sequence ends when
// the run ends, when ctx is cancelled, or when the caller stops ranging;
// in each case the agent releases what it holds (connections, goroutines)
// before the range loop returns. An error yielded ends the sequence.
type Agent interface {
	Run(ctx context.Context, in *RunAgentInput) iter.Seq2[Event, error]
}

// AgentFunc adapts a function to Agent.
type AgentFunc func(ctx context.Context, in *RunAgentInput) iter.Seq2[Event, error]

// Run implements Agent.
func (f AgentFunc) Run(ctx context.Context, in *RunAgentInput) iter.Seq2[Event, error] {
	return f(ctx, in)
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
