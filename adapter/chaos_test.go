package adapter

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/genui-adapter/genui-adapter/agui"
)

// testRedisURL is the Redis the tests use; they fail, never skip, when it
// is unreachable (.ci/run starts one).
func testRedisURL() string {
	if u := os.Getenv("GENUI_TEST_REDIS"); u != "" {
		return u
	}
	return "redis://127.0.0.1:6379/15"
}

func randomPrefix() string {
	var b [6]byte
	rand.Read(b[:])
	return "genui-test:" + hex.EncodeToString(b[:]) + ":"
}

// runLogBackends are the configurations every cross-backend test runs
// against.
func runLogBackends() map[string]RunLogConfig {
	return map[string]RunLogConfig{
		"memory": {},
		"redis":  {Backend: "redis", URL: testRedisURL(), Prefix: randomPrefix()},
	}
}

// cuttingProxy forwards TCP to target and cuts each client connection
// after `after` complete SSE frames have gone to the client, plus `extra`
// bytes of the next one (mid-frame when extra > 0).
type cuttingProxy struct {
	ln           net.Listener
	after, extra int
	wg           sync.WaitGroup
	cuts         int
	mu           sync.Mutex
}

func newCuttingProxy(t *testing.T, target string, after, extra int) *cuttingProxy {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	p := &cuttingProxy{ln: ln, after: after, extra: extra}
	p.wg.Go(func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			p.wg.Go(func() { p.serve(c, target) })
		}
	})
	t.Cleanup(func() { ln.Close(); p.wg.Wait() })
	return p
}

func (p *cuttingProxy) serve(client net.Conn, target string) {
	defer client.Close()
	server, err := net.Dial("tcp", target)
	if err != nil {
		return
	}
	defer server.Close()
	go io.Copy(server, client)
	buf := make([]byte, 32<<10)
	var frames, extra int
	var prev byte
	// Only frames with a data line count: a resumed stream opens with a
	// "retry:" frame, and cutting right after it would never progress.
	// match is how much of "data:" the current line has matched (-1: the
	// line is something else; a chunk-size line can never hold "dat").
	match, hasData := 0, false
	inBody := false
	var head []byte
	for {
		n, err := server.Read(buf)
		if n > 0 {
			chunk := buf[:n]
			body := 0 // where the body starts in chunk
			if !inBody {
				head = append(head, chunk...)
				i := bytes.Index(head, []byte("\r\n\r\n"))
				if i < 0 {
					client.Write(chunk)
					continue
				}
				// The body bytes after the headers are all in this read (the
				// earlier reads held no end of headers). They are cut like
				// any others: a resumed stream's backlog often arrives in the
				// same read as its headers, and letting it through whole made
				// the number of cuts depend on how loaded the machine was.
				inBody = true
				body = len(chunk) - (len(head) - (i + 4))
				head = nil
			}
			// Frames are counted on the raw body bytes (chunked framing adds
			// only CRLF lines, which never form "\n\n").
			for i := body; i < len(chunk); i++ {
				if frames >= p.after {
					if extra >= p.extra {
						client.Write(chunk[:i])
						p.cut()
						return
					}
					extra++
					continue
				}
				switch c := chunk[i]; {
				case c == '\n':
					if prev == '\n' && hasData {
						frames++
						hasData = false
					}
					match = 0
				case match >= 0 && c == "data:"[match]:
					if match++; match == len("data:") {
						hasData, match = true, -1
					}
				default:
					match = -1
				}
				prev = chunk[i]
			}
			client.Write(chunk)
		}
		if err != nil {
			return
		}
	}
}

func (p *cuttingProxy) cut() {
	p.mu.Lock()
	p.cuts++
	p.mu.Unlock()
}

