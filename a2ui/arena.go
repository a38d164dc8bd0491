package a2ui

import (
	"strings"
	"sync"
	"sync/atomic"
)

// arena lends the maps and lists one message's conversion builds (the
// message decoded, the messages converted) and takes them back, cleared,
// when nothing refers to them any more, so that converting a message
// allocates next to nothing for them once the process has converted a
// few: conversion is otherwise mostly allocation, and the collector the
// slowest part of it.
//
// Strings are not the arena's: a message decoded is one string of its
// own, and the strings decoded are substrings of it, safe to keep.
//
// A conversion takes an arena (getArena), builds with it, encodes what
// it built into bytes of its own, and puts the arena back (put); nothing
// it lent is kept past put (a v0.8 message held for its surface's
// beginRendering keeps its own bytes and is decoded again then). A nil
// *arena lends nothing: its maps and lists are made. Not safe for
// concurrent use.
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
	// checks is Downgrade's list of components to check.
	checks []componentCheck
}

// Bounds of what an arena keeps once put back (maps, list items, bytes
// of buf): one that grew past them for a huge message is left
// to the collector, and so is a map that held more than arenaMaxMapLen
// keys (clearing a map keeps its room). arenaChunk is the size of a
// chunk of lists.
const (
	arenaMaxMaps   = 1024
	arenaMaxItems  = 1 << 14
	arenaMaxBuf    = 256 << 10
	arenaMaxMapLen = 16
	arenaChunk     = 512
)

var arenas = sync.Pool{New: func() any { return new(arena) }}

// arenasOff, set by the package's tests, makes getArena lend nothing: a
// conversion makes every map, list and string it builds, and gives what
// it gives with arenas.
var arenasOff bool

// countArenas, set by the package's tests, makes getArena and put count
// the arenas out of the pool in arenasOut.
var (
	countArenas bool
	arenasOut   atomic.Int64
)

// getArena takes an arena from the pool.
func getArena() *arena {
	if arenasOff {
		return nil
	}
	if countArenas {
		arenasOut.Add(1)
	}
	return arenas.Get().(*arena)
}

// put clears what a lent and returns it to the pool.
func (a *arena) put() {
	if a != nil && countArenas {
		arenasOut.Add(-1)
	}
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
	clear(a.checks[:cap(a.checks)])
	a.checks = a.checks[:0]
	return len(a.maps) <= arenaMaxMaps && items <= arenaMaxItems && cap(a.buf) <= arenaMaxBuf
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

// join returns the concatenation of parts: the JSON Pointers a
// conversion carries to name where an issue is.
func join(parts ...string) string {
	return strings.Join(parts, "")
}

// where is a JSON Pointer into a message kept as its parts, joined only
// when an issue names it (String): a conversion passes one down to every
// value it converts, and most never have an issue.
type where struct {
	parts [12]string
	n     int
}

// at starts a where with parts.
func at(parts ...string) where {
	var w where
	return w.add(parts...)
}

// add returns w followed by parts.
func (w where) add(parts ...string) where {
	for _, p := range parts {
		if w.n == len(w.parts) {
			w.parts[0], w.n = w.String(), 1
		}
		w.parts[w.n] = p
		w.n++
	}
	return w
}

func (w where) String() string {
	return strings.Join(w.parts[:w.n], "")
}
