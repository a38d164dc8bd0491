package adapter

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/labstack/echo/v5"

	"github.com/genui-adapter/genui-adapter/adapter/runlog"
	"github.com/genui-adapter/genui-adapter/adapter/runs"
	"github.com/genui-adapter/genui-adapter/agui"
)

// CopilotRuntime's thread endpoints (docs/http-api.md, "CopilotKit
// threads"), in the routes and shapes of CopilotRuntime 1.75 and of what
// @copilotkit/core 1.74 sends: the list, a thread's messages, events and
// state, clear, and the mutations (rename, archive, unarchive, delete).
// Every one is the calling principal's: another principal's thread is
// answered exactly like an unknown one. The threads themselves are
// package runs'; this file only translates HTTP.

// cpkThreadRoutes registers the thread routes under base.
func (s *Server) cpkThreadRoutes(e *echo.Echo, base string, auth echo.MiddlewareFunc) {
	wd := s.answerDeadline
	e.GET(base+"/threads", handleCPKThreads(s), auth, wd)
	e.POST(base+"/threads/clear", handleCPKThreadsClear(s), auth, wd)
	e.GET(base+"/threads/:threadId/messages", handleCPKThreadMessages(s), auth, wd)
	e.GET(base+"/threads/:threadId/events", handleCPKThreadEvents(s), auth, wd)
	e.GET(base+"/threads/:threadId/state", handleCPKThreadState(s), auth, wd)
	e.POST(base+"/threads/:threadId/archive", handleCPKThreadArchive(s), auth, wd)
	e.PATCH(base+"/threads/:threadId", handleCPKThreadUpdate(s), auth, wd)
	e.DELETE(base+"/threads/:threadId", handleCPKThreadDelete(s), auth, wd)
	// Other methods on these paths: 405 with Allow, as CopilotRuntime.
	for path, allow := range map[string][]string{
		"/threads": {http.MethodGet}, "/threads/clear": {http.MethodPost},
		"/threads/:threadId/messages": {http.MethodGet}, "/threads/:threadId/events": {http.MethodGet},
		"/threads/:threadId/state": {http.MethodGet}, "/threads/:threadId/archive": {http.MethodPost},
		"/threads/:threadId": {http.MethodPatch, http.MethodDelete},
	} {
		for _, m := range []string{http.MethodGet, http.MethodPost, http.MethodPut, http.MethodPatch, http.MethodDelete} {
			if !slices.Contains(allow, m) {
				e.Add(m, base+path, handleCPKMethodNotAllowed(strings.Join(allow, ", ")))
			}
		}
	}
}

// answerDeadline bounds writing an answer: a client that has not taken
// it within limits.writeTimeout of the request loses its connection,
// rather than hold the handler and the answer (up to
// copilotkit.threads.maxEventBytes) for as long as it likes.
func (s *Server) answerDeadline(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c *echo.Context) error {
		_ = http.NewResponseController(c.Response()).SetWriteDeadline(time.Now().Add(s.cfg.writeTimeout()))
		return next(c)
	}
}

func handleCPKMethodNotAllowed(allow string) echo.HandlerFunc {
	return func(c *echo.Context) error {
		return &httpError{Status: http.StatusMethodNotAllowed, Code: "Method not allowed", Msg: "this route takes " + allow, Allow: allow}
	}
}

// cpkThreadEndpoints is /info's threadEndpoints: what the routes above
// serve. No realtime metadata: there is no thread subscription.
var cpkThreadEndpoints = map[string]bool{"list": true, "inspect": true, "mutations": true, "realtimeMetadata": false}

// cpkThread is CopilotKit's thread record (ThreadSummary).
type cpkThread struct {
	ID             string  `json:"id"`
	Name           *string `json:"name"`
	AgentID        string  `json:"agentId"`
	OrganizationID string  `json:"organizationId"`
	CreatedByID    string  `json:"createdById"`
	Archived       bool    `json:"archived"`
	CreatedAt      string  `json:"createdAt"`
	UpdatedAt      string  `json:"updatedAt"`
	LastRunAt      string  `json:"lastRunAt"`
}

// isoTime is JavaScript's Date.toISOString.
func isoTime(t time.Time) string { return t.UTC().Format("2006-01-02T15:04:05.000Z") }

func toCPKThread(t runlog.ThreadInfo) cpkThread {
	out := cpkThread{ID: t.ID, AgentID: t.AgentID, Archived: t.Archived,
		CreatedAt: isoTime(t.Created), UpdatedAt: isoTime(t.Updated), LastRunAt: isoTime(t.LastRun)}
	if t.Title != "" {
		out.Name = &t.Title
	}
	return out
}

