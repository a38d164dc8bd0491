package adapter

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"time"

	"github.com/labstack/echo/v5"

	"github.com/genui-adapter/genui-adapter/adapter/runlog"
	"github.com/genui-adapter/genui-adapter/adapter/runs"
	"github.com/genui-adapter/genui-adapter/agui"
)

// The run routes translate HTTP to package runs, which holds every rule
// about runs (registration, ownership, readers, history, budgets).

// writePreamble starts an SSE response: a retry hint for reconnecting
// clients and a comment so proxies forward headers at once.
func writePreamble(w http.ResponseWriter, enc *agui.Encoder) bool {
	h := w.Header()
	h.Set("Content-Type", "text/event-stream")
	h.Set("Cache-Control", "no-cache, no-transform")
	h.Set("X-Accel-Buffering", "no")
	w.WriteHeader(http.StatusOK)
	return enc.Retry(3000) == nil && enc.Comment("ok") == nil && http.NewResponseController(w).Flush() == nil
}

// stream writes a reader's events as SSE ("id: <seq>" each) until the
// run's terminal event or the client leaves, and closes the reader. The
// preamble must have been written. Events that are ready together go in
// one flush.
func (s *Server) stream(c *echo.Context, rd *runs.Reader, enc *agui.Encoder) error {
	defer rd.Close()
	s.streams.Add(1)
	defer s.streams.Done()
	ctx := c.Request().Context()
	rc := http.NewResponseController(c.Response())
	hb := s.cfg.heartbeat()
	heartbeat := time.NewTimer(hb)
	defer heartbeat.Stop()
	buf := make([]runlog.Entry, 0, 64)
	wt := s.cfg.writeTimeout()
	for {
		entries, end, err := rd.Read(ctx, buf[:0])
		if len(entries) > 0 || end || err != nil {
			// A client that stops reading is dropped after the write
			// timeout instead of holding its run back for ever.
			_ = rc.SetWriteDeadline(time.Now().Add(wt))
		}
		for _, e := range entries {
			if enc.EncodeData(strconv.FormatInt(e.Seq, 10), e.Data) != nil {
				return nil
			}
		}
		if err != nil {
			// Mid-stream trouble: say so in-band, never leave a silent hole.
			code, msg := "resume_gap", "events were evicted while this client was reading; start a new run"
			if !errors.Is(err, runlog.ErrGap) {
				code, msg = "run_log_error", "the run log failed"
				s.logger.Error("run log read failed", "runId", rd.Run().ID, "error", err)
			}
			_ = enc.Encode("", &agui.RunError{Message: msg, Code: code})
			end = true
		}
		if len(entries) > 0 || end {
			if rc.Flush() != nil {
				return nil
			}
			heartbeat.Reset(hb)
		}
		if end {
			return nil
		}
		select {
		case <-rd.Wait():
		case <-heartbeat.C:
			_ = rc.SetWriteDeadline(time.Now().Add(wt))
			if enc.Comment("keep-alive") != nil || rc.Flush() != nil {
				return nil
			}
			heartbeat.Reset(hb)
		case <-ctx.Done():
			return nil
		}
	}
}

// runsError maps the runs package's errors to answers.
func runsError(err error, runID string) error {
	var busy *runs.BusyError
	switch {
	case err == nil:
		return nil
	case errors.As(err, &busy):
		// The active run is the caller's own: naming it reveals nothing.
		return &httpError{Status: http.StatusConflict, Code: "thread_busy", RunID: busy.RunID,
			Msg: fmt.Sprintf("the thread already has an active run %q; cancel it (POST /runs/%s/cancel) or wait for it to end", busy.RunID, busy.RunID)}
	case errors.Is(err, runs.ErrRunExists):
		return &httpError{Status: http.StatusConflict, Code: "run_exists", RunID: runID, Msg: fmt.Sprintf("run id %q was already used; resume it with GET /runs/%s/events", runID, runID)}
	case errors.Is(err, runs.ErrNotFound):
		return &httpError{Status: http.StatusNotFound, Code: "run_not_found", RunID: runID, Msg: fmt.Sprintf("run %q does not exist or has expired", runID)}
	case errors.Is(err, runs.ErrGap):
		return &httpError{Status: http.StatusGone, Code: "resume_gap", RunID: runID, Msg: "the events after this cursor are no longer retained; start a new run"}
	case errors.Is(err, runs.ErrTooManyReaders):
		return &httpError{Status: http.StatusTooManyRequests, Code: "too_many_readers", RetryAfter: 1, Msg: "too many concurrent streams for this principal (limits.maxReadersPerPrincipal)"}
	}
	var re *agui.RunErr
	if errors.As(err, &re) && re.Code == agui.CodeShutdown {
		return &httpError{Status: http.StatusServiceUnavailable, Code: "draining", Msg: "the server is shutting down; retry on another instance"}
	}
	return err
}

// handleRunEvents resumes a run: GET /runs/:runId/events with
// Last-Event-ID (or ?after=).
func handleRunEvents(s *Server) echo.HandlerFunc {
	return func(c *echo.Context) error {
		id := c.Param("runId")
		if err := agui.CheckID("runId", id); err != nil {
			return errBadRequest(err.Error(), nil)
		}
		cursor := c.Request().Header.Get("Last-Event-ID")
		if q := c.QueryParam("after"); q != "" {
			cursor = q
		}
		var after int64
		if cursor != "" {
			var err error
			if after, err = strconv.ParseInt(cursor, 10, 64); err != nil || after < 0 {
				return errBadRequest(fmt.Sprintf("Last-Event-ID/after must be an event id (a number), got %q", cursor), nil)
			}
		}
		rd, err := s.runs.Attach(c.Request().Context(), principalOf(c), id, after)
		if err != nil {
			return runsError(err, id)
		}
		enc := agui.NewEncoder(c.Response())
		if !writePreamble(c.Response(), enc) {
			rd.Close()
			return nil
		}
		return s.stream(c, rd, enc)
	}
}

// handleRunCancel stops a run wherever it executes:
// {"stopped": bool, "runId", "status"}.
func handleRunCancel(s *Server) echo.HandlerFunc {
	return func(c *echo.Context) error {
		if err := s.checkOrigin(c.Request()); err != nil {
			return err
		}
		id := c.Param("runId")
		if err := agui.CheckID("runId", id); err != nil {
			return errBadRequest(err.Error(), nil)
		}
		run, stopped, err := s.runs.Cancel(c.Request().Context(), principalOf(c), id, runs.ReasonCancel)
		if err != nil {
			return runsError(err, id)
		}
		return c.JSON(http.StatusOK, map[string]any{"stopped": stopped, "runId": run.ID, "status": run.Status})
	}
}

// handleThreadMessages returns a thread's compacted history.
func handleThreadMessages(s *Server) echo.HandlerFunc {
	return func(c *echo.Context) error {
		id := c.Param("threadId")
		if err := agui.CheckID("threadId", id); err != nil {
			return errBadRequest(err.Error(), nil)
		}
		th, err := s.runs.Thread(c.Request().Context(), principalOf(c), id)
		if err != nil {
			return err
		}
		out := map[string]any{"threadId": id, "messages": s.renewCards(c, id, th.Messages), "activeRunId": th.ActiveRunID}
		if th.Trimmed > 0 {
			out["trimmed"] = th.Trimmed
		}
		return c.JSON(http.StatusOK, out)
	}
}

// readyCtx bounds the readiness check.
func readyCtx(c *echo.Context) (context.Context, context.CancelFunc) {
	return context.WithTimeout(c.Request().Context(), time.Second)
}
