package langgraph

import (
	"encoding/json"
	"strings"
	"unicode/utf8"

	"github.com/genui-adapter/genui-adapter/agui"
)

// predicted is a streaming tool call whose arguments predict state
// (predict_state / copilotkit:emit-intermediate-state): while its
// arguments stream, the state keys follow the arguments they name, as
// STATE_DELTA, so that a client sees the state before the tool runs.
type predicted struct {
	args strings.Builder
	// keys maps a tool argument to the state keys it predicts.
	keys map[string][]string
	// sent is the length of each argument's value last sent.
	sent map[string]int
}

// maxPredictedArgs bounds the arguments a prediction follows.
const maxPredictedArgs = 1 << 20

func newPredicted(predict agui.JSON, tool string) *predicted {
	var list []struct {
		Tool     string `json:"tool"`
		Argument string `json:"tool_argument"`
		StateKey string `json:"state_key"`
	}
	_ = json.Unmarshal(predict, &list)
	p := &predicted{keys: map[string][]string{}, sent: map[string]int{}}
	for _, e := range list {
		if e.Tool == tool && e.Argument != "" && e.StateKey != "" {
			p.keys[e.Argument] = append(p.keys[e.Argument], e.StateKey)
		}
	}
	if len(p.keys) == 0 {
		return nil
	}
	return p
}

// add takes an arguments chunk and returns the delta the arguments now
// predict, if it grew enough (by a quarter, or 512 bytes) since the last
// one; final forces the delta of whatever is known.
func (p *predicted) add(chunk string, final bool) *agui.StateDelta {
	if p.args.Len()+len(chunk) <= maxPredictedArgs {
		p.args.WriteString(chunk)
	}
	s := p.args.String()
	var ops []map[string]any
	for arg, keys := range p.keys {
		v, n, ok := partialValue(s, arg)
		if !ok {
			continue
		}
		last, seen := p.sent[arg]
		if seen && n == last {
			continue
		}
		if !final && seen && n < last+last/4 && n < last+512 {
			continue
		}
		p.sent[arg] = n
		for _, k := range keys {
			ops = append(ops, map[string]any{"op": "add", "path": "/" + escapePointer(k), "value": v})
		}
	}
	if len(ops) == 0 {
		return nil
	}
	b, _ := json.Marshal(ops)
	return &agui.StateDelta{Delta: agui.JSON(b)}
}

func escapePointer(s string) string {
	return strings.ReplaceAll(strings.ReplaceAll(s, "~", "~0"), "/", "~1")
}

// partialValue is the value of a top-level key of a JSON object still
// streaming: a string as far as it has arrived, any other value once
// complete. n measures it (bytes so far).
func partialValue(s, key string) (any, int, bool) {
	i := valueStart(s, key)
	if i < 0 {
		return nil, 0, false
	}
	if s[i] == '"' {
		// The string so far: its complete escapes, decoded.
		j := i + 1
		for j < len(s) && s[j] != '"' {
			if s[j] == '\\' {
				if j+1 >= len(s) || (s[j+1] == 'u' && j+6 > len(s)) {
					break // an escape still arriving
				}
				if s[j+1] == 'u' {
					j += 6
					continue
				}
				j += 2
				continue
			}
			j++
		}
		j = min(j, len(s))
		// Not half a character: a rune still arriving is left out.
		for k := j - 1; k > i && k >= j-3; k-- {
			if utf8.RuneStart(s[k]) {
				if !utf8.FullRuneInString(s[k:j]) {
					j = k
				}
				break
			}
		}
		var v string
		if json.Unmarshal([]byte(s[i:j]+`"`), &v) != nil {
			return nil, 0, false
		}
		return v, j - i, true
	}
	dec := json.NewDecoder(strings.NewReader(s[i:]))
	var v any
	if dec.Decode(&v) != nil {
		return nil, 0, false
	}
	// A number is complete only once something follows it.
	end := int(dec.InputOffset())
	if _, isNum := v.(float64); isNum && i+end >= len(s) {
		return nil, 0, false
	}
	return v, end, true
}

// valueStart is where the value of a top-level key begins, or -1.
func valueStart(s, key string) int {
	depth := 0
	for j := 0; j < len(s); j++ {
		switch s[j] {
		case '{', '[':
			depth++
		case '}', ']':
			depth--
		case '"':
			end := j + 1
			for end < len(s) && s[end] != '"' {
				if s[end] == '\\' {
					end++
				}
				end++
			}
			if end >= len(s) {
				return -1
			}
			if depth == 1 {
				var k string
				if json.Unmarshal([]byte(s[j:end+1]), &k) == nil && k == key {
					// Is it a key? A colon follows.
					c := end + 1
					for c < len(s) && strings.ContainsRune(" \t\r\n", rune(s[c])) {
						c++
					}
					if c < len(s) && s[c] == ':' {
						c++
						for c < len(s) && strings.ContainsRune(" \t\r\n", rune(s[c])) {
							c++
						}
						if c < len(s) {
							return c
						}
						return -1
					}
				}
			}
			j = end
		}
	}
	return -1
}