// resumingClient runs a run through the proxy and resumes after every cut
// with Last-Event-ID, returning the ids it received in order.
func resumingClient(t *testing.T, base, runID string) []int {
	t.Helper()
	tr := &http.Transport{DisableKeepAlives: true}
	defer tr.CloseIdleConnections()
	client := &http.Client{Transport: tr}
	var ids []int
	last := 0
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	for attempt := 0; attempt < 5000; attempt++ {
		var req *http.Request
		if attempt == 0 {
			req, _ = http.NewRequestWithContext(ctx, "POST", base+"/agents/a/run", strings.NewReader(fmt.Sprintf(`{"threadId":"t-%s","runId":"%s","messages":[]}`, runID, runID)))
			req.Header.Set("Content-Type", "application/json")
		} else {
			req, _ = http.NewRequestWithContext(ctx, "GET", base+"/runs/"+runID+"/events", nil)
			req.Header.Set("Last-Event-ID", strconv.Itoa(last))
		}
		resp, err := client.Do(req)
		if err != nil {
			if ctx.Err() != nil {
				t.Fatalf("gave up after %d attempts: %v", attempt, err)
			}
			continue // cut before the headers
		}
		if resp.StatusCode != 200 {
			b, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			t.Fatalf("attempt %d: HTTP %d %s", attempt, resp.StatusCode, b)
		}
		for f, err := range agui.ScanFrames(resp.Body, 0) {
			if err != nil {
				break // a cut frame is never counted
			}
			if len(f.Data) == 0 {
				continue
			}
			id, _ := strconv.Atoi(f.ID)
			ids = append(ids, id)
			last = id
			if bytes.Contains(f.Data, []byte(`"RUN_FINISHED"`)) || bytes.Contains(f.Data, []byte(`"RUN_ERROR"`)) {
				resp.Body.Close()
				return ids
			}
		}
		resp.Body.Close()
	}
	t.Fatal("too many attempts")
	return nil
}

// TestChaosResume cuts the client connection every N events (and in the
// middle of a frame) and checks that a resuming client gets every event
// once, in order, on both run-log backends.
func TestChaosResume(t *testing.T) {
	const n = 200
	up := newCountingUpstream(t, n, 500*time.Microsecond)
	for name, rl := range runLogBackends() {
		t.Run(name, func(t *testing.T) {
			s, err := NewServer(nil, Config{Listen: "x", RunLog: rl, Agents: map[string]AgentConfig{"a": {Backend: aguiAt(up.URL), A2UI: A2UIConfig{Disabled: true}}}})
			if err != nil {
				t.Fatalf("%v (the Redis tests need a Redis at %s)", err, testRedisURL())
			}
			ts := serveAdopted(s)
			t.Cleanup(func() { ts.CloseClientConnections(); s.Drain(time.Second); ts.Close(); s.Close() })
			for _, c := range []struct{ every, extra int }{{1, 0}, {7, 0}, {50, 0}, {3, 11}, {25, 40}} {
				t.Run(fmt.Sprintf("every_%d_plus_%d_bytes", c.every, c.extra), func(t *testing.T) {
					p := newCuttingProxy(t, strings.TrimPrefix(ts.URL, "http://"), c.every, c.extra)
					ids := resumingClient(t, "http://"+p.ln.Addr().String(), fmt.Sprintf("chaos-%s-%d-%d", name, c.every, c.extra))
					if len(ids) != n+2 {
						t.Fatalf("received %d events, want %d", len(ids), n+2)
					}
					for i, id := range ids {
						if id != i+1 {
							t.Fatalf("event %d has id %d: a duplicate or a hole", i, id)
						}
					}
					p.mu.Lock()
					defer p.mu.Unlock()
					// Each connection carries exactly c.every events (plus
					// c.extra bytes), so the cuts are (n+2)/c.every whatever
					// the machine's load; half that is the floor.
					if p.cuts < (n+2)/c.every/2 {
						t.Errorf("only %d cuts: the proxy did not cut enough", p.cuts)
					}
					t.Logf("%d events through %d cuts", len(ids), p.cuts)
				})
			}
		})
	}
}
