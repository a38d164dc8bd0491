package dataview

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"iter"

	"github.com/genui-adapter/genui-adapter/agui"
	"github.com/genui-adapter/genui-adapter/mcpapps"
)

// Cards is the AG-UI middleware that shows structured results of the
// backend's own tools as MCP Apps cards of the data view (render
// "mcp-apps"), each with its capability (caps). It sits inside
// mcpapps.Middleware, so results of MCP tools (which bring their own UI)
// are not wrapped again. enabled decides per run; the pool must hold the
// genui server. A run stopped for a hand-over keeps the tool names of its
// calls (HandoverPart) for the rejoining run.
func Cards(p *mcpapps.Pool, caps *mcpapps.Capabilities, enabled func(in *agui.RunAgentInput) bool) agui.Middleware {
	return func(next agui.Agent) agui.Agent {
		return agui.AgentFunc(func(ctx context.Context, req *agui.Request) iter.Seq2[agui.Event, error] {
			in := req.Input
			if !enabled(in) {
				return next.Run(ctx, req)
			}
			return func(yield func(agui.Event, error) bool) {
				names := map[string]string{}
				h := req.Handover
				if h.Rejoining() {
					if err := h.Restore(HandoverPart, &names); err != nil {
						yield(nil, err)
						return
					}
					if names == nil {
						names = map[string]string{}
					}
				}
				defer func() {
					if h.Stopped() {
						h.KeepPartOf(HandoverPart, names)
					}
				}()
				defer h.Snapshot(HandoverPart, func() any { return names })()
				agui.PassThrough(next.Run(ctx, req), yield, func(ev agui.Event) bool {
					if !yield(ev, nil) {
						return false
					}
					switch e := ev.(type) {
					case *agui.ToolCallStart:
						names[e.ToolCallID] = e.ToolCallName
					case *agui.ToolCallResult:
						if card := cardFor(p, caps, req.Principal, in.ThreadID, e, names[e.ToolCallID]); card != nil {
							return yield(card, nil)
						}
					}
					return true
				})
			}
		})
	}
}

// HandoverPart is the name of Cards' hand-over part: the tool names of
// the run's calls, by id, for the results after the rejoin.
const HandoverPart = "dataview"

func cardFor(p *mcpapps.Pool, caps *mcpapps.Capabilities, principal, thread string, e *agui.ToolCallResult, tool string) agui.Event {
	b := bytes.TrimSpace([]byte(e.Content))
	if len(b) == 0 || (b[0] != '{' && b[0] != '[') || !json.Valid(b) {
		return nil
	}
	var data any
	_ = json.Unmarshal(b, &data)
	if m, ok := data.(map[string]any); ok {
		if _, isA2UI := m["a2ui_operations"]; isA2UI {
			return nil // the agent's own A2UI: the A2UI middleware shows it
		}
	}
	sc := map[string]any{"data": data}
	if tool != "" {
		sc["title"] = tool
	}
	var id [12]byte
	_, _ = rand.Read(id[:])
	return caps.CardEvent(p, "mcp-apps-"+hex.EncodeToString(id[:]), mcpapps.Card{
		Result:      map[string]any{"content": []any{map[string]any{"type": "text", "text": summary(data)}}, "structuredContent": sc},
		ResourceURI: ResourceURI, ServerID: ServerID, ToolInput: map[string]any{}, ToolCallID: e.ToolCallID,
	}, principal, thread)
}
