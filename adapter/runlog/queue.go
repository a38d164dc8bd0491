package runlog

// entryBlock is how many entries one block of a run's queue holds: a long
// run grows by blocks instead of copying one ever bigger slice (with its
// pointers for the GC to scan), and its oldest events are dropped a block
// at a time.
const entryBlock = 256

// entryQueue is a run's live entries, oldest first: blocks of entryBlock
// entries, every block full but the last, with the first block's live
// part starting at head. The first block starts small (most runs are
// short); later ones are made whole.
type entryQueue struct {
	blocks [][]Entry
	head   int
	n      int
}

func (q *entryQueue) len() int { return q.n }

func (q *entryQueue) push(e Entry) {
	if len(q.blocks) == 0 {
		q.blocks = append(q.blocks, make([]Entry, 0, 8))
	} else if len(q.blocks[len(q.blocks)-1]) == entryBlock {
		q.blocks = append(q.blocks, make([]Entry, 0, entryBlock))
	}
	last := &q.blocks[len(q.blocks)-1]
	*last = append(*last, e)
	q.n++
}

// pop removes and returns the oldest entry; the queue is not empty.
func (q *entryQueue) pop() Entry {
	b := q.blocks[0]
	e := b[q.head]
	b[q.head] = Entry{}
	q.head++
	q.n--
	if q.head == entryBlock {
		q.blocks[0] = nil
		q.blocks = q.blocks[1:]
		q.head = 0
	}
	return e
}

// appendFrom appends the live entries from the i-th on, at most max (0:
// all), to dst.
func (q *entryQueue) appendFrom(dst []Entry, i, max int) []Entry {
	end := q.n
	if max > 0 && end-i > max {
		end = i + max
	}
	for p, stop := q.head+i, q.head+end; p < stop; {
		b := q.blocks[p/entryBlock]
		off := p % entryBlock
		take := min(len(b)-off, stop-p)
		dst = append(dst, b[off:off+take]...)
		p += take
	}
	return dst
}
