package takeover

import (
	"context"
	"errors"
	"net"
	"net/http"
	"os"
	"strconv"
	"sync"
	"sync/atomic"
	"time"
)

// Stream is a response on an HTTP/1.1 connection taken over from
// net/http once it starts: the chunked encoding is written here, so that
// a long, mostly idle stream holds no net/http buffers and no request
// goroutine. The Conns' leaveWatcher (one goroutine for every stream, on
// Linux), or else a small goroutine of the stream's own (watch), notices
// the client leave, without reading what the client sends, and cancels
// the stream's context; nothing is kept between flushes (the pending
// chunk's buffer goes back to a pool). When the stream ends the
// connection goes back to net/http (keep-alive) through the Conns'
// handBack listener. Write, Flush and Close are called by one goroutine
// at a time.
type Stream struct {
	conn    net.Conn
	back    *handBack
	ctx     context.Context
	cancel  context.CancelFunc
	pending *[]byte // the chunk being written, with chunkHead bytes reserved; nil when none
	err     error
	closed  bool
	watched chan struct{} // closed when watch returns (without a leaveWatcher)

	// With a leaveWatcher: the stream's watch there (leaveID 0: watch
	// watches).
	leaves  *leaveWatcher
	leaveID uint64

	gone atomic.Bool // the client closed the connection (watch, or the leaveWatcher)

	// Set by watch, read after watched is closed.
	consumed bool // watch read from the connection: it cannot be reused
	reusable bool // nothing was buffered past the request when it was taken
}

// chunkHead is room for a chunk's size line ("%x\r\n") before its data.
const chunkHead = 10

// maxPooledChunk: bigger buffers are not kept for reuse.
const maxPooledChunk = 64 << 10

// maxChunk is what Write queues before it writes a chunk out by itself.
const maxChunk = 32 << 10

var chunkPool = sync.Pool{New: func() any { b := make([]byte, chunkHead, 1<<10); return &b }}

// ErrUnsupported: the response cannot be taken over (HTTP/2, a
// recorder in tests, a Conns no http.Server adopted); write it through
// net/http.
var ErrUnsupported = errors.New("the response cannot be taken over")

// Take hijacks w's HTTP/1.1 connection and writes the response head:
// status 200, w's headers (set by the caller and its middlewares),
// chunked. writeTimeout bounds the head's write. The only error is
// ErrUnsupported; a head that cannot be written gives a stream whose
// writes fail and whose context is done. The caller writes the body and
// closes the stream, from one goroutine at a time.
func (c *Conns) Take(w http.ResponseWriter, r *http.Request, writeTimeout time.Duration) (*Stream, error) {
	back := c.back
	if r.ProtoMajor != 1 || r.ProtoMinor < 1 || back.hs.Load() == nil {
		return nil, ErrUnsupported
	}
	h := w.Header().Clone()
	conn, brw, err := http.NewResponseController(w).Hijack()
	if err != nil {
		return nil, ErrUnsupported
	}
	// Not "Connection: close": fetch (undici) then takes a cut in the
	// middle of the stream for its end.
	for _, k := range []string{"Content-Length", "Transfer-Encoding", "Connection"} {
		h.Del(k)
	}
	if r.Close {
		h.Set("Connection", "close") // the client asked: the connection ends with the stream
	}
	if h.Get("Date") == "" {
		h.Set("Date", time.Now().UTC().Format(http.TimeFormat))
	}
	bp := chunkPool.Get().(*[]byte)
	b := append((*bp)[:0], "HTTP/1.1 200 OK\r\n"...)
	for k, vs := range h {
		for _, v := range vs {
			b = append(b, k...)
			b = append(b, ": "...)
			b = append(b, v...)
			b = append(b, "\r\n"...)
		}
	}
	b = append(b, "Transfer-Encoding: chunked\r\n\r\n"...)
	_ = conn.SetWriteDeadline(time.Now().Add(writeTimeout))
	_, err = conn.Write(b)
	*bp = b
	putChunk(bp)
	ctx, cancel := context.WithCancel(context.Background())
	leaves := c.leaveWatcher()
	s := &Stream{conn: conn, back: back, leaves: leaves, ctx: ctx, cancel: cancel, watched: make(chan struct{}),
		// Bytes net/http read past the request (a pipelined one) would
		// be lost to the next reader of the connection; a client that
		// asked for "Connection: close" gets it, as net/http would.
		reusable: brw.Reader.Buffered() == 0 && !r.Close}
	if err != nil {
		// The client is gone: every write fails and the context is
		// done, as when a client leaves.
		s.err = err
		cancel()
		close(s.watched)
		return s, nil
	}
	if s.leaveID = leaves.add(conn, s.left); s.leaveID == 0 {
		go s.watch()
	}
	return s, nil
}

func putChunk(bp *[]byte) {
	if cap(*bp) <= maxPooledChunk {
		*bp = (*bp)[:chunkHead]
		chunkPool.Put(bp)
	}
}

