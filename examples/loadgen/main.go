// Command loadgen measures what the adapter adds on loopback: it starts a
// scripted upstream AG-UI agent and the adapter (in this process, on real
// listeners), then streams the same runs directly from the upstream and
// through the adapter, and prints events/s and latency percentiles with
// their ratios.
//
//	go run ./examples/loadgen -events 200000 -streams 8 -rate 200 -paced-events 2000
package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"runtime"
	"slices"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/genui-adapter/genui-adapter/adapter"
	"github.com/genui-adapter/genui-adapter/agui"
)

func main() {
	if err := run(os.Args, os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "loadgen:", err)
		os.Exit(1)
	}
}

type result struct {
	events   int
	elapsed  time.Duration
	latency  []time.Duration // per event, send to receive
	failures int
}

func (r result) rate() float64 { return float64(r.events) / r.elapsed.Seconds() }

func pct(lat []time.Duration, p float64) time.Duration {
	if len(lat) == 0 {
		return 0
	}
	s := slices.Clone(lat)
	slices.Sort(s)
	return s[min(len(s)-1, int(float64(len(s))*p))]
}

func run(args []string, out io.Writer) error {
	fs := flag.NewFlagSet(args[0], flag.ContinueOnError)
	events := fs.Int("events", 200000, "events per unpaced stream")
	streams := fs.Int("streams", 8, "concurrent streams for the concurrency test")
	rate := fs.Int("rate", 200, "events/s for the paced latency test")
	pacedEvents := fs.Int("paced-events", 2000, "events in the paced latency test")
	runLog := fs.String("runlog", "memory", "run log backend: memory or redis")
	redisURL := fs.String("redis", "redis://127.0.0.1:6379/14", "Redis URL for -runlog redis")
	if err := fs.Parse(args[1:]); err != nil {
		return err
	}
	up, err := serve(http.HandlerFunc(upstream))
	if err != nil {
		return err
	}
	defer up.Close()
	cfg := adapter.Config{Listen: "127.0.0.1:0", Agents: map[string]adapter.AgentConfig{"load": {Type: "agui", URL: "http://" + up.Addr + "/run", A2UI: adapter.A2UIConfig{Disabled: true}}}}
	if *runLog == "redis" {
		cfg.RunLog = adapter.RunLogConfig{Backend: "redis", URL: *redisURL, Prefix: fmt.Sprintf("loadgen-%d:", time.Now().UnixNano()), Retention: adapter.Duration(time.Minute)}
	}
	srv, err := adapter.NewServer(slog.New(slog.DiscardHandler), cfg)
	if err != nil {
		return err
	}
	ad, err := serve(srv)
	if err != nil {
		return err
	}
	defer ad.Close()
	direct := "http://" + up.Addr + "/run"
	via := "http://" + ad.Addr + "/agents/load/run"

	client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 256, DisableCompression: true}}
	fmt.Fprintf(out, "loopback, GOMAXPROCS=%d, %d events per unpaced stream, run log: %s\n\n", runtime.GOMAXPROCS(0), *events, *runLog)
	fmt.Fprintf(out, "%-34s %14s %14s %8s\n", "test", "direct", "via adapter", "ratio")

	// Warm up both paths.
	stream(client, direct, 1000, 0)
	stream(client, via, 1000, 0)

	d1 := stream(client, direct, *events, 0)
	a1 := stream(client, via, *events, 0)
	fmt.Fprintf(out, "%-34s %12.0f/s %12.0f/s %8.2f\n", "1 stream, unpaced: events/s", d1.rate(), a1.rate(), a1.rate()/d1.rate())

	dn := parallel(client, direct, *streams, *events/(*streams))
	an := parallel(client, via, *streams, *events/(*streams))
	fmt.Fprintf(out, "%-34s %12.0f/s %12.0f/s %8.2f\n", fmt.Sprintf("%d streams, unpaced: events/s", *streams), dn.rate(), an.rate(), an.rate()/dn.rate())

	dp := stream(client, direct, *pacedEvents, *rate)
	ap := stream(client, via, *pacedEvents, *rate)
	for _, p := range []struct {
		name string
		q    float64
	}{{"p50", 0.50}, {"p99", 0.99}} {
		d, a := pct(dp.latency, p.q), pct(ap.latency, p.q)
		fmt.Fprintf(out, "%-34s %14s %14s %8s\n", fmt.Sprintf("%d ev/s latency %s", *rate, p.name), d.Round(time.Microsecond), a.Round(time.Microsecond), "+"+(a-d).Round(time.Microsecond).String())
	}
	dpn := parallelPaced(client, direct, *streams, *pacedEvents/4, *rate)
	apn := parallelPaced(client, via, *streams, *pacedEvents/4, *rate)
	for _, p := range []struct {
		name string
		q    float64
	}{{"p50", 0.50}, {"p99", 0.99}} {
		d, a := pct(dpn.latency, p.q), pct(apn.latency, p.q)
		fmt.Fprintf(out, "%-34s %14s %14s %8s\n", fmt.Sprintf("%d x %d ev/s latency %s", *streams, *rate, p.name), d.Round(time.Microsecond), a.Round(time.Microsecond), "+"+(a-d).Round(time.Microsecond).String())
	}
	failures := d1.failures + a1.failures + dn.failures + an.failures + dp.failures + ap.failures + dpn.failures + apn.failures
	if failures > 0 {
		return fmt.Errorf("%d streams did not complete", failures)
	}
	return nil
}

