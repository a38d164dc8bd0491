package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/netip"
	"os"
	"os/signal"
	"runtime/debug"
	"slices"
	"strings"
	"syscall"
	"time"

	"github.com/genui-adapter/genui-adapter/adapter"
)

// run is the whole program: it dispatches to a command (serve when none
// is named). Its error decides the exit status (exitCode).
func run(ctx context.Context, args []string, getenv func(string) string, stdout, stderr io.Writer) error {
	name, rest := "serve", args[1:]
	if len(rest) > 0 && !strings.HasPrefix(rest[0], "-") {
		name, rest = rest[0], rest[1:]
	}
	switch name {
	case "serve":
		return serve(ctx, rest, getenv, stdout, stderr)
	case "healthcheck":
		return healthcheck(ctx, rest, getenv, stdout, stderr)
	case "check":
		return check(ctx, rest, stdout, stderr)
	case "a2ui":
		if len(rest) > 0 && rest[0] == "validate" {
			return a2uiValidate(rest[1:], getenv, stdout, stderr)
		}
		if len(rest) > 0 && (rest[0] == "-h" || rest[0] == "-help" || rest[0] == "--help") {
			return a2uiValidate(rest[:1], getenv, stdout, stderr)
		}
		return usageErrorf("usage: genui-adapter a2ui validate [-strict] [-config FILE] FILE")
	case "version":
		if len(rest) > 0 {
			return usageErrorf("version takes no arguments")
		}
		fmt.Fprintln(stdout, versionText(buildInfo()))
		return nil
	case "help":
		switch {
		case len(rest) == 0 || rest[0] == "help" || rest[0] == "version" || rest[0] == "serve":
			printHelp(stdout, serveFlags(getenv))
			return nil
		case rest[0] == "check" || rest[0] == "healthcheck":
			return run(ctx, []string{args[0], rest[0], "-h"}, getenv, stdout, stderr)
		case rest[0] == "a2ui":
			return a2uiValidate([]string{"-h"}, getenv, stdout, stderr)
		}
		return usageErrorf("help: unknown command %q; the commands are %s", rest[0], commandNames())
	}
	return usageErrorf("unknown command %q; the commands are %s (see genui-adapter help)", name, commandNames())
}

// serveEnv names the environment variable that gives each serve flag its
// default.
var serveEnv = map[string]string{
	"config":         "GENUI_CONFIG",
	"listen":         "GENUI_LISTEN",
	"sandbox-listen": "GENUI_SANDBOX_LISTEN",
	"sandbox-origin": "GENUI_SANDBOX_ORIGIN",
	"log-level":      "GENUI_LOG_LEVEL",
}

// serveOptions are serve's flags.
type serveOptions struct {
	config, listen, sandboxListen, sandboxOrigin, logLevel string
	version                                                bool
}

func serveFlags(getenv func(string) string) *flag.FlagSet {
	fs, _ := newServeFlags(getenv)
	return fs
}

func newServeFlags(getenv func(string) string) (*flag.FlagSet, *serveOptions) {
	var o serveOptions
	fs := flag.NewFlagSet("serve", flag.ContinueOnError)
	fs.StringVar(&o.config, "config", getenv("GENUI_CONFIG"), "path to the YAML `file` (default: the built-in demo agent)")
	fs.StringVar(&o.listen, "listen", getenv("GENUI_LISTEN"), "listen `address` of the API and playground, overrides the config's listen (default 127.0.0.1:8080)")
	fs.StringVar(&o.sandboxListen, "sandbox-listen", getenv("GENUI_SANDBOX_LISTEN"), "listen `address` of the MCP Apps sandbox origin, overrides sandboxListen (default 127.0.0.1:8081)")
	fs.StringVar(&o.sandboxOrigin, "sandbox-origin", getenv("GENUI_SANDBOX_ORIGIN"), "the sandbox's public `origin` (behind a proxy), overrides sandboxOrigin")
	fs.StringVar(&o.logLevel, "log-level", getenv("GENUI_LOG_LEVEL"), "log `level`: debug, info, warn or error (default info)")
	fs.BoolVar(&o.version, "version", false, "print the version and commit, and exit")
	return fs, &o
}