// readiness is what waitReadable saw.
type readiness int

const (
	dataWaiting readiness = iota // the client sent something
	peerClosed                   // the client closed the connection
	waitStopped                  // a read deadline passed, or the connection was closed here
	cannotPeek                   // not a socket: nothing was waited for
	notReady                     // nothing to read yet (the leaveWatcher's peek)
)

// watch cancels ctx when the client closes the connection. It waits for
// the connection to be readable and peeks (waitReadable); where it cannot
// peek it reads, and the connection is not reused. It ends when the
// client leaves, sends anything, or Close sets a past read deadline.
func (s *Stream) watch() {
	defer close(s.watched)
	r := waitReadable(s.conn)
	gone := r == peerClosed
	if r == cannotPeek {
		s.consumed = true
		var b [16]byte
		for {
			if _, err := s.conn.Read(b[:]); err != nil {
				gone = !errors.Is(err, os.ErrDeadlineExceeded)
				break
			}
		}
	}
	if gone {
		s.left(peerClosed)
	}
}

// left is what the leaveWatcher (or watch) saw: a client that closed the
// connection cancels the stream; one that sent something does not.
func (s *Stream) left(r readiness) {
	if r == peerClosed {
		s.gone.Store(true)
		s.cancel()
	}
}

// Context is done when the client is gone or a write failed.
func (s *Stream) Context() context.Context { return s.ctx }

// Write queues p for the next chunk; a full chunk (maxChunk) goes out
// by itself.
func (s *Stream) Write(p []byte) (int, error) {
	if s.err != nil {
		return 0, s.err
	}
	if s.pending != nil && len(*s.pending)+len(p) > maxChunk {
		// A flood between flushes goes out in chunks of at most
		// maxChunk: the buffer stays one the pool keeps.
		if err := s.Flush(); err != nil {
			return 0, err
		}
	}
	if s.pending == nil {
		s.pending = chunkPool.Get().(*[]byte)
	}
	*s.pending = append(*s.pending, p...)
	return len(p), nil
}

// Flush writes the pending data as one chunk, in one write.
func (s *Stream) Flush() error {
	if s.err != nil {
		return s.err
	}
	if s.pending == nil {
		return nil
	}
	b := *s.pending
	n := len(b) - chunkHead
	if n == 0 { // an empty chunk would end the response
		putChunk(s.pending)
		s.pending = nil
		return nil
	}
	var hex [8]byte
	size := strconv.AppendInt(hex[:0], int64(n), 16)
	start := chunkHead - len(size) - 2
	copy(b[start:], size)
	b[chunkHead-2], b[chunkHead-1] = '\r', '\n'
	b = append(b, '\r', '\n')
	_, err := s.conn.Write(b[start:])
	*s.pending = b
	putChunk(s.pending)
	s.pending = nil
	if err != nil {
		s.err = err
		s.cancel()
	}
	return err
}

// SetWriteDeadline bounds the connection's next writes.
func (s *Stream) SetWriteDeadline(t time.Time) error { return s.conn.SetWriteDeadline(t) }

// lastChunk ends a chunked response.
var lastChunk = []byte("0\r\n\r\n")

// Close ends the response (the last chunk) and gives the connection back
// to net/http for the client's next request, or closes it.
func (s *Stream) Close() {
	if s.closed {
		return
	}
	s.closed = true
	ok := s.Flush() == nil
	if ok {
		_, err := s.conn.Write(lastChunk)
		ok = err == nil
	}
	if s.leaveID != 0 {
		s.leaves.remove(s.leaveID)
	} else {
		_ = s.conn.SetReadDeadline(time.Unix(1, 0)) // stops watch
		<-s.watched
	}
	s.cancel()
	if ok && s.reusable && !s.consumed && !s.gone.Load() {
		_ = s.conn.SetDeadline(time.Time{})
		s.back.give(s.conn, s.leaves)
		return
	}
	s.conn.Close()
}

// handBack is a listener of connections whose taken-over stream ended:
// the adopting http.Server serves them again (HTTP keep-alive). give
// never blocks: a connection it cannot queue is closed.
type handBack struct {
	hs    atomic.Pointer[http.Server]
	conns chan net.Conn
	done  chan struct{} // closed by Close

	mu      sync.Mutex
	closed  bool
	serving chan struct{}          // nil until hs serves this listener; closed when it stops
	idle    map[net.Conn]*idleConn // waiting for the client's next request
	waits   sync.WaitGroup         // give's goroutines
}

// idleConn is a connection waiting for the client's next request: a
// leaveWatcher's watch with a timer for the idle timeout, or (id 0) a
// goroutine of handBack.waits.
type idleConn struct {
	leaves *leaveWatcher
	id     uint64
	timer  *time.Timer // nil: no idle timeout
}

func newHandBack() *handBack {
	return &handBack{conns: make(chan net.Conn, 1024), done: make(chan struct{}), idle: map[net.Conn]*idleConn{}}
}

