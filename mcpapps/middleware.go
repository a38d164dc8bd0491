package mcpapps

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"iter"
	"log/slog"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/genui-adapter/genui-adapter/agui"
)

// ActivityType is the AG-UI activity type of MCP Apps cards.
const ActivityType = "mcp-apps"

// ProxiedRequestKey is the forwardedProps key of a card's request.
const ProxiedRequestKey = "__proxiedMCPRequest"

// Config binds MCP servers to one agent.
type Config struct {
	// Servers are the bound server ids, in precedence order for tool
	// names.
	Servers []string
	// MaxToolRounds bounds the follow-up runs one client run may make
	// (default 5).
	MaxToolRounds int
	// ProxyOnly are servers whose cards may reach them (proxied requests)
	// although their tools are not offered to this agent, e.g. the built-in
	// data view behind render "mcp-apps".
	ProxyOnly []string
	// Logger receives one record per proxied-request decision and failed
	// call, with the server id as attribute "server"; nil discards.
	Logger *slog.Logger
	// Caps mints the capabilities of the cards this middleware emits and
	// checks those of proxied requests (nil: a random key per process).
	Caps *Capabilities
	// AcceptPlainServerHash also answers proxied requests that name a
	// server by its plain hash or id without a capability (frontends that
	// cached a server hash). Off by default: without a capability any
	// client that can start a run could call app-only tools.
	AcceptPlainServerHash bool
	// Renders says how a run shows results ("mcp-apps", "a2ui"); nil
	// means both. It decides for the Dual servers, and every server
	// learns it in the caller _meta.
	Renders func(in *agui.RunAgentInput) []string
	// Dual are servers whose results render both ways (the built-in
	// toolkit): their cards are shown only when the run renders
	// "mcp-apps", their A2UI only when it renders "a2ui".
	Dual []string
	// Answers is where a tool call waiting for the user (ask_user, an
	// app that posts mcp-app-response) meets the answer; nil: a private
	// one.
	Answers *Answers
	// AnswerWait bounds how long a run waits for such an answer (default
	// 10 min); then the agent is told there was none.
	AnswerWait time.Duration
	// ViewLogs limits and records what cards' Views log (nil: a private
	// one with the defaults).
	ViewLogs *ViewLogs
	// Downloads bounds what a card's View may download.
	Downloads DownloadOptions
	// Catalog is the A2UI catalog id a run's frontend renders, told to
	// servers in the caller _meta; nil: none.
	Catalog func(in *agui.RunAgentInput) string
	// CardStates keeps each card's last model context for when it is
	// shown again; nil: not kept.
	CardStates CardStates
	// MaxCardStateBytes caps one kept model context, as JSON (default
	// DefaultMaxCardStateBytes); a larger one is refused with -32602.
	MaxCardStateBytes int
	// MaxToolArgumentBytes caps one tool call's arguments (default
	// DefaultMaxToolArgumentBytes); a larger call is not made, its result
	// an error.
	MaxToolArgumentBytes int
	// MaxRoundBytes caps the transcript one round keeps for the follow-up
	// run (default DefaultMaxRoundBytes); what comes past it is left out.
	MaxRoundBytes int
	// ProxiedRequestTimeout bounds one request of a card (default
	// DefaultProxiedRequestTimeout, under the App's 60 s request timeout).
	ProxiedRequestTimeout time.Duration
}

// Defaults of Config.
const (
	DefaultMaxToolArgumentBytes  = 1 << 20
	DefaultMaxRoundBytes         = 8 << 20
	DefaultProxiedRequestTimeout = 55 * time.Second
)

// withDefaults is c with its zero limits set to their defaults.
func (c Config) withDefaults() Config {
	if c.MaxToolArgumentBytes == 0 {
		c.MaxToolArgumentBytes = DefaultMaxToolArgumentBytes
	}
	if c.MaxRoundBytes == 0 {
		c.MaxRoundBytes = DefaultMaxRoundBytes
	}
	if c.ProxiedRequestTimeout == 0 {
		c.ProxiedRequestTimeout = DefaultProxiedRequestTimeout
	}
	return c
}

// DefaultAnswerWait is Config.AnswerWait's default.
const DefaultAnswerWait = 10 * time.Minute

// readyWait bounds how long a run waits for a bound server to connect.
const readyWait = 10 * time.Second

// binding says which server tool an exposed tool name calls.
type binding struct {
	server string
	tool   Tool
}

