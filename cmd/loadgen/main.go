// Command loadgen measures what the adapter costs against a direct
// connection and against the floor any relay pays: a built-in byte-copy
// pass-through. It runs N concurrent paced streams through each target
// and prints latency percentiles, lost events, CPU seconds and RSS side by
// side. The upstream, the pass-through and the adapter each run in their
// own process (this program, re-executed with -role), so the CPU and RSS
// figures are the relay's own; the clients run here.
//
//	go run ./cmd/loadgen                      # every scenario below (about 4 minutes)
//	go run ./cmd/loadgen -scenario fanout     # 1,000 streams x 20 ev/s x 30 s, memory and Redis run logs
//	go run ./cmd/loadgen -scenario idle       # 10,000 streams x 1 ev/s x 20 s (also under the 448 MiB limit of a 512 MiB container)
//	go run ./cmd/loadgen -scenario single     # one stream at 200 ev/s, and unpaced (three ways: see unpacedModes)
//	go run ./cmd/loadgen -scenario a2ui       # A2UI validation of the financial data grid, one core
//	go run ./cmd/loadgen -scenario smoke      # CI: 200 streams for a few seconds; fails on lost events or errors
//	go run ./cmd/loadgen -scenario flood      # one principal floods run starts while 100 others stream (about 50 s; not in all)
//	go run ./cmd/loadgen -scenario custom -streams 500 -rate 50 -duration 10s -targets direct,passthrough,adapter
//
// A number that was not measured (a target that failed to start, a
// process whose /proc could not be read) is printed as "n/m", never as a
// zero or a guess, and no ratio is computed from it.
package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"iter"
	"log/slog"
	"math"
	"net"
	"net/http"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/genui-adapter/genui-adapter/a2ui"
	"github.com/genui-adapter/genui-adapter/adapter"
	"github.com/genui-adapter/genui-adapter/adapter/runlog"
	"github.com/genui-adapter/genui-adapter/agui"
)

func main() {
	if err := run(os.Args, os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "loadgen:", err)
		os.Exit(1)
	}
}

type options struct {
	role, scenario, targets    string
	streams, rate              int
	duration                   time.Duration
	upstream, runlog, redisURL string
	listen, pprofFile          string
	heartbeat                  time.Duration
	probes                     int
	memlimit                   string
	h2                         bool
	relayCore                  int // > 0: relays run on this CPU alone (single)
	runStarts                  float64
	principals                 int
}

func run(args []string, out io.Writer) error {
	fs := flag.NewFlagSet(args[0], flag.ContinueOnError)
	var o options
	fs.StringVar(&o.role, "role", "", "internal: run as upstream, passthrough or adapter")
	fs.StringVar(&o.scenario, "scenario", "all", "all, fanout, idle, single, a2ui, smoke, flood or custom")
	fs.StringVar(&o.targets, "targets", "direct,passthrough,adapter", "custom: targets (direct, passthrough, adapter, adapter-redis, adapter-448MiB)")
	fs.IntVar(&o.streams, "streams", 1000, "custom: concurrent streams")
	fs.IntVar(&o.rate, "rate", 20, "custom: events/s per stream")
	fs.DurationVar(&o.duration, "duration", 10*time.Second, "custom: how long each stream lasts")
	fs.StringVar(&o.upstream, "upstream", "", "internal: the upstream base URL")
	fs.StringVar(&o.runlog, "runlog", "memory", "internal: the adapter's run log (memory or redis)")
	fs.StringVar(&o.redisURL, "redis", "redis://127.0.0.1:6379/14", "Redis URL for the Redis run log")
	fs.StringVar(&o.listen, "listen", "127.0.0.1:0", "internal: listen address")
	fs.StringVar(&o.pprofFile, "cpuprofile", "", "write the adapter's CPU profile of each adapter phase to this file prefix")
	fs.DurationVar(&o.heartbeat, "heartbeat", 15*time.Second, "the adapter's SSE heartbeat")
	fs.StringVar(&o.memlimit, "memlimit", "", "the adapter's soft memory limit in MiB, as config memoryLimit (off: none; default: the service's default)")
	fs.BoolVar(&o.h2, "h2", true, "relays reach the upstream over HTTP/2 without TLS (false: HTTP/1.1, a connection per stream, the agent default); the single scenario always uses HTTP/1.1")
	fs.IntVar(&o.probes, "probes", 200, "runs started while the fan-out (or custom) load is live, to time their start")
	fs.Float64Var(&o.runStarts, "runstarts", -1, "internal: the adapter's limits.runStartsPerSecond (-1: no limit, as the scenarios that start a thousand runs a second from one client need; 0: the default)")
	fs.IntVar(&o.principals, "principals", 0, "internal: the adapter knows this many principals, p0 to pN-1, by bearer token (0: no auth)")
	if err := fs.Parse(args[1:]); err != nil {
		return err
	}
	switch o.role {
	case "upstream":
		return serveRole(o.listen, http.HandlerFunc(upstream), true)
	case "passthrough":
		mux := http.NewServeMux()
		mux.HandleFunc("/__memstats", memstats)
		mux.Handle("/", passthrough(o.upstream, o.h2))
		return serveRole(o.listen, mux, false)
	case "adapter":
		return adapterRole(o)
	case "":
	default:
		return fmt.Errorf("unknown role %q", o.role)
	}
	fmt.Fprintf(out, "loadgen: %s, %d CPUs, GOMAXPROCS=%d, %s\n", runtime.Version(), runtime.NumCPU(), runtime.GOMAXPROCS(0), time.Now().UTC().Format(time.RFC3339))
	var failed []string
	do := func(name string, f func() error) {
		if err := f(); err != nil {
			fmt.Fprintf(out, "\n%s: FAILED: %v\n", name, err)
			failed = append(failed, name)
		}
	}
	all := o.scenario == "all"
	if all || o.scenario == "fanout" {
		do("fanout", func() error {
			return compare(out, o, "1,000 streams x 20 ev/s x 30 s", 1000, 20, 30*time.Second, []string{"direct", "passthrough", "adapter", "adapter-redis"}, o.probes)
		})
	}
	if all || o.scenario == "idle" {
		do("idle", func() error {
			return compare(out, o, "10,000 streams x 1 ev/s x 20 s", 10000, 1, 20*time.Second, []string{"direct", "passthrough", "adapter", "adapter-448MiB"}, 0)
		})
	}
	if all || o.scenario == "single" {
		do("single", func() error { return single(out, o) })
	}
	if all || o.scenario == "a2ui" {
		do("a2ui", func() error { return a2uiBench(out) })
	}
	if o.scenario == "smoke" {
		do("smoke", func() error { return smoke(out, o) })
	}
	if o.scenario == "flood" {
		do("flood", func() error { return flood(out, o) })
	}
	if o.scenario == "custom" {
		do("custom", func() error {
			return compare(out, o, fmt.Sprintf("%d streams x %d ev/s x %s", o.streams, o.rate, o.duration), o.streams, o.rate, o.duration, strings.Split(o.targets, ","), o.probes)
		})
	}
	if len(failed) > 0 {
		return fmt.Errorf("failed: %s", strings.Join(failed, ", "))
	}
	return nil
}

