package refund

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/genui-adapter/genui-adapter/mcpapps"
)

// TestRefundServer drives the example through the adapter's pool: the
// catalogue, the card resource, an idempotent decision and the server's
// own amount.
func TestRefundServer(t *testing.T) {
	pool := newPool(t)
	ctx := context.Background()
	review, _ := pool.Tool("refunds", "review_refund")
	decide, _ := pool.Tool("refunds", "decide_refund")
	policy, _ := pool.Tool("refunds", "refund_policy")
	if review.ResourceURI != "ui://refund/review.html" || !review.ModelVisible() || decide.ModelVisible() || !decide.AppVisible() || policy.AppVisible() {
		t.Fatalf("catalogue: %+v %+v %+v", review, decide, policy)
	}
	if r, err := pool.UIResource(ctx, nil, "refunds", review.ResourceURI); err != nil || len(r.HTML) < 500 {
		t.Fatalf("resource: %v", err)
	}
	var out struct {
		Refund struct {
			Status string
			Amount float64
		}
		Changed bool
	}
	// No identity, no decision.
	if res, err := pool.Call(ctx, nil, "refunds", "decide_refund", map[string]any{"refundId": "RF-1002", "decision": "approve"}); err != nil || !res.IsError {
		t.Fatalf("a decision without a caller was accepted: %v %+v", err, res)
	}
	caller := &mcpapps.Caller{Principal: "alice", ThreadID: "t", Source: "app"}
	// A card cannot smuggle its own amount in.
	if res, err := pool.Call(ctx, caller, "refunds", "decide_refund", map[string]any{"refundId": "RF-1002", "decision": "approve", "amount": 1}); err != nil || !res.IsError {
		t.Fatalf("an amount from the card was accepted: %v %+v", err, res)
	}
	var decided struct {
		Refund struct{ DecidedBy string }
	}
	for i, want := range []bool{true, false} {
		if i == 1 {
			caller = &mcpapps.Caller{Principal: "bob", ThreadID: "t", Source: "app"}
		}
		res, err := pool.Call(ctx, caller, "refunds", "decide_refund", map[string]any{"refundId": "RF-1002", "decision": "approve"})
		if err != nil || res.IsError {
			t.Fatalf("decide: %v %v", err, res)
		}
		b, _ := json.Marshal(res.StructuredContent)
		json.Unmarshal(b, &out)
		json.Unmarshal(b, &decided)
		if out.Changed != want || out.Refund.Status != "approved" || out.Refund.Amount != 2400 || decided.Refund.DecidedBy != "alice" {
			t.Errorf("click %d: %+v decided by %q", i+1, out, decided.Refund.DecidedBy)
		}
	}
}

// TestRefundPerThread: a decision in one thread leaves the same refund
// pending in another thread (a new conversation's card is undecided).
func TestRefundPerThread(t *testing.T) {
	pool := newPool(t)
	ctx := context.Background()
	status := func(thread, tool string, args map[string]any) string {
		t.Helper()
		res, err := pool.Call(ctx, &mcpapps.Caller{Principal: "alice", ThreadID: thread, Source: "app"}, "refunds", tool, args)
		if err != nil || res.IsError {
			t.Fatalf("%s in %s: %v %+v", tool, thread, err, res)
		}
		var out struct {
			Status string
			Refund struct{ Status string }
		}
		b, _ := json.Marshal(res.StructuredContent)
		json.Unmarshal(b, &out)
		return out.Status + out.Refund.Status
	}
	if got := status("a", "decide_refund", map[string]any{"refundId": "RF-1001", "decision": "approve"}); got != "approved" {
		t.Fatalf("decision in thread a: %q", got)
	}
	if got := status("a", "review_refund", map[string]any{"refundId": "RF-1001"}); got != "approved" {
		t.Errorf("thread a after its decision: %q", got)
	}
	if got := status("b", "review_refund", map[string]any{"refundId": "RF-1001"}); got != "pending" {
		t.Errorf("thread b sees thread a's decision: %q", got)
	}
}

// newPool connects a pool to a fresh refund server (in memory), closed
// when the test ends.
func newPool(t *testing.T) *mcpapps.Pool {
	t.Helper()
	s := newServer(newStore())
	pool, err := mcpapps.NewPool([]mcpapps.ServerConfig{{ID: "refunds", Transport: func() mcp.Transport {
		st, ct := mcp.NewInMemoryTransports()
		go s.Connect(context.Background(), st, nil)
		return ct
	}}}, mcpapps.PoolOptions{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { pool.Close() })
	if err := pool.WaitReady(context.Background()); err != nil {
		t.Fatal(err)
	}
	return pool
}
