// Package langgraph is an agui.Agent for the LangGraph Agent Server API
// (`langgraph dev`, LangGraph Platform / LangSmith Deployment): it runs a
// graph on a thread with POST /threads/{id}/runs/stream and translates the
// stream (messages-tuple, updates, values, custom) into AG-UI events, the
// way @ag-ui/langgraph maps them, with no Python shim in between.
//
// The AG-UI threadId maps to a LangGraph thread deterministically (a UUID
// derived from it, created on first use), so the mapping needs no storage
// and survives restarts. A stream that drops mid-run is resumed with
// GET /threads/{t}/runs/{r}/stream and Last-Event-ID (bounded retries;
// from the id before the last one for "<ms>-<seq>" ids, which langgraph
// dev shares among the frames of a millisecond, dropping the frames seen
// already); a run whose client goes away is cancelled upstream. A run asked to hand
// over (agui.Request.Handover), once no middleware holds the hand-over
// off, stops before an upstream frame and leaves the LangGraph run going;
// Rejoin follows it from there in another process, and so does Run when
// the request's Handover was made by agui.Resume.
package langgraph

import (
	"context"
	"crypto/sha1"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"iter"
	"log/slog"
	"maps"
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/genui-adapter/genui-adapter/agui"
	"github.com/genui-adapter/genui-adapter/agui/aguihttp"
)

// Agent runs one graph (assistant) of a LangGraph server. Its Upstream's
// URL is the server's base URL, e.g. http://127.0.0.1:2024; its
// Origins keep the API key on the server's origin; an idle run stream is
// resumed (MaxReconnects).
type Agent struct {
	aguihttp.Upstream
	// Graph is the graph id or assistant id.
	Graph string
	// APIKey, when set, is sent as x-api-key.
	APIKey string
	// AssistantConfig is merged into every run's config.
	AssistantConfig map[string]any
	// MaxReconnects bounds stream resumptions (default 5).
	MaxReconnects int
	// ClientConfigKeys lists the keys a client may set in the run's
	// configurable and context (forwardedProps.config.configurable,
	// forwardedProps.context); others are dropped, so a browser cannot
	// override what the deployment relies on. Default: none.
	ClientConfigKeys []string
	// NoMessagesSnapshot leaves out the MESSAGES_SNAPSHOT sent at the end
	// of a run (the official adapter sends one; CopilotKit reconciles
	// message ids with it).
	NoMessagesSnapshot bool
	// NoSubgraphs does not ask for subgraph streaming. Otherwise it is
	// asked for, unless the client's forwardedProps.streamSubgraphs is
	// false, from a server that streams subgraphs: each agent finds out
	// with a probe run that executes no node (see subgraphsOK), again
	// every subgraphsRecheck, because a server that cannot (the
	// JavaScript server 2.0.0 with @langchain/langgraph 1.7) fails such
	// runs or never ends them. A run that fails before the graph streamed
	// anything while asked for subgraphs is run again without them.
	NoSubgraphs bool
	// Logger receives what the agent notices outside a run (a server
	// that cannot stream subgraphs). Default slog.Default().
	Logger *slog.Logger
	// NoCopilotKitHelpers leaves out the "events" stream mode, which
	// carries the custom events of @copilotkit/sdk-js and the copilotkit
	// Python package (emit a message, a tool call or state from inside a
	// node; exit), as @ag-ui/langgraph always asks for it. That mode
	// repeats every node's input and output and every model token, so a
	// graph that uses no helpers may go without it.
	NoCopilotKitHelpers bool

	schemaMu   sync.Mutex
	schemaAt   time.Time       // when the schema was last asked for
	schemaKeys map[string]bool // nil: every key

	subgraphsMu sync.Mutex
	subgraphsAt time.Time // when the server was last probed
	subgraphsOn bool      // what the probe found
}

// subgraphsRecheck is how long a probe's finding holds (an upgraded or
// replaced server is probed again).
const subgraphsRecheck = 10 * time.Minute