// give hands c back to the adopting http.Server when the client sends
// its next request, and closes it if none comes within the server's idle
// timeout: net/http waits so between requests on a keep-alive
// connection, and would otherwise give a connection it takes as new only
// its ReadHeaderTimeout. leaves (if not nil) waits for the request;
// otherwise a small goroutine that peeks, owned by h (stop ends it).
func (h *handBack) give(c net.Conn, leaves *leaveWatcher) {
	hs := h.hs.Load()
	h.mu.Lock()
	defer h.mu.Unlock()
	if hs == nil || h.closed {
		c.Close()
		return
	}
	ic := &idleConn{leaves: leaves}
	h.idle[c] = ic
	// ready waits for h.mu, so it sees ic whole.
	if ic.id = leaves.add(c, func(r readiness) { h.ready(hs, c, r) }); ic.id != 0 {
		if d := idleTimeout(hs); d > 0 {
			ic.timer = time.AfterFunc(d, func() { h.expire(c) })
		}
		return
	}
	h.waits.Go(func() {
		if d := idleTimeout(hs); d > 0 {
			_ = c.SetReadDeadline(time.Now().Add(d))
		}
		r := waitReadable(c)
		_ = c.SetReadDeadline(time.Time{})
		h.mu.Lock()
		delete(h.idle, c)
		h.mu.Unlock()
		if r == dataWaiting || r == cannotPeek {
			h.queue(hs, c)
			return
		}
		c.Close()
	})
}

// ready is the leaveWatcher's report on an idle connection: the client's
// next request is there (hs serves it), or the client left.
func (h *handBack) ready(hs *http.Server, c net.Conn, r readiness) {
	h.mu.Lock()
	ic, ok := h.idle[c]
	if ok {
		delete(h.idle, c)
		if ic.timer != nil {
			ic.timer.Stop()
		}
	}
	closed := h.closed
	h.mu.Unlock()
	if !ok || closed || r != dataWaiting {
		c.Close() // !ok: stop forgot it
		return
	}
	h.queue(hs, c)
}

// expire closes an idle connection whose client sent nothing within the
// idle timeout, unless the leaveWatcher's report came first.
func (h *handBack) expire(c net.Conn) {
	h.mu.Lock()
	ic, ok := h.idle[c]
	if !ok || !ic.leaves.remove(ic.id) {
		h.mu.Unlock()
		return // ready has it
	}
	delete(h.idle, c)
	h.mu.Unlock()
	c.Close()
}

// idleTimeout is how long hs keeps an idle keep-alive connection
// (net/http's rule: IdleTimeout, else ReadTimeout; 0: no limit).
func idleTimeout(hs *http.Server) time.Duration {
	d := hs.IdleTimeout
	if d == 0 {
		d = hs.ReadTimeout
	}
	return max(d, 0)
}

// queue gives c to hs, which starts serving the listener on the first
// connection and stops when it shuts down or the Conns close.
func (h *handBack) queue(hs *http.Server, c net.Conn) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.closed {
		c.Close()
		return
	}
	if h.serving == nil {
		h.serving = make(chan struct{})
		go func(serving chan struct{}) {
			defer close(serving)
			_ = hs.Serve(h)
		}(h.serving)
	}
	select {
	case h.conns <- c:
	default:
		c.Close()
	}
}

func (h *handBack) Accept() (net.Conn, error) {
	select {
	case c := <-h.conns:
		return c, nil
	case <-h.done:
		return nil, net.ErrClosed
	}
}

// Close stops Accept (http.Server calls it when it shuts down).
func (h *handBack) Close() error {
	h.mu.Lock()
	defer h.mu.Unlock()
	if !h.closed {
		h.closed = true
		close(h.done)
	}
	return nil
}

// stop closes the listener and the connections waiting for a request,
// waits until the http.Server has stopped serving it (so every connection
// it took has started: a test server's Close may then wait for them all)
// and closes the queued connections.
func (h *handBack) stop() {
	h.Close()
	h.mu.Lock()
	for c, ic := range h.idle {
		if ic.id == 0 {
			c.Close() // its goroutine ends and forgets it
			continue
		}
		if ic.timer != nil {
			ic.timer.Stop()
		}
		delete(h.idle, c)
		if ic.leaves.remove(ic.id) {
			c.Close()
		} // else the report is under way, and ready closes it
	}
	h.mu.Unlock()
	h.waits.Wait()
	h.mu.Lock()
	serving := h.serving
	h.mu.Unlock()
	if serving != nil {
		<-serving
	}
	for {
		select {
		case c := <-h.conns:
			c.Close()
		default:
			return
		}
	}
}

func (h *handBack) Addr() net.Addr { return handBackAddr{} }

type handBackAddr struct{}

func (handBackAddr) Network() string { return "handback" }
func (handBackAddr) String() string  { return "handback" }
