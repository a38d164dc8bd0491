package adapter

import (
	"fmt"
	"hash/maphash"
	"math"
	"net/http"
	"net/netip"
	"sync"
	"time"

	"github.com/labstack/echo/v5"
)

// The run-start limit's defaults (limits.runStartsPerSecond,
// runStartBurst, runStartPrincipals).
const (
	defaultRunStartsPerSecond = 10
	defaultRunStartBurst      = 40
	defaultRunStartPrincipals = 65536
)

// startLimiter is a token bucket per key (a principal, or an anonymous
// client's address) for run starts. Its table is bounded: a bucket that
// has refilled is the same as none and is dropped by a sweep at most once
// per refill time; at the cap, an arbitrary bucket makes room. Keys are
// kept as 64-bit hashes with a per-process seed, so an entry's size does
// not depend on the principal's length.
type startLimiter struct {
	rate  float64       // tokens per second
	burst float64       // a bucket's size
	max   int           // buckets kept at most
	fill  time.Duration // an empty bucket's time to refill
	seed  maphash.Seed
	epoch time.Time // bucket times are durations since it

	mu      sync.Mutex
	buckets map[uint64]tokenBucket
	high    int           // the most buckets since the map was last rebuilt
	swept   time.Duration // the last sweep
}

// tokenBucket is a key's tokens when it last asked to start a run.
type tokenBucket struct {
	tokens float64
	at     time.Duration
}

// newStartLimiter builds the limiter limits configure, or nil for no limit.
func newStartLimiter(l LimitsConfig, now time.Time) *startLimiter {
	rate := l.RunStartsPerSecond
	switch {
	case rate < 0:
		return nil
	case rate == 0:
		rate = defaultRunStartsPerSecond
	}
	burst := float64(l.RunStartBurst)
	if burst == 0 {
		burst = defaultRunStartBurst
	}
	keep := l.RunStartPrincipals
	if keep == 0 {
		keep = defaultRunStartPrincipals
	}
	return &startLimiter{
		rate: rate, burst: burst, max: keep,
		fill: time.Duration(min(burst/rate*float64(time.Second), math.MaxInt64/2)),
		seed: maphash.MakeSeed(), epoch: now,
		buckets: map[uint64]tokenBucket{},
	}
}

// allow takes a token from key's bucket at now, or says how long until
// one is there.
func (l *startLimiter) allow(key string, now time.Time) (wait time.Duration, ok bool) {
	t := now.Sub(l.epoch)
	h := maphash.String(l.seed, key)
	l.mu.Lock()
	defer l.mu.Unlock()
	if t-l.swept >= l.fill {
		l.sweep(t)
	}
	b, found := l.buckets[h]
	if found {
		b.tokens = min(l.burst, b.tokens+l.rate*(t-b.at).Seconds())
	} else {
		b.tokens = l.burst
		if len(l.buckets) >= l.max {
			for k := range l.buckets { // an arbitrary one
				delete(l.buckets, k)
				break
			}
		}
	}
	b.at = t
	if b.tokens >= 1 {
		b.tokens--
		ok = true
	} else {
		wait = time.Duration((1 - b.tokens) / l.rate * float64(time.Second))
	}
	l.buckets[h] = b
	l.high = max(l.high, len(l.buckets))
	return wait, ok
}

// sweep drops the buckets that have refilled by t, and rebuilds the map
// once it holds a quarter of what it held at most (a map keeps its
// memory when entries go).
func (l *startLimiter) sweep(t time.Duration) {
	l.swept = t
	for k, b := range l.buckets {
		if b.tokens+l.rate*(t-b.at).Seconds() >= l.burst {
			delete(l.buckets, k)
		}
	}
	if n := len(l.buckets); n*4 <= l.high && l.high >= 1024 {
		m := make(map[uint64]tokenBucket, n)
		for k, b := range l.buckets {
			m[k] = b
		}
		l.buckets, l.high = m, n
	}
}

// size is how many buckets are kept.
func (l *startLimiter) size() int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return len(l.buckets)
}

// admitRun takes a run start from the caller's bucket
// (limits.runStartsPerSecond): a 429 with Retry-After when it is empty.
// Every route that starts a run calls it before the run starts.
func (s *Server) admitRun(c *echo.Context) error {
	if s.starts == nil {
		return nil
	}
	key := "principal:" + principalOf(c)
	if !s.authenticated() {
		key = "addr:" + clientNet(c.Request())
	}
	wait, ok := s.starts.allow(key, time.Now())
	if ok {
		return nil
	}
	s.metrics.runStartsLimited.Inc()
	return &httpError{Status: http.StatusTooManyRequests, Code: "too_many_run_starts",
		RetryAfter: max(1, int(math.Ceil(wait.Seconds()))),
		Msg: fmt.Sprintf("too many runs started: at most %g a second and %g at once per principal (limits.runStartsPerSecond, runStartBurst); retry after the Retry-After seconds",
			s.starts.rate, s.starts.burst)}
}

// clientNet is the client's address for limits that apply per client:
// an IPv4 address, or an IPv6 address's /64 (one subscriber's network).
func clientNet(r *http.Request) string {
	a := clientAddr(r)
	ip, err := netip.ParseAddr(a)
	if err != nil {
		return a
	}
	if ip = ip.Unmap(); ip.Is6() {
		p, _ := ip.Prefix(64)
		return p.String()
	}
	return ip.String()
}