// subgraphsProbeTimeout bounds a probe: a server that has not streamed
// the graph's first state by then does not stream subgraphs.
const subgraphsProbeTimeout = 10 * time.Second

// subgraphsOK reports whether runs may ask the server for subgraph
// streaming, probing it when the last finding is older than
// subgraphsRecheck. Concurrent runs wait for one probe.
func (a *Agent) subgraphsOK(ctx context.Context, req *agui.Request) bool {
	a.subgraphsMu.Lock()
	defer a.subgraphsMu.Unlock()
	if !a.subgraphsAt.IsZero() && time.Since(a.subgraphsAt) < subgraphsRecheck {
		return a.subgraphsOn
	}
	err := a.probeSubgraphs(ctx, req)
	if ctx.Err() != nil || unanswered(err) {
		return false // the run's client left, or the server did not run the probe: no finding
	}
	a.subgraphsAt, a.subgraphsOn = time.Now(), err == nil
	if err != nil {
		l := a.Logger
		if l == nil {
			l = slog.Default()
		}
		l.WarnContext(ctx, "the LangGraph server does not stream subgraphs; runs go without", "url", a.URL, "graph", a.Graph, "error", err)
	}
	return a.subgraphsOn
}

// unanswered reports whether a probe's error says nothing about
// subgraphs: the server could not be reached, did not know the graph
// (yet), refused the credentials or was unavailable. The run goes
// without subgraphs and the next one probes again. A probe that ran out
// of time (subgraphsProbeTimeout, or the upstream's connect timeout) did
// reach a server that then sent nothing: that is the finding, or every
// run would wait out another probe.
func unanswered(err error) bool {
	if errors.Is(err, context.DeadlineExceeded) || errors.Is(err, aguihttp.ErrConnectTimeout) {
		return false
	}
	var re *agui.RunFailure
	if errors.As(err, &re) && re.Code == agui.CodeUpstreamUnreachable {
		return true
	}
	var se *aguihttp.UpstreamStatusError
	if errors.As(err, &se) {
		switch se.Status {
		case http.StatusUnauthorized, http.StatusForbidden, http.StatusNotFound, http.StatusTooManyRequests,
			http.StatusBadGateway, http.StatusServiceUnavailable, http.StatusGatewayTimeout:
			return true
		}
	}
	return false
}

func (a *Agent) refuseSubgraphs() {
	a.subgraphsMu.Lock()
	a.subgraphsAt, a.subgraphsOn = time.Now(), false
	a.subgraphsMu.Unlock()
}

// probeSubgraphs runs the graph asked for subgraph streaming on a scratch
// thread, interrupted before its first node (so no node runs), and
// deletes the thread: nil when the stream carried the graph's state and
// ended, the server's complaint otherwise.
func (a *Agent) probeSubgraphs(ctx context.Context, req *agui.Request) error {
	ctx, cancel := context.WithTimeout(ctx, subgraphsProbeTimeout)
	defer cancel()
	resp, err := a.call(ctx, req, http.MethodPost, "/threads", map[string]any{"metadata": map[string]any{"genui_probe": "stream_subgraphs"}}, nil, "create probe thread")
	if err != nil {
		return err
	}
	var th struct {
		ThreadID string `json:"thread_id"`
	}
	err = json.NewDecoder(io.LimitReader(resp.Body, 1<<20)).Decode(&th)
	resp.Body.Close()
	if err != nil || th.ThreadID == "" {
		return fmt.Errorf("create probe thread: no thread id")
	}
	defer func() {
		dctx, dcancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
		defer dcancel()
		if r, err := a.do(dctx, req, http.MethodDelete, "/threads/"+th.ThreadID, nil, nil); err == nil {
			r.Body.Close()
		}
	}()
	resp, err = a.call(ctx, req, http.MethodPost, "/threads/"+th.ThreadID+"/runs/stream", map[string]any{
		"assistant_id": a.Graph, "input": map[string]any{"messages": []any{}}, "stream_mode": []string{"values"},
		"stream_subgraphs": true, "interrupt_before": "*",
	}, map[string]string{"Accept": "text/event-stream"}, "probe run")
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	values := false
	for f, err := range agui.ScanFrames(resp.Body, a.MaxEventSize) {
		if err != nil {
			return err
		}
		switch f.Event {
		case "values":
			values = true
		case "error":
			var e struct{ Message string }
			_ = json.Unmarshal(f.Data, &e)
			return fmt.Errorf("probe run failed: %s", e.Message)
		}
	}
	if !values {
		return fmt.Errorf("probe run streamed no state")
	}
	return nil
}

