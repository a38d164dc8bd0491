package aguihttp

import (
	"context"
	"net"
	"net/http"
	"sync"
	"sync/atomic"
	"time"

	"github.com/genui-adapter/genui-adapter/agui/internal/bufpool"
)

// A relay flushes what it has queued for its client before each upstream
// read, since the read may wait on the network. While an upstream floods,
// most reads would not wait, and each flush is a write of a few KiB to
// the client. aheadConn lets the relay tell: it is an upstream connection
// that, once a read from the socket fills what it was given, reads ahead
// into a pooled aheadSize buffer; while that buffer holds data the next
// read will not wait on the socket, and Upstream's body skips the flush.
// A read that finds less than it could take gives the buffer back before
// the next socket read, which may block; at most maxAhead buffers are out
// at once (16 MiB).

const (
	aheadSize = 64 << 10
	maxAhead  = 256
)

var aheadPool = bufpool.Bounded[[aheadSize]byte]{Max: maxAhead}

type aheadConn struct {
	net.Conn
	buffered atomic.Int64 // bytes read ahead and not yet taken

	mu       sync.Mutex // held by Read, including its socket read; Close waits for it
	buf      *[aheadSize]byte
	r, w     int
	err      error // the socket's error, after what was read ahead
	flooding bool  // the last socket read filled what it was given
	closed   bool
}

func (c *aheadConn) Read(p []byte) (int, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.r < c.w {
		n := copy(p, c.buf[c.r:c.w])
		c.r += n
		c.buffered.Add(-int64(n))
		return n, nil
	}
	if c.err != nil {
		err := c.err
		c.err = nil
		return 0, err
	}
	if c.buf != nil && !c.flooding {
		c.release()
	}
	if c.buf == nil && c.flooding && !c.closed && len(p) < aheadSize {
		c.buf = aheadPool.Get() // nil over the cap: read as it comes
	}
	if c.buf == nil {
		n, err := c.Conn.Read(p)
		c.flooding = n == len(p) && n > 0
		return n, err
	}
	n, err := c.Conn.Read(c.buf[:])
	n = max(n, 0)
	c.flooding = n == aheadSize
	k := copy(p, c.buf[:n])
	c.r, c.w = k, n
	c.buffered.Store(int64(n - k))
	if err != nil {
		if k < n {
			c.err = err // after the rest
			return k, nil
		}
		return k, err
	}
	return k, nil
}

// release gives the buffer back; c.mu is held and nothing is buffered.
func (c *aheadConn) release() {
	if c.buf != nil {
		aheadPool.Put(c.buf)
		c.buf, c.r, c.w = nil, 0, 0
	}
}

func (c *aheadConn) Close() error {
	err := c.Conn.Close() // ends a socket read in flight
	c.mu.Lock()
	c.closed = true
	c.r, c.w = 0, 0
	c.buffered.Store(0)
	c.release()
	c.mu.Unlock()
	return err
}

// readAhead wraps a transport's dialer so that its connections read ahead
// while they flood.
func readAhead(dial func(ctx context.Context, network, addr string) (net.Conn, error)) func(ctx context.Context, network, addr string) (net.Conn, error) {
	return func(ctx context.Context, network, addr string) (net.Conn, error) {
		conn, err := dial(ctx, network, addr)
		if err != nil {
			return nil, err
		}
		return &aheadConn{Conn: conn}, nil
	}
}

// NewTransport returns the transport upstream clients use: the default
// one's dialing and pooling, no transparent compression (a stream is read
// as it arrives), 64 idle connections per host, and connections that read
// ahead while an upstream floods (see aheadConn).
func NewTransport() *http.Transport {
	t := http.DefaultTransport.(*http.Transport).Clone()
	t.DisableCompression = true
	t.MaxIdleConnsPerHost = 64
	d := &net.Dialer{Timeout: 30 * time.Second, KeepAlive: 30 * time.Second} // as http.DefaultTransport's
	t.DialContext = readAhead(d.DialContext)
	return t
}
