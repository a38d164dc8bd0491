package adapter

import (
	"context"
	"log/slog"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"

	"github.com/genui-adapter/genui-adapter/adapter/runlog"
	"github.com/genui-adapter/genui-adapter/adapter/runs"
	"github.com/genui-adapter/genui-adapter/agui"
	"github.com/genui-adapter/genui-adapter/agui/langgraph"
)

// metrics are the service's Prometheus metrics, in their own registry.
type metrics struct {
	reg             *prometheus.Registry
	runsStarted     *prometheus.CounterVec
	runsFinished    *prometheus.CounterVec
	runsErrored     *prometheus.CounterVec
	events          *prometheus.CounterVec
	repairs         *prometheus.CounterVec
	upstreamLatency *prometheus.HistogramVec
	runStart        *prometheus.HistogramVec
	// runStartsLimited counts run starts refused by limits.runStartsPerSecond.
	runStartsLimited prometheus.Counter
	handedOver       *prometheus.CounterVec
	takenOver        *prometheus.CounterVec
}

func newMetrics() *metrics {
	m := &metrics{
		reg: prometheus.NewRegistry(),
		runsStarted: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "genui_runs_started_total", Help: "Runs started, per agent.",
		}, []string{"agent"}),
		runsFinished: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "genui_runs_finished_total", Help: "Runs that ended with RUN_FINISHED, per agent.",
		}, []string{"agent"}),
		runsErrored: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "genui_runs_errored_total", Help: "Runs that ended with RUN_ERROR, per agent and code.",
		}, []string{"agent", "code"}),
		events: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "genui_events_relayed_total", Help: "AG-UI events written to clients, per agent.",
		}, []string{"agent"}),
		repairs: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "genui_repairs_total", Help: "Repairs the stream normaliser applied, per kind.",
		}, []string{"kind"}),
		upstreamLatency: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name: "genui_upstream_latency_seconds", Help: "Time from upstream request to response headers.",
			Buckets: prometheus.ExponentialBuckets(0.0005, 2, 16),
		}, []string{"agent"}),
		runStart: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name: "genui_run_start_seconds", Help: "Time from a run's request to its RUN_STARTED written to the client, per agent.",
			Buckets: runStartBuckets,
		}, []string{"agent"}),
		runStartsLimited: prometheus.NewCounter(prometheus.CounterOpts{
			Name: "genui_run_starts_limited_total", Help: "Run starts refused with 429 by limits.runStartsPerSecond.",
		}),
		handedOver: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "genui_runs_handed_over_total", Help: "Runs this instance handed over to another at a drain, per agent.",
		}, []string{"agent"}),
		takenOver: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "genui_runs_taken_over_total", Help: "Runs this instance took over from a draining one, per agent.",
		}, []string{"agent"}),
	}
	m.reg.MustRegister(m.runsStarted, m.runsFinished, m.runsErrored, m.events, m.repairs, m.upstreamLatency, m.runStart, m.runStartsLimited, m.handedOver, m.takenOver,
		collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	return m
}

// runStartBuckets bound genui_run_start_seconds; 5 ms is the target.
var runStartBuckets = []float64{.0005, .001, .002, .003, .005, .01, .025, .05, .1, .25, .5, 1, 2.5, 5}

// knownCodes are the RUN_ERROR codes that become metric labels; any
// other code an upstream sends counts as "other", so that labels stay a
// bounded set.
var knownCodes = map[string]bool{
	agui.CodeUpstreamTruncated: true, agui.CodeUpstreamInvalid: true, agui.CodeUpstreamUnreachable: true,
	agui.CodeUpstreamStatus: true, agui.CodeUpstreamTooLarge: true, agui.CodeShutdown: true, agui.CodeInternal: true, agui.CodeOriginNotAllowed: true,
	"cancelled": true, "abort": true, "superseded": true, "detached": true, "owner_lost": true, runs.CodeLogUnavailable: true,
	langgraph.CodeGraphError: true, langgraph.CodeInterruptNotPending: true, "resume_gap": true, "run_log_error": true, "": true,
}

// RunStarted implements runs.Observer.
func (m *metrics) RunStarted(agent string) { m.runsStarted.WithLabelValues(agent).Inc() }

// RunEnded implements runs.Observer.
func (m *metrics) RunEnded(agent string, terminal agui.EventType, code string) {
	switch terminal {
	case agui.TypeRunFinished:
		m.runsFinished.WithLabelValues(agent).Inc()
	default:
		if !knownCodes[code] {
			code = "other"
		}
		m.runsErrored.WithLabelValues(agent, code).Inc()
	}
}

// HandedOver implements runs.Observer.
func (m *metrics) HandedOver(agent string, out bool) {
	if out {
		m.handedOver.WithLabelValues(agent).Inc()
		return
	}
	m.takenOver.WithLabelValues(agent).Inc()
}

// Relayed implements runs.Observer.
func (m *metrics) Relayed(agent string) func(n int) {
	c := m.events.WithLabelValues(agent)
	return func(n int) { c.Add(float64(n)) }
}

// watchStores exports the bytes each store holds, read at scrape time.
func (m *metrics) watchStores(log runlog.Log, r *runs.Manager) {
	for store, f := range map[string]func() float64{
		"events":      func() float64 { return float64(log.Usage().Events) },
		"histories":   func() float64 { return float64(log.Usage().Histories) },
		"transcripts": func() float64 { return float64(r.TranscriptBytes()) },
		"tails":       func() float64 { return float64(r.TailBytes()) },
	} {
		m.reg.MustRegister(prometheus.NewGaugeFunc(prometheus.GaugeOpts{
			Name: "genui_store_bytes", Help: "Bytes held in this process per store (events and histories: memory run log only).",
			ConstLabels: prometheus.Labels{"store": store},
		}, f))
	}
}

// runStats reports one run's measurements; it implements agui.Stats.
// With debug, repairs are also kept for the run's event stream.
type runStats struct {
	m      *metrics
	agent  string
	runID  string
	logger *slog.Logger

	accepted time.Time // when the run's request arrived

	debug   bool
	mu      sync.Mutex
	pending []string
}

// takeRepairs returns the repairs reported since the last call (debug
// runs only).
func (s *runStats) takeRepairs() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	p := s.pending
	s.pending = nil
	return p
}

// startWritten observes the run's start: its RUN_STARTED reached the
// client.
func (s *runStats) startWritten() {
	s.m.runStart.WithLabelValues(s.agent).Observe(time.Since(s.accepted).Seconds())
}

func (s *runStats) UpstreamLatency(d time.Duration) {
	s.m.upstreamLatency.WithLabelValues(s.agent).Observe(d.Seconds())
}

// Failed logs why the agent failed (with the run's trace, as every line
// logged inside a run): its client's RUN_ERROR says only "cannot reach
// the upstream agent" and the like.
func (s *runStats) Failed(ctx context.Context, err error) {
	s.logger.WarnContext(ctx, "agent failed", "agent", s.agent, "runId", s.runID, "error", err)
}

func (s *runStats) Repair(kind string) {
	s.m.repairs.WithLabelValues(kind).Inc()
	s.logger.Debug("stream repaired", "agent", s.agent, "kind", kind)
	if s.debug {
		s.mu.Lock()
		s.pending = append(s.pending, kind)
		s.mu.Unlock()
	}
}
