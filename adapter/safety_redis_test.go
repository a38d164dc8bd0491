package adapter

// Regression tests for the second table of the "safe to share" issue: two
// instances sharing a real Redis.

import (
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/genui-adapter/genui-adapter/internal/redistest"
)

// redisVia is the test Redis URL with its host replaced by addr.
func redisVia(addr string, query string) string {
	u, _ := url.Parse(testRedisURL())
	if addr != "" {
		u.Host = addr
	}
	u.RawQuery = query
	return u.String()
}

func redisHost() string {
	u, _ := url.Parse(testRedisURL())
	return u.Host
}

// twoOnRedis serves the same config twice on one Redis prefix; extra is
// YAML for the second runlog keys (per instance: a, b).
func twoOnRedis(t *testing.T, upURL string, urlA, urlB, extra string) (a, b *adoptedServer) {
	prefix := randomPrefix()
	mk := func(name, u string) *adoptedServer {
		return serveYAML(t, twoPrincipals+fmt.Sprintf(`instanceId: %s
detachGrace: 30s
runlog: {backend: redis, url: "%s", prefix: "%s"%s}
agents: {a: {type: agui, url: "%s", a2ui: {disabled: true}}}
`, name, u, prefix, extra, upURL))
	}
	return mk("inst-a", urlA), mk("inst-b", urlB)
}

// Row 13: run ids cannot address another run's Redis keys.
func TestSafeRedisKeysCannotCollide(t *testing.T) {
	up := newCountingUpstream(t, 12, 25*time.Millisecond)
	a, b := twoOnRedis(t, up.URL, testRedisURL(), testRedisURL(), "")
	run := doReq(t, "POST", a.URL+"/agents/a/run", runJSON("ta", "alice-run", "x"), alice)
	defer run.Body.Close()
	readFrames(run.Body, func(f frame) bool { return f.id == "2" })
	for _, who := range []map[string]string{bob, alice} {
		for _, id := range []string{"alice-run:end", "alice-run:ev", "alice-run:seq"} {
			code, fs := runAll(t, b.URL, "a", runJSON("tb-"+id, id, "x"), who)
			if code != 200 || lastType(fs) != "RUN_FINISHED" {
				t.Errorf("run %q = %d %s", id, code, lastType(fs))
			}
		}
	}
	if rest := readFrames(run.Body, nil); lastType(rest) != "RUN_FINISHED" {
		t.Errorf("alice's run ended %q, want RUN_FINISHED", lastType(rest))
	}
	if code, _, _ := getJSON(t, b.URL+"/threads/ta/messages", alice); code != 200 {
		t.Errorf("alice's thread = %d", code)
	}
	// A run whose id looks like another run's key suffix, then that run.
	if code, fs := runAll(t, a.URL, "a", runJSON("tx1", "X:ev", "x"), bob); code != 200 || lastType(fs) != "RUN_FINISHED" {
		t.Errorf("run X:ev = %d %s", code, lastType(fs))
	}
	if code, fs := runAll(t, b.URL, "a", runJSON("tx2", "X", "x"), bob); code != 200 || lastType(fs) != "RUN_FINISHED" {
		t.Errorf("run X after X:ev = %d %s", code, lastType(fs))
	}
}

