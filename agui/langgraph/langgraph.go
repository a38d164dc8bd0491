// Package langgraph is an agui.Agent for the LangGraph Agent Server API
// (`langgraph dev`, LangGraph Platform / LangSmith Deployment): it runs a
// graph on a thread with POST /threads/{id}/runs/stream and translates the
// stream (messages-tuple, updates, values, custom) into AG-UI events, the
// way @ag-ui/langgraph maps them, with no Python shim in between.
//
// The AG-UI threadId maps to a LangGraph thread deterministically (a UUID
// derived from it, created on first use), so the mapping needs no storage
// and survives restarts. A stream that drops mid-run is resumed with
// GET /threads/{t}/runs/{r}/stream and Last-Event-ID (bounded retries); a
// run whose client goes away is cancelled upstream.
package langgraph

import (
	"context"
	"crypto/sha1"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"iter"
	"maps"
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/genui-adapter/genui-adapter/agui"
	"github.com/genui-adapter/genui-adapter/agui/origin"
)

// Agent runs one graph (assistant) of a LangGraph server.
type Agent struct {
	// URL is the server's base URL, e.g. http://127.0.0.1:2024.
	URL string
	// Graph is the graph id or assistant id.
	Graph string
	// APIKey, when set, is sent as x-api-key.
	APIKey string
	// AssistantConfig is merged into every run's config.
	AssistantConfig map[string]any
	// Headers are sent with every request (after forwarded ones, so they
	// win).
	Headers map[string]string
	// ForwardHeaders lists inbound request headers (case-insensitive)
	// copied from the headers stored in ctx by agui.WithRequestHeaders.
	ForwardHeaders []string
	// ConnectTimeout bounds the wait for each response's headers (default
	// 30 s).
	ConnectTimeout time.Duration
	// IdleTimeout aborts a response body that sends nothing for this long
	// (default 5 min; a run stream is then resumed); negative disables it.
	IdleTimeout time.Duration
	// Client sends requests (default: no overall timeout, redirects only
	// within the server's origin, so the API key never reaches another).
	Client *http.Client
	// Origins is where redirects may lead (agui.Upstream.Origins); nil:
	// within URL's origin only.
	Origins *origin.Policy
	// ExposeErrors quotes the server's error answers in RUN_ERROR
	// (agui.StatusError), and its error events' text; off, the client
	// sees only their status or a fixed text, and the log the rest.
	ExposeErrors bool
	// MaxReconnects bounds stream resumptions (default 5).
	MaxReconnects int
	// MaxEventSize caps one upstream event (default agui.DefaultMaxEventSize).
	MaxEventSize int
	// ClientConfigKeys lists the keys a client may set in the run's
	// configurable and context (forwardedProps.config.configurable,
	// forwardedProps.context); others are dropped, so a browser cannot
	// override what the deployment relies on. Default: none.
	ClientConfigKeys []string
	// NoMessagesSnapshot leaves out the MESSAGES_SNAPSHOT sent at the end
	// of a run (the official adapter sends one; CopilotKit reconciles
	// message ids with it).
	NoMessagesSnapshot bool
	// NoSubgraphs does not ask for subgraph streaming.
	NoSubgraphs bool
	// CopilotKitHelpers adds the "events" stream mode, which carries the
	// custom events of @copilotkit/sdk-js and the copilotkit Python
	// package (emit a message, a tool call or state from inside a node;
	// exit). That mode repeats every node's input and output, so it is
	// off unless asked for.
	CopilotKitHelpers bool

	schemaMu   sync.Mutex
	schemaAt   time.Time       // when the schema was last asked for
	schemaKeys map[string]bool // nil: every key
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
// timeouts (agui.Upstream's rules).
func (a *Agent) do(ctx context.Context, method, path string, body any, hdr map[string]string) (*http.Response, error) {
	u := agui.Upstream{Client: a.Client, Origins: a.Origins, Headers: a.Headers, ForwardHeaders: a.ForwardHeaders, ConnectTimeout: a.ConnectTimeout, IdleTimeout: a.IdleTimeout}
	if a.APIKey != "" {
		h := make(map[string]string, len(hdr)+1)
		maps.Copy(h, hdr)
		h["x-api-key"] = a.APIKey
		hdr = h
	}
	return u.Do(ctx, method, strings.TrimRight(a.URL, "/")+path, body, hdr)
}

// call is do for requests whose failure ends the run: an unreachable
// server or a non-2xx answer comes back as the *agui.RunErr to report.
func (a *Agent) call(ctx context.Context, method, path string, body any, hdr map[string]string, what string) (*http.Response, error) {
	resp, err := a.do(ctx, method, path, body, hdr)
	if err != nil {
		if re := (*agui.RunErr)(nil); errors.As(err, &re) {
			return nil, re
		}
		msg := "cannot reach the LangGraph server"
		if errors.Is(err, agui.ErrConnectTimeout) {
			msg = "the LangGraph server sent " + err.Error()
		}
		return nil, &agui.RunErr{Code: agui.CodeUpstreamUnreachable, Message: msg, Err: err}
	}
	if resp.StatusCode/100 != 2 {
		defer resp.Body.Close()
		return nil, agui.StatusError(resp, "LangGraph "+what, a.ExposeErrors)
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
	if a.CopilotKitHelpers {
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
	if !a.NoSubgraphs && string(in.ForwardedProp("streamSubgraphs")) != "false" {
		body["stream_subgraphs"] = true
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
		var payload any
		if len(in.Resume) == 1 {
			_ = json.Unmarshal(in.Resume[0].Payload, &payload)
		} else {
			m := map[string]any{}
			for _, r := range in.Resume {
				var p any
				_ = json.Unmarshal(r.Payload, &p)
				m[r.InterruptID] = p
			}
			payload = m
		}
		command["resume"] = payload
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

// Run implements agui.Agent.
func (a *Agent) Run(ctx context.Context, in *agui.RunAgentInput) iter.Seq2[agui.Event, error] {
	return func(yield func(agui.Event, error) bool) {
		// Two principals' threads of the same id are two LangGraph threads.
		principal := agui.Principal(ctx)
		tid := ThreadID(agui.ScopedThreadID(principal, in.ThreadID))
		meta := map[string]any{"agui_thread_id": in.ThreadID}
		if principal != "" {
			meta["genui_principal"] = principal
		}
		resp, err := a.call(ctx, http.MethodPost, "/threads", map[string]any{"thread_id": tid, "if_exists": "do_nothing", "metadata": meta}, nil, "create thread")
		if err != nil {
			if ctx.Err() == nil {
				yield(nil, err)
			}
			return
		}
		resp.Body.Close()

		t := &translator{in: in, yield: yield, snapshot: !a.NoMessagesSnapshot, keys: a.outputKeys(ctx), expose: a.ExposeErrors}
		if !t.out(&agui.RunStarted{ThreadID: in.ThreadID, RunID: in.RunID}) {
			return
		}
		body := a.runBody(in, principal)
		if _, cmd := body["command"]; !cmd && body["checkpoint_id"] == nil {
			// A state or history the server cannot give means no fork: the
			// run appends, as it would without an edit.
			if cp, _ := a.forkPoint(ctx, tid, in); cp != "" {
				body["checkpoint_id"] = cp
			}
		}
		resp, err = a.call(ctx, http.MethodPost, "/threads/"+tid+"/runs/stream", body, map[string]string{"Accept": "text/event-stream"}, "run")
		if err != nil {
			if ctx.Err() == nil {
				yield(nil, err)
			}
			return
		}
		// Cancel the LangGraph run whenever we leave before it ended: the
		// client went away or stopped, or the stream could not be resumed.
		defer func() {
			if t.runID != "" && !t.ended {
				cctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
				defer cancel()
				if r, err := a.do(cctx, http.MethodPost, "/threads/"+tid+"/runs/"+t.runID+"/cancel", nil, nil); err == nil {
					r.Body.Close()
				}
			}
		}()
		maxRe := a.MaxReconnects
		if maxRe == 0 {
			maxRe = 5
		}
		for attempt := 0; ; attempt++ {
			before := t.lastID
			done, err := t.consume(resp.Body, a.MaxEventSize)
			if t.lastID != before {
				attempt = 0 // progress: the retry budget is per silence, not per run
			}
			resp.Body.Close()
			if done || ctx.Err() != nil {
				return
			}
			if err == nil && t.runID != "" {
				// A clean close: the run is over, or the server let go of
				// the stream early. Its status says which.
				switch st, serr := a.runStatus(ctx, tid, t.runID); {
				case serr != nil:
					err = serr
				case st == "success" || st == "interrupted":
					t.finish()
					return
				case st == "error" || st == "timeout":
					t.ended = true
					yield(&agui.RunError{Message: "the LangGraph run ended with status " + st, Code: "langgraph_error"}, nil)
					return
				}
			}
			if attempt >= maxRe || t.runID == "" {
				yield(nil, &agui.RunErr{Code: agui.CodeUpstreamTruncated, Message: fmt.Sprintf("the LangGraph stream broke and could not be resumed after %d attempts", attempt), Err: err})
				return
			}
			select {
			case <-ctx.Done():
				return
			case <-time.After(time.Duration(attempt+1) * 100 * time.Millisecond):
			}
			hdr := map[string]string{"Accept": "text/event-stream"}
			if t.lastID != "" {
				hdr["Last-Event-ID"] = t.lastID
			}
			resp, err = a.do(ctx, http.MethodGet, "/threads/"+tid+"/runs/"+t.runID+"/stream", nil, hdr)
			if err != nil {
				if ctx.Err() != nil {
					return
				}
				resp = &http.Response{Body: io.NopCloser(strings.NewReader(""))}
				continue
			}
			if resp.StatusCode/100 != 2 {
				err := agui.StatusError(resp, "LangGraph resume", a.ExposeErrors)
				resp.Body.Close()
				yield(nil, err)
				return
			}
		}
	}
}

// runStatus is the status of a run: pending, running, success, error,
// timeout or interrupted.
func (a *Agent) runStatus(ctx context.Context, tid, rid string) (string, error) {
	resp, err := a.call(ctx, http.MethodGet, "/threads/"+tid+"/runs/"+rid, nil, nil, "run status")
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
