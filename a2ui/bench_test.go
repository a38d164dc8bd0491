package a2ui_test

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"runtime/debug"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/genui-adapter/genui-adapter/a2ui"
)

func reportP99(b *testing.B, d []time.Duration) {
	slices.Sort(d)
	b.ReportMetric(float64(d[len(d)*99/100].Microseconds()), "p99-µs")
	b.ReportMetric(float64(d[len(d)/2].Microseconds()), "p50-µs")
}

// BenchmarkValidateFinancialGrid validates the official 22-component
// 33_financial-data-grid surface (target: p99 ≤ 1 ms on one core). The
// pinned revision's file holds 17 components in its updateComponents.
func BenchmarkValidateFinancialGrid(b *testing.B) {
	raw, err := os.ReadFile(filepath.Join(examples, "basic", "33_financial-data-grid.json"))
	if err != nil {
		b.Fatal(err)
	}
	var sample struct{ Messages []json.RawMessage }
	json.Unmarshal(raw, &sample)
	var msgs [][]byte
	comps := 0
	for _, m := range sample.Messages {
		msgs = append(msgs, m)
		comps += strings.Count(string(m), `"component"`)
	}
	if comps < 17 {
		b.Fatalf("%d components, want the whole grid", comps)
	}
	v := a2ui.MustValidator(a2ui.Options{Strict: true})
	for range 100 { // warm caches before measuring percentiles
		v.ValidateBatch(msgs)
	}
	var d []time.Duration
	b.ReportAllocs()
	for b.Loop() {
		t := time.Now()
		if errs := v.ValidateBatch(msgs); len(errs) > 0 {
			b.Fatal(errs)
		}
		d = append(d, time.Since(t))
	}
	reportP99(b, d)
}

// BenchmarkGenerateValidate200Rows generates and strictly validates a
// 200-row table (target ≤ 5 ms).
func BenchmarkGenerateValidate200Rows(b *testing.B) {
	var rows []string
	for i := range 200 {
		rows = append(rows, fmt.Sprintf(`{"id":"O-%d","customer":"Customer %d","total":%d.25,"paid":%v,"placedAt":"2026-11-%02d"}`, i, i, i, i%2 == 0, i%28+1))
	}
	in := json.RawMessage("[" + strings.Join(rows, ",") + "]")
	v := a2ui.MustValidator(a2ui.Options{Strict: true, CheckBindings: true, MaxTemplateItems: 200})
	var d []time.Duration
	b.ReportAllocs()
	for b.Loop() {
		t := time.Now()
		msgs, err := a2ui.Generate(in, a2ui.GenerateOptions{SurfaceID: "s", Title: "Orders", RowAction: "select_row"})
		if err != nil {
			b.Fatal(err)
		}
		raw := make([][]byte, len(msgs))
		for i, m := range msgs {
			raw[i], _ = json.Marshal(m)
		}
		if errs := v.ValidateBatch(raw); len(errs) > 0 {
			b.Fatal(errs)
		}
		d = append(d, time.Since(t))
	}
	reportP99(b, d)
}

// largest returns the messages of the largest file (in bytes) of glob,
// read by read.
func largest(b *testing.B, glob string, read func(testing.TB, string) []json.RawMessage) (string, []json.RawMessage) {
	files, _ := filepath.Glob(glob)
	best, size := "", int64(-1)
	for _, f := range files {
		if st, err := os.Stat(f); err == nil && st.Size() > size {
			best, size = f, st.Size()
		}
	}
	if best == "" {
		b.Fatalf("no file matches %s", glob)
	}
	return filepath.Base(best), read(b, best)
}

// serviceGCPercent is the collector setting the service runs with by
// default (adapter.DefaultGCPercent).
const serviceGCPercent = 200