func newID() string {
	var b [12]byte
	_, _ = rand.Read(b[:])
	return hex.EncodeToString(b[:])
}

// exposedTools decides the names the agent sees. Model-visible tools of
// the bound servers are offered under their own name; a name already taken
// (by a client tool or an earlier server) becomes "<serverId>_<name>", and
// a name still taken after that is not offered. App-only tools never are.
func exposedTools(p *Pool, servers []string, client []agui.Tool) (map[string]binding, []agui.Tool) {
	taken := map[string]bool{}
	for _, t := range client {
		taken[t.Name] = true
	}
	m := map[string]binding{}
	var out []agui.Tool
	for _, id := range servers {
		for _, t := range p.Tools(id) {
			if !t.ModelVisible() {
				continue
			}
			name := t.Name
			if taken[name] {
				name = id + "_" + t.Name
			}
			if taken[name] {
				continue
			}
			taken[name] = true
			m[name] = binding{server: id, tool: t}
			desc := t.Description
			if t.ResourceURI != "" {
				desc += "\n[UI Resource: " + t.ResourceURI + "]"
			}
			out = append(out, agui.Tool{Name: name, Description: desc, Parameters: agui.JSON(t.InputSchema)})
		}
	}
	return m, out
}

// OfferedTools lists the tools Middleware offers an agent bound to
// servers when the client brings the tools in client: the names and
// descriptions the agent sees.
func OfferedTools(p *Pool, servers []string, client []agui.Tool) []agui.Tool {
	_, out := exposedTools(p, servers, client)
	return out
}

// Middleware runs the bound servers' tools for the agent and turns UI
// tools' results into cards. See the package documentation. A run holds
// a hand-over off from its first call of a bound tool to its end; stopped
// before, it keeps its transcript (HandoverPart) for the rejoining run.
func Middleware(p *Pool, cfg Config) agui.Middleware {
	cfg = cfg.withDefaults()
	if cfg.MaxToolRounds == 0 {
		cfg.MaxToolRounds = 5
	}
	log := cfg.Logger
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	if cfg.Caps == nil {
		cfg.Caps = NewCapabilities(nil, 0)
	}
	if cfg.Answers == nil {
		cfg.Answers = NewAnswers(nil)
	}
	if cfg.AnswerWait == 0 {
		cfg.AnswerWait = DefaultAnswerWait
	}
	if cfg.ViewLogs == nil {
		cfg.ViewLogs = NewViewLogs(ViewLogOptions{})
	}
	return func(next agui.Agent) agui.Agent {
		return agui.AgentFunc(func(ctx context.Context, req *agui.Request) iter.Seq2[agui.Event, error] {
			in := req.Input
			return func(yield func(agui.Event, error) bool) {
				req := req // the input may change below
				var prefix []agui.Event
				if ServerSurfaceAction(in) {
					// A user action on a server's surface: that server
					// answers it, not the agent, unless its tool hands the
					// agent a message (an answer no run waited for).
					evs, forward := answerSurfaceAction(ctx, p, cfg, req, log)
					if forward == "" {
						if !yield(&agui.RunStarted{ThreadID: in.ThreadID, RunID: in.RunID}, nil) {
							return
						}
						for _, ev := range evs {
							if !yield(ev, nil) {
								return
							}
						}
						if len(evs) == 0 || evs[len(evs)-1].Type() != agui.TypeRunError {
							yield(&agui.RunFinished{ThreadID: in.ThreadID, RunID: in.RunID}, nil)
						}
						return
					}
					// The answer is the user's turn: the client (and the
					// thread's history) see it as one. The run went to an
					// MCP server before the agent: it is not handed over
					// (a rejoin would ask the server again).
					defer req.Handover.Hold()()
					id := newID()
					in = withoutAction(in, id, forward)
					req = req.WithInput(in)
					prefix = append(evs, &agui.TextMessageStart{MessageID: id, Role: string(agui.RoleUser)},
						&agui.TextMessageContent{MessageID: id, Delta: forward}, &agui.TextMessageEnd{MessageID: id})
				}
				if raw := in.ForwardedProp(ProxiedRequestKey); raw != nil {
					if result, ours := answerProxied(ctx, p, cfg, req, raw, log); ours {
						_ = yield(&agui.RunStarted{ThreadID: in.ThreadID, RunID: in.RunID}, nil) &&
							yield(&agui.RunFinished{ThreadID: in.ThreadID, RunID: in.RunID, Result: result}, nil)
						return
					}
					// Not a server we minted: the backend may run its own
					// MCP Apps middleware.
					agui.PassThrough(next.Run(ctx, req), yield, nil)
					return
				}
				// A run right after start-up waits (briefly) for its servers'
				// first connection, so their tools are offered.
				wctx, cancel := context.WithTimeout(ctx, readyWait)
				for _, id := range cfg.Servers {
					if err := p.waitServer(wctx, id); err != nil {
						log.Info("mcp: not connected; its tools are not offered to this run", "server", id, "err", err)
					}
				}
				cancel()
				bound, injected := exposedTools(p, cfg.Servers, in.Tools)
				if len(bound) == 0 {
					agui.PassThrough(next.Run(ctx, req), yield, func(ev agui.Event) bool {
						if !yield(ev, nil) {
							return false
						}
						if _, ok := ev.(*agui.RunStarted); ok && len(prefix) > 0 {
							for _, pe := range prefix {
								if !yield(pe, nil) {
									return false
								}
							}
							prefix = nil
						}
						return true
					})
					return
				}
				r := &rounds{p: p, req: req, cfg: cfg, next: next, bound: bound, log: log, yield: yield, thread: in.ThreadID, runID: in.RunID, loading: hostWants(in, "loadingCards"), prefix: prefix}
				if cfg.Renders != nil {
					r.renders = cfg.Renders(in)
				}
				if cfg.Catalog != nil {
					r.catalog = cfg.Catalog(in)
				}
				r.concurrent = hostWants(in, ConcurrentRequestsFeature)
				r.run(ctx, in, injected)
			}
		})
	}
}

