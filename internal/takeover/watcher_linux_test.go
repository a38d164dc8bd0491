package takeover

import (
	"bufio"
	"context"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

// goroutinesIn counts the goroutines whose stack holds fn.
func goroutinesIn(fn string) int {
	buf := make([]byte, 1<<20)
	for {
		n := runtime.Stack(buf, true)
		if n < len(buf) {
			buf = buf[:n]
			break
		}
		buf = make([]byte, 2*len(buf))
	}
	c := 0
	for g := range strings.SplitSeq(string(buf), "\n\n") {
		if strings.Contains(g, fn) {
			c++
		}
	}
	return c
}

// frames is a whole stream's body: five events.
const frames = "data: {\"type\":\"RUN_STARTED\",\"threadId\":\"t\",\"runId\":\"r\"}\n\n" +
	"data: {\"type\":\"TEXT_MESSAGE_START\",\"messageId\":\"m\",\"role\":\"assistant\"}\n\n" +
	"data: {\"type\":\"TEXT_MESSAGE_CONTENT\",\"messageId\":\"m\",\"delta\":\"hello\"}\n\n" +
	"data: {\"type\":\"TEXT_MESSAGE_END\",\"messageId\":\"m\"}\n\n" +
	"data: {\"type\":\"RUN_FINISHED\",\"threadId\":\"t\",\"runId\":\"r\"}\n\n"

// hangingFrames is the start of a stream that then waits for its client
// to leave.
const hangingFrames = "data: {\"type\":\"RUN_STARTED\",\"threadId\":\"t\",\"runId\":\"r\"}\n\ndata: {\"type\":\"TEXT_MESSAGE_START\",\"messageId\":\"m\"}\n\n"

// streamServer is an adopting http.Server whose every response is taken
// over and written by a goroutine of its own, as the adapter writes a
// run's stream: GET /hang writes hangingFrames and waits until its
// client leaves (then cancelled gets a value), anything else writes
// frames and ends.
type streamServer struct {
	*httptest.Server
	c         *Conns
	cancelled chan struct{}

	mu   sync.Mutex
	seen map[http.ConnState]int
}

// newStreamServer starts a streamServer, closed when the test ends.
func newStreamServer(t *testing.T, configure func(hs *http.Server)) *streamServer {
	t.Helper()
	ctx, cancel := context.WithCancel(t.Context())
	var streams sync.WaitGroup
	s := &streamServer{c: New(), cancelled: make(chan struct{}, 100), seen: map[http.ConnState]int{}}
	s.Server = httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		st, err := s.c.Take(w, r, 5*time.Second)
		if err != nil {
			t.Errorf("not taken over: %v", err)
			return
		}
		hang := r.URL.Path == "/hang"
		streams.Go(func() {
			defer st.Close()
			if !hang {
				_, _ = io.WriteString(st, frames)
				_ = st.Flush()
				return
			}
			_, _ = io.WriteString(st, hangingFrames)
			_ = st.Flush()
			select {
			case <-st.Context().Done():
				s.cancelled <- struct{}{}
			case <-ctx.Done():
			}
		})
	}))
	s.Config.ConnState = func(_ net.Conn, cs http.ConnState) {
		s.mu.Lock()
		defer s.mu.Unlock()
		s.seen[cs]++
	}
	if configure != nil {
		configure(s.Config)
	}
	s.c.Adopt(s.Config)
	s.Start()
	t.Cleanup(func() {
		cancel()
		streams.Wait()
		// Stop giving connections back first: httptest's Close waits for
		// the connections it knows and must not learn of one while it
		// waits.
		s.c.Close()
		s.Close()
	})
	return s
}

func (s *streamServer) count(cs http.ConnState) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.seen[cs]
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

// get sends GET path on conn and reads the response's head.
func get(t *testing.T, conn net.Conn, br *bufio.Reader, addr, path string) *http.Response {
	t.Helper()
	if _, err := io.WriteString(conn, "GET "+path+" HTTP/1.1\r\nHost: "+addr+"\r\nAccept: text/event-stream\r\n\r\n"); err != nil {
		t.Fatal(err)
	}
	resp, err := http.ReadResponse(br, nil)
	if err != nil {
		t.Fatal(err)
	}
	return resp
}