// --- roles (child processes) ---

// serveRole serves h and prints "ready <addr>" once listening. With h2c
// the server also speaks HTTP/2 without TLS (prior knowledge), so that
// relays can multiplex thousands of upstream streams over a few
// connections.
func serveRole(listen string, h http.Handler, h2c bool) error {
	ln, err := net.Listen("tcp", listen)
	if err != nil {
		return err
	}
	srv := &http.Server{Handler: h, ReadHeaderTimeout: 10 * time.Second}
	if a, ok := h.(interface{ Adopt(*http.Server) }); ok {
		a.Adopt(srv) // the adapter, as cmd/genui-adapter does
	}
	if h2c {
		var p http.Protocols
		p.SetHTTP1(true)
		p.SetUnencryptedHTTP2(true)
		srv.Protocols = &p
	}
	fmt.Printf("ready %s\n", ln.Addr())
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM, os.Interrupt)
	defer stop()
	go func() { <-ctx.Done(); srv.Close() }()
	if err := srv.Serve(ln); !errors.Is(err, http.ErrServerClosed) {
		return err
	}
	return nil
}

// upstream streams an assistant message of N deltas at Rate/s (0: as fast
// as possible, flushing only when the buffer is full unless Flush is
// true); each delta is "<seq>-<send time ns>".
func upstream(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	in, err := agui.ParseRunAgentInput(body)
	if err != nil {
		http.Error(w, err.Error(), 400)
		return
	}
	n, _ := strconv.Atoi(string(in.ForwardedProp("N")))
	rate, _ := strconv.Atoi(string(in.ForwardedProp("Rate")))
	flushEach := string(in.ForwardedProp("Flush")) == "true"
	w.Header().Set("Content-Type", "text/event-stream")
	rc := http.NewResponseController(w)
	enc := agui.NewEncoder(w)
	enc.Encode("", &agui.RunStarted{ThreadID: in.ThreadID, RunID: in.RunID})
	enc.Encode("", &agui.TextMessageStart{MessageID: "m", Role: "assistant"})
	rc.Flush()
	var tick *time.Ticker
	if rate > 0 {
		tick = time.NewTicker(time.Second / time.Duration(rate))
		defer tick.Stop()
	}
	var buf []byte
	for i := 1; i <= n; i++ {
		if tick != nil {
			select {
			case <-tick.C:
			case <-r.Context().Done():
				return
			}
		}
		buf = append(buf[:0], `{"type":"TEXT_MESSAGE_CONTENT","messageId":"m","delta":"`...)
		buf = strconv.AppendInt(buf, int64(i), 10)
		buf = append(buf, '-')
		buf = strconv.AppendInt(buf, time.Now().UnixNano(), 10)
		buf = append(buf, `"}`...)
		if enc.EncodeData("", buf) != nil {
			return
		}
		if (tick != nil || flushEach) && rc.Flush() != nil {
			return
		}
	}
	enc.Encode("", &agui.TextMessageEnd{MessageID: "m"})
	enc.Encode("", &agui.RunFinished{ThreadID: in.ThreadID, RunID: in.RunID})
}

// memstats reports the runtime's memory figures (as the adapter's
// /metrics does), for comparison.
func memstats(w http.ResponseWriter, r *http.Request) {
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	fmt.Fprintf(w, "go_goroutines %d\ngo_memstats_heap_alloc_bytes %d\ngo_memstats_heap_inuse_bytes %d\ngo_memstats_stack_inuse_bytes %d\n", runtime.NumGoroutine(), m.HeapAlloc, m.HeapInuse, m.StackInuse)
}

// upstreamClient talks to the upstream: HTTP/2 without TLS, or HTTP/1.1
// (as the adapter's agents do by default).
func upstreamClient(h2 bool) *http.Client {
	t := http.DefaultTransport.(*http.Transport).Clone()
	t.DisableCompression = true
	t.MaxIdleConnsPerHost = 64 // as the adapter's
	if h2 {
		var p http.Protocols
		p.SetUnencryptedHTTP2(true)
		t.Protocols = &p
	}
	return &http.Client{Transport: t}
}

// passthrough is the floor: POST the body upstream, copy the answer back
// byte for byte, flushing after each read. Nothing is parsed.
func passthrough(upstreamURL string, h2 bool) http.Handler {
	client := upstreamClient(h2)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		req, _ := http.NewRequestWithContext(r.Context(), http.MethodPost, upstreamURL+"/run", r.Body)
		req.Header.Set("Content-Type", "application/json")
		resp, err := client.Do(req)
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadGateway)
			return
		}
		defer resp.Body.Close()
		w.Header().Set("Content-Type", resp.Header.Get("Content-Type"))
		w.WriteHeader(resp.StatusCode)
		rc := http.NewResponseController(w)
		buf := make([]byte, 4<<10)
		for {
			n, err := resp.Body.Read(buf)
			if n > 0 {
				if _, werr := w.Write(buf[:n]); werr != nil || rc.Flush() != nil {
					return
				}
			}
			if err != nil {
				return
			}
		}
	})
}

// adapterRole runs the real service (the same code as the binary) in
// front of the upstream.
func adapterRole(o options) error {
	cfg := adapter.DefaultConfig()
	cfg.Listen = o.listen
	cfg.Heartbeat = adapter.Duration(o.heartbeat)
	cfg.Agents = map[string]adapter.AgentConfig{"load": {Backend: &adapter.AGUIConfig{UpstreamConfig: adapter.UpstreamConfig{URL: o.upstream + "/run"}, HTTP2: o.h2}}}
	cfg.Debug.Pprof = true
	cfg.Limits.RunStartsPerSecond = o.runStarts
	if o.principals > 0 {
		cfg.Auth.BearerTokens = map[string]string{}
		for i := range o.principals {
			cfg.Auth.BearerTokens[fmt.Sprintf("p%d", i)] = principalToken(i)
		}
	}
	if o.runlog == "redis" {
		cfg.RunLog = adapter.RunLogConfig{Backend: "redis", URL: o.redisURL, Prefix: fmt.Sprintf("loadgen-%d:", time.Now().UnixNano()), Retention: adapter.Duration(time.Minute)}
	}
	// As the binary does (cmd/genui-adapter): the soft memory limit.
	switch {
	case o.memlimit == "off":
		none := int64(0)
		cfg.MemoryLimit = &none
		debug.SetMemoryLimit(math.MaxInt64)
	case o.memlimit != "":
		mb, err := strconv.ParseInt(o.memlimit, 10, 64)
		if err != nil || mb <= 0 {
			return fmt.Errorf("-memlimit: want MiB or off, got %q", o.memlimit)
		}
		lim := mb << 20
		cfg.MemoryLimit = &lim
		debug.SetMemoryLimit(lim)
	case os.Getenv("GOMEMLIMIT") == "":
		if lim := cfg.MemoryLimitBytes(); lim > 0 {
			debug.SetMemoryLimit(lim)
		}
	}
	if os.Getenv("GOGC") == "" {
		debug.SetGCPercent(cfg.GOGC())
	}
	srv, err := adapter.NewServer(slog.New(slog.DiscardHandler), cfg)
	if err != nil {
		return err
	}
	defer srv.Close()
	return serveRole(o.listen, srv, false)
}

