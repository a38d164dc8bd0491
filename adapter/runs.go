package adapter

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"sync/atomic"
	"time"

	"github.com/labstack/echo/v5"

	"github.com/genui-adapter/genui-adapter/adapter/runlog"
	"github.com/genui-adapter/genui-adapter/agui"
)

// A run executes in a goroutine owned by the Server (the executor), which
// appends every event to the run log before any client sees it. Every SSE
// response, the one that started the run and any resume, is a reader of
// the log. The executor stops when the run ends, when a cancel arrives
// from any instance, when no reader has been attached for the detach
// grace, or at shutdown.

// localRun is what this instance knows of a run it executes.
type localRun struct {
	readers  atomic.Int32
	detached chan struct{} // poked when the last local reader leaves
}

// Cancel reasons, sent through the run log to the run's owner.
const (
	reasonCancel    = "cancel"
	reasonAbort     = "abort" // CopilotKit's stop route
	reasonSupersede = "superseded"
)

func causeFor(reason string) *agui.RunErr {
	switch reason {
	case reasonAbort:
		return &agui.RunErr{Code: "abort", Message: "Run stopped by user"}
	case reasonSupersede:
		return &agui.RunErr{Code: "superseded", Message: "a newer run on this thread replaced this one"}
	}
	return &agui.RunErr{Code: "cancelled", Message: "the run was cancelled"}
}

// runPreamble is what each SSE response starts with: a retry hint for
// reconnecting clients and a comment so proxies forward headers at once.
func writePreamble(w http.ResponseWriter, enc *agui.Encoder) bool {
	h := w.Header()
	h.Set("Content-Type", "text/event-stream")
	h.Set("Cache-Control", "no-cache, no-transform")
	h.Set("X-Accel-Buffering", "no")
	w.WriteHeader(http.StatusOK)
	return enc.Retry(3000) == nil && enc.Comment("ok") == nil && http.NewResponseController(w).Flush() == nil
}

// startRun registers a run and starts its executor.
func (s *Server) startRun(ctx context.Context, a *agentEntry, in *agui.RunAgentInput, principal string, hdr http.Header) (runlog.Run, error) {
	run := runlog.Run{ID: in.RunID, ThreadID: in.ThreadID, AgentID: a.id, Owner: principal, Instance: s.instance}
	prev, err := s.log.Start(ctx, run, s.cfg.ThreadPolicy == "supersede")
	switch {
	case errors.Is(err, runlog.ErrThreadBusy):
		return run, &httpError{Status: http.StatusConflict, Code: "thread_busy", RunID: prev,
			Msg: fmt.Sprintf("thread %q already has an active run %q; cancel it (POST /runs/%s/cancel) or wait for it to end", in.ThreadID, prev, prev)}
	case errors.Is(err, runlog.ErrRunExists):
		return run, &httpError{Status: http.StatusConflict, Code: "run_exists", RunID: in.RunID, Msg: fmt.Sprintf("run id %q was already used; resume it with GET /runs/%s/events", in.RunID, in.RunID)}
	case err != nil:
		return run, fmt.Errorf("run log: %w", err)
	}
	if prev != "" {
		_ = s.log.RequestCancel(ctx, prev, reasonSupersede)
	}
	lr := &localRun{detached: make(chan struct{}, 1)}
	s.local.Store(run.ID, lr)
	s.executors.Add(1)
	go s.execute(a, in, run, lr, hdr.Clone())
	s.metrics.runsStarted.WithLabelValues(a.id).Inc()
	s.logger.Info("run started", "agent", a.id, "threadId", in.ThreadID, "runId", in.RunID, "principal", principal)
	return run, nil
}

// logCtx bounds one run-log operation of the executor.
func logCtx() (context.Context, context.CancelFunc) {
	return context.WithTimeout(context.Background(), 5*time.Second)
}

func isTerminal(ev agui.Event) bool {
	t := ev.Type()
	return t == agui.TypeRunFinished || t == agui.TypeRunError
}

