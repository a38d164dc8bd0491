// Package a2a is an agui.Agent for A2A (Agent2Agent) agents: protocol 0.3
// (JSON-RPC message/stream) and 1.0 (SendStreamingMessage, A2A-Version:
// 1.0), chosen from the agent card, with the A2UI extension v0.9.1 (A2UI
// messages as DataParts of MIME type application/a2ui+json), or v0.8 for
// an agent whose card declares only that (its A2UI is converted by the
// Check the adapter gives).
//
// A run sends the client's newest turn (its text, an A2UI action as a
// DataPart, or the answer to an input-required task), with the client's
// a2uiClientCapabilities in the agent's A2UI version, in the A2A context of
// the AG-UI thread (a contextId derived from the principal and thread, so
// no storage is needed), and translates the stream: agent text (status
// messages and artifacts) into text messages, A2UI DataParts into one
// a2ui-surface activity per surface, input-required into an interrupt,
// failed and rejected into RUN_ERROR; a client that goes away cancels the
// task.
//
// The client is our own: the a2a-go SDK (v0.3.3) speaks only protocol
// 0.3, and its SSE reader fails on a data line over 64 KiB, which one A2UI
// DataPart passes easily; agui.ScanFrames bounds an event at MaxEventSize.
package a2a

import (
	"context"
	"crypto/sha1"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"iter"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"time"

	"github.com/genui-adapter/genui-adapter/agui"
	"github.com/genui-adapter/genui-adapter/agui/aguihttp"
	"github.com/genui-adapter/genui-adapter/agui/origin"
)

// Extension is the A2UI extension URI (v0.9.1) this client speaks.
const Extension = "https://a2ui.org/a2a-extension/a2ui/v0.9.1"

// ExtensionV08 is the A2UI v0.8 extension URI, spoken to an agent whose
// card declares no later A2UI version: actions go back as v0.8
// userAction DataParts and the client capabilities in v0.8's unkeyed
// shape. Its A2UI is converted to v0.9.1 by the Check.
const ExtensionV08 = "https://a2ui.org/a2a-extension/a2ui/v0.8"

// V08StandardCatalogID is the v0.8 standard catalog, the catalog the
// client says it renders to a v0.8 agent (the adapter converts it).
const V08StandardCatalogID = "https://a2ui.org/specification/v0_8/standard_catalog_definition.json"

// MIME types of A2UI DataParts (the second is what v0.8 and v0.9
// documents used).
var a2uiMIMEs = []string{"application/a2ui+json", "application/json+a2ui"}

// BasicCatalogID is the catalog the client says it renders.
const BasicCatalogID = "https://a2ui.org/specification/v0_9/catalogs/basic/catalog.json"

// Check filters the A2UI messages of one DataPart: it returns those to
// apply and a description of each one it dropped (the extension applies
// the valid messages of a list and reports the others). known says which
// surfaces the run has seen created. nil keeps them all.
type Check func(msgs []json.RawMessage, known func(surfaceID string) bool) (keep []json.RawMessage, dropped []string)

// Agent is one A2A agent. Its Upstream's URL is the agent's base URL
// (its card is at URL/.well-known/agent-card.json) or the card's own
// URL; its Origins are where the card's endpoint and redirects may lead,
// with URL's origin as home, the only one that gets Headers and
// ForwardHeaders (nil: URL's origin only): an endpoint elsewhere ends
// the run with RUN_ERROR origin_not_allowed. ExposeErrors also quotes
// the agent's JSON-RPC errors' messages (a failed task's status message
// is the agent's word to the user and is always shown).
type Agent struct {
	aguihttp.Upstream
	// CardTTL is how long the agent card is kept (default 5 min).
	CardTTL time.Duration
	// NewCheck returns the filter of one run's A2UI messages (the
	// adapter's validator, which converts v0.8); nil keeps them all.
	NewCheck func() Check

	mu       sync.Mutex
	card     *card
	fetched  time.Time
	fetching *cardFetch // nil: none under way
}

func (a *Agent) check() Check {
	if a.NewCheck == nil {
		return nil
	}
	return a.NewCheck()
}

// card is what the client reads of an agent card.
type card struct {
	Endpoint string
	policy   *origin.Policy
	Version  string // "0.3" or "1.0"
	A2UI     bool
	A2UIV08  bool // A2UI declared as v0.8 only
	Catalogs []string
	Skills   []Skill
}

// Skill is one of the skills an agent card lists.
type Skill struct {
	ID          string   `json:"id"`
	Name        string   `json:"name"`
	Description string   `json:"description,omitempty"`
	Tags        []string `json:"tags,omitempty"`
}

