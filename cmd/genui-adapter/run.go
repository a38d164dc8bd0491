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
	"os"
	"os/signal"
	"runtime/debug"
	"strings"
	"syscall"
	"time"

	"github.com/genui-adapter/genui-adapter/adapter"
)

// run is the whole program: flags, config, serving and graceful shutdown on
// SIGINT/SIGTERM or when ctx is cancelled. Environment variables
// GENUI_CONFIG, GENUI_LISTEN and GENUI_LOG_LEVEL give defaults that flags
// override.
func run(ctx context.Context, args []string, getenv func(string) string, stdout, stderr io.Writer) error {
	ctx, stop := signal.NotifyContext(ctx, os.Interrupt, syscall.SIGTERM)
	defer stop()

	if len(args) > 1 {
		switch args[1] {
		case "healthcheck":
			return healthcheck(ctx, args[2:], getenv, stdout, stderr)
		case "check":
			return check(ctx, args[2:], stdout, stderr)
		case "a2ui":
			if len(args) > 2 && args[2] == "validate" {
				return a2uiValidate(args[3:], stdout, stderr)
			}
			return errors.New("usage: genui-adapter a2ui validate [-strict] FILE")
		}
	}

	fs := flag.NewFlagSet(args[0], flag.ContinueOnError)
	fs.SetOutput(stderr)
	configPath := fs.String("config", getenv("GENUI_CONFIG"), "path to the YAML config (default: built-in demo agent)")
	listen := fs.String("listen", getenv("GENUI_LISTEN"), "listen address, overrides the config (default 127.0.0.1:8080)")
	sandboxListen := fs.String("sandbox-listen", getenv("GENUI_SANDBOX_LISTEN"), "MCP Apps sandbox origin listen address, overrides the config (default 127.0.0.1:8081)")
	sandboxOrigin := fs.String("sandbox-origin", getenv("GENUI_SANDBOX_ORIGIN"), "the sandbox's public origin (behind a proxy), overrides the config")
	logLevel := fs.String("log-level", getenv("GENUI_LOG_LEVEL"), "debug, info, warn or error (default info)")
	if err := fs.Parse(args[1:]); err != nil {
		return err
	}

	cfg := adapter.DefaultConfig()
	source := "built-in demo config"
	if *configPath != "" {
		var err error
		if cfg, err = adapter.LoadConfig(*configPath, getenv); err != nil {
			return err
		}
		source = *configPath
	}
	if *listen != "" {
		cfg.Listen = *listen
	}
	if *logLevel != "" {
		cfg.LogLevel = *logLevel
	}
	if *sandboxListen != "" {
		cfg.SandboxListen = *sandboxListen
	}
	if *sandboxOrigin != "" {
		cfg.SandboxOrigin = *sandboxOrigin
	}
	var level slog.Level
	if cfg.LogLevel != "" {
		if err := level.UnmarshalText([]byte(cfg.LogLevel)); err != nil {
			return fmt.Errorf("log level %q: want debug, info, warn or error", cfg.LogLevel)
		}
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

	// The MCP Apps sandbox origin is its own listener, opened first so that
	// its public origin is known (":0" in tests).
	var sandboxLn net.Listener
	{
		var err error
		if sandboxLn, err = net.Listen("tcp", cfg.SandboxAddr()); err != nil {
			return fmt.Errorf("sandbox listen: %w", err)
		}
		defer sandboxLn.Close()
		if cfg.SandboxOrigin == "" {
			cfg.SandboxOrigin = "http://" + sandboxLn.Addr().String()
		}
	}
	srv, err := adapter.NewServer(logger, cfg)
	if err != nil {
		return err
	}
	ln, err := net.Listen("tcp", cfg.Listen)
	if err != nil {
		return fmt.Errorf("listen: %w", err)
	}
	if sandboxLn != nil {
		sb := &http.Server{Handler: srv.SandboxHandler(), ReadHeaderTimeout: 10 * time.Second}
		go sb.Serve(sandboxLn)
		defer sb.Close()
		fmt.Fprintf(stdout, "MCP Apps sandbox origin: %s\n", cfg.SandboxOrigin)
	}
	httpSrv := &http.Server{
		Handler:           srv,
		ReadHeaderTimeout: 10 * time.Second,
		IdleTimeout:       120 * time.Second,
		ErrorLog:          slog.NewLogLogger(logger.Handler(), slog.LevelWarn),
	}
	srv.Adopt(httpSrv)
	fmt.Fprintf(stdout, "genui-adapter listening on http://%s (config: %s)\n", ln.Addr(), source)
	fmt.Fprintf(stdout, "%s\n", strings.TrimSpace(cfg.Redacted()))
	fmt.Fprintf(stdout, "try: curl -N -X POST http://%s/agents/demo/run -H 'content-type: application/json' -d '{\"threadId\":\"t\",\"runId\":\"r\",\"messages\":[{\"id\":\"u\",\"role\":\"user\",\"content\":\"hi\"}]}'\n", ln.Addr())

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
