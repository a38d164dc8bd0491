package adapter

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/genui-adapter/genui-adapter/internal/redistest"
)

// TestRedisPausedAnswers503: while Redis does not answer, /readyz answers
// 503 within its deadline and a new run gets a clear 503, however long
// the Redis client's own read timeout.
func TestRedisPausedAnswers503(t *testing.T) {
	srv := redistest.Start(t)
	defer srv.Resume()
	up := newCountingUpstream(t, 2, time.Millisecond)
	a := serveYAML(t, fmt.Sprintf(`runlog: {backend: redis, url: "%s?read_timeout=5m", prefix: "%s"}
agents: {a: {type: agui, url: "%s", a2ui: {disabled: true}}}
`, srv.URL(), randomPrefix(), up.URL))
	if code, _, body := getJSON(t, a.URL+"/readyz", nil); code != 200 {
		t.Fatalf("readyz before the pause = %d %s", code, body)
	}
	srv.Pause()
	type answer struct {
		code int
		body string
	}
	var wg sync.WaitGroup
	got := make([]answer, 2)
	for i, req := range []struct{ method, path, body string }{
		{"GET", "/readyz", ""},
		{"POST", "/agents/a/run", runJSON("t", "paused", "x")},
	} {
		wg.Go(func() {
			r := doReq(t, req.method, a.URL+req.path, req.body, nil)
			b, _ := io.ReadAll(r.Body)
			r.Body.Close()
			got[i] = answer{r.StatusCode, string(b)}
		})
	}
	done := make(chan struct{})
	go func() { wg.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(20 * time.Second):
		// Not answered while Redis was paused: let it answer and see
		// what the clients are told.
		srv.Resume()
		<-done
	}
	srv.Resume()
	for i, what := range []string{"readyz", "a new run"} {
		if got[i].code != 503 || !strings.Contains(got[i].body, `"error":"runlog_unreachable"`) {
			t.Errorf("%s while Redis is paused = %d %s, want 503 runlog_unreachable", what, got[i].code, got[i].body)
		}
	}
	if code, _, body := getJSON(t, a.URL+"/readyz", nil); code != 200 {
		t.Errorf("readyz once Redis answers = %d %s", code, body)
	}
}

// ids checks that frames are events 1..n, in order, each once, ending
// with RUN_FINISHED.
func checkIDs(t *testing.T, who string, fs []frame, n int) {
	t.Helper()
	if len(fs) != n {
		t.Errorf("%s: %d events, want %d (last %q)", who, len(fs), n, lastType(fs))
	}
	for i, f := range fs {
		if id, _ := strconv.Atoi(f.id); id != i+1 {
			t.Errorf("%s: event %d has id %q: a hole, a duplicate or out of order", who, i, f.id)
			return
		}
	}
	if lastType(fs) != "RUN_FINISHED" {
		t.Errorf("%s: the run ended %q, want RUN_FINISHED", who, lastType(fs))
	}
}

// TestRedisBlinkCostsNoRun: Redis paused (SIGSTOP) for longer than the
// lease TTL in the middle of a run with readers on two instances. The
// run goes on: its events wait in process and are written once Redis
// answers; every reader gets every event once, in order; the run
// finishes; and every event is resumable afterwards on either instance.
func TestRedisBlinkCostsNoRun(t *testing.T) {
	srv := redistest.Start(t)
	defer srv.Resume()
	const n = 150
	up := newCountingUpstream(t, n, 20*time.Millisecond)
	a, b := twoOnRedis(t, up.URL, srv.URL(), srv.URL(), ", leaseTTL: 1s")
	run := doReq(t, "POST", a.URL+"/agents/a/run", runJSON("t", "blink", "x"), alice)
	defer run.Body.Close()
	if run.StatusCode != 200 {
		t.Fatalf("run: %d", run.StatusCode)
	}
	first := readFrames(run.Body, func(f frame) bool { return f.id == "10" })
	r := doReq(t, "GET", b.URL+"/runs/blink/events", "", map[string]string{"Authorization": alice["Authorization"], "Last-Event-ID": "0"})
	defer r.Body.Close()
	if r.StatusCode != 200 {
		t.Fatalf("a reader on the other instance: %d", r.StatusCode)
	}
	other := readFrames(r.Body, func(f frame) bool { return f.id == "10" })
	var wg sync.WaitGroup
	wg.Go(func() { other = append(other, readFrames(r.Body, nil)...) })
	srv.Pause()
	// Longer than the lease TTL and than the Redis client's read timeout
	// (5 s): every lease lapses, and every call in flight fails rather
	// than being answered when Redis continues.
	time.Sleep(8 * time.Second)
	srv.Resume()
	rest := readFrames(run.Body, nil)
	wg.Wait()
	checkIDs(t, "the starting client", append(first, rest...), n+2)
	checkIDs(t, "a reader on the other instance", other, n+2)
	for _, base := range []string{a.URL, b.URL} {
		r = doReq(t, "GET", base+"/runs/blink/events", "", map[string]string{"Authorization": alice["Authorization"], "Last-Event-ID": "0"})
		checkIDs(t, "a resume from 0 afterwards", readFrames(r.Body, nil), n+2)
		r.Body.Close()
	}
}

