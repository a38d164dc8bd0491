package runs

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/genui-adapter/genui-adapter/adapter/runlog"
	"github.com/genui-adapter/genui-adapter/agui"
)

// A principal's threads: their records (runlog.ThreadInfo), listed
// newest first by their last run and paged with an opaque cursor; a
// thread's messages (its stored history), events and state (from the
// events of its runs the log still holds); rename, archive and delete.
// Another principal's thread is ErrNotFound exactly like an unknown one.

// Thread errors the edge maps to answers.
var (
	// ErrBadCursor: the cursor is not one a list returned.
	ErrBadCursor = errors.New("invalid cursor")
	// ErrTitleTooLong: a title over MaxTitleBytes.
	ErrTitleTooLong = errors.New("title too long")
	// ErrThreadBusy: the thread has an active run (it cannot be deleted).
	ErrThreadBusy = runlog.ErrThreadBusy
)

// Thread defaults.
const (
	DefaultMaxThreadPage       = 100
	DefaultMaxTitleBytes       = 256
	DefaultMaxThreadEventBytes = 8 << 20
)

// ThreadQuery selects a page of a principal's threads.
type ThreadQuery struct {
	AgentID         string // "" for every agent
	Limit           int    // <= 0 or over MaxThreadPage: MaxThreadPage
	Cursor          string // "" for the first page
	IncludeArchived bool
}

// ThreadPage is one page of threads, newest first; NextCursor is "" on
// the last page.
type ThreadPage struct {
	Threads    []runlog.ThreadInfo
	NextCursor string
}

// pageCursor is the last thread of a page: the next page starts after it.
type pageCursor struct {
	LastRun int64  `json:"t"` // unix ns
	ID      string `json:"i"`
}

func (c pageCursor) encode() string {
	b, _ := json.Marshal(c)
	return base64.RawURLEncoding.EncodeToString(b)
}

func decodeCursor(s string) (pageCursor, error) {
	var c pageCursor
	b, err := base64.RawURLEncoding.DecodeString(s)
	if err != nil || len(b) > 4096 || json.Unmarshal(b, &c) != nil || c.ID == "" {
		return c, ErrBadCursor
	}
	return c, nil
}

// newer orders threads newest first: by last run, then by id.
func newer(a, b runlog.ThreadInfo) int {
	if c := b.LastRun.Compare(a.LastRun); c != 0 {
		return c
	}
	return strings.Compare(a.ID, b.ID)
}

// Threads returns a page of the principal's threads.
func (m *Manager) Threads(ctx context.Context, principal string, q ThreadQuery) (ThreadPage, error) {
	var after *runlog.ThreadInfo
	if q.Cursor != "" {
		c, err := decodeCursor(q.Cursor)
		if err != nil {
			return ThreadPage{}, err
		}
		after = &runlog.ThreadInfo{ID: c.ID, LastRun: time.Unix(0, c.LastRun)}
	}
	limit := q.Limit
	if limit <= 0 || limit > m.cfg.MaxThreadPage {
		limit = m.cfg.MaxThreadPage
	}
	all, err := m.log.Threads(ctx, principal)
	if err != nil {
		return ThreadPage{}, fmt.Errorf("run log: %w", err)
	}
	ts := all[:0]
	for _, t := range all {
		if (q.AgentID == "" || t.AgentID == q.AgentID) && (q.IncludeArchived || !t.Archived) &&
			(after == nil || newer(*after, t) < 0) {
			ts = append(ts, t)
		}
	}
	slices.SortFunc(ts, newer)
	page := ThreadPage{Threads: ts}
	if len(ts) > limit {
		page.Threads = ts[:limit:limit]
		last := page.Threads[limit-1]
		page.NextCursor = pageCursor{LastRun: last.LastRun.UnixNano(), ID: last.ID}.encode()
	}
	return page, nil
}

// ThreadInfo returns the principal's thread's record.
func (m *Manager) ThreadInfo(ctx context.Context, principal, threadID string) (runlog.ThreadInfo, error) {
	t, err := m.log.GetThread(ctx, runlog.Ref{Owner: principal, ID: threadID})
	return t, threadErr(err)
}

func threadErr(err error) error {
	switch {
	case err == nil:
		return nil
	case errors.Is(err, runlog.ErrUnknownThread):
		return ErrNotFound
	case errors.Is(err, runlog.ErrThreadBusy):
		return ErrThreadBusy
	}
	return fmt.Errorf("run log: %w", err)
}

