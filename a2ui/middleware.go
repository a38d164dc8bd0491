package a2ui

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"hash/maphash"
	"iter"
	"log/slog"
	"maps"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/genui-adapter/genui-adapter/agui"
	"github.com/genui-adapter/genui-adapter/schemas"
)

// ActivityType is the AG-UI activity type of A2UI surfaces.
const ActivityType = "a2ui-surface"

// OperationsKey is the activity content key holding the A2UI messages.
const OperationsKey = "a2ui_operations"

// SchemaContextDescription is the description of the RunAgentInput context
// entry in which CopilotKit (and @ag-ui/a2ui-middleware) send the catalog
// the frontend registered, as JSON {catalogId, components}.
const SchemaContextDescription = "A2UI Component Schema — available components for generating UI surfaces. Use these component names and properties when creating A2UI operations."

// LogEventTool is the synthetic tool the official middleware uses to show
// the agent a user action.
const LogEventTool = "log_a2ui_event"

// Action modes: how a user action reaches the agent.
const (
	ActionAsToolCall    = "tool"         // log_a2ui_event assistant call + tool message (default)
	ActionAsUserMessage = "user_message" // one user message, for backends that reject undeclared tools
)

// Config configures the middleware for one agent. The zero value renders
// every structured tool result with the defaults.
type Config struct {
	// Disabled turns the middleware into a pass-through.
	Disabled bool
	// Enabled, when set, decides per run whether surfaces are produced
	// (user actions are handled either way).
	Enabled func(in *agui.RunAgentInput) bool
	// Tools lists the tools whose results become surfaces; empty or "*"
	// means all.
	Tools []string
	// DenyTools lists tools whose results never become surfaces.
	DenyTools []string
	// MaxRows caps generated tables (default 200).
	MaxRows int
	// CatalogID is used when the frontend registered none (default: the
	// official basic catalog id).
	CatalogID string
	// Version is the envelope version emitted: "v0.9" (default) or
	// "v0.9.1".
	Version string
	// ActionMode is ActionAsToolCall (default) or ActionAsUserMessage.
	ActionMode string
	// RowAction is the action a generated table row's "Select" button
	// sends (default "select_row"; "none" for no buttons).
	RowAction string
	// Logger receives one warning per rejected surface or action; nil
	// discards.
	Logger *slog.Logger
	// ServerAction, if set, reports a user action that another layer
	// answers (an action on an MCP server's surface): it is left alone.
	ServerAction func(in *agui.RunAgentInput) bool
}

func (c Config) allows(tool string) bool {
	if slices.Contains(c.DenyTools, tool) {
		return false
	}
	return len(c.Tools) == 0 || slices.Contains(c.Tools, "*") || slices.Contains(c.Tools, tool)
}

func newID() string {
	var b [12]byte
	_, _ = rand.Read(b[:])
	return hex.EncodeToString(b[:])
}