// --- processes ---

type proc struct {
	name string
	cmd  *exec.Cmd
	addr string
}

// start re-executes this program with a role.
func start(name string, args ...string) (*proc, error) {
	self, err := os.Executable()
	if err != nil {
		return nil, err
	}
	cmd := exec.Command(self, args...)
	cmd.Stderr = os.Stderr
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	line := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(stdout)
		for sc.Scan() {
			if a, ok := strings.CutPrefix(sc.Text(), "ready "); ok {
				line <- a
			}
		}
	}()
	select {
	case a := <-line:
		return &proc{name: name, cmd: cmd, addr: a}, nil
	case <-time.After(30 * time.Second):
		cmd.Process.Kill()
		cmd.Wait()
		return nil, fmt.Errorf("%s did not start", name)
	}
}

func (p *proc) stop() {
	if p == nil {
		return
	}
	p.cmd.Process.Signal(syscall.SIGTERM)
	done := make(chan struct{})
	go func() { p.cmd.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(5 * time.Second):
		p.cmd.Process.Kill()
		<-done
	}
}

// cpu is a process's user+system CPU time, or -1.
func cpu(pid int) time.Duration {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return -1
	}
	s := string(b)
	f := strings.Fields(s[strings.LastIndexByte(s, ')')+2:])
	if len(f) < 13 {
		return -1
	}
	ut, _ := strconv.ParseInt(f[11], 10, 64)
	st, _ := strconv.ParseInt(f[12], 10, 64)
	return time.Duration(ut+st) * (time.Second / 100) // USER_HZ
}

// rss is a process's resident set, or -1.
func rss(pid int) int64 {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return -1
	}
	for _, line := range strings.Split(string(b), "\n") {
		if f := strings.Fields(line); len(f) >= 2 && f[0] == "VmRSS:" {
			kb, _ := strconv.ParseInt(f[1], 10, 64)
			return kb << 10
		}
	}
	return -1
}

// usage samples a process while a phase runs.
type usage struct {
	cpu           time.Duration // -1: not measured
	idle, peak    int64         // bytes; -1: not measured
	stop, stopped chan struct{}
	pid, failures int
}

func watch(p *proc) *usage {
	u := &usage{cpu: -1, idle: -1, peak: -1, stop: make(chan struct{}), stopped: make(chan struct{})}
	if p == nil {
		close(u.stopped)
		return u
	}
	u.pid = p.cmd.Process.Pid
	c0 := cpu(u.pid)
	u.idle = rss(u.pid)
	go func() {
		defer close(u.stopped)
		peak := u.idle
		for {
			if r := rss(u.pid); r > peak {
				peak = r
			} else if r < 0 {
				u.failures++
			}
			select {
			case <-u.stop:
				c1 := cpu(u.pid)
				if c0 >= 0 && c1 >= 0 && u.failures == 0 {
					u.cpu = c1 - c0
					u.peak = peak
				}
				return
			case <-time.After(100 * time.Millisecond):
			}
		}
	}()
	return u
}

func (u *usage) done() { close(u.stop); <-u.stopped }

// --- the client ---

// phase is one target's measurement.
type phase struct {
	target          string
	expected, got   int64
	errors          int64
	lat             []int64 // ns, per event
	starts          []int64 // ns, probe runs: request sent to RUN_STARTED read
	firsts          []int64 // ns, probe runs: request sent to the upstream's first event read
	served          string  // the adapter's own figure for the probes' start, or ""
	relay, upstream *usage
	elapsed         time.Duration
}

var runSeq atomic.Int64

var deltaKey = []byte(`"delta":"`)

// stream runs one stream of n events at rate/s (0: unpaced, read as mode
// says) and records its events' latencies.
func stream(ctx context.Context, client *http.Client, url string, n, rate int, mode unpacedMode, lat *[]int64) (got int64, err error) {
	id := runSeq.Add(1)
	body := fmt.Sprintf(`{"threadId":"t%d","runId":"r%d","messages":[],"forwardedProps":{"N":%d,"Rate":%d,"Flush":%t}}`, id, id, n, rate, mode.flush)
	req, _ := http.NewRequestWithContext(ctx, http.MethodPost, url, strings.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "text/event-stream")
	resp, err := client.Do(req)
	if err != nil {
		return 0, err
	}
	defer resp.Body.Close()
	if resp.StatusCode != 200 {
		b, _ := io.ReadAll(io.LimitReader(resp.Body, 512))
		return 0, fmt.Errorf("HTTP %d: %s", resp.StatusCode, b)
	}
	var next int64 = 1
	finished := false
	for f, err := range agui.ScanFrames(resp.Body, 0) {
		if err != nil {
			return got, err
		}
		d := f.Data
		if len(d) == 0 {
			continue // the retry hint
		}
		if mode.decode {
			if _, err := agui.ParseEvent(d); err != nil {
				return got, err
			}
		}
		if i := bytes.Index(d, deltaKey); i >= 0 {
			rest := d[i+len(deltaKey):]
			dash := bytes.IndexByte(rest, '-')
			q := bytes.IndexByte(rest, '"')
			if dash > 0 && q > dash {
				seq, _ := strconv.ParseInt(string(rest[:dash]), 10, 64)
				sent, _ := strconv.ParseInt(string(rest[dash+1:q]), 10, 64)
				if seq == next {
					next++
					got++
					*lat = append(*lat, time.Now().UnixNano()-sent)
				}
			}
			continue
		}
		if bytes.Contains(d, []byte(`"RUN_FINISHED"`)) {
			finished = true
		}
		if bytes.Contains(d, []byte(`"RUN_ERROR"`)) {
			return got, fmt.Errorf("RUN_ERROR: %s", d)
		}
	}
	if !finished {
		return got, errors.New("the stream ended without RUN_FINISHED")
	}
	return got, nil
}

func newClient(streams int) *http.Client {
	return &http.Client{Transport: &http.Transport{
		MaxIdleConnsPerHost: streams, DisableCompression: true,
		DialContext: (&net.Dialer{Timeout: 30 * time.Second}).DialContext,
	}}
}