// PrincipalKey is the configurable key (the context key when the run has
// a context) that carries the principal a run is for, set by the adapter
// and never taken from the client, so that graphs can authorize.
const PrincipalKey = "genui_principal"

// clientRunKeys are the forwardedProps keys (besides command, config and
// context) passed on to the run request, as @ag-ui/langgraph spreads
// forwardedProps into it (camelCase there, the API's snake_case here).
// Others (webhook, assistant_id, multitask_strategy...) never come from a
// client.
var clientRunKeys = map[string]string{
	"checkpointId":     "checkpoint_id",
	"checkpoint_id":    "checkpoint_id",
	"interruptBefore":  "interrupt_before",
	"interrupt_before": "interrupt_before",
	"interruptAfter":   "interrupt_after",
	"interrupt_after":  "interrupt_after",
	"metadata":         "metadata",
}

// ThreadID is the LangGraph thread an AG-UI thread maps to: a name-based
// (v5-style) UUID of the AG-UI thread id.
func ThreadID(aguiThread string) string {
	h := sha1.Sum([]byte("genui-adapter/langgraph/" + aguiThread))
	h[6] = (h[6] & 0x0f) | 0x50
	h[8] = (h[8] & 0x3f) | 0x80
	return fmt.Sprintf("%x-%x-%x-%x-%x", h[0:4], h[4:6], h[6:8], h[8:10], h[10:16])
}

// do sends a request to the server with the agent's headers and
// timeouts (aguihttp.Upstream's rules).
func (a *Agent) do(ctx context.Context, req *agui.Request, method, path string, body any, hdr map[string]string) (*http.Response, error) {
	if a.APIKey != "" {
		h := make(map[string]string, len(hdr)+1)
		maps.Copy(h, hdr)
		h["x-api-key"] = a.APIKey
		hdr = h
	}
	return a.Do(ctx, req, method, strings.TrimRight(a.URL, "/")+path, body, hdr)
}

// call is do for requests whose failure ends the run: an unreachable
// server or a non-2xx answer comes back as the *agui.RunFailure to report.
func (a *Agent) call(ctx context.Context, req *agui.Request, method, path string, body any, hdr map[string]string, what string) (*http.Response, error) {
	resp, err := a.do(ctx, req, method, path, body, hdr)
	if err != nil {
		if re := (*agui.RunFailure)(nil); errors.As(err, &re) {
			return nil, re
		}
		msg := "cannot reach the LangGraph server"
		if errors.Is(err, aguihttp.ErrConnectTimeout) {
			msg = "the LangGraph server sent " + err.Error()
		}
		return nil, &agui.RunFailure{Code: agui.CodeUpstreamUnreachable, Message: msg, Err: err}
	}
	if resp.StatusCode/100 != 2 {
		defer resp.Body.Close()
		return nil, aguihttp.StatusError(resp, "LangGraph "+what, a.ExposeErrors)
	}
	return resp, nil
}

