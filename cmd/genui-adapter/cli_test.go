package main

import (
	"bytes"
	"context"
	"errors"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime/debug"
	"strings"
	"testing"
	"time"

	"github.com/genui-adapter/genui-adapter/adapter"
)

// runBinary runs the test binary as the adapter (TestMain) with args and
// returns its output and exit status. The listeners default to free ports
// so that a process that starts serving by mistake binds nothing fixed;
// it is killed after 15 s.
func runBinary(t *testing.T, env []string, args ...string) (stdout, stderr string, code int) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 15*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, os.Args[0], args...)
	cmd.Env = append(append(os.Environ(), "GENUI_TEST_MAIN=1", "GENUI_LISTEN=127.0.0.1:0", "GENUI_SANDBOX_LISTEN=127.0.0.1:0", "GENUI_CONFIG="), env...)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	if ctx.Err() != nil {
		t.Fatalf("genui-adapter %v did not exit (it started serving?)\nstdout:\n%s\nstderr:\n%s", args, out.String(), errb.String())
	}
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	return out.String(), errb.String(), code
}

// TestHelpListsEveryCommand: help, -h and --help print every command and
// serve's flags on stdout and exit 0.
func TestHelpListsEveryCommand(t *testing.T) {
	for _, args := range [][]string{{"help"}, {"--help"}, {"-h"}, {"serve", "--help"}} {
		out, errOut, code := runBinary(t, nil, args...)
		if code != 0 {
			t.Errorf("genui-adapter %v exited %d, want 0\n%s", args, code, errOut)
		}
		for _, want := range []string{"serve [flags]", "check [flags] URL|FILE", "a2ui validate [-strict] [-config FILE] FILE", "healthcheck", "version", "help [COMMAND]",
			"--config file", "--listen address", "--sandbox-listen address", "--sandbox-origin origin", "--log-level level", "--version", "GENUI_CONFIG", "Exit status"} {
			if !strings.Contains(out, want) {
				t.Errorf("genui-adapter %v does not mention %q:\n%s", args, want, out)
			}
		}
	}
}

// TestHelpSummariesAligned: in help's command list every summary starts
// in the same column, also after a command line longer than the column.
func TestHelpSummariesAligned(t *testing.T) {
	var b bytes.Buffer
	printHelp(&b, serveFlags(func(string) string { return "" }))
	const col = 33
	_, list, _ := strings.Cut(b.String(), "Commands:\n")
	list, _, _ = strings.Cut(list, "\n\n")
	for _, c := range commands {
		prefix := "  " + strings.TrimSpace(c.name+" "+c.args)
		_, after, ok := strings.Cut("\n"+list+"\n", "\n"+prefix)
		if !ok {
			t.Fatalf("help lists no %q:\n%s", prefix, list)
		}
		if rest, _, _ := strings.Cut(after, "\n"); strings.TrimSpace(rest) != "" {
			after = rest
		} else {
			_, after, _ = strings.Cut(after, "\n") // the summary is on the next line
			after, _, _ = strings.Cut(after, "\n")
			prefix = ""
		}
		first, _, _ := strings.Cut(c.summary, "\n")
		if got := len(prefix) + strings.Index(after, first); got != col {
			t.Errorf("%q: its summary starts in column %d, want %d:\n%s", c.name, got, col, list)
		}
	}
}

// TestCommandHelp: each command's -h (or help COMMAND) prints its usage
// on stdout and exits 0.
func TestCommandHelp(t *testing.T) {
	for _, tt := range []struct {
		args []string
		want string
	}{
		{[]string{"check", "-h"}, "usage: genui-adapter check [flags] URL|FILE"},
		{[]string{"help", "check"}, "--max-event-bytes int"},
		{[]string{"a2ui", "validate", "--help"}, "usage: genui-adapter a2ui validate [-strict] [-config FILE] FILE"},
		{[]string{"help", "a2ui"}, "--strict"},
		{[]string{"healthcheck", "-h"}, "--timeout duration"},
		{[]string{"help", "healthcheck"}, "usage: genui-adapter healthcheck"},
	} {
		out, errOut, code := runBinary(t, nil, tt.args...)
		if code != 0 || !strings.Contains(out, tt.want) {
			t.Errorf("genui-adapter %v = exit %d, want 0 and %q on stdout\nstdout:\n%s\nstderr:\n%s", tt.args, code, tt.want, out, errOut)
		}
	}
}

