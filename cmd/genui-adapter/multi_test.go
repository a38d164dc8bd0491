package main

import (
	"bufio"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/genui-adapter/genui-adapter/agui"
)

// TestMain lets the test binary run as the adapter itself, so the
// multi-instance tests start real processes.
func TestMain(m *testing.M) {
	if os.Getenv("GENUI_TEST_MAIN") == "1" {
		main()
		return
	}
	os.Exit(m.Run())
}

func testRedisURL() string {
	if u := os.Getenv("GENUI_TEST_REDIS"); u != "" {
		return u
	}
	return "redis://127.0.0.1:6379/15"
}

// instance is one adapter process.
type instance struct {
	cmd  *exec.Cmd
	url  string
	done chan struct{}
}

func startInstance(t *testing.T, cfgPath string) *instance {
	t.Helper()
	cmd := exec.Command(os.Args[0], "--config", cfgPath, "--listen", "127.0.0.1:0", "--sandbox-listen", "127.0.0.1:0", "--log-level", "warn")
	cmd.Env = append(os.Environ(), "GENUI_TEST_MAIN=1")
	out, _ := cmd.StdoutPipe()
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	inst := &instance{cmd: cmd, done: make(chan struct{})}
	urls := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(out)
		re := regexp.MustCompile(`listening on (http://\S+)`)
		for sc.Scan() {
			if m := re.FindStringSubmatch(sc.Text()); m != nil {
				urls <- m[1]
			}
		}
	}()
	go func() { cmd.Wait(); close(inst.done) }()
	select {
	case inst.url = <-urls:
	case <-time.After(20 * time.Second):
		cmd.Process.Kill()
		t.Fatal("instance did not start")
	case <-inst.done:
		t.Fatal("instance exited at start (is Redis running?)")
	}
	t.Cleanup(func() { cmd.Process.Kill(); <-inst.done })
	return inst
}

// slowUpstream streams n numbered events, one every interval, and counts
// aborted requests.
func slowUpstream(t *testing.T, n int, interval time.Duration) (*httptest.Server, *atomic.Int32) {
	var aborted atomic.Int32
	s := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		in, _ := agui.ParseRunAgentInput(b)
		w.Header().Set("Content-Type", "text/event-stream")
		enc := agui.NewEncoder(w)
		rc := http.NewResponseController(w)
		enc.Encode("", &agui.RunStarted{ThreadID: in.ThreadID, RunID: in.RunID})
		rc.Flush()
		for i := 1; i <= n; i++ {
			select {
			case <-r.Context().Done():
				aborted.Add(1)
				return
			case <-time.After(interval):
			}
			enc.Encode("", &agui.Custom{Name: "n", Value: agui.JSON(strconv.Itoa(i))})
			rc.Flush()
		}
		enc.Encode("", &agui.RunFinished{ThreadID: in.ThreadID, RunID: in.RunID})
	}))
	t.Cleanup(s.Close)
	return s, &aborted
}

type ev struct {
	id   int
	data string
}

func events(t *testing.T, resp *http.Response, stop func(ev) bool) []ev {
	t.Helper()
	defer resp.Body.Close()
	var out []ev
	for f, err := range agui.ScanFrames(resp.Body, 0) {
		if err != nil {
			break
		}
		if len(f.Data) == 0 {
			continue
		}
		id, _ := strconv.Atoi(f.ID)
		e := ev{id, string(f.Data)}
		out = append(out, e)
		if stop != nil && stop(e) {
			break
		}
	}
	return out
}

func get(t *testing.T, url string, lastID int) *http.Response {
	t.Helper()
	req, _ := http.NewRequest("GET", url, nil)
	req.Header.Set("Last-Event-ID", strconv.Itoa(lastID))
	resp, err := (&http.Client{Timeout: 30 * time.Second}).Do(req) // a hang is a failure
	if err != nil {
		t.Fatal(err)
	}
	if resp.StatusCode != 200 {
		b, _ := io.ReadAll(resp.Body)
		t.Fatalf("GET %s: %d %s", url, resp.StatusCode, b)
	}
	return resp
}

func startRun(t *testing.T, base, runID string) *http.Response {
	t.Helper()
	resp, err := http.Post(base+"/agents/slow/run", "application/json", strings.NewReader(fmt.Sprintf(`{"threadId":"t-%s","runId":"%s","messages":[]}`, runID, runID)))
	if err != nil {
		t.Fatal(err)
	}
	if resp.StatusCode != 200 {
		t.Fatalf("start: %d", resp.StatusCode)
	}
	return resp
}

