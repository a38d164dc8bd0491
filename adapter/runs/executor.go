package runs

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"sync"
	"time"

	"github.com/genui-adapter/genui-adapter/adapter/runlog"
	"github.com/genui-adapter/genui-adapter/agui"
)

func isTerminal(ev agui.Event) bool {
	t := ev.Type()
	return t == agui.TypeRunFinished || t == agui.TypeRunError
}

// transcriptBudget is one run's share of the transcript budget.
type transcriptBudget struct {
	m    *Manager
	used int64
}

func (b *transcriptBudget) reserve(n int) bool {
	if b.used+int64(n) > b.m.cfg.MaxTranscriptBytes {
		return false
	}
	if b.m.live.Add(int64(n)) > b.m.cfg.MaxLiveTranscriptBytes {
		b.m.live.Add(-int64(n))
		return false
	}
	b.used += int64(n)
	return true
}

func (b *transcriptBudget) release() {
	b.m.live.Add(-b.used)
	b.used = 0
}

// execution is one run's executor state.
type execution struct {
	m       *Manager
	lr      *localRun
	req     StartRequest
	ctx     context.Context
	tr      *agui.Transcript // nil for unlocked runs
	trimmed int
	budget  transcriptBudget
	c       *committer
	outcome string
	ended   bool
	// The latest checkpoint taken: when, and its Next (the backend's
	// goroutine's, which calls checkpoint).
	ckptAt   time.Time
	ckptNext int64
	ckptBig  bool // a checkpoint was over MaxHandoverBytes (logged once)
	// seq is the sequence number of the chain's next event; the run's
	// events up to covered are in the transcript already (the thread's
	// history, saved mid-run by an earlier owner, holds them).
	seq, covered int64
}

// execute runs the agent chain and commits its events, in order, to the
// log and then to the run's hub (and, inline, to its starting client).
// The per-event work is in step, so that the frame under every event is
// small: a run's goroutine blocks under the whole middleware chain, and
// its stack is the biggest part of what an idle stream costs.
// before, if set, is the run's agui.Request.BeforeRead hook.
func (m *Manager) execute(ctx context.Context, lr *localRun, req StartRequest, client *startingClient, before func()) {
	defer m.executors.Done()
	x := m.newExecution(ctx, lr, req, client)
	defer x.finish(client)
	run := &agui.Request{Input: req.Input, Principal: req.UpstreamPrincipal, Header: req.Header, Stats: req.Stats, Tracer: req.Tracer, BeforeRead: before, Handover: lr.handover}
	for {
		for ev, err := range req.Agent.Run(x.ctx, run) {
			if x.step(ev, err) {
				break
			}
		}
		if x.outcome != "" || !run.Handover.Stopped() || x.handOver(run) {
			break
		}
		// Stopped for a hand-over that cannot be made: this instance
		// rejoins the run itself and goes on with it until the grace
		// ends it, as runs that cannot be handed over go on.
		st, _ := run.Handover.Kept()
		again := *run
		again.Handover = agui.Resume(st)
		run = &again
	}
	x.conclude()
}

