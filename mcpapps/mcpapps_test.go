package mcpapps_test

import (
	"context"
	"encoding/json"
	"fmt"
	"iter"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/genui-adapter/genui-adapter/agui"
	"github.com/genui-adapter/genui-adapter/mcpapps"
	"github.com/genui-adapter/genui-adapter/mcpapps/mcpappstest"
)

// inMemory serves fx to the pool over in-memory transports (a new pair on
// every connect).
func inMemory(fx *mcpappstest.Server) func() mcp.Transport {
	return func() mcp.Transport {
		st, ct := mcp.NewInMemoryTransports()
		go fx.Connect(context.Background(), st, nil)
		return ct
	}
}

func newPool(t *testing.T, cfgs ...mcpapps.ServerConfig) *mcpapps.Pool {
	t.Helper()
	p, err := mcpapps.NewPool(cfgs, mcpapps.PoolOptions{Logger: testLogger(t)})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { p.Close() })
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := p.WaitReady(ctx); err != nil {
		t.Fatal(err)
	}
	return p
}

func TestCatalogue(t *testing.T) {
	fx := mcpappstest.New()
	p := newPool(t, mcpapps.ServerConfig{ID: "fx", Transport: inMemory(fx)})
	want := map[string]struct {
		uri string
		vis []string
	}{
		"weather":    {"ui://fx/weather.html", []string{"model", "app"}},
		"legacy":     {"ui://fx/legacy.html", []string{"model", "app"}},
		"refresh":    {"", []string{"app"}},
		"secret":     {"", []string{"model"}},
		"bad_uri":    {"", []string{"model", "app"}},
		"wrong_mime": {"ui://fx/wrong.html", []string{"model", "app"}},
		// Malformed visibility, read in its most restrictive sense.
		"string_vis": {"", []string{"app"}},
		"odd_vis":    {"", nil},
	}
	for name, w := range want {
		tool, ok := p.Tool("fx", name)
		if !ok || tool.ResourceURI != w.uri || !slices.Equal(tool.Visibility, w.vis) {
			t.Errorf("%s = %+v, want uri %q visibility %v", name, tool, w.uri, w.vis)
		}
	}
	ctx := context.Background()
	r, err := p.UIResource(ctx, nil, "fx", "ui://fx/weather.html")
	if err != nil || r.HTML != mcpappstest.HTML || r.UI["prefersBorder"] != true {
		t.Fatalf("UIResource = %+v, %v", r, err)
	}
	// _meta.ui from the listing when the content has none.
	if r, err := p.UIResource(ctx, nil, "fx", "ui://fx/legacy.html"); err != nil || r.UI["prefersBorder"] != false {
		t.Errorf("legacy resource ui = %v, %v", r, err)
	}
	if _, err := p.UIResource(ctx, nil, "fx", "ui://fx/wrong.html"); err == nil {
		t.Error("wrong MIME type accepted")
	}
	if _, err := p.UIResource(ctx, nil, "fx", "https://x/y.html"); err == nil {
		t.Error("non-ui:// resource accepted")
	}
}

func TestCSP(t *testing.T) {
	if got := mcpapps.CSP(nil); got != mcpapps.DefaultCSP {
		t.Errorf("CSP(nil) = %q", got)
	}
	ui := map[string]any{"csp": map[string]any{
		"connectDomains":  []any{"https://api.example.com", "*", "https:"},
		"resourceDomains": []any{"https://cdn.example.com", "https://x.com; script-src *", "https://*.tiles.org", "'unsafe-eval'", "https://a.com\nb"},
		"frameDomains":    []any{"https://player.example.com"},
	}, "permissions": map[string]any{"camera": map[string]any{}, "clipboardWrite": map[string]any{}}}
	got := mcpapps.CSP(ui)
	want := "default-src 'none'; script-src 'self' 'unsafe-inline' https://cdn.example.com https://*.tiles.org; style-src 'self' 'unsafe-inline' https://cdn.example.com https://*.tiles.org; img-src 'self' data: https://cdn.example.com https://*.tiles.org; media-src 'self' data: https://cdn.example.com https://*.tiles.org; font-src 'self' https://cdn.example.com https://*.tiles.org; connect-src 'self' https://api.example.com; frame-src https://player.example.com; base-uri 'none'; object-src 'none'; form-action 'none'"
	if got != want {
		t.Errorf("CSP =\n%s\nwant\n%s", got, want)
	}
	if a := mcpapps.Allow(ui); a != "camera; clipboard-write" {
		t.Errorf("Allow = %q", a)
	}
}

// script is a backend whose every round is a function of its input.
type script struct {
	mu     sync.Mutex
	inputs []*agui.RunAgentInput
	round  func(in *agui.RunAgentInput, n int) []agui.Event
}

func (s *script) Run(ctx context.Context, req *agui.Request) iter.Seq2[agui.Event, error] {
	in := req.Input
	s.mu.Lock()
	n := len(s.inputs)
	s.inputs = append(s.inputs, in)
	s.mu.Unlock()
	return func(yield func(agui.Event, error) bool) {
		evs := append([]agui.Event{&agui.RunStarted{ThreadID: in.ThreadID, RunID: in.RunID}}, s.round(in, n)...)
		for _, e := range evs {
			if !yield(e, nil) {
				return
			}
		}
	}
}

func callEvents(calls ...[2]string) []agui.Event {
	var out []agui.Event
	for _, c := range calls {
		out = append(out, &agui.ToolCallStart{ToolCallID: c[0], ToolCallName: c[1]}, &agui.ToolCallArgs{ToolCallID: c[0], Delta: `{"city":"Paris"}`}, &agui.ToolCallEnd{ToolCallID: c[0]})
	}
	return out
}

func runAll(t *testing.T, a agui.Agent, in *agui.RunAgentInput) []agui.Event {
	t.Helper()
	var out []agui.Event
	for ev, err := range agui.Normalize(agui.Output)(a).Run(context.Background(), &agui.Request{Input: in}) {
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, ev)
	}
	return out
}

