// Command genui-adapter relays AG-UI agent runs to chat frontends. Run it
// with no arguments for the built-in demo agent on 127.0.0.1:8080, or with
// --config genui-adapter.yaml.
package main

import (
	"context"
	"fmt"
	"os"
)

func main() {
	if err := run(context.Background(), os.Args, os.Getenv, os.Stdout, os.Stderr); err != nil {
		fmt.Fprintln(os.Stderr, "genui-adapter:", err)
		os.Exit(1)
	}
}
