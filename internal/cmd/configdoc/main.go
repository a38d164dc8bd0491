// Command configdoc writes docs/configuration.md from the configuration
// types in package adapter: every YAML key with its path, type, default and
// meaning, taken from the fields' yaml tags and Go doc comments.
//
// It reads the source (go/parser), not the compiled types, so a field's
// doc comment is its documentation: write what the key does and its
// default as "(default X)", "Zero means X" or "Off by default", and the
// next `make docs` puts it in the reference. `make docs-check` (part of
// `make test`) fails when the committed file differs from what this
// program writes.
//
// Usage:
//
//	go run ./internal/cmd/configdoc [-src adapter] [-root Config] [-o docs/configuration.md]
//
// `make docs` and `go generate ./internal/cmd/configdoc` run it.
package main

//go:generate go run . -src ../../../adapter -o ../../../docs/configuration.md

import (
	"bytes"
	"flag"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"

	_ "embed"
)

//go:embed header.md
var header string

func main() {
	src := flag.String("src", "adapter", "directory of the package that holds the config types")
	root := flag.String("root", "Config", "the root config type")
	out := flag.String("o", "docs/configuration.md", "output file (- for stdout)")
	flag.Parse()
	types, err := loadTypes(*src)
	if err != nil {
		fmt.Fprintln(os.Stderr, "configdoc:", err)
		os.Exit(1)
	}
	doc, warnings, err := render(types, *root)
	if err != nil {
		fmt.Fprintln(os.Stderr, "configdoc:", err)
		os.Exit(1)
	}
	for _, w := range warnings {
		fmt.Fprintln(os.Stderr, "configdoc: warning:", w)
	}
	if *out == "-" {
		os.Stdout.Write(doc)
		return
	}
	if err := os.WriteFile(*out, doc, 0o644); err != nil {
		fmt.Fprintln(os.Stderr, "configdoc:", err)
		os.Exit(1)
	}
}

// typeInfo is one named type of the package.
type typeInfo struct {
	doc    string
	expr   ast.Expr // the type's definition
	strukt *ast.StructType
	// choices are, for an interface type, the struct types a field of it
	// may hold, by the value of its key: the entries of the package's
	// map[string]ThatInterface variable (agentTypes for Backend).
	choices []choice
}

// choice is one value of a key that selects a struct type.
type choice struct {
	value, typeName string
}

// loadTypes parses the package's non-test files and returns its named
// types.
func loadTypes(dir string) (map[string]typeInfo, error) {
	fset := token.NewFileSet()
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, err
	}
	types := map[string]typeInfo{}
	choices := map[string][]choice{}
	for _, e := range entries {
		name := e.Name()
		if e.Type()&fs.ModeType != 0 || !strings.HasSuffix(name, ".go") || strings.HasSuffix(name, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, filepath.Join(dir, name), nil, parser.ParseComments)
		if err != nil {
			return nil, err
		}
		for _, d := range f.Decls {
			g, ok := d.(*ast.GenDecl)
			if ok && g.Tok == token.VAR {
				for _, s := range g.Specs {
					if iface, cs := choicesOf(s.(*ast.ValueSpec)); iface != "" {
						choices[iface] = append(choices[iface], cs...)
					}
				}
			}
			if !ok || g.Tok != token.TYPE {
				continue
			}
			for _, s := range g.Specs {
				ts := s.(*ast.TypeSpec)
				cg := ts.Doc
				if cg == nil && len(g.Specs) == 1 {
					cg = g.Doc
				}
				ti := typeInfo{doc: cg.Text(), expr: ts.Type}
				ti.strukt, _ = ts.Type.(*ast.StructType)
				types[ts.Name.Name] = ti
			}
		}
	}
	for iface, cs := range choices {
		if ti, ok := types[iface]; ok {
			ti.choices = cs
			types[iface] = ti
		}
	}
	return types, nil
}

// choicesOf reads a variable map[string]I{"value": (*T)(nil), ...} (or
// &T{}, T{}): the struct type T a field of interface type I holds when
// its key is "value".
func choicesOf(vs *ast.ValueSpec) (iface string, out []choice) {
	if len(vs.Values) != 1 {
		return "", nil
	}
	lit, ok := vs.Values[0].(*ast.CompositeLit)
	if !ok {
		return "", nil
	}
	mt, ok := lit.Type.(*ast.MapType)
	if !ok {
		return "", nil
	}
	key, kok := mt.Key.(*ast.Ident)
	val, vok := mt.Value.(*ast.Ident)
	if !kok || !vok || key.Name != "string" {
		return "", nil
	}
	for _, e := range lit.Elts {
		kv, ok := e.(*ast.KeyValueExpr)
		if !ok {
			continue
		}
		k, ok := kv.Key.(*ast.BasicLit)
		if !ok || k.Kind != token.STRING {
			continue
		}
		if t := typeNameOf(kv.Value); t != "" {
			out = append(out, choice{strings.Trim(k.Value, "\"`"), t})
		}
	}
	return val.Name, out
}