// load runs streams concurrent paced streams against url; probes extra
// one-event runs, spread over the load, time their start.
//
// With metrics (the adapter's /metrics URL), the adapter's own record of
// the probes' start (genui_run_start_seconds) is kept too.
func load(url string, streams, rate int, dur time.Duration, probes int, metrics string) *phase {
	p := &phase{}
	n := int(dur.Seconds() * float64(rate))
	p.expected = int64(streams * n)
	client := newClient(streams)
	defer client.CloseIdleConnections()
	ctx, cancel := context.WithTimeout(context.Background(), dur+2*time.Minute)
	defer cancel()
	var mu sync.Mutex
	var wg sync.WaitGroup
	var firstErr atomic.Value
	start := time.Now()
	// Ramp up as a crowd arrives, not in one SYN burst: 1,000 new
	// streams a second (10,000 take 10 s), each started on its schedule.
	// (This said 2,000 a second and slept 500 µs between streams, which
	// takes a millisecond or more: the crowd came at 860 a second. At a
	// true 2,000 a second the connections alone saturate two cores: the
	// pass-through's p99 went from 25 ms to 323 ms.)
	ramp := time.Second / 1000
	for i := range streams {
		wg.Go(func() {
			var lat []int64
			got, err := stream(ctx, client, url, n, rate, unpacedMode{}, &lat)
			mu.Lock()
			p.got += got
			p.lat = append(p.lat, lat...)
			if err != nil {
				p.errors++
				firstErr.CompareAndSwap(nil, err.Error())
			}
			mu.Unlock()
		})
		if i < streams-1 {
			time.Sleep(time.Until(start.Add(time.Duration(i+1) * ramp)))
		}
	}
	if probes > 0 {
		time.Sleep(2 * time.Second) // the load is live
		every := (dur - 4*time.Second) / time.Duration(probes)
		pc := newClient(4)
		before := startHistogram(metrics)
		for range probes {
			id := runSeq.Add(1)
			body := fmt.Sprintf(`{"threadId":"p%d","runId":"p%d","messages":[],"forwardedProps":{"N":1,"Rate":0}}`, id, id)
			req, _ := http.NewRequest(http.MethodPost, url, strings.NewReader(body))
			req.Header.Set("Content-Type", "application/json")
			t0 := time.Now()
			resp, err := pc.Do(req)
			if err == nil {
				br := bufio.NewReader(resp.Body)
				for {
					line, err := br.ReadString('\n')
					if strings.HasPrefix(line, "data:") {
						if strings.Contains(line, `"RUN_STARTED"`) {
							p.starts = append(p.starts, int64(time.Since(t0)))
							continue
						}
						p.firsts = append(p.firsts, int64(time.Since(t0)))
						break
					}
					if err != nil {
						break
					}
				}
				io.Copy(io.Discard, br)
				resp.Body.Close()
			}
			time.Sleep(every)
		}
		if before != nil {
			if after := startHistogram(metrics); after != nil {
				p.served = histogramPct(before, after, .99)
			}
		}
	}
	wg.Wait()
	p.elapsed = time.Since(start)
	if e := firstErr.Load(); e != nil {
		fmt.Fprintf(os.Stderr, "  first error: %s\n", e)
	}
	return p
}

// startHistogram reads the adapter's genui_run_start_seconds buckets
// (upper bound in seconds to cumulative count), or nil.
func startHistogram(metrics string) map[float64]float64 {
	if metrics == "" {
		return nil
	}
	h := map[float64]float64{}
	for l := range metricLines(metrics) {
		if !strings.HasPrefix(l, "genui_run_start_seconds_bucket{") {
			continue
		}
		_, rest, _ := strings.Cut(l, `le="`)
		le, rest, _ := strings.Cut(rest, `"`)
		f := strings.Fields(rest)
		if len(f) == 0 {
			continue
		}
		n, err1 := strconv.ParseFloat(f[len(f)-1], 64)
		b, err2 := strconv.ParseFloat(le, 64)
		if err1 == nil && err2 == nil {
			h[b] += n
		}
	}
	if len(h) == 0 {
		return nil
	}
	return h
}

// histogramPct is the q quantile of the observations between two reads,
// as the bucket bound it is under ("≤ 5.00 ms"), or "n/m".
func histogramPct(before, after map[float64]float64, q float64) string {
	bounds := make([]float64, 0, len(after))
	for b := range after {
		bounds = append(bounds, b)
	}
	slices.Sort(bounds)
	total := after[math.Inf(1)] - before[math.Inf(1)]
	if total <= 0 {
		return "n/m"
	}
	for _, b := range bounds {
		if after[b]-before[b] >= q*total {
			if math.IsInf(b, 1) {
				return fmt.Sprintf("> %.2f ms", bounds[len(bounds)-2]*1e3)
			}
			return fmt.Sprintf("≤ %.2f ms", b*1e3)
		}
	}
	return "n/m"
}

// --- scenarios ---

func pct(v []int64, q float64) int64 {
	if len(v) == 0 {
		return -1
	}
	slices.Sort(v)
	return v[min(len(v)-1, int(float64(len(v))*q))]
}

func ms(ns int64) string {
	if ns < 0 {
		return "n/m"
	}
	return fmt.Sprintf("%.2f ms", float64(ns)/1e6)
}

func mib(b int64) string {
	if b < 0 {
		return "n/m"
	}
	return fmt.Sprintf("%.0f MiB", float64(b)/(1<<20))
}

func secs(d time.Duration) string {
	if d < 0 {
		return "n/m"
	}
	return fmt.Sprintf("%.1f s", d.Seconds())
}

// startTarget starts the processes a target needs and returns its URL.
// start starts a relay's process, on its own core if relayCore says so.
func (o options) start(name string, args ...string) (*proc, error) {
	if o.relayCore > 0 {
		return startOn(o.relayCore, name, args...)
	}
	return start(name, args...)
}

func startTarget(o options, target, up string) (*proc, string, error) {
	switch target {
	case "direct":
		return nil, up + "/run", nil
	case "passthrough":
		p, err := o.start("passthrough", "-role", "passthrough", "-upstream", up, fmt.Sprintf("-h2=%v", o.h2))
		if err != nil {
			return nil, "", err
		}
		return p, "http://" + p.addr + "/", nil
	case "adapter", "adapter-redis", "adapter-448MiB":
		rl := "memory"
		if target == "adapter-redis" {
			rl = "redis"
		}
		args := []string{"-role", "adapter", "-upstream", up, "-runlog", rl, "-redis", o.redisURL, "-heartbeat", o.heartbeat.String(), fmt.Sprintf("-h2=%v", o.h2)}
		switch {
		case target == "adapter-448MiB":
			// The default in a 512 MiB container.
			args = append(args, "-memlimit", "448")
		case o.memlimit != "":
			args = append(args, "-memlimit", o.memlimit)
		}
		p, err := o.start(target, args...)
		if err != nil {
			return nil, "", err
		}
		return p, "http://" + p.addr + "/agents/load/run", nil
	}
	return nil, "", fmt.Errorf("unknown target %q", target)
}