func TestMiddlewareExecutesAndContinues(t *testing.T) {
	fx := mcpappstest.New()
	p := newPool(t, mcpapps.ServerConfig{ID: "fx", Transport: inMemory(fx)})
	be := &script{round: func(in *agui.RunAgentInput, n int) []agui.Event {
		if n == 0 {
			return append(callEvents([2]string{"c1", "weather"}), &agui.RunFinished{ThreadID: in.ThreadID, RunID: in.RunID})
		}
		return []agui.Event{&agui.TextMessageStart{MessageID: "m", Role: "assistant"}, &agui.TextMessageContent{MessageID: "m", Delta: "It is sunny."}, &agui.TextMessageEnd{MessageID: "m"}, &agui.RunFinished{ThreadID: in.ThreadID, RunID: in.RunID}}
	}}
	client := []agui.Tool{{Name: "secret", Description: "a client tool with a clashing name"}}
	evs := runAll(t, mcpapps.Middleware(p, mcpapps.Config{Servers: []string{"fx"}, Logger: testLogger(t)})(be), &agui.RunAgentInput{ThreadID: "t", RunID: "r", Tools: client})

	// The agent saw the model-visible tools, never the app-only one; the
	// clashing name got the server prefix.
	var names []string
	for _, tl := range be.inputs[0].Tools {
		names = append(names, tl.Name)
	}
	slices.Sort(names)
	if want := []string{"bad_uri", "broken_ui", "counter", "fx_secret", "inline_ui", "legacy", "secret", "slow", "weather", "wrong_mime"}; !slices.Equal(names, want) {
		t.Errorf("tools = %v, want %v", names, want)
	}
	for _, tl := range be.inputs[0].Tools {
		if tl.Name == "weather" && !strings.Contains(tl.Description, "[UI Resource: ui://fx/weather.html]") {
			t.Errorf("weather description = %q", tl.Description)
		}
	}
	var types []string
	var card *agui.ActivitySnapshot
	var result *agui.ToolCallResult
	for _, e := range evs {
		types = append(types, string(e.Type()))
		switch x := e.(type) {
		case *agui.ActivitySnapshot:
			card = x
		case *agui.ToolCallResult:
			result = x
		}
	}
	joined := strings.Join(types, ",")
	if joined != "RUN_STARTED,TOOL_CALL_START,TOOL_CALL_ARGS,TOOL_CALL_END,TOOL_CALL_RESULT,ACTIVITY_SNAPSHOT,TEXT_MESSAGE_START,TEXT_MESSAGE_CONTENT,TEXT_MESSAGE_END,RUN_FINISHED" {
		t.Fatalf("events = %s", joined)
	}
	if result.Content != "Sunny, 21°C" || result.ToolCallID != "c1" {
		t.Errorf("result = %+v", result)
	}
	var content struct {
		Result      map[string]any `json:"result"`
		ResourceURI string         `json:"resourceUri"`
		ServerHash  string         `json:"serverHash"`
		ServerID    string         `json:"serverId"`
		ToolInput   map[string]any `json:"toolInput"`
	}
	if err := json.Unmarshal(card.Content, &content); err != nil {
		t.Fatal(err)
	}
	if card.ActivityType != "mcp-apps" || content.ResourceURI != "ui://fx/weather.html" || !mcpapps.IsCapability(content.ServerHash) || content.ServerID != "fx" || content.ToolInput["city"] != "Paris" || !strings.Contains(string(card.Content), `"toolCallId":"c1"`) {
		t.Errorf("card = %s", card.Content)
	}
	if sc, _ := content.Result["structuredContent"].(map[string]any); sc["tempC"] != float64(21) || content.Result["resultType"] != nil {
		t.Errorf("card result = %v", content.Result)
	}
	// The follow-up run got the call and its result.
	if len(be.inputs) != 2 {
		t.Fatalf("%d upstream runs, want 2", len(be.inputs))
	}
	msgs := be.inputs[1].Messages
	if len(msgs) != 2 || msgs[0].ToolCalls[0].Function.Name != "weather" || msgs[0].ToolCalls[0].Function.Arguments != `{"city":"Paris"}` || msgs[1].Role != agui.RoleTool || msgs[1].Content.String() != "Sunny, 21°C" {
		b, _ := json.Marshal(msgs)
		t.Errorf("follow-up messages = %s", b)
	}
}

func TestMiddlewareParallelCallsAndCards(t *testing.T) {
	fx := mcpappstest.New()
	fx.Barrier = make(chan struct{})
	p := newPool(t, mcpapps.ServerConfig{ID: "fx", Transport: inMemory(fx)})
	go func() {
		// Both calls must be in flight at once before either may finish.
		<-fx.Arrived
		<-fx.Arrived
		close(fx.Barrier)
	}()
	be := &script{round: func(in *agui.RunAgentInput, n int) []agui.Event {
		if n == 0 {
			return append(callEvents([2]string{"a", "slow"}, [2]string{"b", "slow"}, [2]string{"c", "wrong_mime"}, [2]string{"d", "bad_uri"}, [2]string{"e", "legacy"}), &agui.RunFinished{ThreadID: in.ThreadID, RunID: in.RunID})
		}
		return []agui.Event{&agui.RunFinished{ThreadID: in.ThreadID, RunID: in.RunID}}
	}}
	done := make(chan []agui.Event)
	go func() {
		done <- runAll(t, mcpapps.Middleware(p, mcpapps.Config{Servers: []string{"fx"}})(be), &agui.RunAgentInput{ThreadID: "t", RunID: "r"})
	}()
	var evs []agui.Event
	select {
	case evs = <-done:
	case <-time.After(10 * time.Second):
		t.Fatal("calls did not run in parallel (deadlock on the barrier)")
	}
	results, cards := 0, 0
	for _, e := range evs {
		switch x := e.(type) {
		case *agui.ToolCallResult:
			results++
		case *agui.ActivitySnapshot:
			cards++
			if !strings.Contains(string(x.Content), "ui://fx/legacy.html") {
				t.Errorf("unexpected card %s (wrong MIME and non-ui:// URIs get none)", x.Content)
			}
		}
	}
	if results != 5 || cards != 1 {
		t.Errorf("%d results and %d cards, want 5 and 1", results, cards)
	}
}

