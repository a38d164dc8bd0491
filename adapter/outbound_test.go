package adapter

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/genui-adapter/genui-adapter/agui"
)

// internalService is a service the adapter can reach but no peer may
// send it to: it records every request it gets.
type internalService struct {
	*httptest.Server
	mu   sync.Mutex
	hits []http.Header
}

func newInternalService(t *testing.T) *internalService {
	s := &internalService{}
	s.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		s.mu.Lock()
		s.hits = append(s.hits, r.Header.Clone())
		s.mu.Unlock()
		http.Error(w, "internal-admin: token table follows", http.StatusForbidden)
	}))
	t.Cleanup(s.Close)
	return s
}

func (s *internalService) seen() []http.Header {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]http.Header(nil), s.hits...)
}

// cardPointingAt is an A2A agent whose card names endpoint as its
// JSON-RPC endpoint (0.3 url and 1.0 supportedInterfaces).
func cardPointingAt(t *testing.T, endpoint string) *httptest.Server {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprintf(w, `{"name":"evil","url":%q,"protocolVersion":"0.3.0","supportedInterfaces":[{"url":%q,"protocolBinding":"JSONRPC","protocolVersion":"1.0"}]}`, endpoint, endpoint)
	}))
	t.Cleanup(srv.Close)
	return srv
}

func terminal(t *testing.T, fs []frame) (code, msg string) {
	t.Helper()
	if len(fs) == 0 {
		t.Fatal("no events")
	}
	evs := decodeEvents(t, "data: "+fs[len(fs)-1].data+"\n\n")
	re, ok := evs[0].(*agui.RunError)
	if !ok {
		t.Fatalf("terminal event %s", fs[len(fs)-1].data)
	}
	return re.Code, re.Message
}

// TestA2ACardCannotSendTheAdapterElsewhere: an agent card naming an
// internal service as its endpoint gets the run ended with RUN_ERROR
// origin_not_allowed and a log line naming the URL; the service is never
// called. Listed in allowedOrigins, the service is called, without the
// agent's headers or the user's forwarded ones.
func TestA2ACardCannotSendTheAdapterElsewhere(t *testing.T) {
	internal := newInternalService(t)
	endpoint := internal.URL + "/internal-admin"
	card := cardPointingAt(t, endpoint)
	conf := func(extra string) Config {
		cfg, err := ParseConfig([]byte(`agents: {a: {type: a2a, url: "`+card.URL+`", headers: {Authorization: "Bearer service-secret"}, forwardHeaders: [X-User-Token]`+extra+`}}`), func(string) string { return "" })
		if err != nil {
			t.Fatal(err)
		}
		return cfg
	}
	user := map[string]string{"X-User-Token": "user-secret"}

	ts, logs := newLoggedTestServer(t, conf(""))
	_, fs := runAll(t, ts.URL, "a", runJSON("t", "r-ssrf", "hi"), user)
	if code, msg := terminal(t, fs); code != agui.CodeOriginNotAllowed || strings.Contains(msg, internal.URL) {
		t.Errorf("RUN_ERROR %s %q; want %s, not naming the internal URL", code, msg, agui.CodeOriginNotAllowed)
	}
	if n := len(internal.seen()); n != 0 {
		t.Fatalf("the internal service was called %d times", n)
	}
	var logged bool
	for _, l := range strings.Split(logs(), "\n") {
		logged = logged || strings.Contains(l, `"runId":"r-ssrf"`) && strings.Contains(l, endpoint) && strings.Contains(l, agui.CodeOriginNotAllowed)
	}
	if !logged {
		t.Errorf("no log line naming %s for run r-ssrf:\n%s", endpoint, logs())
	}

	ts = newTestServer(t, conf(`, allowedOrigins: ["`+internal.URL+`"]`))
	runAll(t, ts.URL, "a", runJSON("t", "r-allowed", "hi"), user)
	hits := internal.seen()
	if len(hits) != 1 {
		t.Fatalf("an allowed endpoint was called %d times", len(hits))
	}
	if h := hits[0]; h.Get("Authorization") != "" || h.Get("X-User-Token") != "" {
		t.Errorf("credentials reached an origin other than the configured one: %v", h)
	}
}

