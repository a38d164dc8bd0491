package a2ui_test

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
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

// benchConvert times convert over msgs and reports the p99 and p50 per
// message (the example's time over its message count).
func benchConvert(b *testing.B, msgs []json.RawMessage, convert func([]json.RawMessage) int) {
	for range 100 {
		convert(msgs)
	}
	var d []time.Duration
	b.ReportAllocs()
	for b.Loop() {
		t := time.Now()
		if n := convert(msgs); n != len(msgs) {
			b.Fatalf("%d messages out of %d", n, len(msgs))
		}
		d = append(d, time.Since(t)/time.Duration(len(msgs)))
	}
	slices.Sort(d)
	b.ReportMetric(float64(d[len(d)*99/100].Nanoseconds())/1000, "p99-µs/msg")
	b.ReportMetric(float64(d[len(d)/2].Nanoseconds())/1000, "p50-µs/msg")
}

// BenchmarkDowngradeV08 converts the largest official v0.9.1 example to
// v0.8 for a v0.8 client (v0.8 schema checks included).
func BenchmarkDowngradeV08(b *testing.B) {
	name, msgs := largest(b, filepath.Join(examples, "basic", "*.json"), officialExample)
	b.Logf("%s: %d messages", name, len(msgs))
	v := a2ui.MustValidator(a2ui.Options{})
	benchConvert(b, msgs, func(m []json.RawMessage) int { return len(v.Downgrade(m).Messages) })
}

// BenchmarkConvertV10 converts the largest official v1.0 example to
// v0.9.1 (the v1.0 schema check included; target ≤ 50 µs p99 per
// message).
func BenchmarkConvertV10(b *testing.B) {
	name, msgs := largest(b, filepath.Join(v10Examples, "*.json"), officialExample)
	b.Logf("%s: %d messages", name, len(msgs))
	v := a2ui.MustValidator(a2ui.Options{})
	benchConvert(b, msgs, func(m []json.RawMessage) int {
		u := v.Upgrade(m, "")
		if len(u.Issues) > 0 {
			b.Fatal(u.Issues)
		}
		return len(m)
	})
}
