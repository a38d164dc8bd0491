package adapter

import (
	"bufio"
	"io"
	"net"
	"net/http"
	"runtime"
	"strconv"
	"strings"
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

// openStreams starts n runs on raw connections (threads t0..), each
// read up to the upstream's TEXT_MESSAGE_START.
func openStreams(t *testing.T, addr string, n int) []net.Conn {
	t.Helper()
	conns := make([]net.Conn, n)
	for i := range conns {
		conn, br := dialRaw(t, addr)
		id := strconv.Itoa(i)
		body := strings.NewReplacer(`"threadId":"t"`, `"threadId":"t`+id+`"`, `"runId":"r"`, `"runId":"r`+id+`"`).Replace(runBody)
		readUntilConnected(t, sendRunBody(t, conn, br, addr, "", body).Body)
		conns[i] = conn
	}
	return conns
}

// Taken-over streams do not each keep a goroutine parked on their
// connection: one leaveWatcher goroutine watches them all, and still
// notices every client that leaves (its run's upstream is cancelled,
// detachGrace 0). Without it: a watch goroutine per stream.
func TestLeaveWatcherOneGoroutineForAllStreams(t *testing.T) {
	const n = 20
	up := newUpstream(t, "data: {\"type\":\"RUN_STARTED\",\"threadId\":\"t\",\"runId\":\"r\"}\n\ndata: {\"type\":\"TEXT_MESSAGE_START\",\"messageId\":\"m\"}\n\n", true)
	cfg := Config{Listen: "x", Agents: map[string]AgentConfig{"a": {Backend: aguiAt(up.URL)}}}
	ts, states := newStatesServer(t, cfg)
	conns := openStreams(t, ts.Listener.Addr().String(), n)
	if got := states.count(http.StateHijacked); got != n {
		t.Fatalf("%d of %d streams taken over", got, n)
	}
	if w := goroutinesIn("(*connStream).watch"); w != 0 {
		t.Errorf("%d goroutines watch a stream's connection each, want 0", w)
	}
	ts.s.leavesMu.Lock()
	w := ts.s.leaves
	ts.s.leavesMu.Unlock()
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
		case <-up.cancelled:
		case <-time.After(5 * time.Second):
			t.Fatalf("%d of %d upstreams cancelled after their clients left", i, n)
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
func TestStreamTakeoverClientLeavesWithoutWatcher(t *testing.T) {
	up := newUpstream(t, "data: {\"type\":\"RUN_STARTED\",\"threadId\":\"t\",\"runId\":\"r\"}\n\ndata: {\"type\":\"TEXT_MESSAGE_START\",\"messageId\":\"m\"}\n\n", true)
	cfg := Config{Listen: "x", Agents: map[string]AgentConfig{"a": {Backend: aguiAt(up.URL)}}}
	ts, _ := newStatesServer(t, cfg)
	ts.s.leavesMu.Lock()
	ts.s.leavesDone = true // as when epoll is refused
	ts.s.leavesMu.Unlock()
	conns := openStreams(t, ts.Listener.Addr().String(), 2)
	if w := goroutinesIn("(*connStream).watch"); w != 2 {
		t.Errorf("%d goroutines watch a stream's connection, want 2", w)
	}
	for _, c := range conns {
		c.Close()
	}
	for range 2 {
		select {
		case <-up.cancelled:
		case <-time.After(5 * time.Second):
			t.Fatal("the upstream was not cancelled when the client left")
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
	up := newUpstream(t, upstreamFrames, false)
	cfg := Config{Listen: "x", Agents: map[string]AgentConfig{"a": {Backend: aguiAt(up.URL)}}}
	ts, _ := newStatesServer(t, cfg)
	addr := ts.Listener.Addr().String()
	type client struct {
		conn net.Conn
		br   *bufio.Reader
	}
	clients := make([]client, n)
	for i := range clients {
		conn, br := dialRaw(t, addr)
		resp := sendRun(t, conn, br, addr, "", "r"+strconv.Itoa(i))
		if _, err := io.ReadAll(resp.Body); err != nil {
			t.Fatal(err)
		}
		clients[i] = client{conn, br}
	}
	h := ts.s.handBack
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
		resp := sendRun(t, c.conn, c.br, addr, "", "again"+strconv.Itoa(i))
		body, err := io.ReadAll(resp.Body)
		if err != nil || resp.StatusCode != 200 || len(decodeEvents(t, string(body))) != 5 {
			t.Fatalf("next request on a kept connection: %d, %v, %q", resp.StatusCode, err, body)
		}
	}
	ts.s.handBack.stop()
	for i, c := range clients[n/2:] {
		c.conn.SetReadDeadline(time.Now().Add(5 * time.Second))
		if _, err := c.br.ReadByte(); err != io.EOF {
			t.Errorf("idle connection %d after stop: %v, want EOF", i, err)
		}
	}
}