func TestMiddlewareMaxRounds(t *testing.T) {
	fx := mcpappstest.New()
	p := newPool(t, mcpapps.ServerConfig{ID: "fx", Transport: inMemory(fx)})
	be := &script{round: func(in *agui.RunAgentInput, n int) []agui.Event {
		id := fmt.Sprintf("c%d", n)
		return append(callEvents([2]string{id, "secret"}), &agui.RunFinished{ThreadID: in.ThreadID, RunID: in.RunID})
	}}
	evs := runAll(t, mcpapps.Middleware(p, mcpapps.Config{Servers: []string{"fx"}, MaxToolRounds: 3})(be), &agui.RunAgentInput{ThreadID: "t", RunID: "r"})
	last, ok := evs[len(evs)-1].(*agui.RunError)
	if !ok || last.Code != "max_tool_rounds" || len(be.inputs) != 3 {
		t.Errorf("ended with %+v after %d rounds", evs[len(evs)-1], len(be.inputs))
	}
	starts := 0
	for _, e := range evs {
		if e.Type() == agui.TypeRunStarted {
			starts++
		}
	}
	if starts != 1 {
		t.Errorf("%d RUN_STARTED, want 1", starts)
	}
}

// TestProxiedRequests: a card's requests are answered only with the
// card's capability, for its own server, conversation and tools.
func TestProxiedRequests(t *testing.T) {
	fx := mcpappstest.New()
	other := mcpappstest.New()
	p := newPool(t, mcpapps.ServerConfig{ID: "fx", Transport: inMemory(fx)}, mcpapps.ServerConfig{ID: "other", Transport: inMemory(other)})
	backendCalled := 0
	be := agui.AgentFunc(func(ctx context.Context, req *agui.Request) iter.Seq2[agui.Event, error] {
		in := req.Input
		backendCalled++
		return func(yield func(agui.Event, error) bool) {
			_ = yield(&agui.RunStarted{ThreadID: in.ThreadID, RunID: in.RunID}, nil) && yield(&agui.RunFinished{ThreadID: in.ThreadID, RunID: in.RunID, Result: agui.JSON(`"backend"`)}, nil)
		}
	})
	caps := mcpapps.NewCapabilities([]byte("test-key"), time.Hour)
	mw := mcpapps.Middleware(p, mcpapps.Config{Servers: []string{"fx"}, Caps: caps})(be)
	ctx := context.Background()
	askOn := func(thread string, req map[string]any) string {
		fp, _ := json.Marshal(map[string]any{"__proxiedMCPRequest": req})
		var evs []agui.Event
		for ev, err := range agui.Normalize(agui.Output)(mw).Run(ctx, &agui.Request{Input: &agui.RunAgentInput{ThreadID: thread, RunID: "r", ForwardedProps: agui.JSON(fp)}, Principal: "alice"}) {
			if err != nil {
				t.Fatal(err)
			}
			evs = append(evs, ev)
		}
		if len(evs) != 2 {
			t.Fatalf("events = %v", evs)
		}
		return string(evs[1].(*agui.RunFinished).Result)
	}
	ask := func(req map[string]any) string { return askOn("t", req) }
	cp := caps.Mint(mcpapps.Capability{Server: "fx", Resource: "ui://fx/weather.html", ToolCall: "c1", Principal: "alice", Thread: "t", Tools: []string{"refresh", "weather", "string_vis"}})
	onlyWeather := caps.Mint(mcpapps.Capability{Server: "fx", Resource: "ui://fx/weather.html", Principal: "alice", Thread: "t", Tools: []string{"weather"}})
	otherThread := caps.Mint(mcpapps.Capability{Server: "fx", Resource: "ui://fx/weather.html", Principal: "alice", Thread: "elsewhere", Tools: []string{"refresh"}})
	otherPrincipal := caps.Mint(mcpapps.Capability{Server: "fx", Resource: "ui://fx/weather.html", Principal: "bob", Thread: "t", Tools: []string{"refresh"}})
	otherKey := mcpapps.NewCapabilities([]byte("another key"), time.Hour).Mint(mcpapps.Capability{Server: "fx", Principal: "alice", Thread: "t", Tools: []string{"refresh"}})
	forged := cp[:len(cp)-4] + "AAAA"
	hash := p.Hash("fx")
	for _, tt := range []struct {
		name string
		req  map[string]any
		want string
	}{
		{"app tool allowed", map[string]any{"serverHash": cp, "method": "tools/call", "params": map[string]any{"name": "refresh", "arguments": map[string]any{}}}, `"text":"refreshed"`},
		{"a string visibility is a one-element list", map[string]any{"serverHash": cp, "serverId": "fx", "method": "tools/call", "params": map[string]any{"name": "string_vis"}}, `"text":"string_vis"`},
		{"model-only tool refused", map[string]any{"serverHash": cp, "method": "tools/call", "params": map[string]any{"name": "secret"}}, `"code":-32600`},
		{"unknown tool refused", map[string]any{"serverHash": cp, "method": "tools/call", "params": map[string]any{"name": "nope"}}, `has no tool`},
		{"tool outside the capability refused", map[string]any{"serverHash": onlyWeather, "method": "tools/call", "params": map[string]any{"name": "refresh"}}, `does not include tool`},
		{"no capability refused", map[string]any{"serverHash": hash, "method": "tools/call", "params": map[string]any{"name": "refresh"}}, `must carry the card's capability`},
		{"serverId without capability refused", map[string]any{"serverId": "fx", "method": "ping"}, `must carry the card's capability`},
		{"forged capability refused", map[string]any{"serverHash": forged, "method": "tools/call", "params": map[string]any{"name": "refresh"}}, `not valid`},
		{"another key's capability refused", map[string]any{"serverHash": otherKey, "method": "ping"}, `not valid`},
		{"another thread's card refused", map[string]any{"serverHash": otherThread, "method": "tools/call", "params": map[string]any{"name": "refresh"}}, `another conversation`},
		{"another principal's card refused", map[string]any{"serverHash": otherPrincipal, "method": "ping"}, `another conversation`},
		{"id and capability disagree", map[string]any{"serverHash": cp, "serverId": "other", "method": "ping"}, `different servers`},
		{"resource read", map[string]any{"serverHash": cp, "method": "resources/read", "params": map[string]any{"uri": "ui://fx/weather.html"}}, `"mimeType":"text/html;profile=mcp-app"`},
		{"resource csp kept", map[string]any{"serverHash": cp, "method": "resources/read", "params": map[string]any{"uri": "ui://fx/weather.html"}}, `"connectDomains":["https://api.example.com"]`},
		{"data resource refused", map[string]any{"serverHash": cp, "method": "resources/read", "params": map[string]any{"uri": "file://fx/secret.json"}}, `only ui:// resources`},
		{"method refused", map[string]any{"serverHash": cp, "method": "tools/list"}, `is not allowed`},
		{"sampling refused", map[string]any{"serverHash": cp, "method": "sampling/createMessage"}, `is not allowed`},
		{"ping", map[string]any{"serverHash": cp, "method": "ping"}, `{}`},
		{"log", map[string]any{"serverHash": cp, "method": "notifications/message", "params": map[string]any{"level": "info", "data": "hi"}}, `{}`},
	} {
		if got := ask(tt.req); !strings.Contains(got, tt.want) {
			t.Errorf("%s: result %s, want it to contain %s", tt.name, got, tt.want)
		}
	}
	// resources/list shows a card only the ui:// resources.
	if got := ask(map[string]any{"serverHash": cp, "method": "resources/list"}); !strings.Contains(got, "ui://fx/weather.html") || strings.Contains(got, "secret.json") {
		t.Errorf("resources/list = %s", got)
	}
	// The capability only works on its own thread.
	if got := askOn("elsewhere", map[string]any{"serverHash": cp, "method": "ping"}); !strings.Contains(got, "another conversation") {
		t.Errorf("a card's capability used on another thread: %s", got)
	}
	if fx.CallCount("secret") != 0 || fx.CallCount("refresh") != 1 || fx.CallCount("string_vis") != 1 {
		t.Errorf("calls reaching the server: %v", fx.Calls)
	}
	// The server learns who is calling.
	if c := fx.LastCaller(); c["principal"] != "alice" || c["threadId"] != "t" || c["source"] != "app" || c["toolCallId"] != "c1" {
		t.Errorf("caller metadata = %v", c)
	}
	if backendCalled != 0 {
		t.Errorf("the backend was called %d times for our own servers", backendCalled)
	}
	// A hash we did not mint goes to the backend unchanged.
	if got := ask(map[string]any{"serverHash": "abc123", "method": "tools/call"}); got != `"backend"` || backendCalled != 1 {
		t.Errorf("foreign hash: %s (backend calls %d)", got, backendCalled)
	}
	// With acceptPlainServerHash, frontends that cached a plain hash work.
	plain := mcpapps.Middleware(p, mcpapps.Config{Servers: []string{"fx"}, Caps: caps, AcceptPlainServerHash: true})(be)
	fp, _ := json.Marshal(map[string]any{"__proxiedMCPRequest": map[string]any{"serverHash": hash, "method": "tools/call", "params": map[string]any{"name": "refresh"}}})
	evs := runAll(t, plain, &agui.RunAgentInput{ThreadID: "t", RunID: "r", ForwardedProps: agui.JSON(fp)})
	if got := string(evs[1].(*agui.RunFinished).Result); !strings.Contains(got, "refreshed") {
		t.Errorf("plain hash with acceptPlainServerHash: %s", got)
	}
}