func (m *Manager) newExecution(ctx context.Context, lr *localRun, req StartRequest, client *startingClient) *execution {
	x := &execution{m: m, lr: lr, req: req, ctx: ctx, budget: transcriptBudget{m: m}}
	x.c = newCommitter(m, lr, client)
	x.seq = x.c.next
	if !lr.run.Unlocked {
		var h storedHistory
		if lr.historyRead {
			h = decodeHistory(lr.history, lr.run.Owner) // read by the run's start
			lr.history, lr.historyRead = nil, false
		} else {
			hctx, cancel := context.WithTimeout(context.Background(), m.cfg.OpTimeout)
			h, _ = m.history(hctx, lr.run.Thread())
			cancel()
		}
		x.tr = agui.NewTranscript(h.Messages)
		x.trimmed = h.Trimmed
		if h.Run == lr.run.ID {
			// Saved mid-run (a hand-over, a take-over): what came before
			// is not applied again.
			x.covered = h.Through
		}
		x.tr.Merge(req.Input.Messages)
		x.tr.SetBudget(x.budget.reserve)
		if lr.rebuild > 1 {
			x.rebuildTranscript(lr.rebuild)
		}
		// The run's new input (the user's message) is in the thread's
		// history from the start (with a batching log, from its first
		// event, written with it), so a client that reloads mid-run shows
		// it and resumes the active run: one write per run, none per
		// event.
		if len(x.tr.Messages()) > len(h.Messages) {
			x.saveHistory()
		}
	}
	if lr.handover != nil && m.handovers != nil && m.cfg.Batch && x.keepsStart() {
		lr.handover.Watch(x.checkpoint)
	}
	return x
}

// rebuildTranscript applies to the transcript of a run taken over after
// its owner died the events the log has before next (the checkpoint's)
// that the thread's history does not hold (the dead owner saved none of
// them, unless it had taken the run over or was handed it, see covered),
// and the chain yields only those after.
func (x *execution) rebuildTranscript(next int64) {
	ctx, cancel := context.WithTimeout(context.Background(), x.m.cfg.OpTimeout)
	defer cancel()
	ref := x.lr.run.Ref()
	for after := x.covered; after < next-1; {
		es, err := x.m.log.Read(ctx, ref, after, 256)
		if err != nil || len(es) == 0 {
			x.m.logger.WarnContext(x.ctx, "cannot read the run's events for its history; the history lacks what came before the take-over", "runId", ref.ID, "error", err)
			return
		}
		for _, e := range es {
			if e.Seq >= next {
				return
			}
			if ev, err := agui.ParseEvent(e.Data); err == nil {
				x.tr.Apply(ev)
			}
			after = e.Seq
		}
	}
}

// keepsStart gives the committer the run's start record, stored with its
// first checkpoint, for a take-over if this instance dies, unless it was
// stored (a run taken over); false when it cannot be: the run then keeps
// no checkpoints.
func (x *execution) keepsStart() bool {
	if !x.lr.saveStart {
		return true
	}
	rec, err := startRecord(x.req)
	if err != nil {
		return false
	}
	b, err := json.Marshal(rec)
	if err != nil || len(b) >= x.m.cfg.MaxHandoverBytes {
		return false // fits reports it at a drain
	}
	x.c.start = b
	return true
}

// checkpoint is the run's agui.Handover watcher: at most every
// CheckpointInterval, when events came since the last one, it keeps the
// chain's state for the next append. When a middleware holds the
// hand-over off it removes the run's checkpoint before the middleware
// goes on (dropCheckpoint).
func (x *execution) checkpoint(take func() agui.HandoverState) {
	if take == nil {
		x.ckptNext = -1
		x.dropCheckpoint()
		return
	}
	now := time.Now()
	if now.Sub(x.ckptAt) < x.m.cfg.CheckpointInterval {
		return
	}
	x.c.checkpoint(func(next int64) []byte {
		if next == x.ckptNext {
			return nil
		}
		b, err := json.Marshal(checkpoint{Next: next, State: take()})
		if err != nil || len(b) > x.m.cfg.MaxHandoverBytes {
			if !x.ckptBig {
				x.ckptBig = true
				x.m.logger.WarnContext(x.ctx, "the run's checkpoint is over runlog.maxHandoverBytes; the latest one kept stays", "runId", x.lr.run.ID, "bytes", len(b), "max", x.m.cfg.MaxHandoverBytes)
			}
			return nil
		}
		x.ckptAt, x.ckptNext = now, next
		return b
	})
}