// Middleware turns structured tool results into validated A2UI surfaces,
// validates A2UI the agent produced itself, and turns
// forwardedProps.a2uiAction into messages the agent understands. v checks
// everything that leaves; generated surfaces are checked strictly
// (orphans, bindings). A run stopped for a hand-over keeps its state
// (HandoverPart) for the rejoining run.
func Middleware(v *Validator, cfg Config) agui.Middleware {
	log := cfg.Logger
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	if cfg.Version == "" {
		cfg.Version = DefaultVersion
	}
	switch cfg.RowAction {
	case "":
		cfg.RowAction = "select_row"
	case "none":
		cfg.RowAction = ""
	}
	return func(next agui.Agent) agui.Agent {
		if cfg.Disabled {
			return next
		}
		return agui.AgentFunc(func(ctx context.Context, req *agui.Request) iter.Seq2[agui.Event, error] {
			in := req.Input
			return func(yield func(agui.Event, error) bool) {
				req := req // the input may change below
				if cfg.ServerAction != nil && cfg.ServerAction(in) {
					agui.PassThrough(next.Run(ctx, req), yield, func(ev agui.Event) bool {
						if d, ok := ev.(*agui.ActivityDelta); ok && d.ActivityType == ActivityType && !appendsValid(v, d.Patch) {
							log.Warn("a2ui: a surface update failed validation; dropped")
							ev = &agui.RunError{Code: "invalid_a2ui", Message: "the surface update failed A2UI validation"}
						}
						return yield(ev, nil)
					})
					return
				}
				in, err := applyAction(v, cfg, in)
				if in != req.Input && err == nil {
					req = req.WithInput(in)
				}
				if err != nil {
					log.Warn("a2ui: refused user action", "err", err)
					_ = yield(&agui.RunStarted{ThreadID: in.ThreadID, RunID: in.RunID}, nil) &&
						yield(&agui.RunError{Message: err.Error(), Code: "invalid_a2ui_action"}, nil)
					return
				}
				if cfg.Enabled != nil && !cfg.Enabled(in) {
					agui.PassThrough(next.Run(ctx, req), yield, nil)
					return
				}
				catalog := catalogFor(in, cfg)
				names := map[string]string{}
				shown := map[string]bool{} // surface activities already sent
				// The content of the last surface activity made here, by
				// message id, until the upstream sends a snapshot or a delta
				// of that message: an upstream that is another adapter made
				// the same one, and sends it after; that copy is not sent
				// again, and a later snapshot with the same content is.
				made := map[string]uint64{}
				seed := maphash.MakeSeed()
				sent := func(snap agui.Event) bool {
					if s, ok := snap.(*agui.ActivitySnapshot); ok && s.ActivityType == ActivityType {
						made[s.MessageID] = maphash.Bytes(seed, s.Content)
					}
					return yield(snap, nil)
				}
				au := &authoring{tracer: req.Tracer, v: v, cfg: cfg, catalog: catalog, calls: map[string]*renderCall{}, bySurface: map[string]string{}}
				br := &bridge{max: v.opts.MaxHeldMessages, held: map[string][]json.RawMessage{}}
				h := req.Handover
				if h.Rejoining() {
					var st handoverState
					if err := h.Restore(HandoverPart, &st); err != nil {
						yield(nil, err)
						return
					}
					st.restore(names, shown, au, br)
				}
				defer func() {
					if h.Stopped() {
						h.KeepPartOf(HandoverPart, keepState(names, shown, au, br))
					}
				}()
				defer h.Snapshot(HandoverPart, func() any { return keepState(names, shown, au, br) })()
				for ev, err := range br.run(next.Run(ctx, req), h) {
					if err != nil {
						if !au.fail(ctx, yield, err.Error()) {
							return
						}
						yield(nil, err)
						return
					}
					switch e := ev.(type) {
					case *agui.ToolCallStart:
						names[e.ToolCallID] = e.ToolCallName
						au.start(e)
					case *agui.ToolCallArgs:
						if !yield(ev, nil) {
							return
						}
						if snap := au.progress(ctx, e); snap != nil && !sent(snap) {
							return
						}
						continue
					case *agui.ActivitySnapshot:
						// The upstream's copy of a surface made here comes
						// once, right after it: any snapshot of that message
						// after this one is the upstream's own update.
						h, ok := made[e.MessageID]
						delete(made, e.MessageID)
						if e.ActivityType == ActivityType {
							e.Content = checkOperations(ctx, req.Tracer, v, e.Content, catalog, cfg.Version, log)
							shown[e.MessageID] = true
							if ok && h == maphash.Bytes(seed, e.Content) {
								continue // the surface made here already, the same
							}
						}
					case *agui.ActivityDelta:
						// The client's surface is no longer the one made
						// here: a snapshot of it that follows is an update.
						delete(made, e.MessageID)
					case *agui.ToolCallResult:
						if !yield(ev, nil) {
							return
						}
						if snap, ours := au.result(ctx, e); ours {
							if snap != nil && !sent(snap) {
								return
							}
							continue
						}
						if shown["a2ui-surface-"+e.ToolCallID] {
							continue // the call has its surface (an MCP server's): not replaced
						}
						if snap := surfaceFor(ctx, req.Tracer, v, cfg, e, names[e.ToolCallID], catalog, log); snap != nil {
							if !sent(snap) {
								return
							}
						}
						continue
					case *agui.RunError:
						if !au.fail(ctx, yield, e.Message) {
							return
						}
					case *agui.RunFinished:
						if !au.fail(ctx, yield, "the agent ended without a valid surface") {
							return
						}
					}
					if !yield(ev, nil) {
						return
					}
				}
			}
		})
	}
}

