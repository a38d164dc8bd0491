// Package runs executes agent runs that outlive their requests, and is
// the one place that holds the rules about them:
//
//   - Every request that runs an agent is a registered run: a unique id
//     (ErrRunExists on reuse), an owner, cancellable, resumable, and (unless
//     it is a card's request) in its thread's history.
//   - Runs and threads are scoped to the principal that starts them: two
//     principals using the same ids have two runs and two threads, so no
//     principal can read, continue, supersede, resume, cancel or stop
//     another's, and no answer tells one that the other's exists (unknown
//     and foreign ids both give ErrNotFound).
//   - An executor goroutine runs the agent chain and commits every event to
//     the run log before any reader sees it; readers of a run on one
//     instance share one in-process tail (hub), whether the run executes
//     here or, with Redis, on another instance (one tailer goroutine reads
//     every remote run in one XREAD).
//   - A run with no reader attached goes on for the detach grace, then is
//     cancelled; the response that starts a run is a reader before the
//     executor starts, so a grace of 0 never cancels a connected client's
//     run.
//   - Memory is bounded by configuration: the run log's budgets (package
//     runlog), each run's transcript (cut with agui.CutMarker beyond its
//     cap, and all running transcripts together), each thread's stored
//     history (oldest messages dropped first) and the in-process tails.
//   - With Redis, a Redis blink costs latency, not runs: while Redis does
//     not answer, each run's events wait in process (within
//     MaxUnwrittenBytes; a run with no room waits) and are written once
//     it answers, in order and once each; leases that lapsed meanwhile
//     are taken back. An outage longer than OutageTolerance ends the
//     runs with run_log_unavailable. A run whose lease lapsed and whose
//     thread another run took, or that another instance took over, is
//     fenced: it writes nothing more and ends with owner_lost, as does
//     the run of an instance that died (once its lease lapsed, a reader
//     elsewhere or, read or not, the reaper of a live instance ends it),
//     unless it kept a checkpoint another instance takes it over from
//     (see handover.go).
//
// A direct run (StartDirect) is the exception: an agent run for its
// client's stream alone, with no record, thread or history, bounded in
// time and bytes, ended when its client leaves (CopilotKit's suggestions).
//
// The HTTP edge calls Start, StartDirect, Attach, Cancel, Stop, Thread and
// the thread methods (Threads, ThreadMessages, UpdateThread,
// DeleteThread...); it never touches the run log itself.
package runs

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"sync"
	"sync/atomic"
	"time"

	"github.com/genui-adapter/genui-adapter/adapter/runlog"
	"github.com/genui-adapter/genui-adapter/agui"
)

// Errors the edge maps to answers.
var (
	// ErrNotFound: no such run or thread for this principal.
	ErrNotFound = errors.New("no such run")
	// ErrRunExists: the principal already used this run id.
	ErrRunExists = errors.New("run id already used")
	// ErrTooManyReaders: the principal has MaxReadersPerPrincipal readers.
	ErrTooManyReaders = errors.New("too many concurrent readers")
	// ErrGap: the events after the cursor were evicted.
	ErrGap = runlog.ErrGap
	// ErrUnavailable: the run log does not answer (or failed).
	ErrUnavailable = errors.New("the run log does not answer")
)

// BusyError: the thread has an active run (the principal's own).
type BusyError struct{ RunID string }

func (e *BusyError) Error() string { return fmt.Sprintf("thread has an active run %q", e.RunID) }

// Cancel reasons.
const (
	ReasonCancel    = "cancel"
	ReasonAbort     = "abort" // CopilotKit's stop route
	ReasonSupersede = "superseded"
)

