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
	ids    []string // one per frame; frame i is custom event "v<i>"
	cut    int
	seam   int
	mu     sync.Mutex
	lastID []string // Last-Event-ID of each resume
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
		for _, f := range append(sent, sent[max(0, len(sent)-s.seam):]...) {
			io.WriteString(w, f)
		}
	case req.Method == http.MethodGet && strings.HasSuffix(req.URL.Path, "/runs/r"):
		s.mu.Lock()
		st := "running"
		if len(s.lastID) > 0 {
			st = "success"
		}
		s.mu.Unlock()
		fmt.Fprintf(w, `{"status":%q}`, st)
	default:
		http.NotFound(w, req)
	}
}

// customs are the values of the custom events of a run on srv.
func customs(t *testing.T, url string) string {
	t.Helper()
	var got []string
	for ev, err := range (&Agent{Upstream: aguihttp.Upstream{URL: url}, Graph: "g", NoSubgraphs: true}).Run(t.Context(), &agui.Request{Input: input()}) {
		if err != nil {
			t.Fatal(err)
		}
		if c, ok := ev.(*agui.Custom); ok {
			got = append(got, strings.Trim(string(c.Value), `"`))
		}
	}
	return strings.Join(got, " ")
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
			if got := customs(t, srv.URL); got != strings.Join(want, " ") {
				t.Errorf("got %q, want %q", got, strings.Join(want, " "))
			}
			if len(s.lastID) != 1 || s.lastID[0] != tc.lastIDWant {
				t.Errorf("resumed with Last-Event-ID %q, want [%s]", s.lastID, tc.lastIDWant)
			}
		})
	}
}
