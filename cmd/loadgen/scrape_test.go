package main

import (
	"io"
	"net/http"
	"net/http/httptest"
	"testing"
)

// The run log's fill is read off the adapter's /metrics: the exact
// sample, not one whose name it starts, and no number where there is none.
func TestScrapeGauge(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.WriteString(w, "# HELP genui_store_bytes Bytes held.\n"+
			"genui_store_bytes{store=\"eventsX\"} 7\n"+
			"genui_store_bytes{store=\"events\"} 1.3200287e+08\n"+
			"genui_store_bytes{store=\"histories\"} 27968\n")
	}))
	defer srv.Close()
	if v, ok := scrapeGauge(srv.URL, `genui_store_bytes{store="events"}`); !ok || v != 1.3200287e+08 {
		t.Fatalf("events = %v, %v; want 1.3200287e+08", v, ok)
	}
	if v, ok := scrapeGauge(srv.URL, `genui_store_bytes{store="tails"}`); ok {
		t.Fatalf("a missing sample read as %v", v)
	}
	srv.Close()
	if _, ok := scrapeGauge(srv.URL, `genui_store_bytes{store="events"}`); ok {
		t.Fatal("an unreachable page gave a number")
	}
}
