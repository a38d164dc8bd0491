package redistest

import (
	"net"
	"sync"
	"testing"
)

// Proxy forwards TCP to a target: one client's way to a Redis the others
// reach directly. Stall holds every byte in both directions until Resume
// (a Redis that stops answering that client, or a client that stops), Down
// refuses and drops connections until Resume.
type Proxy struct {
	ln      net.Listener
	target  string
	mu      sync.Mutex
	stalled bool
	down    bool
	wake    chan struct{}
	conns   []net.Conn
}

// NewProxy listens on a free port of 127.0.0.1 and forwards to target
// until the test ends.
func NewProxy(t testing.TB, target string) *Proxy {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	p := &Proxy{ln: ln, target: target, wake: make(chan struct{})}
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			p.mu.Lock()
			if p.down {
				p.mu.Unlock()
				c.Close()
				continue
			}
			p.mu.Unlock()
			u, err := net.Dial("tcp", target)
			if err != nil {
				c.Close()
				continue
			}
			p.mu.Lock()
			p.conns = append(p.conns, c, u)
			p.mu.Unlock()
			go p.pipe(c, u)
			go p.pipe(u, c)
		}
	}()
	t.Cleanup(func() {
		p.Resume()
		ln.Close()
		p.mu.Lock()
		for _, c := range p.conns {
			c.Close()
		}
		p.mu.Unlock()
	})
	return p
}

func (p *Proxy) pipe(dst, src net.Conn) {
	defer dst.Close()
	buf := make([]byte, 32<<10)
	for {
		n, err := src.Read(buf)
		if n > 0 {
			p.gate()
			if _, werr := dst.Write(buf[:n]); werr != nil {
				return
			}
		}
		if err != nil {
			return
		}
	}
}

func (p *Proxy) gate() {
	for {
		p.mu.Lock()
		stalled, wake := p.stalled, p.wake
		p.mu.Unlock()
		if !stalled {
			return
		}
		<-wake
	}
}

// Stall holds every byte until Resume.
func (p *Proxy) Stall() {
	p.mu.Lock()
	p.stalled = true
	p.mu.Unlock()
}

// Down drops every connection and refuses new ones until Resume.
func (p *Proxy) Down() {
	p.mu.Lock()
	p.down = true
	conns := p.conns
	p.conns = nil
	p.mu.Unlock()
	for _, c := range conns {
		c.Close()
	}
}

// Resume lets bytes and connections through again.
func (p *Proxy) Resume() {
	p.mu.Lock()
	if p.stalled {
		close(p.wake)
		p.wake = make(chan struct{})
	}
	p.stalled, p.down = false, false
	p.mu.Unlock()
}

// Addr is the proxy's host:port.
func (p *Proxy) Addr() string { return p.ln.Addr().String() }
