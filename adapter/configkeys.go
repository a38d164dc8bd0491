package adapter

import (
	"errors"
	"fmt"
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
// records every key's line in idx.
func checkKeys(n *yaml.Node, t reflect.Type, path string, idx keyIndex) []error {
	var errs []error
	walkKeys(n, t, path, n.Line, idx, &errs)
	return errs
}

var unmarshalerType = reflect.TypeFor[yaml.Unmarshaler]()

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
	wrong := func(msg string) {
		*errs = append(*errs, fmt.Errorf("%w: %s: %s (line %d)", ErrConfig, pathOrTop(path), msg, line))
	}
	if t.Kind() != reflect.Interface && reflect.PointerTo(t).Implements(unmarshalerType) {
		if err := n.Decode(reflect.New(t).Interface()); err != nil {
			wrong(lineNote.ReplaceAllString(err.Error(), ""))
		}
		return
	}
	switch t.Kind() {
	case reflect.Interface:
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
		var names []string
		if t.Kind() == reflect.Struct {
			fields = map[string]reflect.Type{}
			for i := range t.NumField() {
				f := t.Field(i)
				name, _, _ := strings.Cut(f.Tag.Get("yaml"), ",")
				if name == "" || name == "-" || !f.IsExported() {
					continue
				}
				fields[name] = f.Type
				names = append(names, name)
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
				*errs = append(*errs, fmt.Errorf("%w: %s: unknown key (line %d)%s", ErrConfig, p, k.Line, suggest(k.Value, names)))
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

var typeErrLine = regexp.MustCompile(`^line (\d+): (.*)$`)

// typeErrors turns a yaml.TypeError's "line N: cannot unmarshal ..." lines
// (which checkKeys should have caught first) into errors naming the key on
// that line.
func typeErrors(err error, idx keyIndex) error {
	var te *yaml.TypeError
	if !errors.As(err, &te) {
		return fmt.Errorf("%w: %w", ErrConfig, err)
	}
	byLine := map[int]string{}
	for p, l := range idx {
		if q, ok := byLine[l]; !ok || len(p) > len(q) {
			byLine[l] = p
		}
	}
	var errs []error
	for _, e := range te.Errors {
		m := typeErrLine.FindStringSubmatch(e)
		if m == nil {
			errs = append(errs, fmt.Errorf("%w: %s", ErrConfig, e))
			continue
		}
		line, _ := strconv.Atoi(m[1])
		if p, ok := byLine[line]; ok {
			errs = append(errs, fmt.Errorf("%w: %s: %s (line %d)", ErrConfig, p, m[2], line))
		} else {
			errs = append(errs, fmt.Errorf("%w: line %d: %s", ErrConfig, line, m[2]))
		}
	}
	return errors.Join(errs...)
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
			name, _, _ := strings.Cut(f.Tag.Get("yaml"), ",")
			if name == "" || name == "-" || !f.IsExported() || slices.Contains(negativeOK, join(path, name)) {
				continue
			}
			out = append(out, negativeKeys(v.Field(i), join(path, name))...)
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