type listener struct {
	Addr string
	srv  *http.Server
}

func (l *listener) Close() { l.srv.Close() }

func serve(h http.Handler) (*listener, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	srv := &http.Server{Handler: h, ReadHeaderTimeout: 5 * time.Second}
	go func() {
		if err := srv.Serve(ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
			fmt.Fprintln(os.Stderr, "serve:", err)
		}
	}()
	return &listener{Addr: ln.Addr().String(), srv: srv}, nil
}

// upstream streams ?n= TEXT_MESSAGE_CONTENT events, each carrying its send
// time in ns, paced at ?rate= events/s (0: as fast as possible).
func upstream(w http.ResponseWriter, r *http.Request) {
	var in struct{ ThreadID, RunID string }
	body, _ := io.ReadAll(r.Body)
	var probe map[string]json.RawMessage
	_ = json.Unmarshal(body, &probe)
	_ = json.Unmarshal(probe["threadId"], &in.ThreadID)
	_ = json.Unmarshal(probe["runId"], &in.RunID)
	var fp struct{ N, Rate int }
	_ = json.Unmarshal(probe["forwardedProps"], &fp)
	w.Header().Set("Content-Type", "text/event-stream")
	rc := http.NewResponseController(w)
	enc := agui.NewEncoder(w)
	enc.Encode("", &agui.RunStarted{ThreadID: in.ThreadID, RunID: in.RunID})
	enc.Encode("", &agui.TextMessageStart{MessageID: "m", Role: "assistant"})
	var interval time.Duration
	if fp.Rate > 0 {
		interval = time.Second / time.Duration(fp.Rate)
	}
	next := time.Now()
	var buf []byte
	for i := 0; i < fp.N; i++ {
		if interval > 0 {
			next = next.Add(interval)
			time.Sleep(time.Until(next))
		}
		buf = append(buf[:0], `{"type":"TEXT_MESSAGE_CONTENT","messageId":"m","delta":"`...)
		buf = strconv.AppendInt(buf, time.Now().UnixNano(), 10)
		buf = append(buf, `"}`...)
		if err := enc.EncodeData("", buf); err != nil {
			return
		}
		if interval > 0 {
			rc.Flush()
		}
	}
	enc.Encode("", &agui.TextMessageEnd{MessageID: "m"})
	enc.Encode("", &agui.RunFinished{ThreadID: in.ThreadID, RunID: in.RunID})
}

var runSeq atomic.Int64

var contentPrefix = []byte(`{"type":"TEXT_MESSAGE_CONTENT","messageId":"m","delta":"`)

// stream runs one stream and measures it.
func stream(client *http.Client, url string, n, rate int) result {
	id := runSeq.Add(1)
	body := fmt.Sprintf(`{"threadId":"t%d","runId":"r%d","messages":[],"forwardedProps":{"N":%d,"Rate":%d}}`, id, id, n, rate)
	start := time.Now()
	req, _ := http.NewRequestWithContext(context.Background(), http.MethodPost, url, bytes.NewReader([]byte(body)))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "text/event-stream")
	resp, err := client.Do(req)
	if err != nil {
		return result{failures: 1}
	}
	defer resp.Body.Close()
	res := result{}
	if rate > 0 {
		res.latency = make([]time.Duration, 0, n)
	}
	finished := false
	for f, err := range agui.ScanFrames(resp.Body, 0) {
		if err != nil {
			break
		}
		res.events++
		if bytes.HasPrefix(f.Data, contentPrefix) && rate > 0 {
			ts := f.Data[len(contentPrefix) : len(f.Data)-2]
			if sent, err := strconv.ParseInt(string(ts), 10, 64); err == nil {
				res.latency = append(res.latency, time.Since(time.Unix(0, sent)))
			}
		}
		if bytes.Contains(f.Data, []byte(`"RUN_FINISHED"`)) {
			finished = true
		}
	}
	res.elapsed = time.Since(start)
	if !finished || res.events < n {
		res.failures++
	}
	return res
}

func parallel(client *http.Client, url string, streams, n int) result {
	return parallelPaced(client, url, streams, n, 0)
}

func parallelPaced(client *http.Client, url string, streams, n, rate int) result {
	var mu sync.Mutex
	var total result
	var wg sync.WaitGroup
	start := time.Now()
	for range streams {
		wg.Go(func() {
			r := stream(client, url, n, rate)
			mu.Lock()
			total.events += r.events
			total.failures += r.failures
			total.latency = append(total.latency, r.latency...)
			mu.Unlock()
		})
	}
	wg.Wait()
	total.elapsed = time.Since(start)
	return total
}
