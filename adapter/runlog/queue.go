package runlog

// entryBlock is how many events one block of a run's queue holds: a long
// run grows by blocks instead of copying one ever bigger slice, and its
// oldest events are dropped a block at a time.
const entryBlock = 256

// The queue copies events into chunks of bytes that hold no pointers, so
// that a collection marks a block's few chunks instead of every event a
// busy run retains (up to MaxEventsPerRun of them, marked again each
// cycle of a flood). A run's first chunk is small (most runs are short);
// each next one doubles, up to maxChunk. An event larger than a quarter
// of maxChunk gets a chunk of its own, freed as soon as the event is
// dropped.
//
// What a run holds beyond what it is charged (its events' bytes and
// entryOverhead each) is at most two shared chunks: the unused end of the
// one being filled, and the dropped events' bytes in the oldest live
// event's chunk. A run that ends gives the first back (seal), since ended
// runs are kept for an hour. maxChunk bounds the rest: bigger chunks
// (64 KiB) cost a flood no measurably less CPU and would let a crowd of
// trimmed running runs hold 128 KiB each beyond the budget.
const (
	firstChunk = 512
	maxChunk   = 16 << 10
)

// entryQueue is a run's live events, oldest first: blocks of entryBlock
// events, every block full but the last, with the first block's live
// part starting at head.
type entryQueue struct {
	blocks []*queueBlock
	head   int
	n      int
	chunk  []byte // the shared chunk being filled: len is what is used
	slot   int    // the chunk's slot in the last block, or -1: none yet
}

// queueBlock is up to entryBlock events: where each one's bytes are.
type queueBlock struct {
	locs   []loc
	chunks [][]byte // slots; a chunk continued in a later block has a slot there too
}

// loc is where an event's bytes are in its block.
type loc struct {
	slot, off, n int32
}

func (q *entryQueue) len() int { return q.n }

// push appends a copy of data.
func (q *entryQueue) push(data []byte) {
	if len(q.blocks) == 0 {
		q.blocks = append(q.blocks, &queueBlock{locs: make([]loc, 0, 8)})
		q.slot = -1
	} else if len(q.blocks[len(q.blocks)-1].locs) == entryBlock {
		q.blocks = append(q.blocks, &queueBlock{locs: make([]loc, 0, entryBlock)})
		q.slot = -1
	}
	b := q.blocks[len(q.blocks)-1]
	q.n++
	if len(data) > maxChunk/4 {
		b.chunks = append(b.chunks, append([]byte(nil), data...))
		b.locs = append(b.locs, loc{slot: int32(len(b.chunks) - 1), n: int32(len(data))})
		q.slot = -1 // the shared chunk's later events take a new slot: slots stay in event order
		return
	}
	if cap(q.chunk)-len(q.chunk) < len(data) {
		size := min(max(2*cap(q.chunk), firstChunk), maxChunk)
		q.chunk = make([]byte, 0, max(size, len(data)))
		q.slot = -1
	}
	if q.slot < 0 {
		b.chunks = append(b.chunks, q.chunk[:cap(q.chunk)])
		q.slot = len(b.chunks) - 1
	}
	b.locs = append(b.locs, loc{slot: int32(q.slot), off: int32(len(q.chunk)), n: int32(len(data))})
	q.chunk = append(q.chunk, data...)
}

// pop drops the oldest event and returns its size; the queue is not
// empty. A slot is freed with the last event that uses it.
func (q *entryQueue) pop() int {
	b := q.blocks[0]
	l := b.locs[q.head]
	q.head++
	q.n--
	if q.n == 0 {
		*q = entryQueue{} // nothing is kept for a run whose every event was dropped
		return int(l.n)
	}
	if q.head == entryBlock {
		q.blocks[0] = nil
		q.blocks = q.blocks[1:]
		q.head = 0
		return int(l.n)
	}
	// Slots are in event order, so the slot is done with unless the next
	// event, in this block (there is one), uses it too.
	if b.locs[q.head].slot != l.slot {
		b.chunks[l.slot] = nil
	}
	return int(l.n)
}

// data is the i-th live event's bytes, capacity ending with them.
func (q *entryQueue) data(i int) []byte {
	p := q.head + i
	b := q.blocks[p/entryBlock]
	l := b.locs[p%entryBlock]
	end := l.off + l.n
	return b.chunks[l.slot][l.off:end:end]
}

// seal gives back the unused end of the chunk being filled: the run has
// ended and takes no more events. The chunk's used part is copied to an
// allocation of its own size, and every slot of it points there.
func (q *entryQueue) seal() {
	if cap(q.chunk)-len(q.chunk) < 64 {
		q.chunk, q.slot = nil, -1
		return
	}
	old := q.chunk[:1]
	fit := append([]byte(nil), q.chunk...)
	for _, b := range q.blocks {
		for s, c := range b.chunks {
			if len(c) > 0 && &c[0] == &old[0] {
				b.chunks[s] = fit
			}
		}
	}
	q.chunk, q.slot = nil, -1
}
