package agui

import (
	"sync/atomic"
	"unsafe"
)

// Codec internals: the upstream bytes a delta event was decoded from,
// kept for its encoding.
//
// A delta event whose upstream bytes are exactly what MarshalJSON would
// write (the canonical layout, no escapes) is decoded by canonicalDelta
// from one copy of those bytes: its id and delta are cut from the copy.
// The copy is recorded in kept, a table the codec owns, and MarshalJSON
// returns it while the event's id and delta still are those very strings.
// Most upstreams send this layout, and a relay then never re-encodes a
// delta: no allocation, no escaping pass. The event types themselves
// carry nothing for it.
//
// kept has keptSlots slots, chosen by the event's address; each holds the
// bytes of the delta last decoded into it, by any stream, so a slot may
// have moved on to another event by the time an event is encoded. That
// costs only the encoding (appendDelta): MarshalJSON uses a slot's bytes
// only if they are the canonical layout of the event's type and the
// event's id and delta point into them where that layout puts them, with
// the lengths it gives, and then the bytes are the event's encoding,
// whichever event it is. A relay encodes an event right after decoding
// it, in the same goroutine (the chain is a nest of range loops), so only
// the few goroutines running meanwhile can take its slot.
//
// The table keeps alive at most keptSlots deltas with their bytes (and the
// arena blocks they sit in).

const (
	keptBits  = 10
	keptSlots = 1 << keptBits
)

// kept is the table of recently decoded canonical deltas' bytes.
var kept [keptSlots]atomic.Pointer[[]byte]

// The canonical layouts of the three delta events up to the id's opening
// quote; then come the id, deltaSeparator, the delta and `"}`.
const (
	textContentPrefix      = `{"type":"TEXT_MESSAGE_CONTENT","messageId":"`
	toolArgsPrefix         = `{"type":"TOOL_CALL_ARGS","toolCallId":"`
	reasoningContentPrefix = `{"type":"REASONING_MESSAGE_CONTENT","messageId":"`
	deltaSeparator         = `","delta":"`
)

// keptEvent is a canonical delta event and the bytes it was decoded from,
// allocated together (one object, or a place in an arena block). ev comes
// first: a *T handed out is the keptEvent's address.
type keptEvent[T any] struct {
	ev   T
	wire []byte
}

// keep records k's bytes, which are never written again, for its
// encoding; it returns true for canonicalDelta's convenience.
func (k *keptEvent[T]) keep(wire []byte) bool {
	k.wire = wire
	keptSlot(unsafe.Pointer(k)).Store(&k.wire)
	return true
}

// keptSlot is the slot of the event at p.
func keptSlot(p unsafe.Pointer) *atomic.Pointer[[]byte] {
	return &kept[(uint64(uintptr(p))*0x9E3779B97F4A7C15)>>(64-keptBits)]
}

// keptDelta returns the bytes the delta event at ev was decoded from, if
// kept still has them and the event's id and delta are still the strings
// cut from them; prefix is the event type's canonical prefix.
func keptDelta(ev unsafe.Pointer, prefix, id, delta string) ([]byte, bool) {
	w := keptSlot(ev).Load()
	if w == nil {
		return nil, false
	}
	wire := *w
	idOff := len(prefix)
	deltaOff := idOff + len(id) + len(deltaSeparator)
	// Sound whoever decoded wire: it is the canonical layout of prefix's
	// type (checked) with plain strings, and Go strings pointing into it
	// were cut from its id or its delta, so an id starting where its id
	// does and a delta starting where its delta would, with lengths that
	// add up to its length, are exactly its id and its delta.
	if len(wire) != deltaOff+len(delta)+len(`"}`) || string(wire[:idOff]) != prefix ||
		(id != "" && unsafe.StringData(id) != &wire[idOff]) ||
		(delta != "" && unsafe.StringData(delta) != &wire[deltaOff]) {
		return nil, false
	}
	return wire, true
}