// finish releases what the run held, whatever happened.
func (x *execution) finish(client *startingClient) {
	m, lr := x.m, x.lr
	x.budget.release()
	if client != nil {
		client.close()
	}
	m.mu.Lock()
	delete(m.local, lr.run.Ref())
	m.mu.Unlock()
	lr.cancel(nil)
	if !x.ended {
		lr.hub.finish(nil)
	}
	lr.executorDone.Store(true)
	var err error
	if !strings.HasPrefix(x.outcome, string(agui.TypeRunFinished)) && x.outcome != outcomeHandedOver {
		err = errors.New("run ended: " + x.outcome)
	}
	lr.endSpan(err)
	if lr.readers.Load() == 0 {
		lr.hub.release()
	}
}

// saveHistory stores the thread's history as the run has it now: with a
// batching log, with the run's next append, in its round trip (callers
// add the run's first event or its terminal one next).
func (x *execution) saveHistory() { x.storeHistory(x.m.cfg.Batch) }

// saveHistoryNow stores it at once, in place of any kept; the caller
// flushed first, so no append in flight carries an older one.
func (x *execution) saveHistoryNow() { x.storeHistory(false) }

func (x *execution) storeHistory(withNext bool) {
	if x.tr == nil {
		return
	}
	run := x.lr.run
	b := encodeHistory(run.Owner, x.tr.Messages(), x.trimmed, run.ID, max(x.covered, x.seq-1), x.m.cfg.MaxThreadBytes)
	if withNext && x.c.keepHistory(b) {
		return
	}
	if withNext {
		// No room among what waits for the log: at once, after what
		// may carry an older one.
		_ = x.c.flush()
	}
	x.c.keepHistory(nil) // this one is newer than any kept
	hctx, cancel := context.WithTimeout(context.Background(), x.m.cfg.OpTimeout)
	defer cancel()
	if err := x.m.log.SaveHistory(hctx, run.Thread(), b); err != nil {
		x.m.logger.WarnContext(x.ctx, "cannot save thread history", "threadId", run.ThreadID, "error", err)
	}
}

func (x *execution) fail(err error) {
	x.m.logger.ErrorContext(x.ctx, "run log append failed; stopping the run", "runId", x.lr.run.ID, "error", err)
	var f *agui.RunFailure
	switch {
	case errors.As(err, &f):
	case errors.Is(err, runlog.ErrOwnerLost), errors.Is(err, runlog.ErrFinished):
		// Fenced: another run took the thread, or a reader ended the
		// run while its lease had lapsed.
		f = ownerLost(x.m.cfg.Instance)
	default:
		f = &agui.RunFailure{Code: agui.CodeInternal, Message: "run log unavailable"}
	}
	x.lr.cancel(f)
	if errors.Is(err, runlog.ErrOwnerLost) {
		// Another instance holds the run's lease (it took the run over)
		// or another run its thread: the log has what happens next, and
		// the readers here follow it there (errFenced).
		x.lr.hub.finish(errFenced)
	} else {
		x.lr.hub.finish(f)
	}
	x.ended = true
	x.outcome = "log_failed:" + f.Code
}

// step commits one event of the chain; it reports whether the run is
// over.
func (x *execution) step(ev agui.Event, err error) (stop bool) {
	if err != nil {
		ev = agui.AsRunError(err) // Normalize(Output) does this; a safety net
	}
	if x.req.Repairs != nil {
		if kinds := x.req.Repairs(); len(kinds) > 0 && x.repairs(kinds) != nil {
			return true
		}
	}
	if snap, ok := ev.(*agui.MessagesSnapshot); ok && x.tr != nil {
		// Surfaces and cards outlive an upstream's view of the thread.
		snap.Messages = agui.KeepActivities(snap.Messages, x.tr.Messages())
	}
	data, merr := ev.MarshalJSON()
	if merr != nil {
		x.m.logger.Error("cannot encode event", "runId", x.lr.run.ID, "type", ev.Type(), "error", merr)
		data, _ = (&agui.Custom{Name: "genui-adapter.unencodable", Value: agui.JSON(`"` + string(ev.Type()) + `"`)}).MarshalJSON()
	}
	if x.tr != nil && x.seq > x.covered {
		x.tr.Apply(ev)
	}
	if isTerminal(ev) {
		return x.terminal(ev, data)
	}
	x.seq++
	if err := x.c.add(data, false); err != nil {
		x.fail(err)
		return true
	}
	x.lr.hub.waitReaders(x.ctx)
	return false
}