// lcMessages converts AG-UI messages to LangChain messages. Activity and
// reasoning messages are not the graph's business.
func lcMessages(msgs []agui.Message) []map[string]any {
	var out []map[string]any
	for _, m := range msgs {
		switch m.Role {
		case agui.RoleUser:
			out = append(out, map[string]any{"id": m.ID, "type": "human", "content": m.Content.String()})
		case agui.RoleSystem, agui.RoleDeveloper:
			out = append(out, map[string]any{"id": m.ID, "type": "system", "content": m.Content.String()})
		case agui.RoleAssistant:
			lm := map[string]any{"id": m.ID, "type": "ai", "content": m.Content.String()}
			var calls []map[string]any
			for _, c := range m.ToolCalls {
				var args any = map[string]any{}
				if c.Function.Arguments != "" {
					_ = json.Unmarshal([]byte(c.Function.Arguments), &args)
				}
				calls = append(calls, map[string]any{"id": c.ID, "name": c.Function.Name, "args": args, "type": "tool_call"})
			}
			if calls != nil {
				lm["tool_calls"] = calls
			}
			out = append(out, lm)
		case agui.RoleTool:
			out = append(out, map[string]any{"id": m.ID, "type": "tool", "content": m.Content.String(), "tool_call_id": m.ToolCallID})
		}
	}
	return out
}

// runBody is the POST .../runs/stream request for a run.
func (a *Agent) runBody(in *agui.RunAgentInput, principal string) map[string]any {
	modes := []string{"messages-tuple", "updates", "values", "custom"}
	if !a.NoCopilotKitHelpers {
		modes = append(modes, "events")
	}
	body := map[string]any{
		"assistant_id":     a.Graph,
		"stream_mode":      modes,
		"stream_resumable": true,
		// A dropped stream is resumed, so the run must outlive it; a
		// client that goes away cancels the run explicitly (see Run).
		"on_disconnect": "continue",
	}

	for k, apiKey := range clientRunKeys {
		if raw := in.ForwardedProp(k); raw != nil && string(raw) != "null" {
			body[apiKey] = json.RawMessage(raw)
		}
	}
	if m, ok := body["metadata"].(json.RawMessage); ok {
		var md map[string]any
		if json.Unmarshal(m, &md) != nil {
			delete(body, "metadata")
		} else {
			delete(md, PrincipalKey)
			body["metadata"] = md
		}
	}

	// forwardedProps.command (resume, goto, update), as @ag-ui/langgraph
	// takes it from 0.0.5x clients and CopilotKit's interrupt hooks;
	// RunAgentInput.resume wins over command.resume.
	command := map[string]any{}
	if raw := in.ForwardedProp("command"); raw != nil {
		var c map[string]json.RawMessage
		if json.Unmarshal(raw, &c) == nil {
			for _, k := range []string{"resume", "goto", "update"} {
				if v, ok := c[k]; ok && string(v) != "null" {
					command[k] = v
				}
			}
			// A resume sent as a JSON string holding JSON is that JSON.
			if r, ok := command["resume"].(json.RawMessage); ok {
				var str string
				if json.Unmarshal(r, &str) == nil && json.Valid([]byte(str)) {
					command["resume"] = json.RawMessage(str)
				}
			}
		}
	}
	if len(in.Resume) > 0 {
		command["resume"], _ = resumeValue(in.Resume, nil, false)
	}
	if len(command) > 0 {
		body["command"] = command
	}
	if _, resuming := command["resume"]; !resuming {
		input := map[string]any{"messages": lcMessages(in.Messages)}
		// The client's tools (including MCP tools the adapter injects)
		// and context, for graphs with channels of these names, as
		// @ag-ui/langgraph offers them; LangGraph ignores input keys
		// a graph has no channel for.
		if len(in.Tools) > 0 || len(in.Context) > 0 {
			input["tools"] = in.Tools
			input["ag-ui"] = map[string]any{"tools": in.Tools, "context": in.Context}
		}
		body["input"] = input
	}

	// The deployment's config, then what the client may set: only the
	// allow-listed configurable and context keys; then the principal.
	cfg := map[string]any{}
	for k, v := range a.AssistantConfig {
		cfg[k] = v
	}
	configurable := map[string]any{}
	if c, ok := cfg["configurable"].(map[string]any); ok {
		for k, v := range c {
			configurable[k] = v
		}
	}
	context := map[string]any{}
	if fp := in.ForwardedProp("config"); fp != nil {
		var c struct {
			Configurable map[string]json.RawMessage `json:"configurable"`
		}
		if json.Unmarshal(fp, &c) == nil {
			a.allowed(c.Configurable, configurable)
		}
	}
	if fp := in.ForwardedProp("context"); fp != nil {
		var c map[string]json.RawMessage
		if json.Unmarshal(fp, &c) == nil {
			a.allowed(c, context)
		}
	}
	delete(configurable, PrincipalKey)
	delete(context, PrincipalKey)
	// LangGraph refuses configurable and context together ("context is
	// the replacement for configurable"): with a context, everything goes
	// there.
	target := configurable
	if len(context) > 0 {
		for k, v := range configurable {
			if _, set := context[k]; !set {
				context[k] = v
			}
		}
		configurable, target = map[string]any{}, context
	}
	if principal != "" {
		target[PrincipalKey] = principal
	}
	delete(cfg, "configurable")
	if len(configurable) > 0 {
		cfg["configurable"] = configurable
	}
	if len(cfg) > 0 {
		body["config"] = cfg
	}
	if len(context) > 0 {
		body["context"] = context
	}
	return body
}