// Config shapes a Manager. Zero values mean the documented defaults.
type Config struct {
	// Instance names this process in run records.
	Instance string
	// DetachGrace is how long a run goes on with no reader attached.
	DetachGrace time.Duration
	// Supersede: a new run on a busy thread cancels the thread's active
	// run (the same principal's) instead of failing with BusyError.
	Supersede bool
	// LeaseTTL is the owner lease of a running run with Redis (default
	// 5 s): the time within which a stalled owner gives its runs up and
	// their threads are free again.
	LeaseTTL time.Duration
	// MaxReadersPerPrincipal caps one principal's concurrent resume and
	// connect readers on this instance (default 64).
	MaxReadersPerPrincipal int
	// MaxTranscriptBytes caps what one run adds to its thread's history
	// (default 1 MiB); beyond it the history is cut with agui.CutMarker.
	MaxTranscriptBytes int64
	// MaxLiveTranscriptBytes caps the transcripts of all running runs
	// together (default 64 MiB).
	MaxLiveTranscriptBytes int64
	// MaxThreadBytes caps one thread's stored history (default 1 MiB):
	// its oldest messages are dropped first.
	MaxThreadBytes int64
	// MaxTailBytes caps the recent events kept in process for readers of
	// all runs together (default 32 MiB); older ones are read from the
	// log.
	MaxTailBytes int64
	// OpTimeout bounds one run-log operation (default 5 s).
	OpTimeout time.Duration
	// OutageTolerance is how long a run goes on while the run log does
	// not answer (default 15 s; at least LeaseTTL): its events wait in
	// process and its lease is taken back when the log answers. Longer
	// outages end the run with run_log_unavailable, and readers of runs
	// of other instances with the same code.
	OutageTolerance time.Duration
	// MaxUnwrittenBytes caps the events of all runs together that wait
	// for the log (Batch; default 128 MiB): beyond it a run waits, and
	// its upstream with it, until the log takes what it has waiting.
	// The checkpoints and thread histories waiting for a run's next
	// append count too; one with no room is not kept (a history is then
	// stored on its own).
	MaxUnwrittenBytes int64
	// Batch appends the events of many runs together (one pipeline per
	// batch), for a log across the network (Redis).
	Batch bool
	// CommitDelay is how long a synchronous log's batch of events waits
	// for the run to block on its upstream before it is committed and
	// sent anyway (default 2 ms).
	CommitDelay time.Duration
	// MaxThreadPage caps one page of a principal's threads (default
	// DefaultMaxThreadPage); a larger limit gets this many.
	MaxThreadPage int
	// MaxTitleBytes caps a thread's title (default DefaultMaxTitleBytes).
	MaxTitleBytes int
	// MaxThreadRuns caps the runs a thread's record lists (default
	// runlog.DefaultMaxThreadRuns): its events and state are read from
	// them.
	MaxThreadRuns int
	// MaxThreadEventBytes caps the events of one thread returned at once
	// (default DefaultMaxThreadEventBytes).
	MaxThreadEventBytes int
	// MaxHandoverBytes caps a run's hand-over record (default
	// DefaultMaxHandoverBytes): at a drain a run whose record is larger
	// is not handed over; it goes on here until Shutdown.
	MaxHandoverBytes int
	// HandoverClaimTimeout is how long a run handed over keeps its lease
	// and thread while it waits for another instance to claim it
	// (default DefaultHandoverClaimTimeout); unclaimed past it, it ends
	// with owner_lost.
	HandoverClaimTimeout time.Duration
	// CheckpointInterval is how often, at most, a run that can be handed
	// over keeps a checkpoint in the log (default
	// DefaultCheckpointInterval): if its instance dies, another takes it
	// over from the latest one, the events after it coming again from the
	// upstream and written once.
	CheckpointInterval time.Duration
	// Logger receives run lifecycle logs; nil discards.
	Logger *slog.Logger
	// Observer receives counts for metrics; nil discards.
	Observer Observer
}

// Defaults.
const (
	DefaultDetachGrace            = 30 * time.Second
	DefaultLeaseTTL               = 5 * time.Second
	DefaultMaxReadersPerPrincipal = 64
	DefaultMaxTranscriptBytes     = 1 << 20
	DefaultMaxLiveTranscriptBytes = 64 << 20
	DefaultMaxThreadBytes         = 1 << 20
	DefaultMaxTailBytes           = 32 << 20
	DefaultCommitDelay            = 2 * time.Millisecond
	DefaultOutageTolerance        = 15 * time.Second
	DefaultMaxUnwrittenBytes      = 128 << 20
	DefaultMaxHandoverBytes       = 1 << 20
	DefaultHandoverClaimTimeout   = 10 * time.Second
	DefaultCheckpointInterval     = time.Second
)