// profile fetches the adapter's CPU profile over a phase (debug.pprof).
func profile(p *proc, seconds int, file string) func() {
	if file == "" || p == nil {
		return func() {}
	}
	done := make(chan struct{})
	go func() {
		defer close(done)
		resp, err := http.Get(fmt.Sprintf("http://%s/debug/pprof/profile?seconds=%d", p.addr, seconds))
		if err != nil {
			return
		}
		defer resp.Body.Close()
		f, err := os.Create(file)
		if err != nil {
			return
		}
		io.Copy(f, resp.Body)
		f.Close()
	}()
	return func() { <-done }
}

func compare(out io.Writer, o options, title string, streams, rate int, dur time.Duration, targets []string, probes int) error {
	fmt.Fprintf(out, "\n== %s (%d events per target) ==\n", title, streams*int(dur.Seconds()*float64(rate)))
	var phases []*phase
	for _, target := range targets {
		up, err := start("upstream", "-role", "upstream")
		if err != nil {
			return err
		}
		relay, url, err := startTarget(o, target, "http://"+up.addr)
		if err != nil {
			up.stop()
			fmt.Fprintf(out, "%-14s not measured: %v\n", target, err)
			phases = append(phases, &phase{target: target, expected: -1})
			continue
		}
		// Warm up: a few streams, so that pools and code are hot.
		load(url, 10, 50, time.Second, 0, "")
		runtime.GC()
		ru, uu := watch(relay), watch(up)
		waitProfile := func() {}
		if o.pprofFile != "" && target == "passthrough" {
			go func() {
				time.Sleep(dur / 2)
				if resp, err := http.Get("http://" + relay.addr + "/__memstats"); err == nil {
					b, _ := io.ReadAll(resp.Body)
					resp.Body.Close()
					for _, l := range strings.Split(strings.TrimSpace(string(b)), "\n") {
						fmt.Fprintf(os.Stderr, "  %s %s\n", target, l)
					}
				}
			}()
		}
		if o.pprofFile != "" && strings.HasPrefix(target, "adapter") {
			waitProfile = profile(relay, int(dur.Seconds()), fmt.Sprintf("%s-%s-%d.pprof", o.pprofFile, target, streams))
			go func() {
				// The heap with every stream live.
				time.Sleep(dur / 2)
				for l := range metricLines("http://" + relay.addr + "/metrics") {
					if strings.HasPrefix(l, "go_memstats_stack_inuse") || strings.HasPrefix(l, "go_memstats_heap_inuse") || strings.HasPrefix(l, "go_goroutines") || strings.HasPrefix(l, "go_memstats_heap_alloc") || strings.HasPrefix(l, "genui_store_bytes") {
						fmt.Fprintf(os.Stderr, "  %s %s\n", target, l)
					}
				}
				if resp, err := http.Get("http://" + relay.addr + "/debug/pprof/heap?gc=1"); err == nil {
					if f, err := os.Create(fmt.Sprintf("%s-%s-%d.heap", o.pprofFile, target, streams)); err == nil {
						io.Copy(f, resp.Body)
						f.Close()
					}
					resp.Body.Close()
				}
			}()
		}
		metrics := ""
		if strings.HasPrefix(target, "adapter") {
			metrics = "http://" + relay.addr + "/metrics"
		}
		p := load(url, streams, rate, dur, probes, metrics)
		ru.done()
		uu.done()
		waitProfile()
		p.target, p.relay, p.upstream = target, ru, uu
		phases = append(phases, p)
		relay.stop()
		up.stop()
	}
	fmt.Fprintf(out, "%-14s %10s %10s %9s %7s %9s %9s %9s %11s %11s %11s\n", "target", "p50", "p99", "lost", "errors", "relay cpu", "rss idle", "rss peak", "start p50", "start p99", "1st ev p99")
	byName := map[string]*phase{}
	for _, p := range phases {
		byName[p.target] = p
		if p.expected < 0 {
			fmt.Fprintf(out, "%-14s %s\n", p.target, "not measured")
			continue
		}
		cpuS, idle, peak := "—", "—", "—"
		if p.relay.pid != 0 {
			cpuS, idle, peak = secs(p.relay.cpu), mib(p.relay.idle), mib(p.relay.peak)
		}
		fmt.Fprintf(out, "%-14s %10s %10s %9d %7d %9s %9s %9s %11s %11s %11s\n", p.target, ms(pct(p.lat, .5)), ms(pct(p.lat, .99)), p.expected-p.got, p.errors, cpuS, idle, peak, startPct(p.starts, .5), startPct(p.starts, .99), startPct(p.firsts, .99))
	}
	if probes > 0 {
		fmt.Fprintf(out, "start: request sent to RUN_STARTED read by the client; 1st ev: to the upstream's first event after it\n")
	}
	for _, p := range phases {
		if p.served != "" {
			fmt.Fprintf(out, "%s's own record (genui_run_start_seconds, request arrived to RUN_STARTED written): p99 %s\n", p.target, p.served)
		}
	}
	if pt := byName["passthrough"]; pt != nil && pt.expected >= 0 && len(pt.lat) > 0 {
		for _, name := range []string{"adapter", "adapter-redis", "adapter-448MiB"} {
			a := byName[name]
			if a == nil || a.expected < 0 || len(a.lat) == 0 {
				continue
			}
			extra := ""
			if a.relay.cpu > 0 && a.got > 0 {
				extra = fmt.Sprintf("; %.1f µs CPU per event", float64(a.relay.cpu.Microseconds())/float64(a.got))
				if pt.relay.cpu > 0 && pt.got > 0 {
					extra += fmt.Sprintf(" (pass-through %.1f µs)", float64(pt.relay.cpu.Microseconds())/float64(pt.got))
				}
			}
			if a.relay.peak > 0 && a.relay.idle > 0 {
				extra += fmt.Sprintf("; %.1f KiB per stream above idle", float64(a.relay.peak-a.relay.idle)/1024/float64(streams))
			}
			fmt.Fprintf(out, "%s vs pass-through: p50 %+.2f ms, p99 %+.2f ms%s\n", name, float64(pct(a.lat, .5)-pct(pt.lat, .5))/1e6, float64(pct(a.lat, .99)-pct(pt.lat, .99))/1e6, extra)
		}
	}
	return nil
}

func startPct(v []int64, q float64) string {
	if len(v) == 0 {
		return "—"
	}
	return ms(pct(v, q))
}

// single: one stream paced at 200 ev/s, and unpaced throughput, twice:
// with every process free to use every core, and with the relay on a
// core of its own (the upstream and the client share the other).
//
// On a machine with few cores the first measures contention more than
// the relay: a relay's process takes CPU from the client and the
// upstream, which a direct connection does not have to share, so even
// the byte-copy pass-through falls well short of direct there. The second
// is the deployment the ratio is about (the adapter on a host of its
// own): does putting it in the path slow one stream down?
func single(out io.Writer, o options) error {
	// One stream gains nothing from HTTP/2's multiplexing and pays its
	// extra hand-off per event (the connection's read loop to the
	// stream's reader): HTTP/1.1, the agent default.
	o.h2 = false
	fmt.Fprintf(out, "\n== one stream, every process on every core (relays reach the upstream over HTTP/1.1) ==\n")
	if err := singleRun(out, o); err != nil {
		return err
	}
	fmt.Fprintf(out, "\n== one stream, the relay on CPU 1 alone; the upstream and the client on CPU 0 ==\n")
	if runtime.NumCPU() < 2 {
		fmt.Fprintf(out, "not measured: this machine has one CPU\n")
		return nil
	}
	restore, err := pinSelf(0)
	if err != nil {
		fmt.Fprintf(out, "not measured: %v\n", err)
		return nil
	}
	defer restore()
	o.relayCore = 1
	return singleRun(out, o)
}

