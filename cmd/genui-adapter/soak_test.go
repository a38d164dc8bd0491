//go:build soak

package main

// The bounded soak (make soak, not part of make test): the real binary
// under a hostile single run and a crowd of short ones, with its RSS read
// from /proc, asserting that it stays under the configured memory budget
// and comes back down after retention.

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/genui-adapter/genui-adapter/agui"
)

// rss is a process's resident set in bytes.
func rss(t *testing.T, pid int) int64 {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		t.Fatal(err)
	}
	for _, line := range strings.Split(string(b), "\n") {
		if f := strings.Fields(line); len(f) >= 2 && f[0] == "VmRSS:" {
			kb, _ := strconv.ParseInt(f[1], 10, 64)
			return kb << 10
		}
	}
	return 0
}

// peak samples a process's RSS until stop is closed.
type peak struct {
	max  atomic.Int64
	done chan struct{}
}

func sample(t *testing.T, pid int, stop <-chan struct{}) *peak {
	p := &peak{done: make(chan struct{})}
	go func() {
		defer close(p.done)
		for {
			if r := rss(t, pid); r > p.max.Load() {
				p.max.Store(r)
			}
			select {
			case <-stop:
				return
			case <-time.After(200 * time.Millisecond):
			}
		}
	}()
	return p
}

const mib = 1 << 20

