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
			var w struct {
				Messages []json.RawMessage `json:"messages"`
			}
			if json.Unmarshal(body, &w) == nil && w.Messages != nil {
				return raws(w.Messages), nil
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

func raws(list []json.RawMessage) [][]byte {
	out := make([][]byte, len(list))
	for i, m := range list {
		out[i] = m
	}
	return out
}
