package adapter

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"sync"
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
	sseHeaders(w.Header())
	w.WriteHeader(http.StatusOK)
	return writeOpening(enc, http.NewResponseController(w))
}

// writeOpening writes an SSE stream's first frames, once its head is out.
func writeOpening(enc *agui.Encoder, f interface{ Flush() error }) bool {
	return enc.Retry(3000) == nil && enc.Comment("ok") == nil && f.Flush() == nil
}

// sseSink writes a stream's events as SSE frames ("id: <seq>" each) and
// flushes after each batch. It sends ": keep-alive" after heartbeat of
// silence from its own timer, so that a run that executes in the request's
// goroutine (and blocks on its upstream) still keeps proxies from cutting
// the stream. A client that takes no write for the write timeout is
// dropped. Both are kept lazily, not per batch: the deadline is pushed
// forward when half of it is used, and the heartbeat timer, when it
// fires, waits out what is left of the heartbeat since events were last
// written (resetting one timer among thousands per batch cost more than
// the rest of the sink's work).
type sseSink struct {
	mu       sync.Mutex
	enc      *agui.Encoder
	rc       sseWriter
	hb, wt   time.Duration
	timer    *time.Timer // heartbeats
	flusher  *time.Timer // flushes what Send left queued
	pending  bool        // written, not flushed
	deadline time.Time
	sent     time.Time // when events were last written
	dead     bool
	first    func() // called once, after the first flush of events (a run's RUN_STARTED)
}

// flushDelay bounds how long Send leaves events queued when nothing
// flushes them sooner (the run did not go back to its upstream: an MCP
// tool call, say).
const flushDelay = 2 * time.Millisecond

var errClientGone = errors.New("the client went away")

// newSink starts a stream whose preamble is written (alive false: it was
// not, every send fails); first (if not nil) is called after the first
// flush of events.
func (s *Server) newSink(w sseWriter, enc *agui.Encoder, alive bool, first func()) *sseSink {
	k := &sseSink{enc: enc, rc: w, hb: s.cfg.heartbeat(), wt: s.cfg.writeTimeout(), dead: !alive, first: first}
	k.timer = time.AfterFunc(k.hb, k.beat)
	k.flusher = time.AfterFunc(time.Hour, func() { _ = k.Flush() })
	k.flusher.Stop()
	return k
}

// extend notes that events are written now and pushes the write
// deadline forward when half of it is used.
func (k *sseSink) extend() {
	now := time.Now()
	k.sent = now
	if k.deadline.Sub(now) < k.wt/2 {
		k.deadline = now.Add(k.wt)
		_ = k.rc.SetWriteDeadline(k.deadline)
	}
}

// Send implements runs.Sink.
func (k *sseSink) Send(entries []runlog.Entry, now bool) error { return k.send(entries, true, now) }

// SendPlain sends events without ids (a synthetic replay, not part of a
// run's log), and flushes them.
func (k *sseSink) SendPlain(entries []runlog.Entry) error { return k.send(entries, false, true) }

// send writes entries and flushes them (now), or leaves them queued for
// the next flush, at most flushDelay away (the flusher is set only then:
// a batch flushed at once costs no timer).
func (k *sseSink) send(entries []runlog.Entry, ids, now bool) error {
	k.mu.Lock()
	defer k.mu.Unlock()
	if k.dead {
		return errClientGone
	}
	if !k.pending {
		k.extend() // once per flush, not per event: time.Now is not free
	}
	for _, e := range entries {
		var err error
		if ids {
			err = k.enc.EncodeDataSeq(e.Seq, e.Data)
		} else {
			err = k.enc.EncodeData("", e.Data)
		}
		if err != nil {
			k.dead = true
			return errClientGone
		}
	}
	if now {
		return k.flushLocked()
	}
	if !k.pending {
		k.pending = true
		k.flusher.Reset(flushDelay)
	}
	return nil
}

// Flush implements runs.Sink: what Send queued goes out now.
func (k *sseSink) Flush() error {
	k.mu.Lock()
	defer k.mu.Unlock()
	if k.dead {
		return errClientGone
	}
	if !k.pending {
		return nil
	}
	return k.flushLocked()
}

// flushLocked sends what is written (k.mu held, the client alive).
func (k *sseSink) flushLocked() error {
	if k.pending {
		k.pending = false
		k.flusher.Stop()
	}
	if k.rc.Flush() != nil {
		k.dead = true
		return errClientGone
	}
	k.flushed()
	return nil
}

// flushed notes that events reached the client.
func (k *sseSink) flushed() {
	if k.first != nil {
		k.first()
		k.first = nil
	}
}

// beat sends a heartbeat if nothing was written for heartbeat, else sets
// the timer for the rest of it (the timer's goroutine).
func (k *sseSink) beat() {
	k.mu.Lock()
	defer k.mu.Unlock()
	if k.dead {
		return
	}
	if left := k.hb - time.Since(k.sent); left > 0 {
		k.timer.Reset(left)
		return
	}
	k.extend()
	if k.enc.Comment("keep-alive") != nil || k.rc.Flush() != nil {
		k.dead = true
		return
	}
	if k.pending {
		k.flushed()
	}
	k.pending = false
	k.timer.Reset(k.hb)
}

// fail reports a read failure in-band: never a silent hole.
func (k *sseSink) fail(s *Server, runID string, err error) {
	code, msg := "resume_gap", "events were evicted while this client was reading; start a new run"
	var f *agui.RunFailure
	switch {
	case errors.Is(err, runlog.ErrGap):
	case errors.As(err, &f):
		// The run ended without a terminal event in the log (a run log
		// outage, a fenced owner): the failure says why.
		code, msg = f.Code, f.Message
	default:
		code, msg = "run_log_error", "the run log failed"
		s.logger.Error("run log read failed", "runId", runID, "error", err)
	}
	k.mu.Lock()
	defer k.mu.Unlock()
	if !k.dead {
		_ = k.enc.Encode("", &agui.RunError{Message: msg, Code: code})
		_ = k.rc.Flush()
		k.pending = false
	}
}

// close flushes what is queued and stops the timers; nothing is written
// after it.
func (k *sseSink) close() {
	_ = k.Flush()
	k.mu.Lock()
	defer k.mu.Unlock()
	k.dead = true
	k.timer.Stop()
	k.flusher.Stop()
}

// follow streams a reader to the client until the run's terminal event or
// the client leaves (taken over from net/http as a run's stream is).
func (s *Server) follow(c *echo.Context, rd *runs.Reader) error {
	s.stream(c, nil, func(ctx context.Context, sink *sseSink) {
		if err := runs.Follow(ctx, rd, sink); err != nil {
			sink.fail(s, rd.Run().ID, err)
		}
	})
	return nil
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
	case errors.Is(err, runs.ErrUnavailable):
		return &httpError{Status: http.StatusServiceUnavailable, Code: "runlog_unreachable", RetryAfter: 1, Err: err, Msg: "the run log does not answer; retry shortly"}
	}
	var re *agui.RunFailure
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
		return s.follow(c, rd)
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

// handleThreadMessages returns a thread's compacted history. A thread
// the run log does not hold comes from the backend that keeps it, if one
// does (threadKeeper; ?agentId= names the agent to ask, else every one).
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
		if len(th.Messages) == 0 && th.ActiveRunID == "" {
			// Not in the run log (restart, retention): from the backend
			// that keeps the thread (?agentId= names it), if one does.
			if kept := s.keptMessages(c.Request().Context(), principalOf(c), id, c.QueryParam("agentId")); kept != nil {
				th.Messages = kept
			}
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
