package runs

import (
	"context"
	"errors"
	"time"

	"github.com/genui-adapter/genui-adapter/adapter/runlog"
	"github.com/genui-adapter/genui-adapter/agui"
)

// supervise is the one goroutine that watches every run this instance
// executes: it cancels runs nobody reads for the detach grace, renews the
// owner leases of all of them in one round trip (and, on every tick,
// tells the log this instance reaches it: Redis's outage clock), ends runs
// that lost their thread (owner_lost) and runs whose lease could not be
// renewed for the outage tolerance (run_log_unavailable).
func (m *Manager) supervise(ctx context.Context) {
	grace := m.cfg.DetachGrace
	tick := min(time.Second, max(grace/4, 50*time.Millisecond), m.cfg.LeaseTTL/3)
	t := time.NewTicker(tick)
	defer t.Stop()
	var s sweepState
	for {
		select {
		case <-ctx.Done():
			return
		case now := <-t.C:
			m.sweep(ctx, &s, now)
		}
	}
}

// sweepState is the supervisor's state between ticks: when it last renewed
// the leases, and the slices a tick fills, kept so that a tick over
// thousands of runs allocates nothing in proportion to them.
type sweepState struct {
	lastLease time.Time
	runs      []*localRun
	recs      []runlog.Run
}

// sweep is one tick of the supervisor.
func (m *Manager) sweep(ctx context.Context, s *sweepState, now time.Time) {
	m.mu.Lock()
	runs := s.runs[:0]
	for _, lr := range m.local {
		runs = append(runs, lr)
	}
	m.mu.Unlock()
	// Ended runs must not stay reachable from here until the next tick.
	defer func() { clear(runs); s.runs = runs[:0] }()
	for _, lr := range runs {
		if lr.readers.Load() == 0 {
			m.checkDetached(lr)
		}
	}
	if len(runs) == 0 || now.Sub(s.lastLease) < m.cfg.LeaseTTL/3 {
		lctx, cancel := context.WithTimeout(ctx, m.cfg.LeaseTTL/2)
		_, _ = m.log.Lease(lctx, nil, m.cfg.Instance, m.cfg.LeaseTTL)
		cancel()
		return
	}
	s.lastLease = now
	m.renew(ctx, s, runs, now)
}

// renew renews the leases of runs; a run that lost its thread is ended
// with owner_lost, one whose lease could not be renewed for the outage
// tolerance with run_log_unavailable.
func (m *Manager) renew(ctx context.Context, s *sweepState, runs []*localRun, now time.Time) {
	recs := s.recs[:0]
	for _, lr := range runs {
		recs = append(recs, lr.run)
	}
	defer func() { clear(recs); s.recs = recs[:0] }()
	lctx, cancel := context.WithTimeout(ctx, m.cfg.LeaseTTL/2)
	res, err := m.log.Lease(lctx, recs, m.cfg.Instance, m.cfg.LeaseTTL)
	cancel()
	if err != nil {
		for _, lr := range runs {
			if now.Sub(lr.leased) >= m.cfg.OutageTolerance {
				m.logger.Warn("cannot renew the run's lease for the outage tolerance; giving the run up", "runId", lr.run.ID, "error", err)
				lr.cancel(logUnavailable(m.cfg.OutageTolerance))
			}
		}
		return
	}
	if res == nil {
		return // a log whose owner cannot be lost
	}
	for i, r := range res {
		lr := runs[i]
		lr.leased = now
		switch {
		case r.Lost:
			m.logger.Warn("the run lost its thread (its lease lapsed); ending it", "runId", lr.run.ID)
			lr.cancel(ownerLost(m.cfg.Instance))
		case r.Cancel != "":
			lr.cancel(causeFor(r.Cancel))
		}
	}
}

// logUnavailable ends a run the log did not answer for for tolerance.
func logUnavailable(tolerance time.Duration) *agui.RunFailure {
	return &agui.RunFailure{Code: CodeLogUnavailable, Message: "the run log did not answer for " + tolerance.String()}
}

// CodeLogUnavailable is the RUN_ERROR code of a run ended by a run log
// outage longer than the outage tolerance.
const CodeLogUnavailable = agui.CodeLogUnavailable

func ownerLost(instance string) *agui.RunFailure {
	return &agui.RunFailure{Code: agui.CodeOwnerLost, Message: "the adapter instance running this run (" + instance + ") lost its run log lease"}
}

// ownerLostEvent is the terminal event a reader appends for a run whose
// owner stopped renewing its lease.
func ownerLostEvent(r runlog.Run) []byte {
	b, _ := (&agui.RunError{Message: "the adapter instance running this run (" + r.Instance + ") stopped", Code: agui.CodeOwnerLost}).MarshalJSON()
	return b
}

// checkDetached cancels a local run that has had no reader, here or on
// another instance, for the detach grace.
func (m *Manager) checkDetached(lr *localRun) {
	if lr.readers.Load() > 0 || lr.executorDone.Load() {
		return
	}
	grace := m.cfg.DetachGrace
	if left := lr.lastLeft.Load(); left != 0 && time.Since(time.Unix(0, left)) < grace {
		return
	}
	if grace > 0 {
		// Readers on other instances touch the run.
		lctx, cancel := context.WithTimeout(context.Background(), m.cfg.OpTimeout)
		seen, err := m.log.LastSeen(lctx, lr.run.Ref())
		cancel()
		if err != nil || time.Since(seen) < grace {
			return
		}
	}
	if lr.readers.Load() > 0 {
		return
	}
	lr.cancel(detachCause(grace))
}

