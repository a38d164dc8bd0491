package runlog

import (
	"math/rand/v2"
	"testing"
)

// The queue holds what a plain slice would, through pushes and pops that
// cross block boundaries in every phase.
func TestEntryQueueMatchesSlice(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	var q entryQueue
	var model []Entry
	seq := int64(0)
	for step := range 20000 {
		switch r := rng.IntN(10); {
		case r < 6 || len(model) == 0:
			for range rng.IntN(40) + 1 {
				e := Entry{Seq: seq, Data: []byte{byte(seq)}}
				seq++
				q.push(e)
				model = append(model, e)
			}
		default:
			for range min(rng.IntN(60)+1, len(model)) {
				if got := q.pop(); got.Seq != model[0].Seq {
					t.Fatalf("step %d: pop gave %d, want %d", step, got.Seq, model[0].Seq)
				}
				model = model[1:]
			}
		}
		if q.len() != len(model) {
			t.Fatalf("step %d: len %d, want %d", step, q.len(), len(model))
		}
		if len(model) == 0 {
			continue
		}
		i := rng.IntN(len(model))
		max := rng.IntN(300)
		got := q.appendFrom(nil, i, max)
		want := model[i:]
		if max > 0 && len(want) > max {
			want = want[:max]
		}
		if len(got) != len(want) {
			t.Fatalf("step %d: appendFrom(%d, %d) gave %d entries, want %d", step, i, max, len(got), len(want))
		}
		for k := range got {
			if got[k].Seq != want[k].Seq {
				t.Fatalf("step %d: entry %d is %d, want %d", step, k, got[k].Seq, want[k].Seq)
			}
		}
	}
	if len(q.blocks) > q.len()/entryBlock+2 {
		t.Fatalf("%d blocks for %d entries: emptied blocks are kept", len(q.blocks), q.len())
	}
}