// serve runs the service: flags, config, listeners, serving and graceful
// shutdown on SIGINT/SIGTERM or when ctx is cancelled. Environment
// variables (serveEnv) give defaults that flags override.
func serve(ctx context.Context, args []string, getenv func(string) string, stdout, stderr io.Writer) error {
	ctx, stop := signal.NotifyContext(ctx, os.Interrupt, syscall.SIGTERM)
	defer stop()

	fs, opts := newServeFlags(getenv)
	fs.Usage = func() { printHelp(fs.Output(), serveFlags(getenv)) }
	if helped, err := parseFlags(fs, args, stdout); helped || err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return usageErrorf("unexpected argument %q; the commands are %s (see genui-adapter help)", fs.Arg(0), commandNames())
	}
	if opts.version {
		fmt.Fprintln(stdout, versionText(buildInfo()))
		return nil
	}

	cfg := adapter.DefaultConfig()
	source := "built-in demo config"
	if opts.config != "" {
		var err error
		if cfg, err = adapter.LoadConfig(opts.config, getenv); err != nil {
			return err
		}
		source = opts.config
	}
	if opts.listen != "" {
		cfg.Listen = opts.listen
	}
	if opts.logLevel != "" {
		cfg.LogLevel = opts.logLevel
	}
	if opts.sandboxListen != "" {
		cfg.SandboxListen = opts.sandboxListen
	}
	if opts.sandboxOrigin != "" {
		cfg.SandboxOrigin = opts.sandboxOrigin
	}
	// The flags may have changed the config: check it again before
	// anything changes, and the listeners as they now are.
	if err := cfg.Validate(); err != nil {
		return err
	}
	if sameListener(cfg.Listen, cfg.SandboxAddr()) {
		return fmt.Errorf("%w: sandboxListen: %q is the port of listen %q; the MCP Apps sandbox is a second origin and needs a port of its own (sandboxListen, --sandbox-listen or GENUI_SANDBOX_LISTEN; default 127.0.0.1:8081)", adapter.ErrConfig, cfg.SandboxAddr(), cfg.Listen)
	}
	var level slog.Level
	if cfg.LogLevel != "" {
		if err := level.UnmarshalText([]byte(cfg.LogLevel)); err != nil {
			return fmt.Errorf("logLevel %q (--log-level, GENUI_LOG_LEVEL): not a log level; want debug, info, warn or error", cfg.LogLevel)
		}
	}
	// Both listeners are opened before anything else starts, so that a
	// port in use stops the start; the sandbox's public origin then is
	// known (":0" in tests).
	ln, err := listenOn("listen", "--listen, GENUI_LISTEN", cfg.Listen)
	if err != nil {
		return err
	}
	defer ln.Close()
	sandboxLn, err := listenOn("sandboxListen", "--sandbox-listen, GENUI_SANDBOX_LISTEN", cfg.SandboxAddr())
	if err != nil {
		return err
	}
	defer sandboxLn.Close()
	if cfg.SandboxOrigin == "" {
		cfg.SandboxOrigin = "http://" + sandboxLn.Addr().String()
	}
	if opts.config == "" {
		// The built-in demo's url keyword shows the adapter's own page:
		// allow the address it really listens on (--listen may move it).
		self := loopbackAddr(ln.Addr().String())
		cfg.Listen = self
		cfg.Toolkit.URLAllowlist = []string{"http://" + self}
	}
	logger := slog.New(slog.NewTextHandler(stderr, &slog.HandlerOptions{Level: level}))
	// The stores' budgets are sized to fit under the soft memory limit;
	// GOMEMLIMIT, when set, wins.
	if lim := cfg.MemoryLimitBytes(); lim > 0 && getenv("GOMEMLIMIT") == "" {
		debug.SetMemoryLimit(lim)
		logger.Info("memory limit", "bytes", lim)
	}
	if getenv("GOGC") == "" {
		debug.SetGCPercent(cfg.GOGC())
	}

	srv, err := adapter.NewServer(logger, cfg)
	if err != nil {
		return err
	}
	sb := &http.Server{Handler: srv.SandboxHandler(), ReadHeaderTimeout: 10 * time.Second}
	go sb.Serve(sandboxLn)
	defer sb.Close()
	fmt.Fprintf(stdout, "MCP Apps sandbox origin: %s\n", cfg.SandboxOrigin)
	httpSrv := &http.Server{
		Handler:           srv,
		ReadHeaderTimeout: 10 * time.Second,
		IdleTimeout:       120 * time.Second,
		ErrorLog:          slog.NewLogLogger(logger.Handler(), slog.LevelWarn),
	}
	srv.Adopt(httpSrv)
	fmt.Fprintln(stdout, versionText(buildInfo()))
	fmt.Fprintf(stdout, "genui-adapter listening on http://%s (config: %s)\n", ln.Addr(), source)
	fmt.Fprintf(stdout, "%s\n", strings.TrimSpace(cfg.Redacted()))
	fmt.Fprint(stdout, tryLine(cfg, ln.Addr().String()))

	serveErr := make(chan error, 1)
	go func() { serveErr <- httpSrv.Serve(ln) }()

	select {
	case err := <-serveErr:
		return fmt.Errorf("serve: %w", err)
	case <-ctx.Done():
	}
	logger.Info("shutting down", "grace", cfg.Grace())
	drained := make(chan struct{})
	go func() {
		defer close(drained)
		srv.Drain(cfg.Grace())
		_ = srv.Close()
	}()
	shutCtx, cancel := context.WithTimeout(context.Background(), cfg.Grace()+10*time.Second)
	defer cancel()
	err = httpSrv.Shutdown(shutCtx)
	<-drained
	if serr := <-serveErr; !errors.Is(serr, http.ErrServerClosed) {
		return serr
	}
	return err
}