// execute runs the agent chain and logs its events.
func (s *Server) execute(a *agentEntry, in *agui.RunAgentInput, run runlog.Run, lr *localRun, hdr http.Header) {
	defer s.executors.Done()
	defer s.local.Delete(run.ID)
	ctx, cancel := context.WithCancelCause(context.Background())
	defer cancel(nil)
	stopAfter := context.AfterFunc(s.runsCtx, func() { cancel(context.Cause(s.runsCtx)) })
	defer stopAfter()
	stats := &runStats{m: s.metrics, agent: a.id, logger: s.logger, debug: string(in.ForwardedProp("genuiDebug")) == "true"}
	ctx = agui.WithStats(agui.WithRequestHeaders(ctx, hdr), stats)

	wctx, stopWatch := context.WithCancel(context.Background())
	watched := make(chan struct{})
	go func() {
		defer close(watched)
		s.watch(wctx, run, lr, cancel)
	}()
	defer func() {
		stopWatch()
		<-watched
	}()

	tr := agui.NewTranscript(s.history(run.ThreadID))
	tr.Merge(in.Messages)

	// The chain runs in its own goroutine so that events that pile up while
	// the log is busy are appended in one batch (one Redis round trip).
	events := make(chan agui.Event, 256)
	stopProducer := make(chan struct{})
	produced := make(chan struct{})
	go func() {
		defer close(produced)
		defer close(events)
		for ev, err := range a.chain.Run(ctx, in) {
			if err != nil {
				ev = agui.AsRunError(err) // Normalize(Output) does this; a safety net
			}
			select {
			case events <- ev:
			case <-stopProducer:
				return
			}
			if err != nil || isTerminal(ev) {
				return
			}
		}
	}()
	defer func() {
		close(stopProducer)
		<-produced
	}()

	outcome := ""
	saved := false
	var batch []agui.Event
	var data [][]byte
	for outcome == "" {
		ev, ok := <-events
		if !ok {
			break
		}
		batch = append(batch[:0], ev)
	fill:
		for len(batch) < cap(events) && !isTerminal(batch[len(batch)-1]) {
			select {
			case e, ok := <-events:
				if !ok {
					break fill
				}
				batch = append(batch, e)
			default:
				break fill
			}
		}
		if stats.debug {
			// The playground marks repairs: carry them in the stream, as
			// CUSTOM events (legal for every client) before the event
			// they came with.
			if kinds := stats.takeRepairs(); len(kinds) > 0 {
				v, _ := json.Marshal(map[string]any{"kinds": kinds})
				batch = append([]agui.Event{&agui.Custom{Name: "genui-adapter.repairs", Value: agui.JSON(v)}}, batch...)
			}
		}
		data = data[:0]
		for _, e := range batch {
			b, err := e.MarshalJSON()
			if err != nil {
				s.logger.Error("cannot encode event", "runId", run.ID, "type", e.Type(), "error", err)
				b, _ = (&agui.Custom{Name: "genui-adapter.unencodable", Value: agui.JSON(`"` + string(e.Type()) + `"`)}).MarshalJSON()
			}
			data = append(data, b)
		}
		last := batch[len(batch)-1]
		term := isTerminal(last)
		for _, e := range batch {
			tr.Apply(e)
		}
		if term {
			// History first: a client that sees the terminal event may
			// reconnect (CopilotKit /connect) at once and must find it.
			s.saveHistory(run, tr.Messages())
			saved = true
		}
		lctx, lcancel := logCtx()
		_, aerr := s.log.Append(lctx, run.ID, data, term)
		lcancel()
		if aerr != nil {
			// ErrFinished: a reader ended the run (owner_lost) while this
			// instance could not renew its lease. Either way, stop.
			s.logger.Error("run log append failed; stopping the run", "runId", run.ID, "error", aerr)
			cancel(&agui.RunErr{Code: agui.CodeInternal, Message: "run log unavailable"})
			outcome = "log_failed"
			break
		}
		s.metrics.events.WithLabelValues(a.id).Add(float64(len(batch)))
		if term {
			switch e := last.(type) {
			case *agui.RunFinished:
				outcome = "finished"
				s.metrics.runsFinished.WithLabelValues(a.id).Inc()
			case *agui.RunError:
				outcome = "error:" + e.Code
				s.metrics.runsErrored.WithLabelValues(a.id, e.Code).Inc()
			}
		}
	}
	if outcome == "" {
		// The chain ended without a terminal event (it should not).
		s.saveHistory(run, tr.Messages())
		saved = true
		last, _ := (&agui.RunError{Message: "the run ended without a terminal event", Code: agui.CodeInternal}).MarshalJSON()
		lctx, lcancel := logCtx()
		_, _ = s.log.Append(lctx, run.ID, [][]byte{last}, true)
		lcancel()
		outcome = "error:internal"
	}
	if !saved {
		s.saveHistory(run, tr.Messages())
	}
	s.logger.Info("run ended", "agent", a.id, "runId", run.ID, "outcome", outcome)
}

