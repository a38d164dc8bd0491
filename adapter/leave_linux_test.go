package adapter

import (
	"context"
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
	cfg := Config{Listen: "x", Agents: map[string]AgentConfig{"a": {Type: "agui", URL: up.URL}}}
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
	cfg := Config{Listen: "x", Agents: map[string]AgentConfig{"a": {Type: "agui", URL: up.URL}}}
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

func watchedStream(t *testing.T, w *leaveWatcher) (*connStream, net.Conn) {
	t.Helper()
	server, client := tcpPair(t)
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	s := &connStream{conn: server, leaves: w, ctx: ctx, cancel: cancel}
	if !w.add(s) {
		t.Fatal("a TCP connection was not watched")
	}
	return s, client
}

func TestLeaveWatcher(t *testing.T) {
	w := newLeaveWatcher()
	if w == nil {
		t.Fatal("no epoll set")
	}
	defer w.stop()

	// The client closes: the stream is cancelled and marked gone.
	closed, c1 := watchedStream(t, w)
	// The client sends (a pipelined request): the watch ends, the stream
	// goes on, and what was sent is still there to read.
	sent, c2 := watchedStream(t, w)
	// Removed before anything happens: never reported.
	removed, c3 := watchedStream(t, w)
	// Nothing happens.
	quiet, _ := watchedStream(t, w)

	w.remove(removed)
	c3.Close()
	c1.Close()
	if _, err := io.WriteString(c2, "GET / HTTP/1.1\r\n"); err != nil {
		t.Fatal(err)
	}
	select {
	case <-closed.ctx.Done():
	case <-time.After(5 * time.Second):
		t.Fatal("a client that closed was not noticed")
	}
	deadline := time.Now().Add(5 * time.Second)
	for {
		w.mu.Lock()
		_, watching := w.watched[sent.leaveID]
		w.mu.Unlock()
		if !watching {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("a client that sent data is still watched")
		}
		time.Sleep(time.Millisecond)
	}
	w.remove(closed)
	w.remove(sent)
	if !closed.gone || sent.gone || removed.gone || quiet.gone {
		t.Errorf("gone: closed %v, sent %v, removed %v, quiet %v; want only closed", closed.gone, sent.gone, removed.gone, quiet.gone)
	}
	for name, s := range map[string]*connStream{"sent": sent, "removed": removed, "quiet": quiet} {
		if s.ctx.Err() != nil {
			t.Errorf("the %s stream was cancelled", name)
		}
	}
	sent.conn.SetReadDeadline(time.Now().Add(5 * time.Second))
	b := make([]byte, 16)
	if n, err := io.ReadFull(sent.conn, b); err != nil || string(b[:n]) != "GET / HTTP/1.1\r\n" {
		t.Errorf("after the watch: read %q, %v; want what the client sent", b[:n], err)
	}

	// stop ends the goroutine with a stream still watched; then nothing
	// is watched any more.
	w.stop()
	select {
	case <-w.done:
	default:
		t.Error("the leaveWatcher's goroutine did not end with stop")
	}
	w.remove(quiet)
	server, _ := tcpPair(t)
	if w.add(&connStream{conn: server}) {
		t.Error("a stopped watcher took a connection")
	}
}