// typeNameOf is T of (*T)(nil), &T{} or T{}.
func typeNameOf(e ast.Expr) string {
	switch v := e.(type) {
	case *ast.CallExpr: // (*T)(nil)
		return typeNameOf(v.Fun)
	case *ast.ParenExpr:
		return typeNameOf(v.X)
	case *ast.StarExpr:
		return typeNameOf(v.X)
	case *ast.UnaryExpr: // &T{}
		return typeNameOf(v.X)
	case *ast.CompositeLit:
		return typeNameOf(v.Type)
	case *ast.Ident:
		return v.Name
	}
	return ""
}

// row is one key of the reference.
type row struct {
	path, typ, def, meaning string
}

// section is the keys of one struct type, under a YAML path.
type section struct {
	path string // "" for the top level
	when string // the key and value that select the type ("type: agui"), if one does
	doc  string
	rows []row
}

// pending is a struct type to be written, under a YAML path.
type pending struct {
	path, typeName, when string
}

func render(types map[string]typeInfo, root string) ([]byte, []string, error) {
	if types[root].strukt == nil {
		return nil, nil, fmt.Errorf("no struct type %s", root)
	}
	var warnings []string
	var sections []section
	// Each struct's section is followed by its nested structs' sections,
	// in field order.
	var walk func(p pending)
	walk = func(p pending) {
		ti := types[p.typeName]
		sec := section{path: p.path, when: p.when, doc: ti.doc}
		var children, selected []pending
		var fields func(st *ast.StructType, typeName string)
		fields = func(st *ast.StructType, typeName string) {
			for _, f := range st.Fields.List {
				if inline, ok := inlineType(f); ok {
					if it := types[inline]; it.strukt != nil {
						fields(it.strukt, inline)
					}
					continue
				}
				name, ok := yamlName(f)
				if !ok {
					continue
				}
				path := name
				if p.path != "" {
					path = p.path + "." + name
				}
				meaning := oneLine(f.Doc.Text())
				if meaning == "" {
					meaning = oneLine(f.Comment.Text())
				}
				// "Listen is the address..." reads "`listen` is the address...".
				if goName := f.Names[0].Name; strings.HasPrefix(meaning, goName+" ") {
					meaning = "`" + name + "`" + meaning[len(goName):]
				}
				if meaning == "" {
					warnings = append(warnings, fmt.Sprintf("%s (%s.%s) has no doc comment", path, typeName, f.Names[0].Name))
				}
				typ, nested, childPath := describe(f.Type, types, path)
				if nested != "" {
					children = append(children, pending{path: childPath, typeName: nested})
				}
				// A key that selects a struct type: its values, and each
				// type's keys beside it (under the same path).
				if id, ok := f.Type.(*ast.Ident); ok && len(types[id.Name].choices) > 0 {
					var vals []string
					for _, c := range types[id.Name].choices {
						vals = append(vals, "`"+c.value+"`")
						selected = append(selected, pending{path: p.path, typeName: c.typeName, when: name + ": " + c.value})
					}
					typ = "string: " + strings.Join(vals, ", ")
				}
				sec.rows = append(sec.rows, row{path: path, typ: typ, def: defaultOf(meaning, f.Type), meaning: meaning})
			}
		}
		fields(ti.strukt, p.typeName)
		sections = append(sections, sec)
		for _, c := range append(children, selected...) {
			walk(c)
		}
	}
	walk(pending{path: "", typeName: root})
	var b bytes.Buffer
	b.WriteString(header)
	for _, s := range sections {
		title := "Top level"
		if s.path != "" {
			title = "`" + s.path + "`"
		}
		if s.when != "" {
			title += " with `" + s.when + "`"
		}
		fmt.Fprintf(&b, "\n## %s\n\n", title)
		if d := oneLine(s.doc); d != "" {
			fmt.Fprintf(&b, "%s\n\n", d)
		}
		b.WriteString("| key | type | default | meaning |\n| --- | --- | --- | --- |\n")
		for _, r := range s.rows {
			fmt.Fprintf(&b, "| `%s` | %s | %s | %s |\n", r.path, r.typ, cell(r.def), cell(r.meaning))
		}
	}
	return b.Bytes(), warnings, nil
}