// Observer is told what metrics count.
type Observer interface {
	RunStarted(agent string)
	// RunEnded reports the terminal event's type and code ("" for
	// RUN_FINISHED), or type "" when the run ended without one.
	RunEnded(agent string, terminal agui.EventType, code string)
	// Relayed returns the counter of agent's relayed events; a run
	// looks it up once and adds to it per event.
	Relayed(agent string) func(n int)
	// HandedOver reports a run of agent this instance handed over at a
	// drain (out) or took over from another instance (in).
	HandedOver(agent string, out bool)
}

type noObserver struct{}

func (noObserver) RunStarted(string)                       {}
func (noObserver) RunEnded(string, agui.EventType, string) {}
func (noObserver) Relayed(string) func(int)                { return func(int) {} }
func (noObserver) HandedOver(string, bool)                 {}

// Manager runs and follows runs. It is safe for concurrent use.
type Manager struct {
	log    runlog.Log
	cfg    Config
	logger *slog.Logger
	obs    Observer

	stop      context.CancelFunc // ends the supervisor, tailer, subscription
	bg        sync.WaitGroup     // those goroutines
	executors sync.WaitGroup

	mu       sync.Mutex
	local    map[runlog.Ref]*localRun
	remote   map[runlog.Ref]*hub
	direct   map[*Direct]struct{}
	readers  map[string]int   // per principal
	shutdown *agui.RunFailure // set once: new runs are refused
	draining bool             // set once: runs are handed over, none claimed

	handovers runlog.Handovers // the log, when it hands runs over; else nil
	stopClaim func()           // ends the claimer (AcceptHandovers)

	live      atomic.Int64 // bytes of running transcripts
	unwritten atomic.Int64 // bytes of events waiting for the log (Batch)
	tailBytes atomic.Int64 // bytes of all hubs' rings
	wakeTail  chan struct{}

	// The appenders' queues (Batch): runs' first appends, then the rest.
	qmu   sync.Mutex
	first []*committer
	queue []*committer
	qwake chan struct{}
	// recordSlots bounds the hand-over records built at once at a drain:
	// together within MaxUnwrittenBytes.
	recordSlots chan struct{}
}

// localRun is a run this instance executes.
type localRun struct {
	run     runlog.Run
	hub     *hub
	cancel  context.CancelCauseFunc
	readers atomic.Int32
	// lastLeft is when the last local reader left (UnixNano), for the
	// detach grace.
	lastLeft     atomic.Int64
	leased       time.Time // last lease renewal (the supervisor's)
	executorDone atomic.Bool
	endSpan      func(error) // the run's span, or a no-op
	// handover asks the run to stop for another instance to take it
	// over (nil: the run cannot be handed over); first is its first
	// event's sequence number (after 1 for a run taken over).
	handover *agui.Handover
	first    int64
	input    *agui.RunAgentInput // with handover: what its record carries
	// replay, for a run taken over from a checkpoint older than its last
	// event, is the sequence number of the first event its chain yields:
	// those before first are in the log already and are not written again.
	replay int64
	// rebuild, for a run taken over after its owner died, is its
	// checkpoint's Next: the thread's history lacks the events before
	// it, which are read from the log.
	rebuild int64
	// saveStart: the run's start record is to be stored (a run started
	// here that can be handed over).
	saveStart bool
	// recorded, if set, closes once the run is in its thread's record
	// (see Start): its terminal event waits for it.
	recorded chan struct{}
	// history is the thread's stored history as the run's start read it
	// (historyRead), for its execution to begin with.
	history     []byte
	historyRead bool
}

