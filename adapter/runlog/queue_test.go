package runlog

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"testing"
)

// The queue holds what a plain slice would, through pushes and pops that
// cross block and chunk boundaries in every phase, with events small,
// large and between.
func TestEntryQueueMatchesSlice(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	var q entryQueue
	var model [][]byte
	seq := 0
	for step := range 20000 {
		switch r := rng.IntN(10); {
		case r < 6 || len(model) == 0:
			for range rng.IntN(40) + 1 {
				size := rng.IntN(300)
				if rng.IntN(50) == 0 {
					size = maxChunk/4 + rng.IntN(maxChunk)
				}
				e := fmt.Appendf(nil, "%d:", seq)
				e = append(e, bytes.Repeat([]byte{byte(seq)}, size)...)
				seq++
				q.push(e)
				model = append(model, e)
			}
		default:
			for range min(rng.IntN(60)+1, len(model)) {
				if got := q.pop(); got != len(model[0]) {
					t.Fatalf("step %d: pop gave size %d, want %d", step, got, len(model[0]))
				}
				model = model[1:]
			}
		}
		if q.len() != len(model) {
			t.Fatalf("step %d: len %d, want %d", step, q.len(), len(model))
		}
		for i := range model {
			if got := q.data(i); !bytes.Equal(got, model[i]) || cap(got) != len(got) {
				t.Fatalf("step %d: event %d is %.20q (cap %d), want %.20q", step, i, got, cap(got), model[i])
			}
		}
	}
	if len(q.blocks) > q.len()/entryBlock+2 {
		t.Fatalf("%d blocks for %d entries: emptied blocks are kept", len(q.blocks), q.len())
	}
}

// A dropped event's chunk is let go as soon as no live event uses it, not
// when its whole block goes: a run trimmed to its byte budget must not
// keep what it no longer counts.
func TestEntryQueueFreesChunks(t *testing.T) {
	var q entryQueue
	big := bytes.Repeat([]byte("x"), maxChunk)
	for range 10 {
		q.push(big)
		q.push([]byte("small"))
	}
	held := func() (n int) {
		for _, b := range q.blocks {
			for _, c := range b.chunks {
				n += len(c)
			}
		}
		return n
	}
	for i := range 18 {
		q.pop()
		if h := held(); h > (10-(i+1)/2)*maxChunk+2*maxChunk {
			t.Fatalf("after %d pops the queue holds %d bytes of chunks", i+1, h)
		}
	}
	q.pop()
	q.pop()
	if q.len() != 0 || len(q.blocks) != 0 || q.chunk != nil {
		t.Fatalf("an emptied queue keeps %d blocks and a chunk of %d", len(q.blocks), cap(q.chunk))
	}
	q.push([]byte("again"))
	if got := q.data(0); string(got) != "again" {
		t.Fatalf("after emptying: %q", got)
	}
}

// An ended run keeps no unused end of a chunk (it is kept for an hour),
// whichever blocks the chunk spans, and its events still read back whole.
func TestEntryQueueSealGivesBackTheSpareEnd(t *testing.T) {
	var q entryQueue
	var model [][]byte
	for i := range 300 { // the chunk being filled spans the two blocks
		e := fmt.Appendf(nil, "event %03d: %s", i, bytes.Repeat([]byte("y"), 30))
		q.push(e)
		model = append(model, e)
	}
	held := func() (n int) {
		seen := map[*byte]bool{}
		for _, b := range q.blocks {
			for _, c := range b.chunks {
				if cap(c) > 0 && !seen[&c[:1][0]] {
					seen[&c[:1][0]] = true
					n += cap(c)
				}
			}
		}
		return n
	}
	data := 0
	for _, e := range model {
		data += len(e)
	}
	if h := held(); h < data+1024 {
		t.Fatalf("the test needs a chunk with a spare end: %d held for %d bytes", h, data)
	}
	q.seal()
	if h := held(); h > data+data/8 {
		t.Errorf("sealed: %d bytes of chunks held for %d bytes of events", h, data)
	}
	for i := range model {
		if got := q.data(i); !bytes.Equal(got, model[i]) {
			t.Fatalf("sealed: event %d is %q, want %q", i, got, model[i])
		}
	}
}
