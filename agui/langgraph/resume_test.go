package langgraph

import (
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/genui-adapter/genui-adapter/agui"
	"github.com/genui-adapter/genui-adapter/agui/aguihttp"
)

// msServer is a scripted LangGraph server whose frame ids are shared
// the way langgraph dev's in-memory runtime shares them: its run stream
// drops after cut frames; a resume (GET .../runs/r/stream) replays the
// frames whose id is greater than Last-Event-ID as strings compare
// (restore_messages), then sends the last seam of them again, as
// langgraph dev's live queue repeats the frames put while it replayed.
type msServer struct {
	ids     []string // one per frame; frame i is custom event "v<i>"
	cut     int
	seam    int
	every   int // a resumed stream drops after this many frames (0: never)
	mu      sync.Mutex
	lastID  []string // Last-Event-ID of each resume
	sentAll bool     // a resume sent the rest of the run: it has ended
}

func (s *msServer) frame(i int) string {
	if i == 0 {
		return "event: metadata\ndata: {\"run_id\":\"r\",\"attempt\":1}\nid: " + s.ids[0] + "\n\n"
	}
	return fmt.Sprintf("event: custom\ndata: \"v%d\"\nid: %s\n\n", i, s.ids[i])
}

func (s *msServer) ServeHTTP(w http.ResponseWriter, req *http.Request) {
	switch {
	case req.Method == http.MethodPost && req.URL.Path == "/threads":
		io.WriteString(w, `{"thread_id":"t"}`)
	case strings.HasSuffix(req.URL.Path, "/state"):
		io.WriteString(w, `{"values":{}}`)
	case strings.HasSuffix(req.URL.Path, "/cancel"):
		w.WriteHeader(http.StatusAccepted)
	case req.Method == http.MethodPost && strings.HasSuffix(req.URL.Path, "/runs/stream"):
		w.Header().Set("Content-Type", "text/event-stream")
		for i := range s.cut {
			io.WriteString(w, s.frame(i))
		}
	case req.Method == http.MethodGet && strings.HasSuffix(req.URL.Path, "/runs/r/stream"):
		last := req.Header.Get("Last-Event-ID")
		s.mu.Lock()
		s.lastID = append(s.lastID, last)
		s.mu.Unlock()
		w.Header().Set("Content-Type", "text/event-stream")
		var sent []string
		for i := range s.ids {
			if s.ids[i] > last {
				sent = append(sent, s.frame(i))
			}
		}
		sent = append(sent, sent[max(0, len(sent)-s.seam):]...)
		if s.every > 0 && s.every < len(sent) {
			sent = sent[:s.every]
		} else {
			s.mu.Lock()
			s.sentAll = true
			s.mu.Unlock()
		}
		for _, f := range sent {
			io.WriteString(w, f)
		}
	case req.Method == http.MethodGet && strings.HasSuffix(req.URL.Path, "/runs/r"):
		s.mu.Lock()
		st := "running"
		if s.sentAll {
			st = "success"
		}
		s.mu.Unlock()
		fmt.Fprintf(w, `{"status":%q}`, st)
	default:
		http.NotFound(w, req)
	}
}

// customs are the values of the custom events of a run on srv, and its
// error.
func customs(t *testing.T, url string) (string, error) {
	t.Helper()
	var got []string
	for ev, err := range (&Agent{Upstream: aguihttp.Upstream{URL: url}, Graph: "g", NoSubgraphs: true}).Run(t.Context(), &agui.Request{Input: input()}) {
		if err != nil {
			return strings.Join(got, " "), err
		}
		if c, ok := ev.(*agui.Custom); ok {
			got = append(got, strings.Trim(string(c.Value), `"`))
		}
	}
	return strings.Join(got, " "), nil
}

// A stream from langgraph dev (one id per millisecond, not per frame)
// that drops in the middle of a millisecond's frames is resumed from the
// id before, so that no frame of the last id is lost, and the repeats of
// the replay and of its seam are dropped: every frame arrives once.
// Per-frame ids of the same shape (the Agent Server's Redis stream ids)
// resume the same way.
func TestResumeWithSharedMillisecondIDs(t *testing.T) {
	for _, tc := range []struct {
		name       string
		ids        []string
		cut, seam  int
		lastIDWant string
	}{
		{"mid-millisecond", []string{"1765000000100-0", "1765000000101-0", "1765000000101-0", "1765000000102-0", "1765000000102-0", "1765000000102-0", "1765000000103-0", "1765000000103-0"}, 5, 3, "1765000000101-0"},
		{"seam within the last id", []string{"1765000000100-0", "1765000000101-0", "1765000000101-0", "1765000000101-0", "1765000000101-0"}, 3, 2, "1765000000100-0"},
		{"first millisecond", []string{"1765000000100-0", "1765000000100-0", "1765000000100-0", "1765000000101-0"}, 2, 2, "1765000000099-18446744073709551615"},
		{"per-frame ids", []string{"1765000000100-0", "1765000000100-1", "1765000000101-0", "1765000000102-0", "1765000000102-1"}, 3, 0, "1765000000100-1"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var want []string
			for i := 1; i < len(tc.ids); i++ {
				want = append(want, fmt.Sprintf("v%d", i))
			}
			s := &msServer{ids: tc.ids, cut: tc.cut, seam: tc.seam}
			srv := httptest.NewServer(s)
			defer srv.Close()
			if got, err := customs(t, srv.URL); err != nil || got != strings.Join(want, " ") {
				t.Errorf("got %q (%v), want %q", got, err, strings.Join(want, " "))
			}
			if len(s.lastID) != 1 || s.lastID[0] != tc.lastIDWant {
				t.Errorf("resumed with Last-Event-ID %q, want [%s]", s.lastID, tc.lastIDWant)
			}
		})
	}
}

// A server that drops every resumed stream before it gets past the
// frames of the last id translated already (a group of one millisecond
// larger than a connection carries) is asked for the frames after the
// last id instead, as for other ids: the run goes on, frames arrive at
// most once, and the rest of that group is lost, as it is without
// resuming from before.
func TestResumeFromBeforeThatCannotProgress(t *testing.T) {
	ms := func(n int) string { return fmt.Sprintf("17650000001%02d-0", n) }
	ids := []string{ms(0), ms(1), ms(1), ms(1), ms(1), ms(1), ms(1), ms(2), ms(3)}
	s := &msServer{ids: ids, cut: 4, every: 3}
	srv := httptest.NewServer(s)
	defer srv.Close()
	got, err := customs(t, srv.URL)
	if err != nil || got != "v1 v2 v3 v7 v8" {
		t.Errorf("got %q (%v), want %q", got, err, "v1 v2 v3 v7 v8")
	}
	if want := []string{ms(0), ms(1)}; strings.Join(s.lastID, ",") != strings.Join(want, ",") {
		t.Errorf("resumed with Last-Event-ID %q, want %q", s.lastID, want)
	}
}