// TestCardsCarryCapabilities: a card the middleware emits works for its
// own conversation's proxied requests, and the agent's calls carry the
// caller.
func TestCardsCarryCapabilities(t *testing.T) {
	fx := mcpappstest.New()
	p := newPool(t, mcpapps.ServerConfig{ID: "fx", Transport: inMemory(fx)})
	be := &script{round: func(in *agui.RunAgentInput, n int) []agui.Event {
		if n == 0 {
			return append(callEvents([2]string{"c7", "weather"}), &agui.RunFinished{ThreadID: in.ThreadID, RunID: in.RunID})
		}
		return []agui.Event{&agui.RunFinished{ThreadID: in.ThreadID, RunID: in.RunID}}
	}}
	mw := mcpapps.Middleware(p, mcpapps.Config{Servers: []string{"fx"}, Caps: mcpapps.NewCapabilities(nil, 0)})(be)
	ctx := context.Background()
	var card mcpapps.Card
	for ev := range mw.Run(ctx, &agui.Request{Input: &agui.RunAgentInput{ThreadID: "th", RunID: "r1"}, Principal: "carol"}) {
		if a, ok := ev.(*agui.ActivitySnapshot); ok {
			json.Unmarshal(a.Content, &card)
		}
	}
	if c := fx.LastCaller(); c["principal"] != "carol" || c["threadId"] != "th" || c["runId"] != "r1" || c["toolCallId"] != "c7" || c["source"] != "model" {
		t.Errorf("the agent's call carried caller %v", c)
	}
	if card.ToolCallID != "c7" || !mcpapps.IsCapability(card.ServerHash) {
		t.Fatalf("card = %+v", card)
	}
	fp, _ := json.Marshal(map[string]any{"__proxiedMCPRequest": map[string]any{"serverHash": card.ServerHash, "serverId": card.ServerID, "method": "tools/call", "params": map[string]any{"name": "refresh"}}})
	var res string
	for ev := range mw.Run(ctx, &agui.Request{Input: &agui.RunAgentInput{ThreadID: "th", RunID: "r2", ForwardedProps: agui.JSON(fp)}, Principal: "carol"}) {
		if f, ok := ev.(*agui.RunFinished); ok {
			res = string(f.Result)
		}
	}
	if !strings.Contains(res, "refreshed") {
		t.Errorf("the card's own request = %s", res)
	}
}

// TestCallerHeaders: an HTTP MCP server gets the caller (and the inbound
// headers the deployment forwards) as headers.
func TestCallerHeaders(t *testing.T) {
	fx := mcpappstest.New()
	var mu sync.Mutex
	var seen []http.Header
	h := mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return fx.Server }, nil)
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		seen = append(seen, r.Header.Clone())
		mu.Unlock()
		h.ServeHTTP(w, r)
	}))
	defer ts.Close()
	p := newPool(t, mcpapps.ServerConfig{ID: "fx", URL: ts.URL, CallerHeaders: map[string]string{"principal": "X-Genui-Principal", "thread": "X-Genui-Thread"}, ForwardHeaders: []string{"Authorization"}})
	defer p.Close()
	in := http.Header{}
	in.Set("Authorization", "Bearer end-user-token")
	ctx := context.Background()
	dave := &mcpapps.Caller{Principal: "dave", ThreadID: "t9", Source: "app", Header: in}
	if _, err := p.Call(ctx, dave, "fx", "secret", map[string]any{}); err != nil {
		t.Fatal(err)
	}
	mu.Lock()
	last := seen[len(seen)-1]
	mu.Unlock()
	if last.Get("X-Genui-Principal") != "dave" || last.Get("X-Genui-Thread") != "t9" || last.Get("Authorization") != "Bearer end-user-token" {
		t.Errorf("headers = %v", last)
	}
	if c := fx.LastCaller(); c["principal"] != "dave" {
		t.Errorf("_meta caller = %v", c)
	}
}

