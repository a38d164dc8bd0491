package aguihttp

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptrace"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/genui-adapter/genui-adapter/agui"
	"github.com/genui-adapter/genui-adapter/agui/origin"
)

// Upstream is how a backend reaches its server, what Agent and the
// LangGraph and A2A backends share (each embeds one): where the server
// is, which headers go with a request, how long its response may take to
// start and its body stay silent, how big an event may be, and what a
// client sees of the server's errors.
type Upstream struct {
	// URL is the server: an AG-UI endpoint, a LangGraph server's base
	// URL, an A2A agent's base URL or card. Required.
	URL string
	// Client sends the requests (nil: a client with no overall timeout
	// and NewTransport's transport). Its CheckRedirect is not used:
	// redirects follow Origins.
	Client *http.Client
	// Origins is where requests may go: a request to another origin is
	// refused (an error wrapping origin.ErrNotAllowed), and so is a
	// redirect to one. Headers, ForwardHeaders and Do's hdr go only to its
	// home (the configured origin). nil: each request's own origin, with
	// redirects within it only.
	Origins *origin.Policy
	// Headers are sent with every request to the home origin, after the
	// forwarded ones, so they win.
	Headers map[string]string
	// ForwardHeaders lists inbound request headers (case-insensitive)
	// copied from agui.Request.Header, sent to the home origin only.
	ForwardHeaders []string
	// ConnectTimeout bounds the wait for the response headers (0: 30 s).
	ConnectTimeout time.Duration
	// IdleTimeout ends a body that sends nothing for this long (0: 5 min;
	// negative: never).
	IdleTimeout time.Duration
	// MaxEventSize caps one upstream event (0: agui.DefaultMaxEventSize).
	MaxEventSize int
	// ExposeErrors quotes a server's error answer in RUN_ERROR (see
	// StatusError); off, the client sees only its status. A development
	// switch.
	ExposeErrors bool
}

var (
	// ErrConnectTimeout: the response did not start within ConnectTimeout.
	ErrConnectTimeout = errors.New("no response headers in time")
	// ErrIdle: the body sent nothing for IdleTimeout.
	ErrIdle = errors.New("the upstream went silent")
)

// defaultClient has no overall timeout and no transparent compression (a
// stream is read as it arrives).
var defaultClient = sync.OnceValue(func() *http.Client {
	return &http.Client{Transport: NewTransport()}
})

// Connect is the connect timeout in force.
func (u *Upstream) Connect() time.Duration {
	if u.ConnectTimeout <= 0 {
		return 30 * time.Second
	}
	return u.ConnectTimeout
}

// Idle is the idle timeout in force (negative: none).
func (u *Upstream) Idle() time.Duration {
	if u.IdleTimeout == 0 {
		return 5 * time.Minute
	}
	return u.IdleTimeout
}

// Do sends a request: body is sent as is when it is a []byte, JSON-encoded
// otherwise (nil: none), with Content-Type application/json; then the
// forwarded headers, Headers and hdr (those three to the home origin only;
// a URL off Origins is refused with a *agui.RunFailure of code
// agui.CodeOriginNotAllowed; so is a redirect off it: the client follows
// redirects by Origins (origin.Policy.CheckRedirect), whatever its own
// CheckRedirect). The forwarded headers are req's (req may be nil: none).
// An error wraps ErrConnectTimeout when the response did not start in
// time. Do calls req's BeforeRead hook before it waits for the response.
// The body is read under ctx, calls the hook ahead of every read that may
// wait on the network, fails with an error wrapping ErrIdle after
// IdleTimeout of silence, and ends the request when closed.
func (u *Upstream) Do(ctx context.Context, req *agui.Request, method, url string, body any, hdr map[string]string) (*http.Response, error) {
	var r io.Reader
	switch b := body.(type) {
	case nil:
	case []byte:
		r = bytes.NewReader(b)
	default:
		j, err := json.Marshal(b)
		if err != nil {
			return nil, err
		}
		r = bytes.NewReader(j)
	}
	rctx, cancel := context.WithCancelCause(ctx)
	// The connection, if it reads ahead (see aheadConn).
	var ahead atomic.Pointer[aheadConn]
	tctx := httptrace.WithClientTrace(rctx, &httptrace.ClientTrace{GotConn: func(i httptrace.GotConnInfo) {
		if a, ok := i.Conn.(*aheadConn); ok {
			ahead.Store(a)
		}
	}})
	hreq, err := http.NewRequestWithContext(tctx, method, url, r)
	if err != nil {
		cancel(nil)
		return nil, err
	}
	home := true
	if u.Origins != nil {
		// The configured URL may carry the operator's userinfo; a peer's
		// URL with userinfo never gets this far (AllowedURL refuses it).
		bare := *hreq.URL
		bare.User = nil
		if err := u.Origins.AllowedURL(&bare); err != nil {
			cancel(nil)
			return nil, &agui.RunFailure{Code: agui.CodeOriginNotAllowed, Message: "the upstream named a URL on an origin this agent is not allowed to reach (the adapter's log names it)", Err: err}
		}
		home = u.Origins.IsHome(hreq.URL)
	}
	if req != nil && req.Header != nil && home {
		inbound := http.Header(req.Header)
		for _, name := range u.ForwardHeaders {
			for _, v := range inbound.Values(name) {
				hreq.Header.Add(name, v)
			}
		}
	}
	if home {
		for k, v := range u.Headers {
			hreq.Header.Set(k, v)
		}
	}
	if body != nil {
		hreq.Header.Set("Content-Type", "application/json")
	}
	for k, v := range hdr {
		hreq.Header.Set(k, v)
	}
	if !home {
		origin.StripCredentials(hreq.Header)
	}
	base := u.Client
	if base == nil {
		base = defaultClient()
	}
	// The client follows redirects by this request's policy: a shallow
	// copy (its transport, and so its connections, are shared).
	client := *base
	client.CheckRedirect = u.Origins.CheckRedirect
	before := req.ReadHook()
	before() // what the client is owed (RUN_STARTED) goes out before we wait
	connect := u.Connect()
	timer := time.AfterFunc(connect, func() { cancel(ErrConnectTimeout) })
	resp, err := client.Do(hreq)
	timer.Stop()
	if err != nil {
		cause := context.Cause(rctx)
		cancel(nil)
		if errors.Is(cause, ErrConnectTimeout) {
			return nil, fmt.Errorf("no response within %s: %w", connect, ErrConnectTimeout)
		}
		if errors.Is(err, origin.ErrNotAllowed) {
			return nil, &agui.RunFailure{Code: agui.CodeOriginNotAllowed, Message: "the upstream redirected to an origin this agent is not allowed to reach (the adapter's log names it)", Err: err}
		}
		return nil, err
	}
	b := &upstreamBody{ReadCloser: resp.Body, ctx: rctx, cancel: cancel, before: before}
	if resp.ProtoMajor == 1 {
		b.ahead = ahead.Load() // HTTP/2 shares it: what it holds may be another stream's
	}
	if idle := u.Idle(); idle > 0 {
		b.mu.Lock()
		b.idle, b.start = idle, time.Now()
		b.timer = time.AfterFunc(idle, b.expire)
		b.mu.Unlock()
	}
	resp.Body = b
	return resp, nil
}

