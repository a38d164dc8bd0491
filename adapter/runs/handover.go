package runs

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"time"

	"github.com/genui-adapter/genui-adapter/adapter/runlog"
	"github.com/genui-adapter/genui-adapter/agui"
)

// Hand-over: with a run log that hands runs over (runlog.Handovers:
// Redis), a draining instance asks the agui.Handover of every run whose
// backend can rejoin (StartRequest.Rejoinable) to stop where another
// process can rejoin the upstream run. A run whose chain stops so writes
// a hand-over record (handoverRecord) rather than a terminal event and
// stays running in the log; another instance's claimer takes it
// (exactly one: the claim is atomic in the log), rebuilds the run's
// request with agui.Resume and executes it, appending to the same run
// with the sequence going on. Readers anywhere follow the run as if
// nothing happened. A run that cannot be handed over (no Handover, held
// off, an input that leaves no room for its record within
// MaxHandoverBytes) goes on and ends with shutdown at the end of the
// grace; so does one whose record turns out too big, or that the log
// refused, once its chain stopped: this instance rejoins it itself.

// handoverRecord is what the instance that takes a run over needs: the
// run's input as it started, who it runs for, the headers the agent
// forwards, the sequence number of its next event and the state its chain
// kept.
type handoverRecord struct {
	UpstreamPrincipal string             `json:"upstreamPrincipal,omitempty"`
	Input             json.RawMessage    `json:"input,omitempty"`
	Header            http.Header        `json:"header,omitempty"`
	KeepHeaders       []string           `json:"keepHeaders,omitempty"`
	Next              int64              `json:"next,omitempty"`
	State             agui.HandoverState `json:"state"`
	// Written is the sequence number of the last event in the log when
	// it is past Next-1: the events from Next to it come again from the
	// chain and are not written again.
	Written int64 `json:"written,omitempty"`

	// A run offered after its owner died (runlog.Handovers.OfferLost):
	// its start record (the fields above but Next and State) and its
	// latest checkpoint.
	Start      *handoverRecord `json:"start,omitempty"`
	Checkpoint *checkpoint     `json:"checkpoint,omitempty"`
}

// checkpoint is what a run that can be handed over keeps in the log as
// it goes (runlog.AppendRequest.Checkpoint): its chain's state after the
// event before Next.
type checkpoint struct {
	Next  int64              `json:"next"`
	State agui.HandoverState `json:"state"`
}

// startRecord is the part of lr's hand-over record that does not change
// as it runs: its input, who it runs for and the headers it keeps.
func startRecord(req StartRequest) (handoverRecord, error) {
	in, err := json.Marshal(req.Input)
	if err != nil {
		return handoverRecord{}, err
	}
	rec := handoverRecord{UpstreamPrincipal: req.UpstreamPrincipal, Input: in, KeepHeaders: req.KeepHeaders}
	for _, k := range req.KeepHeaders {
		if v := req.Header.Values(k); len(v) > 0 {
			if rec.Header == nil {
				rec.Header = http.Header{}
			}
			rec.Header[http.CanonicalHeaderKey(k)] = v
		}
	}
	return rec, nil
}

// record is rec as a whole record: a run offered after its owner died
// has its start record and checkpoint put together.
func (rec handoverRecord) record() handoverRecord {
	if rec.Start == nil {
		if rec.Written < rec.Next-1 {
			rec.Written = rec.Next - 1
		}
		return rec
	}
	out := *rec.Start
	if rec.Checkpoint != nil {
		out.Next, out.State = rec.Checkpoint.Next, rec.Checkpoint.State
	}
	out.Written = max(rec.Written, out.Next-1)
	return out
}

// Rejoin gives what the edge owns of a run this instance takes over from
// another: the chain of agent agentID (Agent), and the run's Stats,
// Tracer, Span and Repairs, for the run's input and kept headers; false
// when this instance has no such agent.
type Rejoin func(agentID string, in *agui.RunAgentInput, header http.Header) (StartRequest, bool)

