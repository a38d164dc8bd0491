package adapter

import (
	"bufio"
	"io"
	"net"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/genui-adapter/genui-adapter/agui"
)

// rawRun sends a run request on a new raw HTTP/1.1 connection and
// returns the response (its body decodes the chunks), the connection's
// reader and the connection.
func rawRun(t *testing.T, addr, origin string) (*http.Response, *bufio.Reader, net.Conn) {
	t.Helper()
	conn, br := dialRaw(t, addr)
	return sendRun(t, conn, br, addr, origin, "r"), br, conn
}

// dialRaw opens a raw connection to addr, closed when the test ends.
func dialRaw(t *testing.T, addr string) (net.Conn, *bufio.Reader) {
	t.Helper()
	conn, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close() })
	conn.SetDeadline(time.Now().Add(10 * time.Second))
	return conn, bufio.NewReader(conn)
}

// sendRun sends a run request (run id runID) on conn.
func sendRun(t *testing.T, conn net.Conn, br *bufio.Reader, addr, origin, runID string) *http.Response {
	t.Helper()
	return sendRunBody(t, conn, br, addr, origin, strings.Replace(runBody, `"runId":"r"`, `"runId":"`+runID+`"`, 1))
}

// sendRunBody sends a run request with body on conn.
func sendRunBody(t *testing.T, conn net.Conn, br *bufio.Reader, addr, origin, body string) *http.Response {
	t.Helper()
	req := "POST /agents/a/run HTTP/1.1\r\nHost: " + addr + "\r\nContent-Type: application/json\r\nAccept: text/event-stream\r\n"
	if origin != "" {
		req += "Origin: " + origin + "\r\n"
	}
	req += "Content-Length: " + strconv.Itoa(len(body)) + "\r\n\r\n" + body
	if _, err := io.WriteString(conn, req); err != nil {
		t.Fatal(err)
	}
	resp, err := http.ReadResponse(br, nil)
	if err != nil {
		t.Fatal(err)
	}
	return resp
}

// readUntilConnected reads a run's stream up to the upstream's
// TEXT_MESSAGE_START (the upstream is connected) and returns the reader
// of the rest.
func readUntilConnected(t *testing.T, body io.Reader) *bufio.Reader {
	t.Helper()
	br := bufio.NewReader(body)
	for {
		l, err := br.ReadString('\n')
		if err != nil {
			t.Fatalf("before the upstream's first message: %v", err)
		}
		if strings.Contains(l, "TEXT_MESSAGE_START") {
			return br
		}
	}
}

// connStates records the server's connection states.
type connStates struct {
	mu   sync.Mutex
	seen map[http.ConnState]int
}

func (c *connStates) hook(_ net.Conn, s http.ConnState) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.seen[s]++
}

func (c *connStates) count(s http.ConnState) int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.seen[s]
}

func newStatesServer(t *testing.T, cfg Config) (*adoptedServer, *connStates) {
	t.Helper()
	st := &connStates{seen: map[http.ConnState]int{}}
	return newTestServerWith(t, cfg, func(hs *http.Server) { hs.ConnState = st.hook }), st
}

const upstreamFrames = "data: {\"type\":\"RUN_STARTED\",\"threadId\":\"t\",\"runId\":\"r\"}\n\n" +
	"data: {\"type\":\"TEXT_MESSAGE_START\",\"messageId\":\"m\",\"role\":\"assistant\"}\n\n" +
	"data: {\"type\":\"TEXT_MESSAGE_CONTENT\",\"messageId\":\"m\",\"delta\":\"hello\"}\n\n" +
	"data: {\"type\":\"TEXT_MESSAGE_END\",\"messageId\":\"m\"}\n\n" +
	"data: {\"type\":\"RUN_FINISHED\",\"threadId\":\"t\",\"runId\":\"r\"}\n\n"