// inlineType is the type name of an embedded struct field tagged
// yaml:",inline", whose keys sit beside the struct's own.
func inlineType(f *ast.Field) (string, bool) {
	if len(f.Names) != 0 || f.Tag == nil || !strings.Contains(f.Tag.Value, `yaml:",inline"`) {
		return "", false
	}
	id, ok := f.Type.(*ast.Ident)
	if !ok {
		return "", false
	}
	return id.Name, true
}

// yamlName is a field's YAML key; ok is false for fields YAML does not
// read (unexported, untagged or "-").
func yamlName(f *ast.Field) (string, bool) {
	if len(f.Names) != 1 || !f.Names[0].IsExported() || f.Tag == nil {
		return "", false
	}
	tag := strings.Trim(f.Tag.Value, "`")
	const key = `yaml:"`
	i := strings.Index(tag, key)
	if i < 0 {
		return "", false
	}
	v := tag[i+len(key):]
	v = v[:strings.IndexByte(v, '"')]
	name, _, _ := strings.Cut(v, ",")
	if name == "" || name == "-" {
		return "", false
	}
	return name, true
}

// describe names a field's YAML type. When the field holds a struct of the
// package (directly, by pointer, in a list or as a map's values) it also
// returns that type's name and the YAML path its keys go under.
func describe(e ast.Expr, types map[string]typeInfo, path string) (typ, nested, childPath string) {
	switch t := e.(type) {
	case *ast.StarExpr:
		return describe(t.X, types, path)
	case *ast.Ident:
		if ti, ok := types[t.Name]; ok {
			if ti.strukt != nil {
				return "object", t.Name, path
			}
			if t.Name == "Duration" {
				return "duration", "", ""
			}
			typ, _, _ := describe(ti.expr, types, path)
			return typ, "", ""
		}
		switch t.Name {
		case "string":
			return "string", "", ""
		case "bool":
			return "bool", "", ""
		case "int", "int64", "int32", "uint", "uint64":
			return "integer", "", ""
		case "float64", "float32":
			return "number", "", ""
		case "any":
			return "any", "", ""
		}
		return t.Name, "", ""
	case *ast.InterfaceType:
		return "any", "", ""
	case *ast.ArrayType:
		elem, n, _ := describe(t.Elt, types, path+"[]")
		return "list of " + elem, n, path + "[]"
	case *ast.MapType:
		elem, n, _ := describe(t.Value, types, path+".<id>")
		return "map of " + elem, n, path + ".<id>"
	case *ast.SelectorExpr:
		return t.Sel.Name, "", ""
	}
	return fmt.Sprintf("%T", e), "", ""
}

var defaultPatterns = []*regexp.Regexp{
	// "reject" (409, default); "scoped" (default: ...)
	regexp.MustCompile(`"([^"]+)" \((?:[^()]*, )?default[:)]`),
	// (default 30 s), (default: random per process), (default\n 24 h; ...)
	regexp.MustCompile(`\([Dd]efault:? ([^;()]+?)(?:;|\)|, (?:renewed|limits|the|a |its|beyond|both|0\b|429|408))`),
	// langgraph only, default true
	regexp.MustCompile(`, default ([^;(),.]+)`),
	// Zero means 15 s.
	regexp.MustCompile(`Zero means ([^;]+?)\.(?:\s|$)`),
	// Default: 5s. / defaults to 30s. (not "Off by default: ...")
	regexp.MustCompile(`(?:(?:^|\. )Default:|\b[Dd]efaults to) ([^;()]+?)(?:[;),]|\.(?:\s|$)|$)`),
	// Default [a2ui]. / default 200 while ...
	regexp.MustCompile(`[Dd]efault (\[[^\]]*\]|[^;(),.:]+)`),
}

var byDefault = regexp.MustCompile(`\b(None|Off|On) by default\b`)

// defaultOf reads a key's default from its doc comment. Fields of
// non-pointer bool type default to false when the comment says nothing.
func defaultOf(meaning string, t ast.Expr) string {
	for _, re := range defaultPatterns {
		if m := re.FindStringSubmatch(meaning); m != nil {
			return strings.TrimSpace(m[1])
		}
	}
	if m := byDefault.FindStringSubmatch(meaning); m != nil {
		switch m[1] {
		case "Off":
			return "false"
		case "On":
			return "true"
		}
		return "none"
	}
	if id, ok := t.(*ast.Ident); ok && id.Name == "bool" {
		return "false"
	}
	return ""
}

// oneLine joins a comment's lines into one.
func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }

// cell escapes text for a Markdown table cell.
func cell(s string) string {
	if s == "" {
		return "—"
	}
	return strings.ReplaceAll(s, "|", `\|`)
}