// TestRedisOutageBeyondTolerance: an outage longer than
// runlog.outageTolerance ends the run with a clear code, and what the run
// produced before is kept, in order.
func TestRedisOutageBeyondTolerance(t *testing.T) {
	srv := redistest.Start(t)
	defer srv.Resume()
	up := newCountingUpstream(t, 150, 20*time.Millisecond)
	a, _ := twoOnRedis(t, up.URL, srv.URL(), srv.URL(), ", leaseTTL: 1s, outageTolerance: 1s")
	run := doReq(t, "POST", a.URL+"/agents/a/run", runJSON("t", "long", "x"), alice)
	defer run.Body.Close()
	if run.StatusCode != 200 {
		t.Fatalf("run: %d", run.StatusCode)
	}
	first := readFrames(run.Body, func(f frame) bool { return f.id == "10" })
	srv.Pause()
	time.Sleep(4 * time.Second) // four times the tolerance
	srv.Resume()
	fs := append(first, readFrames(run.Body, nil)...)
	if got := lastType(fs); got != "RUN_ERROR:run_log_unavailable" {
		t.Fatalf("the run ended %q, want RUN_ERROR:run_log_unavailable", got)
	}
	for i, f := range fs {
		if f.id == "" && i == len(fs)-1 {
			break // the in-band end of a run whose end Redis did not take
		}
		if id, _ := strconv.Atoi(f.id); id != i+1 {
			t.Fatalf("event %d has id %q", i, f.id)
		}
	}
}

// TestRedisDownStartingClientTold: when Redis stops answering for good,
// the client that started the run is told in-band (RUN_ERROR) once the
// outage tolerance has passed and the run log still cannot be read, as a
// reader that attached later is; its stream does not just stop.
func TestRedisDownStartingClientTold(t *testing.T) {
	srv := redistest.Start(t)
	defer srv.Resume()
	up := newCountingUpstream(t, 1000, 20*time.Millisecond)
	a, _ := twoOnRedis(t, up.URL, srv.URL(), srv.URL(), ", leaseTTL: 1s, outageTolerance: 1s")
	run := doReq(t, "POST", a.URL+"/agents/a/run", runJSON("t", "down", "x"), alice)
	defer run.Body.Close()
	if run.StatusCode != 200 {
		t.Fatalf("run: %d", run.StatusCode)
	}
	first := readFrames(run.Body, func(f frame) bool { return f.id == "10" })
	srv.Pause() // and not resumed while the client reads
	done := make(chan []frame)
	go func() { done <- readFrames(run.Body, nil) }()
	var fs []frame
	select {
	case fs = <-done:
	case <-time.After(30 * time.Second):
		t.Fatal("the starting client's stream did not end while Redis is down")
	}
	fs = append(first, fs...)
	if got := lastType(fs); !strings.HasPrefix(got, "RUN_ERROR:") {
		t.Fatalf("the starting client's stream ended with %q, want an in-band RUN_ERROR", got)
	}
}

// followRun reads a run's events on base from after, resuming with
// Last-Event-ID when a stream ends without the run's terminal event, and
// returns every frame it got.
// It gives up after a minute (a stream that never ends fails the test
// instead of hanging it).
func followRun(t *testing.T, base, runID string, after int) []frame {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	var out []frame
	for attempt := 0; attempt < 50 && ctx.Err() == nil; attempt++ {
		req, _ := http.NewRequestWithContext(ctx, "GET", base+"/runs/"+runID+"/events", nil)
		req.Header.Set("Authorization", alice["Authorization"])
		req.Header.Set("Last-Event-ID", strconv.Itoa(after))
		r, err := http.DefaultClient.Do(req)
		if err != nil {
			break
		}
		if r.StatusCode != 200 {
			r.Body.Close()
			time.Sleep(200 * time.Millisecond)
			continue
		}
		fs := readFrames(r.Body, nil)
		r.Body.Close()
		out = append(out, fs...)
		if len(fs) > 0 {
			after, _ = strconv.Atoi(fs[len(fs)-1].id)
			if last := lastType(fs); strings.HasPrefix(last, "RUN_") && last != "RUN_STARTED" {
				return out
			}
		}
	}
	t.Errorf("%s on %s: gave up resuming", runID, base)
	return out
}

