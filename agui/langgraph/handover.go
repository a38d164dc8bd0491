package langgraph

import (
	"context"
	"encoding/json"
	"errors"
	"hash/fnv"
	"iter"
	"maps"
	"math"
	"net/http"
	"slices"
	"strconv"
	"strings"

	"github.com/genui-adapter/genui-adapter/agui"
)

// errHandover is a stream left at a frame boundary for a hand-over.
var errHandover = errors.New("stopped for a hand-over")

// checkpoint is what rejoining a run needs: the LangGraph thread and run,
// the id of the last frame translated (the rejoin's Last-Event-ID) and
// the translator's state after it.
type checkpoint struct {
	Thread       string                    `json:"thread"`
	Run          string                    `json:"run"`
	LastEventID  string                    `json:"lastEventId,omitempty"`
	Resumed      bool                      `json:"resumed,omitempty"`
	Seen         bool                      `json:"seen,omitempty"`
	Node         string                    `json:"node,omitempty"`
	Text         string                    `json:"text,omitempty"`
	TextSent     []string                  `json:"textSent,omitempty"`
	Calls        []string                  `json:"calls,omitempty"`
	OpenCalls    []string                  `json:"openCalls,omitempty"`
	ChunkCalls   map[int]string            `json:"chunkCalls,omitempty"`
	ChunkMsg     string                    `json:"chunkMsg,omitempty"`
	Interrupts   []json.RawMessage         `json:"interrupts,omitempty"`
	InterruptIDs []string                  `json:"interruptIds,omitempty"`
	LastState    string                    `json:"lastState,omitempty"`
	LastMessages json.RawMessage           `json:"lastMessages,omitempty"`
	Reasoning    string                    `json:"reasoning,omitempty"`
	Hidden       []string                  `json:"hidden,omitempty"`
	Predicting   map[string]predictedState `json:"predicting,omitempty"`
	// A checkpoint taken while the run goes on (Mid) may fall between
	// frames of one id (langgraph dev's ids are one per millisecond): its
	// rejoin asks for the frames after PrevID and drops those of
	// LastEventID it translated already (Same, their hashes), as a
	// resumed stream does.
	Mid    bool     `json:"mid,omitempty"`
	PrevID string   `json:"prevId,omitempty"`
	Same   []uint64 `json:"same,omitempty"`
}

type predictedState struct {
	Args string              `json:"args"`
	Keys map[string][]string `json:"keys,omitempty"`
	Sent map[string]int      `json:"sent,omitempty"`
}

func setKeys(m map[string]bool) []string { return slices.Sorted(maps.Keys(m)) }

func keySet(l []string) map[string]bool {
	m := make(map[string]bool, len(l))
	for _, k := range l {
		m[k] = true
	}
	return m
}

// idAfter reports whether a frame of id comes after the frame of id
// last: the LangGraph servers' ids are "<ms>-<seq>" or integers, compared
// as numbers; ids of other shapes (or none) are taken as after. A
// hand-over stops only where the id changes, so every frame of id last
// was translated.
func idAfter(id, last string) bool {
	if id == "" || last == "" {
		return true
	}
	parse := func(s string) (ms, seq uint64, ok bool) {
		if ms, seq, ok := msSeq(s); ok {
			return ms, seq, true
		}
		ms, err := strconv.ParseUint(s, 10, 64)
		return ms, 0, err == nil
	}
	ms, seq, ok1 := parse(id)
	lms, lseq, ok2 := parse(last)
	if !ok1 || !ok2 {
		return true
	}
	return ms > lms || ms == lms && seq > lseq
}

// msSeq parses an id of the "<ms>-<seq>" shape: langgraph dev's (one per
// millisecond, "<ms>-0") and Redis stream ids (one per frame).
func msSeq(id string) (ms, seq uint64, ok bool) {
	a, b, dash := strings.Cut(id, "-")
	if !dash {
		return 0, 0, false
	}
	ms, err := strconv.ParseUint(a, 10, 64)
	if err != nil {
		return 0, 0, false
	}
	if seq, err = strconv.ParseUint(b, 10, 64); err != nil {
		return 0, 0, false
	}
	return ms, seq, true
}

// resumeID is the Last-Event-ID to resume t's dropped stream with. For
// "<ms>-<seq>" ids it is the id before lastID (the previous frames' id,
// else the greatest id below lastID), because langgraph dev gives every
// frame of a millisecond one id and replays only the frames of a greater
// id: the frames of lastID that came after the drop would be lost. The
// frames of lastID translated already come again and are dropped as
// repeats (see repeated), and so are the repeats at the seam of
// langgraph dev's replay and its live frames. repeats tells whether the
// stream must be filtered so; other ids resume from lastID.
func (t *translator) resumeID() (id string, repeats bool) {
	ms, seq, ok := msSeq(t.lastID)
	switch {
	case !ok:
		return t.lastID, false
	case t.prevID != "":
		if _, _, ok := msSeq(t.prevID); !ok || idAfter(t.prevID, t.lastID) {
			return t.lastID, false // ids of mixed shapes or not ascending: nothing to go by
		}
		return t.prevID, true
	}
	switch {
	case seq > 0:
		return strconv.FormatUint(ms, 10) + "-" + strconv.FormatUint(seq-1, 10), true
	case ms > 0:
		return strconv.FormatUint(ms-1, 10) + "-" + strconv.FormatUint(math.MaxUint64, 10), true
	}
	return t.lastID, false
}

func frameHash(f agui.Frame) uint64 {
	h := fnv.New64a()
	h.Write([]byte(f.Event))
	h.Write([]byte{0})
	h.Write(f.Data)
	return h.Sum64()
}