func singleRun(out io.Writer, o options) error {
	fmt.Fprintf(out, "%-14s %10s %10s %14s %16s %17s\n", "target", "200/s p50", "200/s p99", "unpaced ev/s", "decoding client", "flushing upstream")
	up, err := start("upstream", "-role", "upstream")
	if err != nil {
		return err
	}
	defer up.stop()
	type target struct {
		name, url string
		relay     *proc
		client    *http.Client
		paced     *phase
		rates     [len(unpacedModes)][]float64
		busy      [len(unpacedModes)]cpuTicks // summed over the target's own unpaced streams
		cpu       [len(unpacedModes)]eventCPU // likewise, per process
		failed    bool
		fresh     float64 // the first unpaced stream's rate, in a fresh process
		filled    int     // unpaced warm-up streams until the run log was full (-1: it never was)
	}
	var ts []*target
	for _, name := range []string{"direct", "passthrough", "adapter"} {
		relay, url, err := startTarget(o, name, "http://"+up.addr)
		if err != nil {
			fmt.Fprintf(out, "%-14s not measured: %v\n", name, err)
			continue
		}
		defer relay.stop()
		t := &target{name: name, url: url, relay: relay, client: newClient(1)}
		for m := range t.cpu {
			t.cpu[m].hasRelay = relay != nil
		}
		ts = append(ts, t)
	}
	// Paced: each target alone.
	for _, t := range ts {
		load(t.url, 1, 1000, time.Second, 0, "")
		t.paced = load(t.url, 1, 200, 10*time.Second, 0, "")
		// Warm-up: heaps and buffers grown, connections up, and the
		// adapter's memory run log holding what it holds in service.
		t.fresh = unpaced(t.client, t.url, unpacedModes[0])
		if t.relay != nil && strings.HasPrefix(t.name, "adapter") {
			t.filled = fillRunLog(t.client, t.url, "http://"+t.relay.addr+"/metrics")
		}
	}
	// Unpaced: unpacedRuns rounds of every target in turn, so that the
	// machine's drift (a neighbour, a clock change) falls on all of them
	// alike; each rate is the median of its target's streams. Each mode
	// in turn (see unpacedModes).
	for m, mode := range unpacedModes {
		for range unpacedRuns {
			for _, t := range ts {
				relayPid := 0
				if t.relay != nil {
					relayPid = t.relay.cmd.Process.Pid
				}
				before, cpu0 := readCPUTicks(), readEventCPU(up.cmd.Process.Pid, relayPid)
				rate := unpaced(t.client, t.url, mode)
				t.busy[m] = t.busy[m].plus(readCPUTicks().minus(before))
				t.cpu[m] = t.cpu[m].add(cpu0, readEventCPU(up.cmd.Process.Pid, relayPid), unpacedEvents)
				if rate < 0 {
					t.failed = true
				}
				t.rates[m] = append(t.rates[m], rate)
			}
		}
	}
	var base struct {
		p50   float64
		rates [len(unpacedModes)]float64
	}
	for _, t := range ts {
		var rates [len(unpacedModes)]float64
		for m := range rates {
			rates[m] = -1 // nothing is computed from a failed run
			if !t.failed {
				rates[m] = median(t.rates[m])
			}
		}
		p50 := pct(t.paced.lat, .5)
		note := ""
		unmeasured := func(r float64) bool { return r <= 0 }
		if t.name == "direct" {
			base.p50, base.rates = float64(p50), rates
		} else if t.paced.errors == 0 && !slices.ContainsFunc(rates[:], unmeasured) && !slices.ContainsFunc(base.rates[:], unmeasured) {
			note = fmt.Sprintf("  (p50 %+.0f µs over direct; unpaced %.2fx direct, %.2fx with a decoding client, %.2fx from a flushing upstream)",
				(float64(p50)-base.p50)/1e3, rates[0]/base.rates[0], rates[1]/base.rates[1], rates[2]/base.rates[2])
		}
		var rateS [len(unpacedModes)]string
		for m, r := range rates {
			rateS[m] = "n/m"
			if r > 0 {
				rateS[m] = fmt.Sprintf("%.0f", r)
			}
		}
		if t.paced.errors > 0 || t.paced.got != t.paced.expected {
			fmt.Fprintf(out, "%-14s paced run lost %d events, %d errors\n", t.name, t.paced.expected-t.paced.got, t.paced.errors)
		}
		fmt.Fprintf(out, "%-14s %10s %10s %14s %16s %17s%s\n", t.name, ms(p50), ms(pct(t.paced.lat, .99)), rateS[0], rateS[1], rateS[2], note)
		switch {
		case t.fresh <= 0:
		case t.filled > 0:
			fmt.Fprintf(out, "%-14s fresh process, first unpaced stream: %.0f ev/s; its run log was full after %d more (the columns: after that)\n", "", t.fresh, t.filled)
		case t.filled < 0:
			fmt.Fprintf(out, "%-14s fresh process, first unpaced stream: %.0f ev/s; its run log did not fill (the columns: a log still growing)\n", "", t.fresh)
		}
		// Which core saturates decides the unpaced rate.
		for m, mode := range unpacedModes {
			if b := t.busy[m].String(); b != "" {
				fmt.Fprintf(out, "%-14s busy while unpaced, %s: %s\n", "", mode.name, b)
			}
			if c := t.cpu[m].String(); c != "" && !t.failed {
				fmt.Fprintf(out, "%-14s CPU while unpaced, %s: %s\n", "", mode.name, c)
			}
		}
	}
	return nil
}

// unpacedMode is one way of streaming as fast as the target goes.
type unpacedMode struct {
	name   string
	decode bool // the client decodes every event, as an AG-UI client does
	flush  bool // the upstream flushes every event, as agent servers do
}

// unpacedModes are the single scenario's unpaced columns, in order: the
// upstream filling its buffer before each write and a client that only
// scans frames (the most any relay is asked to keep up with), the same
// read by a decoding client, and an upstream that writes and flushes
// each event as it is made (as agent servers do) read by a decoding
// client.
var unpacedModes = [...]unpacedMode{
	{name: "scanning client"},
	{name: "decoding client", decode: true},
	{name: "flushing upstream", decode: true, flush: true},
}

