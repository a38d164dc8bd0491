package a2ui

import (
	"encoding/json"
	"fmt"
	"iter"

	"github.com/genui-adapter/genui-adapter/agui"
)

// bridgeKey is the content key of the a2ui-surface activities of the AG-UI
// A2A bridge (@ag-ui/a2a): an ACTIVITY_SNAPSHOT {"operations": []}
// (replace false) when a surface first appears, then one ACTIVITY_DELTA
// adding each A2UI message (v0.8) to /operations/-.
const bridgeKey = "operations"

// bridge turns the bridge's surfaces into the adapter's own: the
// messages of each such surface are held, and when a burst of its deltas
// ends (any other event, or the stream's end) one ACTIVITY_SNAPSHOT
// {"a2ui_operations": [every message so far]} (replace true) stands for
// them, which Middleware then checks and converts like any surface of the
// agent's. A surface holding more than max messages fails (and holds no
// more than max+1 of them). Other events
// pass unchanged. A stream stopped for a hand-over ends with its burst
// still held: the rejoining run goes on with it (Middleware carries held
// and pending).
type bridge struct {
	max     int
	held    map[string][]json.RawMessage
	pending string // the surface whose burst is under way
}

func (b *bridge) run(seq iter.Seq2[agui.Event, error], h *agui.Handover) iter.Seq2[agui.Event, error] {
	return func(yield func(agui.Event, error) bool) {
		held := b.held
		flush := func() bool {
			if b.pending == "" {
				return true
			}
			id := b.pending
			b.pending = ""
			ops := held[id]
			content := operationsContent(ops)
			if len(ops) > b.max {
				content = failed(fmt.Sprintf("the surface holds more than %d A2UI messages", b.max), nil)
			}
			return yield(&agui.ActivitySnapshot{MessageID: id, ActivityType: ActivityType, Content: content, Replace: ptr(true)}, nil)
		}
		for ev, err := range seq {
			if err != nil {
				if !flush() {
					return
				}
				yield(nil, err)
				return
			}
			switch e := ev.(type) {
			case *agui.ActivitySnapshot:
				if ops, ok := bridgeSnapshot(e); ok {
					if b.pending != e.MessageID && !flush() {
						return
					}
					if _, seen := held[e.MessageID]; !seen || e.Replace == nil || *e.Replace {
						held[e.MessageID] = ops[:min(len(ops), b.max+1)]
					}
					b.pending = e.MessageID
					continue
				}
			case *agui.ActivityDelta:
				if _, ok := held[e.MessageID]; ok && e.ActivityType == ActivityType {
					if add, ok := bridgeAppends(e.Patch); ok {
						if b.pending != e.MessageID && !flush() {
							return
						}
						// Past max the surface fails: one more message
						// says so, the rest are not kept.
						n := len(held[e.MessageID])
						held[e.MessageID] = append(held[e.MessageID], add[:min(len(add), max(b.max+1-n, 0))]...)
						b.pending = e.MessageID
						continue
					}
				}
			}
			if !flush() || !yield(ev, nil) {
				return
			}
		}
		if !h.Stopped() {
			flush()
		}
	}
}

// bridgeSnapshot reports whether e is a bridge surface snapshot (content
// with "operations", without "a2ui_operations") and returns its messages.
func bridgeSnapshot(e *agui.ActivitySnapshot) ([]json.RawMessage, bool) {
	if e.ActivityType != ActivityType {
		return nil, false
	}
	var c map[string]json.RawMessage
	if json.Unmarshal(e.Content, &c) != nil {
		return nil, false
	}
	raw, ok := c[bridgeKey]
	if _, ours := c[OperationsKey]; !ok || ours {
		return nil, false
	}
	var ops []json.RawMessage
	if json.Unmarshal(raw, &ops) != nil {
		return nil, false
	}
	return ops, true
}

// bridgeAppends returns the messages a bridge delta adds, if every one of
// its operations adds to /operations/-.
func bridgeAppends(patch agui.JSON) ([]json.RawMessage, bool) {
	var ops []struct {
		Op    string          `json:"op"`
		Path  string          `json:"path"`
		Value json.RawMessage `json:"value"`
	}
	if json.Unmarshal(patch, &ops) != nil || len(ops) == 0 {
		return nil, false
	}
	out := make([]json.RawMessage, 0, len(ops))
	for _, o := range ops {
		if o.Op != "add" || o.Path != "/"+bridgeKey+"/-" || len(o.Value) == 0 {
			return nil, false
		}
		out = append(out, o.Value)
	}
	return out, true
}