// HandoverPart is the name of Middleware's hand-over part: the tool
// names of the run's calls, the surfaces sent, the render calls followed
// (their arguments so far, activity, progress) and the A2A bridge's held
// surfaces. A run stopped for a hand-over keeps it; the rejoining run
// takes it back.
const HandoverPart = "a2ui"

// handoverState is Middleware's state carried by a hand-over.
type handoverState struct {
	Names     map[string]string            `json:"names,omitempty"`
	Shown     []string                     `json:"shown,omitempty"`
	Calls     map[string]renderCallState   `json:"calls,omitempty"`
	BySurface map[string]string            `json:"bySurface,omitempty"`
	Held      map[string][]json.RawMessage `json:"held,omitempty"`
	Pending   string                       `json:"pending,omitempty"`
}

type renderCallState struct {
	Args    string `json:"args,omitempty"`
	MsgID   string `json:"msgId,omitempty"`
	Shown   int    `json:"shown,omitempty"`
	Settled bool   `json:"settled,omitempty"`
}

func keepState(names map[string]string, shown map[string]bool, au *authoring, br *bridge) handoverState {
	st := handoverState{Names: names, Shown: slices.Sorted(maps.Keys(shown)), BySurface: au.bySurface, Held: br.held, Pending: br.pending}
	if len(au.calls) > 0 {
		st.Calls = make(map[string]renderCallState, len(au.calls))
		for id, c := range au.calls {
			st.Calls[id] = renderCallState{Args: c.args.String(), MsgID: c.msgID, Shown: c.shown, Settled: c.settled}
		}
	}
	return st
}

func (st *handoverState) restore(names map[string]string, shown map[string]bool, au *authoring, br *bridge) {
	maps.Copy(names, st.Names)
	for _, id := range st.Shown {
		shown[id] = true
	}
	maps.Copy(au.bySurface, st.BySurface)
	for id, cs := range st.Calls {
		c := &renderCall{msgID: cs.MsgID, shown: cs.Shown, settled: cs.Settled}
		c.args.WriteString(cs.Args)
		au.calls[id] = c
	}
	maps.Copy(br.held, st.Held)
	br.pending = st.Pending
}

// catalogFor picks the catalog id: the one the frontend registered, then
// config, then the official basic catalog.
// CatalogOf is the catalog id a run's frontend registered (the context
// entry CopilotKit and @ag-ui/a2ui-middleware send), else fallback, else
// the basic catalog.
func CatalogOf(in *agui.RunAgentInput, fallback string) string {
	return catalogFor(in, Config{CatalogID: fallback})
}

func catalogFor(in *agui.RunAgentInput, cfg Config) string {
	for _, c := range in.Context {
		if c.Description != SchemaContextDescription {
			continue
		}
		var s struct {
			CatalogID string `json:"catalogId"`
		}
		if json.Unmarshal([]byte(c.Value), &s) == nil && s.CatalogID != "" {
			return s.CatalogID
		}
	}
	if cfg.CatalogID != "" {
		return cfg.CatalogID
	}
	return schemas.BasicCatalogID
}

// parseOperations finds {"a2ui_operations":[...]} in a tool result, also
// double-encoded as a JSON string.
func parseOperations(content string) ([]json.RawMessage, bool) {
	var probe struct {
		Ops *[]json.RawMessage `json:"a2ui_operations"`
	}
	b := []byte(strings.TrimSpace(content))
	if len(b) > 0 && b[0] == '"' {
		var inner string
		if json.Unmarshal(b, &inner) != nil {
			return nil, false
		}
		b = []byte(strings.TrimSpace(inner))
	}
	if len(b) == 0 || b[0] != '{' || json.Unmarshal(b, &probe) != nil || probe.Ops == nil {
		return nil, false
	}
	return *probe.Ops, true
}

// failed is the lifecycle content CopilotKit renders for a surface that
// could not be painted.
func failed(msg string, errs []Error) agui.JSON {
	b, _ := json.Marshal(map[string]any{"status": "failed", "error": msg, "errors": errs})
	return agui.JSON(b)
}

func operationsContent(ops []json.RawMessage) agui.JSON {
	b, _ := json.Marshal(map[string]any{OperationsKey: ops})
	return agui.JSON(b)
}

