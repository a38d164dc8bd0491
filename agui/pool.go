package agui

import (
	"sync"
	"sync/atomic"
)

// boundedPool lends reusable buffers, at most max at once: what idle
// streams may hold stays bounded whatever the input. get returns nil past
// the cap (the caller makes do with a small buffer of its own).
type boundedPool[B any] struct {
	pool sync.Pool
	out  atomic.Int64
	max  int64
}

func (p *boundedPool[B]) get() *B {
	if p.out.Add(1) > p.max {
		p.out.Add(-1)
		return nil
	}
	if b, ok := p.pool.Get().(*B); ok {
		return b
	}
	return new(B)
}

func (p *boundedPool[B]) put(b *B) {
	p.pool.Put(b)
	p.out.Add(-1)
}

// lent is how many buffers are out.
func (p *boundedPool[B]) lent() int64 { return p.out.Load() }