// repairs carries the repairs made so far in the stream, as a CUSTOM event
// (legal for every client) before the event they came with: the
// playground marks them.
func (x *execution) repairs(kinds []string) error {
	v, _ := json.Marshal(map[string]any{"kinds": kinds})
	b, _ := (&agui.Custom{Name: "genui-adapter.repairs", Value: agui.JSON(v)}).MarshalJSON()
	x.seq++
	if err := x.c.add(b, false); err != nil {
		x.fail(err)
		return err
	}
	return nil
}

// terminal commits the run's last event, after its history: a client
// that sees the terminal event may reconnect (CopilotKit /connect) at once
// and must find it.
func (x *execution) terminal(ev agui.Event, data []byte) bool {
	if err := x.c.flush(); err != nil {
		x.fail(err)
		return true
	}
	x.saveHistory()
	if err := x.c.add(data, true); err != nil {
		x.fail(err)
		return true
	}
	if err := x.c.flush(); err != nil {
		x.fail(err)
		return true
	}
	x.ended = true
	code := ""
	if e, ok := ev.(*agui.RunError); ok {
		code = e.Code
	}
	x.m.obs.RunEnded(x.req.AgentID, ev.Type(), code)
	x.outcome = string(ev.Type()) + ":" + code
	return true
}

// conclude ends a chain that stopped without a terminal event (it should
// not) and logs the outcome.
func (x *execution) conclude() {
	if x.outcome == "" {
		x.saveHistory()
		last, _ := (&agui.RunError{Message: "the run ended without a terminal event", Code: agui.CodeInternal}).MarshalJSON()
		if err := x.c.add(last, true); err == nil && x.c.flush() == nil {
			x.ended = true
		}
		x.m.obs.RunEnded(x.req.AgentID, agui.TypeRunError, agui.CodeInternal)
		x.outcome = "error:internal"
	}
	x.c.close()
	x.m.logger.InfoContext(x.ctx, "run ended", "agent", x.req.AgentID, "runId", x.lr.run.ID, "outcome", x.outcome)
}

// committer appends a run's events to the log, in order, and publishes
// them to the hub once they are in.
//
// With a synchronous log (memory) the executor commits them itself, a
// batch at a time: events gather while more are on their way, and go to
// the log, the hub and the starting client together (one lock of each
// per batch, not per event) right before the run blocks on its upstream
// (the BeforeRead hook), when the batch is full, or CommitDelay after the
// batch's first event if neither came (a middleware blocked between
// events: an MCP call, say). A run whose agent never calls the hook
// commits every event at once.
//
// Otherwise events that pile up while an append is in flight go together
// in the next one, and appends of many runs share pipelines (the
// Manager's appenders). Each append carries its first sequence number, so
// an append that failed (the log did not answer) is retried, with what
// piled up since, until the outage tolerance has passed, and written once.
type committer struct {
	m       *Manager
	lr      *localRun
	client  *startingClient // the inline executor's own client, or nil
	relayed func(n int)     // the agent's relayed-events counter

	// The synchronous log's batch: the executor adds, a commit (the
	// executor's or the timer's) takes.
	bmu     sync.Mutex
	batch   [][]byte
	bterm   bool
	bbytes  int
	hooked  bool // the agent calls the BeforeRead hook: batches may wait for it
	armed   bool // the timer is set for the batch
	timer   *time.Timer
	entries []runlog.Entry
	berr    error

	mu       sync.Mutex
	cond     *sync.Cond
	pending  [][]byte
	term     bool
	bytes    int    // of pending
	held     int    // of events added and not yet in the log
	next     int64  // the sequence number of the next event taken
	skip     int64  // events up to this one are in the log already (a run taken over)
	ckpt     []byte // the latest checkpoint, for the next append
	start    []byte // the run's start record, until an append stored it
	history  []byte // the thread's history, until an append stored it
	histGen  int    // history's version: keepHistory counts them
	histSent int    // the version of the history in the append in flight
	ckptHeld int    // bytes of checkpoints held or in flight, in the Manager's unwritten
	inflight bool
	taken    bool      // an append was taken: the run's first is not waiting
	failing  time.Time // the first of the failed appends in a row
	err      error
}