// register makes lr a local run: its context (with its span), in the
// Manager's runs, counted in its executors. A run registered while the
// instance drains is asked to hand over at once; one registered after
// Shutdown is ended with its cause.
func (m *Manager) register(lr *localRun, req StartRequest) context.Context {
	rctx, rcancel := context.WithCancelCause(context.Background())
	lr.cancel = rcancel
	lr.endSpan = func(error) {}
	if req.Span != nil {
		rctx, lr.endSpan = req.Span(rctx)
	}
	m.mu.Lock()
	m.local[lr.run.Ref()] = lr
	draining, down := m.draining, m.shutdown
	m.mu.Unlock()
	m.executors.Add(1)
	if draining && lr.handover != nil && m.fits(lr) {
		lr.handover.Ask()
	}
	if down != nil {
		// Shutdown came while the run was being registered (after Start
		// checked): it did not see the run, which must end with the
		// others rather than outlive the process.
		rcancel(down)
	}
	return rctx
}

// HandOver starts a drain: this instance claims no more runs, and every
// local run that can be handed over is asked to stop for another instance
// to take it over. It returns how many were asked.
func (m *Manager) HandOver() int {
	m.mu.Lock()
	m.draining = true
	var runs []*localRun
	for _, lr := range m.local {
		if lr.handover != nil {
			runs = append(runs, lr)
		}
	}
	m.mu.Unlock()
	var asked []*agui.Handover
	for _, lr := range runs {
		if !m.fits(lr) {
			continue
		}
		asked = append(asked, lr.handover)
		lr.handover.Ask()
	}
	if len(asked) > 0 {
		m.logger.Info("draining: runs asked to hand over", "runs", len(asked))
	}
	return len(asked)
}

// fits reports whether lr's input leaves room in a hand-over record
// within MaxHandoverBytes: a run that cannot be handed over is not asked
// to stop (its backend would leave its upstream run going, with no one to
// follow it), and ends with the others at the end of the grace.
func (m *Manager) fits(lr *localRun) bool {
	b, err := json.Marshal(lr.input)
	if err == nil && len(b) < m.cfg.MaxHandoverBytes {
		return true
	}
	m.logger.Warn("the run's input leaves no room for its hand-over record within runlog.maxHandoverBytes; not asking it to hand over", "runId", lr.run.ID, "bytes", len(b), "max", m.cfg.MaxHandoverBytes)
	return false
}

func (m *Manager) isDraining() bool {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.draining
}

// handOver writes the hand-over record of a run whose chain stopped for
// it, after every event it yielded is in the log and its history is
// saved; it reports whether the run was handed over.
func (x *execution) handOver(req *agui.Request) bool {
	m, lr := x.m, x.lr
	if err := x.c.flush(); err != nil {
		x.fail(err)
		return true // ended: the log refused its events
	}
	// Records of up to MaxHandoverBytes each, for every run at once:
	// built a few at a time, within MaxUnwrittenBytes together.
	m.recordSlots <- struct{}{}
	defer func() { <-m.recordSlots }()
	st, _ := req.Handover.Kept()
	rec, err := startRecord(x.req)
	if err != nil {
		return false
	}
	rec.Next, rec.State = x.c.nextSeq(), st
	rec.Written = max(x.c.skip, rec.Next-1)
	b, err := json.Marshal(rec)
	if err != nil {
		return false
	}
	if len(b) > m.cfg.MaxHandoverBytes {
		m.logger.WarnContext(x.ctx, "the run's hand-over record is over runlog.maxHandoverBytes; ending it", "runId", lr.run.ID, "bytes", len(b), "max", m.cfg.MaxHandoverBytes)
		return false
	}
	x.saveHistoryNow()
	lctx, cancel := context.WithTimeout(context.Background(), m.cfg.OpTimeout)
	defer cancel()
	if err := m.handovers.Offer(lctx, lr.run, b, m.cfg.HandoverClaimTimeout); err != nil {
		m.logger.WarnContext(x.ctx, "cannot hand the run over; ending it", "runId", lr.run.ID, "error", err)
		return false
	}
	x.outcome = outcomeHandedOver
	m.obs.HandedOver(x.req.AgentID, true)
	m.logger.InfoContext(x.ctx, "run handed over", "agent", x.req.AgentID, "runId", lr.run.ID, "next", rec.Next, "bytes", len(b))
	return true
}

// outcomeHandedOver is the outcome of a run handed over to another
// instance: it goes on there.
const outcomeHandedOver = "handed_over"

// shutdownEvent ends a claimed run that cannot go on here.
func shutdownEvent() agui.Event {
	return &agui.RunError{Code: agui.CodeShutdown, Message: "the server is shutting down; retry the run"}
}

