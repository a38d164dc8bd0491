package a2a

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/genui-adapter/genui-adapter/agui"
)

// translator turns an A2A stream (either protocol) into AG-UI events.
type translator struct {
	in       *agui.RunAgentInput
	yield    func(agui.Event, error) bool
	v1       bool
	check    Check
	taskID   string
	resumed  string // the task this run answers, if any
	ended    bool
	text     string              // open text message id
	surfaces map[string]*surface // by surfaceId, this run
	ops      int                 // A2UI messages kept this run (bounded)
	expose   bool                // a JSON-RPC error's text reaches the client (Agent.ExposeErrors)
}

// surface is one A2UI surface the run shows: its messages so far.
type surface struct {
	ops []json.RawMessage
}

// maxSurfaceOps bounds the A2UI messages one run keeps.
const maxSurfaceOps = 10000

func (t *translator) out(ev agui.Event) bool { return t.yield(ev, nil) }

func (t *translator) closeText() bool {
	if t.text == "" {
		return true
	}
	id := t.text
	t.text = ""
	return t.out(&agui.TextMessageEnd{MessageID: id})
}

// status is a task status in either protocol's spelling.
type status struct {
	State   string   `json:"state"`
	Message *message `json:"message"`
}

type message struct {
	MessageID string `json:"messageId"`
	Role      string `json:"role"`
	Parts     []part `json:"parts"`
}

type artifact struct {
	ArtifactID string `json:"artifactId"`
	Parts      []part `json:"parts"`
}

type event struct {
	// 0.3: kind selects the event; 1.0: exactly one field is set.
	Kind     string    `json:"kind"`
	ID       string    `json:"id"`
	TaskID   string    `json:"taskId"`
	Status   *status   `json:"status"`
	Artifact *artifact `json:"artifact"`
	Append   bool      `json:"append"`
	// A whole message (0.3 kind "message").
	MessageID string `json:"messageId"`
	Parts     []part `json:"parts"`

	Task           *event   `json:"task"`
	Msg            *message `json:"message"`
	StatusUpdate   *event   `json:"statusUpdate"`
	ArtifactUpdate *event   `json:"artifactUpdate"`
}

// state normalises a task state: "TASK_STATE_INPUT_REQUIRED" and
// "input-required" are both "input-required".
func state(s string) string {
	s = strings.ToLower(strings.TrimPrefix(s, "TASK_STATE_"))
	return strings.ReplaceAll(s, "_", "-")
}

// frame handles one JSON-RPC response of the stream; false ends the run.
func (t *translator) frame(ctx context.Context, data []byte) bool {
	var resp struct {
		Result json.RawMessage `json:"result"`
		Error  *struct {
			Code    int    `json:"code"`
			Message string `json:"message"`
		} `json:"error"`
	}
	if json.Unmarshal(data, &resp) != nil {
		return true // not JSON-RPC: ignored
	}
	if resp.Error != nil {
		t.ended = true
		if t.expose {
			return t.closeText() && t.out(&agui.RunError{Code: "a2a_error", Message: resp.Error.Message}) && false
		}
		// The server's error answer: to the log, not the user.
		return t.closeText() && t.yield(nil, &agui.RunFailure{Code: "a2a_error", Message: fmt.Sprintf("the A2A agent answered JSON-RPC error %d (its message is in the adapter's log)", resp.Error.Code), Err: fmt.Errorf("A2A JSON-RPC error %d: %s", resp.Error.Code, resp.Error.Message)}) && false
	}
	var ev event
	if json.Unmarshal(resp.Result, &ev) != nil {
		return true
	}
	switch {
	case ev.Task != nil || ev.Kind == "task":
		e := &ev
		if ev.Task != nil {
			e = ev.Task
		}
		t.taskID = e.ID
		// A resumed task is first sent back as it was (input-required,
		// with its question): that is not news.
		if e.Status != nil && e.ID != t.resumed {
			return t.status(e.Status)
		}
	case ev.StatusUpdate != nil || ev.Kind == "status-update":
		e := &ev
		if ev.StatusUpdate != nil {
			e = ev.StatusUpdate
		}
		if e.TaskID != "" {
			t.taskID = e.TaskID
		}
		if e.Status != nil {
			return t.status(e.Status)
		}
	case ev.ArtifactUpdate != nil || ev.Kind == "artifact-update":
		e := &ev
		if ev.ArtifactUpdate != nil {
			e = ev.ArtifactUpdate
		}
		if e.Artifact != nil {
			return t.parts(e.Artifact.ArtifactID, e.Artifact.Parts, e.Append)
		}
	case ev.Msg != nil:
		if !t.parts(ev.Msg.MessageID, ev.Msg.Parts, false) {
			return false
		}
		return t.finish(nil) // a direct reply ends the exchange
	case ev.Kind == "message":
		if !t.parts(ev.MessageID, ev.Parts, false) {
			return false
		}
		return t.finish(nil)
	}
	return true
}