// fillRunLog streams unpaced runs through the adapter until its memory
// run log holds at least 95% of its budget (genui_store_bytes, events),
// as it does once a service has run a while; it returns how many it took,
// or -1 if maxFill did not fill it.
//
// Until then every event the log keeps is memory the process has never
// touched, and on this kind of VM a page fault costs about 10 µs (a
// 4 KiB page per 40 events kept): until the log is full and its heap has
// grown, a fresh adapter streams at about half the rate it reaches
// after. The first stream's rate is printed beside the columns.
func fillRunLog(client *http.Client, url, metrics string) int {
	const maxFill = 30
	for i := 1; i <= maxFill; i++ {
		if unpaced(client, url, unpacedModes[0]) < 0 {
			return -1
		}
		if v, ok := scrapeGauge(metrics, `genui_store_bytes{store="events"}`); ok && v >= 0.95*float64(runlog.DefaultMaxBytes) {
			return i
		}
	}
	return -1
}

// scrapeGauge reads one sample's value from a Prometheus text page.
func scrapeGauge(url, sample string) (float64, bool) {
	for l := range metricLines(url) {
		if v, ok := strings.CutPrefix(l, sample+" "); ok {
			f, err := strconv.ParseFloat(v, 64)
			return f, err == nil
		}
	}
	return 0, false
}

// metricLines yields the lines of a Prometheus text page (none if it
// cannot be read).
func metricLines(url string) iter.Seq[string] {
	return func(yield func(string) bool) {
		resp, err := http.Get(url)
		if err != nil {
			return
		}
		defer resp.Body.Close()
		sc := bufio.NewScanner(resp.Body)
		for sc.Scan() && yield(sc.Text()) {
		}
	}
}

// unpacedRuns is how many unpaced streams give each median.
const unpacedRuns = 5

// unpacedEvents is how many deltas an unpaced stream carries.
const unpacedEvents = 200000

// unpaced streams unpacedEvents events as fast as they come and returns
// the rate in events/s, or -1 if the stream failed or lost events.
func unpaced(client *http.Client, url string, mode unpacedMode) float64 {
	const n = unpacedEvents
	var lat []int64
	t0 := time.Now()
	got, err := stream(context.Background(), client, url, n, 0, mode, &lat)
	el := time.Since(t0)
	if err != nil || got != n {
		return -1
	}
	return float64(got) / el.Seconds()
}

func median(v []float64) float64 {
	if len(v) == 0 {
		return -1
	}
	v = slices.Clone(v)
	slices.Sort(v)
	return v[len(v)/2]
}

// a2uiBench validates the official financial data grid example on one
// core and prints the latency percentiles.
func a2uiBench(out io.Writer) error {
	fmt.Fprintf(out, "\n== A2UI validation of 33_financial-data-grid, one core ==\n")
	msgs, err := exampleMessages("33_financial-data-grid.json")
	if err != nil {
		return err
	}
	v, err := a2ui.NewValidator(a2ui.Options{Strict: true})
	if err != nil {
		return err
	}
	prev := runtime.GOMAXPROCS(1)
	defer runtime.GOMAXPROCS(prev)
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	for range 200 {
		v.ValidateBatch(msgs)
	}
	// The scenarios before this one leave this process's heap large;
	// collect it first so the figure is validation's, not theirs.
	runtime.GC()
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	lat := make([]int64, 0, 5000)
	for range 5000 {
		t0 := time.Now()
		if errs := v.ValidateBatch(msgs); len(errs) > 0 {
			return fmt.Errorf("the example does not validate: %v", errs[0])
		}
		lat = append(lat, int64(time.Since(t0)))
	}
	runtime.ReadMemStats(&after)
	fmt.Fprintf(out, "p50 %s, p99 %s over %d validations of %d messages (%d GC cycles)\n", ms(pct(lat, .5)), ms(pct(lat, .99)), len(lat), len(msgs), after.NumGC-before.NumGC)
	return nil
}

// exampleMessages reads an official example's messages.
func exampleMessages(name string) ([][]byte, error) {
	_, file, _, _ := runtime.Caller(0)
	path := filepath.Join(filepath.Dir(file), "..", "..", "schemas", "testdata", "examples", "basic", name)
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var sample struct{ Messages []json.RawMessage }
	if err := json.Unmarshal(b, &sample); err != nil {
		return nil, err
	}
	out := make([][]byte, len(sample.Messages))
	for i, m := range sample.Messages {
		out[i] = m
	}
	return out, nil
}

// smoke: a few seconds of 200 streams through the adapter; any lost event
// or error fails.
func smoke(out io.Writer, o options) error {
	up, err := start("upstream", "-role", "upstream")
	if err != nil {
		return err
	}
	defer up.stop()
	relay, url, err := startTarget(o, "adapter", "http://"+up.addr)
	if err != nil {
		return err
	}
	defer relay.stop()
	p := load(url, 200, 20, 3*time.Second, 20, "")
	fmt.Fprintf(out, "smoke: 200 streams x 20 ev/s x 3 s through the adapter: %d/%d events, %d errors, p50 %s, p99 %s, start p99 %s\n",
		p.got, p.expected, p.errors, ms(pct(p.lat, .5)), ms(pct(p.lat, .99)), startPct(p.starts, .99))
	if p.errors > 0 || p.got != p.expected {
		return fmt.Errorf("%d events lost, %d errors", p.expected-p.got, p.errors)
	}
	return nil
}

// principalToken is principal pi's bearer token (-principals).
func principalToken(i int) string { return fmt.Sprintf("loadgen-principal-%d", i) }

// bearer sends every request of a client with a principal's token.
type bearer struct {
	token string
	base  http.RoundTripper
}

func (b bearer) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("Authorization", "Bearer "+b.token)
	return b.base.RoundTrip(r)
}

// floodPhase is one phase of the flood scenario.
type floodPhase struct {
	name                  string
	lat                   []int64 // ns, the others' events
	expected, got, errors int64   // the others' events and failed streams
	attempts, ok, limited int64   // the flooder's run starts
	refused               int64   // the flooder's other answers and failures
	retryAfter            string  // the first Retry-After the flooder was sent
	relay                 *usage
	floodFor              time.Duration
}

// Flood parameters: others streams of otherRate ev/s for floodDur while
// floodWorkers connections of one principal start one-event runs,
// floodRate a second in all or as fast as they are answered.
const (
	floodOthers  = 100
	otherRate    = 20
	floodDur     = 10 * time.Second
	floodWorkers = 32
	floodRate    = 2000
)