// ThreadMessages returns the principal's thread's stored messages
// (activity messages included).
func (m *Manager) ThreadMessages(ctx context.Context, principal, threadID string) ([]agui.Message, error) {
	if _, err := m.ThreadInfo(ctx, principal, threadID); err != nil {
		return nil, err
	}
	h, err := m.history(ctx, runlog.Ref{Owner: principal, ID: threadID})
	if err != nil {
		return nil, err
	}
	if h.Messages == nil {
		return []agui.Message{}, nil
	}
	return h.Messages, nil
}

// ThreadEvents returns the events of the principal's thread's runs the
// log still holds, oldest run first, within MaxThreadEventBytes;
// truncated reports that some were left out (over the cap, or evicted
// from a run the log still holds).
func (m *Manager) ThreadEvents(ctx context.Context, principal, threadID string) (events []json.RawMessage, truncated bool, err error) {
	events = []json.RawMessage{}
	var size int
	err = m.threadEvents(ctx, principal, threadID, func(data []byte) bool {
		if size += len(data) + 1; size > m.cfg.MaxThreadEventBytes {
			truncated = true
			return false
		}
		events = append(events, data)
		return true
	}, &truncated)
	return events, truncated, err
}

// ThreadState returns the principal's thread's agent state: its last
// STATE_SNAPSHOT with the STATE_DELTAs after it applied, from the events
// the log still holds; nil when there is none (or it is not an object).
func (m *Manager) ThreadState(ctx context.Context, principal, threadID string) (json.RawMessage, error) {
	var state []byte
	var skip bool
	err := m.threadEvents(ctx, principal, threadID, func(data []byte) bool {
		var ev struct {
			Type     agui.EventType  `json:"type"`
			Snapshot json.RawMessage `json:"snapshot"`
			Delta    json.RawMessage `json:"delta"`
		}
		if !bytes.Contains(data, []byte(`"STATE_`)) || json.Unmarshal(data, &ev) != nil {
			return true
		}
		switch ev.Type {
		case agui.TypeStateSnapshot:
			state = ev.Snapshot
		case agui.TypeStateDelta:
			if state != nil {
				if s, err := agui.ApplyPatch(state, ev.Delta); err == nil {
					state = s
				}
			}
		}
		return true
	}, &skip)
	if err != nil {
		return nil, err
	}
	if b := bytes.TrimSpace(state); len(b) == 0 || b[0] != '{' {
		return nil, nil
	}
	return state, nil
}

// threadEvents hands each event of the thread's runs to fn, in order,
// until fn returns false; a run whose oldest events were evicted sets
// *gap and is read from its oldest retained event.
func (m *Manager) threadEvents(ctx context.Context, principal, threadID string, fn func([]byte) bool, gap *bool) error {
	t, err := m.ThreadInfo(ctx, principal, threadID)
	if err != nil {
		return err
	}
	for _, id := range t.Runs {
		ref := runlog.Ref{Owner: principal, ID: id}
		var after int64
		for {
			es, err := m.log.Read(ctx, ref, after, 512)
			if ge := (*runlog.GapError)(nil); errors.As(err, &ge) {
				*gap = true
				if ge.First <= after+1 {
					break
				}
				after = ge.First - 1
				continue
			}
			if errors.Is(err, runlog.ErrUnknownRun) {
				break // expired
			}
			if err != nil {
				return fmt.Errorf("run log: %w", err)
			}
			if len(es) == 0 {
				break
			}
			for _, e := range es {
				if !fn(e.Data) {
					return nil
				}
			}
			after = es[len(es)-1].Seq
		}
	}
	return nil
}

// ThreadUpdate changes a thread's record; nil fields stay as they are.
type ThreadUpdate struct {
	Title    *string // "" removes the title
	Archived *bool
}