// TestChaosRedisBlink: two instances on one Redis, runs started on both
// and followed on both, Redis paused for 5 s (the lease TTL) in the
// middle of the runs, then, in a second round, restarted without its
// data. After a pause nothing is lost: every client gets every event
// once, in order, every run finishes, and every event is resumable on
// either instance afterwards. After a restart the runs go on and finish
// and their starting clients (on the run's own instance) get every event
// once, in order; a reader on the other instance gets events in order,
// each once, and ends with the run or, for events Redis lost before it
// could read them, an explicit resume_gap.
func TestChaosRedisBlink(t *testing.T) {
	srv := redistest.Start(t)
	defer srv.Resume()
	const n, runs = 200, 6
	up := newCountingUpstream(t, n, 25*time.Millisecond)
	a, b := twoOnRedis(t, up.URL, srv.URL(), srv.URL(), "")
	for _, fault := range []string{"pause", "restart"} {
		t.Run(fault, func(t *testing.T) {
			var wg sync.WaitGroup
			starting := make([][]frame, runs)
			others := make([][]frame, runs)
			ids := make([]string, runs)
			for i := range runs {
				own, other := a, b
				if i%2 == 1 {
					own, other = b, a
				}
				ids[i] = fmt.Sprintf("%s-%d", fault, i)
				r := doReq(t, "POST", own.URL+"/agents/a/run", runJSON("t-"+ids[i], ids[i], "x"), alice)
				if r.StatusCode != 200 {
					t.Fatalf("run %s: %d", ids[i], r.StatusCode)
				}
				first := readFrames(r.Body, func(f frame) bool { return f.id == "3" })
				// A stream that never ends fails the test instead of
				// hanging it.
				watchdog := time.AfterFunc(time.Minute, func() { r.Body.Close() })
				defer watchdog.Stop()
				wg.Go(func() {
					defer r.Body.Close()
					starting[i] = append(first, readFrames(r.Body, nil)...)
				})
				wg.Go(func() { others[i] = followRun(t, other.URL, ids[i], 0) })
			}
			time.Sleep(time.Second) // the runs are well under way
			switch fault {
			case "pause":
				srv.Pause()
				time.Sleep(5 * time.Second)
				srv.Resume()
			case "restart":
				srv.Restart(2 * time.Second)
			}
			wg.Wait()
			for i, id := range ids {
				checkIDs(t, id+": the starting client", starting[i], n+2)
				if fault == "pause" {
					checkIDs(t, id+": a reader on the other instance", others[i], n+2)
					for _, base := range []string{a.URL, b.URL} {
						checkIDs(t, id+": a resume from 0 afterwards", followRun(t, base, id, 0), n+2)
					}
					continue
				}
				fs := others[i]
				for j := 1; j < len(fs); j++ {
					p, _ := strconv.Atoi(fs[j-1].id)
					q, _ := strconv.Atoi(fs[j].id)
					if q <= p {
						t.Errorf("%s: a reader on the other instance got id %d after %d", id, q, p)
					}
				}
				if last := lastType(fs); last != "RUN_FINISHED" && last != "RUN_ERROR:resume_gap" {
					t.Errorf("%s: a reader on the other instance ended %q", id, last)
				}
				t.Logf("%s: a reader on the other instance got %d of %d events, ending %s", id, len(fs), n+2, lastType(fs))
			}
		})
	}
}

// TestDrainWaitsForTheLastAppend: a run ended by a drain while Redis does
// not answer (within the outage tolerance) is ended in the log with
// shutdown once Redis answers: the instance waits for that append before
// it closes, rather than leaving the run for a reader to end owner_lost.
func TestDrainWaitsForTheLastAppend(t *testing.T) {
	srv := redistest.Start(t)
	defer srv.Resume()
	up := newCountingUpstream(t, 1000, 20*time.Millisecond)
	a, b := twoOnRedis(t, up.URL, srv.URL(), srv.URL(), ", leaseTTL: 1s")
	run := doReq(t, "POST", a.URL+"/agents/a/run", runJSON("t", "drained", "x"), alice)
	defer run.Body.Close()
	if run.StatusCode != 200 {
		t.Fatalf("run: %d", run.StatusCode)
	}
	readFrames(run.Body, func(f frame) bool { return f.id == "10" })
	srv.Pause()
	go func() {
		// Redis answers again within the outage tolerance (15 s), after
		// Drain's wait for streams (5 s) would have passed.
		time.Sleep(8 * time.Second)
		srv.Resume()
	}()
	a.s.Drain(100 * time.Millisecond)
	a.CloseClientConnections()
	a.s.Close() // as the process does once Drain returns
	srv.Resume()
	r := doReq(t, "GET", b.URL+"/runs/drained/events", "", map[string]string{"Authorization": alice["Authorization"], "Last-Event-ID": "0"})
	defer r.Body.Close()
	fs := readFrames(r.Body, nil)
	if len(fs) == 0 || !strings.Contains(fs[len(fs)-1].data, `"code":"shutdown"`) {
		last := ""
		if len(fs) > 0 {
			last = fs[len(fs)-1].data
		}
		t.Fatalf("the drained run ended with %s, want RUN_ERROR shutdown", last)
	}
}
