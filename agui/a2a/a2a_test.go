package a2a

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"io/fs"
	"net/http"
	"net/http/httptest"
	"reflect"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/santhosh-tekuri/jsonschema/v6"
	"go.uber.org/goleak"

	"github.com/genui-adapter/genui-adapter/agui"
	"github.com/genui-adapter/genui-adapter/agui/aguihttp"
	"github.com/genui-adapter/genui-adapter/schemas"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// fake is an A2A agent of protocol version v that answers message/stream
// (or SendStreamingMessage) with the given results, recording requests.
type fake struct {
	v       string
	ext     string // the card's A2UI extension URI (default Extension)
	results []string
	mu      sync.Mutex
	reqs    []map[string]any
	headers []http.Header
}

func (f *fake) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if strings.HasSuffix(r.URL.Path, "agent-card.json") {
		url := "http://" + r.Host + "/rpc"
		ext := f.ext
		if ext == "" {
			ext = Extension
		}
		if f.v == "1.0" {
			fmt.Fprintf(w, `{"name":"f","supportedInterfaces":[{"url":%q,"protocolBinding":"JSONRPC","protocolVersion":"1.0"}],"capabilities":{"extensions":[{"uri":%q}]}}`, url, ext)
		} else {
			fmt.Fprintf(w, `{"name":"f","url":%q,"protocolVersion":"0.3.0","capabilities":{"extensions":[{"uri":%q}]}}`, url, ext)
		}
		return
	}
	var body map[string]any
	_ = json.NewDecoder(r.Body).Decode(&body)
	f.mu.Lock()
	f.reqs = append(f.reqs, body)
	f.headers = append(f.headers, r.Header.Clone())
	f.mu.Unlock()
	w.Header().Set("Content-Type", "text/event-stream")
	for _, res := range f.results {
		fmt.Fprintf(w, "data: {\"jsonrpc\":\"2.0\",\"id\":1,\"result\":%s}\n\n", res)
	}
}

func runAll(t *testing.T, a *Agent, in *agui.RunAgentInput) ([]agui.Event, error) {
	t.Helper()
	var out []agui.Event
	for ev, err := range a.Run(context.Background(), &agui.Request{Input: in}) {
		if err != nil {
			return out, err
		}
		out = append(out, ev)
	}
	return out, nil
}

func userInput(text string) *agui.RunAgentInput {
	return &agui.RunAgentInput{ThreadID: "t", RunID: "r", Messages: []agui.Message{{ID: "u", Role: agui.RoleUser, Content: agui.Text(text)}}}
}

// A 0.3 and a 1.0 stream of the same exchange give the same AG-UI events.
func TestBothProtocols(t *testing.T) {
	big := strings.Repeat("x", 100<<10) // over a2a-go's 64 KiB line limit
	surface := `[{"version":"v0.9.1","createSurface":{"surfaceId":"s","catalogId":"c"}},{"version":"v0.9.1","updateDataModel":{"surfaceId":"s","path":"/big","value":"` + big + `"}}]`
	streams := map[string][]string{
		"0.3": {
			`{"kind":"task","id":"T1","contextId":"C","status":{"state":"submitted"}}`,
			`{"kind":"status-update","taskId":"T1","status":{"state":"working","message":{"kind":"message","role":"agent","messageId":"m1","parts":[{"kind":"text","text":"Working"}]}},"final":false}`,
			`{"kind":"artifact-update","taskId":"T1","artifact":{"artifactId":"a1","parts":[{"kind":"text","text":"Done."},{"kind":"data","data":` + surface + `,"metadata":{"mimeType":"application/a2ui+json"}}]}}`,
			`{"kind":"status-update","taskId":"T1","status":{"state":"completed"},"final":true}`,
		},
		"1.0": {
			`{"task":{"id":"T1","contextId":"C","status":{"state":"TASK_STATE_SUBMITTED"}}}`,
			`{"statusUpdate":{"taskId":"T1","status":{"state":"TASK_STATE_WORKING","message":{"messageId":"m1","role":"ROLE_AGENT","parts":[{"text":"Working"}]}}}}`,
			`{"artifactUpdate":{"taskId":"T1","artifact":{"artifactId":"a1","parts":[{"text":"Done."},{"data":` + surface + `,"mediaType":"application/a2ui+json"}]}}}`,
			`{"statusUpdate":{"taskId":"T1","status":{"state":"TASK_STATE_COMPLETED"}}}`,
		},
	}
	var want string
	for _, v := range []string{"0.3", "1.0"} {
		f := &fake{v: v, results: streams[v]}
		srv := httptest.NewServer(f)
		evs, err := runAll(t, &Agent{Upstream: aguihttp.Upstream{URL: srv.URL}}, userInput("hi"))
		srv.Close()
		if err != nil {
			t.Fatalf("%s: %v", v, err)
		}
		var types []string
		for _, e := range evs {
			types = append(types, string(e.Type()))
		}
		got := strings.Join(types, ",")
		if want == "" {
			want = got
		} else if got != want {
			t.Errorf("1.0 events %s differ from 0.3's %s", got, want)
		}
		if !strings.Contains(got, "ACTIVITY_SNAPSHOT") || !strings.HasSuffix(got, "RUN_FINISHED") || strings.Count(got, "TEXT_MESSAGE_START") != 2 {
			t.Errorf("%s: %s", v, got)
		}
		req := f.reqs[0]
		msg := req["params"].(map[string]any)["message"].(map[string]any)
		method, role := "message/stream", "user"
		if v == "1.0" {
			method, role = "SendStreamingMessage", "ROLE_USER"
			if f.headers[0].Get("A2A-Version") != "1.0" {
				t.Errorf("1.0 request without A2A-Version")
			}
		}
		if req["method"] != method || msg["role"] != role || msg["contextId"] != ContextID(agui.ScopedThreadID("", "t")) || f.headers[0].Get("X-A2A-Extensions") != Extension {
			t.Errorf("%s request %v, headers %v", v, req, f.headers[0])
		}
	}
}

