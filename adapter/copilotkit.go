package adapter

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"mime"
	"net/http"
	"slices"
	"strings"

	"github.com/labstack/echo/v5"

	"github.com/genui-adapter/genui-adapter/agui"
)

// The CopilotRuntime v2 routes (copilotkit-runtime.md §5), so that a
// CopilotKit frontend with runtimeUrl pointed here needs no Node runtime.
// They run the same agent chains as /agents/{id}/run; only the error
// shapes are CopilotKit's.

// Version is the adapter version reported to CopilotKit.
const Version = "0.1.0"

// cpkError maps our pre-stream errors to the CopilotKit contract's bodies.
func cpkError(err error) error {
	var he *httpError
	if !errors.As(err, &he) {
		return err
	}
	switch he.Code {
	case "agent_not_found":
		return &httpError{Status: http.StatusNotFound, Code: "Agent not found", Msg: he.Msg}
	case "invalid_run_input", "bad_request":
		return &httpError{Status: http.StatusBadRequest, Code: "Invalid request body", Msg: he.Msg, Details: he.Msg}
	}
	return err
}

func (s *Server) cpkInfo() map[string]any {
	agents := map[string]any{}
	var a2uiAgents []string
	for _, id := range s.cfg.agentIDs() {
		ac := s.cfg.Agents[id]
		agents[id] = map[string]any{"name": id, "className": "GenUIAdapter", "description": ac.Description}
		render := ac.Render
		if len(render) == 0 {
			render = []string{"a2ui"}
		}
		if !ac.A2UI.Disabled && slices.Contains(render, "a2ui") {
			a2uiAgents = append(a2uiAgents, id)
		}
	}
	if a2uiAgents == nil {
		a2uiAgents = []string{}
	}
	// Never "mode" or "intelligence": either switches the client to a
	// WebSocket delegate.
	return map[string]any{
		"version":                       Version,
		"agents":                        agents,
		"a2ui":                          map[string]any{"enabled": len(a2uiAgents) > 0, "agents": a2uiAgents},
		"a2uiEnabled":                   len(a2uiAgents) > 0,
		"suggestions":                   false,
		"audioFileTranscriptionEnabled": false,
		"openGenerativeUIEnabled":       false,
		"threadEndpoints":               map[string]bool{"list": false, "inspect": false, "mutations": false, "realtimeMetadata": false},
	}
}

func handleCPKInfo(s *Server) echo.HandlerFunc {
	return func(c *echo.Context) error { return c.JSON(http.StatusOK, s.cpkInfo()) }
}

func handleCPKRun(s *Server) echo.HandlerFunc {
	return func(c *echo.Context) error {
		body, err := readJSONBody(c.Request(), s.cfg.maxBody())
		if err != nil {
			return cpkError(err)
		}
		return cpkError(s.run(c, c.Param("agentId"), body))
	}
}

func handleCPKConnect(s *Server) echo.HandlerFunc {
	return func(c *echo.Context) error {
		body, err := readJSONBody(c.Request(), s.cfg.maxBody())
		if err != nil {
			return cpkError(err)
		}
		return s.connect(c, c.Param("agentId"), body)
	}
}

func handleCPKStop(s *Server) echo.HandlerFunc {
	return func(c *echo.Context) error {
		body, err := readBody(c.Request(), 64<<10)
		if err != nil {
			return err
		}
		return s.stop(c, c.Param("agentId"), c.Param("threadId"), body)
	}
}

// connect replays the thread's history as one synthetic run carrying a
// MESSAGES_SNAPSHOT (activity messages included, so surfaces and cards
// render again), then follows the thread's active run, if any, until its
// terminal event. An unknown thread gets an empty stream.
func (s *Server) connect(c *echo.Context, agentID string, body []byte) error {
	if _, ok := s.agents[agentID]; !ok {
		return cpkError(&httpError{Status: http.StatusNotFound, Code: "agent_not_found", Msg: fmt.Sprintf("Agent '%s' does not exist", agentID)})
	}
	principal, err := s.principal(c.Request())
	if err != nil {
		return err
	}
	var req struct {
		ThreadID string `json:"threadId"`
	}
	if json.Unmarshal(body, &req) != nil || req.ThreadID == "" {
		return &httpError{Status: http.StatusBadRequest, Code: "Invalid request body", Msg: "threadId is required", Details: "threadId: required"}
	}
	ctx := c.Request().Context()
	hist, err := s.log.History(ctx, req.ThreadID)
	if err != nil {
		return fmt.Errorf("run log: %w", err)
	}
	var h storedHistory
	if hist != nil {
		if err := json.Unmarshal(hist, &h); err != nil {
			return err
		}
		if h.Owner != principal {
			return errForbidden("thread " + req.ThreadID)
		}
	}
	active, _ := s.log.Active(ctx, req.ThreadID)
	if active != "" {
		if run, err := s.log.Get(ctx, active); err != nil || run.Owner != principal {
			active = ""
		}
	}
	w := c.Response()
	enc := agui.NewEncoder(w)
	if len(h.Messages) > 0 {
		if !writePreamble(w, enc) {
			return nil
		}
		replay := "replay-" + newInstanceID()
		for _, ev := range []agui.Event{
			&agui.RunStarted{ThreadID: req.ThreadID, RunID: replay},
			&agui.MessagesSnapshot{Messages: h.Messages},
			&agui.RunFinished{ThreadID: req.ThreadID, RunID: replay},
		} {
			if enc.Encode("", ev) != nil {
				return nil
			}
		}
		_ = http.NewResponseController(w).Flush()
		if active == "" {
			return nil
		}
		run, err := s.log.Get(ctx, active)
		if err != nil {
			return nil
		}
		return s.followEvents(c, run, 0, enc)
	}
	if active == "" {
		// Nothing stored: an empty stream, not an error.
		writePreamble(w, enc)
		return nil
	}
	run, err := s.log.Get(ctx, active)
	if err != nil {
		writePreamble(w, enc)
		return nil
	}
	return s.serveEvents(c, run, 0)
}