// threadsError maps the thread errors of package runs to answers.
func threadsError(err error, threadID string) error {
	switch {
	case err == nil:
		return nil
	case errors.Is(err, runs.ErrNotFound):
		return &httpError{Status: http.StatusNotFound, Code: "thread_not_found", Msg: fmt.Sprintf("thread %q does not exist or has expired", threadID)}
	case errors.Is(err, runs.ErrBadCursor):
		return &httpError{Status: http.StatusBadRequest, Code: "invalid_cursor", Msg: "cursor must be a nextCursor a list returned"}
	case errors.Is(err, runs.ErrTitleTooLong):
		return &httpError{Status: http.StatusBadRequest, Code: "title_too_long", Msg: "name is too long: " + errors.Unwrap(err).Error() + " (copilotkit.threads.maxTitleBytes)"}
	case errors.Is(err, runs.ErrThreadBusy):
		return &httpError{Status: http.StatusConflict, Code: "thread_busy", Msg: fmt.Sprintf("thread %q has an active run; stop it first", threadID)}
	}
	return err
}

// threadParam is the route's thread id, checked.
func threadParam(c *echo.Context) (string, error) {
	id := c.Param("threadId")
	if err := agui.CheckID("threadId", id); err != nil {
		return "", &httpError{Status: http.StatusBadRequest, Code: "invalid_thread_id", Msg: err.Error()}
	}
	return id, nil
}

// handleCPKThreads lists the principal's threads, newest first:
// GET /threads?agentId=&limit=&cursor=&includeArchived=true →
// {threads, nextCursor}.
func handleCPKThreads(s *Server) echo.HandlerFunc {
	return func(c *echo.Context) error {
		q := c.Request().URL.Query()
		tq := runs.ThreadQuery{AgentID: q.Get("agentId"), Cursor: q.Get("cursor"), IncludeArchived: q.Get("includeArchived") == "true"}
		if tq.AgentID != "" {
			if err := agui.CheckID("agentId", tq.AgentID); err != nil {
				return &httpError{Status: http.StatusBadRequest, Code: "invalid_agent_id", Msg: err.Error()}
			}
		}
		if l := q.Get("limit"); l != "" {
			n, err := strconv.Atoi(l)
			if err != nil || n < 1 {
				return &httpError{Status: http.StatusBadRequest, Code: "invalid_limit", Msg: fmt.Sprintf("limit must be a positive integer, got %q", l)}
			}
			tq.Limit = n
		}
		page, err := s.runs.Threads(c.Request().Context(), principalOf(c), tq)
		if err != nil {
			return threadsError(err, "")
		}
		out := struct {
			Threads    []cpkThread `json:"threads"`
			NextCursor *string     `json:"nextCursor"`
		}{Threads: make([]cpkThread, 0, len(page.Threads))}
		for _, t := range page.Threads {
			out.Threads = append(out.Threads, toCPKThread(t))
		}
		if page.NextCursor != "" {
			out.NextCursor = &page.NextCursor
		}
		return c.JSON(http.StatusOK, out)
	}
}

// handleCPKThreadsClear deletes the principal's threads (not those with
// an active run): POST /threads/clear → 204.
func handleCPKThreadsClear(s *Server) echo.HandlerFunc {
	return func(c *echo.Context) error {
		if err := s.checkOrigin(c.Request()); err != nil {
			return err
		}
		if _, err := s.runs.ClearThreads(c.Request().Context(), principalOf(c)); err != nil {
			return err
		}
		return c.NoContent(http.StatusNoContent)
	}
}

// cpkThreadMessage is CopilotKit's ThreadMessage.
type cpkThreadMessage struct {
	ID           string        `json:"id"`
	Role         agui.Role     `json:"role"`
	Content      agui.Content  `json:"content,omitzero"`
	ActivityType string        `json:"activityType,omitempty"`
	ToolCalls    []cpkToolCall `json:"toolCalls,omitempty"`
	ToolCallID   string        `json:"toolCallId,omitempty"`
}

type cpkToolCall struct {
	ID   string `json:"id"`
	Name string `json:"name"`
	Args string `json:"args"`
}

// handleCPKThreadMessages: GET /threads/{id}/messages → {messages}, the
// thread's stored history (surfaces and cards included).
func handleCPKThreadMessages(s *Server) echo.HandlerFunc {
	return func(c *echo.Context) error {
		id, err := threadParam(c)
		if err != nil {
			return err
		}
		msgs, err := s.runs.ThreadMessages(c.Request().Context(), principalOf(c), id)
		if err != nil {
			return threadsError(err, id)
		}
		out := make([]cpkThreadMessage, 0, len(msgs))
		for _, m := range msgs {
			cm := cpkThreadMessage{ID: m.ID, Role: m.Role, Content: m.Content, ActivityType: m.ActivityType, ToolCallID: m.ToolCallID}
			for _, tc := range m.ToolCalls {
				cm.ToolCalls = append(cm.ToolCalls, cpkToolCall{ID: tc.ID, Name: tc.Function.Name, Args: tc.Function.Arguments})
			}
			out = append(out, cm)
		}
		return c.JSON(http.StatusOK, map[string]any{"messages": out})
	}
}