// BenchmarkConvert converts the largest official example of each
// version A2UI conversion takes (13_coffee-order in each: 3 messages in
// v0.9.1 and v1.0, 3 in v0.8), per message: the example's time over its
// message count, p50 and p99 over the runs, and the mean. Each direction
// runs warm (the validator has seen the messages, so its schema verdicts
// are remembered, as for a surface that streams in or is sent again) and
// cold (verdicts forgotten before each run, untimed: every schema check
// in full, as for a message seen the first time). What is timed is the
// conversion with the input version's checks (v0.8 schema and catalog,
// v1.0 schema; for v0.9.1 → v0.8, the v0.8 schema and catalog checks of
// the output); the v0.9.1 validation every surface gets whatever its
// version is "validate", beside it. "noise" is the same loop around a
// fixed computation that allocates nothing: its p99 over its p50 is what
// the machine's scheduling adds (target: conversion ≤ 50 µs p99 per
// message, warm). Unless GOGC is set, the collector runs at the
// service's default, 200 (adapter.DefaultGCPercent, which a2ui cannot
// import), not the runtime's 100.
func BenchmarkConvert(b *testing.B) {
	if os.Getenv("GOGC") == "" {
		defer debug.SetGCPercent(debug.SetGCPercent(serviceGCPercent))
	}
	v := a2ui.MustValidator(a2ui.Options{})
	_, v091 := largest(b, filepath.Join(examples, "basic", "*.json"), officialExample)
	_, v10 := largest(b, filepath.Join(v10Examples, "*.json"), officialExample)
	v08 := v08Example(b, filepath.Join(v08Examples, "basic", "13_coffee-order.json"))
	upgrade := func(b *testing.B, in []json.RawMessage) func() {
		return func() {
			if u := v.Upgrade(in, ""); len(u.Issues) > 0 {
				b.Fatal(u.Issues)
			}
		}
	}
	out := raw(v.Upgrade(v08, "").Messages)
	for _, bc := range []struct {
		name string
		n    int
		f    func(b *testing.B) func()
	}{
		{"v0.9.1-to-v0.8", len(v091), func(b *testing.B) func() {
			return func() {
				if d := v.Downgrade(v091); len(d.Messages) != len(v091) {
					b.Fatalf("%d messages out of %d: %v", len(d.Messages), len(v091), d.Issues)
				}
			}
		}},
		{"v0.8-to-v0.9.1", len(v08), func(b *testing.B) func() { return upgrade(b, v08) }},
		{"v1.0-to-v0.9.1", len(v10), func(b *testing.B) func() { return upgrade(b, v10) }},
	} {
		for _, cold := range []bool{false, true} {
			name := bc.name + "/warm"
			if cold {
				name = bc.name + "/cold"
			}
			b.Run(name, func(b *testing.B) {
				var forget func()
				if cold {
					forget = v.ForgetVerdicts
				}
				benchPerMessage(b, bc.n, forget, bc.f(b))
			})
		}
	}
	b.Run("validate", func(b *testing.B) {
		benchPerMessage(b, len(out), nil, func() {
			if errs := v.ValidateBatch(out); len(errs) > 0 {
				b.Fatal(errs)
			}
		})
	})
	b.Run("noise", func(b *testing.B) {
		x := uint64(1)
		benchPerMessage(b, 3, nil, func() {
			for range 40000 {
				x ^= x << 13
				x ^= x >> 7
				x ^= x << 17
			}
		})
		if x == 0 {
			b.Log(x)
		}
	})
}

// benchPerMessage times f, which handles n messages, and reports the p50
// and p99 over the runs of its time over n, and the mean; before each run
// it calls before (untimed) if not nil.
func benchPerMessage(b *testing.B, n int, before, f func()) {
	for range 100 { // warm caches before measuring percentiles
		f()
	}
	d := make([]time.Duration, 0, b.N)
	var sum time.Duration
	b.ReportAllocs()
	for b.Loop() {
		if before != nil {
			before()
		}
		t := time.Now()
		f()
		e := time.Since(t)
		sum += e
		d = append(d, e/time.Duration(n))
	}
	slices.Sort(d)
	b.ReportMetric(float64(d[len(d)*99/100].Nanoseconds())/1000, "p99-µs/msg")
	b.ReportMetric(float64(d[len(d)/2].Nanoseconds())/1000, "p50-µs/msg")
	b.ReportMetric(float64(sum.Nanoseconds())/float64(len(d)*n)/1000, "mean-µs/msg")
}
