package aguihttp

import (
	"bytes"
	"context"
	"io"
	"math/rand/v2"
	"net"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/genui-adapter/genui-adapter/agui"
)

// While an upstream floods, the before-read hook (the relay's flush) runs
// only before reads that may wait on the network, not before every read;
// a paced upstream still gets it before every read.
func TestUpstreamFlushesOnlyBeforeWaiting(t *testing.T) {
	flood := bytes.Repeat([]byte("data: {\"type\":\"TEXT_MESSAGE_CONTENT\",\"messageId\":\"m\",\"delta\":\"token\"}\n\n"), 40000)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/paced" {
			for range 20 {
				w.Write(flood[:84])
				w.(http.Flusher).Flush()
				time.Sleep(2 * time.Millisecond)
			}
			return
		}
		w.Write(flood)
	}))
	defer srv.Close()
	u := &Upstream{Client: &http.Client{Transport: NewTransport()}}
	for _, c := range []struct {
		path            string
		size            int
		hooksUnderReads bool
	}{{"/flood", len(flood), true}, {"/paced", 20 * 84, false}} {
		hooks := 0
		req := &agui.Request{BeforeRead: func() { hooks++ }}
		resp, err := u.Do(context.Background(), req, http.MethodGet, srv.URL+c.path, nil, nil)
		if err != nil {
			t.Fatal(err)
		}
		hooks = 0 // the one before the response
		reads, got := 0, 0
		buf := make([]byte, 1024)
		for {
			n, err := resp.Body.Read(buf)
			reads++
			got += n
			if err == io.EOF {
				break
			}
			if err != nil {
				t.Fatal(err)
			}
		}
		resp.Body.Close()
		if got != c.size {
			t.Fatalf("%s: read %d bytes, want %d", c.path, got, c.size)
		}
		if c.hooksUnderReads && hooks > reads/4 {
			t.Errorf("%s: the hook ran before %d of %d reads", c.path, hooks, reads)
		}
		if !c.hooksUnderReads && hooks != reads {
			t.Errorf("%s: the hook ran before %d of %d reads, want every one", c.path, hooks, reads)
		}
	}
}

// An aheadConn hands on exactly the bytes of its connection, whatever the
// readers' sizes, and gives its buffer back when closed in the middle of
// a read.
func TestAheadConnTransparent(t *testing.T) {
	base := aheadPool.Lent()
	src := make([]byte, 3<<20)
	rng := rand.New(rand.NewPCG(3, 4))
	for i := range src {
		src[i] = byte(rng.Uint32())
	}
	a, b := net.Pipe()
	go func() {
		wrng := rand.New(rand.NewPCG(5, 6))
		for off := 0; off < len(src); {
			n := min(len(src)-off, 1+wrng.IntN(200<<10))
			a.Write(src[off : off+n])
			off += n
		}
	}()
	c := &aheadConn{Conn: b}
	var got []byte
	buf := make([]byte, 8<<10)
	for len(got) < len(src) {
		n, err := c.Read(buf[:1+rng.IntN(len(buf))])
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, buf[:n]...)
	}
	if !bytes.Equal(got, src) {
		t.Fatal("the bytes differ")
	}
	done := make(chan error, 1)
	go func() { _, err := c.Read(buf); done <- err }() // blocks: nothing more comes
	time.Sleep(20 * time.Millisecond)
	c.Close()
	if err := <-done; err == nil {
		t.Fatal("a read on a closed connection succeeded")
	}
	a.Close()
	if n := aheadPool.Lent(); n != base {
		t.Fatalf("%d read-ahead buffers out after close, want %d", n, base)
	}
}