// call is one tool call the adapter executes.
type call struct {
	id     string
	b      binding
	args   string
	events []agui.Event // TOOL_CALL_RESULT and, for UI tools, the card
	// early: events sent before the call ends (the card of a question
	// while the run waits for its answer).
	early bool
}

type rounds struct {
	p      *Pool
	req    *agui.Request // the run's
	next   agui.Agent
	cfg    Config
	bound  map[string]binding
	log    *slog.Logger
	yield  func(agui.Event, error) bool
	thread string
	runID  string
	// loading: the host asked for loading cards (a card shown when the
	// tool call starts, its input streamed, then its result).
	loading bool
	// renders is how this run shows results (nil: both ways).
	renders []string
	// catalog is the A2UI catalog of the run's frontend.
	catalog string
	// concurrent: the host sends card requests and surface actions while
	// the run streams, so a question's answer can come in this run.
	concurrent bool
	// prefix is sent right after the first RUN_STARTED (a surface
	// action's update, before the agent answers it).
	prefix []agui.Event
}

// shows reports whether the run shows server's results as mode
// ("mcp-apps" or "a2ui"): always, except for the Dual servers.
func (r *rounds) shows(server, mode string) bool {
	return r.renders == nil || !slices.Contains(r.cfg.Dual, server) || slices.Contains(r.renders, mode)
}

// HostKey is the forwardedProps key where a host declares what it
// handles beyond the stock renderers: {"loadingCards": true}.
const HostKey = "mcpAppsHost"

func hostWants(in *agui.RunAgentInput, feature string) bool {
	var h map[string]any
	return json.Unmarshal(in.ForwardedProp(HostKey), &h) == nil && h[feature] == true
}

// loadingCard tracks the card of a UI tool call while its input streams.
type loadingCard struct {
	sent int // length of the partial arguments last sent
}

