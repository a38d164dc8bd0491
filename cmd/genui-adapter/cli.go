package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"runtime"
	"runtime/debug"
	"strings"
)

// version and commit name the build. Release builds set them with
// -ldflags "-X main.version=v1.2.3 -X main.commit=0123abc" (make build and
// the Dockerfile pass VERSION and COMMIT); otherwise they come from the
// module's build information (go install pkg@v1.2.3; a build in a git
// checkout records its commit).
var version, commit string

// command is one subcommand, for help and for the error an unknown one
// gets.
type command struct {
	name, args, summary string
}

var commands = []command{
	{"serve", "[flags]", "run the service (the default command)"},
	{"check", "[flags] URL|FILE", "run an AG-UI endpoint or a recorded SSE stream through the\nnormaliser and list every repair; exit 1 if it breaks a client"},
	{"a2ui validate", "[-strict] [-config FILE] FILE", "validate A2UI messages (v0.8, v0.9, v0.9.1, v1.0) against the\nofficial schemas and the config's caps; exit 1 on errors"},
	{"healthcheck", "[flags]", "ask a running instance's /healthz (images with no shell);\nexit 0 when it answers 200"},
	{"version", "", "print the version and commit (also --version)"},
	{"help", "[COMMAND]", "print this help, or a command's (also -h, --help)"},
}

// commandNames lists the subcommands for an error message.
func commandNames() string {
	names := make([]string, len(commands))
	for i, c := range commands {
		names[i] = c.name
	}
	return strings.Join(names[:len(names)-1], ", ") + " and " + names[len(names)-1]
}

// usageError is a command line the program does not understand: exit 2.
type usageError struct{ msg string }

func (e *usageError) Error() string { return e.msg }

func usageErrorf(format string, args ...any) error {
	return &usageError{fmt.Sprintf(format, args...)}
}

// exitCode maps run's error to the process's exit status: 0 done, 1 a
// failure (config, listeners, a check or validation that found problems),
// 2 a usage error.
func exitCode(err error) int {
	var ue *usageError
	switch {
	case err == nil:
		return 0
	case errors.As(err, &ue):
		return 2
	}
	return 1
}

// parseFlags parses a command's flags. -h or --help prints the command's
// usage on stdout and reports helped; a bad flag is a usage error.
func parseFlags(fs *flag.FlagSet, args []string, stdout io.Writer) (helped bool, err error) {
	fs.SetOutput(io.Discard)
	err = fs.Parse(args)
	if errors.Is(err, flag.ErrHelp) {
		fs.SetOutput(stdout)
		fs.Usage()
		return true, nil
	}
	if err != nil {
		return false, usageErrorf("%s: %v (see genui-adapter help %s)", fs.Name(), err, fs.Name())
	}
	return false, nil
}

// printFlags lists a flag set's flags, as --name VALUE, the usage, and
// the environment variable that sets its default, if any.
func printFlags(w io.Writer, fs *flag.FlagSet, env map[string]string) {
	fs.VisitAll(func(f *flag.Flag) {
		typ, usage := flag.UnquoteUsage(f)
		name := "--" + f.Name
		if typ != "" {
			name += " " + typ
		}
		if d := f.DefValue; d != "" && d != "0" && d != "false" && !strings.Contains(usage, "(default") {
			usage += " (default " + d + ")"
		}
		if e := env[f.Name]; e != "" {
			usage += " [" + e + "]"
		}
		fmt.Fprintf(w, "  %-26s %s\n", name, usage)
	})
}

// printHelp is genui-adapter help: every command and serve's flags.
func printHelp(w io.Writer, serveFlags *flag.FlagSet) {
	fmt.Fprintf(w, `genui-adapter relays AG-UI agent runs to chat frontends (@ag-ui/client,
CopilotKit), turns tool results into A2UI surfaces and hosts MCP Apps cards.

Usage:
  genui-adapter [COMMAND] [flags]

Commands:
`)
	for _, c := range commands {
		usage, indent := c.name+" "+c.args, strings.Repeat(" ", 33)
		if len(usage) > 30 { // too long for the column: the summary goes below
			fmt.Fprintf(w, "  %s\n%s", usage, indent)
		} else {
			fmt.Fprintf(w, "  %-30s ", usage)
		}
		fmt.Fprintf(w, "%s\n", strings.ReplaceAll(c.summary, "\n", "\n"+indent))
	}
	fmt.Fprintf(w, "\nFlags of serve (flags win over the environment variables in brackets):\n")
	printFlags(w, serveFlags, serveEnv)
	fmt.Fprintf(w, `
With no config the built-in demo agent runs on http://127.0.0.1:8080 (the
playground is at /) and the MCP Apps sandbox origin on 127.0.0.1:8081.

Exit status: 0 success; 1 an error (a bad config, a port in use, a check or
validation that found problems); 2 a usage error (unknown command or flag).
Run genui-adapter help COMMAND for a command's flags.
`)
}

// versionText is what version prints: the version, the commit (and
// whether the tree had changes) and the Go toolchain.
func versionText(bi *debug.BuildInfo) string {
	v, rev, modified, when := version, commit, "", ""
	if bi != nil {
		if v == "" && bi.Main.Version != "" && bi.Main.Version != "(devel)" {
			v = bi.Main.Version
		}
		for _, s := range bi.Settings {
			switch s.Key {
			case "vcs.revision":
				if rev == "" {
					rev = s.Value
				}
			case "vcs.modified":
				if s.Value == "true" {
					modified = ", modified"
				}
			case "vcs.time":
				when = ", " + s.Value
			}
		}
	}
	if v == "" {
		v = "devel"
	}
	if rev == "" {
		rev = "unknown"
	}
	return fmt.Sprintf("genui-adapter %s (commit %s%s%s; %s %s/%s)", v, rev, modified, when, runtime.Version(), runtime.GOOS, runtime.GOARCH)
}

func buildInfo() *debug.BuildInfo {
	bi, _ := debug.ReadBuildInfo()
	return bi
}
