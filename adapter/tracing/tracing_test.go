package tracing

import (
	"context"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"
)

// TestExportStaysOnTheCollectorsOrigin: a collector that redirects to
// another origin does not get the spans, or the configured headers,
// sent there.
func TestExportStaysOnTheCollectorsOrigin(t *testing.T) {
	var foreign, hops atomic.Int32
	other := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { foreign.Add(1) }))
	defer other.Close()
	hop := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hops.Add(1)
		http.Redirect(w, r, other.URL+r.URL.Path, http.StatusTemporaryRedirect)
	}))
	defer hop.Close()
	p, err := New(context.Background(), Config{Endpoint: hop.URL, Headers: map[string]string{"X-Api-Key": "collector-secret"}})
	if err != nil {
		t.Fatal(err)
	}
	_, end := p.start(context.Background(), "run")
	end(nil)
	_ = p.Shutdown(context.Background()) // the export fails: that is the point
	if hops.Load() == 0 {
		t.Fatal("nothing was exported")
	}
	if n := foreign.Load(); n != 0 {
		t.Errorf("spans followed a redirect to another origin %d times", n)
	}
}