// run drives the upstream, executing bound tool calls as they end, and
// runs it again with the results until it needs no more tools: one client
// run, one RUN_STARTED, one terminal event.
//
// A hand-over is held off from the first call of a bound tool to the end
// of the run (calls in flight, follow-up rounds); before that, a run
// stopped for one keeps the round's transcript (HandoverPart) and the
// rejoining run goes on with it.
func (r *rounds) run(ctx context.Context, in *agui.RunAgentInput, injected []agui.Tool) {
	input := in.Clone()
	input.Tools = append(input.Tools, injected...)
	input.Context = append(input.Context, r.guidance()...)
	req := r.req.WithInput(input)
	h := req.Handover
	var resumed handoverState
	if h.Rejoining() {
		if err := h.Restore(HandoverPart, &resumed); err != nil {
			r.yield(nil, err)
			return
		}
	}
	release := func() {}
	defer func() { release() }()
	for round := 0; ; round++ {
		if round > 0 {
			input.RunID = fmt.Sprintf("%s-round-%d", in.RunID, round)
			if round == 1 {
				// A follow-up round is a run of its own upstream, held
				// off from hand-overs: its request has none.
				req = req.WithInput(input)
				req.Handover = nil
			}
		}
		// What the agent gets back in the follow-up: bounded, so that an
		// endless stream cannot grow it without end.
		tr := agui.NewTranscript(resumed.Transcript)
		kept := resumed.Kept
		resumed = handoverState{}
		tr.SetBudget(func(n int) bool {
			if kept+n > r.cfg.MaxRoundBytes {
				return false
			}
			kept += n
			return true
		})
		emit := func(ev agui.Event) bool {
			tr.Apply(ev)
			return r.yield(ev, nil)
		}
		unsnap := func() {}
		if round == 0 {
			// Checkpoints stop at the first bound call (held off).
			unsnap = h.Snapshot(HandoverPart, func() any { return handoverState{Transcript: tr.Messages(), Kept: kept} })
		}
		callCtx, cancelCalls := context.WithCancel(ctx)
		var wg sync.WaitGroup
		done := make(chan *call, 64)
		pending := 0
		starts := map[string]*agui.ToolCallStart{}
		args := map[string]*strings.Builder{}
		loads := map[string]*loadingCard{}
		flush := func(block bool) bool {
			for pending > 0 {
				var c *call
				if block {
					c = <-done
				} else {
					select {
					case c = <-done:
					default:
						return true
					}
				}
				if !c.early {
					pending--
				}
				for _, ev := range c.events {
					if !emit(ev) {
						return false
					}
				}
			}
			return true
		}
		stop := func() {
			unsnap()
			cancelCalls()
			wg.Wait()
		}
		var held *agui.RunFinished
		// An upstream's MESSAGES_SNAPSHOT (LangGraph sends one before each
		// RUN_FINISHED) knows nothing of the results this round added: it
		// is held, and sent only by the last round.
		var heldSnapshot *agui.MessagesSnapshot
		executed := 0
		for ev, err := range r.next.Run(ctx, req) {
			if err != nil {
				stop()
				r.yield(nil, err)
				return
			}
			switch e := ev.(type) {
			case *agui.RunStarted:
				if round > 0 {
					continue // one client run
				}
				if !emit(ev) {
					stop()
					return
				}
				for _, pe := range r.prefix {
					if !emit(pe) {
						stop()
						return
					}
				}
				r.prefix = nil
				continue
			case *agui.ToolCallStart:
				if b, ok := r.bound[e.ToolCallName]; ok {
					if round == 0 && len(starts) == 0 {
						release = h.Hold()
					}
					starts[e.ToolCallID] = e
					args[e.ToolCallID] = &strings.Builder{}
					if r.loading && b.tool.ResourceURI != "" && r.shows(b.server, "mcp-apps") {
						loads[e.ToolCallID] = &loadingCard{}
						if !emit(ev) || !emit(r.card(Card{ResourceURI: b.tool.ResourceURI, ServerID: b.server, Tool: b.tool.Name, ToolCallID: e.ToolCallID, Status: "input-streaming"})) {
							stop()
							return
						}
						continue
					}
				}
			case *agui.ToolCallArgs:
				if b := args[e.ToolCallID]; b != nil && b.Len() <= r.cfg.MaxToolArgumentBytes {
					b.WriteString(e.Delta)
					// The partial input, at most doubling each time: few
					// deltas, and their bytes at most twice the input's.
					if lc := loads[e.ToolCallID]; lc != nil && b.Len() <= r.cfg.MaxToolArgumentBytes && b.Len() >= 2*lc.sent && b.Len() >= lc.sent+16 {
						lc.sent = b.Len()
						patch, _ := json.Marshal([]map[string]any{{"op": "add", "path": "/partialArguments", "value": b.String()}})
						if !emit(ev) || !emit(&agui.ActivityDelta{MessageID: CardMessageID(e.ToolCallID), ActivityType: ActivityType, Patch: agui.JSON(patch)}) {
							stop()
							return
						}
						continue
					}
				}
			case *agui.ToolCallEnd:
				if s := starts[e.ToolCallID]; s != nil {
					if !emit(ev) {
						stop()
						return
					}
					if loads[e.ToolCallID] != nil {
						// tool-input: the input is complete, the tool runs.
						var input map[string]any
						if json.Unmarshal([]byte(args[e.ToolCallID].String()), &input) == nil || strings.TrimSpace(args[e.ToolCallID].String()) == "" {
							b := r.bound[s.ToolCallName]
							if input == nil {
								input = map[string]any{}
							}
							if !emit(r.card(Card{ResourceURI: b.tool.ResourceURI, ServerID: b.server, Tool: b.tool.Name, ToolCallID: e.ToolCallID, ToolInput: input, Status: "input-available"})) {
								stop()
								return
							}
						}
					}
					// Call at once, in parallel with the rest of the step.
					c := &call{id: e.ToolCallID, b: r.bound[s.ToolCallName], args: args[e.ToolCallID].String()}
					pending++
					executed++
					wg.Go(func() {
						r.execute(callCtx, c, func(evs []agui.Event) { done <- &call{events: evs, early: true} })
						done <- c
					})
					continue
				}
			case *agui.RunFinished:
				held = e
				continue
			case *agui.MessagesSnapshot:
				heldSnapshot = e
				continue
			case *agui.RunError:
				stop()
				r.yield(ev, nil)
				return
			}
			if !emit(ev) || !flush(false) {
				stop()
				return
			}
		}
		if !flush(true) {
			stop()
			return
		}
		stop()
		if h.Stopped() && round == 0 {
			// Stopped for a hand-over, before any bound call (held off
			// from there).
			h.KeepPartOf(HandoverPart, handoverState{Transcript: tr.Messages(), Kept: kept})
			return
		}
		if executed == 0 {
			if heldSnapshot != nil && !r.yield(heldSnapshot, nil) {
				return
			}
			if held != nil {
				// A later round's ids are ours (-round-N): the client's
				// run ends, not a repair of the agent's ids.
				held.ThreadID, held.RunID = in.ThreadID, in.RunID
				r.yield(held, nil)
			}
			return
		}
		if round+1 >= r.cfg.MaxToolRounds {
			r.yield(&agui.RunError{Code: "max_tool_rounds", Message: fmt.Sprintf("the agent still wanted tools after %d rounds (maxToolRounds)", r.cfg.MaxToolRounds)}, nil)
			return
		}
		// Continue the agent with the calls and their results.
		for _, m := range tr.Messages() {
			if m.Role != agui.RoleActivity {
				input.Messages = append(input.Messages, m)
			}
		}
	}
}