// allowed copies the allow-listed keys of from into to.
func (a *Agent) allowed(from map[string]json.RawMessage, to map[string]any) {
	for _, k := range a.ClientConfigKeys {
		if v, ok := from[k]; ok {
			to[k] = v
		}
	}
}

// Run implements agui.Agent. A request whose hand-over rejoins a run
// another process stopped (req.Handover.Rejoining) follows that run
// (Rejoin) instead of starting one.
func (a *Agent) Run(ctx context.Context, req *agui.Request) iter.Seq2[agui.Event, error] {
	if req.Handover.Rejoining() {
		return a.Rejoin(ctx, req, req.Handover.Resumed())
	}
	in := req.Input
	return func(yield func(agui.Event, error) bool) {
		// Two principals' threads of the same id are two LangGraph threads.
		principal := req.Principal
		tid := ThreadID(agui.ScopedThreadID(principal, in.ThreadID))
		meta := map[string]any{"agui_thread_id": in.ThreadID}
		if principal != "" {
			meta["genui_principal"] = principal
		}
		resp, err := a.call(ctx, req, http.MethodPost, "/threads", map[string]any{"thread_id": tid, "if_exists": "do_nothing", "metadata": meta}, nil, "create thread")
		if err != nil {
			if ctx.Err() == nil {
				yield(nil, err)
			}
			return
		}
		resp.Body.Close()

		t := &translator{in: in, yield: yield, snapshot: !a.NoMessagesSnapshot, keys: a.outputKeys(ctx, req), expose: a.ExposeErrors}
		if !t.out(&agui.RunStarted{ThreadID: in.ThreadID, RunID: in.RunID}) {
			return
		}
		body := a.runBody(in, principal)
		if !a.NoSubgraphs && string(in.ForwardedProp("streamSubgraphs")) != "false" && a.subgraphsOK(ctx, req) {
			body["stream_subgraphs"] = true
		}
		if len(in.Resume) > 0 {
			// Each answer goes to the interrupt it names: the thread's
			// pending interrupts decide the Command.resume's shape.
			pending, perr := a.pendingInterrupts(ctx, req, tid)
			v, err := resumeValue(in.Resume, pending, perr == nil)
			if err != nil {
				yield(nil, err)
				return
			}
			body["command"].(map[string]any)["resume"] = v
		}
		if _, cmd := body["command"]; !cmd && body["checkpoint_id"] == nil {
			// A state or history the server cannot give means no fork: the
			// run appends, as it would without an edit.
			if cp, _ := a.forkPoint(ctx, req, tid, in); cp != "" {
				body["checkpoint_id"] = cp
			}
		}
		_, t.subgraphs = body["stream_subgraphs"]
		resp, err = a.call(ctx, req, http.MethodPost, "/threads/"+tid+"/runs/stream", body, map[string]string{"Accept": "text/event-stream"}, "run")
		if err != nil {
			if ctx.Err() == nil {
				yield(nil, err)
			}
			return
		}
		a.follow(ctx, req, tid, t, resp, body, false)
	}
}