// kill stops ts at once. Close alone waits for every open request, and
// the pool reconnects fast: a standalone SSE stream opened between
// CloseClientConnections and Close kept Close waiting for ever (a CI run
// hung here), so connections are cut until Close has returned.
func kill(ts *httptest.Server) {
	ts.Listener.Close()
	closed := make(chan struct{})
	go func() { ts.Close(); close(closed) }()
	for {
		ts.CloseClientConnections()
		select {
		case <-closed:
			return
		case <-time.After(10 * time.Millisecond):
		}
	}
}

func TestPoolReconnects(t *testing.T) {
	fx := mcpappstest.New()
	handler := mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return fx.Server }, nil)
	ts := httptest.NewUnstartedServer(handler)
	ts.Start()
	addr := ts.Listener.Addr().String()
	p := newPool(t, mcpapps.ServerConfig{ID: "fx", URL: "http://" + addr})
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	if _, err := p.Call(ctx, nil, "fx", "secret", map[string]any{}); err != nil {
		t.Fatal(err)
	}
	// The server dies...
	kill(ts)
	// A call now fails fast or waits for the reconnection; bound it so
	// the server can come back meanwhile.
	short, cancelShort := context.WithTimeout(ctx, 200*time.Millisecond)
	p.Call(short, nil, "fx", "secret", map[string]any{})
	cancelShort()
	// ...and comes back on the same address.
	ts2 := httptest.NewUnstartedServer(handler)
	ln, err := listenRetry(addr)
	if err != nil {
		t.Fatal(err)
	}
	ts2.Listener = ln
	ts2.Start()
	defer func() {
		p.Close() // ends the pool's standalone SSE stream first
		kill(ts2)
	}()
	for {
		if _, err := p.Call(ctx, nil, "fx", "secret", map[string]any{}); err == nil {
			break
		} else if ctx.Err() != nil {
			t.Fatalf("pool did not reconnect: %v", err)
		}
		time.Sleep(50 * time.Millisecond)
	}
	if n := fx.CallCount("secret"); n < 2 {
		t.Errorf("secret called %d times", n)
	}
}

// TestMiddlewareBoundsWhatARoundKeeps: endless arguments and text cannot
// grow the middleware without end: oversized arguments become a tool
// error, and the follow-up run gets a cut transcript.
func TestMiddlewareBoundsWhatARoundKeeps(t *testing.T) {
	fx := mcpappstest.New()
	p := newPool(t, mcpapps.ServerConfig{ID: "fx", Transport: inMemory(fx)})
	chunk := strings.Repeat("x", 64<<10)
	be := &script{round: func(in *agui.RunAgentInput, n int) []agui.Event {
		if n > 0 {
			return []agui.Event{&agui.RunFinished{ThreadID: in.ThreadID, RunID: in.RunID}}
		}
		evs := []agui.Event{&agui.TextMessageStart{MessageID: "m", Role: "assistant"}}
		for range 200 { // 12.5 MiB of text
			evs = append(evs, &agui.TextMessageContent{MessageID: "m", Delta: chunk})
		}
		evs = append(evs, &agui.TextMessageEnd{MessageID: "m"}, &agui.ToolCallStart{ToolCallID: "c1", ToolCallName: "weather", ParentMessageID: "m"})
		for range 40 { // 2.5 MiB of arguments
			evs = append(evs, &agui.ToolCallArgs{ToolCallID: "c1", Delta: chunk})
		}
		return append(evs, &agui.ToolCallEnd{ToolCallID: "c1"}, &agui.RunFinished{ThreadID: in.ThreadID, RunID: in.RunID})
	}}
	evs := runAll(t, mcpapps.Middleware(p, mcpapps.Config{Servers: []string{"fx"}})(be), &agui.RunAgentInput{ThreadID: "t", RunID: "r"})
	var res *agui.ToolCallResult
	for _, e := range evs {
		if r, ok := e.(*agui.ToolCallResult); ok {
			res = r
		}
	}
	if res == nil || !strings.Contains(res.Content, "larger than") {
		t.Fatalf("oversized arguments gave %+v", res)
	}
	size := 0
	for _, m := range be.inputs[1].Messages {
		size += len(m.Content.String())
		for _, c := range m.ToolCalls {
			size += len(c.Function.Arguments)
		}
	}
	if size > 9<<20 {
		t.Errorf("the follow-up run got %d bytes of transcript, want ≤ 8 MiB", size)
	}
}

// An upstream that ends every round with its own MESSAGES_SNAPSHOT (as
// LangGraph does) still gets the round's results in the follow-up: the
// snapshot of a round that led to another is held back, the last one is
// sent before RUN_FINISHED.
func TestMiddlewareHoldsIntermediateSnapshots(t *testing.T) {
	fx := mcpappstest.New()
	p := newPool(t, mcpapps.ServerConfig{ID: "fx", Transport: inMemory(fx)})
	be := &script{round: func(in *agui.RunAgentInput, n int) []agui.Event {
		snap := &agui.MessagesSnapshot{Messages: append([]agui.Message(nil), in.Messages...)}
		if n == 0 {
			return append(callEvents([2]string{"c0", "secret"}), snap, &agui.RunFinished{ThreadID: in.ThreadID, RunID: in.RunID})
		}
		return []agui.Event{snap, &agui.RunFinished{ThreadID: in.ThreadID, RunID: in.RunID}}
	}}
	evs := runAll(t, mcpapps.Middleware(p, mcpapps.Config{Servers: []string{"fx"}})(be), &agui.RunAgentInput{ThreadID: "t", RunID: "r"})
	if len(be.inputs) != 2 {
		t.Fatalf("%d rounds, want 2", len(be.inputs))
	}
	if msgs := be.inputs[1].Messages; len(msgs) != 2 || msgs[1].Role != agui.RoleTool {
		b, _ := json.Marshal(msgs)
		t.Fatalf("follow-up messages = %s, want the call and its result", b)
	}
	var snaps []*agui.MessagesSnapshot
	for _, e := range evs {
		if s, ok := e.(*agui.MessagesSnapshot); ok {
			snaps = append(snaps, s)
		}
	}
	if len(snaps) != 1 || len(snaps[0].Messages) != 2 || evs[len(evs)-2] != agui.Event(snaps[0]) {
		t.Errorf("snapshots sent: %d (want only the last round's, right before RUN_FINISHED)", len(snaps))
	}
}