// HandoverPart is the name of Middleware's hand-over part: the
// transcript of the run's first round so far, for a follow-up round after
// the rejoin.
const HandoverPart = "mcpapps"

// handoverState is Middleware's state carried by a hand-over.
type handoverState struct {
	Transcript []agui.Message `json:"transcript,omitempty"`
	Kept       int            `json:"kept,omitempty"`
}

// execute calls the tool and builds the events the client gets. A
// result that asks the user something (AwaitAnswerKey, or an app that can
// post mcp-app-response) shows its card and surface at once (early) and
// waits for the answer, which becomes the tool's result.
func (r *rounds) execute(ctx context.Context, c *call, early func([]agui.Event)) {
	var input map[string]any
	if len(c.args) > r.cfg.MaxToolArgumentBytes {
		c.events = []agui.Event{errorResult(c.id, fmt.Sprintf("arguments are larger than %d bytes", r.cfg.MaxToolArgumentBytes))}
		return
	}
	if strings.TrimSpace(c.args) == "" {
		input = map[string]any{}
	} else if err := json.Unmarshal([]byte(c.args), &input); err != nil {
		c.events = []agui.Event{errorResult(c.id, fmt.Sprintf("arguments are not a JSON object: %v", err))}
		return
	}
	caller := &Caller{Principal: r.req.Principal, ThreadID: r.thread, RunID: r.runID, ToolCallID: c.id, Source: "model", Renders: r.renders, Catalog: r.catalog, Header: r.req.Header}
	cards := r.shows(c.b.server, "mcp-apps")
	var res *Resource
	var resErr error
	var wg sync.WaitGroup
	if c.b.tool.ResourceURI != "" && cards {
		wg.Go(func() { res, resErr = r.p.UIResource(ctx, caller, c.b.server, c.b.tool.ResourceURI) })
	}
	result, err := r.p.Call(ctx, caller, c.b.server, c.b.tool.Name, input)
	wg.Wait()
	if err != nil {
		r.log.Info("mcp: tool call failed", "server", c.b.server, "tool", c.b.tool.Name, "err", err)
		c.events = []agui.Event{errorResult(c.id, err.Error())}
		if res != nil && resErr == nil && ctx.Err() == nil {
			// The View learns of the failure as a result, not by silence.
			c.events = append(c.events, r.card(Card{
				Result:      map[string]any{"isError": true, "content": []map[string]any{{"type": "text", "text": "The tool call failed: " + err.Error()}}},
				ResourceURI: res.URI, ServerID: c.b.server, Tool: c.b.tool.Name, ToolInput: input, ToolCallID: c.id,
			}))
		}
		return
	}
	// shown: the call's surface, then its card. The surface goes before
	// the result (so that the A2UI middleware knows the call has one), the
	// card after it.
	var shown []agui.Event
	surfaces := 0
	if r.p.A2UI(c.b.server) && r.shows(c.b.server, "a2ui") {
		if msgs, ok := a2uiMessages(result); ok && len(msgs) > 0 {
			shown = append(shown, r.cfg.Caps.serverSurface(msgs, c.b.server, c.id, r.req.Principal, r.thread))
			surfaces = 1
		}
	}
	card := Card{Result: cleanResult(result), ServerID: c.b.server, Tool: c.b.tool.Name, ToolInput: input, ToolCallID: c.id}
	// An app written the qwen-agent way names its View in the result.
	app, isApp := appResponse(result)
	if isApp && cards {
		if ar, err := r.p.appResource(ctx, caller, c.b.server, app.ResourceURI); err == nil {
			res, resErr = ar, nil
			card.AppData, card.PreferredFrameSize = app.Data, app.FrameSize
		} else {
			r.log.Info("mcp: the app of a tool not rendered", "server", c.b.server, "uri", app.ResourceURI, "tool", c.b.tool.Name, "err", err)
		}
	}
	// A result may carry its UI inline (an embedded ui:// resource): it
	// is shown without a resources/read.
	if rc := inlineUI(result); rc != nil && cards {
		if inl, err := r.p.keepInline(c.b.server, caller, rc); err == nil {
			res, resErr = inl, nil
		} else {
			r.log.Info("mcp: inline UI of a tool not rendered", "server", c.b.server, "tool", c.b.tool.Name, "err", err)
		}
	}
	if resErr != nil {
		r.log.Info("mcp: no card for tool", "server", c.b.server, "tool", c.b.tool.Name, "err", resErr)
	} else if res != nil {
		card.ResourceURI = res.URI
		shown = append(shown, r.card(card))
	}
	text := resultText(result)
	if len(shown) == 0 && !result.IsError && (c.b.tool.ResourceURI != "" || isApp) {
		text += "\n(Nothing was shown to the user: this chat renders neither the card nor a surface for this tool.)"
	}
	awaits := result.Meta[AwaitAnswerKey] == true || (isApp && res != nil && res.AwaitsResponse())
	if awaits && len(shown) > 0 && !r.concurrent {
		// The host cannot answer while the run streams: the run goes on,
		// and the answer comes as the user's next message.
		text = `{"answer":null,"pending":true,"note":"The question is shown to the user; their answer will come as their next message. End your turn now."}`
	}
	if !awaits || len(shown) == 0 || !r.concurrent {
		c.events = append(append(shown[:surfaces:surfaces], &agui.ToolCallResult{MessageID: newID(), ToolCallID: c.id, Content: text, Role: "tool"}), shown[surfaces:]...)
		return
	}
	// The question goes on screen; its answer is the result. It is open
	// before the host sees it: a host may answer at once.
	q, err := r.cfg.Answers.Open(ctx, *caller, r.cfg.AnswerWait)
	if err != nil {
		r.log.Info("mcp: opening the answer slot for a tool's question failed", "server", c.b.server, "tool", c.b.tool.Name, "err", err)
	}
	early(shown)
	wctx, cancel := context.WithTimeout(ctx, r.cfg.AnswerWait)
	answer, err := q.Wait(wctx)
	cancel()
	q.Close(ctx)
	switch {
	case err == nil:
		b, _ := json.Marshal(map[string]any{"answer": json.RawMessage(answer)})
		text = string(b)
	case ctx.Err() != nil:
		return // the run ended: the client cancels the card
	default:
		text = fmt.Sprintf(`{"answer":null,"note":"the user did not answer within %s; the question is closed. Ask again if you still need the answer."}`, r.cfg.AnswerWait)
	}
	c.events = []agui.Event{&agui.ToolCallResult{MessageID: newID(), ToolCallID: c.id, Content: text, Role: "tool"}}
}

