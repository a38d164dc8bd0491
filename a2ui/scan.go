package a2ui

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
)

// scanJSON checks what encoding/json lets through: duplicate object keys
// (it silently keeps the last one) and nesting deeper than maxDepth. It
// returns the rule broken, the JSON Pointer where, and a message.
func scanJSON(b []byte, maxDepth int) (rule, path, msg string) {
	dec := json.NewDecoder(bytes.NewReader(b))
	type frame struct {
		obj     bool
		keys    map[string]bool
		key     string // object: the current key
		idx     int    // array: the current index
		wantKey bool
	}
	var stack []*frame
	here := func() string {
		var segs []any
		for _, f := range stack {
			if f.obj {
				segs = append(segs, f.key)
			} else {
				segs = append(segs, f.idx)
			}
		}
		return pointer(segs...)
	}
	for {
		tok, err := dec.Token()
		if errors.Is(err, io.EOF) {
			return "", "", ""
		}
		if err != nil {
			return RuleInvalidJSON, "", err.Error()
		}
		var top *frame
		if n := len(stack); n > 0 {
			top = stack[n-1]
		}
		if d, ok := tok.(json.Delim); ok && (d == '}' || d == ']') {
			stack = stack[:len(stack)-1]
			if n := len(stack); n > 0 {
				if p := stack[n-1]; p.obj {
					p.wantKey = true
				} else {
					p.idx++
				}
			}
			continue
		}
		if top != nil && top.obj && top.wantKey {
			k, _ := tok.(string)
			top.key = k
			if top.keys[k] {
				return RuleDuplicateKey, here(), fmt.Sprintf("key %q appears twice", k)
			}
			top.keys[k] = true
			top.wantKey = false
			continue
		}
		switch tok {
		case json.Delim('{'):
			stack = append(stack, &frame{obj: true, keys: map[string]bool{}, wantKey: true})
		case json.Delim('['):
			stack = append(stack, &frame{})
		default:
			if top != nil {
				if top.obj {
					top.wantKey = true
				} else {
					top.idx++
				}
			}
			continue
		}
		if len(stack) > maxDepth {
			stack = stack[:len(stack)-1]
			return RuleTooDeep, here(), fmt.Sprintf("JSON nesting deeper than %d", maxDepth)
		}
	}
}
