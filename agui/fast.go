package agui

import (
	"bytes"
	"encoding/json"
	"unicode/utf8"
	"unsafe"
)

// The hottest events of an LLM stream are its deltas: TEXT_MESSAGE_CONTENT,
// TOOL_CALL_ARGS and REASONING_MESSAGE_CONTENT, one per token or so, and
// their END events. fastParse decodes them, and appendDelta encodes them,
// without the reflection-based codec, when they are the plain flat objects
// nearly every upstream sends. Anything else (another key, a null, a
// number, nesting, bytes that need repair) takes the general path, and a
// fuzz test holds both paths to the same result.

// fastParse decodes a flat delta or END event; ok false means "use
// ParseEvent's general path". A canonical delta comes from a, which may
// be nil.
func fastParse(a *arena, data []byte) (ev Event, ok bool) {
	if ev, ok := canonicalDelta(a, data); ok {
		return ev, true
	}
	var typ, mid, tcid, delta []byte
	var hasDelta bool
	if !utf8.Valid(data) {
		return nil, false // once for the whole event, not per string
	}
	i := skipSpace(data, 0)
	if i >= len(data) || data[i] != '{' {
		return nil, false
	}
	i++
	for first := true; ; first = false {
		i = skipSpace(data, i)
		if i >= len(data) {
			return nil, false
		}
		if data[i] == '}' && first {
			return nil, false
		}
		key, next, esc, okKey := scanString(data, i)
		if !okKey || esc {
			return nil, false
		}
		i = skipSpace(data, next)
		if i >= len(data) || data[i] != ':' {
			return nil, false
		}
		i = skipSpace(data, i+1)
		val, next, esc, okVal := scanString(data, i)
		if !okVal {
			return nil, false
		}
		if esc {
			// An escaped value: let the standard decoder unquote just it.
			var s string
			if json.Unmarshal(data[i:next], &s) != nil || !utf8.ValidString(s) {
				return nil, false
			}
			val = []byte(s)
		}
		switch string(key) {
		case "type":
			typ = val
		case "messageId":
			mid = val
		case "toolCallId":
			tcid = val
		case "delta":
			delta, hasDelta = val, true
		default:
			return nil, false
		}
		i = skipSpace(data, next)
		if i >= len(data) {
			return nil, false
		}
		if data[i] == ',' {
			i++
			continue
		}
		if data[i] != '}' {
			return nil, false
		}
		if skipSpace(data, i+1) != len(data) {
			return nil, false
		}
		break
	}
	switch EventType(typ) {
	case TypeTextMessageContent:
		if mid != nil && tcid == nil && hasDelta {
			id, d := twoStrings(mid, delta)
			return &TextMessageContent{MessageID: id, Delta: d}, true
		}
	case TypeReasoningMessageContent:
		if mid != nil && tcid == nil && hasDelta {
			id, d := twoStrings(mid, delta)
			return &ReasoningMessageContent{MessageID: id, Delta: d}, true
		}
	case TypeToolCallArgs:
		if tcid != nil && mid == nil && hasDelta {
			id, d := twoStrings(tcid, delta)
			return &ToolCallArgs{ToolCallID: id, Delta: d}, true
		}
	case TypeTextMessageEnd:
		if mid != nil && tcid == nil && !hasDelta {
			return &TextMessageEnd{MessageID: string(mid)}, true
		}
	case TypeReasoningMessageEnd:
		if mid != nil && tcid == nil && !hasDelta {
			return &ReasoningMessageEnd{MessageID: string(mid)}, true
		}
	case TypeToolCallEnd:
		if tcid != nil && mid == nil && !hasDelta {
			return &ToolCallEnd{ToolCallID: string(tcid)}, true
		}
	}
	return nil, false
}

// canonicalDeltas are the prefixes of the three delta events' canonical
// layout, up to the id's opening quote.
var canonicalDeltas = [...]struct {
	t      EventType
	prefix string
}{
	{TypeTextMessageContent, textContentPrefix},
	{TypeToolCallArgs, toolArgsPrefix},
	{TypeReasoningMessageContent, reasoningContentPrefix},
}

// canonicalDelta decodes a delta event in exactly the layout MarshalJSON
// writes, with plain strings, in one pass, taking its memory from a (nil:
// from the heap); anything else is left to the rest of fastParse.
func canonicalDelta(a *arena, data []byte) (Event, bool) {
	const between, end = deltaSeparator, `"}`
	if len(data) < 40 || string(data[len(data)-2:]) != end {
		return nil, false
	}
	for _, c := range canonicalDeltas {
		if len(data) < len(c.prefix)+len(end) || string(data[:len(c.prefix)]) != c.prefix {
			continue
		}
		rest := data[len(c.prefix) : len(data)-2]
		q := bytes.IndexByte(rest, '"')
		if q < 0 || len(rest)-q < len(between) || string(rest[q:q+len(between)]) != between {
			return nil, false
		}
		id, delta := rest[:q], rest[q+len(between):]
		if !plainString(id) || !plainString(delta) {
			return nil, false
		}
		wire := a.copy(data)
		// wire is never written again: the strings may share it.
		idS := unsafe.String(unsafe.SliceData(wire[len(c.prefix):]), len(id))
		deltaS := unsafe.String(unsafe.SliceData(wire[len(c.prefix)+q+len(between):]), len(delta))
		switch c.t {
		case TypeTextMessageContent:
			k := deltaEvent(a, func(a *arena) *[]keptEvent[TextMessageContent] { return &a.texts })
			k.ev.MessageID, k.ev.Delta = idS, deltaS
			return &k.ev, k.keep(wire)
		case TypeToolCallArgs:
			k := deltaEvent(a, func(a *arena) *[]keptEvent[ToolCallArgs] { return &a.args })
			k.ev.ToolCallID, k.ev.Delta = idS, deltaS
			return &k.ev, k.keep(wire)
		default:
			k := deltaEvent(a, func(a *arena) *[]keptEvent[ReasoningMessageContent] { return &a.reasoning })
			k.ev.MessageID, k.ev.Delta = idS, deltaS
			return &k.ev, k.keep(wire)
		}
	}
	return nil, false
}

