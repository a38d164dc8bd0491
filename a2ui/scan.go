package a2ui

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"strconv"
)

// scanJSON checks, in one pass over the bytes, what encoding/json lets
// through: duplicate object keys (it silently keeps the last one) and
// nesting deeper than maxDepth. It returns the rule broken, the JSON Pointer
// where, and a message; syntax errors are left to the parser.
//
// Keys are kept as spans of b (decoded only when escaped) and compared in
// place, a linear search for the small objects A2UI is made of and a map
// once an object has more than bigObject keys, so a valid message costs no
// allocation per object or key.
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
			j := i + 1
			escaped := false
			for ; j < len(b) && b[j] != '"'; j++ {
				if b[j] == '\\' {
					escaped = true
					j++
				}
			}
			if j >= len(b) {
				return "", "", "" // unterminated: the parser reports it
			}
			if n := len(stack); n > 0 && stack[n-1].obj && stack[n-1].expectKey {
				top := &stack[n-1]
				k := scanKey{start: i + 1, end: j}
				if escaped {
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
// text when it holds escapes.
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

// parser decodes JSON keeping object key order (as *object) with numbers
// as json.Number; numbers no renderer can represent become strings.
type parser struct {
	b []byte
	i int
}

func (p *parser) ws() {
	for p.i < len(p.b) && (p.b[p.i] == ' ' || p.b[p.i] == '\t' || p.b[p.i] == '\n' || p.b[p.i] == '\r') {
		p.i++
	}
}

func (p *parser) fail(what string) error {
	return fmt.Errorf("invalid JSON at byte %d: %s", p.i, what)
}

func (p *parser) value(depth int) (any, error) {
	if depth > 1000 {
		return nil, p.fail("nested too deep")
	}
	p.ws()
	if p.i >= len(p.b) {
		return nil, p.fail("unexpected end")
	}
	switch c := p.b[p.i]; {
	case c == '{':
		p.i++
		o := &object{m: map[string]any{}}
		p.ws()
		if p.i < len(p.b) && p.b[p.i] == '}' {
			p.i++
			return o, nil
		}
		for {
			p.ws()
			k, err := p.str()
			if err != nil {
				return nil, err
			}
			p.ws()
			if p.i >= len(p.b) || p.b[p.i] != ':' {
				return nil, p.fail("want ':'")
			}
			p.i++
			v, err := p.value(depth + 1)
			if err != nil {
				return nil, err
			}
			if _, dup := o.m[k]; !dup {
				o.keys = append(o.keys, k)
			}
			o.m[k] = v
			p.ws()
			if p.i < len(p.b) && p.b[p.i] == ',' {
				p.i++
				continue
			}
			if p.i < len(p.b) && p.b[p.i] == '}' {
				p.i++
				return o, nil
			}
			return nil, p.fail("want ',' or '}'")
		}
	case c == '[':
		p.i++
		arr := []any{}
		p.ws()
		if p.i < len(p.b) && p.b[p.i] == ']' {
			p.i++
			return arr, nil
		}
		for {
			v, err := p.value(depth + 1)
			if err != nil {
				return nil, err
			}
			arr = append(arr, v)
			p.ws()
			if p.i < len(p.b) && p.b[p.i] == ',' {
				p.i++
				continue
			}
			if p.i < len(p.b) && p.b[p.i] == ']' {
				p.i++
				return arr, nil
			}
			return nil, p.fail("want ',' or ']'")
		}
	case c == '"':
		return p.str()
	case c == 't' || c == 'f' || c == 'n':
		for _, lit := range []struct {
			s string
			v any
		}{{"true", true}, {"false", false}, {"null", nil}} {
			if len(p.b)-p.i >= len(lit.s) && string(p.b[p.i:p.i+len(lit.s)]) == lit.s {
				p.i += len(lit.s)
				return lit.v, nil
			}
		}
		return nil, p.fail("bad literal")
	default:
		start := p.i
		for p.i < len(p.b) && (p.b[p.i] == '-' || p.b[p.i] == '+' || p.b[p.i] == '.' || p.b[p.i] == 'e' || p.b[p.i] == 'E' || (p.b[p.i] >= '0' && p.b[p.i] <= '9')) {
			p.i++
		}
		num := string(p.b[start:p.i])
		if num == "" || !json.Valid(p.b[start:p.i]) {
			return nil, p.fail("bad number")
		}
		if f, err := strconv.ParseFloat(num, 64); err != nil || math.IsInf(f, 0) {
			return num, nil // too large for any renderer: shown as text
		}
		return json.Number(num), nil
	}
}

func (p *parser) str() (string, error) {
	if p.i >= len(p.b) || p.b[p.i] != '"' {
		return "", p.fail("want a string")
	}
	start := p.i
	escaped := false
	p.i++
	for p.i < len(p.b) && p.b[p.i] != '"' {
		if p.b[p.i] == '\\' {
			escaped = true
			p.i++
		} else if p.b[p.i] < 0x20 {
			return "", p.fail("control character in string")
		}
		p.i++
	}
	if p.i >= len(p.b) {
		return "", p.fail("unterminated string")
	}
	p.i++
	raw := p.b[start:p.i]
	if !escaped {
		return string(raw[1 : len(raw)-1]), nil
	}
	var s string
	if err := json.Unmarshal(raw, &s); err != nil {
		return "", p.fail("bad string escape")
	}
	return s, nil
}

// decodeOrdered decodes one JSON value keeping object key order.
func decodeOrdered(b []byte) (any, error) {
	p := &parser{b: b}
	v, err := p.value(0)
	if err != nil {
		return nil, err
	}
	p.ws()
	if p.i != len(b) {
		return nil, p.fail("trailing data after the JSON value")
	}
	return v, nil
}