func TestStatesAndErrors(t *testing.T) {
	for _, c := range []struct {
		results []string
		want    string
	}{
		{[]string{`{"kind":"status-update","taskId":"T","status":{"state":"input-required","message":{"kind":"message","role":"agent","messageId":"q","parts":[{"kind":"text","text":"Sure?"}]}},"final":true}`}, "interrupt:T:Sure?"},
		{[]string{`{"kind":"status-update","taskId":"T","status":{"state":"failed","message":{"kind":"message","role":"agent","messageId":"q","parts":[{"kind":"text","text":"db down"}]}},"final":true}`}, "error:a2a_failed:db down"},
		{[]string{`{"kind":"status-update","taskId":"T","status":{"state":"rejected"},"final":true}`}, "error:a2a_rejected:the A2A task ended rejected"},
		{[]string{`{"kind":"message","role":"agent","messageId":"m","parts":[{"kind":"text","text":"hello"}]}`}, "finished"},
		{[]string{`{"kind":"task","id":"T","status":{"state":"working"}}`}, "truncated"},
	} {
		srv := httptest.NewServer(&fake{v: "0.3", results: c.results})
		evs, err := runAll(t, &Agent{Upstream: aguihttp.Upstream{URL: srv.URL}}, userInput("hi"))
		srv.Close()
		got := ""
		switch {
		case err != nil:
			var re *agui.RunFailure
			if ok := asRunFailure(err, &re); ok && re.Code == agui.CodeUpstreamTruncated {
				got = "truncated"
			}
		default:
			switch e := evs[len(evs)-1].(type) {
			case *agui.RunFinished:
				got = "finished"
				if e.Outcome != nil {
					got = "interrupt:" + e.Outcome.Interrupts[0].ID + ":" + e.Outcome.Interrupts[0].Message
				}
			case *agui.RunError:
				got = "error:" + e.Code + ":" + e.Message
			}
		}
		if got != c.want {
			t.Errorf("%s: got %q, want %q", c.results[0][:60], got, c.want)
		}
	}
}

func asRunFailure(err error, re **agui.RunFailure) bool {
	r, ok := err.(*agui.RunFailure)
	*re = r
	return ok
}

