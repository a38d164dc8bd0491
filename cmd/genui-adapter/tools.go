package main

import (
	"bytes"
	"context"
	"crypto/rand"
	"errors"
	"flag"
	"fmt"
	"io"
	"iter"
	"log/slog"
	"net"
	"net/http"
	"os"
	"strings"
	"sync"
	"time"

	"github.com/genui-adapter/genui-adapter/a2ui"
	"github.com/genui-adapter/genui-adapter/adapter"
	"github.com/genui-adapter/genui-adapter/agui"
	"github.com/genui-adapter/genui-adapter/agui/aguihttp"
	"github.com/genui-adapter/genui-adapter/agui/langgraph"
)

// errViolations makes the process exit non-zero after a report.
var errViolations = errors.New("violations found")

// healthcheck asks a running instance's /healthz (the image has no shell
// for curl): exit 0 when it answers 200.
func healthcheck(ctx context.Context, args []string, getenv func(string) string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("healthcheck", flag.ContinueOnError)
	listen := getenv("GENUI_LISTEN")
	if listen == "" {
		listen = "127.0.0.1:8080"
	}
	host, port, err := net.SplitHostPort(listen)
	if err != nil {
		return fmt.Errorf("GENUI_LISTEN %q: %w", listen, err)
	}
	if host == "" || host == "0.0.0.0" || host == "::" {
		host = "127.0.0.1"
	}
	url := fs.String("url", "http://"+net.JoinHostPort(host, port)+"/healthz", "the health URL")
	timeout := fs.Duration("timeout", 3*time.Second, "how long to wait")
	fs.Usage = func() {
		fmt.Fprintln(fs.Output(), "usage: genui-adapter healthcheck [flags]\n\nAsks a running instance's /healthz (the image has no shell for curl); exits 0 when it\nanswers 200, 1 otherwise. The default URL follows GENUI_LISTEN.\n\nFlags:")
		printFlags(fs.Output(), fs, nil)
	}
	if helped, err := parseFlags(fs, args, stdout); helped || err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return usageErrorf("healthcheck: unexpected argument %q (use -url URL)", fs.Arg(0))
	}
	ctx, cancel := context.WithTimeout(ctx, *timeout)
	defer cancel()
	req, _ := http.NewRequestWithContext(ctx, http.MethodGet, *url, nil)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return fmt.Errorf("unhealthy: %w", err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("unhealthy: %s answered %d", *url, resp.StatusCode)
	}
	fmt.Fprintln(stdout, "healthy")
	return nil
}

// repairLog collects the repairs the normaliser reports (agui.Stats), and
// why the endpoint failed, if it did.
type repairLog struct {
	mu    sync.Mutex
	kinds []string
	cause error
}

func (r *repairLog) UpstreamLatency(time.Duration) {}
func (r *repairLog) Failed(_ context.Context, err error) {
	r.mu.Lock()
	r.cause = err
	r.mu.Unlock()
}
func (r *repairLog) Repair(kind string) {
	r.mu.Lock()
	r.kinds = append(r.kinds, kind)
	r.mu.Unlock()
}

// After the run's terminal event check reads on for at most
// trailingWait, or trailingEvents events, to find an upstream that goes on.
const (
	trailingWait   = time.Second
	trailingEvents = 100
)