// New starts a Manager on log. Close it after Shutdown and Wait.
func New(log runlog.Log, cfg Config) (*Manager, error) {
	if cfg.LeaseTTL == 0 {
		cfg.LeaseTTL = DefaultLeaseTTL
	}
	if cfg.MaxReadersPerPrincipal == 0 {
		cfg.MaxReadersPerPrincipal = DefaultMaxReadersPerPrincipal
	}
	if cfg.MaxTranscriptBytes == 0 {
		cfg.MaxTranscriptBytes = DefaultMaxTranscriptBytes
	}
	if cfg.MaxLiveTranscriptBytes == 0 {
		cfg.MaxLiveTranscriptBytes = DefaultMaxLiveTranscriptBytes
	}
	if cfg.MaxThreadBytes == 0 {
		cfg.MaxThreadBytes = DefaultMaxThreadBytes
	}
	if cfg.MaxTailBytes == 0 {
		cfg.MaxTailBytes = DefaultMaxTailBytes
	}
	if cfg.OpTimeout == 0 {
		cfg.OpTimeout = 5 * time.Second
	}
	if cfg.CommitDelay == 0 {
		cfg.CommitDelay = DefaultCommitDelay
	}
	if cfg.OutageTolerance == 0 {
		cfg.OutageTolerance = DefaultOutageTolerance
	}
	cfg.OutageTolerance = max(cfg.OutageTolerance, cfg.LeaseTTL)
	if cfg.MaxUnwrittenBytes == 0 {
		cfg.MaxUnwrittenBytes = DefaultMaxUnwrittenBytes
	}
	if cfg.MaxThreadPage == 0 {
		cfg.MaxThreadPage = DefaultMaxThreadPage
	}
	if cfg.MaxTitleBytes == 0 {
		cfg.MaxTitleBytes = DefaultMaxTitleBytes
	}
	if cfg.MaxThreadRuns == 0 {
		cfg.MaxThreadRuns = runlog.DefaultMaxThreadRuns
	}
	if cfg.MaxThreadEventBytes == 0 {
		cfg.MaxThreadEventBytes = DefaultMaxThreadEventBytes
	}
	if cfg.MaxHandoverBytes == 0 {
		cfg.MaxHandoverBytes = DefaultMaxHandoverBytes
	}
	if cfg.CheckpointInterval == 0 {
		cfg.CheckpointInterval = DefaultCheckpointInterval
	}
	if cfg.HandoverClaimTimeout == 0 {
		cfg.HandoverClaimTimeout = DefaultHandoverClaimTimeout
	}
	m := &Manager{
		log: log, cfg: cfg, logger: cfg.Logger, obs: cfg.Observer,
		local: map[runlog.Ref]*localRun{}, remote: map[runlog.Ref]*hub{}, direct: map[*Direct]struct{}{}, readers: map[string]int{},
		wakeTail: make(chan struct{}, 1), qwake: make(chan struct{}, 1),
		recordSlots: make(chan struct{}, max(1, cfg.MaxUnwrittenBytes/int64(cfg.MaxHandoverBytes))),
	}
	if m.logger == nil {
		m.logger = slog.New(slog.DiscardHandler)
	}
	if m.obs == nil {
		m.obs = noObserver{}
	}
	m.handovers, _ = log.(runlog.Handovers)
	ctx, stop := context.WithCancel(context.Background())
	m.stop = stop
	if err := log.Subscribe(ctx, cfg.Instance, m.onCancel); err != nil {
		stop()
		return nil, fmt.Errorf("runs: subscribe to cancels: %w", err)
	}
	m.bg.Add(2)
	go func() { defer m.bg.Done(); m.supervise(ctx) }()
	go func() { defer m.bg.Done(); m.tail(ctx) }()
	if orphans, ok := log.(runlog.Orphans); ok {
		m.bg.Add(1)
		go func() { defer m.bg.Done(); m.reap(ctx, orphans) }()
	}
	if cfg.Batch {
		for range appendWorkers {
			m.bg.Add(1)
			go func() { defer m.bg.Done(); m.appender(ctx) }()
		}
	}
	return m, nil
}

// Close stops the Manager's goroutines (not the runs: Shutdown and Wait
// first).
func (m *Manager) Close() {
	m.stop()
	m.mu.Lock()
	if m.stopClaim != nil {
		m.stopClaim()
	}
	m.mu.Unlock()
	m.bg.Wait()
}

