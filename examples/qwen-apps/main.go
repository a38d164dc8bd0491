// Command qwen-apps serves the example qwen-agent-style MCP App server
// (package qwenapps) over stdio.
//
//	go run ./examples/qwen-apps -docs https://example.com/docs
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"syscall"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/genui-adapter/genui-adapter/examples/qwen-apps/qwenapps"
)

func main() {
	if err := run(os.Args); err != nil {
		fmt.Fprintln(os.Stderr, "qwen-apps:", err)
		os.Exit(1)
	}
}

func run(args []string) error {
	fs := flag.NewFlagSet(args[0], flag.ContinueOnError)
	docs := fs.String("docs", "https://example.com/docs", "the page the docs resource (text/uri-list) names")
	if err := fs.Parse(args[1:]); err != nil {
		return err
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	return qwenapps.NewServer(*docs).Run(ctx, &mcp.StdioTransport{})
}