// TestUsageErrors: an unknown command, a stray argument or a bad flag
// exits 2 with a message naming the known commands; nothing is served.
func TestUsageErrors(t *testing.T) {
	for _, tt := range []struct {
		args []string
		want string
	}{
		{[]string{"bogus"}, `unknown command "bogus"; the commands are serve, check, a2ui validate, healthcheck, version and help`},
		{[]string{"serv"}, `unknown command "serv"`},
		{[]string{"--log-level", "debug", "extra"}, `unexpected argument "extra"; the commands are serve, check`},
		{[]string{"--nope"}, "flag provided but not defined: -nope"},
		{[]string{"help", "bogus"}, `help: unknown command "bogus"`},
		{[]string{"check"}, "check needs one URL or file"},
		{[]string{"a2ui", "render"}, "usage: genui-adapter a2ui validate"},
		{[]string{"version", "x"}, "version takes no arguments"},
	} {
		out, errOut, code := runBinary(t, nil, tt.args...)
		if code != 2 || !strings.Contains(errOut, tt.want) {
			t.Errorf("genui-adapter %v = exit %d, want 2 and %q on stderr\nstdout:\n%s\nstderr:\n%s", tt.args, code, tt.want, out, errOut)
		}
	}
}

// TestVersion: version and --version print the version and the commit;
// -ldflags -X main.version sets the version.
func TestVersion(t *testing.T) {
	for _, args := range [][]string{{"version"}, {"--version"}} {
		out, errOut, code := runBinary(t, nil, args...)
		if code != 0 || !regexp.MustCompile(`^genui-adapter \S+ \(commit \S+.*; go1\.`).MatchString(out) {
			t.Errorf("genui-adapter %v = exit %d\nstdout:\n%s\nstderr:\n%s", args, code, out, errOut)
		}
	}
	bi := &debug.BuildInfo{Main: debug.Module{Version: "v1.4.0"}, Settings: []debug.BuildSetting{
		{Key: "vcs.revision", Value: "0123456789abcdef"}, {Key: "vcs.modified", Value: "true"}, {Key: "vcs.time", Value: "2026-12-01T10:00:00Z"}}}
	if got := versionText(bi); !strings.HasPrefix(got, "genui-adapter v1.4.0 (commit 0123456789abcdef, modified, 2026-12-01T10:00:00Z; go") {
		t.Errorf("versionText of a module build = %q", got)
	}
	if got := versionText(&debug.BuildInfo{Main: debug.Module{Version: "(devel)"}}); !strings.HasPrefix(got, "genui-adapter devel (commit unknown;") {
		t.Errorf("versionText of a build without VCS information = %q", got)
	}
	if testing.Short() {
		return
	}
	bin := filepath.Join(t.TempDir(), "genui-adapter")
	build := exec.Command("go", "build", "-ldflags", "-X main.version=v9.8.7-test -X main.commit=feedbeef", "-o", bin, ".")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	out, err := exec.Command(bin, "--version").Output()
	if err != nil || !strings.HasPrefix(string(out), "genui-adapter v9.8.7-test (commit feedbeef") {
		t.Errorf("a build with -X main.version: --version = %q, %v", out, err)
	}
}