// A JSON-RPC error and a non-2xx answer are RUN_ERRORs naming them.
func TestRPCErrors(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if strings.HasSuffix(r.URL.Path, "agent-card.json") {
			fmt.Fprintf(w, `{"url":"http://%s/rpc","protocolVersion":"0.3.0"}`, r.Host)
			return
		}
		io.WriteString(w, "data: {\"jsonrpc\":\"2.0\",\"id\":1,\"error\":{\"code\":-32001,\"message\":\"Task not found\"}}\n\n")
	}))
	defer srv.Close()
	evs, err := runAll(t, &Agent{Upstream: aguihttp.Upstream{URL: srv.URL, ExposeErrors: true}}, userInput("hi"))
	if err != nil || evs[len(evs)-1].(*agui.RunError).Message != "Task not found" {
		t.Errorf("%v %v", evs, err)
	}
	// Not exposed: the code and a fixed text; the message is the cause.
	_, err = runAll(t, &Agent{Upstream: aguihttp.Upstream{URL: srv.URL}}, userInput("hi"))
	var re *agui.RunFailure
	if !asRunFailure(err, &re) || re.Code != "a2a_error" || strings.Contains(re.Message, "Task not found") || !strings.Contains(err.Error(), "Task not found") {
		t.Errorf("not exposed: %v", err)
	}
	if _, err := runAll(t, &Agent{Upstream: aguihttp.Upstream{URL: "http://127.0.0.1:1"}}, userInput("hi")); err == nil || !strings.Contains(err.Error(), "agent's card") {
		t.Errorf("unreachable: %v", err)
	}
}