// checkOperations validates the operations of an activity the agent
// produced (v0.8 ones converted, see upgradeOps); invalid content becomes
// the failed lifecycle state.
func checkOperations(ctx context.Context, t agui.Tracer, v *Validator, content agui.JSON, catalog, version string, log *slog.Logger) agui.JSON {
	var c map[string]json.RawMessage
	if json.Unmarshal(content, &c) != nil {
		return content
	}
	raw, ok := c[OperationsKey]
	if !ok {
		return content // a lifecycle state (building, retrying...)
	}
	var ops []json.RawMessage
	if json.Unmarshal(raw, &ops) != nil {
		return failed("a2ui_operations is not an array", nil)
	}
	if up, ok := upgradeOps(ctx, t, v, ops, catalog, version, "agent", log); ok {
		return up
	}
	retargeted := retarget(ops, catalog)
	if errs := validateOps(ctx, t, v, ops, catalog, "agent"); len(errs) > 0 {
		log.Warn("a2ui: agent surface rejected", "errors", errs)
		return failed(fmt.Sprintf("the agent's A2UI failed validation (%d errors)", len(errs)), errs)
	}
	if retargeted {
		c[OperationsKey], _ = json.Marshal(ops)
		out, _ := json.Marshal(c)
		return agui.JSON(out)
	}
	return content
}

// IssuesKey is the activity content key listing, beside a surface's
// operations, the messages left out of it and what a conversion from
// v0.8 could not express (Error objects with rule and index).
const IssuesKey = "a2ui_issues"

// upgradeOps shows a surface whose operations are not all v0.9/v0.9.1:
// v0.8 ones are converted (Validator.Upgrade), a message of an unknown
// version or of a second version on its surface is left out, and the
// rest is validated as usual. ok is false when every operation is
// v0.9/v0.9.1, for the caller's usual path. The content lists the issues
// under IssuesKey; when nothing is left, or what is left fails
// validation, it is the failed state with every issue and error.
func upgradeOps(ctx context.Context, t agui.Tracer, v *Validator, ops []json.RawMessage, catalog, version, source string, log *slog.Logger) (agui.JSON, bool) {
	u := v.Upgrade(ops, version)
	if len(u.Issues) == 0 && !slices.Contains(u.Versions, schemas.V08) && !slices.Contains(u.Versions, schemas.V10) {
		return nil, false
	}
	if len(u.Messages) == 0 {
		log.Warn("a2ui: surface refused", "source", source, "issues", u.Issues)
		return failed(fmt.Sprintf("no message of this surface can be shown (%d issues)", len(u.Issues)), u.Issues), true
	}
	retarget(u.Messages, catalog)
	errs := validateOps(ctx, t, v, u.Messages, catalog, source)
	for i := range errs {
		if errs[i].Index >= 0 && errs[i].Index < len(u.Sources) {
			errs[i].Index = u.Sources[errs[i].Index] // the input message's
		}
	}
	if len(errs) > 0 {
		log.Warn("a2ui: surface rejected", "source", source, "versions", u.Versions, "errors", errs, "issues", u.Issues)
		return failed(fmt.Sprintf("the A2UI (%s) failed validation after conversion (%d errors)", strings.Join(u.Versions, ", "), len(errs)), append(u.Issues, errs...)), true
	}
	if len(u.Issues) > 0 {
		log.Warn("a2ui: surface shown without some of its messages or parts", "source", source, "issues", u.Issues)
	}
	b, _ := json.Marshal(map[string]any{OperationsKey: u.Messages, IssuesKey: u.Issues})
	if len(u.Issues) == 0 {
		b, _ = json.Marshal(map[string]any{OperationsKey: u.Messages})
	}
	return agui.JSON(b), true
}

// retarget names the frontend's catalog in the createSurface messages of
// ops that name the basic catalog (an A2A agent's or an MCP server's,
// which cannot know it): a frontend such as CopilotKit registers its own
// catalog, which includes the basic components, and renders no other.
func retarget(ops []json.RawMessage, catalog string) bool {
	if catalog == "" || catalog == schemas.BasicCatalogID {
		return false
	}
	changed := false
	for i, op := range ops {
		if !bytes.Contains(op, []byte(schemas.BasicCatalogID)) {
			continue
		}
		var m map[string]json.RawMessage
		var cs map[string]any
		if json.Unmarshal(op, &m) != nil || json.Unmarshal(m["createSurface"], &cs) != nil || cs["catalogId"] != schemas.BasicCatalogID {
			continue
		}
		cs["catalogId"] = catalog
		m["createSurface"], _ = json.Marshal(cs)
		ops[i], _ = json.Marshal(m)
		changed = true
	}
	return changed
}