// Skills returns the skills of the agent card last fetched (for a run),
// or nil if none was: it never fetches the card itself.
func (a *Agent) Skills() []Skill {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.card == nil {
		return nil
	}
	return a.card.Skills
}

// policy is Origins, or URL's origin alone.
func (a *Agent) policy() (*origin.Policy, error) {
	if a.Origins != nil {
		return a.Origins, nil
	}
	return origin.NewPolicy(a.URL, nil)
}

// do sends a request with the agent's headers and timeouts
// (aguihttp.Upstream's rules) under policy p.
func (a *Agent) do(ctx context.Context, req *agui.Request, p *origin.Policy, method, url string, body any, hdr map[string]string) (*http.Response, error) {
	u := a.Upstream
	u.Origins = p
	return u.Do(ctx, req, method, url, body, hdr)
}

// cardFetch is a fetch of the agent card that runs wait for.
type cardFetch struct {
	done chan struct{} // closed when card and err are set
	card *card
	err  error
}

// readCard reuses the agent card, or waits for its fetch: one at a time,
// which the runs that need the card meanwhile share (many runs starting
// as the card expires do not each fetch it). The fetch does not end when
// the run that started it does (it is bounded by its own timeout); a run
// stops waiting when its ctx ends.
func (a *Agent) readCard(ctx context.Context, req *agui.Request) (*card, error) {
	ttl := a.CardTTL
	if ttl == 0 {
		ttl = 5 * time.Minute
	}
	a.mu.Lock()
	if a.card != nil && time.Since(a.fetched) < ttl {
		c := a.card
		a.mu.Unlock()
		return c, nil
	}
	f := a.fetching
	if f == nil {
		f = &cardFetch{done: make(chan struct{})}
		a.fetching = f
		// Not the run's: it may end first, and its hook with it.
		fctx, freq := context.WithoutCancel(ctx), &agui.Request{}
		if req != nil {
			freq.Header = req.Header
		}
		go func() { // ends with the fetch, within its timeout
			defer close(f.done)
			f.card, f.err = a.fetchCard(fctx, freq)
			a.mu.Lock()
			defer a.mu.Unlock()
			if f.err == nil {
				a.card, a.fetched = f.card, time.Now()
			}
			a.fetching = nil
		}()
	}
	a.mu.Unlock()
	req.ReadHook()() // what the client is owed goes out before the wait
	select {
	case <-f.done:
		return f.card, f.err
	case <-ctx.Done():
		return nil, &agui.RunFailure{Code: agui.CodeUpstreamUnreachable, Message: "cannot reach the A2A agent's card", Err: ctx.Err()}
	}
}