// maxPending bounds what one run may have waiting for the log.
const maxPending = 4 << 20

// A synchronous log's batch is committed at this many events or bytes,
// or Config.CommitDelay after its first event.
const (
	maxCommit      = 64
	maxCommitBytes = 32 << 10
)

func newCommitter(m *Manager, lr *localRun, client *startingClient) *committer {
	c := &committer{m: m, lr: lr, client: client, relayed: m.obs.Relayed(lr.run.AgentID), next: max(lr.first, 1)}
	if lr.replay > 0 && lr.replay < c.next {
		c.next, c.skip = lr.replay, c.next-1
	}
	c.cond = sync.NewCond(&c.mu)
	if !m.cfg.Batch {
		c.timer = time.AfterFunc(time.Hour, c.late)
		c.timer.Stop()
		if client != nil {
			client.committer.Store(c)
		}
	}
	return c
}

func (c *committer) add(data []byte, term bool) error {
	if !c.m.cfg.Batch {
		c.bmu.Lock()
		defer c.bmu.Unlock()
		if c.berr != nil {
			return c.berr
		}
		c.batch = append(c.batch, data)
		c.bterm = term
		c.bbytes += len(data)
		if term || !c.hooked || len(c.batch) >= maxCommit || c.bbytes >= maxCommitBytes {
			return c.commitLocked(false)
		}
		if !c.armed {
			// Arming wakes a thread when nothing else is due sooner;
			// without it a lone stream saves CPU but loaded runs lose
			// latency (docs/performance.md).
			c.armed = true
			c.timer.Reset(c.m.cfg.CommitDelay)
		}
		return nil
	}
	if term && c.lr.recorded != nil {
		// The thread lists the run before the run can end.
		<-c.lr.recorded
	}
	c.mu.Lock()
	// Wait for room: this run's, and (while it has events waiting, whose
	// append wakes it) all runs' together.
	for (c.bytes > maxPending || c.held > 0 && c.m.unwritten.Load() > c.m.cfg.MaxUnwrittenBytes) && c.err == nil {
		c.cond.Wait()
	}
	if c.err != nil {
		err := c.err
		c.mu.Unlock()
		return err
	}
	if c.next <= c.skip && len(c.pending) == 0 && !c.inflight {
		// A run taken over from an older checkpoint: the chain yields
		// again what the log has; its terminal event, if it comes that
		// soon, goes after what the log has.
		if !term {
			c.next++
			c.mu.Unlock()
			return nil
		}
		c.next = c.skip + 1
	}
	c.pending = append(c.pending, data)
	c.term = term
	c.bytes += len(data)
	c.held += len(data)
	c.m.unwritten.Add(int64(len(data)))
	send := !c.inflight
	first := !c.taken
	c.inflight = true
	c.mu.Unlock()
	if send {
		if first {
			// The run's first append (its RUN_STARTED) goes ahead of
			// the runs streaming: a new run waits for one batch in
			// flight, not for every run's.
			c.m.enqueueFirst(c)
		} else {
			c.m.enqueue(c)
		}
	}
	return nil
}