// StartRequest is what a run starts with.
type StartRequest struct {
	Principal string
	// UpstreamPrincipal is the agent's agui.Request.Principal: "" for an
	// unauthenticated deployment.
	UpstreamPrincipal string
	AgentID           string
	Agent             agui.Agent
	Input             *agui.RunAgentInput
	// Header is the starting request's headers (for forwarded headers).
	Header http.Header
	// Stats receives the run's measurements.
	Stats agui.Stats
	// Tracer traces what the run does (nil: no spans).
	Tracer agui.Tracer
	// Repairs, if set, returns the repairs made since its last call; they
	// are carried in the stream as CUSTOM events (debug runs).
	Repairs func() []string
	// Unlocked runs (an MCP Apps card's request) do not hold their
	// thread and keep no history.
	Unlocked bool
	// Rejoinable: the agent's backend can rejoin a run another process
	// stopped (agui.Rejoiner). With a run log that hands runs over
	// (Redis) the run gets an agui.Handover, and a drain hands it over to
	// another instance rather than ending it.
	Rejoinable bool
	// KeepHeaders names the headers of Header a run handed over carries
	// to the instance that takes it over (those the agent forwards
	// upstream); the others stay behind.
	KeepHeaders []string
	// Span, if set, starts the run's trace span in the run's own context
	// (which outlives the request); it ends with the run, with an error
	// unless the run finished.
	Span func(ctx context.Context) (context.Context, func(error))
}

// Start registers a run; Serve executes it. The starting client counts
// as a reader from here on, so a detach grace of 0 never ends a run whose
// client is connected. With a batching log (Redis) the run's record in
// its thread is written while its first events are: its thread lists it
// before it ends, not necessarily before its RUN_STARTED.
func (m *Manager) Start(ctx context.Context, req StartRequest) (*Started, error) {
	in := req.Input
	m.mu.Lock()
	down := m.shutdown
	m.mu.Unlock()
	if down != nil {
		return nil, down
	}
	run := runlog.Run{ID: in.RunID, ThreadID: in.ThreadID, AgentID: req.AgentID, Owner: req.Principal, Instance: m.cfg.Instance, Unlocked: req.Unlocked}
	lctx, cancel := context.WithTimeout(ctx, m.cfg.OpTimeout)
	defer cancel()
	var prev string
	var history []byte
	var err error
	if run.Unlocked {
		prev, err = m.log.Start(lctx, run, false)
	} else {
		prev, history, err = m.log.StartWithHistory(lctx, run, m.cfg.Supersede)
	}
	switch {
	case errors.Is(err, runlog.ErrThreadBusy):
		return nil, &BusyError{RunID: prev}
	case errors.Is(err, runlog.ErrRunExists):
		return nil, ErrRunExists
	case err != nil:
		return nil, fmt.Errorf("%w: %w", ErrUnavailable, err)
	}
	run.Status = runlog.StatusRunning
	lr := &localRun{run: run, hub: newHub(1, &m.tailBytes, m.cfg.MaxTailBytes), leased: time.Now(), first: 1,
		history: history, historyRead: !run.Unlocked}
	if m.cfg.Batch && (!req.Unlocked || prev != "") {
		// Across the network each call waits behind the appends in
		// flight: the run's record in its thread and the superseded
		// run's cancel go alongside its first events, and its terminal
		// event waits for them (committer.add).
		lr.recorded = make(chan struct{})
		m.executors.Add(1)
		go func() {
			defer m.executors.Done()
			defer close(lr.recorded)
			// A log that does not answer delays the record, up to the
			// outage tolerance, as it delays the run's events.
			m.recordStart(context.WithoutCancel(ctx), run, prev, req.Unlocked)
		}()
	} else {
		m.recordStart(lctx, run, prev, req.Unlocked)
	}
	if req.Rejoinable && m.handovers != nil {
		lr.handover, lr.input, lr.saveStart = agui.NewHandover(), in, true
	}
	lr.readers.Store(1) // the starting client
	rctx := m.register(lr, req)
	m.obs.RunStarted(req.AgentID)
	m.logger.InfoContext(rctx, "run started", "agent", req.AgentID, "threadId", in.ThreadID, "runId", in.RunID, "principal", req.Principal, "unlocked", req.Unlocked)
	return &Started{m: m, lr: lr, req: req, ctx: rctx}, nil
}