// cardsOf returns the mcp-apps activity events, as JSON lines.
func cardsOf(evs []agui.Event) []string {
	var out []string
	for _, e := range evs {
		switch x := e.(type) {
		case *agui.ActivitySnapshot:
			if x.ActivityType == "mcp-apps" {
				out = append(out, "snapshot "+x.MessageID+" "+string(x.Content))
			}
		case *agui.ActivityDelta:
			out = append(out, "delta "+x.MessageID+" "+string(x.Patch))
		}
	}
	return out
}

// A host that asks for loading cards gets the card when the call starts,
// its input as it streams, the complete input before the tool runs, and
// the result last, all on one activity message named by the call.
func TestLoadingCards(t *testing.T) {
	fx := mcpappstest.New()
	p := newPool(t, mcpapps.ServerConfig{ID: "fx", Transport: inMemory(fx)})
	be := &script{round: func(in *agui.RunAgentInput, n int) []agui.Event {
		if n > 0 {
			return []agui.Event{&agui.RunFinished{ThreadID: in.ThreadID, RunID: in.RunID}}
		}
		evs := []agui.Event{&agui.ToolCallStart{ToolCallID: "c1", ToolCallName: "weather"}}
		for _, d := range []string{`{"ci`, `ty":`, `"Pa`, `ris", "days": [1,2,3,4,5,6,7,8,9,10]}`} {
			evs = append(evs, &agui.ToolCallArgs{ToolCallID: "c1", Delta: d})
		}
		return append(evs, &agui.ToolCallEnd{ToolCallID: "c1"}, &agui.RunFinished{ThreadID: in.ThreadID, RunID: in.RunID})
	}}
	mw := mcpapps.Middleware(p, mcpapps.Config{Servers: []string{"fx"}})
	in := &agui.RunAgentInput{ThreadID: "t", RunID: "r", ForwardedProps: agui.JSON(`{"mcpAppsHost":{"loadingCards":true}}`)}
	cards := cardsOf(runAll(t, mw(be), in))
	if len(cards) < 4 {
		t.Fatalf("cards %q", cards)
	}
	first, last := cards[0], cards[len(cards)-1]
	if !strings.HasPrefix(first, "snapshot mcp-apps-c1 ") || !strings.Contains(first, `"status":"input-streaming"`) || strings.Contains(first, `"result"`) {
		t.Errorf("first card %s", first)
	}
	var deltas int
	var available int
	for i, c := range cards[1 : len(cards)-1] {
		switch {
		case strings.HasPrefix(c, "delta mcp-apps-c1 ") && strings.Contains(c, "/partialArguments"):
			deltas++
		case strings.Contains(c, `"status":"input-available"`) && strings.Contains(c, `"toolInput":{"city":"Paris","days"`):
			available++
			if i != len(cards)-3 {
				t.Errorf("the complete input is not the card before the result: %q", cards)
			}
		}
	}
	if deltas == 0 || deltas > 3 || available != 1 {
		t.Errorf("%d partial-input deltas (want 1..3, fewer than the 4 chunks), %d input-available cards: %q", deltas, available, cards)
	}
	if !strings.HasPrefix(last, "snapshot mcp-apps-c1 ") || !strings.Contains(last, `"result":{`) || strings.Contains(last, `"status"`) {
		t.Errorf("last card %s", last)
	}
	// Without the host's say-so: only the final card (the stock renderers
	// require a result).
	be.inputs = nil
	in.ForwardedProps = nil
	if cards := cardsOf(runAll(t, mw(be), in)); len(cards) != 1 || !strings.Contains(cards[0], `"result":{`) {
		t.Errorf("stock host cards %q", cards)
	}
}

// A UI tool whose call fails still gets its card, with an isError result
// the View can show; the model gets the error as the tool result.
func TestFailedCallReachesTheView(t *testing.T) {
	fx := mcpappstest.New()
	p := newPool(t, mcpapps.ServerConfig{ID: "fx", Transport: inMemory(fx)})
	be := &script{round: func(in *agui.RunAgentInput, n int) []agui.Event {
		if n > 0 {
			return []agui.Event{&agui.RunFinished{ThreadID: in.ThreadID, RunID: in.RunID}}
		}
		return append(callEvents([2]string{"c1", "broken_ui"}), &agui.RunFinished{ThreadID: in.ThreadID, RunID: in.RunID})
	}}
	evs := runAll(t, mcpapps.Middleware(p, mcpapps.Config{Servers: []string{"fx"}})(be), &agui.RunAgentInput{ThreadID: "t", RunID: "r"})
	cards := cardsOf(evs)
	if len(cards) != 1 || !strings.Contains(cards[0], `"isError":true`) || !strings.Contains(cards[0], "the weather service is down") {
		t.Errorf("cards %q", cards)
	}
	if msgs := be.inputs[1].Messages; !strings.Contains(msgs[len(msgs)-1].Content.String(), "the weather service is down") {
		t.Errorf("the model got %q", msgs[len(msgs)-1].Content.String())
	}
}

// A server's instructions reach the agent as a context entry naming the
// server, for the runs that offer its tools.
func TestServerInstructionsInContext(t *testing.T) {
	fx := mcpappstest.New()
	p := newPool(t, mcpapps.ServerConfig{ID: "fx", Transport: inMemory(fx)})
	be := &script{round: func(in *agui.RunAgentInput, n int) []agui.Event {
		return []agui.Event{&agui.RunFinished{ThreadID: in.ThreadID, RunID: in.RunID}}
	}}
	runAll(t, mcpapps.Middleware(p, mcpapps.Config{Servers: []string{"fx"}})(be), &agui.RunAgentInput{ThreadID: "t", RunID: "r", Context: []agui.ContextItem{{Description: "page", Value: "orders"}}})
	ctx := be.inputs[0].Context
	if len(ctx) != 2 || ctx[0].Value != "orders" || ctx[1].Value != mcpappstest.Instructions || !strings.Contains(ctx[1].Description, `"fx"`) || !strings.Contains(ctx[1].Description, "weather") {
		t.Errorf("context %+v", ctx)
	}
}

