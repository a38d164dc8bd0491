package aguihttp

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

	"github.com/genui-adapter/genui-adapter/agui"
)

// Agent runs an upstream AG-UI agent over HTTP: it POSTs the
// RunAgentInput as JSON with "Accept: text/event-stream" (never asking
// for protobuf) and decodes the SSE response. Cancelling ctx, or stopping the
// range loop, aborts the upstream request. The zero value is not usable;
// URL (the upstream endpoint) is required. An Agent is safe for
// concurrent use.
type Agent struct {
	Upstream
	// ClientThreadIDs sends the client's threadId upstream unchanged.
	// By default the upstream sees agui.ScopedThreadID(principal,
	// threadId) (the events it sends back are given the client's id
	// again), so an upstream that keeps state per thread cannot mix up two
	// principals' threads.
	ClientThreadIDs bool
}

// Run implements agui.Agent.
func (a *Agent) Run(ctx context.Context, req *agui.Request) iter.Seq2[agui.Event, error] {
	return func(yield func(agui.Event, error) bool) {
		in := req.Input
		upThread := in.ThreadID
		if !a.ClientThreadIDs {
			upThread = agui.ScopedThreadID(req.Principal, in.ThreadID)
		}
		body, err := a.open(ctx, req, upThread)
		if err != nil {
			if err != errGone {
				yield(nil, err)
			}
			return
		}
		defer body.Close()
		dec := agui.Decoder{MaxEventSize: a.MaxEventSize}
		if req.Stats != nil {
			dec.Repaired = req.Stats.Repair
		}
		// The loop keeps a small stack frame: it runs under every event.
		for ev, err := range dec.Events(body) {
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
// the idle timeout armed), or the *agui.RunFailure to report.
func (a *Agent) open(ctx context.Context, req *agui.Request, upThread string) (io.ReadCloser, error) {
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
		return nil, &agui.RunFailure{Code: agui.CodeInternal, Message: "cannot encode the run input", Err: err}
	}
	start := time.Now()
	resp, err := a.Do(ctx, req, http.MethodPost, a.URL, body, map[string]string{"Accept": "text/event-stream"})
	if err != nil {
		if ctx.Err() != nil {
			return nil, errGone
		}
		if re := (*agui.RunFailure)(nil); errors.As(err, &re) {
			return nil, re
		}
		msg := "cannot reach the upstream agent"
		if errors.Is(err, ErrConnectTimeout) {
			msg = fmt.Sprintf("upstream agent sent no response within %s", a.Connect())
		}
		return nil, &agui.RunFailure{Code: agui.CodeUpstreamUnreachable, Message: msg, Err: err}
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
		return nil, &agui.RunFailure{Code: agui.CodeUpstreamInvalid, Message: fmt.Sprintf("upstream agent answered Content-Type %q, want text/event-stream", ct)}
	}
	return resp.Body, nil
}

// streamErr is the error a broken stream reports (nil: the caller went
// away).
func (a *Agent) streamErr(ctx context.Context, err error) error {
	if errors.Is(err, ErrIdle) {
		return &agui.RunFailure{Code: agui.CodeUpstreamTruncated, Message: fmt.Sprintf("upstream agent sent nothing for %s", a.Idle()), Err: err}
	}
	if ctx.Err() != nil {
		return nil
	}
	if !errors.Is(err, agui.ErrMalformedEvent) && !errors.Is(err, agui.ErrEventTooLarge) && !errors.Is(err, agui.ErrTruncatedFrame) {
		return &agui.RunFailure{Code: agui.CodeUpstreamTruncated, Message: "upstream connection failed mid-stream", Err: err}
	}
	return err
}

// restoreThread gives the client's thread id back to the events that
// carry the upstream's.
func restoreThread(ev agui.Event, upThread, thread string) {
	switch e := ev.(type) {
	case *agui.RunStarted:
		if e.ThreadID == upThread {
			e.ThreadID = thread
		}
	case *agui.RunFinished:
		if e.ThreadID == upThread {
			e.ThreadID = thread
		}
	}
}