// status shows a status message and ends the run on a final state.
func (t *translator) status(s *status) bool {
	var text string
	if s.Message != nil {
		if !t.parts(s.Message.MessageID, s.Message.Parts, false) {
			return false
		}
		text = textOf(s.Message.Parts)
	}
	switch st := state(s.State); st {
	case "completed":
		return t.finish(nil)
	case "input-required", "auth-required":
		meta, _ := json.Marshal(map[string]string{"state": st, "taskId": t.taskID})
		return t.finish(&agui.Outcome{Type: "interrupt", Interrupts: []agui.Interrupt{{ID: t.taskID, Reason: strings.ReplaceAll(st, "-", "_"), Message: text, Metadata: agui.JSON(meta)}}})
	case "failed", "rejected", "canceled", "cancelled":
		t.ended = true
		if text == "" {
			text = "the A2A task ended " + st
		}
		code := "a2a_" + strings.ReplaceAll(st, "-", "_")
		return t.closeText() && t.out(&agui.RunError{Code: code, Message: text}) && false
	}
	return true
}

func (t *translator) finish(o *agui.Outcome) bool {
	t.ended = true
	if !t.closeText() {
		return false
	}
	t.out(&agui.RunFinished{ThreadID: t.in.ThreadID, RunID: t.in.RunID, Outcome: o})
	return false
}

func textOf(parts []part) string {
	var b strings.Builder
	for _, p := range parts {
		if p.Text != nil {
			b.WriteString(*p.Text)
		}
	}
	return b.String()
}

// parts shows the parts of a message or artifact: text as one text
// message (appended chunks continue it), A2UI DataParts as surfaces, other
// data as CUSTOM a2a.data.
func (t *translator) parts(id string, ps []part, appended bool) bool {
	for _, p := range ps {
		switch {
		case p.Text != nil:
			if *p.Text == "" {
				continue
			}
			if t.text != id {
				if !t.closeText() {
					return false
				}
				if id == "" {
					id = t.in.RunID + "-text"
				}
				t.text = id
				if !t.out(&agui.TextMessageStart{MessageID: id, Role: "assistant"}) {
					return false
				}
			}
			if !t.out(&agui.TextMessageContent{MessageID: id, Delta: *p.Text}) {
				return false
			}
		case p.isA2UI():
			if !t.closeText() || !t.a2ui(p.Data) {
				return false
			}
		case len(p.Data) > 0:
			if !t.closeText() || !t.out(&agui.Custom{Name: "a2a.data", Value: agui.JSON(p.Data)}) {
				return false
			}
		}
	}
	_ = appended
	return true
}

// a2ui applies a DataPart's A2UI messages (a list, or one message): the
// valid ones go to their surfaces, each surface shown once per part; the
// ones Check drops are reported in a CUSTOM a2ui.errors event.
func (t *translator) a2ui(data json.RawMessage) bool {
	var list []json.RawMessage
	if json.Unmarshal(data, &list) != nil {
		list = []json.RawMessage{data}
	}
	known := func(id string) bool { return t.surfaces[id] != nil }
	if t.check != nil {
		var dropped []string
		list, dropped = t.check(list, known)
		if len(dropped) > 0 {
			b, _ := json.Marshal(map[string]any{"dropped": dropped})
			if !t.out(&agui.Custom{Name: "a2ui.errors", Value: agui.JSON(b)}) {
				return false
			}
		}
	}
	var order []string
	updates := map[string][]json.RawMessage{} // surfaces created in an earlier run
	for _, m := range list {
		id := surfaceOf(m)
		if id == "" || t.ops >= maxSurfaceOps {
			continue
		}
		t.ops++
		s := t.surfaces[id]
		if s == nil && !createsSurface(m) {
			updates[id] = append(updates[id], m)
			if len(updates[id]) == 1 {
				order = append(order, id)
			}
			continue
		}
		if s == nil {
			s = &surface{}
			t.surfaces[id] = s
		}
		s.ops = append(s.ops, m)
		if !containsStr(order, id) {
			order = append(order, id)
		}
	}
	for _, id := range order {
		if ups := updates[id]; len(ups) > 0 && t.surfaces[id] == nil {
			// A surface the client already shows (from an earlier run):
			// its messages are appended to it.
			var patch []map[string]any
			for _, m := range ups {
				patch = append(patch, map[string]any{"op": "add", "path": "/a2ui_operations/-", "value": m})
			}
			b, _ := json.Marshal(patch)
			if !t.out(&agui.ActivityDelta{MessageID: MessageID(id), ActivityType: "a2ui-surface", Patch: agui.JSON(b)}) {
				return false
			}
			continue
		}
		content, _ := json.Marshal(map[string]any{"a2ui_operations": t.surfaces[id].ops})
		replace := true
		if !t.out(&agui.ActivitySnapshot{MessageID: MessageID(id), ActivityType: "a2ui-surface", Content: agui.JSON(content), Replace: &replace}) {
			return false
		}
	}
	return true
}

// MessageID is the activity message of an A2A agent's surface.
func MessageID(surfaceID string) string { return "a2ui-surface-a2a-" + surfaceID }

func surfaceOf(m json.RawMessage) string {
	var probe map[string]json.RawMessage
	if json.Unmarshal(m, &probe) != nil {
		return ""
	}
	for k, v := range probe {
		if k == "version" {
			continue
		}
		var body struct {
			SurfaceID string `json:"surfaceId"`
		}
		if json.Unmarshal(v, &body) == nil && body.SurfaceID != "" {
			return body.SurfaceID
		}
	}
	return ""
}

func createsSurface(m json.RawMessage) bool {
	var probe struct {
		CreateSurface json.RawMessage `json:"createSurface"`
	}
	return json.Unmarshal(m, &probe) == nil && len(probe.CreateSurface) > 0
}

func containsStr(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}
