package adapter

import (
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"go.uber.org/goleak"

	"github.com/genui-adapter/genui-adapter/agui"
)

// bigTextUpstream answers every run with one assistant message of n
// chunks of size bytes.
func bigTextUpstream(t *testing.T, n, size int) *httptest.Server {
	chunk := strings.Repeat("x", size)
	u := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		in, _ := agui.ParseRunAgentInput(mustRead(r.Body))
		w.Header().Set("Content-Type", "text/event-stream")
		enc := agui.NewEncoder(w)
		enc.Encode("", &agui.RunStarted{ThreadID: in.ThreadID, RunID: in.RunID})
		enc.Encode("", &agui.TextMessageStart{MessageID: "m1", Role: string(agui.RoleAssistant)})
		for range n {
			enc.Encode("", &agui.TextMessageContent{MessageID: "m1", Delta: chunk})
		}
		enc.Encode("", &agui.TextMessageEnd{MessageID: "m1"})
		enc.Encode("", &agui.RunFinished{ThreadID: in.ThreadID, RunID: in.RunID})
	}))
	t.Cleanup(u.Close)
	return u
}

// A client that asks for a big thread answer (6 MiB of events) and never
// reads it does not hold the handler, and the answer in memory, for
// ever: limits.writeTimeout ends the write and the connection.
func TestCopilotKitThreadSlowClient(t *testing.T) {
	up := bigTextUpstream(t, 96, 64<<10) // a 6 MiB message
	var mu sync.Mutex
	state := map[string]http.ConnState{} // by client address
	cfg, err := ParseConfig([]byte(twoPrincipals+fmt.Sprintf("limits: {writeTimeout: 2s}\nagents: {big: {type: agui, url: %q, a2ui: {disabled: true}}}\n", up.URL)), func(string) string { return "" })
	if err != nil {
		t.Fatal(err)
	}
	srv := newTestServerWith(t, cfg, func(hs *http.Server) {
		hs.ConnState = func(c net.Conn, s http.ConnState) {
			mu.Lock()
			state[c.RemoteAddr().String()] = s
			mu.Unlock()
		}
	})
	base := srv.URL + cpk
	cpkRunOn(t, base, alice, "big", "t1", "hi")
	for _, path := range []string{"/threads/t1/messages", "/threads/t1/events"} {
		c, err := net.Dial("tcp", strings.TrimPrefix(srv.URL, "http://"))
		if err != nil {
			t.Fatal(err)
		}
		c.(*net.TCPConn).SetReadBuffer(4096)
		fmt.Fprintf(c, "GET %s HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer %s\r\n\r\n", strings.TrimPrefix(base, srv.URL)+path, aliceTok)
		me := c.LocalAddr().String()
		done := false
		for i := 0; i < 1000 && !done; i++ { // up to 10 s; the write timeout is 2 s
			time.Sleep(10 * time.Millisecond)
			mu.Lock()
			done = state[me] == http.StateIdle || state[me] == http.StateClosed
			mu.Unlock()
		}
		if !done {
			t.Errorf("GET %s: the handler is still writing to a client that does not read (limits.writeTimeout 2s)", path)
		}
		c.Close()
	}
}

