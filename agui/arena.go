package agui

// A busy stream decodes a delta event per token, and each one needs two
// heap objects: the event and a copy of its bytes (which the run log then
// keeps). Decode gives each stream an arena that, once the stream has
// shown it is busy, hands both out of blocks shared by a few dozen events
// rather than allocating them one by one.
//
// Nothing in a block is ever reused or written twice: a block is garbage
// once none of its events and bytes is referenced any more, so the arena
// is as safe as separate allocations whoever keeps an event. The price is
// granularity: whatever keeps one event or one event's bytes (the run
// log's oldest entry, say) keeps its whole block, at most arenaBytes of
// bytes and arenaEvents events. A quiet stream (most chat streams: a few
// events a second) never reaches arenaAfter and allocates each event on
// its own, so an idle connection holds no block at all.

const (
	// arenaAfter is how many events a stream decodes one allocation at a
	// time before its deltas come from blocks.
	arenaAfter = 64
	// arenaBytes is the size of a block of event bytes; a delta larger
	// than a quarter of it gets its own allocation.
	arenaBytes = 2 << 10
	// arenaEvents is how many events of one type a block holds.
	arenaEvents = 16
)

// arena is one stream's source of delta events; the zero value is ready,
// and a nil *arena allocates every event and byte on its own. Not safe
// for concurrent use (a stream is decoded by one goroutine).
type arena struct {
	seen      int    // canonical deltas decoded, up to arenaAfter+1
	bytes     []byte // the rest of the current block
	texts     []keptEvent[TextMessageContent]
	args      []keptEvent[ToolCallArgs]
	reasoning []keptEvent[ReasoningMessageContent]
}

// busy counts an event and reports whether the stream is past
// arenaAfter.
func (a *arena) busy() bool {
	if a == nil {
		return false
	}
	if a.seen <= arenaAfter {
		a.seen++
	}
	return a.seen > arenaAfter
}

// copy returns a copy of data whose capacity ends with it, so that an
// append to it can never write into a neighbour's bytes.
func (a *arena) copy(data []byte) []byte {
	if !a.busy() || len(data) > arenaBytes/4 {
		w := make([]byte, len(data))
		copy(w, data)
		return w
	}
	if len(a.bytes) < len(data) {
		a.bytes = make([]byte, arenaBytes)
	}
	w := a.bytes[:len(data):len(data)]
	copy(w, data)
	a.bytes = a.bytes[len(data):]
	return w
}

// inBlocks reports whether the stream's events come from blocks (the
// event being decoded already counted by copy).
func (a *arena) inBlocks() bool { return a != nil && a.seen > arenaAfter }

// deltaEvent returns a zero event: from the stream's block of its type
// (block picks it) once the stream is busy, else from the heap.
func deltaEvent[T any](a *arena, block func(*arena) *[]T) *T {
	if !a.inBlocks() {
		return new(T)
	}
	return take(block(a))
}

// take returns a zero event from a block of events of its type, s,
// starting a new block when s is used up.
func take[T any](s *[]T) *T {
	if len(*s) == 0 {
		*s = make([]T, arenaEvents)
	}
	e := &(*s)[0]
	*s = (*s)[1:]
	return e
}