// watch delivers cancel requests, renews the owner lease and cancels a run
// nobody reads for the detach grace.
func (s *Server) watch(ctx context.Context, run runlog.Run, lr *localRun, cancel context.CancelCauseFunc) {
	grace := s.cfg.detachGrace()
	tick := min(time.Second, max(grace/4, 20*time.Millisecond))
	t := time.NewTicker(tick)
	defer t.Stop()
	cancels := s.log.Cancels(ctx, run.ID)
	lease := func() {
		lctx, lcancel := logCtx()
		defer lcancel()
		if err := s.log.Lease(lctx, run.ID, s.instance, 5*time.Second); err != nil {
			s.logger.Warn("cannot renew run lease", "runId", run.ID, "error", err)
		}
	}
	lease()
	unread := func() bool {
		if lr.readers.Load() > 0 {
			return false
		}
		lctx, lcancel := logCtx()
		defer lcancel()
		seen, err := s.log.LastSeen(lctx, run.ID)
		return err == nil && time.Since(seen) >= grace
	}
	detach := &agui.RunErr{Code: "detached", Message: fmt.Sprintf("no client was attached for %s", grace)}
	for {
		select {
		case <-ctx.Done():
			return
		case reason := <-cancels:
			s.logger.Info("run cancel requested", "runId", run.ID, "reason", reason)
			cancel(causeFor(reason))
		case <-lr.detached:
			if grace == 0 && lr.readers.Load() == 0 {
				cancel(detach)
			}
		case <-t.C:
			lease()
			if unread() {
				cancel(detach)
			}
		}
	}
}

// history returns the thread's stored messages.
func (s *Server) history(threadID string) []agui.Message {
	lctx, cancel := logCtx()
	defer cancel()
	b, err := s.log.History(lctx, threadID)
	if err != nil || b == nil {
		return nil
	}
	var h storedHistory
	if json.Unmarshal(b, &h) != nil {
		return nil
	}
	return h.Messages
}

// storedHistory is a thread's compacted messages and who owns them.
type storedHistory struct {
	Owner    string         `json:"owner"`
	Messages []agui.Message `json:"messages"`
}

func (s *Server) saveHistory(run runlog.Run, msgs []agui.Message) {
	b, err := json.Marshal(storedHistory{Owner: run.Owner, Messages: msgs})
	if err != nil {
		return
	}
	lctx, cancel := logCtx()
	defer cancel()
	if err := s.log.SaveHistory(lctx, run.ThreadID, b); err != nil {
		s.logger.Warn("cannot save thread history", "threadId", run.ThreadID, "error", err)
	}
}

// serveEvents streams the run's events after the cursor as SSE, each with
// "id: <seq>", until the terminal event or the client leaves. An unknown
// run or an evicted cursor is answered with a status before the stream
// starts.
func (s *Server) serveEvents(c *echo.Context, run runlog.Run, after int64) error {
	switch err := s.log.Check(c.Request().Context(), run.ID, after); {
	case errors.Is(err, runlog.ErrGap):
		return &httpError{Status: http.StatusGone, Code: "resume_gap", RunID: run.ID, Msg: fmt.Sprintf("events after %d are no longer retained; start a new run", after)}
	case errors.Is(err, runlog.ErrUnknownRun):
		return &httpError{Status: http.StatusNotFound, Code: "run_not_found", RunID: run.ID, Msg: fmt.Sprintf("run %q does not exist or has expired", run.ID)}
	case err != nil:
		return fmt.Errorf("run log: %w", err)
	}
	enc := agui.NewEncoder(c.Response())
	if !writePreamble(c.Response(), enc) {
		return nil
	}
	return s.followEvents(c, run, after, enc)
}

// followEvents writes the run's events after the cursor to a stream whose
// preamble is written, until the terminal event or the client leaves.
// While it runs, the run counts a reader (detach grace).
func (s *Server) followEvents(c *echo.Context, run runlog.Run, after int64, enc *agui.Encoder) error {
	reqCtx := c.Request().Context()
	w := c.Response()
	if v, ok := s.local.Load(run.ID); ok {
		lr := v.(*localRun)
		lr.readers.Add(1)
		defer func() {
			if lr.readers.Add(-1) == 0 {
				select {
				case lr.detached <- struct{}{}:
				default:
				}
			}
		}()
	}
	touch := func() {
		lctx, cancel := logCtx()
		defer cancel()
		_ = s.log.Touch(lctx, run.ID)
	}
	touch()
	defer touch()
	s.streams.Add(1)
	defer s.streams.Done()

	type item struct {
		e   runlog.Entry
		err error
	}
	ctx, cancel := context.WithCancel(reqCtx)
	defer cancel()
	items := make(chan item, 64)
	go func() {
		defer close(items)
		for e, err := range s.log.Events(ctx, run.ID, after) {
			select {
			case items <- item{e, err}:
			case <-ctx.Done():
				return
			}
			if err != nil {
				return
			}
		}
	}()
	defer func() {
		cancel()
		for range items { // wait for the producer
		}
	}()

	rc := http.NewResponseController(w)
	write := func(it item) (done bool) {
		if it.err != nil {
			// Mid-stream trouble: say so in-band, never leave a silent hole.
			code, msg := "resume_gap", "events were evicted while this client was reading; start a new run"
			if !errors.Is(it.err, runlog.ErrGap) {
				code, msg = "run_log_error", "the run log failed"
				s.logger.Error("run log read failed", "runId", run.ID, "error", it.err)
			}
			_ = enc.Encode("", &agui.RunError{Message: msg, Code: code})
			_ = rc.Flush()
			return true
		}
		if err := enc.EncodeData(strconv.FormatInt(it.e.Seq, 10), it.e.Data); err != nil {
			return true
		}
		if len(items) == 0 {
			if rc.Flush() != nil {
				return true
			}
		}
		return it.e.Terminal
	}
	heartbeat := time.NewTimer(s.cfg.heartbeat())
	defer heartbeat.Stop()
	touchTick := time.NewTicker(time.Second)
	defer touchTick.Stop()
	for {
		select {
		case it, ok := <-items:
			if !ok {
				_ = rc.Flush()
				return nil
			}
			if write(it) {
				_ = rc.Flush()
				return nil
			}
			heartbeat.Reset(s.cfg.heartbeat())
		case <-heartbeat.C:
			if enc.Comment("keep-alive") != nil || rc.Flush() != nil {
				return nil
			}
			heartbeat.Reset(s.cfg.heartbeat())
		case <-touchTick.C:
			touch()
		case <-reqCtx.Done():
			return nil
		}
	}
}

