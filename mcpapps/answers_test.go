package mcpapps_test

import (
	"context"
	"encoding/json"
	"errors"
	"testing"
	"time"

	"github.com/genui-adapter/genui-adapter/mcpapps"
)

// A question is open from Open on: a host that answers the moment the
// question is shown, before the run waits, is not refused; once closed,
// answers are refused, and only the call it names is answered.
func TestQuestionOpenBeforeShown(t *testing.T) {
	a := mcpapps.NewAnswers(nil)
	c := mcpapps.Caller{Principal: "alice", ThreadID: "t", ToolCallID: "q1"}
	ctx, cancel := context.WithTimeout(context.Background(), time.Second)
	defer cancel()
	q, err := a.Open(ctx, c, time.Second)
	if err != nil {
		t.Fatal(err)
	}
	if err := a.Deliver(ctx, mcpapps.Caller{Principal: "bob", ThreadID: "t", ToolCallID: "q1"}, json.RawMessage(`"x"`)); !errors.Is(err, mcpapps.ErrNoQuestion) {
		t.Fatalf("another principal's answer: %v", err)
	}
	if err := a.Deliver(ctx, c, json.RawMessage(`"B"`)); err != nil {
		t.Fatalf("an answer before Wait: %v", err)
	}
	if got, err := q.Wait(ctx); err != nil || string(got) != `"B"` {
		t.Fatalf("Wait = %s, %v", got, err)
	}
	q.Close(ctx)
	if err := a.Deliver(ctx, c, json.RawMessage(`"C"`)); !errors.Is(err, mcpapps.ErrNoQuestion) {
		t.Fatalf("an answer after Close: %v", err)
	}
}
