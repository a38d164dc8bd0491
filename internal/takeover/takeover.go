// Package takeover writes long streaming HTTP/1.1 responses (the SSE
// streams of runs) on connections taken over from net/http, and gives
// the connections back to the http.Server when the response ends, for
// the client's next request (keep-alive).
//
// A taken-over response holds neither a request goroutine nor net/http's
// buffers while it is idle; on Linux one epoll goroutine watches every
// taken-over connection for its client leaving (the stream's context is
// then done) and every given-back one for the client's next request.
// Elsewhere, or where the kernel refuses an epoll set, a small goroutine
// per connection does the watching.
//
// It knows HTTP/1.1 and sockets, nothing of the service: it never
// imports echo or the adapter.
package takeover

import (
	"net/http"
	"sync"
)

// Conns owns the connections taken over from one http.Server: the
// streams written on them (Take), the watcher of their clients, and the
// listener that gives them back to the server. Close releases it all.
type Conns struct {
	back *handBack

	mu         sync.Mutex
	leaves     *leaveWatcher // started by the first taken-over stream; nil before, or where there is none
	leavesDone bool          // Close stopped it, or none could start
}

// New returns Conns that take nothing over until an http.Server is
// adopted.
func New() *Conns { return &Conns{back: newHandBack()} }

// Adopt lets hs serve again the connections of streams taken over from
// it once they end, as it would an idle keep-alive connection. Streams
// are taken over only from an adopting server. Call it before hs serves;
// hs stops serving them when it shuts down or c closes.
func (c *Conns) Adopt(hs *http.Server) { c.back.hs.Store(hs) }

// leaveWatcher is the watcher of taken-over streams' clients, started on
// first use; nil once Close stopped it, or where none can start.
func (c *Conns) leaveWatcher() *leaveWatcher {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.leaves == nil && !c.leavesDone {
		c.leaves = newLeaveWatcher()
		c.leavesDone = c.leaves == nil // not again
	}
	if c.leavesDone {
		return nil
	}
	return c.leaves
}

// Close stops giving connections back: it closes the connections that
// wait for a next request and waits until the adopted http.Server stops
// serving the hand-back listener (so every connection it took has
// started); then it stops the watcher. Streams still open go on, and
// their connections close when they end. Close may be called more than
// once.
func (c *Conns) Close() {
	c.back.stop()
	c.mu.Lock()
	c.leavesDone = true
	leaves := c.leaves
	c.mu.Unlock()
	leaves.stop()
}