// commitLocked appends the batch to the log and publishes it; the
// starting client gets it at once (now) or queued (its sink flushes it
// soon).
func (c *committer) commitLocked(now bool) error {
	if c.armed {
		c.armed = false
		c.timer.Stop()
	}
	n := len(c.batch)
	if n == 0 || c.berr != nil {
		return c.berr
	}
	term := c.bterm
	last, err := c.m.log.Append(context.Background(), c.lr.run, c.batch, term)
	if err != nil {
		c.berr = err
		return err
	}
	c.next = last + 1
	entries := c.entries[:0]
	for i, d := range c.batch {
		entries = append(entries, runlog.Entry{Seq: last - int64(n-1-i), Data: d, Terminal: term && i == n-1})
	}
	clear(c.batch)
	c.batch, c.bterm, c.bbytes = c.batch[:0], false, 0
	c.lr.hub.publish(entries)
	if c.client != nil {
		c.client.send(entries, now)
	}
	c.relayed(n)
	clear(entries)
	c.entries = entries[:0]
	return nil
}

// beforeRead commits the batch and flushes the starting client: the run
// is about to block on its upstream.
func (c *committer) beforeRead() {
	c.bmu.Lock()
	defer c.bmu.Unlock()
	c.hooked = true
	_ = c.commitLocked(true) // a failure stops the run at its next add
	if c.client != nil {
		c.client.flush()
	}
}

// late commits a batch that waited CommitDelay (the timer's goroutine).
func (c *committer) late() {
	c.bmu.Lock()
	defer c.bmu.Unlock()
	if !c.armed {
		return // committed meanwhile
	}
	_ = c.commitLocked(true)
	if c.client != nil {
		c.client.flush()
	}
}