// cancelRun cancels the LangGraph run t follows unless it ended, was
// kept for a hand-over, or its process gave it up for another to take it
// over (owner_lost, run_log_unavailable).
func (a *Agent) cancelRun(ctx context.Context, req *agui.Request, tid string, t *translator) {
	if t.runID == "" || t.ended || t.kept {
		return
	}
	if f := (*agui.RunFailure)(nil); errors.As(context.Cause(ctx), &f) && (f.Code == agui.CodeOwnerLost || f.Code == agui.CodeLogUnavailable) {
		return // another process may follow the run (it took it over, or will)
	}
	cctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
	defer cancel()
	if r, err := a.do(cctx, req, http.MethodPost, "/threads/"+tid+"/runs/"+t.runID+"/cancel", nil, nil); err == nil {
		r.Body.Close()
	}
}

// follow translates the run stream resp to its end, resuming it when it
// drops. body is the run request, to run again without subgraphs (nil:
// rejoined, never again); resumed, whether frames may be missing (see
// refreshMessages). When req's hand-over is ready (asked, and held off by
// no middleware), it stops at a frame boundary, keeps the checkpoint and
// leaves the LangGraph run going; a run waiting for its next frame stops
// when it comes.
func (a *Agent) follow(ctx context.Context, req *agui.Request, tid string, t *translator, resp *http.Response, body map[string]any, resumed bool) {
	yield := t.yield
	// Cancel the LangGraph run whenever we leave before it ended: the
	// client went away or stopped, or the stream could not be resumed.
	defer a.cancelRun(ctx, req, tid, t)
	t.handover = req.Handover
	maxRe := a.MaxReconnects
	if maxRe == 0 {
		maxRe = 5
	}
	earlier := false // the last resume asked from before lastID
	for attempt := 0; ; attempt++ {
		before, dropped := t.frames, t.dropped
		done, err := t.consume(&quietReader{r: resp.Body, quiet: func() {
			if t.runID != "" && !t.ended {
				t.handover.Checkpoint(func() json.RawMessage {
					b, _ := json.Marshal(t.midCheckpoint(tid, resumed))
					return b
				})
			}
		}}, a.MaxEventSize)
		if errors.Is(err, errSubgraphsRefused) && body != nil {
			// The run failed before the graph streamed anything, asked
			// for subgraphs: run it again without them. Its input is
			// applied again, by message id, so nothing is doubled.
			resp.Body.Close()
			a.refuseSubgraphs()
			delete(body, "stream_subgraphs")
			t.subgraphs, t.runID, t.lastID, t.prevID = false, "", "", ""
			clear(t.sameID)
			resp, err = a.call(ctx, req, http.MethodPost, "/threads/"+tid+"/runs/stream", body, map[string]string{"Accept": "text/event-stream"}, "run")
			if err != nil {
				if ctx.Err() == nil {
					yield(nil, err)
				}
				return
			}
			attempt--
			continue
		}
		progressed := t.frames != before
		if progressed {
			attempt = 0 // progress: the retry budget is per silence, not per run
		}
		resp.Body.Close()
		if done || ctx.Err() != nil {
			return
		}
		if t.handover.Ready() && t.runID != "" {
			// Every frame up to lastID is translated and yielded; the
			// next process asks for the frames after it.
			cp, _ := json.Marshal(t.checkpoint(tid, resumed))
			t.kept = true
			t.handover.Keep(cp)
			return
		}
		if err == nil && t.runID != "" {
			// A clean close: the run is over, or the server let go of
			// the stream early. Its status says which.
			switch st, serr := a.runStatus(ctx, req, tid, t.runID); {
			case serr != nil:
				err = serr
			case st == "success" || st == "interrupted":
				if resumed {
					// The frames after the break may be gone (the Python
					// server replays nothing of a finished run): the
					// final messages come from the thread.
					a.refreshMessages(ctx, req, tid, t)
				}
				t.finish()
				return
			case st == "error" || st == "timeout":
				t.ended = true
				yield(nil, &agui.RunFailure{Code: CodeGraphError, Message: "the LangGraph run ended with status " + st})
				return
			}
		}
		if attempt >= maxRe || t.runID == "" {
			yield(nil, &agui.RunFailure{Code: agui.CodeUpstreamTruncated, Message: fmt.Sprintf("the LangGraph stream broke and could not be resumed after %d attempts", attempt), Err: err})
			return
		}
		select {
		case <-ctx.Done():
			return
		case <-time.After(time.Duration(attempt+1) * 100 * time.Millisecond):
		}
		hdr := map[string]string{"Accept": "text/event-stream"}
		if t.lastID != "" {
			id, repeats := t.resumeID()
			if earlier && !progressed && t.dropped != dropped {
				// The stream dropped again before it got past the frames
				// translated already (a group of one id larger than what a
				// connection carries): ask for the frames after lastID,
				// at the risk of losing the rest of its group.
				id, repeats = t.lastID, false
			}
			earlier = repeats
			hdr["Last-Event-ID"] = id
			t.repeats = t.repeats || repeats
		}
		resumed = true
		resp, err = a.do(ctx, req, http.MethodGet, "/threads/"+tid+"/runs/"+t.runID+"/stream", nil, hdr)
		if err != nil {
			if ctx.Err() != nil {
				return
			}
			resp = &http.Response{Body: io.NopCloser(strings.NewReader(""))}
			continue
		}
		if resp.StatusCode/100 != 2 {
			err := aguihttp.StatusError(resp, "LangGraph resume", a.ExposeErrors)
			resp.Body.Close()
			yield(nil, err)
			return
		}
	}
}