func TestSoak(t *testing.T) {
	const budget = 256 * mib // memoryLimit below
	dir := t.TempDir()
	bin := filepath.Join(dir, "genui-adapter")
	if out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput(); err != nil {
		t.Fatalf("build: %v\n%s", err, out)
	}
	// The upstream: 1 KB deltas unpaced until the client goes away
	// ("flood"), n small deltas ("small?n=..."), or a short run.
	kb := strings.Repeat("x", 1024)
	up := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		in, _ := agui.ParseRunAgentInput(must(io.ReadAll(r.Body)))
		w.Header().Set("Content-Type", "text/event-stream")
		enc := agui.NewEncoder(w)
		enc.Encode("", &agui.RunStarted{ThreadID: in.ThreadID, RunID: in.RunID})
		enc.Encode("", &agui.TextMessageStart{MessageID: "m", Role: "assistant"})
		switch {
		case strings.HasPrefix(in.ThreadID, "flood"):
			deadline := time.Now().Add(60 * time.Second)
			for time.Now().Before(deadline) {
				if enc.Encode("", &agui.TextMessageContent{MessageID: "m", Delta: kb}) != nil {
					return
				}
			}
		case strings.HasPrefix(in.ThreadID, "small"):
			for range 3_000_000 {
				if enc.Encode("", &agui.TextMessageContent{MessageID: "m", Delta: "tok "}) != nil {
					return
				}
			}
		default:
			enc.Encode("", &agui.TextMessageContent{MessageID: "m", Delta: "a short answer " + kb[:200]})
		}
		enc.Encode("", &agui.TextMessageEnd{MessageID: "m"})
		enc.Encode("", &agui.RunFinished{ThreadID: in.ThreadID, RunID: in.RunID})
	}))
	defer up.Close()

	addr := freeAddrSoak(t)
	cfgPath := filepath.Join(dir, "soak.yaml")
	os.WriteFile(cfgPath, []byte(fmt.Sprintf(`
listen: %s
sandboxListen: 127.0.0.1:0
memoryLimit: %d
detachGrace: 5s
debug: {pprof: true}
runlog: {retention: 5s, maxBytes: 67108864}
limits: {runStartsPerSecond: -1}
history: {retention: 5s, maxBytes: 33554432, maxLiveBytes: 33554432}
agents: {a: {type: agui, url: "%s", a2ui: {disabled: true}}}
`, addr, budget, up.URL)), 0o644)
	cmd := exec.Command(bin, "--config", cfgPath, "--log-level", "warn")
	cmd.Stdout, cmd.Stderr = io.Discard, os.Stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { cmd.Process.Kill(); cmd.Wait() }()
	base := "http://" + addr
	waitUp(t, base)
	pid := cmd.Process.Pid
	idle := rss(t, pid)
	t.Logf("idle RSS %.1f MiB; budget (memoryLimit) %d MiB", float64(idle)/mib, budget/mib)

	post := func(thread, run string) (*http.Response, error) {
		req, _ := http.NewRequest("POST", base+"/agents/a/run", strings.NewReader(fmt.Sprintf(`{"threadId":%q,"runId":%q,"messages":[{"id":"u-%s","role":"user","content":"go"}]}`, thread, run, run)))
		req.Header.Set("Content-Type", "application/json")
		return http.DefaultClient.Do(req)
	}

	// 1. 1 KB deltas unpaced for 60 s, read by a slow client.
	stop := make(chan struct{})
	pk := sample(t, pid, stop)
	start := time.Now()
	resp, err := post("flood", "flood")
	if err != nil {
		t.Fatal(err)
	}
	var read int64
	br := bufio.NewReaderSize(resp.Body, 64<<10)
	buf := make([]byte, 64<<10)
	for {
		n, err := br.Read(buf)
		read += int64(n)
		if err != nil {
			break
		}
		time.Sleep(2 * time.Millisecond) // ≈ 30 MB/s at most
	}
	resp.Body.Close()
	close(stop)
	<-pk.done
	t.Logf("flood: %.0f s, the slow client read %.0f MiB; peak RSS %.1f MiB", time.Since(start).Seconds(), float64(read)/mib, float64(pk.max.Load())/mib)
	if pk.max.Load() > budget {
		t.Errorf("flood: peak RSS %d MiB over the %d MiB budget", pk.max.Load()/mib, budget/mib)
	}

	// 2. 3 M small deltas, read as fast as possible.
	stop = make(chan struct{})
	pk = sample(t, pid, stop)
	start = time.Now()
	resp, err = post("small", "small")
	if err != nil {
		t.Fatal(err)
	}
	n, _ := io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	close(stop)
	<-pk.done
	t.Logf("3 M small deltas: %.1f s, %.0f MiB relayed; peak RSS %.1f MiB", time.Since(start).Seconds(), float64(n)/mib, float64(pk.max.Load())/mib)
	if pk.max.Load() > budget {
		t.Errorf("small deltas: peak RSS %d MiB over the budget", pk.max.Load()/mib)
	}

	// 3. 5,000 short runs on distinct threads, 50 at a time.
	stop = make(chan struct{})
	pk = sample(t, pid, stop)
	start = time.Now()
	var wg sync.WaitGroup
	var failed atomic.Int32
	sem := make(chan struct{}, 50)
	for i := range 5000 {
		sem <- struct{}{}
		wg.Go(func() {
			defer func() { <-sem }()
			resp, err := post(fmt.Sprint("short-", i), fmt.Sprint("short-", i))
			if err != nil {
				failed.Add(1)
				return
			}
			b, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			if !strings.Contains(string(b), "RUN_FINISHED") {
				failed.Add(1)
			}
		})
	}
	wg.Wait()
	close(stop)
	<-pk.done
	t.Logf("5,000 short runs: %.1f s, %d failed; peak RSS %.1f MiB", time.Since(start).Seconds(), failed.Load(), float64(pk.max.Load())/mib)
	if failed.Load() > 0 {
		t.Errorf("%d short runs failed", failed.Load())
	}
	if pk.max.Load() > budget {
		t.Errorf("short runs: peak RSS %d MiB over the budget", pk.max.Load()/mib)
	}

	// 4. After retention (5 s, the janitor ticks each second) RSS comes
	// back down.
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	after := rss(t, pid)
	for ctx.Err() == nil && after > idle+48*mib {
		time.Sleep(time.Second)
		after = rss(t, pid)
	}
	m := metrics(t, base)
	t.Logf("after retention: RSS %.1f MiB (idle was %.1f); stores: %s", float64(after)/mib, float64(idle)/mib, m)
	if os.Getenv("SOAK_HEAP") != "" {
		r, _ := http.Get(base + "/debug/pprof/heap")
		f, _ := os.Create(os.Getenv("SOAK_HEAP"))
		io.Copy(f, r.Body)
		f.Close()
		r.Body.Close()
	}
	if after > idle+48*mib {
		t.Errorf("RSS after retention %.1f MiB, want within 48 MiB of idle (%.1f MiB)", float64(after)/mib, float64(idle)/mib)
	}
}

func must(b []byte, _ error) []byte { return b }

func freeAddrSoak(t *testing.T) string { return freeAddr(t) }

func waitUp(t *testing.T, base string) {
	for range 200 {
		if r, err := http.Get(base + "/healthz"); err == nil {
			r.Body.Close()
			return
		}
		time.Sleep(50 * time.Millisecond)
	}
	t.Fatal("the adapter did not start")
}

func metrics(t *testing.T, base string) string {
	r, err := http.Get(base + "/metrics")
	if err != nil {
		return err.Error()
	}
	defer r.Body.Close()
	var out []string
	sc := bufio.NewScanner(r.Body)
	for sc.Scan() {
		if strings.HasPrefix(sc.Text(), "genui_store_bytes{") || strings.HasPrefix(sc.Text(), "go_memstats_heap_") || strings.HasPrefix(sc.Text(), "go_goroutines") || strings.HasPrefix(sc.Text(), "go_memstats_stack") || strings.HasPrefix(sc.Text(), "go_memstats_sys") {
			out = append(out, strings.TrimPrefix(sc.Text(), "genui_store_bytes"))
		}
	}
	return strings.Join(out, " ")
}