// A result carrying its UI inline is a card, and the card's resources/read
// is answered from it (the server does not serve that URI).
func TestInlineUIResource(t *testing.T) {
	fx := mcpappstest.New()
	p := newPool(t, mcpapps.ServerConfig{ID: "fx", Transport: inMemory(fx)})
	caps := mcpapps.NewCapabilities([]byte("k"), 0)
	cfg := mcpapps.Config{Servers: []string{"fx"}, Caps: caps}
	be := &script{round: func(in *agui.RunAgentInput, n int) []agui.Event {
		if n > 0 {
			return []agui.Event{&agui.RunFinished{ThreadID: in.ThreadID, RunID: in.RunID}}
		}
		return append(callEvents([2]string{"c1", "inline_ui"}), &agui.RunFinished{ThreadID: in.ThreadID, RunID: in.RunID})
	}}
	mw := mcpapps.Middleware(p, cfg)
	evs := runAll(t, mw(be), &agui.RunAgentInput{ThreadID: "t", RunID: "r"})
	var card mcpapps.Card
	for _, e := range evs {
		if a, ok := e.(*agui.ActivitySnapshot); ok && a.ActivityType == "mcp-apps" {
			json.Unmarshal(a.Content, &card)
		}
	}
	if card.ResourceURI != "ui://fx/inline.html" {
		t.Fatalf("card %+v", card)
	}
	req, _ := json.Marshal(map[string]any{"serverHash": card.ServerHash, "method": "resources/read", "params": map[string]any{"uri": card.ResourceURI}})
	fp, _ := json.Marshal(map[string]json.RawMessage{mcpapps.ProxiedRequestKey: req})
	evs = runAll(t, mw(be), &agui.RunAgentInput{ThreadID: "t", RunID: "r2", ForwardedProps: agui.JSON(fp)})
	fin, _ := evs[len(evs)-1].(*agui.RunFinished)
	if fin == nil || !strings.Contains(string(fin.Result), "Inline") {
		t.Errorf("the card's read got %v", evs[len(evs)-1])
	}
}

// testLogger writes the pool's and middleware's records to the test log.
func testLogger(t *testing.T) *slog.Logger {
	return slog.New(slog.NewTextHandler(t.Output(), nil))
}

// The MCP Apps extension both ways in initialize: the adapter declares it
// with the MIME type it renders, and reads the server's.
func TestExtensionNegotiated(t *testing.T) {
	fx := mcpappstest.New()
	p := newPool(t, mcpapps.ServerConfig{ID: "fx", Transport: inMemory(fx)})
	ui, ok := p.ServerUI("fx")
	if types, _ := ui["mimeTypes"].([]any); !ok || len(types) != 1 || types[0] != mcpapps.MIMEType {
		t.Errorf("the server's extension = %v, %v", ui, ok)
	}
	n := 0
	for ss := range fx.Sessions() {
		ext, _ := ss.InitializeParams().Capabilities.Extensions[mcpapps.ExtensionID].(map[string]any)
		if types, _ := ext["mimeTypes"].([]any); len(types) == 0 || types[0] != mcpapps.MIMEType {
			t.Errorf("declared %v", ss.InitializeParams().Capabilities.Extensions)
		}
		n++
	}
	if n == 0 {
		t.Fatal("no session")
	}
	if _, ok := p.ServerUI("nope"); ok {
		t.Error("an unknown server has an extension")
	}
}

// A card's View logs through its capability (logged with the card's
// tool and instance), a flood and an oversized message are refused with
// JSON-RPC error codes the bridge hands the View; ui/download-file gives
// back allowed files (a resource link read from the card's own server)
// and refuses other types, oversized ones, more files than MaxFiles and
// malformed params.
func TestCardLogsAndDownloads(t *testing.T) {
	fx := mcpappstest.New()
	p := newPool(t, mcpapps.ServerConfig{ID: "fx", Transport: inMemory(fx)})
	var logs strings.Builder
	var mu sync.Mutex
	log := slog.New(slog.NewTextHandler(lockedWriter{&mu, &logs}, nil))
	caps := mcpapps.NewCapabilities([]byte("k"), time.Hour)
	cfg := mcpapps.Config{
		Servers: []string{"fx"}, Caps: caps, Logger: log,
		ViewLogs:  mcpapps.NewViewLogs(mcpapps.ViewLogOptions{Rate: 1, Burst: 2, MaxBytes: 200}),
		Downloads: mcpapps.DownloadOptions{MIMETypes: []string{"text/csv", "application/json"}, MaxBytes: 40, MaxFiles: 2},
	}
	be := &script{round: func(in *agui.RunAgentInput, n int) []agui.Event {
		if n > 0 {
			return []agui.Event{&agui.RunFinished{ThreadID: in.ThreadID, RunID: in.RunID}}
		}
		return append(callEvents([2]string{"c1", "weather"}), &agui.RunFinished{ThreadID: in.ThreadID, RunID: in.RunID})
	}}
	mw := mcpapps.Middleware(p, cfg)
	var card mcpapps.Card
	for _, e := range runAll(t, mw(be), &agui.RunAgentInput{ThreadID: "t", RunID: "r"}) {
		if a, ok := e.(*agui.ActivitySnapshot); ok && a.ActivityType == "mcp-apps" {
			json.Unmarshal(a.Content, &card)
		}
	}
	if !mcpapps.IsCapability(card.ServerHash) {
		t.Fatalf("card %+v", card)
	}
	ask := func(method string, params any) map[string]any {
		t.Helper()
		req, _ := json.Marshal(map[string]any{"serverHash": card.ServerHash, "method": method, "params": params})
		fp, _ := json.Marshal(map[string]json.RawMessage{mcpapps.ProxiedRequestKey: req})
		evs := runAll(t, mw(be), &agui.RunAgentInput{ThreadID: "t", RunID: "p", ForwardedProps: agui.JSON(fp)})
		fin, _ := evs[len(evs)-1].(*agui.RunFinished)
		if fin == nil {
			t.Fatalf("%s: %v", method, evs)
		}
		var out map[string]any
		if err := json.Unmarshal(fin.Result, &out); err != nil {
			t.Fatalf("%s: %s", method, fin.Result)
		}
		return out
	}
	code := func(r map[string]any) float64 { c, _ := r["code"].(float64); return c }

	// Logs: two at once (the burst), then refused with -32000.
	if r := ask("ui/log", map[string]any{"level": "warning", "data": map[string]any{"n": 1}, "logger": "view"}); len(r) != 0 {
		t.Errorf("ui/log = %v", r)
	}
	if r := ask("notifications/message", map[string]any{"level": "info", "data": "two"}); len(r) != 0 {
		t.Errorf("notifications/message = %v", r)
	}
	if r := ask("ui/log", map[string]any{"level": "info", "data": "three"}); code(r) != -32000 || !strings.Contains(r["error"].(string), "rate") {
		t.Errorf("a flood = %v", r)
	}
	if r := ask("ui/log", map[string]any{"level": "info", "data": strings.Repeat("x", 300)}); code(r) != -32602 {
		t.Errorf("an oversized message = %v", r)
	}
	mu.Lock()
	got := logs.String()
	mu.Unlock()
	for _, want := range []string{"card log", "tool=weather", "card=c1", "resource=ui://fx/weather.html", "level=warning", "logger=view"} {
		if !strings.Contains(got, want) {
			t.Errorf("the log lacks %s:\n%s", want, got)
		}
	}

	// Downloads.
	csv := map[string]any{"type": "resource", "resource": map[string]any{"uri": "file:///r/report.csv", "mimeType": "text/csv", "text": "a,b\n1,2\n"}}
	r := ask("ui/download-file", map[string]any{"contents": []any{csv, map[string]any{"type": "resource_link", "uri": "file://fx/secret.json", "name": "secret.json"}}})
	files, _ := r["contents"].([]any)
	if len(files) != 2 {
		t.Fatalf("download = %v", r)
	}
	if f := files[0].(map[string]any); f["name"] != "report.csv" || f["text"] != "a,b\n1,2\n" || f["mimeType"] != "text/csv" {
		t.Errorf("embedded file = %v", f)
	}
	if f := files[1].(map[string]any); f["name"] != "secret.json" || f["text"] != `{"secret":42}` {
		t.Errorf("linked file = %v", f)
	}
	tiny := map[string]any{"type": "resource", "resource": map[string]any{"uri": "t.csv", "mimeType": "text/csv", "text": "1"}}
	for name, params := range map[string]any{
		"a type not allowed": map[string]any{"contents": []any{map[string]any{"type": "resource", "resource": map[string]any{"uri": "x.svg", "mimeType": "image/svg+xml", "text": "<svg/>"}}}},
		"too large":          map[string]any{"contents": []any{map[string]any{"type": "resource", "resource": map[string]any{"uri": "x.csv", "mimeType": "text/csv", "text": strings.Repeat("1,", 30)}}}},
		"a large blob":       map[string]any{"contents": []any{map[string]any{"type": "resource", "resource": map[string]any{"uri": "x.json", "mimeType": "application/json", "blob": strings.Repeat("AAAA", 20)}}}},
		"a linked HTML page": map[string]any{"contents": []any{map[string]any{"type": "resource_link", "uri": "ui://fx/weather.html", "name": "w"}}},
		"no contents":        map[string]any{},
		"more than MaxFiles": map[string]any{"contents": []any{tiny, tiny, tiny}},
		"an unknown item":    map[string]any{"contents": []any{map[string]any{"type": "text", "text": "hi"}}},
	} {
		if r := ask("ui/download-file", params); code(r) != -32602 || r["contents"] != nil {
			t.Errorf("%s: %v", name, r)
		}
	}
	if r := ask("ui/download-file", map[string]any{"contents": []any{map[string]any{"type": "resource_link", "uri": "file://fx/none.csv", "name": "n"}}}); r["error"] == nil || r["contents"] != nil {
		t.Errorf("a link the server cannot read: %v", r)
	}
}