// TestRedirectsKeepCredentialsHome: an AG-UI upstream's redirect to
// another origin is refused (RUN_ERROR origin_not_allowed), and to an
// allowed one it is followed without the credentials.
func TestRedirectsKeepCredentialsHome(t *testing.T) {
	internal := newInternalService(t)
	up := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, internal.URL+"/internal-admin", http.StatusTemporaryRedirect)
	}))
	defer up.Close()
	conf := func(extra string) Config {
		cfg, err := ParseConfig([]byte(`agents: {a: {type: agui, url: "`+up.URL+`", headers: {X-Api-Key: service-secret}, forwardHeaders: [Authorization]`+extra+`}}`), func(string) string { return "" })
		if err != nil {
			t.Fatal(err)
		}
		return cfg
	}
	user := map[string]string{"Authorization": "Bearer user-secret"}
	ts := newTestServer(t, conf(""))
	_, fs := runAll(t, ts.URL, "a", runJSON("t", "r1", "hi"), user)
	if code, _ := terminal(t, fs); code != agui.CodeOriginNotAllowed {
		t.Errorf("RUN_ERROR %s; want %s", code, agui.CodeOriginNotAllowed)
	}
	if n := len(internal.seen()); n != 0 {
		t.Fatalf("the internal service was called %d times", n)
	}
	ts = newTestServer(t, conf(`, allowedOrigins: ["`+internal.URL+`"]`))
	runAll(t, ts.URL, "a", runJSON("t", "r2", "hi"), user)
	hits := internal.seen()
	if len(hits) != 1 {
		t.Fatalf("an allowed redirect was followed %d times", len(hits))
	}
	if h := hits[0]; h.Get("Authorization") != "" || h.Get("X-Api-Key") != "" {
		t.Errorf("credentials followed a redirect to another origin: %v", h)
	}
}

// TestUpstreamErrorBodiesStayInTheLog: an upstream's error answer reaches
// the client as its status and a fixed text, for every backend; its body
// goes to the log with the run's id; exposeUpstreamErrors quotes it.
func TestUpstreamErrorBodiesStayInTheLog(t *testing.T) {
	const secret = "db password is hunter2"
	refuse := func(w http.ResponseWriter, r *http.Request) {
		http.Error(w, `{"detail":"`+secret+`"}`, http.StatusInternalServerError)
	}
	agent := httptest.NewServer(http.HandlerFunc(refuse))
	defer agent.Close()
	a2aAgent := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if strings.HasSuffix(r.URL.Path, "agent-card.json") {
			fmt.Fprintf(w, `{"url":"http://%s/rpc","protocolVersion":"0.3.0"}`, r.Host)
			return
		}
		refuse(w, r)
	}))
	defer a2aAgent.Close()
	agents := `agents: {
  agui: {type: agui, url: "` + agent.URL + `"},
  lg: {type: langgraph, url: "` + agent.URL + `", graph: g},
  a2a: {type: a2a, url: "` + a2aAgent.URL + `"},
  card: {type: a2a, url: "` + agent.URL + `"}}`
	for _, expose := range []bool{false, true} {
		cfg, err := ParseConfig([]byte(fmt.Sprintf("exposeUpstreamErrors: %v\n%s", expose, agents)), func(string) string { return "" })
		if err != nil {
			t.Fatal(err)
		}
		ts, logs := newLoggedTestServer(t, cfg)
		for _, id := range []string{"agui", "lg", "a2a", "card"} {
			run := fmt.Sprintf("r-%s-%v", id, expose)
			_, fs := runAll(t, ts.URL, id, runJSON("t-"+run, run, "hi"), nil)
			code, msg := terminal(t, fs)
			if code != agui.CodeUpstreamStatus || !strings.Contains(msg, "HTTP 500") || strings.Contains(msg, secret) != expose {
				t.Errorf("%s (expose %v): RUN_ERROR %s %q", id, expose, code, msg)
			}
			var logged bool
			for _, l := range strings.Split(logs(), "\n") {
				logged = logged || strings.Contains(l, `"runId":"`+run+`"`) && strings.Contains(l, secret)
			}
			if !logged {
				t.Errorf("%s (expose %v): no log line with the body and the run id:\n%s", id, expose, logs())
			}
		}
	}
}

// TestOriginKeysValidated: allowedOrigins and publicOrigins hold origins;
// anything else is a config error naming the key.
func TestOriginKeysValidated(t *testing.T) {
	for _, tt := range []struct{ yaml, want string }{
		{`agents: {a: {type: a2a, url: "http://a.example", allowedOrigins: ["*"]}}`, "agents.a.allowedOrigins[0]"},
		{`agents: {a: {type: a2a, url: "http://a.example", allowedOrigins: ["http://u:p@b.example"]}}`, "agents.a.allowedOrigins[0]"},
		{"publicOrigins: [\"https://app.example.com/chat\"]\nagents: {d: {type: demo}}", "publicOrigins[0]"},
		{"publicOrigins: [\"*\"]\nagents: {d: {type: demo}}", "publicOrigins[0]"},
	} {
		if _, err := ParseConfig([]byte(tt.yaml), func(string) string { return "" }); err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%s: %v; want an error naming %s", tt.yaml, err, tt.want)
		}
	}
	if _, err := ParseConfig([]byte("publicOrigins: [\"https://app.example.com\"]\nagents: {a: {type: a2a, url: \"http://a.example\", allowedOrigins: [\"https://b.example:8443\"]}}"), func(string) string { return "" }); err != nil {
		t.Errorf("valid origins refused: %v", err)
	}
}