// An HTTP/1.1 run stream is taken over from net/http: the head carries
// the SSE and CORS headers, the body is well-formed chunked encoding
// ending with the last chunk, and the connection then serves the
// client's next request (keep-alive), through net/http again.
func TestStreamTakeover(t *testing.T) {
	up := newUpstream(t, upstreamFrames, false)
	cfg := Config{Listen: "x", CORS: CORS{Origins: []string{"https://app.example.com"}},
		Agents: map[string]AgentConfig{"a": {Backend: aguiAt(up.URL)}}}
	ts, states := newStatesServer(t, cfg)
	addr := ts.Listener.Addr().String()
	resp, br, conn := rawRun(t, addr, "https://app.example.com")
	for k, want := range map[string]string{
		"Content-Type": "text/event-stream", "Cache-Control": "no-cache, no-transform", "X-Accel-Buffering": "no",
		"Access-Control-Allow-Origin": "https://app.example.com",
	} {
		if got := resp.Header.Get(k); got != want {
			t.Errorf("%s = %q, want %q", k, got, want)
		}
	}
	// Never "Connection: close" (resp.Close): fetch (undici) then takes a
	// cut in the middle of a stream for its end.
	if resp.StatusCode != 200 || len(resp.TransferEncoding) != 1 || resp.TransferEncoding[0] != "chunked" || resp.Close {
		t.Fatalf("status %d, transfer encoding %v, close %v", resp.StatusCode, resp.TransferEncoding, resp.Close)
	}
	body, err := io.ReadAll(resp.Body) // the chunked reader: fails on a bad or missing last chunk
	if err != nil {
		t.Fatalf("body: %v", err)
	}
	evs := decodeEvents(t, string(body))
	if len(evs) != 5 || evs[0].Type() != agui.TypeRunStarted || evs[4].Type() != agui.TypeRunFinished {
		t.Fatalf("events: %v", evs)
	}
	if !strings.HasPrefix(string(body), "retry: 3000\n\n: ok\n\n") {
		t.Errorf("the stream does not open with the retry hint and comment: %q", body[:min(len(body), 40)])
	}
	if states.count(http.StateHijacked) != 1 {
		t.Fatalf("connection states %v: the stream was not taken over", states.seen)
	}
	// The same connection serves the next run, and the next.
	for _, id := range []string{"r2", "r3"} {
		resp := sendRun(t, conn, br, addr, "", id)
		body, err := io.ReadAll(resp.Body)
		if err != nil || resp.StatusCode != 200 {
			t.Fatalf("run %s on the kept connection: %d, %v", id, resp.StatusCode, err)
		}
		if evs := decodeEvents(t, string(body)); len(evs) != 5 {
			t.Fatalf("run %s: events %v", id, evs)
		}
	}
	// Given back when the next request came: the last stream's
	// connection waits for one.
	if states.count(http.StateHijacked) != 3 || states.count(http.StateNew) != 3 {
		t.Fatalf("connection states %v: want 3 streams taken over on one connection, given back for each next request", states.seen)
	}
}

// After a taken-over stream the connection keeps the server's idle
// timeout, not its (shorter) ReadHeaderTimeout, as any keep-alive
// connection between requests; then it closes.
func TestStreamTakeoverIdle(t *testing.T) {
	up := newUpstream(t, upstreamFrames, false)
	cfg := Config{Listen: "x", Agents: map[string]AgentConfig{"a": {Backend: aguiAt(up.URL)}}}
	ts := newTestServerWith(t, cfg, func(hs *http.Server) {
		hs.ReadHeaderTimeout = 100 * time.Millisecond
		hs.IdleTimeout = 600 * time.Millisecond
	})
	addr := ts.Listener.Addr().String()
	resp, br, conn := rawRun(t, addr, "")
	if _, err := io.ReadAll(resp.Body); err != nil {
		t.Fatal(err)
	}
	time.Sleep(300 * time.Millisecond) // past ReadHeaderTimeout, within IdleTimeout
	resp = sendRun(t, conn, br, addr, "", "r2")
	if body, err := io.ReadAll(resp.Body); err != nil || len(decodeEvents(t, string(body))) != 5 {
		t.Fatalf("run on the kept connection after 300 ms idle: %v", err)
	}
	start := time.Now()
	conn.SetReadDeadline(time.Now().Add(5 * time.Second))
	if n, err := br.Read(make([]byte, 1)); err != io.EOF {
		t.Fatalf("idle connection: read %d, %v; want the server to close it", n, err)
	}
	if d := time.Since(start); d < 500*time.Millisecond {
		t.Errorf("closed after %v idle, want the 600 ms IdleTimeout", d)
	}
}

// With streamTakeover: false net/http writes the stream and keeps the
// connection alive.
func TestStreamTakeoverOff(t *testing.T) {
	up := newUpstream(t, upstreamFrames, false)
	off := false
	cfg := Config{Listen: "x", StreamTakeover: &off, Agents: map[string]AgentConfig{"a": {Backend: aguiAt(up.URL)}}}
	ts, states := newStatesServer(t, cfg)
	resp, _, _ := rawRun(t, ts.Listener.Addr().String(), "")
	body, err := io.ReadAll(resp.Body)
	if err != nil || resp.Close {
		t.Fatalf("body error %v, close %v", err, resp.Close)
	}
	if evs := decodeEvents(t, string(body)); len(evs) != 5 {
		t.Fatalf("events: %v", evs)
	}
	if n := states.count(http.StateHijacked); n != 0 {
		t.Fatalf("taken over %d times with streamTakeover: false", n)
	}
}

