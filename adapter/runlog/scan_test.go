package runlog

import (
	"bytes"
	"context"
	"fmt"
	"runtime"
	"runtime/metrics"
	"testing"
)

// scannableHeap is the heap the GC scans for pointers, after a collection.
func scannableHeap() uint64 {
	runtime.GC()
	s := []metrics.Sample{{Name: "/gc/scan/heap:bytes"}}
	metrics.Read(s)
	return s[0].Value.Uint64()
}

// startedRun is a memory log with alice's run r1 started; the log is
// closed when the test ends.
func startedRun(tb testing.TB) (*Memory, Run) {
	tb.Helper()
	m := NewMemory(MemoryOptions{})
	tb.Cleanup(func() { m.Close() })
	r := run("alice", "r1", "t1")
	if _, err := m.Start(context.Background(), r, false); err != nil {
		tb.Fatal(err)
	}
	return m, r
}

// appendDeltas appends n numbered deltas to r in batches of 64, as a busy
// run commits them; the log keeps no reference to the caller's batch.
func appendDeltas(tb testing.TB, m *Memory, r Run, n int) {
	tb.Helper()
	batch := make([][]byte, 64)
	for i := 0; i < n; i += len(batch) {
		for k := range batch {
			batch[k] = fmt.Appendf(nil, `{"type":"TEXT_MESSAGE_CONTENT","messageId":"m1","delta":"token %d"}`, i+k)
		}
		if _, err := m.Append(context.Background(), r, batch, false); err != nil {
			tb.Fatal(err)
		}
	}
}

// A memory log keeps a busy run's events (up to MaxEventsPerRun of them)
// in memory the GC need not scan: each collection during a flood would
// otherwise mark every retained event.
func TestRetainedEventsAreNotScanned(t *testing.T) {
	const n = 1560 * 64 // just under MaxEventsPerRun's default
	ctx := context.Background()
	m, r := startedRun(t)
	before := scannableHeap()
	appendDeltas(t, m, r, n)
	grown := int64(scannableHeap()) - int64(before)
	perEvent := float64(grown) / n
	t.Logf("%d retained events: %d bytes of scannable heap, %.2f per event", n, grown, perEvent)
	if perEvent > 2 {
		t.Errorf("retaining %d events added %d bytes of scannable heap (%.1f per event), want at most 2 per event", n, grown, perEvent)
	}
	got, err := m.Read(ctx, r.Ref(), n-3, 0)
	if err != nil || len(got) != 3 || got[0].Seq != n-2 || !bytes.Contains(got[2].Data, []byte(fmt.Sprintf(`"token %d"`, n-1))) {
		t.Fatalf("Read after %d = %d entries, %v", n-3, len(got), err)
	}
}

// The log keeps a copy of what it was given: the caller may reuse its
// buffers once Append returns.
func TestAppendCopiesEvents(t *testing.T) {
	ctx := context.Background()
	m, r := startedRun(t)
	small, big := ev(1), bytes.Repeat([]byte("x"), 64<<10)
	if _, err := m.Append(ctx, r, [][]byte{small, big}, false); err != nil {
		t.Fatal(err)
	}
	want := [][]byte{bytes.Clone(small), bytes.Clone(big)}
	clear(small)
	clear(big)
	got, err := m.Read(ctx, r.Ref(), 0, 0)
	if err != nil || len(got) != 2 {
		t.Fatalf("Read = %d entries, %v", len(got), err)
	}
	for i := range got {
		if !bytes.Equal(got[i].Data, want[i]) {
			t.Errorf("entry %d changed with the caller's buffer", i+1)
		}
		if cap(got[i].Data) != len(got[i].Data) {
			t.Errorf("entry %d: capacity %d beyond its %d bytes: an append would write into a neighbour", i+1, cap(got[i].Data), len(got[i].Data))
		}
	}
}

// BenchmarkCollectWithRetainedRun is a full collection while one run
// retains 99,840 deltas: the mark work a flood pays each GC cycle.
func BenchmarkCollectWithRetainedRun(b *testing.B) {
	m, r := startedRun(b)
	appendDeltas(b, m, r, 1560*64)
	for b.Loop() {
		runtime.GC()
	}
}

// BenchmarkAppendDeltas is the memory log's cost per appended delta, in
// batches of 64 as a busy run commits them, trimmed at MaxEventsPerRun.
func BenchmarkAppendDeltas(b *testing.B) {
	ctx := context.Background()
	m, r := startedRun(b)
	batch := make([][]byte, 64)
	for k := range batch {
		batch[k] = []byte(`{"type":"TEXT_MESSAGE_CONTENT","messageId":"m1","delta":"a token"}`)
	}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := m.Append(ctx, r, batch, false); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*len(batch)), "ns/event")
}

// A run's terminal event seals its queue: an ended run, kept for an hour,
// holds no chunk's unused end.
func TestEndedRunIsSealed(t *testing.T) {
	ctx := context.Background()
	m, r := startedRun(t)
	m.Append(ctx, r, [][]byte{ev(1), ev(2)}, false)
	if q := &m.runs[r.Ref()].entries; q.chunk == nil {
		t.Fatal("a running run has no chunk being filled")
	}
	m.Append(ctx, r, [][]byte{finished}, true)
	q := &m.runs[r.Ref()].entries
	if q.chunk != nil {
		t.Errorf("an ended run keeps its chunk of %d bytes (%d used)", cap(q.chunk), len(q.chunk))
	}
	if got, err := m.Read(ctx, r.Ref(), 0, 0); err != nil || len(got) != 3 || !bytes.Equal(got[2].Data, finished) || !got[2].Terminal {
		t.Errorf("Read after the end = %+v, %v", got, err)
	}
}