// UpdateThread renames, archives or unarchives the principal's thread.
func (m *Manager) UpdateThread(ctx context.Context, principal, threadID string, u ThreadUpdate) (runlog.ThreadInfo, error) {
	if u.Title != nil && len(*u.Title) > m.cfg.MaxTitleBytes {
		return runlog.ThreadInfo{}, fmt.Errorf("%w: %d bytes, at most %d", ErrTitleTooLong, len(*u.Title), m.cfg.MaxTitleBytes)
	}
	t, err := m.log.UpdateThread(ctx, runlog.Ref{Owner: principal, ID: threadID}, func(t *runlog.ThreadInfo, found bool) error {
		if !found {
			return runlog.ErrUnknownThread
		}
		if u.Title != nil {
			t.Title = *u.Title
		}
		if u.Archived != nil {
			t.Archived = *u.Archived
		}
		t.Updated = time.Now()
		return nil
	})
	return t, threadErr(err)
}

// DeleteThread removes the principal's thread: its record, its history
// and its runs. A thread with an active run gives ErrThreadBusy.
func (m *Manager) DeleteThread(ctx context.Context, principal, threadID string) error {
	return threadErr(m.log.DeleteThread(ctx, runlog.Ref{Owner: principal, ID: threadID}))
}

// ClearThreads deletes all of the principal's threads but those with an
// active run, and returns how many it deleted.
func (m *Manager) ClearThreads(ctx context.Context, principal string) (int, error) {
	ts, err := m.log.Threads(ctx, principal)
	if err != nil {
		return 0, fmt.Errorf("run log: %w", err)
	}
	n := 0
	for _, t := range ts {
		switch err := m.log.DeleteThread(ctx, t.Ref()); {
		case err == nil:
			n++
		case errors.Is(err, runlog.ErrUnknownThread), errors.Is(err, runlog.ErrThreadBusy):
		default:
			return n, fmt.Errorf("run log: %w", err)
		}
	}
	return n, nil
}

// recordRun adds a started run to its thread's record. A log that does
// not answer is tried again until the outage tolerance has passed, or ctx
// ends: the run goes on meanwhile (its terminal event waits for the
// record), and a try that was written though it failed is not repeated.
func (m *Manager) recordRun(ctx context.Context, run runlog.Run, prev string) {
	now := time.Now()
	for {
		lctx, cancel := context.WithTimeout(ctx, m.cfg.OpTimeout)
		_, err := m.log.UpdateThread(lctx, run.Thread(), func(t *runlog.ThreadInfo, found bool) error {
			if slices.Contains(t.Runs, run.ID) || slices.Contains(t.Superseded, run.ID) {
				return errRecorded
			}
			if !found {
				t.Created = now
			}
			if prev != "" && !slices.Contains(t.Runs, prev) && !slices.Contains(t.Superseded, prev) {
				// The run this one superseded is not recorded yet (its
				// record is on its way): it goes first, so that this run
				// is the thread's last whichever record lands first, and
				// is marked so that its own record adds nothing even once
				// the cap on runs dropped it.
				t.Runs = append(t.Runs, prev)
				t.AddSuperseded(prev)
			}
			t.AddRun(run, now, m.cfg.MaxThreadRuns)
			return nil
		})
		cancel()
		if err == nil || errors.Is(err, errRecorded) {
			return
		}
		if time.Since(now) >= m.cfg.OutageTolerance || ctx.Err() != nil {
			m.logger.WarnContext(ctx, "cannot record the run in its thread", "threadId", run.ThreadID, "runId", run.ID, "error", err)
			return
		}
		select {
		case <-ctx.Done():
		case <-time.After(retryDelay):
		}
	}
}

// errRecorded: the thread's record lists the run already.
var errRecorded = errors.New("the run is in its thread's record")

// SaveCardState keeps a card's state on the principal's thread (at most
// max cards a thread, the least recently updated dropped); the thread
// must exist.
func (m *Manager) SaveCardState(ctx context.Context, principal, threadID, card string, state []byte, max int) error {
	_, err := m.log.UpdateThread(ctx, runlog.Ref{Owner: principal, ID: threadID}, func(t *runlog.ThreadInfo, found bool) error {
		if !found {
			return runlog.ErrUnknownThread
		}
		t.SetCard(card, state, time.Now(), max)
		return nil
	})
	return threadErr(err)
}

// CardState is a card's kept state on the principal's thread, nil if
// none.
func (m *Manager) CardState(ctx context.Context, principal, threadID, card string) ([]byte, error) {
	t, err := m.log.GetThread(ctx, runlog.Ref{Owner: principal, ID: threadID})
	if errors.Is(err, runlog.ErrUnknownThread) {
		return nil, nil
	}
	if err != nil {
		return nil, threadErr(err)
	}
	return t.Card(card), nil
}
