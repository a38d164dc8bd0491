package runs

import (
	"context"
	"net/http"
	"time"

	"github.com/genui-adapter/genui-adapter/adapter/runlog"
	"github.com/genui-adapter/genui-adapter/agui"
)

// DirectRequest is a direct run: an agent run for its client's stream
// alone (CopilotKit's suggestions). It has no run-log record, no thread,
// no history and no id anyone can resume, cancel or reuse; it ends when
// its client leaves, when Timeout passes or when its events pass
// MaxBytes.
type DirectRequest struct {
	// Principal is who runs it (for the logs).
	Principal string
	// UpstreamPrincipal is the agent's agui.Request.Principal: "" for an
	// unauthenticated deployment.
	UpstreamPrincipal string
	AgentID           string
	Agent             agui.Agent
	Input             *agui.RunAgentInput
	// Header is the starting request's headers (for forwarded headers).
	Header http.Header
	// Stats receives the run's measurements.
	Stats agui.Stats
	// Tracer traces what the run does (nil: no spans).
	Tracer agui.Tracer
	// Timeout bounds the run (required); past it the agent is stopped
	// and the stream ends with TimeoutFailure as RUN_ERROR.
	Timeout        time.Duration
	TimeoutFailure *agui.RunFailure
	// MaxBytes caps the encoded events sent (required); the event that
	// would pass it is not sent, the agent is stopped and the stream ends
	// with TooLargeFailure as RUN_ERROR. The terminal event always goes.
	MaxBytes        int64
	TooLargeFailure *agui.RunFailure
	// Span, if set, starts the run's trace span; it ends with the run,
	// with an error unless the run finished.
	Span func(ctx context.Context) (context.Context, func(error))
}

// DirectSink is where a direct run's events go: each batch is written
// and sent at once, without ids (nothing can resume the run). An error
// means the client is gone.
type DirectSink interface {
	SendPlain(entries []runlog.Entry) error
}

// Direct is a registered direct run that Serve executes.
type Direct struct {
	m    *Manager
	req  DirectRequest
	down context.Context // done with its cause when the Manager shuts down
	stop context.CancelCauseFunc
}

// StartDirect registers a direct run; Serve executes it. It is refused
// (with the shutdown's cause) once Shutdown was called. Only the Manager
// knows of it: Shutdown ends it and Wait waits for it.
func (m *Manager) StartDirect(req DirectRequest) (*Direct, error) {
	down, stop := context.WithCancelCause(context.Background())
	d := &Direct{m: m, req: req, down: down, stop: stop}
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.shutdown != nil {
		stop(nil)
		return nil, m.shutdown
	}
	m.direct[d] = struct{}{}
	m.executors.Add(1)
	return d, nil
}

// Serve executes the direct run in the caller's goroutine and sends its
// events to sink, until its terminal event or until the client's request
// (ctx) ends: then the agent is stopped and nothing more is sent.
func (d *Direct) Serve(ctx context.Context, sink DirectSink) {
	m, req := d.m, d.req
	defer func() {
		m.mu.Lock()
		delete(m.direct, d)
		m.mu.Unlock()
		d.stop(nil)
		m.executors.Done()
	}()
	rctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	defer context.AfterFunc(d.down, func() { cancel(context.Cause(d.down)) })()
	rctx, tcancel := context.WithTimeoutCause(rctx, req.Timeout, req.TimeoutFailure)
	defer tcancel()
	endSpan := func(error) {}
	if req.Span != nil {
		rctx, endSpan = req.Span(rctx)
	}
	in := req.Input
	m.logger.DebugContext(rctx, "direct run started", "agent", req.AgentID, "threadId", in.ThreadID, "runId", in.RunID, "principal", req.Principal)
	x := directRun{req: req, sink: sink}
	run := &agui.Request{Input: in, Principal: req.UpstreamPrincipal, Header: req.Header, Stats: req.Stats, Tracer: req.Tracer}
	for ev, err := range req.Agent.Run(rctx, run) {
		if err != nil {
			ev = agui.AsRunError(err) // Normalize(Output) does this; a safety net
		}
		if x.step(ev) {
			break
		}
	}
	if x.outcome == "" && ctx.Err() == nil {
		x.end(&agui.RunError{Message: "the run ended without a terminal event", Code: agui.CodeInternal})
	}
	var err error
	if x.outcome != string(agui.TypeRunFinished) {
		err = &agui.RunFailure{Code: "direct_run", Message: "direct run ended: " + x.outcome}
	}
	endSpan(err)
	m.logger.DebugContext(rctx, "direct run ended", "agent", req.AgentID, "runId", in.RunID, "outcome", x.outcome, "bytes", x.sent)
}

// directRun is a direct run's progress.
type directRun struct {
	req     DirectRequest
	sink    DirectSink
	sent    int64
	outcome string // "" while it runs, then the terminal event's type (and code), or "client_gone"
}

// step sends one event; it reports whether the run is over.
func (x *directRun) step(ev agui.Event) bool {
	data, err := ev.MarshalJSON()
	if err != nil {
		data, _ = (&agui.Custom{Name: "genui-adapter.unencodable", Value: agui.JSON(`"` + string(ev.Type()) + `"`)}).MarshalJSON()
	}
	if isTerminal(ev) {
		x.send(data)
		x.outcome = string(ev.Type())
		if e, ok := ev.(*agui.RunError); ok {
			x.outcome += ":" + e.Code
		}
		return true
	}
	if x.sent+int64(len(data)) > x.req.MaxBytes {
		f := x.req.TooLargeFailure
		x.end(&agui.RunError{Message: f.Message, Code: f.Code})
		return true
	}
	if !x.send(data) {
		x.outcome = "client_gone"
		return true
	}
	return false
}

// end sends the run's own terminal event.
func (x *directRun) end(ev *agui.RunError) {
	b, _ := ev.MarshalJSON()
	x.send(b)
	x.outcome = string(agui.TypeRunError) + ":" + ev.Code
}

func (x *directRun) send(data []byte) bool {
	x.sent += int64(len(data))
	return x.sink.SendPlain([]runlog.Entry{{Data: data}}) == nil
}