// recordStart adds a started run to its thread's record (unless it is
// unlocked) and asks the run it supersedes, if any, to stop.
func (m *Manager) recordStart(ctx context.Context, run runlog.Run, prev string, unlocked bool) {
	if !unlocked {
		m.recordRun(ctx, run, prev)
	}
	if prev != "" {
		ctx, cancel := context.WithTimeout(ctx, m.cfg.OpTimeout)
		defer cancel()
		if p, err := m.log.Get(ctx, runlog.Ref{Owner: run.Owner, ID: prev}); err == nil {
			_ = m.log.RequestCancel(ctx, p, ReasonSupersede)
		}
	}
}

// Started is a registered run that Serve executes.
type Started struct {
	m   *Manager
	lr  *localRun
	req StartRequest
	ctx context.Context // the run's own, not the request's
}

// Sink is where a stream's events go: the edge writes them to its client.
// Send writes events for the client and, with now, sends them (with what
// was queued before them) at once; without, it may queue them, and a
// short timer flushes what is left. Flush sends what is queued now. They
// are called from one goroutine at a time; an error means the client is
// gone.
type Sink interface {
	Send(entries []runlog.Entry, now bool) error
	Flush() error
}

// Serve executes the run and sends its events to the client that started
// it, until the run ends; ctx is that client's request. With a
// synchronous log (memory) the run executes right here, in the caller's
// goroutine, and each event goes to the client as soon as it is logged,
// with no hand-off; if the client goes away the run goes on without it
// (detach grace) and Serve returns when the run ends. With a batching log
// (Redis) the run executes in its own goroutine and Serve follows it like
// any reader; as for Follow, an error is a failure to read the run that
// the caller reports to the client in-band.
func (s *Started) Serve(ctx context.Context, sink Sink) error {
	m, lr := s.m, s.lr
	if !m.cfg.Batch {
		c := &startingClient{lr: lr, m: m, sink: sink, ctx: ctx}
		c.stop = context.AfterFunc(ctx, c.leave)
		// Flush right before the run blocks on its upstream: a burst
		// goes out in one write, a lone event at once.
		m.execute(s.ctx, lr, s.req, c, c.beforeRead)
		return nil
	}
	go m.execute(s.ctx, lr, s.req, nil, nil)
	rd := &Reader{m: m, run: lr.run, hub: lr.hub, local: lr}
	lr.hub.join(rd)
	return Follow(ctx, rd, sink)
}

// startingClient is the inline executor's client: it leaves the run's
// readers when its request ends or a send fails.
type startingClient struct {
	m    *Manager
	lr   *localRun
	sink Sink
	ctx  context.Context
	stop func() bool
	left atomic.Bool
	once sync.Once
	// committer is the run's, once its execution has begun: the
	// BeforeRead hook commits its batch before flushing.
	committer atomic.Pointer[committer]
}

func (c *startingClient) send(entries []runlog.Entry, now bool) {
	if c.left.Load() {
		return
	}
	if c.ctx.Err() != nil || c.sink.Send(entries, now) != nil {
		c.leave()
	}
}

// beforeRead is the run's BeforeRead hook.
func (c *startingClient) beforeRead() {
	if cm := c.committer.Load(); cm != nil {
		cm.beforeRead()
		return
	}
	c.flush()
}

func (c *startingClient) flush() {
	if !c.left.Load() && c.sink.Flush() != nil {
		c.leave()
	}
}

// leave takes the client off the run's readers (once).
func (c *startingClient) leave() {
	c.once.Do(func() {
		c.left.Store(true)
		if c.lr.readers.Add(-1) == 0 {
			c.lr.lastLeft.Store(time.Now().UnixNano())
			if c.m.cfg.DetachGrace == 0 {
				c.m.checkDetached(c.lr)
			}
		}
	})
}