// 1,000 suggestion requests and 1,000 thread lists at once from one
// principal: the suggestions past the run-start burst are refused with
// 429 and Retry-After before anything runs, every list is answered, and
// no goroutine outlives them.
func TestCopilotKitSuggestAndListFlood(t *testing.T) {
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	cfg, err := ParseConfig([]byte(twoPrincipals+"limits: {runStartsPerSecond: 1, runStartBurst: 40}\nagents: {default: {type: demo}}\n"), func(string) string { return "" })
	if err != nil {
		t.Fatal(err)
	}
	s, err := NewServer(nil, cfg)
	if err != nil {
		t.Fatal(err)
	}
	ts := serveAdopted(s)
	base := ts.URL + cpk
	client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 100}}
	var ok, limited, lists, other atomic.Int64
	var wg sync.WaitGroup
	start := time.Now()
	for i := range 2000 {
		wg.Go(func() {
			var req *http.Request
			if i%2 == 0 {
				req, _ = http.NewRequest("POST", base+"/agent/default/suggest", strings.NewReader(suggestBody(fmt.Sprintf("t%d", i), fmt.Sprintf("r%d", i))))
				req.Header.Set("Content-Type", "application/json")
			} else {
				req, _ = http.NewRequest("GET", base+"/threads?agentId=default", nil)
			}
			req.Header.Set("Authorization", "Bearer "+aliceTok)
			resp, err := client.Do(req)
			if err != nil {
				other.Add(1)
				return
			}
			body, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			switch {
			case i%2 == 1 && resp.StatusCode == 200:
				lists.Add(1)
			case i%2 == 0 && resp.StatusCode == 200 && strings.Contains(string(body), "copilotkitSuggest"):
				ok.Add(1)
			case i%2 == 0 && resp.StatusCode == 429 && resp.Header.Get("Retry-After") != "" && strings.Contains(string(body), "too_many_run_starts"):
				limited.Add(1)
			default:
				other.Add(1)
			}
		})
	}
	wg.Wait()
	refilled := int64(time.Since(start).Seconds()) + 1 // runStartsPerSecond: 1
	if lists.Load() != 1000 || ok.Load()+limited.Load() != 1000 || other.Load() != 0 || ok.Load() > 40+refilled || ok.Load() < 40 {
		t.Errorf("lists %d/1000; suggestions %d answered, %d refused with 429; %d other answers; want every list, at most the burst (40, and what 1/s refills) answered", lists.Load(), ok.Load(), limited.Load(), other.Load())
	}
	client.CloseIdleConnections()
	ts.CloseClientConnections()
	s.Drain(time.Second)
	ts.Close()
	s.Close()
	http.DefaultClient.CloseIdleConnections()
}

// Another principal's active thread, by id, on the routes that act on
// threads: bob's run on the same thread id is his own (no 409 that would
// reveal alice's run), his stop is answered as on an unknown thread and
// stops nothing, his connect sees nothing of hers.
func TestCopilotKitForeignActiveThread(t *testing.T) {
	up := newCountingUpstream(t, 100000, 5*time.Millisecond)
	base := serveYAML(t, twoPrincipals+fmt.Sprintf("agents: {slow: {type: agui, url: %q, a2ui: {disabled: true}}}\n", up.URL)).URL + cpk
	s := startRunAs(t, base+"/agent/slow/run", `{"threadId":"t1","runId":"ra","messages":[{"id":"u1","role":"user","content":"secret"}]}`, alice)
	s.until(t, func(ev agui.Event) bool { return ev.Type() == agui.TypeCustom })

	fc, foreign := call(t, "POST", base+"/agent/slow/stop/t1", "", bob)
	nc, none := call(t, "POST", base+"/agent/slow/stop/t9", "", bob)
	if fc != nc || fmt.Sprint(foreign) != strings.ReplaceAll(fmt.Sprint(none), "t9", "t1") {
		t.Errorf("bob's stop on alice's active t1 = %d %v; on unknown t9 = %d %v; want the same answer", fc, foreign, nc, none)
	}
	resp := doReq(t, "POST", base+"/agent/slow/connect", `{"threadId":"t1","runId":"c1","messages":[]}`, bob)
	fr := readFrames(resp.Body, nil)
	resp.Body.Close()
	if resp.StatusCode != 200 || len(fr) != 0 {
		t.Errorf("bob's connect to alice's t1 = %d, %d frames, want an empty stream", resp.StatusCode, len(fr))
	}
	b := doReq(t, "POST", base+"/agent/slow/run", `{"threadId":"t1","runId":"rb","messages":[{"id":"u2","role":"user","content":"mine"}]}`, bob)
	if b.StatusCode != 200 {
		body, _ := io.ReadAll(b.Body)
		t.Errorf("bob's run on his own t1 while alice runs hers = %d %s", b.StatusCode, body)
	}
	b.Body.Close()
	// Alice's run goes on: the stop stopped nothing of hers.
	s.until(t, func(ev agui.Event) bool {
		if ev.Type() == agui.TypeRunError {
			t.Errorf("alice's run ended with %v", ev)
			return true
		}
		c, ok := ev.(*agui.Custom)
		return ok && string(c.Value) == "200"
	})
	call(t, "POST", base+"/agent/slow/stop/t1", "", alice)
}
