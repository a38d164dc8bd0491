package agui

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"iter"
	"net/http"
	"strings"
	"time"

	"github.com/genui-adapter/genui-adapter/agui/origin"
)

// HTTPAgent runs an upstream AG-UI agent over HTTP: it POSTs the
// RunAgentInput as JSON with "Accept: text/event-stream" (never asking for
// protobuf) and decodes the SSE response. Cancelling ctx, or stopping the
// range loop, aborts the upstream request. The zero value is not usable; URL
// is required. An HTTPAgent is safe for concurrent use.
type HTTPAgent struct {
	// URL is the upstream endpoint.
	URL string
	// Headers are sent with every request (after forwarded ones, so they
	// win).
	Headers map[string]string
	// ForwardHeaders lists inbound request headers (case-insensitive) copied
	// from Request.Header.
	ForwardHeaders []string
	// Client sends the requests. If nil, a client with no overall timeout
	// and no transparent compression is used.
	Client *http.Client
	// Origins is where redirects may lead (Upstream.Origins); nil: within
	// URL's origin only.
	Origins *origin.Policy
	// ConnectTimeout bounds the time until the upstream's response headers
	// arrive. Zero means 30 s.
	ConnectTimeout time.Duration
	// IdleTimeout aborts a stream that sends nothing (not even a comment) for
	// this long. Zero means 5 minutes; negative disables it.
	IdleTimeout time.Duration
	// MaxEventSize caps one upstream event; zero means DefaultMaxEventSize.
	MaxEventSize int
	// ExposeErrors quotes an upstream's error answer in RUN_ERROR (see
	// StatusError); off, the client sees only its status.
	ExposeErrors bool
	// ClientThreadIDs sends the client's threadId upstream unchanged.
	// By default the upstream sees ScopedThreadID(principal, threadId) (the
	// events it sends back are given the client's id again), so an upstream
	// that keeps state per thread cannot mix up two principals' threads.
	ClientThreadIDs bool
}

// Run implements Agent.
func (a *HTTPAgent) Run(ctx context.Context, req *Request) iter.Seq2[Event, error] {
	return func(yield func(Event, error) bool) {
		in := req.Input
		upThread := in.ThreadID
		if !a.ClientThreadIDs {
			upThread = ScopedThreadID(req.Principal, in.ThreadID)
		}
		body, err := a.open(ctx, req, upThread)
		if err != nil {
			if err != errGone {
				yield(nil, err)
			}
			return
		}
		defer body.Close()
		// The loop keeps a small stack frame: it runs under every event.
		for ev, err := range Decode(body, a.MaxEventSize) {
			if err != nil {
				if err = a.streamErr(ctx, err); err != nil {
					yield(nil, err)
				}
				return
			}
			if upThread != in.ThreadID {
				restoreThread(ev, upThread, in.ThreadID)
			}
			if !yield(ev, nil) {
				return
			}
		}
	}
}

// errGone: the caller went away; nothing to report.
var errGone = errors.New("gone")

// open sends the run to the upstream and returns its event stream (with
// the idle timeout armed), or the *RunFailure to report.
func (a *HTTPAgent) open(ctx context.Context, req *Request, upThread string) (io.ReadCloser, error) {
	in := req.Input
	var body []byte
	var err error
	if upThread != in.ThreadID {
		up := *in
		up.ThreadID = upThread
		body, err = json.Marshal(&up)
	} else {
		body, err = json.Marshal(in)
	}
	if err != nil {
		return nil, &RunFailure{Code: CodeInternal, Message: "cannot encode the run input", Err: err}
	}
	start := time.Now()
	resp, err := a.upstream().Do(ctx, req, http.MethodPost, a.URL, body, map[string]string{"Accept": "text/event-stream"})
	if err != nil {
		if ctx.Err() != nil {
			return nil, errGone
		}
		if re := (*RunFailure)(nil); errors.As(err, &re) {
			return nil, re
		}
		msg := "cannot reach the upstream agent"
		if errors.Is(err, ErrConnectTimeout) {
			msg = fmt.Sprintf("upstream agent sent no response within %s", a.upstream().Connect())
		}
		return nil, &RunFailure{Code: CodeUpstreamUnreachable, Message: msg, Err: err}
	}
	if stats := req.Stats; stats != nil {
		stats.UpstreamLatency(time.Since(start))
	}
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		defer resp.Body.Close()
		return nil, StatusError(resp, "upstream agent", a.ExposeErrors)
	}
	if ct := resp.Header.Get("Content-Type"); !strings.Contains(strings.ToLower(ct), "text/event-stream") {
		resp.Body.Close()
		return nil, &RunFailure{Code: CodeUpstreamInvalid, Message: fmt.Sprintf("upstream agent answered Content-Type %q, want text/event-stream", ct)}
	}
	return resp.Body, nil
}

func (a *HTTPAgent) upstream() *Upstream {
	return &Upstream{Client: a.Client, Origins: a.Origins, Headers: a.Headers, ForwardHeaders: a.ForwardHeaders, ConnectTimeout: a.ConnectTimeout, IdleTimeout: a.IdleTimeout}
}

// streamErr is the error a broken stream reports (nil: the caller went
// away).
func (a *HTTPAgent) streamErr(ctx context.Context, err error) error {
	if errors.Is(err, ErrIdle) {
		return &RunFailure{Code: CodeUpstreamTruncated, Message: fmt.Sprintf("upstream agent sent nothing for %s", a.upstream().Idle()), Err: err}
	}
	if ctx.Err() != nil {
		return nil
	}
	if !errors.Is(err, ErrMalformedEvent) && !errors.Is(err, ErrEventTooLarge) && !errors.Is(err, ErrTruncatedFrame) {
		return &RunFailure{Code: CodeUpstreamTruncated, Message: "upstream connection failed mid-stream", Err: err}
	}
	return err
}

// restoreThread gives the client's thread id back to the events that
// carry the upstream's.
func restoreThread(ev Event, upThread, thread string) {
	switch e := ev.(type) {
	case *RunStarted:
		if e.ThreadID == upThread {
			e.ThreadID = thread
		}
	case *RunFinished:
		if e.ThreadID == upThread {
			e.ThreadID = thread
		}
	}
}