// flood: one principal (p0) starts tiny runs on floodWorkers
// connections while floodOthers other principals each stream at
// otherRate ev/s. Four phases, each on a fresh adapter: no flood;
// floodRate starts a second under the default run-start limit
// (limits.runStartsPerSecond); the same with the limit off; as many as
// the adapter answers, under the limit. The flooder's client runs in
// this process, on the same cores as the others' clients, the upstream
// and the adapter: on a small machine its own CPU slows the others too.
// It reports the flooder's answers, the others' event latency and the
// adapter's CPU and peak RSS. Loopback only; about 50 s.
func flood(out io.Writer, o options) error {
	fmt.Fprintf(out, "\n== flood: principal p0 starts 1-event runs on %d connections while %d other principals stream %d ev/s x %s ==\n", floodWorkers, floodOthers, otherRate, floodDur)
	phases := []struct {
		name      string
		runStarts float64
		rate      int // the flood's starts a second; 0: none; -1: unpaced
	}{
		{"no flood", 0, 0},
		{fmt.Sprintf("%d/s, default limit", floodRate), 0, floodRate},
		{fmt.Sprintf("%d/s, no limit", floodRate), -1, floodRate},
		{"unpaced, default limit", 0, -1},
	}
	var results []*floodPhase
	for _, ph := range phases {
		r, err := floodRun(o, ph.name, ph.runStarts, ph.rate)
		if err != nil {
			return fmt.Errorf("%s: %w", ph.name, err)
		}
		results = append(results, r)
	}
	fmt.Fprintf(out, "%-22s %10s %10s %7s %7s %9s %9s %10s %9s %10s %9s %9s\n", "phase", "others p50", "others p99", "lost", "errors", "starts/s", "200", "429", "other", "relay cpu", "rss idle", "rss peak")
	for _, r := range results {
		rate, ok, lim, oth := "—", "—", "—", "—"
		if r.floodFor > 0 {
			rate = fmt.Sprintf("%.0f", float64(r.attempts)/r.floodFor.Seconds())
			ok, lim, oth = strconv.FormatInt(r.ok, 10), strconv.FormatInt(r.limited, 10), strconv.FormatInt(r.refused, 10)
		}
		fmt.Fprintf(out, "%-22s %10s %10s %7d %7d %9s %9s %10s %9s %10s %9s %9s\n", r.name, ms(pct(r.lat, .5)), ms(pct(r.lat, .99)), r.expected-r.got, r.errors, rate, ok, lim, oth, secs(r.relay.cpu), mib(r.relay.idle), mib(r.relay.peak))
	}
	for _, f := range results[1:] {
		if q := results[0]; q.relay.cpu > 0 && f.relay.cpu > 0 && f.attempts > 0 {
			fmt.Fprintf(out, "%s: %.1f µs of the adapter's CPU per run start refused or started (its CPU above the no-flood phase's)\n",
				f.name, float64((f.relay.cpu-q.relay.cpu).Microseconds())/float64(f.attempts))
		}
	}
	for _, r := range results {
		if r.retryAfter != "" {
			fmt.Fprintf(out, "%s: the flooder's first 429 said Retry-After: %s\n", r.name, r.retryAfter)
		}
	}
	fmt.Fprintf(out, "starts/s: the flooder's run-start requests answered per second; 200: its runs started; 429: refused by the limit\n")
	return nil
}

// floodRun runs one phase of the flood scenario on a fresh upstream and
// adapter.
func floodRun(o options, name string, runStarts float64, rate int) (*floodPhase, error) {
	up, err := start("upstream", "-role", "upstream")
	if err != nil {
		return nil, err
	}
	defer up.stop()
	relay, err := o.start("adapter", "-role", "adapter", "-upstream", "http://"+up.addr, "-heartbeat", o.heartbeat.String(), fmt.Sprintf("-h2=%v", o.h2),
		"-runstarts", strconv.FormatFloat(runStarts, 'g', -1, 64), "-principals", strconv.Itoa(floodOthers+1))
	if err != nil {
		return nil, err
	}
	defer relay.stop()
	url := "http://" + relay.addr + "/agents/load/run"
	runtime.GC()
	r := &floodPhase{name: name}
	ru := watch(relay)
	n := int(floodDur.Seconds() * otherRate)
	r.expected = int64(floodOthers * n)
	base := &http.Transport{MaxIdleConnsPerHost: floodOthers + floodWorkers, DisableCompression: true}
	defer base.CloseIdleConnections()
	ctx, cancel := context.WithTimeout(context.Background(), floodDur+time.Minute)
	defer cancel()
	var mu sync.Mutex
	var wg sync.WaitGroup
	var firstErr atomic.Value
	for i := 1; i <= floodOthers; i++ {
		client := &http.Client{Transport: bearer{principalToken(i), base}}
		wg.Go(func() {
			var lat []int64
			got, err := stream(ctx, client, url, n, otherRate, unpacedMode{}, &lat)
			mu.Lock()
			defer mu.Unlock()
			r.got += got
			r.lat = append(r.lat, lat...)
			if err != nil {
				r.errors++
				firstErr.CompareAndSwap(nil, err.Error())
			}
		})
		time.Sleep(time.Millisecond) // a crowd arriving, not one SYN burst
	}
	if rate != 0 {
		// The flood starts once every stream has, and ends before them.
		time.Sleep(500 * time.Millisecond)
		flooder := &http.Client{Transport: bearer{principalToken(0), base}}
		var attempts, ok, limited, refused atomic.Int64
		var retryAfter atomic.Value
		t0 := time.Now()
		floodCtx, stop := context.WithTimeout(ctx, floodDur-time.Second)
		var fw sync.WaitGroup
		for w := range floodWorkers {
			fw.Go(func() {
				for k := 0; floodCtx.Err() == nil; k++ {
					if rate > 0 { // open loop: attempt k of worker w at its time
						at := t0.Add(time.Duration(k*floodWorkers+w) * time.Second / time.Duration(rate))
						select {
						case <-time.After(time.Until(at)):
						case <-floodCtx.Done():
							return
						}
					}
					id := runSeq.Add(1)
					body := fmt.Sprintf(`{"threadId":"f%d","runId":"f%d","messages":[],"forwardedProps":{"N":1,"Rate":0}}`, id, id)
					req, _ := http.NewRequestWithContext(floodCtx, http.MethodPost, url, strings.NewReader(body))
					req.Header.Set("Content-Type", "application/json")
					resp, err := flooder.Do(req)
					if err != nil {
						if floodCtx.Err() == nil {
							refused.Add(1)
							attempts.Add(1)
						}
						continue
					}
					io.Copy(io.Discard, resp.Body)
					resp.Body.Close()
					attempts.Add(1)
					switch resp.StatusCode {
					case http.StatusOK:
						ok.Add(1)
					case http.StatusTooManyRequests:
						limited.Add(1)
						retryAfter.CompareAndSwap(nil, resp.Header.Get("Retry-After"))
					default:
						refused.Add(1)
					}
				}
			})
		}
		fw.Wait()
		stop()
		r.floodFor = time.Since(t0)
		r.attempts, r.ok, r.limited, r.refused = attempts.Load(), ok.Load(), limited.Load(), refused.Load()
		if v, _ := retryAfter.Load().(string); v != "" {
			r.retryAfter = v
		}
	}
	wg.Wait()
	ru.done()
	r.relay = ru
	if e := firstErr.Load(); e != nil {
		fmt.Fprintf(os.Stderr, "  %s: first error: %s\n", name, e)
	}
	return r, nil
}
