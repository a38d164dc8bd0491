package mcpapps_test

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
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

// An answer is capped before it goes anywhere: relayed, it crosses Redis
// as an escaped JSON string (up to six times its size), and an answer
// of a request body's size (8 MiB) could overflow the listening
// instance's pub/sub output buffer, which Redis answers by dropping that
// instance's subscription, and every answer in flight to it. The question
// stays open for an answer that fits.
func TestAnswerSizeCapped(t *testing.T) {
	a := mcpapps.NewAnswers(nil)
	c := mcpapps.Caller{Principal: "alice", ThreadID: "t", ToolCallID: "q1"}
	ctx, cancel := context.WithTimeout(context.Background(), time.Second)
	defer cancel()
	q, err := a.Open(ctx, c, time.Second)
	if err != nil {
		t.Fatal(err)
	}
	defer q.Close(ctx)
	huge, _ := json.Marshal(strings.Repeat("<", mcpapps.MaxAnswerBytes))
	if err := a.Deliver(ctx, c, huge); !errors.Is(err, mcpapps.ErrAnswerTooLarge) {
		t.Fatalf("a %d-byte answer: %v, want ErrAnswerTooLarge", len(huge), err)
	}
	if err := a.Deliver(ctx, c, json.RawMessage(`"fits"`)); err != nil {
		t.Fatalf("an answer that fits, after the refused one: %v", err)
	}
	if got, err := q.Wait(ctx); err != nil || string(got) != `"fits"` {
		t.Fatalf("Wait = %s, %v", got, err)
	}
	// A configured cap (toolkit.maxAnswerBytes) wins over the default.
	a.MaxBytes = 8
	q2, err := a.Open(ctx, c, time.Second)
	if err != nil {
		t.Fatal(err)
	}
	defer q2.Close(ctx)
	if err := a.Deliver(ctx, c, json.RawMessage(`"too long"`)); !errors.Is(err, mcpapps.ErrAnswerTooLarge) {
		t.Fatalf("a 10-byte answer under an 8-byte cap: %v, want ErrAnswerTooLarge", err)
	}
}