// guidance is the bound servers' instructions (from initialize), one
// context entry per server that gave some and whose tools the run offers.
func (r *rounds) guidance() []agui.ContextItem {
	tools := map[string][]string{}
	for name, b := range r.bound {
		tools[b.server] = append(tools[b.server], name)
	}
	var out []agui.ContextItem
	for _, id := range r.cfg.Servers {
		text := r.p.Instructions(id)
		if text == "" || tools[id] == nil {
			continue
		}
		slices.Sort(tools[id])
		out = append(out, agui.ContextItem{
			Description: fmt.Sprintf("Instructions from the MCP server %q for its tools (%s)", id, strings.Join(tools[id], ", ")),
			Value:       text,
		})
	}
	return out
}

// withoutAction is in with its surface action replaced by the user
// message text (the action's answer, for the agent).
func withoutAction(in *agui.RunAgentInput, id, text string) *agui.RunAgentInput {
	out := in.Clone()
	var fp map[string]json.RawMessage
	if json.Unmarshal(out.ForwardedProps, &fp) == nil {
		delete(fp, "a2uiAction")
		b, _ := json.Marshal(fp)
		out.ForwardedProps = agui.JSON(b)
	}
	out.Messages = append(out.Messages, agui.Message{ID: id, Role: agui.RoleUser, Content: agui.Text(text)})
	return out
}

