package mcpapps

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/genui-adapter/genui-adapter/agui"
)

// proxiedRequest is forwardedProps.__proxiedMCPRequest.
type proxiedRequest struct {
	ServerHash string          `json:"serverHash"`
	ServerID   string          `json:"serverId"`
	Method     string          `json:"method"`
	Params     json.RawMessage `json:"params"`
}

// allowedMethods are the only methods a card may use.
var allowedMethods = []string{"tools/call", "resources/read", "resources/list", "ping", "notifications/message", "ui/log", "ui/download-file", AppResponseMethod, "ui/update-model-context", CardStateMethod}

// JSON-RPC error codes the adapter gives a card's refused request (the
// bridge answers the View with them): -32602 for invalid params (a log
// message too large, a download of a type not allowed or too large),
// -32000 for a card over its log rate, -32600 for a request the card may
// not make (a tool without "app" visibility, another server, a method not
// allowed, a capability refused). Other errors carry no code and the
// bridge uses -32603.
const (
	codeInvalidRequest = -32600
	codeInvalidParams  = -32602
	codeRateLimited    = -32000
)

// Minted reports whether a proxied request (forwardedProps.__proxiedMCPRequest)
// is one the adapter answers itself, without calling the agent: it
// carries a card capability (valid or not: an invalid one is refused), or
// names a server of this pool.
func (p *Pool) Minted(raw agui.JSON) bool {
	var req proxiedRequest
	if raw == nil || json.Unmarshal(raw, &req) != nil {
		return false
	}
	if IsCapability(req.ServerHash) {
		return true
	}
	if p == nil {
		return false
	}
	if req.ServerID != "" && p.Has(req.ServerID) {
		return true
	}
	_, ok := p.ByHash(req.ServerHash)
	return req.ServerHash != "" && ok
}

