// Package refund is the example MCP App server of examples/refund-server:
// the approval pattern of a refund review card. review_refund (model
// visible) renders ui://refund/review.html; the card's buttons call
// decide_refund (app only), which re-reads the amount by id on the server,
// decides once however often it is clicked, and records who decided: the
// principal the host names in _meta["genui-adapter/caller"] (visibility is
// a host convention; authorization happens here, and a decision without
// an identity is refused). The card then tells the model the outcome with
// ui/update-model-context. refund_policy is model only.
//
// The refunds are example data: every conversation (the thread the host
// names in the caller metadata) has its own copy, so a decision in one
// thread leaves another thread's card undecided.
package refund

import (
	"context"
	_ "embed"
	"errors"
	"fmt"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

//go:embed review.html
var reviewHTML string

type refund struct {
	ID       string  `json:"id"`
	Customer string  `json:"customer"`
	Order    string  `json:"order"`
	Amount   float64 `json:"amount"`
	Currency string  `json:"currency"`
	Reason   string  `json:"reason"`
	Status   string  `json:"status"` // pending, approved, rejected
	// DecidedBy is the principal that decided, from the host's caller
	// metadata.
	DecidedBy string `json:"decidedBy,omitempty"`
}

// callerMetaKey is where the genui-adapter host says who a request is
// made for.
const callerMetaKey = "genui-adapter/caller"

// caller returns the principal a request is made for, or "".
func caller(meta mcp.Meta) string {
	c, _ := meta[callerMetaKey].(map[string]any)
	p, _ := c["principal"].(string)
	return p
}

// thread returns the thread a request is made for, or "".
func thread(meta mcp.Meta) string {
	c, _ := meta[callerMetaKey].(map[string]any)
	t, _ := c["threadId"].(string)
	return t
}

// maxThreads bounds the threads whose refunds the store keeps; the
// oldest thread's are dropped first.
const maxThreads = 1000

// store holds the refunds of every thread; decisions are made once.
type store struct {
	mu      sync.Mutex
	threads map[string]map[string]*refund
	order   []string // thread ids, oldest first
}

func newStore() *store { return &store{threads: map[string]map[string]*refund{}} }

// examples returns a fresh copy of the example refunds.
func examples() map[string]*refund {
	return map[string]*refund{
		"RF-1001": {ID: "RF-1001", Customer: "Ada Lovelace", Order: "SO-5531", Amount: 129.90, Currency: "EUR", Reason: "Damaged in transit", Status: "pending"},
		"RF-1002": {ID: "RF-1002", Customer: "Alan Turing", Order: "SO-5540", Amount: 2400, Currency: "GBP", Reason: "Duplicate charge", Status: "pending"},
	}
}

// refunds returns thread's refunds, created on first use; st.mu is held.
func (st *store) refunds(thread string) map[string]*refund {
	if r, ok := st.threads[thread]; ok {
		return r
	}
	if len(st.order) >= maxThreads {
		delete(st.threads, st.order[0])
		st.order = st.order[1:]
	}
	r := examples()
	st.threads[thread] = r
	st.order = append(st.order, thread)
	return r
}

// NewServer builds the refund review MCP App server with its own store.
func NewServer() *mcp.Server { return newServer(newStore()) }

func newServer(st *store) *mcp.Server {
	s := mcp.NewServer(&mcp.Implementation{Name: "refund-server", Version: "1.0.0"}, nil)
	const uri = "ui://refund/review.html"
	type reviewIn struct {
		RefundID string `json:"refundId" jsonschema:"the refund to review, e.g. RF-1001"`
	}
	mcp.AddTool(s, &mcp.Tool{Name: "review_refund", Description: "Show a refund request to a human reviewer, who approves or rejects it.",
		Meta: mcp.Meta{"ui": map[string]any{"resourceUri": uri}, "ui/resourceUri": uri}},
		func(ctx context.Context, req *mcp.CallToolRequest, in reviewIn) (*mcp.CallToolResult, *refund, error) {
			st.mu.Lock()
			defer st.mu.Unlock()
			r, ok := st.refunds(thread(req.Params.Meta))[in.RefundID]
			if !ok {
				return nil, nil, fmt.Errorf("no refund %q", in.RefundID)
			}
			cp := *r
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: fmt.Sprintf("Refund %s of %.2f %s for %s is %s; shown to the reviewer.", r.ID, r.Amount, r.Currency, r.Customer, r.Status)}}}, &cp, nil
		})
	type decideIn struct {
		RefundID string `json:"refundId"`
		Decision string `json:"decision" jsonschema:"approve or reject"`
	}
	type decideOut struct {
		Refund  refund `json:"refund"`
		Changed bool   `json:"changed"`
	}
	mcp.AddTool(s, &mcp.Tool{Name: "decide_refund", Description: "Record the reviewer's decision (called by the card only).",
		Meta: mcp.Meta{"ui": map[string]any{"visibility": []string{"app"}}}},
		func(ctx context.Context, req *mcp.CallToolRequest, in decideIn) (*mcp.CallToolResult, *decideOut, error) {
			if in.Decision != "approve" && in.Decision != "reject" {
				return nil, nil, errors.New(`decision must be "approve" or "reject"`)
			}
			who := caller(req.Params.Meta)
			if who == "" {
				return nil, nil, errors.New("refused: the request names no caller (_meta[\"genui-adapter/caller\"]); a refund decision needs an identity")
			}
			st.mu.Lock()
			defer st.mu.Unlock()
			r, ok := st.refunds(thread(req.Params.Meta))[in.RefundID]
			if !ok {
				return nil, nil, fmt.Errorf("no refund %q", in.RefundID)
			}
			// The amount is the server's, never the card's.
			out := &decideOut{}
			if r.Status == "pending" {
				r.Status = map[string]string{"approve": "approved", "reject": "rejected"}[in.Decision]
				r.DecidedBy = who
				out.Changed = true
			}
			out.Refund = *r
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: fmt.Sprintf("Refund %s is %s (%.2f %s) by %s.", r.ID, r.Status, r.Amount, r.Currency, r.DecidedBy)}}}, out, nil
		})
	mcp.AddTool(s, &mcp.Tool{Name: "refund_policy", Description: "The refund policy, for the model only.",
		Meta: mcp.Meta{"ui": map[string]any{"visibility": []string{"model"}}}},
		func(ctx context.Context, req *mcp.CallToolRequest, in struct{}) (*mcp.CallToolResult, any, error) {
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "Refunds over 1000 need a second approver."}}}, nil, nil
		})
	s.AddResource(&mcp.Resource{URI: uri, Name: "Refund review", MIMEType: "text/html;profile=mcp-app"},
		func(ctx context.Context, req *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
			return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{{URI: uri, MIMEType: "text/html;profile=mcp-app", Text: reviewHTML,
				Meta: mcp.Meta{"ui": map[string]any{"prefersBorder": true}}}}}, nil
		})
	return s
}