// inlineUI is the first embedded ui:// resource of a result.
func inlineUI(r *mcp.CallToolResult) *mcp.ResourceContents {
	for _, c := range r.Content {
		if e, ok := c.(*mcp.EmbeddedResource); ok && e.Resource != nil && strings.HasPrefix(e.Resource.URI, "ui://") {
			return e.Resource
		}
	}
	return nil
}

// card is the activity of a tool call's card (loading or final).
func (r *rounds) card(c Card) agui.Event {
	return r.cfg.Caps.CardEvent(r.p, CardMessageID(c.ToolCallID), c, r.req.Principal, r.thread)
}

func errorResult(id, msg string) agui.Event {
	b, _ := json.Marshal(map[string]string{"error": msg})
	return &agui.ToolCallResult{MessageID: newID(), ToolCallID: id, Content: string(b), Role: "tool"}
}

// resultText is what the agent reads: the text parts joined by newlines,
// else the structured content as JSON, else the content as JSON.
func resultText(r *mcp.CallToolResult) string {
	var texts []string
	for _, c := range r.Content {
		if t, ok := c.(*mcp.TextContent); ok {
			texts = append(texts, t.Text)
		}
	}
	if len(texts) > 0 {
		return strings.Join(texts, "\n")
	}
	if r.StructuredContent != nil {
		b, _ := json.Marshal(r.StructuredContent)
		return string(b)
	}
	b, _ := json.Marshal(r.Content)
	return string(b)
}

// cleanResult is the CallToolResult as JSON without the protocol noise
// (resultType, io.modelcontextprotocol/* and genui-adapter/* _meta keys)
// and without embedded A2UI (shown as a surface, not to the View).
func cleanResult(r any) map[string]any {
	b, _ := json.Marshal(r)
	var m map[string]any
	_ = json.Unmarshal(b, &m)
	delete(m, "resultType")
	if meta, ok := m["_meta"].(map[string]any); ok {
		for k := range meta {
			if strings.HasPrefix(k, "io.modelcontextprotocol/") || strings.HasPrefix(k, "genui-adapter/") {
				delete(meta, k)
			}
		}
		if len(meta) == 0 {
			delete(m, "_meta")
		}
	}
	content, _ := m["content"].([]any)
	kept := []any{}
	for _, c := range content {
		if cm, ok := c.(map[string]any); ok && cm["type"] == "resource" {
			if rc, ok := cm["resource"].(map[string]any); ok && rc["mimeType"] == A2UIMIMEType {
				continue
			}
		}
		kept = append(kept, c)
	}
	m["content"] = kept
	return m
}