// handleRunEvents resumes a run: GET /runs/:runId/events with
// Last-Event-ID (or ?after=).
func handleRunEvents(s *Server) echo.HandlerFunc {
	return func(c *echo.Context) error {
		principal, err := s.principal(c.Request())
		if err != nil {
			return err
		}
		run, err := s.getRun(c.Request().Context(), c.Param("runId"), principal)
		if err != nil {
			return err
		}
		cursor := c.Request().Header.Get("Last-Event-ID")
		if q := c.QueryParam("after"); q != "" {
			cursor = q
		}
		var after int64
		if cursor != "" {
			if after, err = strconv.ParseInt(cursor, 10, 64); err != nil || after < 0 {
				return errBadRequest(fmt.Sprintf("Last-Event-ID/after must be an event id (a number), got %q", cursor), nil)
			}
		}
		return s.serveEvents(c, run, after)
	}
}

func (s *Server) getRun(ctx context.Context, id, principal string) (runlog.Run, error) {
	run, err := s.log.Get(ctx, id)
	if errors.Is(err, runlog.ErrUnknownRun) {
		return run, &httpError{Status: http.StatusNotFound, Code: "run_not_found", RunID: id, Msg: fmt.Sprintf("run %q does not exist or has expired", id)}
	}
	if err != nil {
		return run, fmt.Errorf("run log: %w", err)
	}
	if run.Owner != principal {
		return run, errForbidden("run " + id)
	}
	return run, nil
}

// handleRunCancel stops a run wherever it executes:
// {"stopped": bool, "runId", "status"}.
func handleRunCancel(s *Server) echo.HandlerFunc {
	return func(c *echo.Context) error {
		principal, err := s.principal(c.Request())
		if err != nil {
			return err
		}
		run, err := s.getRun(c.Request().Context(), c.Param("runId"), principal)
		if err != nil {
			return err
		}
		stopped, err := s.cancelRun(c.Request().Context(), run, reasonCancel)
		if err != nil {
			return err
		}
		return c.JSON(http.StatusOK, map[string]any{"stopped": stopped, "runId": run.ID, "status": run.Status})
	}
}

// cancelRun asks a running run to stop and reports whether it was running.
func (s *Server) cancelRun(ctx context.Context, run runlog.Run, reason string) (bool, error) {
	if run.Status != runlog.StatusRunning {
		return false, nil
	}
	if err := s.log.RequestCancel(ctx, run.ID, reason); err != nil {
		return false, fmt.Errorf("run log: %w", err)
	}
	return true, nil
}

// handleThreadMessages returns a thread's compacted history.
func handleThreadMessages(s *Server) echo.HandlerFunc {
	return func(c *echo.Context) error {
		principal, err := s.principal(c.Request())
		if err != nil {
			return err
		}
		b, err := s.log.History(c.Request().Context(), c.Param("threadId"))
		if err != nil {
			return fmt.Errorf("run log: %w", err)
		}
		h := storedHistory{Messages: []agui.Message{}}
		if b != nil {
			if err := json.Unmarshal(b, &h); err != nil {
				return err
			}
			if h.Owner != principal {
				return errForbidden("thread " + c.Param("threadId"))
			}
		}
		active, _ := s.log.Active(c.Request().Context(), c.Param("threadId"))
		return c.JSON(http.StatusOK, map[string]any{"threadId": c.Param("threadId"), "messages": h.Messages, "activeRunId": active})
	}
}
