package adapter

import (
	"errors"
	"fmt"
	"maps"
	"reflect"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"go.yaml.in/yaml/v3"
)

// keyIndex is where each key of a config file is: its dotted YAML path
// (agents.orders.idleTimeout) and line.
type keyIndex map[string]int

// checkKeys walks a decoded YAML document alongside the Go type it decodes
// into and reports, by YAML path and line, every key the type does not
// have (with the closest known key) and every value the key's type cannot
// hold (a word where a number goes, a list where a mapping goes). It
// records every key's line in idx. It is the one check of a config's
// keys: the keys a type has are its fields' yaml tags (those of inline
// fields beside them), and a type whose keys depend on its node (an agent
// entry's on its type) says which through keyShaper.
func checkKeys(n *yaml.Node, t reflect.Type, path string, idx keyIndex) []error {
	var errs []error
	walkKeys(n, t, path, n.Line, idx, &errs)
	return errs
}

// keyShaper is a config type whose keys depend on its node.
type keyShaper interface {
	// keyShape says which keys n has beyond the type's own fields, or
	// what is wrong with it (errors under path; line is its key's).
	keyShape(n *yaml.Node, path string, line int) (shape, []error)
}

// shape is the keys of a keyShaper's node.
type shape struct {
	also      reflect.Type            // a struct type whose keys it has too
	elsewhere func(key string) string // for a key it lacks: what has it, or ""
}

var (
	unmarshalerType = reflect.TypeFor[yaml.Unmarshaler]()
	keyShaperType   = reflect.TypeFor[keyShaper]()
)

// keyErr is a problem with the key at path, on line.
func keyErr(path string, line int, format string, args ...any) error {
	return fmt.Errorf("%w: %s: %s (line %d)", ErrConfig, pathOrTop(path), fmt.Sprintf(format, args...), line)
}

func walkKeys(n *yaml.Node, t reflect.Type, path string, line int, idx keyIndex, errs *[]error) {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	switch n.Kind {
	case yaml.DocumentNode:
		if len(n.Content) > 0 {
			walkKeys(n.Content[0], t, path, n.Content[0].Line, idx, errs)
		}
		return
	case yaml.AliasNode:
		walkKeys(n.Alias, t, path, line, idx, errs)
		return
	}
	if n.Kind == yaml.ScalarNode && n.ShortTag() == "!!null" {
		return // an empty value leaves the default
	}
	wrong := func(msg string) { *errs = append(*errs, keyErr(path, line, "%s", msg)) }
	var sh shape
	switch {
	case t.Kind() == reflect.Interface:
		return
	case reflect.PointerTo(t).Implements(keyShaperType):
		if n.Kind != yaml.MappingNode {
			wrong("cannot use " + describe(n) + " as a mapping (key: value)")
			return
		}
		var es []error
		if sh, es = reflect.Zero(t).Interface().(keyShaper).keyShape(n, path, line); len(es) > 0 {
			*errs = append(*errs, es...)
			return
		}
	case reflect.PointerTo(t).Implements(unmarshalerType):
		if err := n.Decode(reflect.New(t).Interface()); err != nil {
			wrong(lineNote.ReplaceAllString(err.Error(), ""))
		}
		return
	}
	switch t.Kind() {
	case reflect.Slice:
		if n.Kind != yaml.SequenceNode {
			wrong("cannot use " + describe(n) + " as a list (write [a, b] or one \"- item\" per line)")
			return
		}
		for i, c := range n.Content {
			walkKeys(c, t.Elem(), path+"["+strconv.Itoa(i)+"]", c.Line, idx, errs)
		}
	case reflect.Struct, reflect.Map:
		if n.Kind != yaml.MappingNode {
			wrong("cannot use " + describe(n) + " as a mapping (key: value)")
			return
		}
		var fields map[string]reflect.Type
		if t.Kind() == reflect.Struct {
			fields = yamlFields(t)
			if sh.also != nil {
				maps.Copy(fields, yamlFields(sh.also))
			}
		}
		for i := 0; i+1 < len(n.Content); i += 2 {
			k, v := n.Content[i], n.Content[i+1]
			p := join(path, k.Value)
			idx[p] = k.Line
			ft := t
			if t.Kind() == reflect.Map {
				ft = t.Elem()
			} else if ft = fields[k.Value]; ft == nil {
				if sh.elsewhere != nil {
					if where := sh.elsewhere(k.Value); where != "" {
						*errs = append(*errs, keyErr(p, k.Line, "%s", where))
						continue
					}
				}
				*errs = append(*errs, fmt.Errorf("%w: %s: unknown key (line %d)%s", ErrConfig, p, k.Line, suggest(k.Value, slices.Sorted(maps.Keys(fields)))))
				continue
			}
			walkKeys(v, ft, p, k.Line, idx, errs)
		}
	default:
		if n.Kind != yaml.ScalarNode {
			wrong("cannot use " + describe(n) + " as " + kindName(t))
			return
		}
		if err := n.Decode(reflect.New(t).Interface()); err != nil {
			wrong("cannot use " + describe(n) + " as " + kindName(t))
		}
	}
}