// close ends the client's part when the run ends.
func (c *startingClient) close() {
	c.flush()
	c.stop()
	c.leave()
}

// Follow sends a reader's events to sink until the run's terminal event,
// the client's request (ctx) ends or a send fails; it closes the reader.
// A failure to read is reported with Send of nothing and the error left
// to the caller: Follow returns it.
func Follow(ctx context.Context, rd *Reader, sink Sink) error {
	defer rd.Close()
	buf := make([]runlog.Entry, 0, 64)
	for {
		entries, end, err := rd.Read(ctx, buf[:0])
		if len(entries) > 0 && sink.Send(entries, true) != nil {
			return nil
		}
		if err != nil {
			if ctx.Err() != nil {
				return nil // the client went away during a read: no one to tell
			}
			return err
		}
		if end {
			return nil
		}
		select {
		case <-rd.Wait():
		case <-ctx.Done():
			return nil
		}
	}
}

// Attach returns a reader of the principal's run after cursor. An
// unknown run, or another principal's, is ErrNotFound; an evicted cursor
// ErrGap.
func (m *Manager) Attach(ctx context.Context, principal, runID string, after int64) (*Reader, error) {
	ref := runlog.Ref{Owner: principal, ID: runID}
	lctx, cancel := context.WithTimeout(ctx, m.cfg.OpTimeout)
	defer cancel()
	run, err := m.log.Get(lctx, ref)
	if errors.Is(err, runlog.ErrUnknownRun) {
		return nil, ErrNotFound
	}
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrUnavailable, err)
	}
	if _, err := m.log.Read(lctx, ref, after, 1); err != nil {
		switch {
		case errors.Is(err, runlog.ErrUnknownRun):
			return nil, ErrNotFound
		case errors.Is(err, runlog.ErrGap):
			return nil, err
		}
		return nil, fmt.Errorf("%w: %w", ErrUnavailable, err)
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.readers[principal] >= m.cfg.MaxReadersPerPrincipal {
		return nil, ErrTooManyReaders
	}
	m.readers[principal]++
	r := &Reader{m: m, run: run, cursor: after, capped: true}
	if lr := m.local[ref]; lr != nil {
		lr.readers.Add(1)
		r.local, r.hub = lr, lr.hub
		lr.hub.join(r)
		return r, nil
	}
	if run.Status == runlog.StatusRunning {
		// Executed elsewhere (or by a process that is gone): share one
		// tail per run on this instance.
		m.tailLocked(r, run, after)
	}
	return r, nil
}

// tailLocked makes r a reader of run's tail on this instance (one hub per
// run, shared by its readers here), starting after cursor if r is the
// first. m.mu is held.
func (m *Manager) tailLocked(r *Reader, run runlog.Run, after int64) {
	ref := run.Ref()
	h := m.remote[ref]
	if h == nil {
		h = newHub(after+1, &m.tailBytes, m.cfg.MaxTailBytes)
		h.run = run
		m.remote[ref] = h
		select {
		case m.wakeTail <- struct{}{}:
		default:
		}
	}
	h.mu.Lock()
	h.readers++
	h.mu.Unlock()
	r.hub, r.remote = h, true
}

// detach is Reader.Close.
func (m *Manager) detach(r *Reader) {
	if r.capped {
		m.mu.Lock()
		if m.readers[r.run.Owner]--; m.readers[r.run.Owner] <= 0 {
			delete(m.readers, r.run.Owner)
		}
		m.mu.Unlock()
	}
	if r.hub != nil {
		r.hub.leave(r)
	}
	switch {
	case r.local != nil:
		if r.local.readers.Add(-1) == 0 {
			r.local.lastLeft.Store(time.Now().UnixNano())
			if r.local.executorDone.Load() {
				r.local.hub.release()
			} else if m.cfg.DetachGrace == 0 {
				m.checkDetached(r.local)
			}
		}
	case r.remote:
		m.mu.Lock()
		h := r.hub
		h.mu.Lock()
		h.readers--
		last := h.readers == 0
		h.mu.Unlock()
		if last && m.remote[r.run.Ref()] == h {
			delete(m.remote, r.run.Ref())
			h.release()
		}
		m.mu.Unlock()
		// Tell the owner when this reader left (detach grace across
		// instances).
		lctx, cancel := context.WithTimeout(context.Background(), m.cfg.OpTimeout)
		_ = m.log.Touch(lctx, r.run.Ref())
		cancel()
	}
}

