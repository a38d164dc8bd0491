// Package bufpool lends reusable buffers, a bounded number at once: the
// AG-UI codec's line buffers and the HTTP client's read-ahead buffers.
package bufpool

import (
	"sync"
	"sync/atomic"
)

// Bounded lends buffers of type B, at most Max at once: what idle streams
// may hold stays bounded whatever the input. Get returns nil past the cap
// (the caller makes do with a small buffer of its own). The zero value
// with Max set is ready to use; a Bounded must not be copied.
type Bounded[B any] struct {
	Max  int64
	pool sync.Pool
	out  atomic.Int64
}

// Get lends a buffer, or returns nil when Max are out.
func (p *Bounded[B]) Get() *B {
	if p.out.Add(1) > p.Max {
		p.out.Add(-1)
		return nil
	}
	if b, ok := p.pool.Get().(*B); ok {
		return b
	}
	return new(B)
}

// Put gives back a buffer Get lent.
func (p *Bounded[B]) Put(b *B) {
	p.pool.Put(b)
	p.out.Add(-1)
}

// Lent is how many buffers are out.
func (p *Bounded[B]) Lent() int64 { return p.out.Load() }