// fetchCard fetches the agent card.
func (a *Agent) fetchCard(ctx context.Context, req *agui.Request) (*card, error) {
	p, err := a.policy()
	if err != nil {
		return nil, &agui.RunFailure{Code: agui.CodeInternal, Message: "the A2A agent's url is not usable", Err: err}
	}
	cardURL := a.URL
	if !strings.HasSuffix(cardURL, ".json") {
		cardURL = strings.TrimRight(cardURL, "/") + "/.well-known/agent-card.json"
	}
	rctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	resp, err := a.do(rctx, req, p, http.MethodGet, cardURL, nil, nil)
	if err != nil {
		if re := (*agui.RunFailure)(nil); errors.As(err, &re) {
			return nil, re
		}
		return nil, &agui.RunFailure{Code: agui.CodeUpstreamUnreachable, Message: "cannot reach the A2A agent's card", Err: err}
	}
	defer resp.Body.Close()
	if resp.StatusCode/100 != 2 {
		return nil, aguihttp.StatusError(resp, "A2A agent card", a.ExposeErrors)
	}
	var raw struct {
		URL                 string  `json:"url"`
		ProtocolVersion     string  `json:"protocolVersion"`
		Skills              []Skill `json:"skills"`
		SupportedInterfaces []struct {
			URL             string `json:"url"`
			ProtocolBinding string `json:"protocolBinding"`
			ProtocolVersion string `json:"protocolVersion"`
		} `json:"supportedInterfaces"`
		Capabilities struct {
			Extensions []struct {
				URI    string `json:"uri"`
				Params struct {
					SupportedCatalogIDs []string `json:"supportedCatalogIds"`
				} `json:"params"`
			} `json:"extensions"`
		} `json:"capabilities"`
	}
	if err := json.NewDecoder(io.LimitReader(resp.Body, 1<<20)).Decode(&raw); err != nil {
		return nil, &agui.RunFailure{Code: agui.CodeUpstreamStatus, Message: "the A2A agent card is not JSON", Err: err}
	}
	c := &card{Endpoint: raw.URL, Version: "0.3", Skills: raw.Skills}
	for _, i := range raw.SupportedInterfaces {
		if strings.EqualFold(i.ProtocolBinding, "JSONRPC") && strings.HasPrefix(i.ProtocolVersion, "1.") {
			c.Endpoint, c.Version = i.URL, "1.0"
			break
		}
	}
	if c.Version == "0.3" && c.Endpoint == "" {
		for _, i := range raw.SupportedInterfaces {
			if strings.EqualFold(i.ProtocolBinding, "JSONRPC") {
				c.Endpoint = i.URL
			}
		}
	}
	if c.Endpoint == "" {
		return nil, &agui.RunFailure{Code: agui.CodeUpstreamStatus, Message: "the A2A agent card names no JSON-RPC endpoint"}
	}
	// The endpoint is the peer's choice: it is used only on an origin the
	// operator configured (the card's own, or allowedOrigins).
	base, _ := url.Parse(cardURL)
	ep, err := base.Parse(c.Endpoint)
	if err != nil {
		return nil, &agui.RunFailure{Code: agui.CodeUpstreamInvalid, Message: "the A2A agent card's endpoint is not a URL", Err: err}
	}
	// A relative endpoint inherits the configured URL's userinfo (the
	// operator's); the card's own never counts.
	bare := *ep
	if ref, _ := url.Parse(c.Endpoint); ref.User == nil {
		bare.User = nil
	}
	if err := p.AllowedURL(&bare); err != nil {
		return nil, &agui.RunFailure{Code: agui.CodeOriginNotAllowed, Message: "the A2A agent card names an endpoint on an origin this agent is not allowed to reach (the adapter's log names it; list the origin in the agent's allowedOrigins if it is trusted)", Err: fmt.Errorf("agent card %s: endpoint %w", cardURL, err)}
	}
	c.Endpoint = ep.String()
	c.policy = p
	later := false
	for _, e := range raw.Capabilities.Extensions {
		if e.URI == Extension || strings.HasPrefix(e.URI, "https://a2ui.org/a2a-extension/a2ui/") {
			c.A2UI = true
			c.Catalogs = e.Params.SupportedCatalogIDs
			later = later || e.URI != ExtensionV08
		}
	}
	c.A2UIV08 = c.A2UI && !later
	return c, nil
}

// ContextID is the A2A context of an AG-UI thread: a name-based UUID of
// the (principal-scoped) thread id.
func ContextID(thread string) string {
	h := sha1.Sum([]byte("genui-adapter/a2a/" + thread))
	h[6] = (h[6] & 0x0f) | 0x50
	h[8] = (h[8] & 0x3f) | 0x80
	return fmt.Sprintf("%x-%x-%x-%x-%x", h[0:4], h[4:6], h[6:8], h[8:10], h[10:16])
}

// part is an A2A part in either protocol's JSON.
type part struct {
	Kind      string          `json:"kind,omitempty"`
	Text      *string         `json:"text,omitempty"`
	Data      json.RawMessage `json:"data,omitempty"`
	Metadata  json.RawMessage `json:"metadata,omitempty"`
	MediaType string          `json:"mediaType,omitempty"`
}

func textPart(v1 bool, s string) part {
	if v1 {
		return part{Text: &s}
	}
	return part{Kind: "text", Text: &s}
}

func dataPart(v1 bool, data any, mime string) part {
	b, _ := json.Marshal(data)
	md, _ := json.Marshal(map[string]string{"mimeType": mime})
	if v1 {
		return part{Data: b, Metadata: md, MediaType: mime}
	}
	return part{Kind: "data", Data: b, Metadata: md}
}

// isA2UI reports whether a DataPart carries A2UI messages.
func (p part) isA2UI() bool {
	if len(p.Data) == 0 {
		return false
	}
	var md struct {
		MimeType string `json:"mimeType"`
	}
	_ = json.Unmarshal(p.Metadata, &md)
	for _, m := range a2uiMIMEs {
		if strings.EqualFold(md.MimeType, m) || strings.EqualFold(p.MediaType, m) {
			return true
		}
	}
	return false
}

