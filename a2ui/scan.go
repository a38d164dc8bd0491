package a2ui

import (
	"bytes"
	"encoding/json"
	"fmt"
	"unicode/utf8"
)

// scanJSON checks, in one pass over the bytes, what encoding/json lets
// through: duplicate object keys (it silently keeps the last one) and
// nesting deeper than maxDepth. It returns the rule broken, the JSON Pointer
// where, and a message; syntax errors are left to the parser.
//
// Keys are kept as spans of b (decoded only when escaped or not UTF-8,
// whose bytes the parser reads as U+FFFD) and compared in place, a linear
// search for the small objects A2UI is made of and a map once an object
// has more than bigObject keys, so a valid message costs no allocation
// per object or key.
func scanJSON(b []byte, maxDepth int) (rule, path, msg string) {
	var (
		frameBuf [16]scanFrame
		keyBuf   [64]scanKey
		stack    = frameBuf[:0]
		keys     = keyBuf[:0]
	)
	for i := 0; i < len(b); i++ {
		switch b[i] {
		case '{', '[':
			stack = append(stack, scanFrame{obj: b[i] == '{', expectKey: b[i] == '{', first: len(keys), key: -1})
			if len(stack) > maxDepth {
				stack = stack[:len(stack)-1]
				return RuleTooDeep, scanPath(b, stack, keys), fmt.Sprintf("JSON nesting deeper than %d", maxDepth)
			}
		case '}', ']':
			if n := len(stack); n > 0 {
				keys = keys[:min(len(keys), stack[n-1].first)]
				stack = stack[:n-1]
			}
		case ',':
			if n := len(stack); n > 0 {
				if stack[n-1].obj {
					stack[n-1].expectKey = true
				} else {
					stack[n-1].idx++
				}
			}
		case '"':
			j, escaped := stringEnd(b, i)
			if j < 0 {
				return "", "", "" // unterminated: the parser reports it
			}
			if n := len(stack); n > 0 && stack[n-1].obj && stack[n-1].expectKey {
				top := &stack[n-1]
				k := scanKey{start: i + 1, end: j}
				if escaped || !utf8.Valid(b[i+1:j]) {
					var d string
					if err := json.Unmarshal(b[i:j+1], &d); err != nil {
						return "", "", ""
					}
					k.escaped, k.decoded = true, d
				}
				top.key, top.expectKey = len(keys), false
				dup := false
				if top.big != nil {
					_, dup = top.big[k.text(b)]
				} else {
					for _, o := range keys[top.first:] {
						if o.equal(b, k) {
							dup = true
							break
						}
					}
				}
				keys = append(keys, k)
				if dup {
					return RuleDuplicateKey, scanPath(b, stack, keys), fmt.Sprintf("key %q appears twice", k.text(b))
				}
				switch {
				case top.big != nil:
					top.big[k.text(b)] = struct{}{}
				case len(keys)-top.first > bigObject:
					top.big = make(map[string]struct{}, 2*bigObject)
					for _, o := range keys[top.first:] {
						top.big[o.text(b)] = struct{}{}
					}
				}
			}
			i = j
		}
	}
	return "", "", ""
}

// stringEnd returns the index of the quote that closes the string opening
// at b[i] (a backslash escapes the byte after it), or -1 when none does,
// and whether the string holds a backslash. It jumps from quote to quote.
func stringEnd(b []byte, i int) (int, bool) {
	escaped := false
	for j := i + 1; ; {
		k := bytes.IndexByte(b[j:], '"')
		if k < 0 {
			return -1, escaped
		}
		k += j
		if !escaped && bytes.IndexByte(b[j:k], '\\') >= 0 {
			escaped = true
		}
		n := 0 // backslashes right before the quote
		for p := k - 1; p > i && b[p] == '\\'; p-- {
			n++
		}
		if n%2 == 0 {
			return k, escaped
		}
		j = k + 1
	}
}

// bigObject is how many keys an object holds before scanJSON looks its
// keys up in a map instead of comparing each.
const bigObject = 32

// scanFrame is one open object or array in scanJSON.
type scanFrame struct {
	obj       bool
	expectKey bool
	first     int // this frame's first key in the key list
	key       int // the object's current key in the key list, or -1
	idx       int // the array's current index
	big       map[string]struct{}
}

// scanKey is an object key: a span of the scanned bytes, and its decoded
// text when it holds escapes or bytes that are not UTF-8.
type scanKey struct {
	start, end int
	escaped    bool
	decoded    string
}

func (k scanKey) text(b []byte) string {
	if k.escaped {
		return k.decoded
	}
	return string(b[k.start:k.end])
}

func (k scanKey) equal(b []byte, o scanKey) bool {
	if !k.escaped && !o.escaped {
		return bytes.Equal(b[k.start:k.end], b[o.start:o.end])
	}
	return k.text(b) == o.text(b)
}

// scanPath is the JSON Pointer to where scanJSON stands.
func scanPath(b []byte, stack []scanFrame, keys []scanKey) string {
	segs := make([]any, 0, len(stack))
	for _, f := range stack {
		switch {
		case !f.obj:
			segs = append(segs, f.idx)
		case f.key >= 0:
			segs = append(segs, keys[f.key].text(b))
		default:
			segs = append(segs, "")
		}
	}
	return pointer(segs...)
}
