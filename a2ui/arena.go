package a2ui

import (
	"strings"
	"sync"
	"unsafe"
)

// arena lends the maps and lists one message's conversion builds (the
// message decoded, the messages converted) and takes them back, cleared,
// when nothing refers to them any more, so that converting a message
// allocates next to nothing for them once the process has converted a
// few: conversion is otherwise mostly allocation, and the collector the
// slowest part of it.
//
// The strings decoded are an arena's too: substrings of its copy of the
// message (text), which the next message lent the arena overwrites. So a
// string decoded with an arena is kept past put only as a copy
// (strings.Clone): a conversion returns bytes it encoded and errors
// whose strings are its own (arena.ownErrors), and a v0.8 converter clones
// the surface ids, roots and template paths it remembers.
//
// A conversion takes an arena (getArena), builds with it, encodes what
// it built into bytes of its own, and puts the arena back (put). A nil
// *arena lends nothing: its maps, lists and strings are made. Not safe
// for concurrent use.
type arena struct {
	maps []map[string]any
	used int // maps lent
	// lists are chunks the lists lent are cut from; the chunks before
	// chunk are full, off items of lists[chunk] are lent.
	lists [][]any
	chunk int
	off   int
	// items is the decoder's stack of array elements.
	items []any
	// buf is where conversions encode before copying out at size.
	buf []byte
	// text is the copy of the message the strings decoded are cut from.
	text []byte
	// paths holds the JSON Pointers joined (join); a full one is left to
	// the strings cut from it and replaced.
	paths []byte
	// checks is Downgrade's list of components to check.
	checks []componentCheck
}

// Bounds of what an arena keeps once put back (maps, list items, bytes
// of buf or text): one that grew past them for a huge message is left
// to the collector, and so is a map that held more than arenaMaxMapLen
// keys (clearing a map keeps its room). arenaChunk is the size of a
// chunk of lists.
const (
	arenaMaxMaps   = 1024
	arenaMaxItems  = 1 << 14
	arenaMaxBuf    = 256 << 10
	arenaMaxMapLen = 16
	arenaChunk     = 512
	// arenaTextSlack is the room beyond four times a message's size its
	// copy may keep; arenaHeldBytes the most of each other buffer an
	// arena held with its message keeps (trim).
	arenaTextSlack = 16 << 10
	arenaHeldBytes = 16 << 10
)

// poison, set by the package's tests, overwrites an arena's text and
// paths when it is put back, so a string kept past put without a copy
// shows.
var poison bool

var arenas = sync.Pool{New: func() any { return new(arena) }}

// arenasOff, set by the package's tests, makes getArena lend nothing: a
// conversion makes every map, list and string it builds, and gives what
// it gives with arenas.
var arenasOff bool

// getArena takes an arena from the pool.
func getArena() *arena {
	if arenasOff {
		return nil
	}
	return arenas.Get().(*arena)
}

// put clears what a lent and returns it to the pool.
func (a *arena) put() {
	if a != nil && a.reset() {
		arenas.Put(a)
	}
}

// reset clears what a lent; false when a grew past the bounds of what the
// pool keeps.
func (a *arena) reset() bool {
	for i, m := range a.maps[:a.used] {
		if len(m) > arenaMaxMapLen {
			a.maps[i] = nil // made again when lent
			continue
		}
		clear(m)
	}
	a.used = 0
	items := 0
	for i, l := range a.lists {
		items += len(l)
		switch {
		case i < a.chunk:
			clear(l)
		case i == a.chunk:
			clear(l[:a.off])
		}
	}
	a.chunk, a.off = 0, 0
	a.buf = a.buf[:0]
	if poison {
		for i := range a.text {
			a.text[i] = '#'
		}
		for i := range a.paths {
			a.paths[i] = '#'
		}
	}
	a.text, a.paths = a.text[:0], a.paths[:0]
	clear(a.checks[:cap(a.checks)])
	a.checks = a.checks[:0]
	return len(a.maps) <= arenaMaxMaps && items <= arenaMaxItems && cap(a.buf) <= arenaMaxBuf && cap(a.text) <= arenaMaxBuf
}

// obj lends an empty map.
func (a *arena) obj() map[string]any {
	if a == nil {
		return map[string]any{}
	}
	if a.used == len(a.maps) {
		a.maps = append(a.maps, nil)
	}
	m := a.maps[a.used]
	if m == nil {
		m = make(map[string]any, 8)
		a.maps[a.used] = m
	}
	a.used++
	return m
}