// validateOps validates one surface's operations as a stream, in a span
// "a2ui.validate" (source: agent, tool or generated).
func validateOps(ctx context.Context, t agui.Tracer, v *Validator, ops []json.RawMessage, catalog, source string) (errs []Error) {
	_, end := t.StartSpan(ctx, "a2ui.validate", "a2ui.source", source, "a2ui.catalog", catalog, "a2ui.messages", strconv.Itoa(len(ops)))
	defer func() {
		if len(errs) > 0 {
			end(fmt.Errorf("%d validation errors, first %s at %s", len(errs), errs[0].Rule, errs[0].Path))
			return
		}
		end(nil)
	}()
	s := v.NewStream()
	s.AllowCatalog(catalog)
	for _, op := range ops {
		errs = append(errs, s.Validate(op)...)
	}
	return append(errs, s.Finish()...)
}

// surfaceFor returns the activity snapshot for a tool result, or nil when
// the result is not structured or the tool is not rendered.
func surfaceFor(ctx context.Context, t agui.Tracer, v *Validator, cfg Config, e *agui.ToolCallResult, tool, catalog string, log *slog.Logger) agui.Event {
	msgID := "a2ui-surface-" + e.ToolCallID
	if ops, ok := parseOperations(e.Content); ok {
		if up, ok := upgradeOps(ctx, t, v, ops, catalog, cfg.Version, "tool", log); ok {
			return &agui.ActivitySnapshot{MessageID: msgID, ActivityType: ActivityType, Content: up, Replace: ptr(true)}
		}
		content := operationsContent(ops)
		if errs := validateOps(ctx, t, v, ops, catalog, "tool"); len(errs) > 0 {
			log.Warn("a2ui: surface from tool rejected", "tool", tool, "errors", errs)
			content = failed(fmt.Sprintf("the A2UI from tool %q failed validation (%d errors)", tool, len(errs)), errs)
		}
		return &agui.ActivitySnapshot{MessageID: msgID, ActivityType: ActivityType, Content: content, Replace: ptr(true)}
	}
	if tool != "" && !cfg.allows(tool) {
		return nil
	}
	b := bytes.TrimSpace([]byte(e.Content))
	if len(b) == 0 || (b[0] != '{' && b[0] != '[') || !json.Valid(b) {
		return nil
	}
	_, end := t.StartSpan(ctx, "a2ui.generate", "a2ui.tool", tool, "a2ui.catalog", catalog, "a2ui.toolCallId", e.ToolCallID)
	msgs, err := Generate(b, GenerateOptions{SurfaceID: "s-" + e.ToolCallID, Title: Humanize(tool), CatalogID: catalog, Version: cfg.Version, MaxRows: cfg.MaxRows, RowAction: cfg.RowAction, Source: tool})
	end(err)
	if err != nil {
		return nil
	}
	ops := make([]json.RawMessage, len(msgs))
	for i, m := range msgs {
		ops[i], _ = json.Marshal(m)
	}
	content := operationsContent(ops)
	strict := generatedValidator(v)
	if errs := validateOps(ctx, t, strict, ops, catalog, "generated"); len(errs) > 0 {
		// A generator bug: never send it.
		log.Warn("a2ui: generated surface for tool rejected", "tool", tool, "errors", errs)
		content = failed("could not render this result", errs)
	}
	return &agui.ActivitySnapshot{MessageID: msgID, ActivityType: ActivityType, Content: content, Replace: ptr(true)}
}

func ptr[T any](v T) *T { return &v }

// generatedValidator returns v's strict twin (orphans and bindings
// checked), compiled once per validator.
func generatedValidator(v *Validator) *Validator {
	v.strictOnce.Do(func() {
		s := *v
		s.opts.Strict, s.opts.CheckBindings = true, true
		s.strictOnce = new(syncOnce)
		v.strict = &s
	})
	return v.strict
}

// userAction is what CopilotKit sends in forwardedProps.a2uiAction.
type userAction struct {
	Name              string          `json:"name"`
	SurfaceID         string          `json:"surfaceId"`
	SourceComponentID string          `json:"sourceComponentId"`
	Context           json.RawMessage `json:"context"`
	Timestamp         string          `json:"timestamp"`
}