// CodeInterruptNotPending is the RUN_ERROR code of a resume that names
// interrupts the LangGraph thread does not have pending.
const CodeInterruptNotPending = "interrupt_not_pending"

// cancelledKey marks the resume value of an interrupt the user cancelled
// (resume status "cancelled"), as @ag-ui/langgraph sends it:
// {"__agui_cancelled__": true, "interrupt_id": id}.
const cancelledKey = "__agui_cancelled__"

// resumeValue is the Command.resume for a run's AG-UI resume entries.
// With the thread's pending interrupt ids known, one answer to the only
// pending interrupt is the answer itself (what every LangGraph server
// reads); otherwise a map from interrupt id to answer, as LangGraph
// resumes several interrupts each by its id, and an entry naming an
// interrupt that is not pending is an error. Unknown (the state could not
// be read): one entry is its answer, several a map. A cancelled entry
// answers {"__agui_cancelled__": true, "interrupt_id": id}.
func resumeValue(entries []agui.ResumeEntry, pending []string, known bool) (any, error) {
	answer := func(e agui.ResumeEntry) any {
		if e.Status == "cancelled" {
			return map[string]any{cancelledKey: true, "interrupt_id": e.InterruptID}
		}
		var p any
		if len(e.Payload) > 0 {
			_ = json.Unmarshal(e.Payload, &p)
		}
		return p
	}
	isPending := make(map[string]bool, len(pending))
	for _, id := range pending {
		isPending[id] = true
	}
	if len(entries) == 1 && (!known || len(pending) <= 1) {
		// A 0.0.5x client's or CopilotKit's answer names no LangGraph id.
		return answer(entries[0]), nil
	}
	out := make(map[string]any, len(entries))
	var unknown []string
	for _, e := range entries {
		if known && !isPending[e.InterruptID] {
			unknown = append(unknown, e.InterruptID)
		}
		out[e.InterruptID] = answer(e)
	}
	if len(unknown) > 0 {
		return nil, &agui.RunFailure{Code: CodeInterruptNotPending, Message: fmt.Sprintf("resume names interrupts the thread does not have pending: %s (pending: %s)", strings.Join(unknown, ", "), strings.Join(pending, ", "))}
	}
	return out, nil
}

