package mcpapps

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"time"

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
var allowedMethods = []string{"tools/call", "resources/read", "resources/list", "ping", "notifications/message"}

// Minted reports whether a proxied request (forwardedProps.__proxiedMCPRequest)
// names a server of this pool, so that the adapter answers it without
// calling the agent.
func (p *Pool) Minted(raw agui.JSON) bool {
	var req proxiedRequest
	if p == nil || json.Unmarshal(raw, &req) != nil {
		return false
	}
	if req.ServerID != "" && p.Has(req.ServerID) {
		return true
	}
	_, ok := p.ByHash(req.ServerHash)
	return req.ServerHash != "" && ok
}

// answerProxied answers a card's request when it names a server this pool
// minted (ours false otherwise, and the request goes to the backend). The
// card may only reach the server that produced it, only with the allowed
// methods, and tools/call only for tools of that server whose visibility
// includes "app". Refusals are CallToolResult{isError:true} for tools/call
// and {"error":...} otherwise; each decision is logged.
func answerProxied(ctx context.Context, p *Pool, cfg Config, raw agui.JSON, logf func(string, ...any)) (agui.JSON, bool) {
	var req proxiedRequest
	if err := json.Unmarshal(raw, &req); err != nil {
		return nil, false
	}
	id := ""
	switch {
	case req.ServerID != "" && p.Has(req.ServerID):
		id = req.ServerID
		if req.ServerHash != "" && p.Hash(id) != req.ServerHash {
			logf("mcp proxied %s refused: serverId %q does not match serverHash", req.Method, id)
			return errJSON("serverId and serverHash name different servers"), true
		}
	case req.ServerHash != "":
		var ok bool
		if id, ok = p.ByHash(req.ServerHash); !ok {
			return nil, false
		}
	default:
		return nil, false
	}
	if !slices.Contains(cfg.Servers, id) && !slices.Contains(cfg.ProxyOnly, id) {
		logf("mcp proxied %s refused: server %q is not bound to this agent", req.Method, id)
		return errJSON(fmt.Sprintf("server %q is not available to this agent", id)), true
	}
	ctx, cancel := context.WithTimeout(ctx, 55*time.Second) // under the App's 60 s request timeout
	defer cancel()
	refuse := func(msg string) (agui.JSON, bool) {
		logf("mcp proxied %s on %s refused: %s", req.Method, id, msg)
		if req.Method == "tools/call" {
			b, _ := json.Marshal(map[string]any{"content": []any{map[string]any{"type": "text", "text": "refused: " + msg}}, "isError": true})
			return agui.JSON(b), true
		}
		return errJSON(msg), true
	}
	if !slices.Contains(allowedMethods, req.Method) {
		return refuse(fmt.Sprintf("method %q is not allowed (allowed: %v)", req.Method, allowedMethods))
	}
	var out any
	switch req.Method {
	case "tools/call":
		var params struct {
			Name      string         `json:"name"`
			Arguments map[string]any `json:"arguments"`
		}
		if json.Unmarshal(req.Params, &params) != nil || params.Name == "" {
			return refuse("tools/call needs params {name, arguments}")
		}
		t, ok := p.Tool(id, params.Name)
		switch {
		case !ok:
			return refuse(fmt.Sprintf("server %q has no tool %q", id, params.Name))
		case !t.AppVisible():
			return refuse(fmt.Sprintf("tool %q is not callable from an app (visibility %v)", params.Name, t.Visibility))
		}
		if params.Arguments == nil {
			params.Arguments = map[string]any{}
		}
		res, err := p.Call(ctx, id, params.Name, params.Arguments)
		if err != nil {
			logf("mcp proxied tools/call %s on %s failed: %v", params.Name, id, err)
			b, _ := json.Marshal(&mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "tool call failed"}}, IsError: true})
			return agui.JSON(b), true
		}
		out = cleanResult(res)
	case "resources/read":
		var params struct {
			URI string `json:"uri"`
		}
		if json.Unmarshal(req.Params, &params) != nil || params.URI == "" {
			return refuse("resources/read needs params {uri}")
		}
		if len(params.URI) >= 5 && params.URI[:5] == "ui://" {
			r, err := p.UIResource(ctx, id, params.URI)
			if err != nil {
				return refuse(err.Error())
			}
			out = r.ResourceResult()
			break
		}
		res, err := p.Read(ctx, id, params.URI)
		if err != nil {
			return refuse(fmt.Sprintf("cannot read %s: %v", params.URI, err))
		}
		out = cleanResult(res)
	case "resources/list":
		res, err := p.ListResources(ctx, id)
		if err != nil {
			return refuse(err.Error())
		}
		out = cleanResult(res)
	case "ping":
		if err := p.Ping(ctx, id); err != nil {
			return refuse(err.Error())
		}
		out = map[string]any{}
	case "notifications/message":
		logf("mcp card log from %s: %s", id, req.Params)
		out = map[string]any{"success": true}
	}
	logf("mcp proxied %s on %s allowed", req.Method, id)
	b, err := json.Marshal(out)
	if err != nil {
		return errJSON("cannot encode the result"), true
	}
	return agui.JSON(b), true
}

func errJSON(msg string) agui.JSON {
	b, _ := json.Marshal(map[string]string{"error": msg})
	return agui.JSON(b)
}