// Cancel asks the principal's run to stop and reports whether it was
// running.
func (m *Manager) Cancel(ctx context.Context, principal, runID, reason string) (runlog.Run, bool, error) {
	run, err := m.log.Get(ctx, runlog.Ref{Owner: principal, ID: runID})
	if errors.Is(err, runlog.ErrUnknownRun) {
		return run, false, ErrNotFound
	}
	if err != nil {
		return run, false, fmt.Errorf("run log: %w", err)
	}
	if run.Status != runlog.StatusRunning {
		return run, false, nil
	}
	if err := m.log.RequestCancel(ctx, run, reason); err != nil {
		return run, false, fmt.Errorf("run log: %w", err)
	}
	return run, true, nil
}

// Active returns the id of the principal's thread's active run, or "".
func (m *Manager) Active(ctx context.Context, principal, threadID string) (string, error) {
	return m.log.Active(ctx, runlog.Ref{Owner: principal, ID: threadID})
}

// onCancel delivers a cancel request to a local run.
func (m *Manager) onCancel(c runlog.Cancel) {
	m.mu.Lock()
	lr := m.local[c.Run]
	m.mu.Unlock()
	if lr != nil {
		m.logger.Info("run cancel requested", "runId", c.Run.ID, "reason", c.Reason)
		lr.cancel(causeFor(c.Reason))
	}
}

func causeFor(reason string) *agui.RunFailure {
	switch reason {
	case ReasonAbort:
		return &agui.RunFailure{Code: "abort", Message: "Run stopped by user"}
	case ReasonSupersede:
		return &agui.RunFailure{Code: "superseded", Message: "a newer run on this thread replaced this one"}
	}
	return &agui.RunFailure{Code: "cancelled", Message: "the run was cancelled"}
}

// Ready reports whether the run log answers.
func (m *Manager) Ready(ctx context.Context) error {
	ctx, cancel := context.WithTimeout(ctx, time.Second)
	defer cancel()
	return m.log.Ping(ctx)
}

// Shutdown refuses new runs and ends every running one (direct runs
// too) with cause.
func (m *Manager) Shutdown(cause *agui.RunFailure) {
	m.mu.Lock()
	if m.shutdown == nil {
		m.shutdown = cause
	}
	runs := make([]*localRun, 0, len(m.local))
	for _, lr := range m.local {
		runs = append(runs, lr)
	}
	direct := make([]*Direct, 0, len(m.direct))
	for d := range m.direct {
		direct = append(direct, d)
	}
	m.mu.Unlock()
	for _, lr := range runs {
		lr.cancel(cause)
	}
	for _, d := range direct {
		d.stop(cause)
	}
}

// Running reports how many runs this instance executes.
func (m *Manager) Running() int {
	m.mu.Lock()
	defer m.mu.Unlock()
	return len(m.local)
}

// Wait blocks until every executor (and direct run) has ended.
func (m *Manager) Wait() { m.executors.Wait() }

// EndWithin is how long runs told to end (Shutdown) may take to write
// their last event: an append the log does not answer is retried until
// the outage tolerance has passed, and one operation takes up to
// OpTimeout.
func (m *Manager) EndWithin() time.Duration { return m.cfg.OutageTolerance + m.cfg.OpTimeout }

// TailBytes reports the bytes the in-process tails hold.
func (m *Manager) TailBytes() int64 { return m.tailBytes.Load() }

// TranscriptBytes reports the bytes the running runs' transcripts hold.
func (m *Manager) TranscriptBytes() int64 { return m.live.Load() }
