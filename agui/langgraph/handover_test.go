package langgraph

import (
	"bytes"
	"encoding/json"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/genui-adapter/genui-adapter/agui"
	"github.com/genui-adapter/genui-adapter/agui/aguihttp"
)

// The LangGraph server here is the replay stand-in (recorded streams of
// the real server, resumed from Last-Event-ID as the Agent Server does for
// stream_resumable runs); e2e/langgraph runs the graphs live.

// collect appends the events (and a final error) of seq to b, one JSON
// line each, calling at(n) after the n-th.
func collect(b *bytes.Buffer, seq func(func(agui.Event, error) bool), at func(n int)) {
	n := 0
	for ev, err := range seq {
		if err != nil {
			b.WriteString("error: " + agui.AsRunError(err).Code + "\n")
			return
		}
		j, _ := json.Marshal(ev)
		b.Write(j)
		b.WriteByte('\n')
		n++
		if at != nil {
			at(n)
		}
	}
}

// finished is the replay of a recorded run that ended (the events-*
// recordings name no status).
func finished(t *testing.T, name string) *replay {
	rp := newReplay(t, name)
	if rp.status == "" {
		rp.status = "success"
	}
	return rp
}

func cancels(rp *replay) int {
	rp.mu.Lock()
	defer rp.mu.Unlock()
	n := 0
	for _, p := range rp.paths {
		if strings.HasSuffix(p, "/cancel") {
			n++
		}
	}
	return n
}

// A run asked to hand over after any of its events stops at the next
// frame boundary, leaves the LangGraph run going, and another agent that
// rejoins from the checkpoint yields the rest: together, exactly the
// events of the run uninterrupted.
func TestHandoverThenRejoinLosesNothing(t *testing.T) {
	for _, name := range []string{"chat", "tools", "events-chat", "events-helpers", "approve", "fail"} {
		t.Run(name, func(t *testing.T) {
			whole := httptest.NewServer(finished(t, name))
			defer whole.Close()
			var want bytes.Buffer
			collect(&want, (&Agent{Upstream: aguihttp.Upstream{URL: whole.URL}, Graph: "g"}).Run(t.Context(), &agui.Request{Input: input()}), nil)
			total := strings.Count(want.String(), "\n")
			handed := 0
			for j := 1; j <= total; j++ {
				first, second := finished(t, name), finished(t, name)
				s1, s2 := httptest.NewServer(first), httptest.NewServer(second)
				h := agui.NewHandover()
				var got bytes.Buffer
				collect(&got, (&Agent{Upstream: aguihttp.Upstream{URL: s1.URL}, Graph: "g"}).Run(t.Context(), &agui.Request{Input: input(), Handover: h}), func(n int) {
					if n == j {
						h.Ask()
					}
				})
				if state, ok := h.State(); ok {
					handed++
					if n := cancels(first); n != 0 {
						t.Errorf("ask at %d: the handed-over run was cancelled upstream", j)
					}
					collect(&got, (&Agent{Upstream: aguihttp.Upstream{URL: s2.URL}, Graph: "g"}).Rejoin(t.Context(), &agui.Request{Input: input()}, state), nil)
					var cp checkpoint
					_ = json.Unmarshal(state, &cp)
					second.mu.Lock()
					rejoins := 0
					for i, p := range second.paths {
						switch {
						case strings.HasPrefix(p, "GET /threads/") && strings.HasSuffix(p, "/runs/"+cp.Run+"/stream"):
							rejoins++
							if second.lastID[i] != cp.LastEventID || cp.LastEventID == "" {
								t.Errorf("ask at %d: rejoin sent Last-Event-ID %q, checkpoint %q", j, second.lastID[i], cp.LastEventID)
							}
						case strings.HasPrefix(p, "POST") && !strings.HasSuffix(p, "/cancel"):
							t.Errorf("ask at %d: the rejoin sent %s", j, p)
						}
					}
					if rejoins != 1 {
						t.Errorf("ask at %d: %d rejoin requests in %v", j, rejoins, second.paths)
					}
					second.mu.Unlock()
				}
				s1.Close()
				s2.Close()
				if got.String() != want.String() {
					t.Fatalf("ask at event %d: handed over and rejoined:\n%s\nwant\n%s", j, got.String(), want.String())
				}
			}
			if handed == 0 {
				t.Fatalf("no ask among %d events led to a hand-over", total)
			}
		})
	}
}