// upstreamBody is a response body with Do's rules.
//
// Its idle timer is not reset by every read: a paced stream reads about
// one event at a time, and resetting one timer among thousands cost more
// than the rest of the read. A read notes when it got bytes; the timer,
// when it fires, waits out what is left of the idle timeout from then.
type upstreamBody struct {
	io.ReadCloser
	ctx    context.Context
	cancel context.CancelCauseFunc
	before func()
	ahead  *aheadConn // nil: the hook runs before every read
	idle   time.Duration
	start  time.Time    // monotonic origin of last
	last   atomic.Int64 // when a read last got bytes, since start

	mu     sync.Mutex // timer and closed, against expire
	timer  *time.Timer
	closed bool
}

func (b *upstreamBody) Read(p []byte) (int, error) {
	if b.ahead == nil || b.ahead.buffered.Load() == 0 {
		b.before() // this read may wait on the network
	}
	n, err := b.ReadCloser.Read(p)
	if n > 0 && b.idle > 0 {
		b.last.Store(int64(time.Since(b.start)))
	}
	if err != nil && err != io.EOF && errors.Is(context.Cause(b.ctx), ErrIdle) {
		err = fmt.Errorf("%w (%s): %v", ErrIdle, b.idle, err)
	}
	return n, err
}

// expire ends the body if it has been silent for its idle timeout, else
// sets the timer for the rest of it (the timer's goroutine).
func (b *upstreamBody) expire() {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.closed {
		return
	}
	if left := b.idle - (time.Since(b.start) - time.Duration(b.last.Load())); left > 0 {
		b.timer.Reset(left)
		return
	}
	b.cancel(ErrIdle)
}

func (b *upstreamBody) Close() error {
	b.mu.Lock()
	b.closed = true
	if b.timer != nil {
		b.timer.Stop()
	}
	b.mu.Unlock()
	err := b.ReadCloser.Close()
	b.cancel(nil)
	return err
}

// maxQuoted caps the part of an upstream's error answer that is read (for
// the log, and for the client when exposed).
const maxQuoted = 1024

// StatusError is the *agui.RunFailure (code agui.CodeUpstreamStatus) of an upstream's
// non-2xx answer, what naming the request ("LangGraph run"). The client
// sees the status and a fixed text: an upstream's error body may hold
// internals (stack traces, internal addresses, tokens). The body's first
// KiB is in Err, which the adapter logs with the run's id; with expose
// (a development switch) the message quotes it too, or the detail,
// message or error string of a JSON body. StatusError reads resp.Body;
// the caller closes it.
func StatusError(resp *http.Response, what string, expose bool) *agui.RunFailure {
	b, _ := io.ReadAll(io.LimitReader(resp.Body, maxQuoted))
	body := strings.TrimSpace(string(b))
	cause := &UpstreamStatusError{Status: resp.StatusCode, Body: body}
	if !expose {
		return &agui.RunFailure{Code: agui.CodeUpstreamStatus, Message: fmt.Sprintf("%s: HTTP %d (the upstream's answer is in the adapter's log)", what, resp.StatusCode), Err: cause}
	}
	detail := body
	var e struct{ Detail, Message, Error any }
	if json.Unmarshal(b, &e) == nil {
		for _, m := range []any{e.Detail, e.Message, e.Error} {
			if s, ok := m.(string); ok && s != "" {
				detail = s
				break
			}
		}
	}
	return &agui.RunFailure{Code: agui.CodeUpstreamStatus, Message: fmt.Sprintf("%s: HTTP %d: %s", what, resp.StatusCode, detail), Err: cause}
}

// UpstreamStatusError is an upstream's non-2xx answer: its status and
// the start of its body.
type UpstreamStatusError struct {
	Status int
	Body   string
}

func (e *UpstreamStatusError) Error() string {
	return fmt.Sprintf("upstream answered HTTP %d: %q", e.Status, e.Body)
}
