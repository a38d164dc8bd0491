package adapter

import (
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
	"github.com/genui-adapter/genui-adapter/mcpapps"
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
		body, err := readJSONBody(c.Request(), s.cfg.maxBody())
		if err != nil {
			return err
		}
		return s.run(c, c.Param("agentId"), body)
	}
}

// run starts a run of agent id with body (a RunAgentInput) and streams it.
func (s *Server) run(c *echo.Context, id string, body []byte) error {
	a, ok := s.agents[id]
	if !ok {
		return &httpError{Status: http.StatusNotFound, Code: "agent_not_found", Msg: fmt.Sprintf("no agent %q is configured; GET /agents lists them", id)}
	}
	if s.draining.Load() {
		return &httpError{Status: http.StatusServiceUnavailable, Code: "draining", Msg: "the server is shutting down; retry on another instance"}
	}
	principal, err := s.principal(c.Request())
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
	if in.ForwardedProp(mcpapps.ProxiedRequestKey) != nil {
		// A card's request: answered at once, outside the run log. It is
		// not part of the conversation (no history, no resume) and must
		// not collide with the thread's active chat run (CopilotKit sends
		// it on the chat's thread).
		return s.direct(c, a, in)
	}
	run, err := s.startRun(c.Request().Context(), a, in, principal, c.Request().Header)
	if err != nil {
		return err
	}
	return s.serveEvents(c, run, 0)
}

// direct streams a run straight to the client, without the run log.
func (s *Server) direct(c *echo.Context, a *agentEntry, in *agui.RunAgentInput) error {
	s.streams.Add(1)
	defer s.streams.Done()
	stats := &runStats{m: s.metrics, agent: a.id, logger: s.logger}
	ctx := agui.WithStats(agui.WithRequestHeaders(c.Request().Context(), c.Request().Header), stats)
	w := c.Response()
	enc := agui.NewEncoder(w)
	if !writePreamble(w, enc) {
		return nil
	}
	rc := http.NewResponseController(w)
	for ev, err := range a.chain.Run(ctx, in) {
		if err != nil {
			ev = agui.AsRunError(err)
		}
		if enc.Encode("", ev) != nil || rc.Flush() != nil {
			return nil
		}
		s.metrics.events.WithLabelValues(a.id).Inc()
	}
	return nil
}
