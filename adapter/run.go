package adapter

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"mime"
	"net/http"
	"strings"
	"time"

	"github.com/labstack/echo/v5"

	"github.com/genui-adapter/genui-adapter/agui"
)

func requestLog(logger *slog.Logger) echo.MiddlewareFunc {
	return func(next echo.HandlerFunc) echo.HandlerFunc {
		return func(c *echo.Context) error {
			start := time.Now()
			err := next(c)
			status := 0
			if r, _ := echo.UnwrapResponse(c.Response()); r != nil {
				status = r.Status
			}
			if err != nil {
				status = echo.StatusCode(err)
			}
			logger.Debug("request", "method", c.Request().Method, "path", c.Request().URL.Path, "status", status, "duration", time.Since(start))
			return err
		}
	}
}

// readJSONBody checks the content type and reads the body up to max bytes.
func readJSONBody(r *http.Request, max int64) ([]byte, error) {
	ct := r.Header.Get("Content-Type")
	mt, _, err := mime.ParseMediaType(ct)
	if ct == "" || err != nil || !(mt == "application/json" || strings.HasSuffix(mt, "+json")) {
		return nil, &httpError{Status: http.StatusUnsupportedMediaType, Code: "unsupported_media_type",
			Msg: fmt.Sprintf("Content-Type must be application/json, got %q", ct)}
	}
	if r.ContentLength > max {
		return nil, errTooLarge(max)
	}
	body, err := io.ReadAll(http.MaxBytesReader(nil, r.Body, max))
	if err != nil {
		var mbe *http.MaxBytesError
		if errors.As(err, &mbe) {
			return nil, errTooLarge(max)
		}
		return nil, errBadRequest("cannot read the request body", err)
	}
	return body, nil
}

func errTooLarge(max int64) error {
	return &httpError{Status: http.StatusRequestEntityTooLarge, Code: "body_too_large",
		Msg: fmt.Sprintf("request body is larger than %d bytes (maxBodyBytes)", max)}
}

// handleRun starts a run: POST /agents/:agentId/run with a RunAgentInput,
// answered with an SSE stream of AG-UI events.
func handleRun(s *Server) echo.HandlerFunc {
	return func(c *echo.Context) error {
		id := c.Param("agentId")
		a, ok := s.agents[id]
		if !ok {
			return &httpError{Status: http.StatusNotFound, Code: "agent_not_found", Msg: fmt.Sprintf("no agent %q is configured; GET /agents lists them", id)}
		}
		if s.draining.Load() {
			return &httpError{Status: http.StatusServiceUnavailable, Code: "draining", Msg: "the server is shutting down; retry on another instance"}
		}
		body, err := readJSONBody(c.Request(), s.cfg.maxBody())
		if err != nil {
			return err
		}
		in, err := agui.ParseRunAgentInput(body)
		if err != nil {
			var ie *agui.InputError
			if errors.As(err, &ie) {
				return &httpError{Status: http.StatusBadRequest, Code: "invalid_run_input", Msg: ie.Error(), Err: err}
			}
			return errBadRequest("invalid RunAgentInput", err)
		}
		s.stream(c.Request().Context(), c.Response(), a, in, c.Request().Header)
		return nil
	}
}

// errClientGone cancels a run whose client disconnected.
var errClientGone = errors.New("client disconnected")

// stream runs the agent and writes its events as SSE until the run ends.
// The agent runs in a goroutine owned by stream, which waits for it before
// returning. The run is cancelled when the client disconnects or a write
// fails, and, with a *agui.RunErr cause, when the server shuts down.
func (s *Server) stream(reqCtx context.Context, w http.ResponseWriter, a *agentEntry, in *agui.RunAgentInput, hdr http.Header) {
	s.streams.Add(1)
	defer s.streams.Done()

	ctx, cancel := context.WithCancelCause(reqCtx)
	defer cancel(nil)
	stopAfter := context.AfterFunc(s.runsCtx, func() { cancel(context.Cause(s.runsCtx)) })
	defer stopAfter()
	stats := &runStats{m: s.metrics, agent: a.id, logger: s.logger}
	ctx = agui.WithStats(agui.WithRequestHeaders(ctx, hdr), stats)

	h := w.Header()
	h.Set("Content-Type", "text/event-stream")
	h.Set("Cache-Control", "no-cache, no-transform")
	h.Set("X-Accel-Buffering", "no")
	w.WriteHeader(http.StatusOK)
	rc := http.NewResponseController(w)
	enc := agui.NewEncoder(w)
	// A first comment, flushed at once, makes proxies forward the headers.
	writeOK := enc.Comment("ok") == nil && rc.Flush() == nil

	s.metrics.runsStarted.WithLabelValues(a.id).Inc()
	s.logger.Info("run started", "agent", a.id, "threadId", in.ThreadID, "runId", in.RunID)

	events := make(chan agui.Event, 64)
	go func() {
		defer close(events)
		for ev, err := range a.chain.Run(ctx, in) {
			if err != nil {
				// Normalize(Output) turns errors into RUN_ERROR; this is a
				// safety net for a chain without it.
				ev = agui.AsRunError(err)
			}
			select {
			case events <- ev:
			case <-ctx.Done():
				if errors.Is(context.Cause(ctx), errClientGone) || reqCtx.Err() != nil {
					return
				}
				events <- ev // shutdown: the writer still drains
			}
			if err != nil {
				return
			}
		}
	}()

	heartbeat := s.cfg.heartbeat()
	idle := time.NewTimer(heartbeat)
	defer idle.Stop()
	outcome := "truncated"
	clientDone := reqCtx.Done()
	for {
		select {
		case ev, ok := <-events:
			if !ok {
				s.logger.Info("run ended", "agent", a.id, "runId", in.RunID, "outcome", outcome)
				return
			}
			switch e := ev.(type) {
			case *agui.RunFinished:
				outcome = "finished"
				s.metrics.runsFinished.WithLabelValues(a.id).Inc()
			case *agui.RunError:
				outcome = "error:" + e.Code
				s.metrics.runsErrored.WithLabelValues(a.id, e.Code).Inc()
			}
			if !writeOK {
				continue // draining a run whose client is gone
			}
			if err := enc.Encode("", ev); err != nil {
				writeOK = false
				cancel(errClientGone)
				continue
			}
			s.metrics.events.WithLabelValues(a.id).Inc()
			// Flush whenever the writer has caught up: no event ever waits
			// in a buffer while the writer is idle, and a burst is written
			// with fewer syscalls.
			if len(events) == 0 {
				if err := rc.Flush(); err != nil {
					writeOK = false
					cancel(errClientGone)
					continue
				}
			}
			idle.Reset(heartbeat)
		case <-idle.C:
			if writeOK && (enc.Comment("keep-alive") != nil || rc.Flush() != nil) {
				writeOK = false
				cancel(errClientGone)
			}
			idle.Reset(heartbeat)
		case <-clientDone:
			clientDone = nil
			writeOK = false
			cancel(errClientGone)
		}
	}
}