func contiguous(t *testing.T, evs []ev, from int) {
	t.Helper()
	for i, e := range evs {
		if e.id != from+i {
			t.Fatalf("event %d has id %d, want %d (hole or duplicate)", i, e.id, from+i)
		}
	}
}

// TestTwoInstancesOnRedis runs two adapter processes sharing a real Redis:
// resume and cancel across instances, a killed owner, a rolling restart.
func TestTwoInstancesOnRedis(t *testing.T) {
	if testing.Short() {
		t.Skip("starts processes")
	}
	up, aborted := slowUpstream(t, 400, 20*time.Millisecond)
	var b [6]byte
	rand.Read(b[:])
	cfg := filepath.Join(t.TempDir(), "genui-adapter.yaml")
	os.WriteFile(cfg, []byte(fmt.Sprintf(`shutdownGrace: 300ms
runlog: {backend: redis, url: %q, prefix: "genui-multi-%s:", retention: 10m}
agents:
  slow: {type: agui, url: %q, a2ui: {disabled: true}}
`, testRedisURL(), hex.EncodeToString(b[:]), up.URL)), 0o644)
	a := startInstance(t, cfg)
	bb := startInstance(t, cfg)

	t.Run("resume and cancel on the other instance", func(t *testing.T) {
		first := events(t, startRun(t, a.url, "x1"), func(e ev) bool { return e.id == 3 })
		rest := make(chan []ev, 1)
		go func() { rest <- events(t, get(t, bb.url+"/runs/x1/events", 3), nil) }()
		time.Sleep(200 * time.Millisecond)
		resp, err := http.Post(bb.url+"/runs/x1/cancel", "application/json", nil)
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if !strings.Contains(string(body), `"stopped":true`) {
			t.Fatalf("cancel from B = %s", body)
		}
		got := <-rest
		all := append(first, got...)
		contiguous(t, all, 1)
		if last := all[len(all)-1].data; !strings.Contains(last, `"code":"cancelled"`) {
			t.Errorf("run ended with %s", last)
		}
		deadline := time.Now().Add(3 * time.Second)
		for aborted.Load() < 1 && time.Now().Before(deadline) {
			time.Sleep(10 * time.Millisecond)
		}
		if aborted.Load() < 1 {
			t.Error("A's upstream request was not aborted")
		}
	})

	t.Run("a killed owner ends with owner_lost", func(t *testing.T) {
		first := events(t, startRun(t, a.url, "x2"), func(e ev) bool { return e.id == 5 })
		a.cmd.Process.Kill()
		<-a.done
		all := events(t, get(t, bb.url+"/runs/x2/events", 0), nil)
		contiguous(t, all, 1)
		if len(all) < len(first)+1 {
			t.Fatalf("B replayed %d events, fewer than A delivered (%d)", len(all), len(first))
		}
		if last := all[len(all)-1].data; !strings.Contains(last, `"code":"owner_lost"`) {
			t.Errorf("run ended with %s, want owner_lost", last)
		}
	})

	t.Run("a rolling restart loses no logged event", func(t *testing.T) {
		c := startInstance(t, cfg)
		seen := events(t, startRun(t, c.url, "x3"), func(e ev) bool { return e.id == 4 })
		c.cmd.Process.Signal(syscall.SIGTERM)
		select {
		case <-c.done:
		case <-time.After(20 * time.Second):
			t.Fatal("instance did not stop on SIGTERM")
		}
		all := events(t, get(t, bb.url+"/runs/x3/events", 0), nil)
		contiguous(t, all, 1)
		if len(all) < len(seen) {
			t.Fatalf("replayed %d events, the client had seen %d", len(all), len(seen))
		}
		for i := range seen {
			if seen[i] != all[i] {
				t.Fatalf("event %d differs after the restart", i)
			}
		}
		if last := all[len(all)-1].data; !strings.Contains(last, `"code":"shutdown"`) {
			t.Errorf("run ended with %s, want shutdown", last)
		}
		d := startInstance(t, cfg) // the replacement serves old runs too
		again := events(t, get(t, d.url+"/runs/x3/events", 2), nil)
		contiguous(t, again, 3)
		if len(again) != len(all)-2 {
			t.Errorf("new instance replayed %d events, want %d", len(again), len(all)-2)
		}
	})
}