// message builds the A2A message of this run's turn.
func (a *Agent) message(in *agui.RunAgentInput, c *card, contextID string) (map[string]any, error) {
	v1 := c.Version == "1.0"
	var parts []part
	taskID := ""
	var ua struct {
		UserAction json.RawMessage `json:"userAction"`
	}
	isAction := false
	switch {
	case len(in.Resume) > 0:
		// The answer to an input-required task (the interrupt id is the
		// task id).
		taskID = in.Resume[0].InterruptID
		var s string
		if json.Unmarshal(in.Resume[0].Payload, &s) != nil {
			s = string(in.Resume[0].Payload)
		}
		parts = append(parts, textPart(v1, s))
	case json.Unmarshal(in.ForwardedProp("a2uiAction"), &ua) == nil && len(ua.UserAction) > 0 && string(ua.UserAction) != "null":
		// An A2UI user action goes back as the extension says: a DataPart
		// with a list holding one action message.
		var action map[string]any
		if json.Unmarshal(ua.UserAction, &action) != nil {
			return nil, errors.New("forwardedProps.a2uiAction.userAction is not an object")
		}
		if _, ok := action["timestamp"]; !ok {
			action["timestamp"] = time.Now().UTC().Format(time.RFC3339Nano)
		}
		if c.A2UIV08 {
			parts = append(parts, dataPart(v1, map[string]any{"userAction": action}, a2uiMIMEs[1]))
		} else {
			parts = append(parts, dataPart(v1, []any{map[string]any{"version": "v0.9.1", "action": action}}, a2uiMIMEs[0]))
		}
		isAction = true
	default:
		text := ""
		for i := len(in.Messages) - 1; i >= 0; i-- {
			if m := in.Messages[i]; m.Role == agui.RoleUser {
				text = m.Content.String()
				break
			}
		}
		if text == "" {
			return nil, errors.New("the run has no user message to send to the A2A agent")
		}
		parts = append(parts, textPart(v1, text))
	}
	m := map[string]any{"messageId": in.RunID, "contextId": contextID, "parts": parts}
	if taskID != "" {
		m["taskId"] = taskID
	}
	if v1 {
		m["role"] = "ROLE_USER"
	} else {
		m["kind"], m["role"] = "message", "user"
	}
	if c.A2UI {
		md := map[string]any{"a2uiClientCapabilities": clientCapabilities(in.ForwardedProp("a2uiClientCapabilities"), c.A2UIV08)}
		// Data model sync: the client's models of the surfaces created
		// with sendDataModel, which an A2UI client builds
		// (getClientDataModel) and sends with the action.
		if isAction {
			if dm, ok := clientDataModel(in.ForwardedProp("a2uiClientDataModel")); ok {
				md["a2uiClientDataModel"] = dm
			}
		}
		m["metadata"] = md
	}
	return m, nil
}

// capabilityEntry is one version's entry of a2uiClientCapabilities (v0.8's
// whole object, v0.9's "v0.9" entry): what is passed on of it.
type capabilityEntry struct {
	SupportedCatalogIDs []string        `json:"supportedCatalogIds"`
	InlineCatalogs      json.RawMessage `json:"inlineCatalogs,omitempty"`
}

// clientCapabilities is the a2uiClientCapabilities sent to an A2A agent,
// in the version its card declares: v0.8's own unkeyed shape
// (a2ui_client_capabilities_schema.json) for a v0.8 agent, else the
// official client_capabilities.json shape keyed by "v0.9". It is the
// AG-UI client's own entry for that version (fp: its
// forwardedProps.a2uiClientCapabilities, v0.8's unkeyed shape or keyed
// "v0.8"; keyed "v0.9.1" or "v0.9"), its supportedCatalogIds and
// inlineCatalogs. A client that declares no entry for the agent's version
// (the adapter converts between versions) or a malformed one gets the
// version's basic catalog alone, the one conversion maps.
func clientCapabilities(fp agui.JSON, v08 bool) any {
	var caps map[string]json.RawMessage
	_ = json.Unmarshal(fp, &caps)
	keys := []string{"v0.9.1", "v0.9"}
	if v08 {
		keys = []string{"v0.8"}
		if _, ok := caps["supportedCatalogIds"]; ok {
			caps = map[string]json.RawMessage{"v0.8": json.RawMessage(fp)}
		}
	}
	entry := capabilityEntry{SupportedCatalogIDs: []string{BasicCatalogID}}
	if v08 {
		entry.SupportedCatalogIDs = []string{V08StandardCatalogID}
	}
	for _, k := range keys {
		var e capabilityEntry
		if b, ok := caps[k]; ok && json.Unmarshal(b, &e) == nil && e.SupportedCatalogIDs != nil {
			var inline []json.RawMessage
			if json.Unmarshal(e.InlineCatalogs, &inline) != nil || inline == nil {
				e.InlineCatalogs = nil
			}
			entry = e
			break
		}
	}
	if v08 {
		return entry
	}
	return map[string]any{"v0.9": entry}
}

// maxDataModelBytes caps the client data model passed on.
const maxDataModelBytes = 256 << 10