// applyAction validates forwardedProps.a2uiAction.userAction and appends
// what the agent understands. forwardedProps stays as it is, as the
// official middleware leaves it.
func applyAction(v *Validator, cfg Config, in *agui.RunAgentInput) (*agui.RunAgentInput, error) {
	raw := in.ForwardedProp("a2uiAction")
	if raw == nil {
		return in, nil
	}
	var wrapper struct {
		UserAction json.RawMessage `json:"userAction"`
	}
	if json.Unmarshal(raw, &wrapper) != nil || len(wrapper.UserAction) == 0 || string(wrapper.UserAction) == "null" {
		return in, fmt.Errorf("forwardedProps.a2uiAction must be {\"userAction\": {...}}")
	}
	var ua userAction
	if err := json.Unmarshal(wrapper.UserAction, &ua); err != nil {
		return in, fmt.Errorf("forwardedProps.a2uiAction.userAction: %v", err)
	}
	if ua.Name == "" || ua.SurfaceID == "" {
		return in, fmt.Errorf("forwardedProps.a2uiAction.userAction needs a name and a surfaceId")
	}
	// Check it as the native client message, filling what CopilotKit may
	// leave out.
	native := ua
	if native.Timestamp == "" {
		native.Timestamp = time.Now().UTC().Format(time.RFC3339Nano)
	}
	if len(native.Context) == 0 || string(native.Context) == "null" {
		native.Context = json.RawMessage("{}")
	}
	if native.SourceComponentID == "" {
		native.SourceComponentID = "unknown"
	}
	msg, _ := json.Marshal(map[string]any{"version": DefaultVersion, "action": native})
	if errs := v.ValidateClient(msg, nil); len(errs) > 0 {
		return in, fmt.Errorf("forwardedProps.a2uiAction.userAction is not a valid A2UI action: %s at %s: %s", errs[0].Rule, errs[0].Path, errs[0].Message)
	}

	name, surface := ua.Name, ua.SurfaceID
	ctxStr := "{}"
	if len(ua.Context) > 0 && string(ua.Context) != "null" {
		var b bytes.Buffer
		if json.Compact(&b, ua.Context) == nil {
			ctxStr = b.String()
		}
	}
	text := fmt.Sprintf("User performed action \"%s\" on surface \"%s\"", name, surface)
	if ua.SourceComponentID != "" {
		text += " (component: " + ua.SourceComponentID + ")"
	}
	text += ". Context: " + ctxStr

	out := in.Clone()
	if cfg.ActionMode == ActionAsUserMessage {
		out.Messages = append(out.Messages, agui.Message{ID: newID(), Role: agui.RoleUser, Content: agui.Text(text)})
		return out, nil
	}
	var args bytes.Buffer
	_ = json.Compact(&args, wrapper.UserAction)
	callID := newID()
	out.Messages = append(out.Messages,
		agui.Message{ID: newID(), Role: agui.RoleAssistant, Content: agui.Text(""), ToolCalls: []agui.ToolCall{{
			ID: callID, Type: "function", Function: agui.FunctionCall{Name: LogEventTool, Arguments: args.String()},
		}}},
		agui.Message{ID: newID(), Role: agui.RoleTool, ToolCallID: callID, Content: agui.Text(text)},
	)
	return out, nil
}

// authoring follows the render tool calls of a run (a model authoring
// surfaces itself): the surface grows while the call's arguments stream,
// every attempt at one surfaceId shows in one activity message, a failed
// attempt shows as retrying until the next one, and a run that ends with
// no valid attempt shows the failure.
type authoring struct {
	tracer    agui.Tracer
	v         *Validator
	cfg       Config
	catalog   string
	calls     map[string]*renderCall // by tool call id
	bySurface map[string]string      // surfaceId -> activity message id
}

type renderCall struct {
	args    strings.Builder
	msgID   string
	shown   int // components shown so far
	settled bool
}

// maxRenderArgs bounds the arguments followed for progress.
const maxRenderArgs = 1 << 20

func isRenderTool(name string) bool {
	return name == RenderToolName || strings.HasSuffix(name, "_"+RenderToolName)
}

func (a *authoring) start(e *agui.ToolCallStart) {
	if isRenderTool(e.ToolCallName) && len(a.calls) < 64 {
		a.calls[e.ToolCallID] = &renderCall{}
	}
}

