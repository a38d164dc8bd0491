// Command genui-adapter relays AG-UI agent runs to chat frontends. Run it
// with no arguments for the built-in demo agent on 127.0.0.1:8080, or with
// --config genui-adapter.yaml. Subcommands: healthcheck (for images with no
// shell), check URL|FILE (the AG-UI conformance doctor) and a2ui validate
// FILE.
package main

import (
	"context"
	"fmt"
	"os"
)

func main() {
	if err := run(context.Background(), os.Args, os.Getenv, os.Stdout, os.Stderr); err != nil {
		if err != errViolations {
			fmt.Fprintln(os.Stderr, "genui-adapter:", err)
		}
		os.Exit(1)
	}
}