// stop stops the thread's active run: body {} or {"runId": "..."}.
func (s *Server) stop(c *echo.Context, agentID, threadID string, body []byte) error {
	if _, ok := s.agents[agentID]; !ok {
		return cpkError(&httpError{Status: http.StatusNotFound, Code: "agent_not_found", Msg: fmt.Sprintf("Agent '%s' does not exist", agentID)})
	}
	principal, err := s.principal(c.Request())
	if err != nil {
		return err
	}
	var fields map[string]json.RawMessage
	if b := bytes.TrimSpace(body); len(b) > 0 {
		if json.Unmarshal(b, &fields) != nil {
			return &httpError{Status: http.StatusBadRequest, Code: "Invalid stop request", Msg: "the body must be {} or {\"runId\": \"...\"}"}
		}
	}
	var runID string
	for k, v := range fields {
		if k != "runId" {
			return &httpError{Status: http.StatusBadRequest, Code: "Invalid stop request", Msg: fmt.Sprintf("unknown key %q; the body is {} or {\"runId\": \"...\"}", k)}
		}
		if json.Unmarshal(v, &runID) != nil {
			return &httpError{Status: http.StatusBadRequest, Code: "Invalid runId", Msg: "runId must be a string"}
		}
	}
	ctx := c.Request().Context()
	active, err := s.log.Active(ctx, threadID)
	if err != nil {
		return fmt.Errorf("run log: %w", err)
	}
	if active == "" {
		return c.JSON(http.StatusOK, map[string]any{"stopped": false, "message": fmt.Sprintf("No active run for thread '%s'.", threadID)})
	}
	if runID != "" && runID != active {
		return c.JSON(http.StatusOK, map[string]any{"stopped": false, "message": fmt.Sprintf("Run '%s' is not the active run for thread '%s'.", runID, threadID)})
	}
	run, err := s.getRun(ctx, active, principal)
	if err != nil {
		return err
	}
	stopped, err := s.cancelRun(ctx, run, reasonAbort)
	if err != nil {
		return err
	}
	if !stopped {
		return c.JSON(http.StatusOK, map[string]any{"stopped": false, "message": fmt.Sprintf("No active run for thread '%s'.", threadID)})
	}
	return c.JSON(http.StatusOK, map[string]any{"stopped": true, "interrupt": map[string]string{"type": "RUN_ERROR", "message": "Run stopped by user", "code": "STOPPED"}})
}

// handleCPKSingle serves the single-route envelope {method, params, body}.
func handleCPKSingle(s *Server) echo.HandlerFunc {
	return func(c *echo.Context) error {
		if c.Request().Method != http.MethodPost {
			return &httpError{Status: http.StatusMethodNotAllowed, Code: "method_not_allowed", Msg: "the single-route endpoint takes POST", Allow: "POST"}
		}
		if mt, _, _ := mime.ParseMediaType(c.Request().Header.Get("Content-Type")); mt != "application/json" {
			return &httpError{Status: http.StatusUnsupportedMediaType, Code: "invalid_request", Msg: "Single-route endpoint expects JSON payloads"}
		}
		raw, err := readBody(c.Request(), s.cfg.maxBody())
		if err != nil {
			return err
		}
		var env struct {
			Method string          `json:"method"`
			Params json.RawMessage `json:"params"`
			Body   json.RawMessage `json:"body"`
		}
		if err := json.Unmarshal(raw, &env); err != nil {
			return &httpError{Status: http.StatusBadRequest, Code: "invalid_request", Msg: "the envelope must be {method, params, body}"}
		}
		var params struct {
			AgentID  string `json:"agentId"`
			ThreadID string `json:"threadId"`
		}
		_ = json.Unmarshal(env.Params, &params)
		switch env.Method {
		case "info":
			return c.JSON(http.StatusOK, s.cpkInfo())
		case "agent/run":
			return cpkError(s.run(c, params.AgentID, env.Body))
		case "agent/connect":
			return s.connect(c, params.AgentID, env.Body)
		case "agent/stop":
			return s.stop(c, params.AgentID, params.ThreadID, env.Body)
		}
		return &httpError{Status: http.StatusBadRequest, Code: "invalid_request", Msg: fmt.Sprintf("Unsupported method '%s'", env.Method)}
	}
}

func handleCPKNotFound() echo.HandlerFunc {
	return func(c *echo.Context) error {
		return &httpError{Status: http.StatusNotFound, Code: "Not found", Msg: "no CopilotKit route " + strings.TrimPrefix(c.Request().URL.Path, "")}
	}
}