// answerProxied answers a card's request when it is the adapter's (ours
// false otherwise, and the request goes to the backend). The request must
// carry the card's capability (its serverHash), valid, unexpired and
// minted for this principal and thread; a plain server hash or id is
// accepted only with AcceptPlainServerHash. The card may only reach the
// server that produced it, only with the allowed methods, tools/call only
// for tools of that server whose visibility includes "app" (and that the
// capability names), resources/read only for ui:// resources. Every MCP
// request carries the caller (CallerMetaKey). A refusal is
// {"error":...,"code":-32600}, which the host bridge gives the View as a
// JSON-RPC error (the MCP Apps spec: a host rejects an app's call to a
// tool without "app" visibility); a refused tools/call also carries
// isError and content, for hosts that hand the reply to the View as the
// call's result. A tool that ran and failed is a CallToolResult with
// isError. Each decision is logged.
func answerProxied(ctx context.Context, p *Pool, cfg Config, run *agui.Request, raw agui.JSON, log *slog.Logger) (agui.JSON, bool) {
	in := run.Input
	var req proxiedRequest
	if err := json.Unmarshal(raw, &req); err != nil {
		return nil, false
	}
	refuse := func(server, msg string) (agui.JSON, bool) {
		log.Info("mcp: proxied request refused", "method", req.Method, "server", server, "reason", msg)
		if req.Method == "tools/call" {
			// Also a CallToolResult with isError, for hosts that pass the
			// reply to the View as the call's result (CopilotKit's
			// renderer); the adapter's bridge sees error and answers with
			// the JSON-RPC error.
			b, _ := json.Marshal(map[string]any{"error": msg, "code": codeInvalidRequest, "isError": true, "content": []any{map[string]any{"type": "text", "text": "refused: " + msg}}})
			return agui.JSON(b), true
		}
		return errCode(msg, codeInvalidRequest), true
	}
	principal := run.Principal
	var cp *Capability
	id := ""
	switch {
	case IsCapability(req.ServerHash):
		c, err := cfg.Caps.CheckFor(req.ServerHash, principal, in.ThreadID)
		if err != nil {
			return refuse(c.Server, err.Error())
		}
		if req.ServerID != "" && req.ServerID != c.Server {
			return refuse(c.Server, "serverId and the card's capability name different servers")
		}
		id, cp = c.Server, &c
	case req.ServerID != "" && p.Has(req.ServerID):
		id = req.ServerID
		if req.ServerHash != "" && p.Hash(id) != req.ServerHash {
			return refuse(id, "serverId and serverHash name different servers")
		}
	case req.ServerHash != "":
		var ok bool
		if id, ok = p.ByHash(req.ServerHash); !ok {
			return nil, false
		}
	default:
		return nil, false
	}
	if cp == nil && !cfg.AcceptPlainServerHash {
		return refuse(id, "a card's requests must carry the card's capability (the serverHash of its mcp-apps activity)")
	}
	if !slices.Contains(cfg.Servers, id) && !slices.Contains(cfg.ProxyOnly, id) {
		return refuse(id, fmt.Sprintf("server %q is not available to this agent", id))
	}
	ctx, cancel := context.WithTimeout(ctx, cfg.withDefaults().ProxiedRequestTimeout)
	defer cancel()
	caller := &Caller{Principal: principal, ThreadID: in.ThreadID, RunID: in.RunID, Source: "app", Header: run.Header}
	if cp != nil {
		caller.ToolCallID = cp.ToolCall
	}
	if !slices.Contains(allowedMethods, req.Method) {
		return refuse(id, fmt.Sprintf("method %q is not allowed (allowed: %v)", req.Method, allowedMethods))
	}
	var out any
	switch req.Method {
	case "tools/call":
		var params struct {
			Name      string         `json:"name"`
			Arguments map[string]any `json:"arguments"`
		}
		if json.Unmarshal(req.Params, &params) != nil || params.Name == "" {
			return refuse(id, "tools/call needs params {name, arguments}")
		}
		t, ok := p.Tool(id, params.Name)
		switch {
		case !ok:
			return refuse(id, fmt.Sprintf("server %q has no tool %q", id, params.Name))
		case !t.AppVisible():
			return refuse(id, fmt.Sprintf("tool %q is not callable from an app (visibility %v)", params.Name, t.Visibility))
		case cp != nil && !cp.allows(params.Name):
			return refuse(id, fmt.Sprintf("this card's capability does not include tool %q", params.Name))
		}
		if params.Arguments == nil {
			params.Arguments = map[string]any{}
		}
		res, err := p.Call(ctx, caller, id, params.Name, params.Arguments)
		if err != nil {
			log.Info("mcp: proxied tools/call failed", "tool", params.Name, "server", id, "err", err)
			b, _ := json.Marshal(&mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "tool call failed"}}, IsError: true})
			return agui.JSON(b), true
		}
		out = cleanResult(res)
	case "resources/read":
		var params struct {
			URI string `json:"uri"`
		}
		if json.Unmarshal(req.Params, &params) != nil || params.URI == "" {
			return refuse(id, "resources/read needs params {uri}")
		}
		if !strings.HasPrefix(params.URI, "ui://") {
			// Data resources are for the model, not the iframe.
			return refuse(id, fmt.Sprintf("a card may read only ui:// resources, not %q", params.URI))
		}
		r, err := p.UIResource(ctx, caller, id, params.URI)
		if err != nil {
			return refuse(id, err.Error())
		}
		out = r.ResourceResult()
	case "resources/list":
		res, err := p.ListResources(ctx, caller, id)
		if err != nil {
			return refuse(id, err.Error())
		}
		var ui []*mcp.Resource
		for _, r := range res.Resources {
			if strings.HasPrefix(r.URI, "ui://") {
				ui = append(ui, r)
			}
		}
		res.Resources = ui
		out = cleanResult(res)
	case "ping":
		if err := p.Ping(ctx, caller, id); err != nil {
			return refuse(id, err.Error())
		}
		out = map[string]any{}
	case "notifications/message", "ui/log":
		if err := cfg.ViewLogs.Log(log, cp, id, req.Params); err != nil {
			code := codeInvalidParams
			if errors.Is(err, ErrViewLogFlood) {
				code = codeRateLimited
			}
			// Not logged per message: a flood would flood the log.
			return errCode(err.Error(), code), true
		}
		return agui.JSON(`{}`), true
	case "ui/download-file":
		read := func(ctx context.Context, uri string) (string, []byte, string, error) {
			res, err := p.Read(ctx, caller, id, uri)
			if err != nil {
				return "", nil, "", err
			}
			if len(res.Contents) == 0 {
				return "", nil, "", fmt.Errorf("%s has no contents", uri)
			}
			c := res.Contents[0]
			return c.Text, c.Blob, c.MIMEType, nil
		}
		files, err := download(ctx, cfg.Downloads, req.Params, read)
		if err != nil {
			log.Info("mcp: download refused", "server", id, "card", cardOf(cp), "reason", err.Error())
			var bad downloadRefused
			if errors.As(err, &bad) {
				return errCode(err.Error(), codeInvalidParams), true
			}
			return errJSON(err.Error()), true
		}
		names := make([]string, len(files))
		for i, f := range files {
			names[i] = f.Name + " (" + f.MIMEType + ")"
		}
		log.Info("mcp: download allowed", "server", id, "card", cardOf(cp), "files", names)
		out = map[string]any{"contents": files}
	case "ui/update-model-context", CardStateMethod:
		res, err := cardState(ctx, cfg, cp, req.Method, req.Params)
		if err != nil {
			var bad cardStateRefused
			if errors.As(err, &bad) {
				return errCode(err.Error(), codeInvalidParams), true
			}
			return refuse(id, err.Error())
		}
		out = res
	case AppResponseMethod:
		// A qwen-agent-style View's mcp-app-response: the answer to the
		// card's own tool call, if its run still waits for it.
		var params struct {
			Payload json.RawMessage `json:"payload"`
		}
		if cp == nil || json.Unmarshal(req.Params, &params) != nil {
			return refuse(id, AppResponseMethod+" needs the card's capability and params {payload}")
		}
		if len(params.Payload) == 0 {
			params.Payload = json.RawMessage("null")
		}
		if err := cfg.Answers.Deliver(ctx, *caller, params.Payload); err != nil {
			out = map[string]any{"delivered": false, "reason": err.Error()}
		} else {
			out = map[string]any{"delivered": true}
		}
	}
	log.Info("mcp: proxied request allowed", "method", req.Method, "server", id)
	b, err := json.Marshal(out)
	if err != nil {
		return errJSON("cannot encode the result"), true
	}
	return agui.JSON(b), true
}

// cardOf names a card in the log ("" without a capability).
func cardOf(cp *Capability) string {
	if cp == nil {
		return ""
	}
	return cp.String()
}

// errCode is errJSON with the JSON-RPC error code the View gets.
func errCode(msg string, code int) agui.JSON {
	b, _ := json.Marshal(map[string]any{"error": msg, "code": code})
	return agui.JSON(b)
}

func errJSON(msg string) agui.JSON {
	b, _ := json.Marshal(map[string]string{"error": msg})
	return agui.JSON(b)
}
