package mcpapps

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"testing"
	"time"
)

// A card logs up to its burst at once, then at its rate; a flood is
// refused (its first refusal logged once, the count reported when the
// card logs again), other cards are not affected, and a message over the
// size cap is refused whatever the rate.
func TestViewLogsLimitPerCard(t *testing.T) {
	var buf bytes.Buffer
	log := slog.New(slog.NewTextHandler(&buf, nil))
	clock := time.Unix(1000, 0)
	v := NewViewLogs(ViewLogOptions{Rate: 60, Burst: 2, MaxBytes: 64})
	v.now = func() time.Time { return clock }
	card := &Capability{Server: "fx", Resource: "ui://fx/w.html", Tool: "weather", ToolCall: "c1", Principal: "alice", Thread: "t"}
	other := &Capability{Server: "fx", Resource: "ui://fx/w.html", Tool: "weather", ToolCall: "c2", Principal: "alice", Thread: "t"}
	msg := json.RawMessage(`{"level":"info","data":"hi"}`)
	for i := range 2 {
		if err := v.Log(log, card, "fx", msg); err != nil {
			t.Fatalf("message %d: %v", i, err)
		}
	}
	for range 3 {
		if err := v.Log(log, card, "fx", msg); !errors.Is(err, ErrViewLogFlood) {
			t.Fatalf("flood: %v", err)
		}
	}
	if n := strings.Count(buf.String(), "rate exceeded"); n != 1 {
		t.Errorf("the flood was logged %d times, want once:\n%s", n, buf.String())
	}
	if err := v.Log(log, other, "fx", msg); err != nil {
		t.Errorf("another card: %v", err)
	}
	clock = clock.Add(time.Second) // one more message a second
	if err := v.Log(log, card, "fx", msg); err != nil {
		t.Fatalf("after a second: %v", err)
	}
	if !strings.Contains(buf.String(), "refused_before=3") {
		t.Errorf("the refused count is not reported:\n%s", buf.String())
	}
	if err := v.Log(log, other, "fx", json.RawMessage(`{"level":"info","data":"`+strings.Repeat("x", 64)+`"}`)); !errors.Is(err, ErrViewLogTooLarge) {
		t.Errorf("a large message: %v", err)
	}
	if err := v.Log(log, other, "fx", json.RawMessage(`{"data":"no level"}`)); err == nil {
		t.Error("a message without a level was accepted")
	}
	for _, want := range []string{"tool=weather", "card=c1", "server=fx", "principal=alice", "thread=t", "level=info", "data=\"\\\"hi\\\"\""} {
		if !strings.Contains(buf.String(), want) {
			t.Errorf("the log lacks %s:\n%s", want, buf.String())
		}
	}
}

// With the table of cards full (ViewLogOptions.MaxCards), idle cards are
// forgotten and a busy table refuses new cards rather than grow.
func TestViewLogsTableBounded(t *testing.T) {
	for _, tt := range []struct{ max, want int }{{0, DefaultMaxViewLogCards}, {3, 3}} {
		t.Run(fmt.Sprint(tt.max), func(t *testing.T) {
			clock := time.Unix(1000, 0)
			v := NewViewLogs(ViewLogOptions{Rate: 60, Burst: 1, MaxCards: tt.max})
			v.now = func() time.Time { return clock }
			for i := range tt.want {
				if ok, _, _ := v.take(string(rune(i))); !ok {
					t.Fatalf("new card %d was refused", i)
				}
			}
			if ok, _, _ := v.take("one more"); ok {
				t.Error("a full table of busy cards took one more")
			}
			clock = clock.Add(time.Second)
			if ok, _, _ := v.take("one more"); !ok || len(v.buckets) != 1 {
				t.Errorf("idle cards were not forgotten: %v, %d kept", ok, len(v.buckets))
			}
		})
	}
}
