package mcpapps_test

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/genui-adapter/genui-adapter/agui"
	"github.com/genui-adapter/genui-adapter/mcpapps"
	"github.com/genui-adapter/genui-adapter/mcpapps/mcpappstest"
)

// Config.MaxToolArgumentBytes: a call whose arguments are larger is not
// made; its result is an error.
func TestMaxToolArgumentBytes(t *testing.T) {
	fx := mcpappstest.New()
	p := newPool(t, mcpapps.ServerConfig{ID: "fx", Transport: inMemory(fx)})
	for _, tt := range []struct {
		max     int
		refused bool
	}{{0, false}, {16, false}, {10, true}} {
		t.Run(fmt.Sprint(tt.max), func(t *testing.T) {
			be := &script{round: func(in *agui.RunAgentInput, n int) []agui.Event {
				if n > 0 {
					return []agui.Event{&agui.RunFinished{ThreadID: in.ThreadID, RunID: in.RunID}}
				}
				return append(callEvents([2]string{"c1", "secret"}), &agui.RunFinished{ThreadID: in.ThreadID, RunID: in.RunID}) // 16 bytes of arguments
			}}
			evs := runAll(t, mcpapps.Middleware(p, mcpapps.Config{Servers: []string{"fx"}, MaxToolArgumentBytes: tt.max})(be), &agui.RunAgentInput{ThreadID: "t", RunID: "r"})
			var res *agui.ToolCallResult
			for _, e := range evs {
				if r, ok := e.(*agui.ToolCallResult); ok {
					res = r
				}
			}
			if res == nil {
				t.Fatal("no tool result")
			}
			if refused := strings.Contains(res.Content, "arguments are larger than"); refused != tt.refused {
				t.Errorf("result %q, refused %v, want %v", res.Content, refused, tt.refused)
			}
		})
	}
}

// Config.MaxRoundBytes bounds the transcript a round keeps for the
// follow-up run.
func TestMaxRoundBytes(t *testing.T) {
	fx := mcpappstest.New()
	p := newPool(t, mcpapps.ServerConfig{ID: "fx", Transport: inMemory(fx)})
	text := strings.Repeat("x", 10000)
	for _, tt := range []struct {
		max      int
		min, cap int // bytes of the follow-up transcript
	}{{0, len(text), 1 << 30}, {1000, 0, 1000}} {
		t.Run(fmt.Sprint(tt.max), func(t *testing.T) {
			be := &script{round: func(in *agui.RunAgentInput, n int) []agui.Event {
				if n > 0 {
					return []agui.Event{&agui.RunFinished{ThreadID: in.ThreadID, RunID: in.RunID}}
				}
				evs := []agui.Event{&agui.TextMessageStart{MessageID: "m", Role: "assistant"}}
				for range 10 {
					evs = append(evs, &agui.TextMessageContent{MessageID: "m", Delta: text[:1000]})
				}
				evs = append(evs, &agui.TextMessageEnd{MessageID: "m"})
				return append(append(evs, callEvents([2]string{"c1", "secret"})...), &agui.RunFinished{ThreadID: in.ThreadID, RunID: in.RunID})
			}}
			runAll(t, mcpapps.Middleware(p, mcpapps.Config{Servers: []string{"fx"}, MaxRoundBytes: tt.max})(be), &agui.RunAgentInput{ThreadID: "t", RunID: "r"})
			if len(be.inputs) != 2 {
				t.Fatalf("%d rounds, want 2", len(be.inputs))
			}
			size := 0
			for _, m := range be.inputs[1].Messages {
				size += len(m.Content.String())
			}
			if size < tt.min || size > tt.cap {
				t.Errorf("the follow-up run got %d bytes of text, want %d to %d", size, tt.min, tt.cap)
			}
		})
	}
}

// Config.ProxiedRequestTimeout bounds a card's request: a tool call that
// does not answer ends with an error when it passes.
func TestProxiedRequestTimeout(t *testing.T) {
	fx := mcpappstest.New()
	fx.Barrier = make(chan struct{}) // never closed: "slow" waits
	p := newPool(t, mcpapps.ServerConfig{ID: "fx", Transport: inMemory(fx)})
	be := &script{round: func(in *agui.RunAgentInput, n int) []agui.Event {
		return []agui.Event{&agui.RunFinished{ThreadID: in.ThreadID, RunID: in.RunID}}
	}}
	mw := mcpapps.Middleware(p, mcpapps.Config{Servers: []string{"fx"}, AcceptPlainServerHash: true, ProxiedRequestTimeout: 200 * time.Millisecond})
	fp, _ := json.Marshal(map[string]any{mcpapps.ProxiedRequestKey: map[string]any{"serverId": "fx", "method": "tools/call", "params": map[string]any{"name": "slow"}}})
	start := time.Now()
	done := make(chan []agui.Event, 1)
	go func() {
		done <- runAll(t, mw(be), &agui.RunAgentInput{ThreadID: "t", RunID: "r", ForwardedProps: agui.JSON(fp)})
	}()
	select {
	case evs := <-done:
		if took := time.Since(start); took < 200*time.Millisecond {
			t.Errorf("answered after %v, before the timeout", took)
		}
		b, _ := json.Marshal(evs[len(evs)-1])
		if strings.Contains(string(b), "slow done") {
			t.Errorf("the call answered: %s", b)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the request was not ended by proxiedRequestTimeout")
	}
}
