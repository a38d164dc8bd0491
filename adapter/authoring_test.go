package adapter

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"testing"

	"github.com/genui-adapter/genui-adapter/agui"
)

const (
	validRender   = `{"surfaceId":"order","components":[{"id":"root","component":"Card","child":"col"},{"id":"col","component":"Column","children":["title","total"]},{"id":"title","component":"Text","text":"Order A-1","variant":"h3"},{"id":"total","component":"Text","text":{"path":"/total"}}],"data":{"total":"12.50 EUR"}}`
	invalidRender = `{"surfaceId":"order","components":[{"id":"root","component":"Column","children":["title","ghost"]},{"id":"title","component":"Text","text":"Order A-1"}]}`
)

// authoringUpstream calls render_a2ui with the arguments plan gives for
// each attempt (n = tool results seen so far), streamed in small chunks;
// after a valid render it answers in text.
func authoringUpstream(t *testing.T, plan func(n int) string) (string, *[]*agui.RunAgentInput) {
	var inputs []*agui.RunAgentInput
	up := scripted(t, func(enc *agui.Encoder, flush func(), in *agui.RunAgentInput, r *http.Request) {
		inputs = append(inputs, in)
		enc.Encode("", &agui.RunStarted{ThreadID: in.ThreadID, RunID: in.RunID})
		n := 0
		for _, m := range in.Messages {
			if m.Role == agui.RoleTool {
				n++
			}
		}
		if n > 0 && !strings.Contains(in.Messages[len(in.Messages)-1].Content.String(), "not valid") {
			enc.Encode("", &agui.TextMessageStart{MessageID: "done", Role: "assistant"})
			enc.Encode("", &agui.TextMessageContent{MessageID: "done", Delta: "Here is the order."})
			enc.Encode("", &agui.TextMessageEnd{MessageID: "done"})
		} else {
			id := fmt.Sprintf("render-%d", n)
			enc.Encode("", &agui.ToolCallStart{ToolCallID: id, ToolCallName: "render_a2ui"})
			args := plan(n)
			for i := 0; i < len(args); i += 7 {
				enc.Encode("", &agui.ToolCallArgs{ToolCallID: id, Delta: args[i:min(i+7, len(args))]})
				flush()
			}
			enc.Encode("", &agui.ToolCallEnd{ToolCallID: id})
		}
		enc.Encode("", &agui.RunFinished{ThreadID: in.ThreadID, RunID: in.RunID})
	})
	return up.URL, &inputs
}

type surfaceSeen struct {
	msgID, status string
	components    int
}

func surfacesOf(t *testing.T, fs []frame) []surfaceSeen {
	var out []surfaceSeen
	for _, f := range fs {
		var ev struct {
			Type, MessageID, ActivityType string
			Content                       struct {
				Ops    []json.RawMessage `json:"a2ui_operations"`
				Status string            `json:"status"`
			}
		}
		json.Unmarshal([]byte(f.data), &ev)
		if ev.Type != "ACTIVITY_SNAPSHOT" || ev.ActivityType != "a2ui-surface" {
			continue
		}
		s := surfaceSeen{msgID: ev.MessageID, status: ev.Content.Status}
		for _, op := range ev.Content.Ops {
			var uc struct {
				UpdateComponents *struct {
					Components []json.RawMessage `json:"components"`
				} `json:"updateComponents"`
			}
			json.Unmarshal(op, &uc)
			if uc.UpdateComponents != nil {
				s.components = len(uc.UpdateComponents.Components)
			}
		}
		out = append(out, s)
	}
	return out
}

func authoringServerConfig(url string) string {
	return `agents: {a: {type: agui, url: "` + url + `", mcpServers: [a2ui], maxToolRounds: 3}}`
}

// A valid render grows while its arguments stream, then is the surface;
// the agent had the authoring guide in its context and the tool.
func TestAuthoringValidSurfaceGrows(t *testing.T) {
	url, inputs := authoringUpstream(t, func(int) string { return validRender })
	ts := serveYAML(t, authoringServerConfig(url))
	code, fs := runAll(t, ts.URL, "a", runJSON("t", "r", "show the order"), nil)
	if code != 200 || lastType(fs) != "RUN_FINISHED" {
		t.Fatalf("%d %s", code, lastType(fs))
	}
	ss := surfacesOf(t, fs)
	if len(ss) < 3 {
		t.Fatalf("surfaces %+v: want it to grow over several snapshots", ss)
	}
	for i, s := range ss {
		if s.msgID != ss[0].msgID || s.status != "" {
			t.Errorf("snapshot %d = %+v", i, s)
		}
		if i > 0 && s.components < ss[i-1].components {
			t.Errorf("the surface shrank: %+v", ss)
		}
	}
	first := (*inputs)[0]
	var tool, guide bool
	for _, tl := range first.Tools {
		tool = tool || tl.Name == "render_a2ui"
	}
	for _, c := range first.Context {
		guide = guide || strings.Contains(c.Value, "- Text: ")
	}
	if !tool || !guide {
		t.Errorf("the agent got the tool %v and the guide %v", tool, guide)
	}
}

// An invalid render gets the validator's errors as its tool result; the
// fixed attempt replaces it in the same activity message.
func TestAuthoringInvalidThenFixed(t *testing.T) {
	url, inputs := authoringUpstream(t, func(n int) string {
		if n == 0 {
			return invalidRender
		}
		return validRender
	})
	ts := serveYAML(t, authoringServerConfig(url))
	_, fs := runAll(t, ts.URL, "a", runJSON("t", "r", "show the order"), nil)
	if lastType(fs) != "RUN_FINISHED" {
		t.Fatalf("ended %s", lastType(fs))
	}
	second := (*inputs)[1].Messages
	if res := second[len(second)-1].Content.String(); !strings.Contains(res, "not valid") || !strings.Contains(res, "ghost") {
		t.Errorf("the model was told %q", res)
	}
	ss := surfacesOf(t, fs)
	var retrying bool
	for _, s := range ss {
		retrying = retrying || s.status == "retrying"
		if s.msgID != ss[0].msgID {
			t.Errorf("attempts in two messages: %+v", ss)
		}
	}
	if last := ss[len(ss)-1]; !retrying || last.status != "" || last.components != 4 {
		t.Errorf("surfaces %+v: want retrying, then the fixed surface", ss)
	}
}

// A model that never gets it right ends, after maxToolRounds, with the
// surface marked failed, not spinning.
func TestAuthoringNeverValid(t *testing.T) {
	url, _ := authoringUpstream(t, func(int) string { return invalidRender })
	ts := serveYAML(t, authoringServerConfig(url))
	_, fs := runAll(t, ts.URL, "a", runJSON("t", "r", "show the order"), nil)
	if lastType(fs) != "RUN_ERROR:max_tool_rounds" {
		t.Fatalf("ended %s", lastType(fs))
	}
	ss := surfacesOf(t, fs)
	if len(ss) == 0 || ss[len(ss)-1].status != "failed" {
		t.Errorf("surfaces %+v: want the last one failed", ss)
	}
}