func FuzzFrame(f *testing.F) {
	f.Add([]byte(`{"jsonrpc":"2.0","result":{"kind":"artifact-update","artifact":{"artifactId":"a","parts":[{"kind":"data","data":[{"version":"v0.9.1","createSurface":{"surfaceId":"s"}}],"metadata":{"mimeType":"application/a2ui+json"}}]}}}`))
	f.Add([]byte(`{"result":{"statusUpdate":{"status":{"state":"TASK_STATE_INPUT_REQUIRED"}}}}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		tr := &translator{in: &agui.RunAgentInput{ThreadID: "t", RunID: "r"}, yield: func(agui.Event, error) bool { return true }, surfaces: map[string]*surface{}}
		tr.frame(context.Background(), data)
	})
}

// The A2UI metadata of a message: a2uiClientCapabilities and, with an
// action, the client's data model, both in the shapes of the official
// schemas (client_capabilities.json, client_data_model.json); a malformed
// data model is not passed on.
func TestA2UIClientMetadata(t *testing.T) {
	compile := func(name string) *jsonschema.Schema {
		b, err := fs.ReadFile(schemas.FS, "v0_9_1/json/"+name)
		if err != nil {
			t.Fatal(err)
		}
		doc, _ := jsonschema.UnmarshalJSON(bytes.NewReader(b))
		c := jsonschema.NewCompiler()
		_ = c.AddResource("mem://"+name, doc)
		return c.MustCompile("mem://" + name)
	}
	caps, model := compile("client_capabilities.json"), compile("client_data_model.json")
	check := func(s *jsonschema.Schema, v any) error {
		b, _ := json.Marshal(v)
		doc, _ := jsonschema.UnmarshalJSON(bytes.NewReader(b))
		return s.Validate(doc)
	}
	done := `{"kind":"status-update","taskId":"T1","status":{"state":"completed"},"final":true}`
	for _, tt := range []struct {
		fp        string
		wantModel bool
	}{
		{`{"a2uiAction":{"userAction":{"name":"pick","surfaceId":"s","sourceComponentId":"b","context":{}}},"a2uiClientDataModel":{"version":"v0.9","surfaces":{"s":{"qty":3}}}}`, true},
		{`{"a2uiAction":{"userAction":{"name":"pick","surfaceId":"s","sourceComponentId":"b","context":{}}},"a2uiClientDataModel":{"version":"v0.9","surfaces":{"s":7}}}`, false},
		{`{"a2uiAction":{"userAction":{"name":"pick","surfaceId":"s","sourceComponentId":"b","context":{}}},"a2uiClientDataModel":{"version":"v0.9","surfaces":{"s":{}},"extra":1}}`, false},
		{`{"a2uiClientDataModel":{"version":"v0.9","surfaces":{"s":{"qty":3}}}}`, false}, // not an action
	} {
		f := &fake{v: "0.3", results: []string{done}}
		srv := httptest.NewServer(f)
		in := userInput("hi")
		in.ForwardedProps = agui.JSON(tt.fp)
		if _, err := runAll(t, &Agent{Upstream: aguihttp.Upstream{URL: srv.URL}}, in); err != nil {
			t.Fatal(err)
		}
		srv.Close()
		md := f.reqs[0]["params"].(map[string]any)["message"].(map[string]any)["metadata"].(map[string]any)
		if err := check(caps, md["a2uiClientCapabilities"]); err != nil {
			t.Errorf("capabilities %v: %v", md["a2uiClientCapabilities"], err)
		}
		got, has := md["a2uiClientDataModel"]
		if has != tt.wantModel {
			t.Errorf("%s: data model sent = %v", tt.fp, has)
		}
		if has {
			if err := check(model, got); err != nil {
				t.Errorf("data model %v: %v", got, err)
			}
		}
	}
}

// A JSON-RPC error answer is the A2A server's error body (often an
// exception's text): it reaches the client only when upstream errors are
// exposed; otherwise RUN_ERROR has a fixed text and the error goes to the
// log (the yielded error's cause).
func TestJSONRPCErrorNotExposed(t *testing.T) {
	const secret = "Traceback: KeyError 'OPENAI_API_KEY' at /srv/agent/secrets.py"
	frame := []byte(`{"jsonrpc":"2.0","id":1,"error":{"code":-32603,"message":"` + secret + `"}}`)
	for _, expose := range []bool{false, true} {
		var seen []string
		var cause error
		tr := &translator{in: &agui.RunAgentInput{ThreadID: "t", RunID: "r"}, expose: expose, surfaces: map[string]*surface{}, yield: func(ev agui.Event, err error) bool {
			if err != nil {
				cause = err
				ev = agui.AsRunError(err)
			}
			if re, ok := ev.(*agui.RunError); ok {
				if re.Code != "a2a_error" {
					t.Errorf("expose=%v: code %q", expose, re.Code)
				}
				seen = append(seen, re.Message)
			}
			return true
		}}
		if tr.frame(context.Background(), frame) {
			t.Errorf("expose=%v: the run goes on after a JSON-RPC error", expose)
		}
		if len(seen) != 1 {
			t.Fatalf("expose=%v: RUN_ERRORs %q", expose, seen)
		}
		if got := strings.Contains(seen[0], "OPENAI_API_KEY"); got != expose {
			t.Errorf("expose=%v: RUN_ERROR message %q", expose, seen[0])
		}
		if !expose && (cause == nil || !strings.Contains(cause.Error(), "OPENAI_API_KEY")) {
			t.Errorf("the error is not in the logged cause: %v", cause)
		}
	}
}

// Many runs starting at once with no card cached (the first ones, or as
// the card expires) fetch the card once, not once each; a run whose
// client leaves stops waiting for another's fetch.
func TestCardFetchedOnceByConcurrentRuns(t *testing.T) {
	var cards atomic.Int32
	release := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if strings.HasSuffix(r.URL.Path, "agent-card.json") {
			cards.Add(1)
			<-release
			fmt.Fprintf(w, `{"url":"http://%s/rpc","protocolVersion":"0.3.0"}`, r.Host)
			return
		}
		io.WriteString(w, "data: {\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{\"kind\":\"status-update\",\"taskId\":\"T\",\"status\":{\"state\":\"completed\"},\"final\":true}}\n\n")
	}))
	defer srv.Close()
	a := &Agent{Upstream: aguihttp.Upstream{URL: srv.URL}}
	// A run whose client leaves while another fetches the card.
	gone, leave := context.WithCancel(context.Background())
	first := make(chan error, 1)
	go func() { _, err := a.readCard(context.Background(), nil); first <- err }()
	for cards.Load() == 0 {
		time.Sleep(time.Millisecond)
	}
	left := make(chan error, 1)
	go func() { _, err := a.readCard(gone, nil); left <- err }()
	leave()
	select {
	case err := <-left:
		if err == nil {
			t.Error("a run whose client left got a card")
		}
	case <-time.After(2 * time.Second):
		t.Error("a run whose client left still waits for another's card fetch")
	}
	var wg sync.WaitGroup
	errs := make(chan error, 50)
	for range 50 {
		wg.Go(func() {
			_, err := runAll(t, a, userInput("hi"))
			errs <- err
		})
	}
	time.Sleep(100 * time.Millisecond) // the 50 are waiting
	close(release)
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Fatal(err)
		}
	}
	if err := <-first; err != nil {
		t.Fatal(err)
	}
	if n := cards.Load(); n != 1 {
		t.Errorf("51 runs fetched the card %d times, want 1", n)
	}
}

// An agent whose card declares only the A2UI v0.8 extension is spoken to
// in v0.8: the v0.8 URI activates the extension, the capabilities take
// v0.8's unkeyed shape (a2ui_client_capabilities_schema.json) and a user
// action goes back as a v0.8 userAction DataPart (client_to_server.json).
func TestA2UIV08Agent(t *testing.T) {
	compile := func(name string) *jsonschema.Schema {
		c := jsonschema.NewCompiler()
		for _, f := range []string{name, "catalog_description_schema.json"} {
			b, err := fs.ReadFile(schemas.FS, "v0_8/json/"+f)
			if err != nil {
				t.Fatal(err)
			}
			doc, _ := jsonschema.UnmarshalJSON(bytes.NewReader(b))
			_ = c.AddResource("mem://v08/"+f, doc)
		}
		c.AssertFormat()
		return c.MustCompile("mem://v08/" + name)
	}
	caps, c2s := compile("a2ui_client_capabilities_schema.json"), compile("client_to_server.json")
	check := func(s *jsonschema.Schema, v any) error {
		b, _ := json.Marshal(v)
		doc, _ := jsonschema.UnmarshalJSON(bytes.NewReader(b))
		return s.Validate(doc)
	}
	done := `{"kind":"status-update","taskId":"T1","status":{"state":"completed"},"final":true}`
	f := &fake{v: "0.3", ext: ExtensionV08, results: []string{done}}
	srv := httptest.NewServer(f)
	defer srv.Close()
	a := &Agent{Upstream: aguihttp.Upstream{URL: srv.URL}}
	in := userInput("hi")
	in.ForwardedProps = agui.JSON(`{"a2uiAction":{"userAction":{"name":"pick","surfaceId":"s","sourceComponentId":"b","context":{"qty":2}}}}`)
	if _, err := runAll(t, a, in); err != nil {
		t.Fatal(err)
	}
	if h := f.headers[0].Get("X-A2A-Extensions"); h != ExtensionV08 {
		t.Errorf("X-A2A-Extensions = %q", h)
	}
	msg := f.reqs[0]["params"].(map[string]any)["message"].(map[string]any)
	md := msg["metadata"].(map[string]any)
	if err := check(caps, md["a2uiClientCapabilities"]); err != nil || md["a2uiClientCapabilities"].(map[string]any)["supportedCatalogIds"] == nil {
		t.Errorf("capabilities %v: %v", md["a2uiClientCapabilities"], err)
	}
	p := msg["parts"].([]any)[0].(map[string]any)
	if mime := p["metadata"].(map[string]any)["mimeType"]; mime != "application/json+a2ui" {
		t.Errorf("action part MIME type %v", mime)
	}
	if err := check(c2s, p["data"]); err != nil {
		t.Errorf("action %v is not a v0.8 client message: %v", p["data"], err)
	}
}

// TestSkills: the skills of the card a run fetched; none before.
func TestSkills(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, `{"url":"/rpc","protocolVersion":"0.3.0","skills":[{"id":"orders","name":"Orders","description":"Looks orders up","tags":["shop"]}]}`)
	}))
	defer srv.Close()
	a := &Agent{Upstream: aguihttp.Upstream{URL: srv.URL}}
	if got := a.Skills(); got != nil {
		t.Errorf("skills before the card was fetched = %v", got)
	}
	if _, err := a.readCard(context.Background(), &agui.Request{Input: &agui.RunAgentInput{}}); err != nil {
		t.Fatal(err)
	}
	if got := a.Skills(); len(got) != 1 || got[0].ID != "orders" || got[0].Name != "Orders" || got[0].Description != "Looks orders up" || got[0].Tags[0] != "shop" {
		t.Errorf("skills = %+v", got)
	}
}

// The AG-UI client's a2uiClientCapabilities reach the A2A agent in the
// version its card declares (v0.8's unkeyed shape or "v0.9"-keyed), each
// checked against that version's official schema; a client with no entry
// for the agent's version, or a malformed one, gets the basic catalog.
func TestA2UIClientCapabilitiesForwarded(t *testing.T) {
	compile := func(dir string, names ...string) *jsonschema.Schema {
		c := jsonschema.NewCompiler()
		for _, f := range names {
			b, err := fs.ReadFile(schemas.FS, dir+"/json/"+f)
			if err != nil {
				t.Fatal(err)
			}
			doc, _ := jsonschema.UnmarshalJSON(bytes.NewReader(b))
			_ = c.AddResource("mem://"+dir+"/"+f, doc)
		}
		return c.MustCompile("mem://" + dir + "/" + names[0])
	}
	v09 := compile("v0_9_1", "client_capabilities.json")
	v08 := compile("v0_8", "a2ui_client_capabilities_schema.json", "catalog_description_schema.json")
	const custom = "https://example.com/catalogs/shop.json"
	inline := `[{"catalogId":"` + custom + `","components":{}}]`
	done := `{"kind":"status-update","taskId":"T1","status":{"state":"completed"},"final":true}`
	for _, tt := range []struct {
		name, ext, fp, want string
	}{
		{"v0.9 agent, no caps", Extension, `{}`, `{"v0.9":{"supportedCatalogIds":["` + BasicCatalogID + `"]}}`},
		{"v0.9 agent, v0.9 client", Extension, `{"a2uiClientCapabilities":{"v0.9":{"supportedCatalogIds":["` + custom + `","` + BasicCatalogID + `"],"inlineCatalogs":` + inline + `}}}`,
			`{"v0.9":{"supportedCatalogIds":["` + custom + `","` + BasicCatalogID + `"],"inlineCatalogs":` + inline + `}}`},
		{"v0.9 agent, v0.9.1 before v0.9", Extension, `{"a2uiClientCapabilities":{"v0.9":{"supportedCatalogIds":["b"]},"v0.9.1":{"supportedCatalogIds":["a"]}}}`, `{"v0.9":{"supportedCatalogIds":["a"]}}`},
		{"v0.9 agent, v0.8-only client", Extension, `{"a2uiClientCapabilities":{"supportedCatalogIds":["` + V08StandardCatalogID + `"]}}`, `{"v0.9":{"supportedCatalogIds":["` + BasicCatalogID + `"]}}`},
		{"v0.9 agent, malformed", Extension, `{"a2uiClientCapabilities":{"v0.9":{"supportedCatalogIds":"all"}}}`, `{"v0.9":{"supportedCatalogIds":["` + BasicCatalogID + `"]}}`},
		{"v0.9 agent, inline not a list", Extension, `{"a2uiClientCapabilities":{"v0.9":{"supportedCatalogIds":["a"],"inlineCatalogs":{}}}}`, `{"v0.9":{"supportedCatalogIds":["a"]}}`},
		{"v0.8 agent, no caps", ExtensionV08, `{}`, `{"supportedCatalogIds":["` + V08StandardCatalogID + `"]}`},
		{"v0.8 agent, unkeyed v0.8 client", ExtensionV08, `{"a2uiClientCapabilities":{"supportedCatalogIds":["` + custom + `"]}}`, `{"supportedCatalogIds":["` + custom + `"]}`},
		{"v0.8 agent, keyed v0.8 client", ExtensionV08, `{"a2uiClientCapabilities":{"v0.8":{"supportedCatalogIds":["` + custom + `"]},"v0.9":{"supportedCatalogIds":["x"]}}}`, `{"supportedCatalogIds":["` + custom + `"]}`},
		{"v0.8 agent, v0.9-only client", ExtensionV08, `{"a2uiClientCapabilities":{"v0.9":{"supportedCatalogIds":["` + BasicCatalogID + `"]}}}`, `{"supportedCatalogIds":["` + V08StandardCatalogID + `"]}`},
	} {
		t.Run(tt.name, func(t *testing.T) {
			f := &fake{v: "0.3", ext: tt.ext, results: []string{done}}
			srv := httptest.NewServer(f)
			defer srv.Close()
			in := userInput("hi")
			in.ForwardedProps = agui.JSON(tt.fp)
			if _, err := runAll(t, &Agent{Upstream: aguihttp.Upstream{URL: srv.URL}}, in); err != nil {
				t.Fatal(err)
			}
			got := f.reqs[0]["params"].(map[string]any)["message"].(map[string]any)["metadata"].(map[string]any)["a2uiClientCapabilities"]
			b, _ := json.Marshal(got)
			var want any
			_ = json.Unmarshal([]byte(tt.want), &want)
			if !reflect.DeepEqual(got, want) {
				t.Errorf("a2uiClientCapabilities = %s, want %s", b, tt.want)
			}
			s := v09
			if tt.ext == ExtensionV08 {
				s = v08
			}
			doc, _ := jsonschema.UnmarshalJSON(bytes.NewReader(b))
			if err := s.Validate(doc); err != nil {
				t.Errorf("not the official shape: %v", err)
			}
		})
	}
}