// A run asked while it waits for its upstream stops at the next frame,
// and the rejoin goes on from the last frame it translated.
func TestHandoverWhileWaitingForTheUpstream(t *testing.T) {
	whole := httptest.NewServer(newReplay(t, "tools"))
	defer whole.Close()
	var want bytes.Buffer
	collect(&want, (&Agent{Upstream: aguihttp.Upstream{URL: whole.URL}, Graph: "g"}).Run(t.Context(), &agui.Request{Input: input()}), nil)
	for cut := 1; cut < len(newReplay(t, "tools").frames); cut++ {
		first, second := newReplay(t, "tools"), newReplay(t, "tools")
		h := agui.NewHandover()
		first.cut, first.hold, first.onHold = cut, true, h.Ask
		s1, s2 := httptest.NewServer(first), httptest.NewServer(second)
		var got bytes.Buffer
		collect(&got, (&Agent{Upstream: aguihttp.Upstream{URL: s1.URL}, Graph: "g"}).Run(t.Context(), &agui.Request{Input: input(), Handover: h}), nil)
		state, ok := h.State()
		if !ok {
			t.Fatalf("cut %d: no hand-over state; events:\n%s", cut, got.String())
		}
		collect(&got, (&Agent{Upstream: aguihttp.Upstream{URL: s2.URL}, Graph: "g"}).Rejoin(t.Context(), &agui.Request{Input: input()}, state), nil)
		s1.CloseClientConnections()
		s1.Close()
		s2.Close()
		if got.String() != want.String() {
			t.Fatalf("cut %d: handed over and rejoined:\n%s\nwant\n%s", cut, got.String(), want.String())
		}
		if n := cancels(first); n != 0 {
			t.Fatalf("cut %d: the handed-over run was cancelled upstream", cut)
		}
	}
}

// An unreadable checkpoint is a RUN_ERROR, not a hang or a new run.
func TestRejoinUnreadableState(t *testing.T) {
	var b bytes.Buffer
	collect(&b, (&Agent{Upstream: aguihttp.Upstream{URL: "http://127.0.0.1:1"}, Graph: "g"}).Rejoin(t.Context(), &agui.Request{Input: input()}, json.RawMessage(`{"thread":""}`)), nil)
	if b.String() != "error: "+agui.CodeInternal+"\n" {
		t.Fatalf("got %q", b.String())
	}
}

// A rejoined stream from langgraph dev may repeat the frames at the seam
// between its replay and its live frames, with ids that are one per
// millisecond ("<ms>-0"): the repeats are dropped, distinct frames of one
// id kept.
func TestRejoinedStreamDropsRepeats(t *testing.T) {
	frame := func(id, v string) string { return "event: custom\ndata: \"" + v + "\"\nid: " + id + "\n\n" }
	stream := frame("100-0", "a") + frame("101-0", "b") + frame("101-0", "c") + frame("101-0", "b") +
		frame("102-0", "d") + frame("101-0", "c") + frame("102-0", "d") + frame("102-0", "e")
	var got []string
	tr := &translator{in: input(), yield: func(ev agui.Event, err error) bool {
		if c, ok := ev.(*agui.Custom); ok {
			got = append(got, string(c.Value))
		}
		return err == nil
	}}
	(&checkpoint{Thread: "t", Run: "r", LastEventID: "100-0"}).rejoin(tr)
	if _, err := tr.consume(strings.NewReader(stream), 0); err != nil {
		t.Fatal(err)
	}
	if want := []string{`"b"`, `"c"`, `"d"`, `"e"`}; strings.Join(got, ",") != strings.Join(want, ",") {
		t.Fatalf("got %v, want %v", got, want)
	}
}

// Run with a Handover made by agui.Resume rejoins the stopped run (one
// GET of its stream, no new run) and yields the rest of its events; a
// hand-over asked while a middleware holds it off does not stop the run.
func TestRunRejoinsAndHonoursHolds(t *testing.T) {
	whole := httptest.NewServer(finished(t, "tools"))
	defer whole.Close()
	var want bytes.Buffer
	collect(&want, (&Agent{Upstream: aguihttp.Upstream{URL: whole.URL}, Graph: "g"}).Run(t.Context(), &agui.Request{Input: input()}), nil)

	held := httptest.NewServer(finished(t, "tools"))
	defer held.Close()
	h := agui.NewHandover()
	release := h.Hold()
	var got bytes.Buffer
	collect(&got, (&Agent{Upstream: aguihttp.Upstream{URL: held.URL}, Graph: "g"}).Run(t.Context(), &agui.Request{Input: input(), Handover: h}), func(n int) {
		if n == 2 {
			h.Ask()
		}
	})
	release()
	if h.Stopped() || got.String() != want.String() {
		t.Fatalf("held off: stopped %v, events\n%s\nwant\n%s", h.Stopped(), got.String(), want.String())
	}

	first, second := finished(t, "tools"), finished(t, "tools")
	s1, s2 := httptest.NewServer(first), httptest.NewServer(second)
	defer s1.Close()
	defer s2.Close()
	h = agui.NewHandover()
	got.Reset()
	collect(&got, (&Agent{Upstream: aguihttp.Upstream{URL: s1.URL}, Graph: "g"}).Run(t.Context(), &agui.Request{Input: input(), Handover: h}), func(n int) {
		if n == 3 {
			h.Ask()
		}
	})
	st, ok := h.Kept()
	if !ok {
		t.Fatal("asked at event 3: not stopped")
	}
	collect(&got, (&Agent{Upstream: aguihttp.Upstream{URL: s2.URL}, Graph: "g"}).Run(t.Context(), &agui.Request{Input: input(), Handover: agui.Resume(st)}), nil)
	if got.String() != want.String() {
		t.Fatalf("rejoined through Run:\n%s\nwant\n%s", got.String(), want.String())
	}
	second.mu.Lock()
	defer second.mu.Unlock()
	for _, p := range second.paths {
		if strings.HasPrefix(p, "POST") {
			t.Fatalf("the rejoin through Run sent %s", p)
		}
	}
}