// handleCPKThreadEvents: GET /threads/{id}/events → {events} (and
// truncated: true when some were left out).
func handleCPKThreadEvents(s *Server) echo.HandlerFunc {
	return func(c *echo.Context) error {
		id, err := threadParam(c)
		if err != nil {
			return err
		}
		evs, truncated, err := s.runs.ThreadEvents(c.Request().Context(), principalOf(c), id)
		if err != nil {
			return threadsError(err, id)
		}
		out := map[string]any{"events": evs}
		if truncated {
			out["truncated"] = true
		}
		return c.JSON(http.StatusOK, out)
	}
}

// handleCPKThreadState: GET /threads/{id}/state → {state} (null when the
// thread has none).
func handleCPKThreadState(s *Server) echo.HandlerFunc {
	return func(c *echo.Context) error {
		id, err := threadParam(c)
		if err != nil {
			return err
		}
		st, err := s.runs.ThreadState(c.Request().Context(), principalOf(c), id)
		if err != nil {
			return threadsError(err, id)
		}
		if st == nil {
			st = json.RawMessage("null")
		}
		return c.JSON(http.StatusOK, map[string]json.RawMessage{"state": st})
	}
}

// threadMutation is the body of a mutation: {agentId, name?, archived?}
// (the paid runtime's; agentId is required as there).
type threadMutation struct {
	AgentID  string          `json:"agentId"`
	Name     json.RawMessage `json:"name"`
	Archived *bool           `json:"archived"`
}

// readMutation checks the origin and reads a mutation's body and the
// route's thread id.
func (s *Server) readMutation(c *echo.Context) (string, threadMutation, error) {
	var m threadMutation
	if err := s.checkOrigin(c.Request()); err != nil {
		return "", m, err
	}
	id, err := threadParam(c)
	if err != nil {
		return "", m, err
	}
	title := s.cfg.CopilotKit.Threads.MaxTitleBytes
	if title == 0 {
		title = runs.DefaultMaxTitleBytes
	}
	body, err := s.readBody(c, max(64<<10, int64(title)*6+4096), false)
	if err != nil {
		return "", m, err
	}
	if err := json.Unmarshal(body, &m); err != nil {
		return "", m, &httpError{Status: http.StatusBadRequest, Code: "invalid_request_body", Msg: "the body must be a JSON object {agentId, name?, archived?}: " + err.Error()}
	}
	if err := agui.CheckID("agentId", m.AgentID); err != nil {
		return "", m, &httpError{Status: http.StatusBadRequest, Code: "invalid_agent_id", Msg: "a valid agentId is required: " + err.Error()}
	}
	return id, m, nil
}

// handleCPKThreadUpdate renames, archives or unarchives:
// PATCH /threads/{id} {agentId, name?, archived?} → the thread record.
// A null or empty name removes the name.
func handleCPKThreadUpdate(s *Server) echo.HandlerFunc {
	return func(c *echo.Context) error {
		id, m, err := s.readMutation(c)
		if err != nil {
			return err
		}
		u := runs.ThreadUpdate{Archived: m.Archived}
		if len(m.Name) > 0 {
			var name string
			if !bytes.Equal(m.Name, []byte("null")) {
				if err := json.Unmarshal(m.Name, &name); err != nil {
					return &httpError{Status: http.StatusBadRequest, Code: "invalid_name", Msg: "name must be a string or null"}
				}
			}
			u.Title = &name
		}
		t, err := s.runs.UpdateThread(c.Request().Context(), principalOf(c), id, u)
		if err != nil {
			return threadsError(err, id)
		}
		return c.JSON(http.StatusOK, toCPKThread(t))
	}
}

// handleCPKThreadArchive: POST /threads/{id}/archive {agentId} →
// {threadId, archived: true}.
func handleCPKThreadArchive(s *Server) echo.HandlerFunc {
	return func(c *echo.Context) error {
		id, _, err := s.readMutation(c)
		if err != nil {
			return err
		}
		yes := true
		if _, err := s.runs.UpdateThread(c.Request().Context(), principalOf(c), id, runs.ThreadUpdate{Archived: &yes}); err != nil {
			return threadsError(err, id)
		}
		return c.JSON(http.StatusOK, map[string]any{"threadId": id, "archived": true})
	}
}

// handleCPKThreadDelete: DELETE /threads/{id} {agentId} →
// {threadId, deleted: true}; the thread's history and runs go with it.
func handleCPKThreadDelete(s *Server) echo.HandlerFunc {
	return func(c *echo.Context) error {
		id, _, err := s.readMutation(c)
		if err != nil {
			return err
		}
		if err := s.runs.DeleteThread(c.Request().Context(), principalOf(c), id); err != nil {
			return threadsError(err, id)
		}
		return c.JSON(http.StatusOK, map[string]any{"threadId": id, "deleted": true})
	}
}
