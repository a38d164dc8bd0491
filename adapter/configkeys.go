package adapter

import (
	"fmt"
	"reflect"
	"regexp"
	"strconv"
	"strings"

	"go.yaml.in/yaml/v3"
)

// keyIndex is where each key of a config file is: its dotted YAML path
// (agents.orders.idleTimeout) and line.
type keyIndex map[string]int

// checkKeys walks a decoded YAML document alongside the Go type it decodes
// into and reports the first key the type does not have, by YAML path and
// line, with the closest known key. It records every key's line in idx.
func checkKeys(n *yaml.Node, t reflect.Type, path string, idx keyIndex) error {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	switch n.Kind {
	case yaml.DocumentNode:
		if len(n.Content) > 0 {
			return checkKeys(n.Content[0], t, path, idx)
		}
	case yaml.AliasNode:
		return checkKeys(n.Alias, t, path, idx)
	case yaml.SequenceNode:
		if t.Kind() == reflect.Slice {
			for i, c := range n.Content {
				if err := checkKeys(c, t.Elem(), path+"["+strconv.Itoa(i)+"]", idx); err != nil {
					return err
				}
			}
		}
	case yaml.MappingNode:
		switch t.Kind() {
		case reflect.Struct:
			fields := map[string]reflect.Type{}
			var names []string
			for i := range t.NumField() {
				f := t.Field(i)
				name, _, _ := strings.Cut(f.Tag.Get("yaml"), ",")
				if name == "" || name == "-" || !f.IsExported() {
					continue
				}
				fields[name] = f.Type
				names = append(names, name)
			}
			for i := 0; i+1 < len(n.Content); i += 2 {
				k, v := n.Content[i], n.Content[i+1]
				p := join(path, k.Value)
				idx[p] = k.Line
				ft, ok := fields[k.Value]
				if !ok {
					return fmt.Errorf("%w: %s: unknown key (line %d)%s", ErrConfig, p, k.Line, suggest(k.Value, names))
				}
				if err := checkKeys(v, ft, p, idx); err != nil {
					return err
				}
			}
		case reflect.Map:
			for i := 0; i+1 < len(n.Content); i += 2 {
				k, v := n.Content[i], n.Content[i+1]
				p := join(path, k.Value)
				idx[p] = k.Line
				if t.Elem().Kind() != reflect.Interface {
					if err := checkKeys(v, t.Elem(), p, idx); err != nil {
						return err
					}
				}
			}
		}
	}
	return nil
}

func join(path, key string) string {
	if path == "" {
		return key
	}
	return path + "." + key
}

// suggest names the known key closest to an unknown one, if any is close:
// a key that contains it (or that it contains) first, then the smallest
// edit distance, up to 3.
func suggest(key string, known []string) string {
	best, bestScore := "", 1<<30
	lk := strings.ToLower(key)
	for _, k := range known {
		lkk := strings.ToLower(k)
		d := editDistance(lk, lkk)
		score := d
		if strings.Contains(lkk, lk) || strings.Contains(lk, lkk) {
			score -= 1000
		} else if d > 3 {
			continue
		}
		if score < bestScore {
			best, bestScore = k, score
		}
	}
	if best == "" {
		return ""
	}
	return " (did you mean " + best + "?)"
}

func editDistance(a, b string) int {
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			c := 1
			if a[i-1] == b[j-1] {
				c = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+c)
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}

var errPath = regexp.MustCompile(`^config: ([A-Za-z0-9_.\-\[\]]+): `)

// withLine adds the line of the key a validation error names.
func withLine(err error, idx keyIndex) error {
	m := errPath.FindStringSubmatch(err.Error())
	if m == nil {
		return err
	}
	for p := m[1]; p != ""; {
		if line, ok := idx[p]; ok {
			return fmt.Errorf("%w (line %d)", err, line)
		}
		i := strings.LastIndexByte(p, '.')
		if i < 0 {
			break
		}
		p = p[:i]
	}
	return err
}
