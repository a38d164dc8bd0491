// Command refund-server is an example MCP App server (go-sdk) showing the
// approval pattern: a model-visible review_refund tool renders a refund
// review card (ui://refund/review.html); the card's Approve/Reject buttons
// call the app-only decide_refund tool, which re-reads the amount by id on
// the server (the card's copy is never trusted) and is idempotent, so
// repeated clicks decide once. refund_policy is model-only.
//
//	go run ./examples/refund-server            # stdio
//	go run ./examples/refund-server -http :3200  # streamable HTTP at /mcp
package main

import (
	"context"
	_ "embed"
	"errors"
	"flag"
	"fmt"
	"log/slog"
	"net/http"
	"os"
	"os/signal"
	"sync"
	"syscall"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

//go:embed review.html
var reviewHTML string

func main() {
	if err := run(os.Args, os.Stderr); err != nil {
		fmt.Fprintln(os.Stderr, "refund-server:", err)
		os.Exit(1)
	}
}

type refund struct {
	ID       string  `json:"id"`
	Customer string  `json:"customer"`
	Order    string  `json:"order"`
	Amount   float64 `json:"amount"`
	Currency string  `json:"currency"`
	Reason   string  `json:"reason"`
	Status   string  `json:"status"` // pending, approved, rejected
}

// store holds the refunds; decisions are made once.
type store struct {
	mu      sync.Mutex
	refunds map[string]*refund
}

func newStore() *store {
	return &store{refunds: map[string]*refund{
		"RF-1001": {ID: "RF-1001", Customer: "Ada Lovelace", Order: "SO-5531", Amount: 129.90, Currency: "EUR", Reason: "Damaged in transit", Status: "pending"},
		"RF-1002": {ID: "RF-1002", Customer: "Alan Turing", Order: "SO-5540", Amount: 2400, Currency: "GBP", Reason: "Duplicate charge", Status: "pending"},
	}}
}

// NewServer builds the MCP server (exported for tests and in-process use).
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
			r, ok := st.refunds[in.RefundID]
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
			st.mu.Lock()
			defer st.mu.Unlock()
			r, ok := st.refunds[in.RefundID]
			if !ok {
				return nil, nil, fmt.Errorf("no refund %q", in.RefundID)
			}
			// The amount is the server's, never the card's.
			out := &decideOut{}
			if r.Status == "pending" {
				r.Status = map[string]string{"approve": "approved", "reject": "rejected"}[in.Decision]
				out.Changed = true
			}
			out.Refund = *r
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: fmt.Sprintf("Refund %s is %s (%.2f %s).", r.ID, r.Status, r.Amount, r.Currency)}}}, out, nil
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

func run(args []string, stderr *os.File) error {
	fs := flag.NewFlagSet(args[0], flag.ContinueOnError)
	addr := fs.String("http", "", "serve streamable HTTP on this address (path /mcp) instead of stdio")
	if err := fs.Parse(args[1:]); err != nil {
		return err
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	s := newServer(newStore())
	if *addr == "" {
		return s.Run(ctx, &mcp.StdioTransport{})
	}
	mux := http.NewServeMux()
	mux.Handle("/mcp", mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return s }, nil))
	srv := &http.Server{Addr: *addr, Handler: mux, ReadHeaderTimeout: 10 * time.Second}
	go func() {
		<-ctx.Done()
		sctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		srv.Shutdown(sctx)
	}()
	slog.New(slog.NewTextHandler(stderr, nil)).Info("refund-server listening", "url", "http://"+*addr+"/mcp")
	if err := srv.ListenAndServe(); !errors.Is(err, http.ErrServerClosed) {
		return err
	}
	return nil
}
