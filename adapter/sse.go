package adapter

import (
	"net/http"
	"time"
)

// sseWriter is where an SSE stream's frames go: a net/http response, or
// a connection the stream took over (a takeover.Stream).
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