// trailing wraps the agent check reads: the normaliser stops reading at
// the run's terminal event, and trailing reads on after it, within
// trailingWait and trailingEvents, to report an upstream that sends
// events after it that a client fails on (after_terminal: "The run has
// already finished"). What every client accepts there is not counted: a
// RUN_ERROR after RUN_FINISHED, and another run (RUN_STARTED after
// RUN_FINISHED, up to its own terminal event). An event that does not
// parse fails every client there as well, and is counted.
func trailing(src agui.Agent, log *repairLog) agui.Agent {
	return agui.AgentFunc(func(ctx context.Context, req *agui.Request) iter.Seq2[agui.Event, error] {
		return func(yield func(agui.Event, error) bool) {
			ctx, cancel := context.WithCancel(ctx)
			defer cancel()
			var t afterTerminal
			ended, reading, read := false, true, 0
			for ev, err := range src.Run(ctx, req) {
				if !reading {
					if err != nil {
						if ctx.Err() == nil && (errors.Is(err, agui.ErrMalformedEvent) || errors.Is(err, agui.ErrEventTooLarge)) {
							t.bad++
						}
						break
					}
					t.next(ev)
					if read++; read >= trailingEvents {
						break
					}
					continue
				}
				late := ended
				if !late && err == nil {
					switch ev.(type) {
					case *agui.RunFinished:
						ended, t.state = true, runFinished
					case *agui.RunError:
						ended, t.state = true, runErrored
					}
				}
				if !yield(ev, err) {
					if !ended || err != nil {
						return
					}
					if late {
						t.next(ev) // the normaliser read it, and stopped there
					}
					reading = false
					timer := time.AfterFunc(trailingWait, cancel)
					defer timer.Stop()
				}
			}
			if t.bad > 0 {
				log.Repair(agui.RepairAfterTerminal)
			}
		}
	})
}

// afterTerminal follows what comes after a run's terminal event as a
// client judges it, and counts what it fails on.
type afterTerminal struct {
	state int
	bad   int
}

const (
	runFinished = iota // after RUN_FINISHED: a RUN_ERROR or RUN_STARTED may follow
	runErrored         // after RUN_ERROR: nothing may follow
	runAgain           // a run started after RUN_FINISHED, not ended yet
)

func (t *afterTerminal) next(ev agui.Event) {
	switch ev.(type) {
	case *agui.RunStarted:
		if t.state == runFinished {
			t.state = runAgain
			return
		}
	case *agui.RunFinished:
		if t.state == runAgain {
			t.state = runFinished
			return
		}
	case *agui.RunError:
		if t.state != runErrored {
			t.state = runErrored
			return
		}
	default:
		if t.state == runAgain {
			return
		}
	}
	t.bad++
}

