package runs

import (
	"context"
	"encoding/json"
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

// execute runs the agent chain and commits its events, in order, to the
// log and then to the run's hub.
func (m *Manager) execute(ctx context.Context, lr *localRun, req StartRequest) {
	defer m.executors.Done()
	run := lr.run
	ended := false
	defer func() {
		m.mu.Lock()
		delete(m.local, run.Ref())
		m.mu.Unlock()
		lr.cancel(nil)
		if !ended {
			lr.hub.finish(nil)
		}
		lr.executorDone.Store(true)
		if lr.readers.Load() == 0 {
			lr.hub.release()
		}
	}()
	ctx = agui.WithPrincipal(ctx, req.UpstreamPrincipal)
	if req.Header != nil {
		ctx = agui.WithRequestHeaders(ctx, req.Header)
	}
	if req.Stats != nil {
		ctx = agui.WithStats(ctx, req.Stats)
	}

	var tr *agui.Transcript
	trimmed := 0
	budget := &transcriptBudget{m: m}
	defer budget.release()
	if !run.Unlocked {
		hctx, cancel := context.WithTimeout(context.Background(), m.cfg.OpTimeout)
		h, _ := m.history(hctx, run.Thread())
		cancel()
		tr = agui.NewTranscript(h.Messages)
		trimmed = h.Trimmed
		tr.Merge(req.Input.Messages)
		tr.SetBudget(budget.reserve)
	}
	saveHistory := func() {
		if tr == nil {
			return
		}
		b := encodeHistory(run.Owner, tr.Messages(), trimmed, m.cfg.MaxThreadBytes)
		hctx, cancel := context.WithTimeout(context.Background(), m.cfg.OpTimeout)
		defer cancel()
		if err := m.log.SaveHistory(hctx, run.Thread(), b); err != nil {
			m.logger.Warn("cannot save thread history", "threadId", run.ThreadID, "error", err)
		}
	}

	c := newCommitter(m, lr)
	outcome := ""
	fail := func(err error) {
		m.logger.Error("run log append failed; stopping the run", "runId", run.ID, "error", err)
		lr.cancel(&agui.RunErr{Code: agui.CodeInternal, Message: "run log unavailable"})
		lr.hub.finish(err)
		ended = true
		outcome = "log_failed"
	}
	for ev, err := range req.Agent.Run(ctx, req.Input) {
		if err != nil {
			ev = agui.AsRunError(err) // Normalize(Output) does this; a safety net
		}
		if req.Repairs != nil {
			if kinds := req.Repairs(); len(kinds) > 0 {
				// The playground marks repairs: carry them in the
				// stream, as CUSTOM events (legal for every client),
				// before the event they came with.
				v, _ := json.Marshal(map[string]any{"kinds": kinds})
				b, _ := (&agui.Custom{Name: "genui-adapter.repairs", Value: agui.JSON(v)}).MarshalJSON()
				if err := c.add(b, false); err != nil {
					fail(err)
					break
				}
			}
		}
		data, merr := ev.MarshalJSON()
		if merr != nil {
			m.logger.Error("cannot encode event", "runId", run.ID, "type", ev.Type(), "error", merr)
			data, _ = (&agui.Custom{Name: "genui-adapter.unencodable", Value: agui.JSON(`"` + string(ev.Type()) + `"`)}).MarshalJSON()
		}
		if tr != nil {
			tr.Apply(ev)
		}
		term := isTerminal(ev)
		if term {
			// History first: a client that sees the terminal event may
			// reconnect (CopilotKit /connect) at once and must find it.
			if err := c.flush(); err != nil {
				fail(err)
				break
			}
			saveHistory()
		}
		if err := c.add(data, term); err != nil {
			fail(err)
			break
		}
		lr.hub.waitReaders(ctx)
		if term {
			if err := c.flush(); err != nil {
				fail(err)
				break
			}
			ended = true
			code := ""
			if e, ok := ev.(*agui.RunError); ok {
				code = e.Code
			}
			m.obs.RunEnded(req.AgentID, ev.Type(), code)
			outcome = string(ev.Type()) + ":" + code
			break
		}
	}
	if outcome == "" {
		// The chain ended without a terminal event (it should not).
		saveHistory()
		last, _ := (&agui.RunError{Message: "the run ended without a terminal event", Code: agui.CodeInternal}).MarshalJSON()
		if err := c.add(last, true); err == nil && c.flush() == nil {
			ended = true
		}
		m.obs.RunEnded(req.AgentID, agui.TypeRunError, agui.CodeInternal)
		outcome = "error:internal"
	}
	c.close()
	m.logger.Info("run ended", "agent", req.AgentID, "runId", run.ID, "outcome", outcome)
}

// committer appends a run's events to the log, in order, and publishes
// them to the hub once they are in. With a synchronous log (memory) each
// add is one append; otherwise events that pile up while an append is in
// flight go together in the next one, and appends of many runs share
// pipelines (the Manager's appenders).
type committer struct {
	m  *Manager
	lr *localRun

	mu       sync.Mutex
	cond     *sync.Cond
	pending  [][]byte
	term     bool
	bytes    int
	inflight bool
	err      error
}

// maxPending bounds what one run may have waiting for the log.
const maxPending = 4 << 20

func newCommitter(m *Manager, lr *localRun) *committer {
	c := &committer{m: m, lr: lr}
	c.cond = sync.NewCond(&c.mu)
	return c
}

func (c *committer) add(data []byte, term bool) error {
	if !c.m.cfg.Batch {
		lctx, cancel := context.WithTimeout(context.Background(), c.m.cfg.OpTimeout)
		defer cancel()
		seq, err := c.m.log.Append(lctx, c.lr.run, [][]byte{data}, term)
		if err != nil {
			return err
		}
		c.lr.hub.publish([]runlog.Entry{{Seq: seq, Data: data, Terminal: term}})
		c.m.obs.EventsRelayed(c.lr.run.AgentID, 1)
		return nil
	}
	c.mu.Lock()
	for c.bytes > maxPending && c.err == nil {
		c.cond.Wait()
	}
	if c.err != nil {
		err := c.err
		c.mu.Unlock()
		return err
	}
	c.pending = append(c.pending, data)
	c.term = term
	c.bytes += len(data)
	send := !c.inflight
	c.inflight = true
	c.mu.Unlock()
	if send {
		c.m.enqueue(c)
	}
	return nil
}

// flush waits until everything added is in the log.
func (c *committer) flush() error {
	if !c.m.cfg.Batch {
		return nil
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
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	for c.inflight && c.err == nil {
		c.cond.Wait()
	}
}

// take hands the pending events to an appender.
func (c *committer) take() ([][]byte, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	p, t := c.pending, c.term
	c.pending, c.term, c.bytes = nil, false, 0
	c.cond.Broadcast()
	return p, t
}

// done records an append's result; it reports whether more is pending
// (the committer must be queued again).
func (c *committer) done(err error) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	if err != nil && c.err == nil {
		c.err = err
	}
	again := c.err == nil && len(c.pending) > 0
	c.inflight = again
	c.cond.Broadcast()
	return again
}

// appendWorkers is how many appenders batch the runs' appends.
const appendWorkers = 4

// enqueue queues a committer for the appenders.
func (m *Manager) enqueue(c *committer) {
	m.qmu.Lock()
	m.queue = append(m.queue, c)
	m.qmu.Unlock()
	select {
	case m.qwake <- struct{}{}:
	default:
	}
}

// dequeue takes up to n queued committers.
func (m *Manager) dequeue(batch []*committer, n int) []*committer {
	m.qmu.Lock()
	defer m.qmu.Unlock()
	k := min(n, len(m.queue))
	batch = append(batch, m.queue[:k]...)
	clear(m.queue[:k])
	m.queue = m.queue[k:]
	if len(m.queue) == 0 {
		m.queue = nil
	} else {
		select {
		case m.qwake <- struct{}{}: // another appender takes the rest
		default:
		}
	}
	return batch
}

// appender takes queued committers, appends what they hold in one batch
// (one pipeline for Redis) and publishes it.
func (m *Manager) appender(ctx context.Context) {
	var batch []*committer
	var reqs []runlog.AppendRequest
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
			ev, term := c.take()
			reqs = append(reqs, runlog.AppendRequest{Run: c.lr.run, Events: ev, Terminal: term})
		}
		lctx, cancel := context.WithTimeout(context.Background(), m.cfg.OpTimeout)
		res := m.log.AppendBatch(lctx, reqs)
		cancel()
		for i, c := range batch {
			r := res[i]
			if r.Err == nil && len(reqs[i].Events) > 0 {
				entries := make([]runlog.Entry, len(reqs[i].Events))
				first := r.Last - int64(len(entries)) + 1
				for j, d := range reqs[i].Events {
					entries[j] = runlog.Entry{Seq: first + int64(j), Data: d, Terminal: reqs[i].Terminal && j == len(entries)-1}
				}
				c.lr.hub.publish(entries)
				m.obs.EventsRelayed(c.lr.run.AgentID, len(entries))
			}
			if c.done(r.Err) {
				m.enqueue(c)
			}
		}
	}
}

func detachCause(grace time.Duration) *agui.RunErr {
	return &agui.RunErr{Code: "detached", Message: "no client was attached for " + grace.String()}
}