// tail follows, in one loop, every run executed on another instance that
// has readers here: one XREAD for all of them, published to their hubs.
// It also touches those runs for their owner's detach grace, and ends
// (owner_lost) a run whose owner's lease lapsed.
func (m *Manager) tail(ctx context.Context) {
	var lastCheck time.Time
	var failingSince time.Time
	for {
		m.mu.Lock()
		hubs := make(map[runlog.Ref]*hub, len(m.remote))
		for ref, h := range m.remote {
			hubs[ref] = h
		}
		m.mu.Unlock()
		if len(hubs) == 0 {
			select {
			case <-ctx.Done():
				return
			case <-m.wakeTail:
				continue
			}
		}
		cursors := make(map[runlog.Ref]int64, len(hubs))
		for ref, h := range hubs {
			cursors[ref] = h.cursor()
		}
		res, err := m.log.Tail(ctx, cursors, 200*time.Millisecond)
		if ctx.Err() != nil {
			return
		}
		if err != nil {
			if failingSince.IsZero() {
				failingSince = time.Now()
				m.logger.Warn("cannot tail remote runs", "error", err)
			}
			if time.Since(failingSince) > m.cfg.OutageTolerance {
				for _, h := range hubs {
					h.finish(logUnavailable(m.cfg.OutageTolerance))
				}
			}
			select {
			case <-ctx.Done():
				return
			case <-time.After(200 * time.Millisecond):
			}
			continue
		}
		failingSince = time.Time{}
		for ref, entries := range res {
			if h := hubs[ref]; h != nil {
				h.publish(entries)
			}
		}
		if time.Since(lastCheck) < time.Second {
			continue
		}
		lastCheck = time.Now()
		for ref, h := range hubs {
			m.checkRemote(ctx, ref, h)
		}
	}
}

// checkRemote touches a remote run for its owner and, when it has been
// idle, checks that its owner is alive and that it has not ended without a
// terminal event this instance can still read.
func (m *Manager) checkRemote(ctx context.Context, ref runlog.Ref, h *hub) {
	lctx, cancel := context.WithTimeout(ctx, m.cfg.OpTimeout)
	defer cancel()
	_ = m.log.Touch(lctx, ref)
	h.mu.Lock()
	// Checks are a second or more apart: idle means nothing was
	// published since the last one.
	idle := h.next == h.checked && !h.done
	h.checked = h.next
	run := h.run
	h.mu.Unlock()
	if !idle {
		return
	}
	if !m.endOrphan(lctx, run) {
		return
	}
	// An ended run whose terminal event the tail did not bring (its
	// stream expired): readers read what the log still has, then end.
	if cur, err := m.log.Get(lctx, ref); errors.Is(err, runlog.ErrUnknownRun) || (err == nil && cur.Status != runlog.StatusRunning) {
		h.finish(nil)
	}
}

// endOrphan offers for a take-over (from its checkpoint) or ends with
// owner_lost a running run of another instance if its owner is gone: its
// lease lapsed, and Redis has answered for a lease TTL. It reports
// whether the run may have ended (not offered, owner not known alive).
func (m *Manager) endOrphan(lctx context.Context, run runlog.Run) bool {
	if m.handovers != nil {
		// A run that can be taken over from a checkpoint goes on in the
		// instance that claims it.
		switch offered, err := m.handovers.OfferLost(lctx, run, m.cfg.HandoverClaimTimeout); {
		case errors.Is(err, runlog.ErrOwnerAlive):
			return false // as EndIfOwnerLost would find: nothing to end
		case err != nil:
			return false
		case offered:
			m.logger.Info("the run's instance stopped; offered its run for a take-over", "runId", run.ID, "instance", run.Instance)
			return false
		}
	}
	ended, err := m.log.EndIfOwnerLost(lctx, run, ownerLostEvent(run))
	if ended {
		m.logger.Warn("the run's instance stopped; ended its run", "runId", run.ID, "instance", run.Instance, "code", agui.CodeOwnerLost)
	}
	return err == nil
}

// reapBatch is how many orphans one call of the reaper asks the log for;
// a full batch is followed by the next at once.
const reapBatch = 128

// reap is the goroutine that, every lease TTL, finds the runs of
// instances that died (their leases lapsed a lease TTL ago or more) and
// ends them or offers them for a take-over (endOrphan), whether or not
// anyone reads them. Every instance reaps; the log's scripts let exactly
// one end or offer each run. It runs until ctx ends.
func (m *Manager) reap(ctx context.Context, orphans runlog.Orphans) {
	t := time.NewTicker(m.cfg.LeaseTTL)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		if m.isDraining() {
			continue // its runs are another instance's to judge
		}
		m.reapOnce(ctx, orphans)
	}
}

// reapOnce is one round of the reaper: batches of orphans until one is
// not full. A run whose owner is alive after all (Redis answered again
// recently) stays in the index; it is asked about again next round.
func (m *Manager) reapOnce(ctx context.Context, orphans runlog.Orphans) {
	seen := map[runlog.Ref]bool{}
	for {
		lctx, cancel := context.WithTimeout(ctx, m.cfg.OpTimeout)
		runs, err := orphans.Orphans(lctx, m.cfg.LeaseTTL, reapBatch)
		cancel()
		if err != nil {
			return
		}
		fresh := 0
		for _, run := range runs {
			if seen[run.Ref()] {
				continue
			}
			seen[run.Ref()] = true
			fresh++
			lctx, cancel := context.WithTimeout(ctx, m.cfg.OpTimeout)
			m.endOrphan(lctx, run)
			cancel()
		}
		if len(runs) < reapBatch || fresh == 0 || ctx.Err() != nil {
			return
		}
	}
}
