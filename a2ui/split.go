package a2ui

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
)

// SplitMessages accepts one message, a JSON array of messages, the
// {"messages":[...]} wrapper, or JSONL. A JSONL line that is not JSON is
// kept as it is, so the validator reports it with its index.
func SplitMessages(body []byte) ([][]byte, error) {
	body = bytes.TrimSpace(body)
	if len(body) == 0 {
		return nil, errors.New("empty input: send one A2UI message, a JSON array of them, {\"messages\":[...]} or JSONL")
	}
	if json.Valid(body) {
		switch body[0] {
		case '[':
			var list []json.RawMessage
			if err := json.Unmarshal(body, &list); err != nil {
				return nil, fmt.Errorf("not a JSON array of messages: %w", err)
			}
			return raws(list), nil
		case '{':
			if list, ok := wrapped(body); ok {
				return raws(list), nil
			}
			return [][]byte{body}, nil
		}
		return nil, errors.New("input must be a JSON object, an array of messages or JSONL")
	}
	var out [][]byte
	sc := bufio.NewScanner(bytes.NewReader(body))
	sc.Buffer(make([]byte, 64<<10), len(body)+1)
	for sc.Scan() {
		if line := bytes.TrimSpace(sc.Bytes()); len(line) > 0 {
			out = append(out, append([]byte(nil), line...))
		}
	}
	if len(out) == 1 {
		return nil, errors.New("input is not valid JSON (nor JSONL)")
	}
	return out, nil
}

// wrapped returns the messages of a {"messages": [...]} wrapper: an
// object whose key "messages" (so spelled, given once) holds an array,
// and that has no key of a message (version, an operation), so that
// nothing in it goes unjudged. Other keys (an official example's name
// and description) are passed over. Anything else is one message.
func wrapped(body []byte) ([]json.RawMessage, bool) {
	dec := json.NewDecoder(bytes.NewReader(body))
	if t, err := dec.Token(); err != nil || t != json.Delim('{') {
		return nil, false
	}
	var list []json.RawMessage
	found := false
	for dec.More() {
		t, err := dec.Token()
		if err != nil {
			return nil, false
		}
		switch k, _ := t.(string); {
		case k == "messages" && !found:
			found = true
			if dec.Decode(&list) != nil || list == nil {
				return nil, false
			}
		case k == "messages", k == "version", isV08Op(k), isV09Op(k), v10Functions[k]:
			return nil, false
		default:
			var skip json.RawMessage
			if dec.Decode(&skip) != nil {
				return nil, false
			}
		}
	}
	return list, found
}

func raws(list []json.RawMessage) [][]byte {
	out := make([][]byte, len(list))
	for i, m := range list {
		out[i] = m
	}
	return out
}