// check runs an AG-UI endpoint (POST a RunAgentInput) or a recorded SSE
// file through the normaliser and reports every rule it had to repair,
// with the reason and the client versions the unrepaired stream breaks.
func check(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("check", flag.ContinueOnError)
	input := fs.String("input", "", "RunAgentInput JSON to POST (default: one user message, \"hello\")")
	header := fs.String("header", "", "a header to send, as Name: value")
	maxEvent := fs.Int("max-event-bytes", agui.DefaultMaxEventSize, "cap on one event")
	graph := fs.String("langgraph", "", "URL is a LangGraph Agent Server (langgraph dev, LangGraph Platform): run this `graph` or assistant id through the langgraph backend, as a type: langgraph agent")
	fs.Usage = func() {
		fmt.Fprintln(fs.Output(), "usage: genui-adapter check [flags] URL|FILE\n\nRuns an AG-UI endpoint, a LangGraph Agent Server's graph (-langgraph), or a recorded SSE\nfile (- for stdin), through the adapter's normaliser and prints every repair it made;\nexits 1 when the stream breaks a client.\n\nFlags:")
		printFlags(fs.Output(), fs, nil)
	}
	if helped, err := parseFlags(fs, args, stdout); helped || err != nil {
		return err
	}
	if fs.NArg() != 1 {
		return usageErrorf("check needs one URL or file (see genui-adapter help check)")
	}
	target := fs.Arg(0)
	body := []byte(*input)
	if len(body) == 0 {
		body = []byte(`{"threadId":"genui-check","runId":"genui-check-run","messages":[{"id":"u1","role":"user","content":"hello"}],"tools":[],"context":[]}`)
	}
	in, err := agui.ParseRunAgentInput(body)
	if err != nil {
		return err
	}
	log := &repairLog{}
	var source agui.Agent
	if strings.HasPrefix(target, "http://") || strings.HasPrefix(target, "https://") {
		up := aguihttp.Upstream{URL: target, MaxEventSize: *maxEvent}
		if *header != "" {
			k, v, ok := strings.Cut(*header, ":")
			if !ok {
				return fmt.Errorf("-header %q: want Name: value", *header)
			}
			up.Headers = map[string]string{strings.TrimSpace(k): strings.TrimSpace(v)}
		}
		if *graph != "" {
			source = &langgraph.Agent{Upstream: up, Graph: *graph, Logger: slog.New(slog.NewTextHandler(stderr, &slog.HandlerOptions{Level: slog.LevelWarn}))}
			if len(*input) == 0 {
				// A LangGraph thread of its own, deleted after: two checks
				// at once do not share one, and the server keeps none.
				in.ThreadID = "genui-check-" + rand.Text()
				defer func() {
					dctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
					defer cancel()
					url := strings.TrimRight(target, "/") + "/threads/" + langgraph.ThreadID(in.ThreadID)
					if r, err := up.Do(dctx, nil, http.MethodDelete, url, nil, nil); err == nil {
						r.Body.Close()
					}
				}()
			}
		} else {
			source = &aguihttp.Agent{Upstream: up, ClientThreadIDs: true}
		}
	} else {
		if *graph != "" {
			return usageErrorf("-langgraph needs the server's URL, not a file")
		}
		var r io.Reader = os.Stdin
		if target != "-" {
			f, err := os.Open(target)
			if err != nil {
				return err
			}
			defer f.Close()
			r = f
		}
		data, err := io.ReadAll(r)
		if err != nil {
			return err
		}
		source = agui.AgentFunc(func(context.Context, *agui.Request) iter.Seq2[agui.Event, error] {
			dec := agui.Decoder{MaxEventSize: *maxEvent, Repaired: log.Repair}
			return dec.Events(bytes.NewReader(data))
		})
		// A recording carries its own ids.
		if first := firstRun(data); first != nil {
			in.ThreadID, in.RunID = first.ThreadID, first.RunID
		}
	}
	chain := agui.Chain(trailing(source, log), agui.Normalize(agui.Output), agui.Normalize(agui.Canonical))
	n := 0
	var last agui.Event
	for ev, err := range chain.Run(ctx, &agui.Request{Input: in, Stats: log}) {
		if err != nil {
			return err
		}
		n++
		last = ev
	}
	fmt.Fprintf(stdout, "%s: %d events after normalisation", target, n)
	if last != nil {
		fmt.Fprintf(stdout, ", ending %s", last.Type())
		if e, ok := last.(*agui.RunError); ok {
			fmt.Fprintf(stdout, " (%s: %s)", e.Code, e.Message)
		}
	}
	fmt.Fprintln(stdout)
	if cause := log.cause; cause != nil {
		var re *agui.RunFailure
		if errors.As(cause, &re) && re.Err != nil {
			cause = re.Err // the line above has its code and message
		}
		fmt.Fprintf(stdout, "  cause: %v\n", cause)
	}
	counts := map[string]int{}
	var order []string
	for _, k := range log.kinds {
		if counts[k] == 0 {
			order = append(order, k)
		}
		counts[k]++
	}
	violations := 0
	for _, k := range order {
		info := agui.Explain(k)
		breaks := "no client (canonicalised)"
		if len(info.Breaks) > 0 {
			breaks = "breaks @ag-ui/client " + strings.Join(info.Breaks, ", ")
			violations++
		}
		fmt.Fprintf(stdout, "  %-28s x%-4d %s; %s\n", k, counts[k], info.Why, breaks)
	}
	if violations > 0 {
		fmt.Fprintf(stdout, "%d rule(s) broken: the adapter repairs them, a client talking to this agent directly would not\n", violations)
		return errViolations
	}
	fmt.Fprintln(stdout, "no violations")
	return nil
}