// openStreams starts n hanging streams on raw connections, each read up
// to its TEXT_MESSAGE_START.
func openStreams(t *testing.T, addr string, n int) []net.Conn {
	t.Helper()
	conns := make([]net.Conn, n)
	for i := range conns {
		conn, br := dialRaw(t, addr)
		body := bufio.NewReader(get(t, conn, br, addr, "/hang").Body)
		for {
			l, err := body.ReadString('\n')
			if err != nil {
				t.Fatalf("stream %d before its first message: %v", i, err)
			}
			if strings.Contains(l, "TEXT_MESSAGE_START") {
				break
			}
		}
		conns[i] = conn
	}
	return conns
}

// Taken-over streams do not each keep a goroutine parked on their
// connection: one leaveWatcher goroutine watches them all, and still
// notices every client that leaves (the stream's context is done, which
// cancels a run's upstream). Without it: a watch goroutine per stream.
func TestLeaveWatcherOneGoroutineForAllStreams(t *testing.T) {
	const n = 20
	ts := newStreamServer(t, nil)
	conns := openStreams(t, ts.Listener.Addr().String(), n)
	if got := ts.count(http.StateHijacked); got != n {
		t.Fatalf("%d of %d streams taken over", got, n)
	}
	if w := goroutinesIn("(*Stream).watch"); w != 0 {
		t.Errorf("%d goroutines watch a stream's connection each, want 0", w)
	}
	ts.c.mu.Lock()
	w := ts.c.leaves
	ts.c.mu.Unlock()
	w.mu.Lock()
	watched := len(w.watched)
	w.mu.Unlock()
	if watched != n {
		t.Errorf("the leaveWatcher watches %d streams, want %d", watched, n)
	}
	for _, c := range conns {
		c.Close()
	}
	for i := range n {
		select {
		case <-ts.cancelled:
		case <-time.After(5 * time.Second):
			t.Fatalf("%d of %d streams cancelled after their clients left", i, n)
		}
	}
	// Each stream's Close ends its watch (the report came first, or
	// remove): none is left.
	deadline := time.Now().Add(5 * time.Second)
	for {
		w.mu.Lock()
		watched = len(w.watched)
		w.mu.Unlock()
		if watched == 0 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("%d streams still watched after they ended", watched)
		}
		time.Sleep(time.Millisecond)
	}
}

// Where no leaveWatcher can start, each stream watches its own
// connection, and a client that leaves is noticed as well.
func TestStreamClientLeavesWithoutWatcher(t *testing.T) {
	ts := newStreamServer(t, nil)
	ts.c.mu.Lock()
	ts.c.leavesDone = true // as when epoll is refused
	ts.c.mu.Unlock()
	conns := openStreams(t, ts.Listener.Addr().String(), 2)
	if w := goroutinesIn("(*Stream).watch"); w != 2 {
		t.Errorf("%d goroutines watch a stream's connection, want 2", w)
	}
	for _, c := range conns {
		c.Close()
	}
	for range 2 {
		select {
		case <-ts.cancelled:
		case <-time.After(5 * time.Second):
			t.Fatal("the stream was not cancelled when the client left")
		}
	}
}

// tcpPair returns the two ends of a loopback TCP connection.
func tcpPair(t *testing.T) (server, client net.Conn) {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	client, err = net.Dial("tcp", ln.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	server, err = ln.Accept()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { server.Close(); client.Close() })
	return server, client
}

// watched is a connection under a leaveWatcher's watch and what was
// reported of it.
type watched struct {
	id       uint64
	conn     net.Conn // the watched end
	client   net.Conn // the other end
	reported chan readiness
}

func watchConn(t *testing.T, w *leaveWatcher) *watched {
	t.Helper()
	server, client := tcpPair(t)
	c := &watched{conn: server, client: client, reported: make(chan readiness, 2)}
	if c.id = w.add(server, func(r readiness) { c.reported <- r }); c.id == 0 {
		t.Fatal("a TCP connection was not watched")
	}
	return c
}