// yamlFields are the keys of struct type t (a pointer's element) and the
// Go types they decode into: its exported fields' yaml tags, with the keys
// of ",inline" struct fields beside them.
func yamlFields(t reflect.Type) map[string]reflect.Type {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	out := map[string]reflect.Type{}
	for i := range t.NumField() {
		f := t.Field(i)
		name, opts, _ := strings.Cut(f.Tag.Get("yaml"), ",")
		switch {
		case !f.IsExported() || name == "-":
		case opts == "inline":
			maps.Copy(out, yamlFields(f.Type))
		case name != "":
			out[name] = f.Type
		}
	}
	return out
}

// lineNote is the "line N: " a yaml.Unmarshaler's error may start with.
var lineNote = regexp.MustCompile(`^line \d+: `)

func pathOrTop(path string) string {
	if path == "" {
		return "the document"
	}
	return path
}

// describe names a YAML value in an error: the scalar itself, or its kind.
func describe(n *yaml.Node) string {
	switch n.Kind {
	case yaml.SequenceNode:
		return "a list"
	case yaml.MappingNode:
		return "a mapping"
	}
	v := n.Value
	if len(v) > 40 {
		v = v[:37] + "..."
	}
	return strconv.Quote(v)
}

// kindName says in words what a scalar of type t looks like.
func kindName(t reflect.Type) string {
	switch t.Kind() {
	case reflect.Bool:
		return "a boolean (true or false)"
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return "an integer"
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return "a non-negative integer"
	case reflect.Float32, reflect.Float64:
		return "a number"
	case reflect.String:
		return "a string"
	}
	return t.String()
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

// withLine adds the line of the key a validation error names; for errors
// joined with errors.Join, to each.
func withLine(err error, idx keyIndex) error {
	if j, ok := err.(interface{ Unwrap() []error }); ok {
		errs := j.Unwrap()
		out := make([]error, len(errs))
		for i, e := range errs {
			out[i] = withLine(e, idx)
		}
		return errors.Join(out...)
	}
	m := errPath.FindStringSubmatch(err.Error())
	if m == nil {
		return err
	}
	for p := m[1]; p != ""; {
		if line, ok := idx[p]; ok {
			return fmt.Errorf("%w (line %d)", err, line)
		}
		i := max(strings.LastIndexByte(p, '.'), strings.LastIndexByte(p, '['))
		if i < 0 {
			break
		}
		p = p[:i]
	}
	return err
}

// negativeOK are the numeric keys where a negative value means something
// (gcPercent: -1 leaves collections to the memory limit; it has a check of
// its own).
var negativeOK = []string{"gcPercent"}

// negativeKeys lists the YAML paths of the numbers and durations in v that
// are below zero, but for those in negativeOK: every limit, cap and
// duration of the config is zero (the default) or more.
func negativeKeys(v reflect.Value, path string) []string {
	var out []string
	switch v.Kind() {
	case reflect.Pointer, reflect.Interface:
		if !v.IsNil() {
			out = negativeKeys(v.Elem(), path)
		}
	case reflect.Struct:
		for i := range v.NumField() {
			f := v.Type().Field(i)
			name, opts, _ := strings.Cut(f.Tag.Get("yaml"), ",")
			switch {
			case !f.IsExported() || name == "-":
			case opts == "inline" || f.Type.Kind() == reflect.Interface:
				// keys beside the field's own: an inline struct's, an
				// agent's Backend's
				out = append(out, negativeKeys(v.Field(i), path)...)
			case name != "" && !slices.Contains(negativeOK, join(path, name)):
				out = append(out, negativeKeys(v.Field(i), join(path, name))...)
			}
		}
	case reflect.Map:
		if v.Type().Key().Kind() != reflect.String {
			break
		}
		keys := v.MapKeys()
		slices.SortFunc(keys, func(a, b reflect.Value) int { return strings.Compare(a.String(), b.String()) })
		for _, k := range keys {
			out = append(out, negativeKeys(v.MapIndex(k), join(path, k.String()))...)
		}
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		if v.Int() < 0 {
			out = append(out, path)
		}
	}
	return out
}
