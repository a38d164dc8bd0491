package a2ui

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"math"
	"strconv"
	"unicode/utf8"
	"unsafe"

	"github.com/santhosh-tekuri/jsonschema/v6"
)

// decodeDocument decodes a message into the document jsonschema validates
// (maps, slices, strings, json.Number, bools and nil), what
// jsonschema.UnmarshalJSON gives, without its streaming decoder's buffers
// and reflection. It decodes the common case itself and hands anything it
// does not (a syntax error, a bad escape, deep nesting) to
// jsonschema.UnmarshalJSON, so verdicts and error messages stay that
// function's.
func decodeDocument(b []byte) (any, error) {
	d := decoder{b: b}
	if v, ok := d.whole(); ok {
		return v, nil
	}
	return jsonschema.UnmarshalJSON(bytes.NewReader(b))
}

// decodeMessage checks a message as scanJSON does (duplicate keys,
// nesting deeper than maxDepth) and decodes it as decodeDocument does. A
// well-formed message is checked while it is decoded, in one pass; any
// doubt (a duplicate, deep nesting, anything the decoder hands on) goes
// to scanJSON and decodeDocument, which decide and word the error. rule
// is "" when doc is the message.
func decodeMessage(b []byte, maxDepth int) (doc any, rule, path, msg string) {
	return decodeMessageIn(b, maxDepth, nil)
}

// decodeMessageIn is decodeMessage with the maps and lists of doc lent by
// a.
func decodeMessageIn(b []byte, maxDepth int, a *arena) (doc any, rule, path, msg string) {
	return decodeIn(decoder{b: b, limit: min(maxDepth, maxDecodeDepth), a: a}, maxDepth)
}

// decodeStringIn is decodeMessageIn for a message already held as a
// string: its strings are substrings of s, with no second copy. The
// decoder and the checks after it only read the bytes they are given.
func decodeStringIn(s string, maxDepth int, a *arena) (doc any, rule, path, msg string) {
	return decodeIn(decoder{b: unsafe.Slice(unsafe.StringData(s), len(s)), s: s, limit: min(maxDepth, maxDecodeDepth), a: a}, maxDepth)
}

// decodeViewIn is decodeMessageIn with no copy of b at all: the strings
// decoded are b's bytes, so none of them may outlive the caller's use of
// b, and b must not change while they are used.
func decodeViewIn(b []byte, maxDepth int, a *arena) (doc any, rule, path, msg string) {
	return decodeStringIn(unsafe.String(unsafe.SliceData(b), len(b)), maxDepth, a)
}

// decodeIn decodes with d, and on any doubt hands the bytes to scanJSON
// and decodeDocument (see decodeMessage).
func decodeIn(d decoder, maxDepth int) (doc any, rule, path, msg string) {
	b := d.b
	if v, ok := d.whole(); ok {
		return v, "", "", ""
	}
	if rule, path, msg := scanJSON(b, maxDepth); rule != "" {
		return nil, rule, path, msg
	}
	doc, err := decodeDocument(b)
	if err != nil {
		return nil, RuleInvalidJSON, "", err.Error()
	}
	return doc, "", "", ""
}

// decodeOrdered decodes one JSON value keeping object key order (as
// *object), with numbers as json.Number; numbers no renderer can represent
// become strings.
func decodeOrdered(b []byte) (any, error) {
	d := decoder{b: b, ordered: true}
	if v, ok := d.whole(); ok {
		return v, nil
	}
	if d.deep {
		return nil, fmt.Errorf("invalid JSON: nested deeper than %d", maxDecodeDepth)
	}
	if err := json.Unmarshal(b, new(any)); err != nil {
		return nil, fmt.Errorf("invalid JSON: %w", err)
	}
	return nil, fmt.Errorf("invalid JSON at byte %d", d.i)
}

// decoder decodes JSON from bytes in one of two shapes: plain (maps) or
// ordered (*object, and numbers out of float64's range as strings).
type decoder struct {
	b []byte
	// s is b as one string: the strings and numbers decoded are its
	// substrings, so a document costs one copy of its bytes, not an
	// allocation per string.
	s string
	i int
	// items holds the elements of the arrays being decoded, each array
	// copied out at its end at its size.
	items   []any
	ordered bool
	deep    bool // gave up at maxDecodeDepth
	// limit, when not 0, is the nesting past which the decoder gives up,
	// and it gives up on a duplicate key too (decodeMessage).
	limit int
	// a lends the maps and lists decoded (nil: they are made).
	a *arena
}

// maxDecodeDepth is the nesting past which the decoder gives up (scanJSON
// refuses far less in messages).
const maxDecodeDepth = 1000

// whole decodes the one value b holds, with nothing after it.
func (d *decoder) whole() (any, bool) {
	if d.s == "" {
		d.s = string(d.b)
	}
	if d.a != nil {
		d.items = d.a.items[:0]
		defer func() { d.a.items = d.items[:0] }()
	}
	v, ok := d.value(0)
	if !ok {
		return nil, false
	}
	d.ws()
	return v, d.i == len(d.b)
}

func (d *decoder) ws() {
	d.i = skipSpace(d.b, d.i)
}