// TestConfigErrorsNameKeyAndLine: the process prints every config error on
// a line of its own, each with the YAML path and line, and exits 1.
func TestConfigErrorsNameKeyAndLine(t *testing.T) {
	dir := t.TempDir()
	for _, tt := range []struct {
		name, yaml string
		want       []string
	}{
		{"wrong types", "agents:\n  foo:\n    type: agui\n    url: http://127.0.0.1:1\n    maxToolRounds: lots\nheartbeat: soon\n", []string{
			`genui-adapter: config: agents.foo.maxToolRounds: cannot use "lots" as an integer (line 5)`,
			`genui-adapter: config: heartbeat: "soon" is not a duration like 15s (line 6)`,
		}},
		{"unknown key", "agents:\n  demo:\n    type: demo\n    timeout: 5s\n", []string{
			"genui-adapter: config: agents.demo.timeout: unknown key (line 4)",
		}},
		{"validation", "threadPolicy: queue\nagents:\n  a: {type: agui}\n", []string{
			`genui-adapter: config: threadPolicy: "queue" is not reject or supersede (line 1)`,
			"genui-adapter: config: agents.a.url: required for type agui (line 3)",
		}},
		{"sandbox on the main port", "listen: 127.0.0.1:18080\nsandboxListen: 0.0.0.0:18080\nagents: {demo: {type: demo}}\n", []string{
			`genui-adapter: config: sandboxListen: "0.0.0.0:18080" is the port of listen "127.0.0.1:18080"`,
		}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			path := filepath.Join(dir, strings.ReplaceAll(tt.name, " ", "-")+".yaml")
			os.WriteFile(path, []byte(tt.yaml), 0o644)
			// The listeners come from the file here.
			out, errOut, code := runBinary(t, []string{"GENUI_LISTEN=", "GENUI_SANDBOX_LISTEN="}, "--config", path)
			if code != 1 {
				t.Errorf("exit %d, want 1\nstdout:\n%s\nstderr:\n%s", code, out, errOut)
			}
			lines := strings.Split(strings.TrimSpace(errOut), "\n")
			for _, w := range tt.want {
				found := false
				for _, l := range lines {
					found = found || strings.HasPrefix(l, w)
				}
				if !found {
					t.Errorf("stderr has no line starting %q:\n%s", w, errOut)
				}
			}
		})
	}
}

// TestPortClashesRefused: sandboxListen on listen's port, or a port
// already taken, stops the start with an error naming the key and the
// address, before anything is served.
func TestPortClashesRefused(t *testing.T) {
	taken, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer taken.Close()
	busy := taken.Addr().String()
	free := freeAddr(t)
	_, port, _ := net.SplitHostPort(free)
	for _, tt := range []struct {
		name string
		args []string
		want string
	}{
		{"sandbox on the main port, flags", []string{"--listen", free, "--sandbox-listen", ":" + port},
			`sandboxListen: ":` + port + `" is the port of listen "` + free + `"`},
		{"sandbox on the main port, wildcard", []string{"--listen", "0.0.0.0:" + port, "--sandbox-listen", free},
			`sandboxListen: "` + free + `" is the port of listen "0.0.0.0:` + port + `"`},
		{"main port taken", []string{"--listen", busy},
			"listen " + busy + ": the address is already in use"},
		{"sandbox port taken", []string{"--listen", free, "--sandbox-listen", busy},
			"sandboxListen " + busy + ": the address is already in use"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			out, errOut, code := runBinary(t, nil, tt.args...)
			if code != 1 || !strings.Contains(errOut, tt.want) {
				t.Errorf("exit %d, want 1 and %q on stderr\nstdout:\n%s\nstderr:\n%s", code, tt.want, out, errOut)
			}
			if strings.Contains(out, "listening on") {
				t.Errorf("it started serving:\n%s", out)
			}
		})
	}
	// The listeners as flags leave them are what counts: a file whose
	// sandboxListen is its listen, corrected by --sandbox-listen, starts.
	t.Run("file clash corrected by a flag", func(t *testing.T) {
		cfg := filepath.Join(t.TempDir(), "clash.yaml")
		os.WriteFile(cfg, []byte("listen: "+free+"\nsandboxListen: "+free+"\nagents: {demo: {type: demo}}\n"), 0o644)
		ctx, cancel := context.WithCancel(context.Background())
		done := make(chan error, 1)
		var stdout, stderr syncBuffer
		go func() {
			done <- run(ctx, []string{"genui-adapter", "--config", cfg, "--sandbox-listen", "127.0.0.1:0"}, func(string) string { return "" }, &stdout, &stderr)
		}()
		for !strings.Contains(stdout.String(), "listening on http://"+free) {
			select {
			case err := <-done:
				cancel()
				t.Fatalf("run = %v, want it serving", err)
			case <-time.After(20 * time.Millisecond):
			}
		}
		cancel()
		if err := <-done; err != nil {
			t.Error(err)
		}
	})
}