// list lends a list of n nil items (of capacity n, so that appending to
// it copies).
func (a *arena) list(n int) []any {
	if a == nil {
		return make([]any, n)
	}
	if n == 0 {
		return []any{}
	}
	for a.chunk < len(a.lists) && a.off+n > len(a.lists[a.chunk]) {
		a.chunk++
		a.off = 0
	}
	if a.chunk == len(a.lists) {
		a.lists = append(a.lists, make([]any, max(arenaChunk, n)))
	}
	l := a.lists[a.chunk][a.off : a.off+n : a.off+n]
	a.off += n
	return l
}

// trim lets go of the buffers a conversion uses beside its message (the
// encoding, the paths, the decoder's stack) when they are large, for an
// arena kept with its message (a v0.8 message held for its surface's
// beginRendering).
func (a *arena) trim() {
	if a == nil {
		return
	}
	if cap(a.buf) > arenaHeldBytes {
		a.buf = nil
	}
	if cap(a.paths) > arenaHeldBytes {
		a.paths = nil
	}
	if cap(a.items) > arenaHeldBytes/16 {
		a.items = nil
	}
	if cap(a.checks) > arenaHeldBytes/64 {
		a.checks = nil
	}
}

// componentChecks lends an empty list of n componentChecks' room.
func (a *arena) componentChecks(n int) []componentCheck {
	if a == nil {
		return make([]componentCheck, 0, n)
	}
	if cap(a.checks) < n {
		a.checks = make([]componentCheck, 0, n)
	}
	return a.checks[:0]
}

// scratch returns the arena's buffer, empty, to encode into before
// copying out; keep gives it back, grown.
func (a *arena) scratch() []byte {
	if a == nil {
		return nil
	}
	return a.buf[:0]
}

func (a *arena) keep(b []byte) {
	if a != nil {
		a.buf = b
	}
}

// encode encodes v (appendJSON) into bytes of their own.
func (a *arena) encode(v any) []byte {
	if a == nil {
		return appendJSON(nil, v)
	}
	a.buf = appendJSON(a.buf[:0], v)
	return append([]byte(nil), a.buf...)
}

// kv lends a map of one key, k, holding v.
func (a *arena) kv(k string, v any) map[string]any {
	m := a.obj()
	m[k] = v
	return m
}

// own returns b as a string: a copy of it, the arena's (see arena).
func (a *arena) own(b []byte) string {
	if a == nil {
		return string(b)
	}
	if cap(a.text) > 4*len(b)+arenaTextSlack {
		// No room a held message pins for long; within the slack, the
		// room of the last messages is reused.
		a.text = make([]byte, 0, len(b))
	}
	a.text = append(a.text[:0], b...)
	return unsafe.String(unsafe.SliceData(a.text), len(a.text))
}

// join returns the concatenation of parts, the arena's (see arena): the
// JSON Pointers a conversion carries to name where an issue is, most of
// which no issue needs.
func (a *arena) join(parts ...string) string {
	n := 0
	for _, p := range parts {
		n += len(p)
	}
	if a == nil || n == 0 {
		return strings.Join(parts, "")
	}
	if len(a.paths)+n > cap(a.paths) {
		a.paths = make([]byte, 0, max(4096, 2*n))
	}
	start := len(a.paths)
	for _, p := range parts {
		a.paths = append(a.paths, p...)
	}
	return unsafe.String(unsafe.SliceData(a.paths[start:]), n)
}

// ownErrors makes the strings of errs that are a's copies of their own
// (see arena).
func (a *arena) ownErrors(errs []Error) {
	for i := range errs {
		e := &errs[i]
		e.SurfaceID, e.Path, e.Message = a.clone(e.SurfaceID), a.clone(e.Path), a.clone(e.Message)
	}
}

// clone returns s, copied if it is a's.
func (a *arena) clone(s string) string {
	if a != nil && len(s) > 0 && (within(s, a.text) || within(s, a.paths)) {
		return strings.Clone(s)
	}
	return s
}

// within reports whether s is in b's memory.
func within(s string, b []byte) bool {
	if cap(b) == 0 {
		return false
	}
	p, start := uintptr(unsafe.Pointer(unsafe.StringData(s))), uintptr(unsafe.Pointer(unsafe.SliceData(b[:1])))
	return p >= start && p < start+uintptr(cap(b))
}