// skipSpace returns the index of the first byte from i on that is not
// JSON whitespace; runs of spaces (indentation) go eight at a time.
func skipSpace(b []byte, i int) int {
	for i < len(b) {
		if i+8 <= len(b) && binary.LittleEndian.Uint64(b[i:]) == 0x2020202020202020 {
			i += 8
			continue
		}
		switch b[i] {
		case ' ', '\t', '\n', '\r':
			i++
		default:
			return i
		}
	}
	return i
}

// next reads what follows a member or an element: ',' (more) or closer.
func (d *decoder) next(closer byte) (more, ok bool) {
	d.ws()
	if d.i < len(d.b) {
		switch d.b[d.i] {
		case ',':
			d.i++
			return true, true
		case closer:
			d.i++
			return false, true
		}
	}
	return false, false
}

// empty reads closer if it comes first.
func (d *decoder) empty(closer byte) bool {
	d.ws()
	if d.i < len(d.b) && d.b[d.i] == closer {
		d.i++
		return true
	}
	return false
}

func (d *decoder) value(depth int) (any, bool) {
	if depth > maxDecodeDepth {
		d.deep = true
		return nil, false
	}
	d.ws()
	if d.i >= len(d.b) {
		return nil, false
	}
	switch c := d.b[d.i]; {
	case c == '{':
		if d.limit > 0 && depth >= d.limit {
			return nil, false
		}
		d.i++
		var m map[string]any
		if d.ordered {
			m = map[string]any{}
		} else {
			m = d.a.obj()
		}
		var keys []string
		for more := !d.empty('}'); more; {
			d.ws()
			k, ok := d.str()
			if !ok {
				return nil, false
			}
			d.ws()
			if d.i >= len(d.b) || d.b[d.i] != ':' {
				return nil, false
			}
			d.i++
			v, ok := d.value(depth + 1)
			if !ok {
				return nil, false
			}
			if d.ordered {
				if _, dup := m[k]; !dup {
					keys = append(keys, k)
				}
			}
			n := len(m)
			m[k] = v
			if d.limit > 0 && len(m) == n {
				return nil, false // a duplicate key
			}
			if more, ok = d.next('}'); !ok {
				return nil, false
			}
		}
		if d.ordered {
			return &object{keys: keys, m: m}, true
		}
		return m, true
	case c == '[':
		if d.limit > 0 && depth >= d.limit {
			return nil, false
		}
		d.i++
		start := len(d.items)
		for more := !d.empty(']'); more; {
			v, ok := d.value(depth + 1)
			if !ok {
				return nil, false
			}
			d.items = append(d.items, v)
			if more, ok = d.next(']'); !ok {
				return nil, false
			}
		}
		arr := d.a.list(len(d.items) - start)
		copy(arr, d.items[start:])
		clear(d.items[start:])
		d.items = d.items[:start]
		return arr, true
	case c == '"':
		return d.str()
	case c == 't':
		return true, d.literal("true")
	case c == 'f':
		return false, d.literal("false")
	case c == 'n':
		return nil, d.literal("null")
	default:
		return d.number()
	}
}

func (d *decoder) literal(s string) bool {
	if !bytes.HasPrefix(d.b[d.i:], []byte(s)) {
		return false
	}
	d.i += len(s)
	return true
}

// number reads a number of JSON's grammar as a json.Number:
// -?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?
func (d *decoder) number() (any, bool) {
	b, start := d.b, d.i
	digits := func() bool {
		n := d.i
		for d.i < len(b) && b[d.i] >= '0' && b[d.i] <= '9' {
			d.i++
		}
		return d.i > n
	}
	if d.i < len(b) && b[d.i] == '-' {
		d.i++
	}
	switch {
	case d.i < len(b) && b[d.i] == '0':
		d.i++
	case !digits():
		return nil, false
	}
	if d.i < len(b) && b[d.i] == '.' {
		d.i++
		if !digits() {
			return nil, false
		}
	}
	if d.i < len(b) && (b[d.i] == 'e' || b[d.i] == 'E') {
		d.i++
		if d.i < len(b) && (b[d.i] == '+' || b[d.i] == '-') {
			d.i++
		}
		if !digits() {
			return nil, false
		}
	}
	num := d.s[start:d.i]
	if d.ordered {
		if f, err := strconv.ParseFloat(num, 64); err != nil || math.IsInf(f, 0) {
			return num, true // too large for any renderer: shown as text
		}
	}
	return json.Number(num), true
}

// str reads a string; one with escapes or bytes that are not UTF-8 is
// unquoted by encoding/json, as jsonschema's decoder does.
func (d *decoder) str() (string, bool) {
	b := d.b
	if d.i >= len(b) || b[d.i] != '"' {
		return "", false
	}
	start := d.i + 1
	escaped, ascii := false, true
	for j := start; j < len(b); j++ {
		switch c := b[j]; {
		case c == '"':
			d.i = j + 1
			if !escaped && (ascii || utf8.Valid(b[start:j])) {
				return d.s[start:j], true
			}
			var s string
			if json.Unmarshal(b[start-1:j+1], &s) != nil {
				return "", false
			}
			return s, true
		case c == '\\':
			escaped = true
			j++
		case c < 0x20:
			return "", false
		case c >= utf8.RuneSelf:
			ascii = false
		}
	}
	return "", false
}