// AcceptHandovers starts this instance's claimer, if its run log hands
// runs over: a goroutine, ended by Close or a drain, that claims the runs
// other instances hand over and executes them, with what rejoin gives.
// Call it once, when the edge can answer rejoin.
func (m *Manager) AcceptHandovers(rejoin Rejoin) {
	if m.handovers == nil {
		return
	}
	ctx, stop := context.WithCancel(context.Background())
	m.mu.Lock()
	m.stopClaim = stop
	m.mu.Unlock()
	m.bg.Add(1)
	go func() { defer m.bg.Done(); m.claim(ctx, rejoin) }()
}

// claimWait is how long one claim waits for a run to be offered.
const claimWait = time.Second

// claim takes over runs until ctx ends or the instance drains.
func (m *Manager) claim(ctx context.Context, rejoin Rejoin) {
	for ctx.Err() == nil && !m.isDraining() {
		run, rec, err := m.handovers.Claim(ctx, m.cfg.Instance, claimWait, m.cfg.LeaseTTL)
		if ctx.Err() != nil {
			if rec != nil {
				m.giveBack(run, rec)
			}
			return
		}
		if err != nil {
			m.logger.Warn("cannot claim runs handed over", "error", err)
			select {
			case <-ctx.Done():
				return
			case <-time.After(retryDelay):
			}
			continue
		}
		if rec == nil {
			continue
		}
		if m.isDraining() {
			m.giveBack(run, rec)
			return
		}
		m.takeOver(run, rec, rejoin)
	}
}

// giveBack offers again a run claimed as the instance stopped claiming.
func (m *Manager) giveBack(run runlog.Run, rec []byte) {
	lctx, cancel := context.WithTimeout(context.Background(), m.cfg.OpTimeout)
	defer cancel()
	if err := m.handovers.Offer(lctx, run, rec, m.cfg.HandoverClaimTimeout); err != nil {
		m.logger.Warn("cannot give a claimed run back", "runId", run.ID, "error", err)
	}
}

// takeOver executes a run claimed from another instance, its events
// going on at the record's sequence number.
func (m *Manager) takeOver(run runlog.Run, b []byte, rejoin Rejoin) {
	var whole handoverRecord
	err := json.Unmarshal(b, &whole)
	rec := whole.record()
	var in *agui.RunAgentInput
	if err == nil {
		in, err = agui.ParseRunAgentInput(rec.Input)
	}
	var req StartRequest
	ok := false
	if err == nil {
		req, ok = rejoin(run.AgentID, in, rec.Header)
		if !ok {
			err = fmt.Errorf("agent %q is not configured here", run.AgentID)
		}
	}
	if err != nil || rec.Next < 1 {
		m.logger.Error("cannot take over the run handed over; ending it", "runId", run.ID, "error", err)
		m.endClaimed(run, rec.Written+1)
		return
	}
	req.Principal, req.UpstreamPrincipal, req.AgentID = run.Owner, rec.UpstreamPrincipal, run.AgentID
	req.Input, req.Header, req.Unlocked = in, rec.Header, run.Unlocked
	req.Rejoinable, req.KeepHeaders = true, rec.KeepHeaders
	if req.Header == nil {
		req.Header = http.Header{}
	}
	lr := &localRun{run: run, hub: newHub(rec.Written+1, &m.tailBytes, m.cfg.MaxTailBytes), leased: time.Now(),
		first: rec.Written + 1, replay: rec.Next, handover: agui.Resume(rec.State), input: in}
	if whole.Start != nil {
		lr.rebuild = rec.Next
	}
	lr.lastLeft.Store(time.Now().UnixNano()) // its readers get the detach grace
	rctx := m.register(lr, req)
	m.obs.HandedOver(run.AgentID, false)
	m.logger.InfoContext(rctx, "run taken over", "agent", run.AgentID, "runId", run.ID, "next", rec.Next, "written", rec.Written, "ownerDied", whole.Start != nil)
	go m.execute(rctx, lr, req, nil, nil)
}

// endClaimed ends a claimed run that cannot go on here.
func (m *Manager) endClaimed(run runlog.Run, next int64) {
	data, _ := shutdownEvent().MarshalJSON()
	lctx, cancel := context.WithTimeout(context.Background(), m.cfg.OpTimeout)
	defer cancel()
	res := m.log.AppendBatch(lctx, []runlog.AppendRequest{{Run: run, Events: [][]byte{data}, Terminal: true, First: max(next, 0)}})
	if err := res[0].Err; err != nil && !errors.Is(err, runlog.ErrFinished) {
		m.logger.Warn("cannot end a claimed run", "runId", run.ID, "error", err)
	}
}