// listenOn opens a listener; an address in use or wrong is an error naming
// the config key and the flag and variable that set it.
func listenOn(key, flagAndEnv, addr string) (net.Listener, error) {
	ln, err := net.Listen("tcp", addr)
	switch {
	case err == nil:
		return ln, nil
	case errors.Is(err, syscall.EADDRINUSE):
		return nil, fmt.Errorf("%s %s: the address is already in use (another genui-adapter?); stop that process or set another address with %s, %s", key, addr, key, flagAndEnv)
	}
	return nil, fmt.Errorf("%s %s: %w (set it with %s, %s)", key, addr, err, key, flagAndEnv)
}

// tryLine is the banner's example: a run of a configured agent (a demo
// one if there is one) as a curl command whose thread and run ids the
// shell makes fresh each time it runs, so that it works when pasted again
// (a run id is used once: a second run with it is 409 run_exists).
func tryLine(cfg adapter.Config, addr string) string {
	ids := make([]string, 0, len(cfg.Agents))
	for id := range cfg.Agents {
		ids = append(ids, id)
	}
	slices.Sort(ids)
	if len(ids) == 0 {
		return ""
	}
	agent := ids[0]
	for _, id := range ids {
		if cfg.Agents[id].Type() == "demo" {
			agent = id
			break
		}
	}
	addr = loopbackAddr(addr)
	auth, note := "", ""
	switch a := cfg.Auth; {
	case a.TrustedHeader != "":
		auth = fmt.Sprintf(" -H '%s: you'", a.TrustedHeader)
	case len(a.BearerTokens) > 0 || a.JWT != nil:
		auth = ` -H "authorization: Bearer $TOKEN"`
		note = "(with TOKEN set to one of auth.bearerTokens or a JWT the issuer signed)\n"
	}
	return fmt.Sprintf(`try: curl -N http://%s/agents/%s/run -H 'content-type: application/json'%s -d '{"threadId":"t-'$(date +%%s%%N)'","runId":"r-'$(date +%%s%%N)'","messages":[{"id":"u1","role":"user","content":"hi"}]}'`+"\n%s", addr, agent, auth, note)
}

// loopbackAddr is addr with a wildcard host (0.0.0.0, ::) written as
// 127.0.0.1, the address a browser or curl on this machine uses.
func loopbackAddr(addr string) string {
	if host, port, err := net.SplitHostPort(addr); err == nil {
		if ip, err := netip.ParseAddr(host); err == nil && ip.IsUnspecified() {
			return net.JoinHostPort("127.0.0.1", port)
		}
	}
	return addr
}
