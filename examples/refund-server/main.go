// Command refund-server serves the example refund review MCP App (package
// refund) over stdio or streamable HTTP.
//
//	go run ./examples/refund-server              # stdio
//	go run ./examples/refund-server -http :3200  # streamable HTTP at /mcp
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"log/slog"
	"net/http"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/genui-adapter/genui-adapter/examples/refund-server/refund"
)

func main() {
	if err := run(os.Args, os.Stderr); err != nil {
		fmt.Fprintln(os.Stderr, "refund-server:", err)
		os.Exit(1)
	}
}

func run(args []string, stderr *os.File) error {
	fs := flag.NewFlagSet(args[0], flag.ContinueOnError)
	addr := fs.String("http", "", "serve streamable HTTP on this address (path /mcp) instead of stdio")
	if err := fs.Parse(args[1:]); err != nil {
		return err
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	s := refund.NewServer()
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
