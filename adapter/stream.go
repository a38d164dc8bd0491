package adapter

import (
	"context"
	"errors"
	"net"
	"net/http"
	"strconv"
	"sync"
	"time"
)

// sseWriter is where an SSE stream's frames go: a net/http response, or
// a connection the stream took over (connStream).
type sseWriter interface {
	Write(p []byte) (int, error)
	// Flush sends what was written.
	Flush() error
	SetWriteDeadline(t time.Time) error
}

// responseStream is an SSE stream written through net/http.
type responseStream struct {
	http.ResponseWriter
	rc *http.ResponseController
}

func newResponseStream(w http.ResponseWriter) responseStream {
	return responseStream{ResponseWriter: w, rc: http.NewResponseController(w)}
}

func (w responseStream) Flush() error                       { return w.rc.Flush() }
func (w responseStream) SetWriteDeadline(t time.Time) error { return w.rc.SetWriteDeadline(t) }

// sseHeaders are an SSE response's headers.
func sseHeaders(h http.Header) {
	h.Set("Content-Type", "text/event-stream")
	h.Set("Cache-Control", "no-cache, no-transform")
	h.Set("X-Accel-Buffering", "no")
}

// connStream is an SSE response on an HTTP/1.1 connection taken over
// from net/http once the response starts: the chunked encoding is
// written here, so that a long, mostly idle stream holds no net/http
// buffers and no request goroutine. Its own goroutine (watch) reads the
// connection to notice the client leaving and cancels ctx; nothing is
// kept between flushes (the pending chunk's buffer goes back to a pool).
// Write, Flush and Close are called by one goroutine at a time (the SSE
// sink's lock).
type connStream struct {
	conn    net.Conn
	ctx     context.Context
	cancel  context.CancelFunc
	pending *[]byte // the chunk being written, with chunkHead bytes reserved; nil when none
	err     error
	closed  bool
}

// chunkHead is room for a chunk's size line ("%x\r\n") before its data.
const chunkHead = 10

// maxPooledChunk: bigger buffers are not kept for reuse.
const maxPooledChunk = 64 << 10

var chunkPool = sync.Pool{New: func() any { b := make([]byte, chunkHead, 1<<10); return &b }}

// errHijackUnsupported: the response cannot be taken over (HTTP/2, a
// recorder in tests); the stream goes through net/http.
var errHijackUnsupported = errors.New("the response cannot be taken over")

// takeOver hijacks w's HTTP/1.1 connection and writes the response head:
// status 200, w's headers (set by middlewares) and the SSE headers,
// chunked, "Connection: close" (the connection ends with the stream).
// The only error is errHijackUnsupported; a head that cannot be written
// gives a stream whose writes fail and whose context is done.
func takeOver(w http.ResponseWriter, r *http.Request, writeTimeout time.Duration) (*connStream, error) {
	if r.ProtoMajor != 1 || r.ProtoMinor < 1 {
		return nil, errHijackUnsupported
	}
	h := w.Header().Clone()
	conn, _, err := http.NewResponseController(w).Hijack()
	if err != nil {
		return nil, errHijackUnsupported
	}
	sseHeaders(h)
	h.Del("Content-Length")
	h.Del("Transfer-Encoding")
	h.Set("Connection", "close")
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
	*bp = b[:chunkHead]
	putChunk(bp)
	ctx, cancel := context.WithCancel(context.Background())
	s := &connStream{conn: conn, ctx: ctx, cancel: cancel}
	if err != nil {
		// The client is gone: every write fails, and the run goes on
		// detached as when a client leaves.
		s.err = err
		cancel()
		return s, nil
	}
	go s.watch()
	return s, nil
}

func putChunk(bp *[]byte) {
	if cap(*bp) <= maxPooledChunk {
		*bp = (*bp)[:chunkHead]
		chunkPool.Put(bp)
	}
}

// watch cancels ctx when the client closes the connection (or sends
// anything: a client may not send a request on a connection whose
// response is still streaming). It ends when the connection is closed.
func (s *connStream) watch() {
	var b [16]byte
	for {
		if _, err := s.conn.Read(b[:]); err != nil {
			s.cancel()
			return
		}
	}
}

// Context is done when the client is gone.
func (s *connStream) Context() context.Context { return s.ctx }

func (s *connStream) Write(p []byte) (int, error) {
	if s.err != nil {
		return 0, s.err
	}
	if s.pending == nil {
		s.pending = chunkPool.Get().(*[]byte)
	}
	*s.pending = append(*s.pending, p...)
	return len(p), nil
}

// Flush writes the pending data as one chunk, in one write.
func (s *connStream) Flush() error {
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

func (s *connStream) SetWriteDeadline(t time.Time) error { return s.conn.SetWriteDeadline(t) }

// Close ends the response (the last chunk) and the connection.
func (s *connStream) Close() {
	if s.closed {
		return
	}
	s.closed = true
	if s.Flush() == nil {
		_, _ = s.conn.Write([]byte("0\r\n\r\n"))
	}
	s.conn.Close()
	s.cancel()
}
