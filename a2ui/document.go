package a2ui

import (
	"bytes"
	"encoding/json"
	"unicode/utf8"

	"github.com/santhosh-tekuri/jsonschema/v6"
)

// decodeDocument decodes a message into the document jsonschema validates
// (maps, slices, strings, json.Number, bools and nil), what
// jsonschema.UnmarshalJSON gives, without its streaming decoder's buffers
// and reflection. It decodes the common case itself and hands anything it
// does not (a syntax error, an invalid UTF-8 string, deep nesting) to
// jsonschema.UnmarshalJSON, so verdicts and error messages stay that
// function's.
func decodeDocument(b []byte) (any, error) {
	d := docDecoder{b: b}
	if v, ok := d.value(0); ok {
		d.ws()
		if d.i == len(b) {
			return v, nil
		}
	}
	return jsonschema.UnmarshalJSON(bytes.NewReader(b))
}

// docDecoder is decodeDocument's state: the bytes and where it stands.
type docDecoder struct {
	b []byte
	i int
}

// maxDocumentDepth is the nesting past which decodeDocument leaves the
// message to jsonschema.UnmarshalJSON (scanJSON refuses far less).
const maxDocumentDepth = 512

func (d *docDecoder) ws() {
	for d.i < len(d.b) {
		switch d.b[d.i] {
		case ' ', '\t', '\n', '\r':
			d.i++
		default:
			return
		}
	}
}

func (d *docDecoder) value(depth int) (any, bool) {
	if depth > maxDocumentDepth {
		return nil, false
	}
	d.ws()
	if d.i >= len(d.b) {
		return nil, false
	}
	switch c := d.b[d.i]; {
	case c == '{':
		d.i++
		m := map[string]any{}
		d.ws()
		if d.i < len(d.b) && d.b[d.i] == '}' {
			d.i++
			return m, true
		}
		for {
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
			m[k] = v
			d.ws()
			if d.i >= len(d.b) {
				return nil, false
			}
			switch d.b[d.i] {
			case ',':
				d.i++
			case '}':
				d.i++
				return m, true
			default:
				return nil, false
			}
		}
	case c == '[':
		d.i++
		arr := []any{}
		d.ws()
		if d.i < len(d.b) && d.b[d.i] == ']' {
			d.i++
			return arr, true
		}
		for {
			v, ok := d.value(depth + 1)
			if !ok {
				return nil, false
			}
			arr = append(arr, v)
			d.ws()
			if d.i >= len(d.b) {
				return nil, false
			}
			switch d.b[d.i] {
			case ',':
				d.i++
			case ']':
				d.i++
				return arr, true
			default:
				return nil, false
			}
		}
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

func (d *docDecoder) literal(s string) bool {
	if !bytes.HasPrefix(d.b[d.i:], []byte(s)) {
		return false
	}
	d.i += len(s)
	return true
}

// number reads a number of JSON's grammar as a json.Number:
// -?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?
func (d *docDecoder) number() (any, bool) {
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
	return json.Number(b[start:d.i]), true
}

// str reads a string; one with escapes or bytes that are not UTF-8 is
// unquoted by encoding/json, as the decoder it stands in for does.
func (d *docDecoder) str() (string, bool) {
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
				return string(b[start:j]), true
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