// TestBannerCurlWorksRepeatedly: the start banner's example names a
// configured agent and, pasted into a shell, works every time (fresh
// thread and run ids per invocation).
func TestBannerCurlWorksRepeatedly(t *testing.T) {
	if _, err := exec.LookPath("curl"); err != nil {
		t.Skip("no curl")
	}
	cfg := filepath.Join(t.TempDir(), "zeta.yaml")
	os.WriteFile(cfg, []byte("agents:\n  zeta: {type: demo, delay: 1ms}\n"), 0o644)
	addr := freeAddr(t)
	env := map[string]string{"GENUI_LISTEN": addr, "GENUI_SANDBOX_LISTEN": "127.0.0.1:0"}
	var stdout, stderr syncBuffer
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		done <- run(ctx, []string{"genui-adapter", "--config", cfg}, func(k string) string { return env[k] }, &stdout, &stderr)
	}()
	defer func() {
		cancel()
		if err := <-done; err != nil {
			t.Error(err)
		}
	}()
	waitHealthy(t, "http://"+addr)
	var try string
	for l := range strings.SplitSeq(stdout.String(), "\n") {
		if s, ok := strings.CutPrefix(l, "try: "); ok {
			try = s
		}
	}
	if !strings.Contains(try, "http://"+addr+"/agents/zeta/run") {
		t.Fatalf("the banner's example does not run the configured agent zeta:\n%s", stdout.String())
	}
	for i := range 3 {
		out, err := exec.Command("sh", "-c", try+" -sS").CombinedOutput()
		if err != nil || !strings.Contains(string(out), `"type":"RUN_FINISHED"`) {
			t.Fatalf("the banner's example, run %d: %v\n%s", i+1, err, out)
		}
	}
}

// TestTryLine: the example runs a demo agent if there is one, else the
// first configured one, on an address curl can reach, with the
// credentials auth asks for.
func TestTryLine(t *testing.T) {
	cfg := adapter.Config{Agents: map[string]adapter.AgentConfig{"b": {Backend: &adapter.AGUIConfig{}}, "a": {Backend: &adapter.AGUIConfig{}}}}
	if got := tryLine(cfg, "[::]:8080"); !strings.HasPrefix(got, "try: curl -N http://127.0.0.1:8080/agents/a/run ") {
		t.Errorf("tryLine = %q, want agent a on 127.0.0.1:8080", got)
	}
	cfg.Agents["z"] = adapter.AgentConfig{Backend: &adapter.DemoConfig{}}
	cfg.Auth.BearerTokens = map[string]string{"me": "0123456789"}
	if got := tryLine(cfg, "10.0.0.1:9"); !strings.Contains(got, "http://10.0.0.1:9/agents/z/run") || !strings.Contains(got, `-H "authorization: Bearer $TOKEN"`) {
		t.Errorf("tryLine = %q, want the demo agent z with a bearer token", got)
	}
}

// TestSameListener: the sandbox origin may not share the main listener's
// port on an overlapping address.
func TestSameListener(t *testing.T) {
	for _, tt := range []struct {
		a, b string
		want bool
	}{
		{"127.0.0.1:8080", "127.0.0.1:8080", true},
		{":8080", "0.0.0.0:8080", true},
		{"127.0.0.1:8080", ":8080", true},
		{"0.0.0.0:8080", "127.0.0.1:8080", true},
		{"[::]:8080", "127.0.0.1:8080", true},
		{"localhost:8080", "127.0.0.1:8080", true},
		{"localhost:8080", "[::1]:8080", true},
		{"example.com:8080", "EXAMPLE.com:8080", true},
		{"127.0.0.1:8080", "127.0.0.1:8081", false},
		{"127.0.0.1:8080", "127.0.0.2:8080", false},
		{"127.0.0.1:0", "127.0.0.1:0", false},
		{"x", "127.0.0.1:8081", false},
	} {
		if got := sameListener(tt.a, tt.b); got != tt.want {
			t.Errorf("sameListener(%q, %q) = %v, want %v", tt.a, tt.b, got, tt.want)
		}
	}
}