// notPlain marks the bytes a plain string cannot hold as they are: what
// JSON escapes or refuses raw (quote, backslash, control characters), what
// appendJSONString escapes (<, >, &) and 0xE2, which may start U+2028 or
// U+2029.
var notPlain = func() (t [256]bool) {
	for c := range 0x20 {
		t[c] = true
	}
	for _, c := range []byte{'"', '\\', '<', '>', '&', 0xE2} {
		t[c] = true
	}
	return t
}()

// plainString reports whether s, between quotes, is a JSON string with no
// escapes that appendJSONString would write back unchanged.
func plainString(s []byte) bool {
	var high byte
	for i, c := range s {
		high |= c
		if notPlain[c] {
			if c != 0xE2 || (i+2 < len(s) && s[i+1] == 0x80 && (s[i+2] == 0xA8 || s[i+2] == 0xA9)) {
				return false
			}
		}
	}
	return high < utf8.RuneSelf || utf8.Valid(s)
}

// twoStrings makes a and b strings with one allocation (a delta event's
// id and delta live as long as each other).
func twoStrings(a, b []byte) (string, string) {
	var tmp [256]byte
	buf := tmp[:0]
	if len(a)+len(b) > len(tmp) {
		return string(a), string(b)
	}
	buf = append(append(buf, a...), b...)
	s := string(buf)
	return s[:len(a)], s[len(a):]
}

func skipSpace(b []byte, i int) int {
	for i < len(b) && (b[i] == ' ' || b[i] == '\t' || b[i] == '\n' || b[i] == '\r') {
		i++
	}
	return i
}

// scanString reads the JSON string at b[i]: its raw contents (between the
// quotes), the index after it, and whether it holds escapes. It refuses
// control characters (the general path repairs those); b is valid UTF-8.
func scanString(b []byte, i int) (s []byte, next int, esc, ok bool) {
	if i >= len(b) || b[i] != '"' {
		return nil, 0, false, false
	}
	start := i + 1
	for j := start; j < len(b); j++ {
		switch c := b[j]; {
		case c == '"':
			return b[start:j], j + 1, esc, true
		case c == '\\':
			esc = true
			j++
		case c < 0x20:
			return nil, 0, false, false
		}
	}
	return nil, 0, false, false
}

// appendDelta encodes a delta event exactly as marshalTyped would, for an
// event with no Base fields set.
func appendDelta(t EventType, idKey, id, delta string, withDelta bool) []byte {
	// {"type":"<t>","<idKey>":"<id>","delta":"<delta>"}, with room for
	// some escapes.
	b := make([]byte, 0, 32+len(t)+len(idKey)+len(id)+len(delta)+len(delta)/8)
	b = append(b, `{"type":"`...)
	b = append(b, t...)
	b = append(b, `","`...)
	b = append(b, idKey...)
	b = append(b, `":`...)
	b = appendJSONString(b, id)
	if withDelta {
		b = append(b, `,"delta":`...)
		b = appendJSONString(b, delta)
	}
	return append(b, '}')
}

const hexDigits = "0123456789abcdef"

// appendJSONString appends s as encoding/json writes a string: quoted,
// with <, > and & and U+2028/U+2029 escaped as \u sequences, invalid UTF-8
// as \ufffd.
func appendJSONString(b []byte, s string) []byte {
	b = append(b, '"')
	start := 0
	for i := 0; i < len(s); {
		if c := s[i]; c < utf8.RuneSelf {
			if c >= 0x20 && c != '"' && c != '\\' && c != '<' && c != '>' && c != '&' {
				i++
				continue
			}
			b = append(b, s[start:i]...)
			switch c {
			case '\\', '"':
				b = append(b, '\\', c)
			case '\b':
				b = append(b, '\\', 'b')
			case '\f':
				b = append(b, '\\', 'f')
			case '\n':
				b = append(b, '\\', 'n')
			case '\r':
				b = append(b, '\\', 'r')
			case '\t':
				b = append(b, '\\', 't')
			default:
				b = append(b, '\\', 'u', '0', '0', hexDigits[c>>4], hexDigits[c&0xF])
			}
			i++
			start = i
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 {
			b = append(b, s[start:i]...)
			b = append(b, `\ufffd`...)
			i += size
			start = i
			continue
		}
		if r == '\u2028' || r == '\u2029' {
			b = append(b, s[start:i]...)
			b = append(b, '\\', 'u', '2', '0', '2', hexDigits[r&0xF])
			i += size
			start = i
			continue
		}
		i += size
	}
	b = append(b, s[start:]...)
	return append(b, '"')
}

func (b *Base) isZero() bool {
	return b.Timestamp == 0 && b.RawEvent == nil && b.Metadata == nil && b.SubagentRunID == ""
}