// flush waits until everything added is in the log.
func (c *committer) flush() error {
	if !c.m.cfg.Batch {
		c.bmu.Lock()
		defer c.bmu.Unlock()
		return c.commitLocked(false)
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	for (c.inflight || len(c.pending) > 0) && c.err == nil {
		c.cond.Wait()
	}
	return c.err
}

// close waits for an append in flight (whose result no one reads).
func (c *committer) close() {
	if !c.m.cfg.Batch {
		c.bmu.Lock()
		defer c.bmu.Unlock()
		_ = c.commitLocked(false)
		c.timer.Stop()
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	for c.inflight && c.err == nil {
		c.cond.Wait()
	}
	if !c.inflight {
		c.dropCheckpoint(c.ckptHeld) // one no append took
		c.ckpt = nil
		c.dropHistory()
	}
}

// dropCheckpoint removes the run's checkpoint from the log, and waits
// for it: a middleware holds the hand-over off, and what it does next (an
// MCP tool call) must not be done again by an instance that takes the
// run over from an older checkpoint. The checkpoint waiting for an append
// is dropped, the appends in flight (which may carry one) are waited for,
// then the log's is removed. If that fails the run can no longer be
// taken over safely: it ends (with the log's error).
func (x *execution) dropCheckpoint() {
	c := x.c
	c.mu.Lock()
	c.dropCheckpoint(len(c.ckpt))
	c.ckpt = nil
	c.mu.Unlock()
	err := c.flush()
	if err == nil {
		lctx, cancel := context.WithTimeout(context.Background(), x.m.cfg.OpTimeout)
		err = x.m.handovers.DropCheckpoint(lctx, x.lr.run)
		cancel()
	}
	if err != nil {
		x.m.logger.WarnContext(x.ctx, "cannot remove the run's checkpoint as it is held off; ending it", "runId", x.lr.run.ID, "error", err)
		x.lr.cancel(&agui.RunFailure{Code: agui.CodeInternal, Message: "run log unavailable"})
	}
}

// checkpoint keeps b, the run's checkpoint as of the events added so far,
// for the next append (one with events: it is stored after them); it
// reports the sequence number of the next event, the checkpoint's Next.
func (c *committer) checkpoint(b func(next int64) []byte) {
	c.mu.Lock()
	next := c.next + int64(len(c.pending))
	c.mu.Unlock()
	ck := b(next)
	if ck == nil {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	// Checkpoints count in what waits for the log (MaxUnwrittenBytes):
	// one with no room is dropped, the run never waits for it.
	grow := int64(len(ck) - len(c.ckpt))
	if c.next+int64(len(c.pending)) != next || c.err != nil ||
		grow > 0 && c.m.unwritten.Load()+grow > c.m.cfg.MaxUnwrittenBytes {
		return
	}
	c.m.unwritten.Add(grow)
	c.ckptHeld += int(grow)
	c.ckpt = ck
}

// dropCheckpoint gives up checkpoint bytes n counted in unwritten (c.mu
// held).
func (c *committer) dropCheckpoint(n int) {
	c.ckptHeld -= n
	c.m.unwritten.Add(-int64(n))
}

// keepHistory keeps the thread's history b for the run's next append to
// store (a later one replaces it; nil forgets it). Its bytes count in
// what waits for the log (MaxUnwrittenBytes): false, and nothing kept,
// when they have no room.
func (c *committer) keepHistory(b []byte) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	grow := int64(len(b) - len(c.history))
	if b != nil && grow > 0 && c.m.unwritten.Load()+grow > c.m.cfg.MaxUnwrittenBytes {
		return false
	}
	c.m.unwritten.Add(grow)
	c.history = b
	c.histGen++
	return true
}

// dropHistory forgets the history kept (c.mu held).
func (c *committer) dropHistory() {
	c.m.unwritten.Add(-int64(len(c.history)))
	c.history = nil
}

// nextSeq is the sequence number of the next event (after a flush).
func (c *committer) nextSeq() int64 {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.next
}

// take hands the pending events to an appender, with the first one's
// sequence number.
func (c *committer) take() runlog.AppendRequest {
	c.mu.Lock()
	defer c.mu.Unlock()
	q := runlog.AppendRequest{Run: c.lr.run, Events: c.pending, Terminal: c.term, First: c.next, Checkpoint: c.ckpt, History: c.history}
	if c.ckpt != nil {
		q.Start = c.start
	}
	c.histSent = c.histGen
	c.next += int64(len(c.pending))
	c.pending, c.term, c.bytes, c.ckpt = nil, false, 0, nil
	c.taken = true
	c.cond.Broadcast()
	return q
}

// done records the result of appending q; it reports whether more is
// pending (the committer must be queued again), and whether that is a
// retry of q (queue it after a pause).
func (c *committer) done(q runlog.AppendRequest, err error) (again, retry bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	n := 0
	for _, e := range q.Events {
		n += len(e)
	}
	switch {
	case err == nil:
		c.held -= n
		c.m.unwritten.Add(-int64(n))
		c.dropCheckpoint(len(q.Checkpoint))
		if q.Start != nil {
			c.start = nil // stored
		}
		if q.History != nil && c.histSent == c.histGen {
			c.dropHistory() // stored, and no later one kept meanwhile
		}
		c.failing = time.Time{}
	case c.err != nil:
	case transient(err) && (c.failing.IsZero() || time.Since(c.failing) < c.m.cfg.OutageTolerance):
		if c.failing.IsZero() {
			c.failing = time.Now()
			c.m.logger.Warn("the run log does not answer; the run's events wait", "runId", c.lr.run.ID, "error", err)
		}
		c.pending = append(q.Events, c.pending...)
		c.term = c.term || q.Terminal
		if c.ckpt == nil {
			c.ckpt = q.Checkpoint
		} else {
			c.dropCheckpoint(len(q.Checkpoint)) // a later one replaces it
		}
		c.bytes += n
		c.next = q.First
		retry = true
	default:
		if transient(err) {
			err = logUnavailable(c.m.cfg.OutageTolerance)
		}
		c.err = err
		c.m.unwritten.Add(-int64(c.held))
		c.held = 0
		c.dropCheckpoint(c.ckptHeld)
		c.ckpt = nil
		c.dropHistory()
	}
	again = c.err == nil && len(c.pending) > 0
	c.inflight = again
	c.cond.Broadcast()
	return again, retry
}

// transient reports whether an append may succeed when tried again: the
// log did not answer, rather than refused.
func transient(err error) bool {
	for _, e := range []error{runlog.ErrFinished, runlog.ErrUnknownRun, runlog.ErrOwnerLost, runlog.ErrOutOfOrder} {
		if errors.Is(err, e) {
			return false
		}
	}
	return true
}

// retryDelay is the pause before an append that failed is tried again.
const retryDelay = 200 * time.Millisecond

// appendWorkers is how many appenders batch the runs' appends.
const appendWorkers = 4

// enqueue queues a committer for the appenders.
func (m *Manager) enqueue(c *committer) {
	m.qmu.Lock()
	m.queue = append(m.queue, c)
	m.qmu.Unlock()
	m.wakeAppender()
}

// enqueueFirst queues a committer ahead of those in the queue: dequeue
// takes the first queue before the other.
func (m *Manager) enqueueFirst(c *committer) {
	m.qmu.Lock()
	m.first = append(m.first, c)
	m.qmu.Unlock()
	m.wakeAppender()
}

func (m *Manager) wakeAppender() {
	select {
	case m.qwake <- struct{}{}:
	default:
	}
}

// dequeue takes up to n queued committers, those queued first first.
func (m *Manager) dequeue(batch []*committer, n int) []*committer {
	m.qmu.Lock()
	defer m.qmu.Unlock()
	batch = takeQueued(batch, &m.first, n)
	batch = takeQueued(batch, &m.queue, n-len(batch))
	if len(m.queue) > 0 || len(m.first) > 0 {
		select {
		case m.qwake <- struct{}{}: // another appender takes the rest
		default:
		}
	}
	return batch
}

// takeQueued moves up to n committers from the head of q to batch.
func takeQueued(batch []*committer, q *[]*committer, n int) []*committer {
	k := min(n, len(*q))
	batch = append(batch, (*q)[:k]...)
	clear((*q)[:k])
	*q = (*q)[k:]
	if len(*q) == 0 {
		*q = nil
	}
	return batch
}

// appender takes queued committers, appends what they hold in one batch
// (one pipeline for Redis) and publishes it.
func (m *Manager) appender(ctx context.Context) {
	var batch []*committer
	var reqs []runlog.AppendRequest
	var entries []runlog.Entry // lent to publish, which copies them
	for {
		batch = m.dequeue(batch[:0], 128)
		if len(batch) == 0 {
			select {
			case <-ctx.Done():
				return
			case <-m.qwake:
			}
			continue
		}
		reqs = reqs[:0]
		for _, c := range batch {
			reqs = append(reqs, c.take())
		}
		lctx, cancel := context.WithTimeout(context.Background(), m.cfg.OpTimeout)
		res := m.log.AppendBatch(lctx, reqs)
		cancel()
		for i, c := range batch {
			r := res[i]
			if r.Err == nil && len(reqs[i].Events) > 0 {
				n := len(reqs[i].Events)
				first := r.Last - int64(n) + 1
				entries = entries[:0]
				for j, d := range reqs[i].Events {
					entries = append(entries, runlog.Entry{Seq: first + int64(j), Data: d, Terminal: reqs[i].Terminal && j == n-1})
				}
				c.lr.hub.publish(entries)
				clear(entries)
				c.relayed(n)
			}
			switch again, retry := c.done(reqs[i], r.Err); {
			case retry:
				time.AfterFunc(retryDelay, func() { m.enqueue(c) })
			case again:
				m.enqueue(c)
			}
		}
	}
}

func detachCause(grace time.Duration) *agui.RunFailure {
	return &agui.RunFailure{Code: "detached", Message: "no client was attached for " + grace.String()}
}