// repeated reports whether a rejoined or resumed stream's frame f is
// one translated already: langgraph dev's in-memory server joins a run by
// replaying its frames after Last-Event-ID and then its live ones, and
// may send the frames at the seam twice; its ids ("<ms>-0") are one per
// millisecond, not per frame, so a frame of the last id is a repeat only
// when it is the same frame (two frames of one millisecond with the same
// event and bytes are taken as one).
func (t *translator) repeated(f agui.Frame) bool {
	if t.skipThrough != "" {
		if !idAfter(f.ID, t.skipThrough) {
			return true // every frame of the checkpoint's id was translated
		}
		t.skipThrough = ""
	}
	if f.ID == "" || t.lastID == "" {
		return false
	}
	if f.ID == t.lastID {
		return t.sameID[frameHash(f)]
	}
	return !idAfter(f.ID, t.lastID)
}

// checkpoint is t's state, for a run on LangGraph thread tid.
func (t *translator) checkpoint(tid string, resumed bool) checkpoint {
	cp := checkpoint{
		Thread: tid, Run: t.runID, LastEventID: t.lastID, Resumed: resumed, Seen: t.seen, Node: t.node,
		Text: t.text, TextSent: setKeys(t.textSent), Calls: setKeys(t.calls), OpenCalls: t.openCalls,
		ChunkCalls: t.chunkCalls, ChunkMsg: t.chunkMsg, Interrupts: t.interrupts, InterruptIDs: setKeys(t.interruptIDs),
		LastState: t.lastState, LastMessages: t.lastMessages, Reasoning: t.reasoning, Hidden: setKeys(t.hidden),
	}
	if len(t.predicting) > 0 {
		cp.Predicting = make(map[string]predictedState, len(t.predicting))
		for id, p := range t.predicting {
			if p == nil {
				continue
			}
			cp.Predicting[id] = predictedState{Args: p.args.String(), Keys: p.keys, Sent: p.sent}
		}
	}
	return cp
}

// restore sets t's state to cp's.
func (cp *checkpoint) restore(t *translator) {
	t.runID, t.lastID, t.seen, t.node = cp.Run, cp.LastEventID, cp.Seen, cp.Node
	t.text, t.textSent, t.calls, t.openCalls = cp.Text, keySet(cp.TextSent), keySet(cp.Calls), cp.OpenCalls
	t.chunkCalls, t.chunkMsg, t.interrupts, t.interruptIDs = cp.ChunkCalls, cp.ChunkMsg, cp.Interrupts, keySet(cp.InterruptIDs)
	t.lastState, t.lastMessages, t.reasoning, t.hidden = cp.LastState, cp.LastMessages, cp.Reasoning, keySet(cp.Hidden)
	if t.chunkCalls == nil {
		t.chunkCalls = map[int]string{}
	}
	t.predicting = make(map[string]*predicted, len(cp.Predicting))
	for id, ps := range cp.Predicting {
		p := &predicted{keys: ps.Keys, sent: ps.Sent}
		if p.sent == nil {
			p.sent = map[string]int{}
		}
		p.args.WriteString(ps.Args)
		t.predicting[id] = p
	}
}

// midCheckpoint is t's state at a frame boundary of a run that goes on
// (agui.Handover.Checkpoint), for a run on LangGraph thread tid.
func (t *translator) midCheckpoint(tid string, resumed bool) checkpoint {
	cp := t.checkpoint(tid, resumed)
	cp.Mid, cp.PrevID = true, t.prevID
	cp.Same = slices.Sorted(maps.Keys(t.sameID))
	return cp
}

// rejoin sets t to follow a rejoined stream from cp; it returns the
// Last-Event-ID to ask for ("" for the stream from its start).
func (cp *checkpoint) rejoin(t *translator) string {
	cp.restore(t)
	t.repeats, t.sameID = true, map[uint64]bool{}
	if !cp.Mid {
		t.skipThrough = cp.LastEventID
		return t.lastID
	}
	t.prevID = cp.PrevID
	for _, h := range cp.Same {
		t.sameID[h] = true
	}
	if t.lastID == "" {
		return ""
	}
	id, _ := t.resumeID()
	return id
}

// Rejoin implements agui.Rejoiner: it follows a LangGraph run another
// process stopped for a hand-over, from the frame after the last one that
// process translated (GET /threads/{t}/runs/{r}/stream with
// Last-Event-ID; the run was started with stream_resumable).
func (a *Agent) Rejoin(ctx context.Context, req *agui.Request, state json.RawMessage) iter.Seq2[agui.Event, error] {
	return func(yield func(agui.Event, error) bool) {
		var cp checkpoint
		if err := json.Unmarshal(state, &cp); err != nil || cp.Thread == "" || cp.Run == "" {
			yield(nil, &agui.RunFailure{Code: agui.CodeInternal, Message: "cannot rejoin the LangGraph run: its hand-over state is unreadable"})
			return
		}
		t := &translator{in: req.Input, yield: yield, snapshot: !a.NoMessagesSnapshot, keys: a.outputKeys(ctx, req), expose: a.ExposeErrors, handover: req.Handover}
		hdr := map[string]string{"Accept": "text/event-stream"}
		if id := cp.rejoin(t); id != "" {
			hdr["Last-Event-ID"] = id
		}
		resp, err := a.call(ctx, req, http.MethodGet, "/threads/"+cp.Thread+"/runs/"+cp.Run+"/stream", nil, hdr, "rejoin")
		if err != nil {
			a.cancelRun(ctx, req, cp.Thread, t)
			if ctx.Err() == nil {
				yield(nil, err)
			}
			return
		}
		a.follow(ctx, req, cp.Thread, t, resp, nil, true)
	}
}
