package mcpapps

import (
	"context"
	"crypto/hmac"
	"encoding/json"
	"fmt"
	"log/slog"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/genui-adapter/genui-adapter/agui"
)

// A2UIMIMEType is the MIME type of A2UI messages an MCP server returns in
// a tool result (the draft A2UI-over-MCP-Apps extension), to hosts that
// declare it.
const A2UIMIMEType = "application/a2ui+json"

// surfacePrefix starts the surface ids the adapter gives an MCP server's
// surfaces: "mcp~<server>~<tool call>~<its own id>~<signature>". The
// signature binds server, tool call and id to the principal and thread
// the surface was shown to, so that a user action on it reaches that
// server, for that principal and thread only.
const surfacePrefix = "mcp~"

func (c *Capabilities) surfaceSig(server, toolCall, id, principal, thread string) string {
	return c.sign([]byte("a2ui-surface\x00" + server + "\x00" + toolCall + "\x00" + id + "\x00" + principal + "\x00" + thread))[:22]
}

// SurfaceID names a server's surface for principal on thread.
func (c *Capabilities) SurfaceID(server, toolCall, id, principal, thread string) string {
	return surfacePrefix + server + "~" + toolCall + "~" + id + "~" + c.surfaceSig(server, toolCall, id, principal, thread)
}

// SurfaceToolCall is the server and tool call a surface id names, not
// verified (CheckSurface verifies).
func SurfaceToolCall(sid string) (server, toolCall string, ok bool) {
	parts := strings.Split(strings.TrimPrefix(sid, surfacePrefix), "~")
	if !IsServerSurface(sid) || len(parts) != 4 {
		return "", "", false
	}
	return parts[0], parts[1], true
}

// ActionWaited reports whether a run carries a user action on an MCP
// server's surface whose tool call a run of this principal waits for (the
// action then goes alongside that run, not after it).
func ActionWaited(ctx context.Context, in *agui.RunAgentInput, principal string, a *Answers) bool {
	act, ok := actionOf(in)
	if !ok {
		return false
	}
	_, tc, ok := SurfaceToolCall(act.SurfaceID)
	return ok && a.Waiting(ctx, Caller{Principal: principal, ThreadID: in.ThreadID, ToolCallID: tc})
}

// IsServerSurface reports whether a surface id is one SurfaceID made.
func IsServerSurface(id string) bool { return strings.HasPrefix(id, surfacePrefix) }

// CheckSurface verifies a surface id for principal on thread and returns
// the server and tool call it names.
func (c *Capabilities) CheckSurface(sid, principal, thread string) (server, toolCall string, err error) {
	parts := strings.Split(strings.TrimPrefix(sid, surfacePrefix), "~")
	if !IsServerSurface(sid) || len(parts) != 4 {
		return "", "", fmt.Errorf("%q is not a surface of an MCP server", sid)
	}
	want := c.surfaceSig(parts[0], parts[1], parts[2], principal, thread)
	if !hmac.Equal([]byte(want), []byte(parts[3])) {
		return "", "", ErrForeignCapability
	}
	return parts[0], parts[1], nil
}

// a2uiMessages are the A2UI messages a result carries in embedded
// application/a2ui+json resources (one message or an array each).
func a2uiMessages(r *mcp.CallToolResult) ([]map[string]any, bool) {
	var out []map[string]any
	found := false
	for _, c := range r.Content {
		e, ok := c.(*mcp.EmbeddedResource)
		if !ok || e.Resource == nil || e.Resource.MIMEType != A2UIMIMEType {
			continue
		}
		found = true
		text := e.Resource.Text
		if text == "" {
			text = string(e.Resource.Blob)
		}
		var list []map[string]any
		if json.Unmarshal([]byte(text), &list) != nil {
			var one map[string]any
			if json.Unmarshal([]byte(text), &one) != nil {
				continue
			}
			list = []map[string]any{one}
		}
		out = append(out, list...)
	}
	return out, found
}

// ownSurfaces renames every surface id of msgs with SurfaceID, and returns
// them as raw messages.
func (c *Capabilities) ownSurfaces(msgs []map[string]any, server, toolCall, principal, thread string) []json.RawMessage {
	var out []json.RawMessage
	for _, m := range msgs {
		for k, v := range m {
			body, ok := v.(map[string]any)
			if !ok || k == "version" {
				continue
			}
			if id, ok := body["surfaceId"].(string); ok {
				body["surfaceId"] = c.SurfaceID(server, toolCall, id, principal, thread)
			}
		}
		b, _ := json.Marshal(m)
		out = append(out, b)
	}
	return out
}

