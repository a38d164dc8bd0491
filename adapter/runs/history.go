package runs

import (
	"context"
	"encoding/json"
	"fmt"
	"strconv"

	"github.com/genui-adapter/genui-adapter/adapter/runlog"
	"github.com/genui-adapter/genui-adapter/agui"
)

// storedHistory is a thread's compacted messages as the log keeps them.
type storedHistory struct {
	Owner    string         `json:"owner"`
	Messages []agui.Message `json:"messages"`
	// Trimmed counts the oldest messages dropped to keep the thread
	// within MaxThreadBytes, over its whole life.
	Trimmed int `json:"trimmed,omitempty"`
	// Run and Through: the messages hold run Run's events up to sequence
	// number Through (a run saved mid-run, at a hand-over or a take-over):
	// an instance that takes Run over applies only the events after it.
	Run     string `json:"run,omitempty"`
	Through int64  `json:"through,omitempty"`
}

// Thread is a principal's thread as clients see it.
type Thread struct {
	Messages    []agui.Message
	Trimmed     int
	ActiveRunID string
}

// Thread returns the principal's thread: its stored messages and its
// active run. A thread that does not exist (or is another principal's) is
// empty, exactly like a new one.
func (m *Manager) Thread(ctx context.Context, principal, threadID string) (Thread, error) {
	ref := runlog.Ref{Owner: principal, ID: threadID}
	h, err := m.history(ctx, ref)
	if err != nil {
		return Thread{}, err
	}
	active, err := m.log.Active(ctx, ref)
	if err != nil {
		return Thread{}, fmt.Errorf("run log: %w", err)
	}
	msgs := h.Messages
	if msgs == nil {
		msgs = []agui.Message{}
	}
	return Thread{Messages: msgs, Trimmed: h.Trimmed, ActiveRunID: active}, nil
}

func (m *Manager) history(ctx context.Context, thread runlog.Ref) (storedHistory, error) {
	b, err := m.log.History(ctx, thread)
	if err != nil {
		return storedHistory{}, fmt.Errorf("run log: %w", err)
	}
	return decodeHistory(b, thread.Owner), nil
}

// decodeHistory reads a stored history of owner's thread: one that is
// absent, unreadable or another principal's is empty.
func decodeHistory(b []byte, owner string) storedHistory {
	var h storedHistory
	if b == nil {
		return h
	}
	if err := json.Unmarshal(b, &h); err != nil || h.Owner != owner {
		return storedHistory{} // unreadable: as if absent
	}
	return h
}

// encodeHistory encodes msgs within max bytes: the oldest messages are
// dropped first (and a tool result whose call was dropped with them), and
// a single message still too large has its content replaced by the cut
// marker.
func encodeHistory(owner string, msgs []agui.Message, trimmed int, run string, through int64, max int64) []byte {
	// Each message is encoded once: for its size, and for the output.
	enc := make([][]byte, len(msgs))
	sizes := make([]int64, len(msgs))
	var total int64 = 64 + int64(len(owner))
	if run != "" {
		total += 40 + int64(len(run))
	}
	for i, m := range msgs {
		enc[i] = m.AppendJSON(nil)
		sizes[i] = int64(len(enc[i])) + 1
		total += sizes[i]
	}
	first := 0
	for total > max && first < len(msgs)-1 {
		total -= sizes[first]
		first++
	}
	for first < len(msgs)-1 && msgs[first].Role == agui.RoleTool {
		total -= sizes[first]
		first++
	}
	trimmed += first
	kept := enc[first:]
	if msgs == nil {
		kept = nil
	}
	if total > max && len(kept) == 1 {
		m := msgs[first]
		m.Content = agui.Text(CutNote)
		if m.Role == agui.RoleActivity {
			m.Role, m.ActivityType = agui.RoleAssistant, ""
		}
		m.ToolCalls = nil
		b, _ := json.Marshal(m)
		kept = [][]byte{b}
	}
	// As json.Marshal(storedHistory{...}) writes it.
	o, _ := json.Marshal(owner)
	r, _ := json.Marshal(run)
	n := 80 + len(o) + len(r)
	for _, m := range kept {
		n += len(m) + 1
	}
	b := make([]byte, 0, n)
	b = append(b, `{"owner":`...)
	b = append(b, o...)
	b = append(b, `,"messages":`...)
	if kept == nil {
		b = append(b, "null"...)
	} else {
		b = append(b, '[')
		for i, m := range kept {
			if i > 0 {
				b = append(b, ',')
			}
			b = append(b, m...)
		}
		b = append(b, ']')
	}
	if trimmed != 0 {
		b = append(b, `,"trimmed":`...)
		b = strconv.AppendInt(b, int64(trimmed), 10)
	}
	if run != "" {
		b = append(b, `,"run":`...)
		b = append(b, r...)
	}
	if through != 0 {
		b = append(b, `,"through":`...)
		b = strconv.AppendInt(b, through, 10)
	}
	return append(b, '}')
}

// CutNote replaces a message too large to keep in a thread's history.
const CutNote = "[genui-adapter: this message was too large to keep in the thread's history]"