// pendingInterrupts are the ids of the interrupts a thread waits on
// (GET /threads/{id}/state, tasks[].interrupts[].id).
func (a *Agent) pendingInterrupts(ctx context.Context, req *agui.Request, tid string) ([]string, error) {
	resp, err := a.call(ctx, req, http.MethodGet, "/threads/"+tid+"/state", nil, nil, "thread state")
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	var st struct {
		Tasks []struct {
			Interrupts []struct {
				ID string `json:"id"`
			} `json:"interrupts"`
		} `json:"tasks"`
	}
	if err := json.NewDecoder(io.LimitReader(resp.Body, maxStateBytes)).Decode(&st); err != nil {
		return nil, err
	}
	var ids []string
	for _, t := range st.Tasks {
		for _, it := range t.Interrupts {
			if it.ID != "" {
				ids = append(ids, it.ID)
			}
		}
	}
	return ids, nil
}

// runStatus is the status of a run: pending, running, success, error,
// timeout or interrupted.
func (a *Agent) runStatus(ctx context.Context, req *agui.Request, tid, rid string) (string, error) {
	resp, err := a.call(ctx, req, http.MethodGet, "/threads/"+tid+"/runs/"+rid, nil, nil, "run status")
	if err != nil {
		return "", err
	}
	defer resp.Body.Close()
	var r struct {
		Status string `json:"status"`
	}
	if err := json.NewDecoder(io.LimitReader(resp.Body, 1<<20)).Decode(&r); err != nil {
		return "", fmt.Errorf("LangGraph run status: %w", err)
	}
	return r.Status, nil
}

// refreshMessages sets the messages the run ends with to the thread's
// (GET /threads/{id}/state), when the server gives them.
func (a *Agent) refreshMessages(ctx context.Context, req *agui.Request, tid string, t *translator) {
	cctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	resp, err := a.do(cctx, req, http.MethodGet, "/threads/"+tid+"/state", nil, nil)
	if err != nil {
		return
	}
	defer resp.Body.Close()
	var st struct {
		Values struct {
			Messages json.RawMessage `json:"messages"`
		} `json:"values"`
	}
	if resp.StatusCode == http.StatusOK && json.NewDecoder(io.LimitReader(resp.Body, maxStateBytes)).Decode(&st) == nil && len(st.Values.Messages) > 0 {
		t.lastMessages = st.Values.Messages
	}
}

// ThreadMessages is the conversation of the LangGraph thread the AG-UI
// thread maps to (for principal): its state's messages as
// AG-UI messages, so a thread the adapter's run log no longer holds can be
// shown again. nil when the LangGraph server has no such thread.
func (a *Agent) ThreadMessages(ctx context.Context, principal, threadID string) ([]agui.Message, error) {
	var req *agui.Request // no run: no forwarded headers
	tid := ThreadID(agui.ScopedThreadID(principal, threadID))
	resp, err := a.do(ctx, req, http.MethodGet, "/threads/"+tid+"/state", nil, nil)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	if resp.StatusCode == http.StatusNotFound {
		return nil, nil
	}
	if resp.StatusCode/100 != 2 {
		return nil, aguihttp.StatusError(resp, "LangGraph thread state", a.ExposeErrors)
	}
	var st struct {
		Values struct {
			Messages json.RawMessage `json:"messages"`
		} `json:"values"`
	}
	if err := json.NewDecoder(io.LimitReader(resp.Body, maxStateBytes)).Decode(&st); err != nil {
		return nil, fmt.Errorf("LangGraph thread state: %w", err)
	}
	if len(st.Values.Messages) == 0 {
		return nil, nil
	}
	return aguiMessages(st.Values.Messages), nil
}

// quietReader calls quiet before every read of r: the translator has
// translated every whole frame it read, and the reader may wait for the
// next (a checkpoint's place, agui.Handover.Checkpoint).
type quietReader struct {
	r     io.Reader
	quiet func()
}

func (q *quietReader) Read(p []byte) (int, error) {
	q.quiet()
	return q.r.Read(p)
}