// A client that goes away from a taken-over stream cancels its run's
// upstream (detachGrace 0), and nothing is left running.
func TestStreamTakeoverClientLeaves(t *testing.T) {
	up := newUpstream(t, "data: {\"type\":\"RUN_STARTED\",\"threadId\":\"t\",\"runId\":\"r\"}\n\ndata: {\"type\":\"TEXT_MESSAGE_START\",\"messageId\":\"m\"}\n\n", true)
	cfg := Config{Listen: "x", Agents: map[string]AgentConfig{"a": {Backend: aguiAt(up.URL)}}}
	ts, states := newStatesServer(t, cfg)
	resp, _, conn := rawRun(t, ts.Listener.Addr().String(), "")
	readUntilConnected(t, resp.Body) // ReadResponse decodes the chunks
	conn.Close()
	select {
	case <-up.cancelled:
	case <-time.After(5 * time.Second):
		t.Fatal("the upstream was not cancelled when the client left")
	}
	if states.count(http.StateHijacked) != 1 {
		t.Fatalf("connection states %v", states.seen)
	}
}

// A resume and CopilotKit's /connect are taken over as a run's stream
// is, and the connection then serves the next request.
func TestStreamTakeoverResumeAndConnect(t *testing.T) {
	up := newUpstream(t, upstreamFrames, false)
	cfg := Config{Listen: "x", Agents: map[string]AgentConfig{"a": {Backend: aguiAt(up.URL)}}}
	ts, states := newStatesServer(t, cfg)
	addr := ts.Listener.Addr().String()
	resp, br, conn := rawRun(t, addr, "")
	if _, err := io.ReadAll(resp.Body); err != nil {
		t.Fatal(err)
	}
	for i, req := range []string{
		"GET /runs/r/events?after=2 HTTP/1.1\r\nHost: " + addr + "\r\nAccept: text/event-stream\r\n\r\n",
		"POST /api/copilotkit/agent/a/connect HTTP/1.1\r\nHost: " + addr + "\r\nContent-Type: application/json\r\nContent-Length: 16\r\n\r\n{\"threadId\":\"t\"}",
	} {
		if _, err := io.WriteString(conn, req); err != nil {
			t.Fatal(err)
		}
		resp, err := http.ReadResponse(br, nil)
		if err != nil {
			t.Fatal(err)
		}
		body, err := io.ReadAll(resp.Body)
		if err != nil || resp.StatusCode != 200 {
			t.Fatalf("request %d: %d, %v: %s", i, resp.StatusCode, err, body)
		}
		evs := decodeEvents(t, string(body))
		if len(evs) == 0 || evs[len(evs)-1].Type() != agui.TypeRunFinished {
			t.Fatalf("request %d: events %v", i, evs)
		}
		if i == 0 && len(evs) != 3 {
			t.Fatalf("resume after 2: %d events, want 3", len(evs))
		}
		if got := states.count(http.StateHijacked); got != i+2 {
			t.Fatalf("request %d: %d streams taken over, want %d (states %v)", i, got, i+2, states.seen)
		}
	}
}

// A client that sends "Connection: close" gets it: the taken-over
// connection is closed after the stream, not kept for another request.
func TestStreamTakeoverConnectionClose(t *testing.T) {
	up := newUpstream(t, upstreamFrames, false)
	cfg := Config{Listen: "x", Agents: map[string]AgentConfig{"a": {Backend: aguiAt(up.URL)}}}
	ts, states := newStatesServer(t, cfg)
	addr := ts.Listener.Addr().String()
	conn, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	conn.SetDeadline(time.Now().Add(5 * time.Second))
	req := "POST /agents/a/run HTTP/1.1\r\nHost: " + addr + "\r\nContent-Type: application/json\r\nConnection: close\r\nContent-Length: " + strconv.Itoa(len(runBody)) + "\r\n\r\n" + runBody
	if _, err := io.WriteString(conn, req); err != nil {
		t.Fatal(err)
	}
	br := bufio.NewReader(conn)
	resp, err := http.ReadResponse(br, nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := io.ReadAll(resp.Body); err != nil || !resp.Close {
		t.Fatalf("body: %v; Connection: close in the answer: %v", err, resp.Close)
	}
	if n, err := br.ReadByte(); err != io.EOF {
		t.Fatalf("after the stream: %v, %v; want the connection closed", n, err)
	}
	if states.count(http.StateHijacked) != 1 {
		t.Fatalf("states %v: the stream was not taken over", states.seen)
	}
}