type lockedWriter struct {
	mu *sync.Mutex
	w  *strings.Builder
}

func (l lockedWriter) Write(b []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(b)
}

// A server's ProtocolVersion is what the pool asks for: the default
// 2025-11-25, or the 2026-07-28 wire (server/discover) where the official
// Python SDK declares the MCP Apps extension; tools and UI resources work
// on both.
func TestProtocolVersion(t *testing.T) {
	for _, want := range []string{"", "2026-07-28"} {
		fx := mcpappstest.New()
		p := newPool(t, mcpapps.ServerConfig{ID: "fx", Transport: inMemory(fx), ProtocolVersion: want})
		if want == "" {
			want = mcpapps.DefaultProtocolVersion
		}
		for ss := range fx.Sessions() {
			if got := ss.InitializeParams().ProtocolVersion; got != want {
				t.Errorf("asked for %q, the server saw %q", want, got)
			}
		}
		if _, ok := p.ServerUI("fx"); !ok {
			t.Errorf("%s: the server's extension was not read", want)
		}
		res, err := p.UIResource(context.Background(), nil, "fx", "ui://fx/weather.html")
		if err != nil || res.HTML != mcpappstest.HTML {
			t.Errorf("%s: UI resource %v, %v", want, res, err)
		}
	}
}

// The connection log says whether a server declared the MCP Apps
// extension: "none", or its settings as JSON, "{}" when it declared the
// extension without settings (as the official Python SDK does).
func TestExtensionLogged(t *testing.T) {
	bare := mcp.NewServer(&mcp.Implementation{Name: "bare", Version: "1"}, &mcp.ServerOptions{
		Capabilities: &mcp.ServerCapabilities{Tools: &mcp.ToolCapabilities{}, Extensions: map[string]any{mcpapps.ExtensionID: map[string]any{}}},
	})
	silent := mcp.NewServer(&mcp.Implementation{Name: "silent", Version: "1"}, nil)
	serve := func(s *mcp.Server) func() mcp.Transport {
		return func() mcp.Transport {
			st, ct := mcp.NewInMemoryTransports()
			go s.Connect(context.Background(), st, nil)
			return ct
		}
	}
	var buf strings.Builder
	var mu sync.Mutex
	p, err := mcpapps.NewPool([]mcpapps.ServerConfig{{ID: "bare", Transport: serve(bare)}, {ID: "silent", Transport: serve(silent)}},
		mcpapps.PoolOptions{Logger: slog.New(slog.NewTextHandler(lockedWriter{w: &buf, mu: &mu}, nil))})
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := p.WaitReady(ctx); err != nil {
		t.Fatal(err)
	}
	// The record follows readiness: wait for both.
	wants := []string{"server=bare tools=0 mcp_apps={}", "server=silent tools=0 mcp_apps=none"}
	var logged string
	for ctx.Err() == nil {
		mu.Lock()
		logged = buf.String()
		mu.Unlock()
		if strings.Count(logged, `msg="mcp: connected"`) == 2 {
			break
		}
		time.Sleep(10 * time.Millisecond)
	}
	for _, want := range wants {
		if !strings.Contains(logged, want) {
			t.Errorf("%q not logged:\n%s", want, logged)
		}
	}
}
