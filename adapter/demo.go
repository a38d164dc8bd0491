package adapter

import (
	"context"
	"encoding/json"
	"iter"
	"strings"
	"time"

	"github.com/genui-adapter/genui-adapter/agui"
)

// demoAgent is the built-in scripted agent: no LLM, deterministic output
// for a given input, paced by delay so that streaming is visible.
type demoAgent struct {
	delay time.Duration
}

// shipments is the demo's structured tool result.
var shipments = []map[string]any{
	{"id": "SH-1001", "destination": "Lyon, FR", "carrier": "DHL", "status": "in_transit", "weightKg": 12.5, "eta": "2026-12-02"},
	{"id": "SH-1002", "destination": "Austin, US", "carrier": "UPS", "status": "delivered", "weightKg": 3.2, "eta": "2026-11-27"},
	{"id": "SH-1003", "destination": "Osaka, JP", "carrier": "FedEx", "status": "in_transit", "weightKg": 48, "eta": "2026-12-05"},
}

func lastUserText(in *agui.RunAgentInput) string {
	for i := len(in.Messages) - 1; i >= 0; i-- {
		if in.Messages[i].Role == agui.RoleUser {
			return in.Messages[i].Content.String()
		}
	}
	return ""
}

// Run implements agui.Agent.
func (d *demoAgent) Run(ctx context.Context, in *agui.RunAgentInput) iter.Seq2[agui.Event, error] {
	return func(yield func(agui.Event, error) bool) {
		wait := func() bool {
			if d.delay <= 0 {
				return ctx.Err() == nil
			}
			t := time.NewTimer(d.delay)
			defer t.Stop()
			select {
			case <-ctx.Done():
				return false
			case <-t.C:
				return true
			}
		}
		emit := func(ev agui.Event) bool { return wait() && yield(ev, nil) }
		text := func(id, s string) bool {
			if !emit(&agui.TextMessageStart{MessageID: id, Role: "assistant"}) {
				return false
			}
			for _, w := range strings.SplitAfter(s, " ") {
				if !emit(&agui.TextMessageContent{MessageID: id, Delta: w}) {
					return false
				}
			}
			return emit(&agui.TextMessageEnd{MessageID: id})
		}
		p := in.RunID + "-"
		user := strings.TrimSpace(lastUserText(in))
		if user == "" {
			user = "(nothing)"
		}
		callID := p + "call-1"
		args, _ := json.Marshal(map[string]string{"status": "any"})
		result, _ := json.Marshal(shipments)
		state, _ := json.Marshal(map[string]any{"scenario": "table", "shipmentCount": len(shipments), "lastUserMessage": user})
		_ = yield(&agui.RunStarted{ThreadID: in.ThreadID, RunID: in.RunID}, nil) &&
			emit(&agui.StepStarted{StepName: "respond"}) &&
			text(p+"msg-1", "Hi! I am the genui-adapter demo agent. You said: \""+user+"\". Let me look up the shipments.") &&
			emit(&agui.ToolCallStart{ToolCallID: callID, ToolCallName: "list_shipments", ParentMessageID: p + "msg-1"}) &&
			emit(&agui.ToolCallArgs{ToolCallID: callID, Delta: string(args)}) &&
			emit(&agui.ToolCallEnd{ToolCallID: callID}) &&
			emit(&agui.ToolCallResult{MessageID: p + "result-1", ToolCallID: callID, Content: string(result), Role: "tool"}) &&
			emit(&agui.StateSnapshot{Snapshot: agui.JSON(state)}) &&
			text(p+"msg-2", "There are 3 shipments; 2 are in transit.") &&
			emit(&agui.StepFinished{StepName: "respond"}) &&
			emit(&agui.RunFinished{ThreadID: in.ThreadID, RunID: in.RunID})
	}
}
