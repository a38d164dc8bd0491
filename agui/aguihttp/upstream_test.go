package aguihttp_test

import (
	"context"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/genui-adapter/genui-adapter/agui"
	"github.com/genui-adapter/genui-adapter/agui/aguihttp"
	"github.com/genui-adapter/genui-adapter/agui/origin"
)

// The rules every backend's requests share: header precedence, the
// connect timeout, the idle timeout (and that a negative one is none),
// the before-read hook (before the response too).
func TestUpstream(t *testing.T) {
	release := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/headers":
			io.WriteString(w, r.Header.Get("X-Fwd")+"|"+r.Header.Get("X-Static")+"|"+r.Header.Get("X-Call")+"|"+r.Header.Get("Content-Type"))
		case "/slow-headers":
			<-release
		case "/silent":
			w.Write([]byte("a"))
			w.(http.Flusher).Flush()
			select {
			case <-release:
			case <-r.Context().Done():
			}
		}
	}))
	defer srv.Close()
	defer close(release)

	in := http.Header{}
	in.Set("X-Fwd", "from-client")
	in.Set("X-Static", "from-client")
	ctx := context.Background()
	reads := 0
	req := &agui.Request{Header: in, BeforeRead: func() { reads++ }}
	u := aguihttp.Upstream{Headers: map[string]string{"X-Static": "static", "X-Call": "static"}, ForwardHeaders: []string{"x-fwd", "x-static"}}
	resp, err := u.Do(ctx, req, http.MethodPost, srv.URL+"/headers", map[string]int{"a": 1}, map[string]string{"X-Call": "call"})
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if string(b) != "from-client|static|call|application/json" {
		t.Errorf("headers: %s", b)
	}
	if reads == 0 {
		t.Error("the before-read hook was not called")
	}

	// The hook also runs before Do waits for the response (the adapter
	// flushes RUN_STARTED there).
	early := false
	u = aguihttp.Upstream{ConnectTimeout: 50 * time.Millisecond}
	if _, err := u.Do(context.Background(), &agui.Request{BeforeRead: func() { early = true }}, http.MethodGet, srv.URL+"/slow-headers", nil, nil); !errors.Is(err, aguihttp.ErrConnectTimeout) {
		t.Errorf("slow headers: %v, want ErrConnectTimeout", err)
	}
	if !early {
		t.Error("the before-read hook was not called before waiting for the response")
	}

	u = aguihttp.Upstream{IdleTimeout: 50 * time.Millisecond}
	resp, err = u.Do(context.Background(), nil, http.MethodGet, srv.URL+"/silent", nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	_, err = io.ReadAll(resp.Body)
	resp.Body.Close()
	if !errors.Is(err, aguihttp.ErrIdle) {
		t.Errorf("silent body: %v, want ErrIdle", err)
	}

	// A negative idle timeout is none: the silent body is still open
	// after a while (A2A agents closed it at once before).
	u = aguihttp.Upstream{IdleTimeout: -1}
	resp, err = u.Do(context.Background(), nil, http.MethodGet, srv.URL+"/silent", nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	got := make(chan error, 1)
	go func() {
		p := make([]byte, 8)
		resp.Body.Read(p) // "a"
		_, err := resp.Body.Read(p)
		got <- err
	}()
	select {
	case err := <-got:
		t.Errorf("a body with no idle timeout ended: %v", err)
	case <-time.After(200 * time.Millisecond):
	}
}

// A body that sends a byte more often than its idle timeout lives past
// many timeouts (the timer waits out what is left after each read), and
// ends with ErrIdle one timeout after it stops.
func TestUpstreamIdleCountsFromTheLastRead(t *testing.T) {
	const idle = 100 * time.Millisecond
	stop := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		tick := time.NewTicker(idle / 5)
		defer tick.Stop()
		for {
			select {
			case <-tick.C:
				w.Write([]byte("a"))
				w.(http.Flusher).Flush()
			case <-stop:
				<-r.Context().Done() // silent from here on
				return
			case <-r.Context().Done():
				return
			}
		}
	}))
	defer srv.Close()
	u := aguihttp.Upstream{IdleTimeout: idle}
	resp, err := u.Do(context.Background(), nil, http.MethodGet, srv.URL, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	p := make([]byte, 64)
	start := time.Now()
	for time.Since(start) < 6*idle {
		if _, err := resp.Body.Read(p); err != nil {
			t.Fatalf("a trickling body ended after %s: %v", time.Since(start).Round(time.Millisecond), err)
		}
	}
	close(stop)
	quiet := time.Now()
	var rerr error
	for rerr == nil {
		_, rerr = resp.Body.Read(p)
	}
	if !errors.Is(rerr, aguihttp.ErrIdle) {
		t.Fatalf("after it went silent: %v, want ErrIdle", rerr)
	}
	if d := time.Since(quiet); d < idle-idle/5 {
		t.Errorf("ended %s after its last byte, before its idle timeout of %s", d.Round(time.Millisecond), idle)
	}
}