// clientDataModel checks forwardedProps.a2uiClientDataModel against the
// official client_data_model.json shape: {"version": "v0.9", "surfaces":
// {id: object}}, nothing else.
func clientDataModel(raw agui.JSON) (json.RawMessage, bool) {
	if len(raw) == 0 || len(raw) > maxDataModelBytes {
		return nil, false
	}
	var dm map[string]json.RawMessage
	if json.Unmarshal(raw, &dm) != nil || len(dm) != 2 || string(dm["version"]) != `"v0.9"` {
		return nil, false
	}
	var surfaces map[string]map[string]any
	if json.Unmarshal(dm["surfaces"], &surfaces) != nil || len(surfaces) == 0 {
		return nil, false
	}
	for _, v := range surfaces {
		if v == nil {
			return nil, false
		}
	}
	return json.RawMessage(raw), true
}

func (c *card) headers() map[string]string {
	h := map[string]string{"Accept": "text/event-stream"}
	if c.Version == "1.0" {
		h["A2A-Version"] = "1.0"
	}
	if c.A2UI {
		ext := Extension
		if c.A2UIV08 {
			ext = ExtensionV08
		}
		h["X-A2A-Extensions"] = ext
		h["A2A-Extensions"] = ext
	}
	return h
}

// Run implements agui.Agent.
func (a *Agent) Run(ctx context.Context, req *agui.Request) iter.Seq2[agui.Event, error] {
	in := req.Input
	return func(yield func(agui.Event, error) bool) {
		c, err := a.readCard(ctx, req)
		if err != nil {
			if ctx.Err() == nil {
				yield(nil, err)
			}
			return
		}
		contextID := ContextID(agui.ScopedThreadID(req.Principal, in.ThreadID))
		msg, err := a.message(in, c, contextID)
		if err != nil {
			_ = yield(&agui.RunStarted{ThreadID: in.ThreadID, RunID: in.RunID}, nil) &&
				yield(&agui.RunError{Code: "invalid_a2a_input", Message: err.Error()}, nil)
			return
		}
		method := "message/stream"
		if c.Version == "1.0" {
			method = "SendStreamingMessage"
		}
		body := map[string]any{"jsonrpc": "2.0", "id": 1, "method": method, "params": map[string]any{"message": msg}}
		t := &translator{in: in, yield: yield, v1: c.Version == "1.0", check: a.check(), surfaces: map[string]*surface{}, expose: a.ExposeErrors}
		if id, ok := msg["taskId"].(string); ok {
			t.resumed = id
		}
		if !t.out(&agui.RunStarted{ThreadID: in.ThreadID, RunID: in.RunID}) {
			return
		}
		resp, err := a.do(ctx, req, c.policy, http.MethodPost, c.Endpoint, body, c.headers())
		if err != nil {
			if re := (*agui.RunFailure)(nil); errors.As(err, &re) && ctx.Err() == nil {
				yield(nil, re)
			} else if ctx.Err() == nil {
				yield(nil, &agui.RunFailure{Code: agui.CodeUpstreamUnreachable, Message: "cannot reach the A2A agent", Err: err})
			}
			return
		}
		defer resp.Body.Close()
		if resp.StatusCode/100 != 2 {
			yield(nil, aguihttp.StatusError(resp, "A2A "+method, a.ExposeErrors))
			return
		}
		// Whenever we leave before the task ended (the client went away or
		// stopped), the task is cancelled.
		defer func() {
			if t.taskID != "" && !t.ended {
				cctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
				defer cancel()
				cm := "tasks/cancel"
				if c.Version == "1.0" {
					cm = "CancelTask"
				}
				if r, err := a.do(cctx, req, c.policy, http.MethodPost, c.Endpoint, map[string]any{"jsonrpc": "2.0", "id": 2, "method": cm, "params": map[string]any{"id": t.taskID}}, c.headers()); err == nil {
					r.Body.Close()
				}
			}
		}()
		max := a.MaxEventSize
		if max == 0 {
			max = agui.DefaultMaxEventSize
		}
		for f, err := range agui.ScanFrames(resp.Body, max) {
			if err != nil {
				if ctx.Err() == nil {
					yield(nil, &agui.RunFailure{Code: agui.CodeUpstreamTruncated, Message: "the A2A stream broke", Err: err})
				}
				return
			}
			if !t.frame(ctx, f.Data) {
				return
			}
		}
		if !t.ended && ctx.Err() == nil {
			t.closeText()
			yield(nil, &agui.RunFailure{Code: agui.CodeUpstreamTruncated, Message: "the A2A stream ended before its task did"})
		}
	}
}
