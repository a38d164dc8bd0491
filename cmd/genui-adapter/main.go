// Command genui-adapter relays AG-UI agent runs to chat frontends. Run it
// with no arguments for the built-in demo agent on 127.0.0.1:8080, or with
// --config genui-adapter.yaml. Commands (genui-adapter help lists them):
// serve (the default), check URL|FILE (the AG-UI conformance doctor), a2ui
// validate FILE, healthcheck (for images with no shell), version and help.
package main

import (
	"context"
	"fmt"
	"os"
	"strings"
)

func main() {
	err := run(context.Background(), os.Args, os.Getenv, os.Stdout, os.Stderr)
	if err != nil && err != errViolations {
		// One line per error (config errors come joined).
		for line := range strings.SplitSeq(err.Error(), "\n") {
			fmt.Fprintln(os.Stderr, "genui-adapter:", line)
		}
	}
	os.Exit(exitCode(err))
}