// TestUpstreamOrigins: credentials go to the configured origin only; a
// URL or redirect off the allowed origins is refused before it is
// fetched, with a RunFailure of code origin_not_allowed.
func TestUpstreamOrigins(t *testing.T) {
	type hit struct{ auth, key, user string }
	record := func(hits chan<- hit) http.HandlerFunc {
		return func(w http.ResponseWriter, r *http.Request) {
			hits <- hit{r.Header.Get("Authorization"), r.Header.Get("X-Api-Key"), r.Header.Get("X-User-Token")}
			w.WriteHeader(http.StatusNoContent)
		}
	}
	allowedHits, foreignHits := make(chan hit, 10), make(chan hit, 10)
	allowed := httptest.NewServer(record(allowedHits))
	defer allowed.Close()
	foreign := httptest.NewServer(record(foreignHits))
	defer foreign.Close()
	home := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/to-allowed":
			http.Redirect(w, r, allowed.URL+"/x", http.StatusTemporaryRedirect)
		case "/to-foreign":
			http.Redirect(w, r, foreign.URL+"/x", http.StatusTemporaryRedirect)
		default:
			w.WriteHeader(http.StatusNoContent)
		}
	}))
	defer home.Close()
	p, err := origin.NewPolicy(home.URL, []string{allowed.URL})
	if err != nil {
		t.Fatal(err)
	}
	u := &aguihttp.Upstream{Origins: p, Headers: map[string]string{"Authorization": "Bearer service-secret"}, ForwardHeaders: []string{"X-User-Token"}}
	ctx := context.Background()
	req := &agui.Request{Header: http.Header{"X-User-Token": {"user-secret"}}}
	do := func(url string) error {
		resp, err := u.Do(ctx, req, http.MethodPost, url, []byte("{}"), map[string]string{"X-Api-Key": "key"})
		if err == nil {
			resp.Body.Close()
		}
		return err
	}
	if err := do(home.URL + "/to-allowed"); err != nil {
		t.Fatal(err)
	}
	if h := <-allowedHits; h != (hit{}) {
		t.Errorf("a redirect to an allowed origin carried credentials: %+v", h)
	}
	if err := do(allowed.URL + "/direct"); err != nil {
		t.Fatal(err)
	}
	if h := <-allowedHits; h != (hit{}) {
		t.Errorf("a request to an allowed origin carried credentials: %+v", h)
	}
	for _, url := range []string{home.URL + "/to-foreign", foreign.URL + "/direct"} {
		var re *agui.RunFailure
		if err := do(url); !errors.As(err, &re) || re.Code != agui.CodeOriginNotAllowed || !errors.Is(err, origin.ErrNotAllowed) {
			t.Errorf("%s: %v; want a RunFailure %s", url, err, agui.CodeOriginNotAllowed)
		}
	}
	if len(foreignHits) != 0 {
		t.Errorf("the foreign origin was reached %d times", len(foreignHits))
	}
	// A configured URL with the operator's userinfo is home.
	withUser := strings.Replace(allowed.URL, "://", "://op:pw@", 1)
	if u.Origins, err = origin.NewPolicy(withUser, nil); err != nil {
		t.Fatal(err)
	}
	if err := do(withUser + "/x"); err != nil {
		t.Fatal(err)
	}
	if h := <-allowedHits; h.key != "key" || h.user != "user-secret" {
		t.Errorf("a configured URL with userinfo lost its credentials: %+v", h)
	}
}

// A client of one's own, without CheckRedirect, still follows redirects
// within the request's own origin only (no policy).
func TestCheckRedirectWithoutPolicy(t *testing.T) {
	var got http.Header
	other := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { got = r.Header }))
	defer other.Close()
	var hops int
	same := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/away":
			http.Redirect(w, r, other.URL+"/x", http.StatusTemporaryRedirect)
		case "/here":
			hops++
			http.Redirect(w, r, "/done", http.StatusTemporaryRedirect)
		case "/done":
			w.WriteHeader(204)
		}
	}))
	defer same.Close()
	// A client of one's own, with no CheckRedirect: Upstream's rule holds.
	u := &aguihttp.Upstream{Client: &http.Client{}}
	if _, err := u.Do(t.Context(), nil, "GET", same.URL+"/away", nil, map[string]string{"X-Api-Key": "secret"}); err == nil || got != nil {
		t.Errorf("a cross-origin redirect was followed (err %v, headers %v)", err, got)
	}
	if resp, err := u.Do(t.Context(), nil, "GET", same.URL+"/here", nil, nil); err != nil || resp.StatusCode != 204 || hops != 1 {
		t.Errorf("a same-origin redirect = %v, %v", resp, err)
	}
}