// Row 14: resume readers share one tail per run and instance: many of
// them do not take Redis connections from the runs, and a principal's
// readers are capped.
func TestSafeRedisReadersDoNotStarveRuns(t *testing.T) {
	up := newCountingUpstream(t, 40, 25*time.Millisecond)
	// A small pool: with a connection per reader the runs would starve.
	a, b := twoOnRedis(t, up.URL, redisVia("", "pool_size=4"), testRedisURL(), "")
	run := doReq(t, "POST", b.URL+"/agents/a/run", runJSON("t", "long", "x"), alice)
	defer run.Body.Close()
	readFrames(run.Body, func(f frame) bool { return f.id == "2" })
	const readers = 40
	var wg sync.WaitGroup
	var full atomic.Int32
	for range readers {
		wg.Go(func() {
			r := doReq(t, "GET", a.URL+"/runs/long/events", "", alice)
			defer r.Body.Close()
			if fs := readFrames(r.Body, nil); len(fs) == 42 && lastType(fs) == "RUN_FINISHED" {
				full.Add(1)
			}
		})
	}
	time.Sleep(200 * time.Millisecond)
	for i := range 3 {
		code, fs := runAll(t, a.URL, "a", runJSON(fmt.Sprint("tb", i), fmt.Sprint("rb", i), "x"), bob)
		if code != 200 || lastType(fs) != "RUN_FINISHED" {
			t.Errorf("bob's run %d on the readers' instance = %d %s", i, code, lastType(fs))
		}
	}
	wg.Wait()
	if full.Load() != readers {
		t.Errorf("%d of %d readers got the whole run", full.Load(), readers)
	}

	capped := serveYAML(t, twoPrincipals+`detachGrace: 30s
limits: {maxReadersPerPrincipal: 3}
agents: {a: {type: agui, url: "`+up.URL+`", a2ui: {disabled: true}}}`)
	run2 := doReq(t, "POST", capped.URL+"/agents/a/run", runJSON("t", "r", "x"), alice)
	defer run2.Body.Close()
	readFrames(run2.Body, func(f frame) bool { return f.id == "1" })
	var open []*http.Response
	for range 3 {
		r := doReq(t, "GET", capped.URL+"/runs/r/events", "", alice)
		open = append(open, r)
	}
	r := doReq(t, "GET", capped.URL+"/runs/r/events", "", alice)
	r.Body.Close()
	if r.StatusCode != http.StatusTooManyRequests {
		t.Errorf("alice's 4th reader = %d, want 429", r.StatusCode)
	}
	for _, r := range open {
		r.Body.Close()
	}
}

// Rows 15 and 16: when Redis stalls, the run's owner gives it up and the
// thread is free again within the lease time; readiness follows the run
// log.
func TestSafeRedisStall(t *testing.T) {
	up := newCountingUpstream(t, 400, 25*time.Millisecond)
	px := redistest.NewProxy(t, redisHost())
	a, b := twoOnRedis(t, up.URL, redisVia(px.Addr(), ""), testRedisURL(), ", leaseTTL: 1s")
	run := doReq(t, "POST", a.URL+"/agents/a/run", runJSON("t", "stalled", "x"), alice)
	readFrames(run.Body, func(f frame) bool { return f.id == "2" })
	run.Body.Close() // no client attached from here on
	if code, _, _ := getJSON(t, a.URL+"/readyz", nil); code != 200 {
		t.Fatalf("readyz before the stall = %d", code)
	}
	px.Stall()
	deadline := time.Now().Add(4 * time.Second)
	code := 0
	for time.Now().Before(deadline) {
		r := doReq(t, "POST", b.URL+"/agents/a/run", runJSON("t", fmt.Sprint("next-", time.Now().UnixNano()), "x"), alice)
		code = r.StatusCode
		if code == 200 {
			readFrames(r.Body, func(f frame) bool { return f.id == "1" })
		}
		r.Body.Close()
		if code == 200 {
			break
		}
		time.Sleep(200 * time.Millisecond)
	}
	if code != 200 {
		t.Errorf("a new run on the thread while its owner's Redis stalls = %d, want 200 within the lease time", code)
	}
	if code, _, _ := getJSON(t, a.URL+"/readyz", nil); code != 503 {
		t.Errorf("readyz while Redis stalls = %d, want 503", code)
	}
	px.Resume()
	// The stalled run ended owner_lost (its owner gave it up).
	deadline = time.Now().Add(5 * time.Second)
	got := ""
	for time.Now().Before(deadline) && !strings.Contains(got, "owner_lost") {
		r := doReq(t, "GET", b.URL+"/runs/stalled/events", "", alice)
		fs := readFrames(r.Body, func(f frame) bool { return strings.Contains(f.data, "RUN_ERROR") })
		r.Body.Close()
		got = lastType(fs)
		time.Sleep(100 * time.Millisecond)
	}
	if got != "RUN_ERROR:owner_lost" {
		t.Errorf("the stalled run ended %q, want RUN_ERROR:owner_lost", got)
	}
	if code, _, _ := getJSON(t, a.URL+"/readyz", nil); code != 200 {
		t.Errorf("readyz after Redis is back = %d", code)
	}
	px.Down()
	time.Sleep(100 * time.Millisecond)
	if code, _, _ := getJSON(t, a.URL+"/readyz", nil); code != 503 {
		t.Errorf("readyz while Redis is down = %d, want 503", code)
	}
	io.Discard.Write(nil)
}

