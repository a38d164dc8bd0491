package adapter

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"
)

// started is what a run start was answered with.
type started struct {
	status     int
	retryAfter string
	code       string // the JSON error body's error
	closed     bool   // the server closes the connection
}

// startOn starts a run with client (nil: the default) and reads the
// whole answer.
func startOn(t *testing.T, client *http.Client, url, body string, hdr map[string]string) started {
	t.Helper()
	req, _ := http.NewRequest(http.MethodPost, url, strings.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	for k, v := range hdr {
		req.Header.Set(k, v)
	}
	if client == nil {
		client = http.DefaultClient
	}
	resp, err := client.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	st := started{status: resp.StatusCode, retryAfter: resp.Header.Get("Retry-After"), closed: resp.Close}
	if resp.StatusCode != 200 {
		var e errorBody
		if err := json.Unmarshal(b, &e); err != nil {
			t.Fatalf("a %d answer without the JSON error body: %q", resp.StatusCode, b)
		}
		st.code = e.Error
	}
	return st
}

// wantLimited checks a refused start: 429, Retry-After in whole seconds
// ≥ 1, the error named, the connection kept.
func wantLimited(t *testing.T, what string, st started) {
	t.Helper()
	n, err := strconv.Atoi(st.retryAfter)
	if st.status != http.StatusTooManyRequests || err != nil || n < 1 || st.code != "too_many_run_starts" {
		t.Fatalf("%s = %d, Retry-After %q, error %q; want 429, Retry-After ≥ 1 s, too_many_run_starts", what, st.status, st.retryAfter, st.code)
	}
	if st.closed {
		t.Errorf("%s: the refusal closed the connection (its body was read: nothing to drain)", what)
	}
}

// A principal's burst+1-th run start in a row is refused with 429 and
// Retry-After on every route that starts a run, before any stream;
// another principal still starts runs; the refused one starts again once
// its bucket has a token.
func TestRunStartsLimitedPerPrincipal(t *testing.T) {
	const burst = 3
	routes := []struct {
		name string
		url  func(base string) string
		body func(thread string) string
	}{
		{"agui", func(b string) string { return b + "/agents/d/run" }, func(th string) string { return runJSON(th, "r-"+th, "hi") }},
		{"copilotkit", func(b string) string { return b + "/api/copilotkit/agent/d/run" }, func(th string) string { return runJSON(th, "r-"+th, "hi") }},
		{"copilotkit-single", func(b string) string { return b + "/api/copilotkit" }, func(th string) string {
			return `{"method":"agent/run","params":{"agentId":"d"},"body":` + runJSON(th, "r-"+th, "hi") + `}`
		}},
	}
	for _, rt := range routes {
		t.Run(rt.name, func(t *testing.T) {
			t.Parallel()
			// A token every 4 s: the starts below take far less.
			ts := serveYAML(t, twoPrincipals+fmt.Sprintf("limits: {runStartsPerSecond: 0.25, runStartBurst: %d}\nagents: {d: {type: demo}}\n", burst))
			url := rt.url(ts.URL)
			for i := range burst {
				if st := startOn(t, nil, url, rt.body(fmt.Sprintf("a%d", i)), alice); st.status != 200 {
					t.Fatalf("alice's start %d of %d = %d (%s), want 200", i+1, burst, st.status, st.code)
				}
			}
			over := startOn(t, nil, url, rt.body("a-over"), alice)
			wantLimited(t, "alice's start over the burst", over)
			if st := startOn(t, nil, url, rt.body("b0"), bob); st.status != 200 {
				t.Fatalf("bob's start while alice is limited = %d (%s), want 200", st.status, st.code)
			}
			n, _ := strconv.Atoi(over.retryAfter)
			if n > 4 {
				t.Fatalf("Retry-After %d s, want at most 4 (a token every 4 s)", n)
			}
			time.Sleep(time.Duration(n)*time.Second + 50*time.Millisecond)
			if st := startOn(t, nil, url, rt.body("a-later"), alice); st.status != 200 {
				t.Fatalf("alice's start after Retry-After = %d (%s), want 200", st.status, st.code)
			}
			if v, ok := metricValue(t, ts.URL, "genui_run_starts_limited_total"); !ok || v != 1 {
				t.Errorf("genui_run_starts_limited_total = %v (%v), want 1", v, ok)
			}
		})
	}
}

// The routes share one bucket: a principal cannot start more by spreading
// its starts over them.
func TestRunStartsLimitedAcrossRoutes(t *testing.T) {
	ts := serveYAML(t, twoPrincipals+"limits: {runStartsPerSecond: 0.2, runStartBurst: 2}\nagents: {d: {type: demo}}\n")
	if st := startOn(t, nil, ts.URL+"/agents/d/run", runJSON("t1", "r1", "hi"), alice); st.status != 200 {
		t.Fatalf("AG-UI start = %d", st.status)
	}
	if st := startOn(t, nil, ts.URL+"/api/copilotkit/agent/d/run", runJSON("t2", "r2", "hi"), alice); st.status != 200 {
		t.Fatalf("CopilotKit start = %d", st.status)
	}
	st := startOn(t, nil, ts.URL+"/api/copilotkit", `{"method":"agent/run","params":{"agentId":"d"},"body":`+runJSON("t3", "r3", "hi")+`}`, alice)
	wantLimited(t, "the third start, on the single route", st)
	// A token every 5 s, less the time the three starts took.
	if n, _ := strconv.Atoi(st.retryAfter); n < 3 || n > 5 {
		t.Errorf("Retry-After = %s, want 3 to 5 (a token every 5 s)", st.retryAfter)
	}
}

// Without auth every client address has a bucket of its own: one client
// over its limit does not stop another (here 127.0.0.2, another loopback
// address).
func TestRunStartsAnonymousPerAddress(t *testing.T) {
	ts := serveYAML(t, "limits: {runStartsPerSecond: 0.1, runStartBurst: 1}\nagents: {d: {type: demo}}\n")
	from := func(ip string) *http.Client {
		d := &net.Dialer{LocalAddr: &net.TCPAddr{IP: net.ParseIP(ip)}}
		tr := &http.Transport{DialContext: func(ctx context.Context, network, addr string) (net.Conn, error) {
			return d.DialContext(ctx, network, addr)
		}}
		t.Cleanup(tr.CloseIdleConnections)
		return &http.Client{Transport: tr}
	}
	one, two := from("127.0.0.1"), from("127.0.0.2")
	if st := startOn(t, one, ts.URL+"/agents/d/run", runJSON("t1", "r1", "hi"), nil); st.status != 200 {
		t.Fatalf("first start from 127.0.0.1 = %d", st.status)
	}
	wantLimited(t, "second start from 127.0.0.1", startOn(t, one, ts.URL+"/agents/d/run", runJSON("t2", "r2", "hi"), nil))
	if st := startOn(t, two, ts.URL+"/agents/d/run", runJSON("t3", "r3", "hi"), nil); st.status != 200 {
		t.Fatalf("first start from 127.0.0.2 = %d (%s), want 200", st.status, st.code)
	}
}

// runStartsPerSecond -1 turns the limit off; other negative or infinite
// rates are refused.
func TestRunStartsConfig(t *testing.T) {
	ts := serveYAML(t, "limits: {runStartsPerSecond: -1}\nagents: {d: {type: demo}}\n")
	for i := range defaultRunStartBurst + 5 {
		if st := startOn(t, nil, ts.URL+"/agents/d/run", runJSON(fmt.Sprint("t", i), fmt.Sprint("r", i), "hi"), nil); st.status != 200 {
			t.Fatalf("start %d without a limit = %d (%s)", i, st.status, st.code)
		}
	}
	for _, bad := range []string{"runStartsPerSecond: -2", "runStartsPerSecond: 0.0001", "runStartsPerSecond: 2e6", "runStartsPerSecond: .inf", "runStartsPerSecond: .nan", "runStartBurst: -1", "runStartPrincipals: -1"} {
		if _, err := ParseConfig([]byte("limits: {"+bad+"}\nagents: {d: {type: demo}}\n"), func(string) string { return "" }); err == nil {
			t.Errorf("limits.%s: accepted", bad)
		}
	}
}

// The defaults: 40 starts at once, then 10 a second.
func TestRunStartsDefaults(t *testing.T) {
	l := newStartLimiter(LimitsConfig{}, time.Unix(0, 0))
	now := time.Unix(1, 0)
	for i := range 40 {
		if _, ok := l.allow("p", now); !ok {
			t.Fatalf("start %d refused", i+1)
		}
	}
	wait, ok := l.allow("p", now)
	if ok || wait != 100*time.Millisecond {
		t.Fatalf("41st start: ok %v, wait %s; want refused, 100ms", ok, wait)
	}
	if _, ok := l.allow("p", now.Add(100*time.Millisecond)); !ok {
		t.Fatal("a start 100ms later refused")
	}
}

// The table keeps only buckets that are not full: a sweep (at most once
// per refill time) drops the rest and gives the map's memory back; at the
// cap an arbitrary bucket makes room, so many principals cannot grow it.
func TestStartLimiterTableIsBounded(t *testing.T) {
	epoch := time.Unix(0, 0)
	l := newStartLimiter(LimitsConfig{RunStartsPerSecond: 10, RunStartBurst: 20, RunStartPrincipals: 5000}, epoch)
	now := epoch.Add(time.Millisecond)
	for i := range 100_000 {
		l.allow("p"+strconv.Itoa(i), now)
	}
	if n := l.size(); n != 5000 {
		t.Fatalf("100,000 principals: %d buckets kept, want the cap 5000", n)
	}
	// A flooder empties its bucket.
	for range 25 {
		l.allow("flooder", now)
	}
	// Half the refill time later: nothing has refilled, nothing swept.
	if _, ok := l.allow("flooder", now.Add(50*time.Millisecond)); ok {
		t.Fatal("the flooder's bucket was not kept")
	}
	// A refill time (2 s) later every idle bucket is full: one sweep
	// leaves only the flooder's, still limited.
	later := now.Add(2*time.Second + 60*time.Millisecond)
	l.allow("flooder", later)
	if _, ok := l.allow("flooder", later); !ok {
		// 2 s at 10/s refills it: both are allowed.
		t.Fatal("the flooder's refilled bucket refused")
	}
	if n := l.size(); n != 1 {
		t.Fatalf("after the sweep %d buckets kept, want 1 (the flooder's)", n)
	}
	if l.high != 1 {
		t.Errorf("the map was not rebuilt after the sweep: high-water mark %d", l.high)
	}
	// The flooder keeps flooding: its bucket is kept across sweeps, and it
	// is limited to the rate.
	allowed := 0
	for ms := range 10_000 { // 10 s, a start attempt every ms
		if _, ok := l.allow("flooder", later.Add(time.Duration(ms)*time.Millisecond)); ok {
			allowed++
		}
	}
	if allowed > 20+100+1 {
		t.Errorf("the flooder started %d runs in 10 s, want at most its burst (18 left) and 100", allowed)
	}
}

// BenchmarkRunStartRefused is a run start refused by the limit, from one
// of 101 principals with static tokens, over one keep-alive connection:
// what each request of a flood costs once its principal is limited.
func BenchmarkRunStartRefused(b *testing.B) {
	cfg := Config{Listen: "x", Limits: LimitsConfig{RunStartsPerSecond: 0.001, RunStartBurst: 1}, Agents: map[string]AgentConfig{"a": {Backend: &DemoConfig{}}}}
	cfg.Auth.BearerTokens = map[string]string{}
	for i := range 101 {
		cfg.Auth.BearerTokens[fmt.Sprintf("p%d", i)] = fmt.Sprintf("bench-principal-%d", i)
	}
	s, err := NewServer(nil, cfg)
	if err != nil {
		b.Fatal(err)
	}
	ts := serveAdopted(s)
	b.Cleanup(func() { ts.Close(); s.Close() })
	client := &http.Client{Transport: &http.Transport{}}
	b.Cleanup(client.CloseIdleConnections)
	refused := 0
	for b.Loop() {
		req, _ := http.NewRequest(http.MethodPost, ts.URL+"/agents/a/run", strings.NewReader(`{"threadId":"t","runId":"r","messages":[]}`))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Authorization", "Bearer bench-principal-50")
		resp, err := client.Do(req)
		if err != nil {
			b.Fatal(err)
		}
		io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		if resp.StatusCode == http.StatusTooManyRequests {
			refused++
		}
	}
	if refused < b.N-1 {
		b.Fatalf("%d of %d starts refused, want all but the first", refused, b.N)
	}
}