// message names the activity of a call: the one its surfaceId already
// has in this run, else its own.
func (a *authoring) message(id string, c *renderCall, surfaceID string) string {
	if c.msgID != "" {
		return c.msgID
	}
	c.msgID = "a2ui-surface-" + id
	if surfaceID != "" {
		if m, ok := a.bySurface[surfaceID]; ok {
			c.msgID = m
		} else {
			a.bySurface[surfaceID] = c.msgID
		}
	}
	return c.msgID
}

func (a *authoring) snapshot(msgID string, content agui.JSON) agui.Event {
	return &agui.ActivitySnapshot{MessageID: msgID, ActivityType: ActivityType, Content: content, Replace: ptr(true)}
}

// progress shows the complete components of a render call so far, when
// there are more of them than last time (and they make a valid surface).
func (a *authoring) progress(ctx context.Context, e *agui.ToolCallArgs) agui.Event {
	c := a.calls[e.ToolCallID]
	if c == nil || c.args.Len() > maxRenderArgs {
		return nil
	}
	c.args.WriteString(e.Delta)
	if !strings.ContainsAny(e.Delta, "}]") {
		return nil // no component can have closed
	}
	ra, n, ok := PartialRender(c.args.String())
	if !ok || n <= c.shown {
		return nil
	}
	ops := ra.Operations(a.catalog, a.cfg.Version)
	if errs := validateOps(ctx, a.tracer, a.v, ops, a.catalog, "authoring"); len(errs) > 0 {
		return nil // not a surface yet
	}
	c.shown = n
	return a.snapshot(a.message(e.ToolCallID, c, ra.SurfaceID), operationsContent(ops))
}

// result settles a render call: its operations (the render tool returns
// them) become the surface; an error shows as retrying.
func (a *authoring) result(ctx context.Context, e *agui.ToolCallResult) (agui.Event, bool) {
	c := a.calls[e.ToolCallID]
	if c == nil {
		return nil, false
	}
	var surface struct {
		SurfaceID string `json:"surfaceId"`
	}
	_ = json.Unmarshal([]byte(c.args.String()), &surface)
	msgID := a.message(e.ToolCallID, c, surface.SurfaceID)
	c.settled = true
	if ops, ok := parseOperations(e.Content); ok {
		if errs := validateOps(ctx, a.tracer, a.v, ops, a.catalog, "authored"); len(errs) > 0 {
			return a.snapshot(msgID, failed("the authored surface failed validation", errs)), true
		}
		for _, o := range a.calls { // an earlier failed attempt is superseded
			if o.msgID == msgID {
				o.settled = true
				o.shown = -1
			}
		}
		c.shown = -1 // rendered
		return a.snapshot(msgID, operationsContent(ops)), true
	}
	b, _ := json.Marshal(map[string]any{"status": "retrying", "error": firstLine(e.Content)})
	return a.snapshot(msgID, agui.JSON(b)), true
}

// fail marks the surfaces still waiting for a valid attempt as failed
// when the run ends in an error.
func (a *authoring) fail(ctx context.Context, yield func(agui.Event, error) bool, why string) bool {
	done := map[string]bool{}
	for _, c := range a.calls {
		if c.msgID == "" || c.shown < 0 || done[c.msgID] {
			continue
		}
		done[c.msgID] = true
		if !yield(a.snapshot(c.msgID, failed("could not render this surface: "+why, nil)), nil) {
			return false
		}
	}
	return true
}

func firstLine(s string) string {
	s, _, _ = strings.Cut(strings.TrimSpace(s), "\n")
	if len(s) > 300 {
		s = s[:300] + "…"
	}
	return s
}

// appendsValid checks the A2UI messages a surface delta appends (each
// against the message schema: the surface they update is the client's).
func appendsValid(v *Validator, patch agui.JSON) bool {
	var ops []struct {
		Op    string          `json:"op"`
		Path  string          `json:"path"`
		Value json.RawMessage `json:"value"`
	}
	if json.Unmarshal(patch, &ops) != nil {
		return false
	}
	for _, o := range ops {
		if o.Op != "add" || o.Path != "/"+OperationsKey+"/-" || len(v.SchemaOnly(o.Value)) > 0 {
			return false
		}
	}
	return true
}