// Rows 2, 4 and 11 on Redis with two instances: ownership holds across
// instances.
func TestSafeOwnershipOnRedis(t *testing.T) {
	up := newCountingUpstream(t, 8, 20*time.Millisecond)
	a, b := twoOnRedis(t, up.URL, testRedisURL(), testRedisURL(), "")
	if code, fs := runAll(t, a.URL, "a", runJSON("t", "r1", "alice's secret"), alice); code != 200 || lastType(fs) != "RUN_FINISHED" {
		t.Fatalf("alice's run: %d %s", code, lastType(fs))
	}
	if code, fs := runAll(t, b.URL, "a", runJSON("t", "r1", "bob here"), bob); code != 200 || lastType(fs) != "RUN_FINISHED" {
		t.Fatalf("bob's run with alice's ids on the other instance: %d %s", code, lastType(fs))
	}
	for _, base := range []string{a.URL, b.URL} {
		_, _, bobView := getJSON(t, base+"/threads/t/messages", bob)
		_, _, aliceView := getJSON(t, base+"/threads/t/messages", alice)
		if strings.Contains(bobView, "alice's secret") || !strings.Contains(aliceView, "alice's secret") || strings.Contains(aliceView, "bob here") {
			t.Errorf("%s: bob sees %s; alice sees %s", base, bobView, aliceView)
		}
		r := doReq(t, "POST", base+"/api/copilotkit/agent/a/connect", `{"threadId":"t"}`, bob)
		body, _ := io.ReadAll(r.Body)
		r.Body.Close()
		if strings.Contains(string(body), "alice's secret") {
			t.Errorf("%s: bob's /connect replays alice's thread", base)
		}
	}
	// Alice's active run on A: bob can neither see, cancel nor stop it
	// from B, and his run on the same thread id does not supersede it.
	live := doReq(t, "POST", a.URL+"/agents/a/run", runJSON("t2", "live", "x"), alice)
	defer live.Body.Close()
	readFrames(live.Body, func(f frame) bool { return f.id == "2" })
	for _, tt := range []struct{ method, path, body string }{
		{"GET", "/runs/live/events", ""},
		{"POST", "/runs/live/cancel", ""},
		{"POST", "/api/copilotkit/agent/a/stop/t2", "{}"},
	} {
		r := doReq(t, tt.method, b.URL+tt.path, tt.body, bob)
		body, _ := io.ReadAll(r.Body)
		r.Body.Close()
		if strings.Contains(string(body), `"stopped":true`) || (tt.method == "GET" && r.StatusCode != 404) {
			t.Errorf("bob %s %s on the other instance = %d %s", tt.method, tt.path, r.StatusCode, body)
		}
	}
	if code, _ := runAll(t, b.URL, "a", runJSON("t2", "bob-live", "x"), bob); code != 200 {
		t.Errorf("bob's run on his own t2 = %d", code)
	}
	if rest := readFrames(live.Body, nil); lastType(rest) != "RUN_FINISHED" {
		t.Errorf("alice's run ended %q, want RUN_FINISHED", lastType(rest))
	}
	// Alice resumes her run on the other instance.
	r := doReq(t, "GET", b.URL+"/runs/live/events", "", alice)
	fs := readFrames(r.Body, nil)
	r.Body.Close()
	if len(fs) != 10 || lastType(fs) != "RUN_FINISHED" {
		t.Errorf("alice's resume on the other instance = %d events ending %s", len(fs), lastType(fs))
	}
}
