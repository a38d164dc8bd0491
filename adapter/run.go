package adapter

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"mime"
	"net/http"
	"os"
	"strings"
	"time"

	"github.com/labstack/echo/v5"

	"github.com/genui-adapter/genui-adapter/a2ui"
	"github.com/genui-adapter/genui-adapter/adapter/runs"
	"github.com/genui-adapter/genui-adapter/agui"
	"github.com/genui-adapter/genui-adapter/internal/takeover"
	"github.com/genui-adapter/genui-adapter/mcpapps"
)

// acceptedKey holds when a request arrived (a time.Time), in the echo
// context.
const acceptedKey = "genui.accepted"

// accepted is when c's request arrived (now if the request log did not
// note it).
func accepted(c *echo.Context) time.Time {
	if t, ok := c.Get(acceptedKey).(time.Time); ok {
		return t
	}
	return time.Now()
}

func requestLog(logger *slog.Logger) echo.MiddlewareFunc {
	return func(next echo.HandlerFunc) echo.HandlerFunc {
		return func(c *echo.Context) error {
			start := time.Now()
			c.Set(acceptedKey, start)
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

// readBody reads the request body up to max bytes within the body timeout
// (408 after it). With wantJSON the content type must be JSON.
func (s *Server) readBody(c *echo.Context, max int64, wantJSON bool) ([]byte, error) {
	r := c.Request()
	if wantJSON {
		ct := r.Header.Get("Content-Type")
		mt, _, err := mime.ParseMediaType(ct)
		if ct == "" || err != nil || !(mt == "application/json" || strings.HasSuffix(mt, "+json")) {
			return nil, &httpError{Status: http.StatusUnsupportedMediaType, Code: "unsupported_media_type",
				Msg: fmt.Sprintf("Content-Type must be application/json, got %q", ct)}
		}
	}
	if r.ContentLength > max {
		return nil, errTooLarge(max)
	}
	rc := http.NewResponseController(c.Response())
	_ = rc.SetReadDeadline(time.Now().Add(s.cfg.bodyTimeout()))
	body, err := io.ReadAll(http.MaxBytesReader(nil, r.Body, max))
	_ = rc.SetReadDeadline(time.Time{})
	if err != nil {
		var mbe *http.MaxBytesError
		switch {
		case errors.As(err, &mbe):
			return nil, errTooLarge(max)
		case errors.Is(err, os.ErrDeadlineExceeded):
			return nil, &httpError{Status: http.StatusRequestTimeout, Code: "body_timeout",
				Msg: fmt.Sprintf("the request body did not arrive within %s (limits.bodyTimeout)", s.cfg.bodyTimeout())}
		}
		return nil, errBadRequest("cannot read the request body", err)
	}
	c.Set(bodyReadKey, true)
	return body, nil
}

func errTooLarge(max int64) error {
	return &httpError{Status: http.StatusRequestEntityTooLarge, Code: "body_too_large",
		Msg: fmt.Sprintf("request body is larger than %d bytes", max)}
}

// handleRun starts a run: POST /agents/:agentId/run with a RunAgentInput,
// answered with an SSE stream of AG-UI events.
func handleRun(s *Server) echo.HandlerFunc {
	return func(c *echo.Context) error {
		if _, ok := s.agents[c.Param("agentId")]; !ok {
			return errAgentNotFound(c.Param("agentId"))
		}
		body, err := s.readBody(c, s.cfg.maxBody(), true)
		if err != nil {
			return err
		}
		return s.run(c, c.Param("agentId"), body)
	}
}

func errAgentNotFound(id string) error {
	return &httpError{Status: http.StatusNotFound, Code: "agent_not_found", Msg: fmt.Sprintf("no agent %q is configured; GET /agents lists them", id)}
}

// maxResumeIDs bounds the resumes that may reuse one run id.
const maxResumeIDs = 16

// isResume reports whether a run answers an interrupt: resume entries, or
// forwardedProps.command.resume (0.0.5x clients, CopilotKit's hooks).
func isResume(in *agui.RunAgentInput) bool {
	if len(in.Resume) > 0 {
		return true
	}
	var cmd struct {
		Resume json.RawMessage `json:"resume"`
	}
	return json.Unmarshal(in.ForwardedProp("command"), &cmd) == nil && len(cmd.Resume) > 0 && string(cmd.Resume) != "null"
}

// admit checks that a run of agent id may start (the agent exists, the
// server is not draining, the run-start limit) and parses body, its
// RunAgentInput. Every route that starts a run, direct or not, comes here.
func (s *Server) admit(c *echo.Context, id string, body []byte) (*agentEntry, *agui.RunAgentInput, error) {
	a, ok := s.agents[id]
	if !ok {
		return nil, nil, errAgentNotFound(id)
	}
	if s.draining.Load() {
		return nil, nil, &httpError{Status: http.StatusServiceUnavailable, Code: "draining", Msg: "the server is shutting down; retry on another instance"}
	}
	// After the body is read, so that the refusal keeps the connection:
	// a client that retries on a new one (and a TLS handshake) costs
	// more than a small body.
	if err := s.admitRun(c); err != nil {
		return nil, nil, err
	}
	in, err := agui.ParseRunAgentInput(body)
	if err != nil {
		var ie *agui.InputError
		if errors.As(err, &ie) {
			return nil, nil, &httpError{Status: http.StatusBadRequest, Code: "invalid_run_input", Msg: ie.Error(), Err: err}
		}
		return nil, nil, errBadRequest("invalid RunAgentInput", err)
	}
	return a, in, nil
}

// run starts a run of agent id with body (a RunAgentInput) and streams it.
func (s *Server) run(c *echo.Context, id string, body []byte) error {
	a, in, err := s.admit(c, id, body)
	if err != nil {
		return err
	}
	if _, err := a2ui.ClientVersion(in); err != nil {
		return &httpError{Status: http.StatusBadRequest, Code: "invalid_a2ui_capabilities", Msg: err.Error()}
	}
	principal := principalOf(c)
	stats := &runStats{m: s.metrics, agent: a.id, runID: in.RunID, logger: s.logger, accepted: accepted(c), debug: string(in.ForwardedProp("genuiDebug")) == "true"}
	req := runs.StartRequest{
		Principal: principal, AgentID: a.id, Agent: a.chain, Input: in,
		// Not cloned: nothing writes a request's headers once it is
		// being served, and the run (in this goroutine with the memory
		// log) only reads them.
		Header: c.Request().Header, Stats: stats,
		// A card's request answered by the adapter itself may come while
		// the chat's run holds the thread (CopilotKit sends it on the
		// chat's thread): registered, but outside the thread lock and
		// the history.
		// So may an action on an MCP server's surface that a run of the
		// thread waits for (ask_user's form answering it).
		Unlocked: s.pool.Minted(in.ForwardedProp(mcpapps.ProxiedRequestKey)) || mcpapps.ActionWaited(c.Request().Context(), in, principal, s.answers),
	}
	if s.authenticated() {
		req.UpstreamPrincipal = principal
	}
	req.Rejoinable, req.KeepHeaders = a.rejoinable, a.forward
	req.Span = s.tracing.Run(c.Request().Header, "genui.agent", a.id, "genui.thread_id", in.ThreadID, "genui.run_id", in.RunID)
	req.Tracer = s.tracing.Tracer()
	if stats.debug {
		req.Repairs = stats.takeRepairs
	}
	started, err := s.runs.Start(c.Request().Context(), req)
	// CopilotKit's useInterrupt resumes a legacy (on_interrupt) interrupt
	// with the interrupted run's own id: a resume of a used id runs as
	// "<id>.resume-N".
	for n, used := 1, in.RunID; errors.Is(err, runs.ErrRunExists) && isResume(in) && n <= maxResumeIDs; n++ {
		in.RunID = fmt.Sprintf("%s.resume-%d", used, n)
		stats.runID = in.RunID // no run has it yet: the id was refused
		started, err = s.runs.Start(c.Request().Context(), req)
	}
	if err != nil {
		return runsError(err, in.RunID)
	}
	s.stream(c, stats.startWritten, func(ctx context.Context, sink *sseSink) {
		if err := started.Serve(ctx, sink); err != nil {
			sink.fail(s, in.RunID, err)
		}
	})
	return nil
}

// rejoin gives the runs package what a run taken over from another
// instance needs of agent id: its chain, stats, tracer and span.
func (s *Server) rejoin(id string, in *agui.RunAgentInput, header http.Header) (runs.StartRequest, bool) {
	a := s.agents[id]
	if a == nil {
		return runs.StartRequest{}, false
	}
	stats := &runStats{m: s.metrics, agent: a.id, runID: in.RunID, logger: s.logger, accepted: time.Now(), debug: string(in.ForwardedProp("genuiDebug")) == "true"}
	req := runs.StartRequest{Agent: a.chain, Stats: stats, Tracer: s.tracing.Tracer(),
		Span: s.tracing.Run(header, "genui.agent", a.id, "genui.thread_id", in.ThreadID, "genui.run_id", in.RunID)}
	if stats.debug {
		req.Repairs = stats.takeRepairs
	}
	return req, true
}

// stream writes an SSE response with serve, whose ctx ends when the
// client leaves. With streamTakeover, an HTTP/1.1 response is taken over
// from net/http and written on the connection itself by a goroutine of
// its own (owned by s.streams, ending with serve): the request's
// goroutine and net/http's buffers go. Otherwise net/http writes it, in
// the request's goroutine. serve must not use c. first (if not nil) is
// called after the first flush of events.
func (s *Server) stream(c *echo.Context, first func(), serve func(ctx context.Context, sink *sseSink)) {
	s.streams.Add(1)
	if s.cfg.streamTakeover() {
		sseHeaders(c.Response().Header())
		if cs, err := s.conns.Take(c.Response(), c.Request(), s.cfg.writeTimeout()); err == nil {
			if r, _ := echo.UnwrapResponse(c.Response()); r != nil {
				r.Status, r.Committed = http.StatusOK, true // for the request log
			}
			go s.serveTaken(cs, first, serve)
			return
		}
	}
	defer s.streams.Done()
	enc := agui.NewEncoder(c.Response())
	sink := s.newSink(newResponseStream(c.Response()), enc, writePreamble(c.Response(), enc), first)
	defer sink.close()
	serve(c.Request().Context(), sink)
}

// serveTaken writes a stream on a connection taken over from net/http.
func (s *Server) serveTaken(cs *takeover.Stream, first func(), serve func(ctx context.Context, sink *sseSink)) {
	defer s.streams.Done()
	defer cs.Close()
	enc := agui.NewEncoder(cs)
	sink := s.newSink(cs, enc, writeOpening(enc, cs), first)
	defer sink.close()
	serve(cs.Context(), sink)
}

// Adopt lets hs serve again the connections of run streams taken over
// from it (streamTakeover) once their stream ends, as it would an idle
// keep-alive connection. Streams are taken over only from an adopting
// server. Call it before hs serves; hs stops serving them when it shuts
// down or the Server closes.
func (s *Server) Adopt(hs *http.Server) { s.conns.Adopt(hs) }
