package main

import (
	"bytes"
	"context"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"runtime/debug"
	"strings"
	"sync"
	"testing"
	"time"
)

// syncBuffer is a bytes.Buffer safe for the server goroutine and the test.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

func freeAddr(t *testing.T) string {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	return ln.Addr().String()
}

func waitHealthy(t *testing.T, base string) {
	t.Helper()
	for i := 0; i < 100; i++ {
		resp, err := http.Get(base + "/healthz")
		if err == nil {
			resp.Body.Close()
			if resp.StatusCode == 200 {
				return
			}
		}
		time.Sleep(20 * time.Millisecond)
	}
	t.Fatal("service never became healthy")
}

func TestRunServesDemoAndShutsDown(t *testing.T) {
	addr := freeAddr(t)
	var stdout, stderr syncBuffer
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	env := map[string]string{"GENUI_LISTEN": addr, "GENUI_SANDBOX_LISTEN": "127.0.0.1:0"}
	go func() {
		done <- run(ctx, []string{"genui-adapter"}, func(k string) string { return env[k] }, &stdout, &stderr)
	}()
	waitHealthy(t, "http://"+addr)
	if out := stdout.String(); !strings.Contains(out, "listening on http://"+addr) || !strings.Contains(out, "type: demo") {
		t.Errorf("start banner lacks the URL or the config:\n%s", out)
	}
	resp, err := http.Post("http://"+addr+"/agents/demo/run", "application/json", strings.NewReader(`{"threadId":"t","runId":"r","messages":[{"id":"u","role":"user","content":"hi"}]}`))
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if !strings.Contains(string(b), `"type":"RUN_FINISHED"`) {
		t.Errorf("demo run did not finish:\n%s", b)
	}
	// The demo's url keyword shows the adapter's own page on the address
	// it listens on, not the default port's.
	resp, err = http.Post("http://"+addr+"/agents/demo/run", "application/json", strings.NewReader(`{"threadId":"t2","runId":"r2","messages":[{"id":"u","role":"user","content":"url"}]}`))
	if err != nil {
		t.Fatal(err)
	}
	b, _ = io.ReadAll(resp.Body)
	resp.Body.Close()
	if page := "http://" + addr + "/playground/page.html"; !strings.Contains(string(b), page) || strings.Contains(string(b), "not allowed") {
		t.Errorf("the url keyword on --listen %s does not show %s:\n%s", addr, page, b)
	}
	cancel()
	select {
	case err := <-done:
		if err != nil {
			t.Errorf("run returned %v after a clean shutdown", err)
		}
	case <-time.After(15 * time.Second):
		t.Fatal("run did not return after cancel")
	}
}

// TestRunSetsGOGC: the binary sets the collector's percentage from
// gcPercent, and leaves it to a GOGC in the environment.
func TestRunSetsGOGC(t *testing.T) {
	defer debug.SetGCPercent(debug.SetGCPercent(100))
	dir := t.TempDir()
	cfg := filepath.Join(dir, "gc.yaml")
	os.WriteFile(cfg, []byte("gcPercent: 150\nagents: {demo: {type: demo}}\n"), 0o644)
	for _, c := range []struct {
		gogc string
		want int
	}{{"", 150}, {"70", 100}} {
		debug.SetGCPercent(100)
		addr := freeAddr(t)
		env := map[string]string{"GENUI_LISTEN": addr, "GENUI_SANDBOX_LISTEN": "127.0.0.1:0", "GOGC": c.gogc}
		ctx, cancel := context.WithCancel(context.Background())
		done := make(chan error, 1)
		var stdout, stderr syncBuffer
		go func() {
			done <- run(ctx, []string{"genui-adapter", "--config", cfg}, func(k string) string { return env[k] }, &stdout, &stderr)
		}()
		waitHealthy(t, "http://"+addr)
		cancel()
		if err := <-done; err != nil {
			t.Fatal(err)
		}
		// (The runtime read GOGC from the real environment at start; run
		// only leaves the percentage alone when the variable is set.)
		if got := debug.SetGCPercent(100); got != c.want {
			t.Errorf("GOGC=%q, gcPercent 150: the collector's percentage is %d, want %d", c.gogc, got, c.want)
		}
	}
}

func TestRunConfigErrors(t *testing.T) {
	dir := t.TempDir()
	bad := filepath.Join(dir, "bad.yaml")
	os.WriteFile(bad, []byte("agents: {a: {type: agui}}\n"), 0o644)
	for _, tt := range []struct {
		name string
		args []string
		want string
	}{
		{"missing file", []string{"x", "--config", filepath.Join(dir, "nope.yaml")}, "no such file"},
		{"invalid config", []string{"x", "--config", bad}, "agents.a.url: required"},
		{"bad flag", []string{"x", "--nope"}, "flag provided but not defined"},
		{"bad log level", []string{"x", "--log-level", "loud"}, "log level"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			var out, errb syncBuffer
			err := run(context.Background(), tt.args, func(string) string { return "" }, &out, &errb)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("run(%v) = %v, want an error mentioning %q", tt.args, err, tt.want)
			}
		})
	}
}
