package mcpapps

import (
	"encoding/json"
	"fmt"
	"log/slog"
	"sync"
	"time"
)

// A View logs with notifications/message (the App's sendLog) or the
// request ui/log, both with params {level, data, logger?}. The host
// bridge passes them on through the card's proxied-request path, and the
// adapter logs each with the card's identity. ViewLogs bounds what one
// card may log: a token bucket per card instance and a size cap per
// message.

// Defaults of ViewLogOptions.
const (
	DefaultViewLogRate     = 60    // messages per minute per card
	DefaultViewLogBurst    = 20    // messages at once per card
	DefaultMaxViewLogBytes = 4096  // bytes of one message's params
	DefaultMaxViewLogCards = 10000 // cards whose buckets are kept
)

// ViewLogOptions tune ViewLogs. Zero values mean the defaults.
type ViewLogOptions struct {
	// Rate is the messages per minute one card may log.
	Rate int
	// Burst is how many messages one card may log at once.
	Burst int
	// MaxBytes caps one message's params (JSON).
	MaxBytes int
	// MaxCards bounds the cards whose buckets are kept; a full table
	// first forgets the buckets that have refilled (idle cards), then
	// refuses the messages of new cards.
	MaxCards int
}

// ViewLogs rate-limits and records what Views log. Safe for concurrent
// use; limits are per instance of the adapter.
type ViewLogs struct {
	opts ViewLogOptions
	now  func() time.Time

	mu      sync.Mutex
	buckets map[string]*bucket
}

type bucket struct {
	tokens float64
	at     time.Time
	// refused counts the messages refused since the last one let through.
	refused int
}

// NewViewLogs returns the limiter of View logs.
func NewViewLogs(opts ViewLogOptions) *ViewLogs {
	if opts.Rate <= 0 {
		opts.Rate = DefaultViewLogRate
	}
	if opts.Burst <= 0 {
		opts.Burst = DefaultViewLogBurst
	}
	if opts.MaxBytes <= 0 {
		opts.MaxBytes = DefaultMaxViewLogBytes
	}
	if opts.MaxCards <= 0 {
		opts.MaxCards = DefaultMaxViewLogCards
	}
	return &ViewLogs{opts: opts, now: time.Now, buckets: map[string]*bucket{}}
}

// ErrViewLogFlood and ErrViewLogTooLarge refuse a View's log message.
var (
	ErrViewLogFlood    = fmt.Errorf("log rate limit exceeded for this card")
	ErrViewLogTooLarge = fmt.Errorf("log message too large")
)

// take spends a token of card's bucket; refused is how many messages
// were refused before this one (reported once the card may log again),
// first whether this message is the first refused since the card last
// logged.
func (v *ViewLogs) take(card string) (ok bool, refused int, first bool) {
	v.mu.Lock()
	defer v.mu.Unlock()
	now := v.now()
	rate := float64(v.opts.Rate) / 60 // per second
	b := v.buckets[card]
	if b == nil {
		if len(v.buckets) >= v.opts.MaxCards {
			v.forgetIdle(now, rate)
		}
		if len(v.buckets) >= v.opts.MaxCards {
			return false, 0, false // every kept card is busy: refuse new ones
		}
		b = &bucket{tokens: float64(v.opts.Burst), at: now}
		v.buckets[card] = b
	}
	b.tokens = min(float64(v.opts.Burst), b.tokens+now.Sub(b.at).Seconds()*rate)
	b.at = now
	if b.tokens < 1 {
		b.refused++
		return false, 0, b.refused == 1
	}
	b.tokens--
	refused, b.refused = b.refused, 0
	return true, refused, false
}

// forgetIdle drops the buckets that are full again.
func (v *ViewLogs) forgetIdle(now time.Time, rate float64) {
	for k, b := range v.buckets {
		if b.tokens+now.Sub(b.at).Seconds()*rate >= float64(v.opts.Burst) {
			delete(v.buckets, k)
		}
	}
}

// viewLog is the params of a View's log message.
type viewLog struct {
	Level  string          `json:"level"`
	Logger string          `json:"logger,omitempty"`
	Data   json.RawMessage `json:"data"`
}

// Log records a View's log message with the card's identity, or refuses
// it (too large, malformed, or the card's rate exceeded).
func (v *ViewLogs) Log(log *slog.Logger, cp *Capability, server string, params json.RawMessage) error {
	if len(params) > v.opts.MaxBytes {
		log.Info("mcp: card log refused", "server", server, "reason", "too large", "bytes", len(params), "max", v.opts.MaxBytes)
		return fmt.Errorf("%w: %d bytes, at most %d", ErrViewLogTooLarge, len(params), v.opts.MaxBytes)
	}
	var m viewLog
	if len(params) == 0 || json.Unmarshal(params, &m) != nil || m.Level == "" {
		return fmt.Errorf("a log message needs params {level, data, logger?}")
	}
	attrs := []any{"server", server}
	key := "server\x00" + server
	if cp != nil {
		attrs = append(attrs, "tool", cp.Tool, "card", cp.ToolCall, "resource", cp.Resource, "principal", cp.Principal, "thread", cp.Thread)
		key = cp.Server + "\x00" + cp.Principal + "\x00" + cp.Thread + "\x00" + cp.ToolCall + "\x00" + cp.Resource
	}
	ok, refused, first := v.take(key)
	if first {
		log.Info("mcp: card log rate exceeded; its messages are refused until the rate allows", append(attrs, "rate_per_minute", v.opts.Rate, "burst", v.opts.Burst)...)
	}
	if !ok {
		return fmt.Errorf("%w (%d a minute, %d at once)", ErrViewLogFlood, v.opts.Rate, v.opts.Burst)
	}
	if refused > 0 {
		attrs = append(attrs, "refused_before", refused)
	}
	attrs = append(attrs, "level", m.Level, "logger", m.Logger, "data", string(m.Data))
	log.Info("mcp: card log", attrs...)
	return nil
}