// surfaceMessageID is the activity message of the surfaces of a tool
// call's result (the id the A2UI middleware gives a result's surface).
func surfaceMessageID(toolCall string) string { return "a2ui-surface-" + toolCall }

// serverSurface is the activity showing a result's A2UI messages.
func (c *Capabilities) serverSurface(msgs []map[string]any, server, toolCall, principal, thread string) agui.Event {
	ops := c.ownSurfaces(msgs, server, toolCall, principal, thread)
	content, _ := json.Marshal(map[string]any{"a2ui_operations": ops})
	t := true
	return &agui.ActivitySnapshot{MessageID: surfaceMessageID(toolCall), ActivityType: "a2ui-surface", Content: agui.JSON(content), Replace: &t}
}

// surfaceAction is forwardedProps.a2uiAction.userAction on a server's
// surface.
type surfaceAction struct {
	Name      string         `json:"name"`
	SurfaceID string         `json:"surfaceId"`
	Context   map[string]any `json:"context"`
}

// ServerSurfaceAction reports whether a run carries a user action on an
// MCP server's surface (which that server answers, not the agent).
func ServerSurfaceAction(in *agui.RunAgentInput) bool {
	a, ok := actionOf(in)
	return ok && IsServerSurface(a.SurfaceID)
}

func actionOf(in *agui.RunAgentInput) (surfaceAction, bool) {
	var w struct {
		UserAction surfaceAction `json:"userAction"`
	}
	raw := in.ForwardedProp("a2uiAction")
	if raw == nil || json.Unmarshal(raw, &w) != nil || w.UserAction.Name == "" {
		return surfaceAction{}, false
	}
	return w.UserAction, true
}

// answerSurfaceAction calls the tool an action names on the server whose
// surface it came from (a tool the server lets apps call), and appends the
// A2UI messages it returns to that surface's activity. The refusal or
// failure is a RUN_ERROR naming why.
// forward is the user message the tool's result hands the agent
// (ForwardKey), if any.
func answerSurfaceAction(ctx context.Context, p *Pool, cfg Config, req *agui.Request, log *slog.Logger) (evs []agui.Event, forward string) {
	in := req.Input
	a, _ := actionOf(in)
	fail := func(code, msg string) ([]agui.Event, string) {
		log.Info("mcp: surface action refused", "action", a.Name, "reason", msg)
		return []agui.Event{&agui.RunError{Code: code, Message: msg}}, ""
	}
	server, toolCall, err := cfg.Caps.CheckSurface(a.SurfaceID, req.Principal, in.ThreadID)
	if err != nil {
		return fail("surface_action_refused", "this surface's actions are not yours to send: "+err.Error())
	}
	t, ok := p.Tool(server, a.Name)
	switch {
	case !ok:
		return fail("surface_action_refused", fmt.Sprintf("server %q has no tool %q", server, a.Name))
	case !t.AppVisible():
		return fail("surface_action_refused", fmt.Sprintf("tool %q is not callable from a surface (visibility %v)", a.Name, t.Visibility))
	}
	args := a.Context
	if args == nil {
		args = map[string]any{}
	}
	caller := &Caller{Principal: req.Principal, ThreadID: in.ThreadID, RunID: in.RunID, ToolCallID: toolCall, Source: "app", Renders: []string{"a2ui"}, Header: req.Header}
	res, err := p.Call(ctx, caller, server, a.Name, args)
	if err != nil {
		return fail("surface_action_failed", fmt.Sprintf("tool %q failed: %v", a.Name, err))
	}
	msgs, _ := a2uiMessages(res)
	ops := cfg.Caps.ownSurfaces(msgs, server, toolCall, req.Principal, in.ThreadID)
	var out []agui.Event
	if len(ops) > 0 {
		var patch []map[string]any
		for _, op := range ops {
			patch = append(patch, map[string]any{"op": "add", "path": "/a2ui_operations/-", "value": op})
		}
		b, _ := json.Marshal(patch)
		out = append(out, &agui.ActivityDelta{MessageID: surfaceMessageID(toolCall), ActivityType: "a2ui-surface", Patch: agui.JSON(b)})
	}
	if res.IsError {
		out = append(out, &agui.RunError{Code: "surface_action_failed", Message: resultText(res)})
		return out, ""
	}
	forward, _ = res.Meta[ForwardKey].(string)
	return out, forward
}