// firstRun finds the RUN_STARTED of a recording.
func firstRun(data []byte) *agui.RunStarted {
	for ev, err := range agui.Decode(bytes.NewReader(data), 0) {
		if err != nil {
			return nil
		}
		if rs, ok := ev.(*agui.RunStarted); ok {
			return rs
		}
	}
	return nil
}

// a2uiValidate validates A2UI messages from a JSON or JSONL file (- for
// stdin) as one stream.
func a2uiValidate(args []string, getenv func(string) string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("a2ui validate", flag.ContinueOnError)
	strict := fs.Bool("strict", false, "also refuse orphan components")
	config := fs.String("config", getenv("GENUI_CONFIG"), "the service's YAML config `file`, whose a2uiLimits apply (default: GENUI_CONFIG, else the documented defaults)")
	fs.Usage = func() {
		fmt.Fprintln(fs.Output(), "usage: genui-adapter a2ui validate [-strict] [-config FILE] FILE\n\nValidates A2UI messages (one message, a JSON array, {\"messages\":[...]} or JSONL;\n- for stdin) in their own version: v0.9/v0.9.1 against the official schemas and the\nintegrity rules, v0.8 and v1.0 against their official schemas, then converted to\nv0.9.1 against the same rules (what the conversion cannot express is listed, not an error).\nThe caps (size, components, depth...) are the config's a2uiLimits, as the service applies them.\nSays which version the document is; exits 1 on errors.\n\nFlags:")
		printFlags(fs.Output(), fs, nil)
	}
	if helped, err := parseFlags(fs, args, stdout); helped || err != nil {
		return err
	}
	if fs.NArg() != 1 {
		return usageErrorf("a2ui validate needs one file (see genui-adapter help a2ui)")
	}
	opts := a2ui.Options{Strict: *strict}
	if *config != "" {
		named := false
		fs.Visit(func(f *flag.Flag) { named = named || f.Name == "config" })
		cfg, err := adapter.LoadConfig(*config, getenv)
		switch {
		case err == nil:
			opts = cfg.A2UILimits.Options()
			opts.Strict = *strict
		case named:
			return err
		default:
			// GENUI_CONFIG is the service's, whose ${VAR}s may be unset
			// where this runs: the defaults, said so.
			fmt.Fprintf(stderr, "a2ui validate: GENUI_CONFIG %s cannot be read (%v); the documented default limits apply\n", *config, err)
		}
	}
	var r io.Reader = os.Stdin
	if fs.Arg(0) != "-" {
		f, err := os.Open(fs.Arg(0))
		if err != nil {
			return err
		}
		defer f.Close()
		r = f
	}
	data, err := io.ReadAll(r)
	if err != nil {
		return err
	}
	msgs, err := a2ui.SplitMessages(data)
	if err != nil {
		return err
	}
	v, err := a2ui.NewValidator(opts)
	if err != nil {
		return err
	}
	vd := v.Judge(msgs)
	errs := vd.Errors
	version := vd.Version
	if version == "" {
		version = "no version recognised"
	}
	fmt.Fprintf(stdout, "%s: A2UI %s, %s, %s\n", fs.Arg(0), version, counted(len(msgs), "message"), counted(len(errs), "error"))
	for _, e := range errs {
		fmt.Fprintf(stdout, "  message %d %s %s: %s\n", e.Index, e.Rule, e.Path, e.Message)
	}
	if len(vd.Lossy) > 0 {
		fmt.Fprintf(stdout, "%s the conversion to v0.9.1 cannot express:\n", counted(len(vd.Lossy), "part"))
		for _, e := range vd.Lossy {
			fmt.Fprintf(stdout, "  message %d %s: %s\n", e.Index, e.Path, e.Message)
		}
	}
	if len(errs) > 0 {
		return errViolations
	}
	return nil
}

// counted is n and noun, in the plural unless n is 1.
func counted(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return fmt.Sprintf("%d %ss", n, noun)
}