func TestLeaveWatcher(t *testing.T) {
	w := newLeaveWatcher()
	if w == nil {
		t.Fatal("no epoll set")
	}
	defer w.stop()

	closed := watchConn(t, w)  // the client closes
	sent := watchConn(t, w)    // the client sends (a next request)
	removed := watchConn(t, w) // removed before anything happens
	quiet := watchConn(t, w)   // nothing happens

	if !w.remove(removed.id) {
		t.Error("remove of a watch still on reported false")
	}
	removed.client.Close()
	closed.client.Close()
	if _, err := io.WriteString(sent.client, "GET / HTTP/1.1\r\n"); err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		name string
		c    *watched
		want readiness
	}{{"closed", closed, peerClosed}, {"sent", sent, dataWaiting}} {
		select {
		case r := <-tt.c.reported:
			if r != tt.want {
				t.Errorf("%s: reported %v, want %v", tt.name, r, tt.want)
			}
		case <-time.After(5 * time.Second):
			t.Fatalf("%s: nothing reported", tt.name)
		}
		if w.remove(tt.c.id) {
			t.Errorf("%s: remove after the report reported true", tt.name)
		}
	}
	// What the client sent is still there to read.
	sent.conn.SetReadDeadline(time.Now().Add(5 * time.Second))
	b := make([]byte, 16)
	if n, err := io.ReadFull(sent.conn, b); err != nil || string(b[:n]) != "GET / HTTP/1.1\r\n" {
		t.Errorf("after the watch: read %q, %v; want what the client sent", b[:n], err)
	}
	time.Sleep(50 * time.Millisecond) // a report of removed or quiet would come by now
	for name, c := range map[string]*watched{"removed": removed, "quiet": quiet} {
		select {
		case r := <-c.reported:
			t.Errorf("%s: reported %v", name, r)
		default:
		}
	}

	// stop ends the goroutine with a watch still on; then nothing is
	// watched any more.
	w.stop()
	select {
	case <-w.done:
	default:
		t.Error("the leaveWatcher's goroutine did not end with stop")
	}
	if w.remove(quiet.id) {
		t.Error("a watch was still on after stop")
	}
	server, _ := tcpPair(t)
	if w.add(server, func(readiness) {}) != 0 {
		t.Error("a stopped watcher took a connection")
	}
}

// Connections given back after their stream wait for the client's next
// request under the leaveWatcher too, not each in a goroutine of its
// own; the next request is served on them, and the server's end closes
// those still waiting.
func TestLeaveWatcherIdleConnections(t *testing.T) {
	const n = 20
	ts := newStreamServer(t, nil)
	addr := ts.Listener.Addr().String()
	type client struct {
		conn net.Conn
		br   *bufio.Reader
	}
	clients := make([]client, n)
	for i := range clients {
		conn, br := dialRaw(t, addr)
		if _, err := io.ReadAll(get(t, conn, br, addr, "/s").Body); err != nil {
			t.Fatal(err)
		}
		clients[i] = client{conn, br}
	}
	h := ts.c.back
	deadline := time.Now().Add(5 * time.Second)
	for {
		h.mu.Lock()
		idle, watched := len(h.idle), 0
		for _, ic := range h.idle {
			if ic.id != 0 {
				watched++
			}
		}
		h.mu.Unlock()
		if idle == n {
			if watched != n {
				t.Errorf("%d of %d idle connections under the leaveWatcher", watched, n)
			}
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("%d of %d connections given back", idle, n)
		}
		time.Sleep(time.Millisecond)
	}
	if g := goroutinesIn("(*handBack).give"); g != 0 {
		t.Errorf("%d goroutines wait for a next request each, want 0", g)
	}
	// Half the clients send their next request: served on the same
	// connection. The other half wait.
	for i, c := range clients[:n/2] {
		resp := get(t, c.conn, c.br, addr, "/again"+strconv.Itoa(i))
		body, err := io.ReadAll(resp.Body)
		if err != nil || resp.StatusCode != 200 || string(body) != frames {
			t.Fatalf("next request on a kept connection: %d, %v, %q", resp.StatusCode, err, body)
		}
	}
	ts.c.Close()
	for i, c := range clients[n/2:] {
		c.conn.SetReadDeadline(time.Now().Add(5 * time.Second))
		if _, err := c.br.ReadByte(); err != io.EOF {
			t.Errorf("idle connection %d after Close: %v, want EOF", i, err)
		}
	}
}
