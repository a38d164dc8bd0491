package adapter

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"mime"
	"net/http"
	"slices"
	"strings"

	"github.com/labstack/echo/v5"

	"github.com/genui-adapter/genui-adapter/adapter/runlog"
	"github.com/genui-adapter/genui-adapter/adapter/runs"
	"github.com/genui-adapter/genui-adapter/agui"
)

// The CopilotRuntime v2 routes (docs/http-api.md, "CopilotKit"), so that a
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
		agents[id] = map[string]any{"name": id, "className": "GenUIAdapter", "description": ac.Description, "capabilities": s.capabilities(s.agents[id])}
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
		"suggestions":                   true,
		"audioFileTranscriptionEnabled": false,
		"openGenerativeUIEnabled":       false,
		"threadEndpoints":               cpkThreadEndpoints,
	}
}

func handleCPKInfo(s *Server) echo.HandlerFunc {
	return func(c *echo.Context) error { return c.JSON(http.StatusOK, s.cpkInfo()) }
}

func handleCPKRun(s *Server) echo.HandlerFunc { return cpkAgentRoute(s, s.run) }

// cpkAgentRoute is a CopilotKit route that starts a run of the agent its
// path names with the request body: 404 in the runtime's shape for an
// unknown agent before the body is read.
func cpkAgentRoute(s *Server, start func(c *echo.Context, id string, body []byte) error) echo.HandlerFunc {
	return func(c *echo.Context) error {
		if _, ok := s.agents[c.Param("agentId")]; !ok {
			return cpkError(errAgentNotFound(c.Param("agentId")))
		}
		body, err := s.readBody(c, s.cfg.maxBody(), true)
		if err != nil {
			return cpkError(err)
		}
		return cpkError(start(c, c.Param("agentId"), body))
	}
}

func handleCPKConnect(s *Server) echo.HandlerFunc {
	return func(c *echo.Context) error {
		body, err := s.readBody(c, s.cfg.maxBody(), true)
		if err != nil {
			return cpkError(err)
		}
		return s.connect(c, c.Param("agentId"), body)
	}
}

func handleCPKStop(s *Server) echo.HandlerFunc {
	return func(c *echo.Context) error {
		if err := s.checkOrigin(c.Request()); err != nil {
			return err
		}
		body, err := s.readBody(c, 64<<10, false)
		if err != nil {
			return err
		}
		return s.stop(c, c.Param("agentId"), c.Param("threadId"), body)
	}
}

// connect replays the principal's thread history as one synthetic run
// carrying a MESSAGES_SNAPSHOT (activity messages included, so surfaces
// and cards render again), then follows the thread's active run, if any,
// until its terminal event. A thread the run log does not hold comes from
// the agent's backend when it keeps its threads (threadKeeper); one the
// principal does not have anywhere gets an empty stream, like a new one.
func (s *Server) connect(c *echo.Context, agentID string, body []byte) error {
	if _, ok := s.agents[agentID]; !ok {
		return cpkError(&httpError{Status: http.StatusNotFound, Code: "agent_not_found", Msg: fmt.Sprintf("Agent '%s' does not exist", agentID)})
	}
	var req struct {
		ThreadID string `json:"threadId"`
	}
	if json.Unmarshal(body, &req) != nil || req.ThreadID == "" {
		return &httpError{Status: http.StatusBadRequest, Code: "Invalid request body", Msg: "threadId is required", Details: "threadId: required"}
	}
	if err := agui.CheckID("threadId", req.ThreadID); err != nil {
		return &httpError{Status: http.StatusBadRequest, Code: "Invalid request body", Msg: err.Error(), Details: err.Error()}
	}
	ctx := c.Request().Context()
	principal := principalOf(c)
	th, err := s.runs.Thread(ctx, principal, req.ThreadID)
	if err != nil {
		return err
	}
	if len(th.Messages) == 0 && th.ActiveRunID == "" {
		// Not in the run log (restart, retention): from the agent's
		// backend, if it keeps its threads (a LangGraph thread's state).
		th.Messages = s.keptMessages(ctx, principal, req.ThreadID, agentID)
	}
	var rd *runs.Reader
	if th.ActiveRunID != "" {
		if rd, err = s.runs.Attach(ctx, principal, th.ActiveRunID, 0); err != nil && !errors.Is(err, runs.ErrNotFound) {
			return runsError(err, th.ActiveRunID)
		}
	}
	var replay []runlog.Entry
	if len(th.Messages) > 0 {
		id := "replay-" + newInstanceID()
		for _, ev := range []agui.Event{
			&agui.RunStarted{ThreadID: req.ThreadID, RunID: id},
			&agui.MessagesSnapshot{Messages: s.renewCards(c, req.ThreadID, th.Messages)},
			&agui.RunFinished{ThreadID: req.ThreadID, RunID: id},
		} {
			b, err := ev.MarshalJSON()
			if err != nil {
				if rd != nil {
					rd.Close()
				}
				return err
			}
			replay = append(replay, runlog.Entry{Data: b})
		}
	}
	// Taken over from net/http as a run's stream is.
	s.stream(c, nil, func(ctx context.Context, sink *sseSink) {
		if replay != nil && sink.SendPlain(replay) != nil {
			if rd != nil {
				rd.Close()
			}
			return
		}
		if rd == nil {
			return
		}
		if err := runs.Follow(ctx, rd, sink); err != nil { // closes rd
			sink.fail(s, rd.Run().ID, err)
		}
	})
	return nil
}

// stop stops the principal's thread's active run: body {} or
// {"runId": "..."}.
func (s *Server) stop(c *echo.Context, agentID, threadID string, body []byte) error {
	if _, ok := s.agents[agentID]; !ok {
		return cpkError(&httpError{Status: http.StatusNotFound, Code: "agent_not_found", Msg: fmt.Sprintf("Agent '%s' does not exist", agentID)})
	}
	if err := agui.CheckID("threadId", threadID); err != nil {
		return &httpError{Status: http.StatusBadRequest, Code: "Invalid stop request", Msg: err.Error()}
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
	principal := principalOf(c)
	active, err := s.runs.Active(ctx, principal, threadID)
	if err != nil {
		return fmt.Errorf("run log: %w", err)
	}
	noRun := map[string]any{"stopped": false, "message": fmt.Sprintf("No active run for thread '%s'.", threadID)}
	if active == "" {
		return c.JSON(http.StatusOK, noRun)
	}
	if runID != "" && runID != active {
		return c.JSON(http.StatusOK, map[string]any{"stopped": false, "message": fmt.Sprintf("Run '%s' is not the active run for thread '%s'.", runID, threadID)})
	}
	_, stopped, err := s.runs.Cancel(ctx, principal, active, runs.ReasonAbort)
	if errors.Is(err, runs.ErrNotFound) || (err == nil && !stopped) {
		return c.JSON(http.StatusOK, noRun)
	}
	if err != nil {
		return err
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
		// Every method needs credentials when auth is configured: who is
		// calling is settled before the body is read.
		p, err := s.principal(c.Request())
		if err != nil {
			return err
		}
		c.Set(principalKey, p)
		raw, err := s.readBody(c, s.cfg.maxBody(), false)
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
		case "agent/suggest":
			return cpkError(s.suggest(c, params.AgentID, env.Body))
		case "agent/connect":
			return s.connect(c, params.AgentID, env.Body)
		case "agent/stop":
			if err := s.checkOrigin(c.Request()); err != nil {
				return err
			}
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
