package main

import (
	"go/ast"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestDefaultOf: the defaults written in doc comments land in the Default
// column.
func TestDefaultOf(t *testing.T) {
	str, boolean := ast.NewIdent("string"), ast.NewIdent("bool")
	for _, c := range []struct {
		comment string
		typ     ast.Expr
		want    string
	}{
		{"Heartbeat is the idle time. Zero means 15 s.", str, "15 s"},
		{"DetachGrace is how long (default 30 s). 0s cancels at once.", str, "30 s"},
		{"SandboxKey signs tickets (default: random per process).", str, "random per process"},
		{`ThreadPolicy is "reject" (409, default) or "supersede".`, str, "reject"},
		{`Backend is "memory" (default) or "redis".`, str, "memory"},
		{"MessagesSnapshot (langgraph only, default true) ends each run.", boolean, "true"},
		{"Render says how. Default [a2ui]. A run may ask.", str, "[a2ui]"},
		{"URLAllowlist are origins. None by default.", str, "none"},
		{"HTMLScripts lets scripts run. Off by default.", boolean, "false"},
		{"Pprof serves profiles. Off by default: they reveal internals.", boolean, "false"},
		{"Public serves them without credentials.", boolean, "false"},
		{"URL is the Redis URL.", str, ""},
		{"Wait is how long a run waits. Default: 5s.", str, "5s"},
		{"Wait is how long a run waits; it defaults to 2 ms, 0 turns it off.", str, "2 ms"},
	} {
		if got := defaultOf(c.comment, c.typ); got != c.want {
			t.Errorf("defaultOf(%q) = %q, want %q", c.comment, got, c.want)
		}
	}
}

// TestRenderPicksUpEveryField: a field added with a doc comment appears
// in the reference, nested structs under their YAML path, and a field
// without one is reported.
func TestRenderPicksUpEveryField(t *testing.T) {
	src := "package x\n\n// Config is the root.\ntype Config struct {\n" +
		"\t// Listen is where (default :80).\n\tListen string `yaml:\"listen\"`\n" +
		"\tAgents map[string]Agent `yaml:\"agents\"`\n" +
		"\thidden int\n}\n\n// Agent is one agent.\ntype Agent struct {\n" +
		"\t// Wait is how long. Zero means 5 s.\n\tWait Duration `yaml:\"wait,omitempty\"`\n}\n\n" +
		"// Duration is a duration.\ntype Duration int64\n"
	doc, warnings := renderSource(t, src)
	for _, want := range []string{
		"| `listen` | string | :80 | `listen` is where (default :80). |",
		"## `agents.<id>`",
		"| `agents.<id>.wait` | duration | 5 s | `wait` is how long. Zero means 5 s. |",
	} {
		if !strings.Contains(doc, want) {
			t.Errorf("missing %q in:\n%s", want, doc)
		}
	}
	if len(warnings) != 1 || !strings.HasPrefix(warnings[0], "agents ") {
		t.Errorf("warnings = %q, want one for agents", warnings)
	}
	if strings.Contains(doc, "hidden") {
		t.Error("an unexported field is in the reference")
	}
}

// TestRenderPerTypeTables: a key whose value selects a struct type (a
// field of an interface type listed in a map[string]Interface variable)
// gets a table per type, with the keys of inline structs beside each
// type's own.
func TestRenderPerTypeTables(t *testing.T) {
	src := "package x\n\n// Config is the root.\ntype Config struct {\n" +
		"\tAgents map[string]Agent `yaml:\"agents\"`\n}\n\n" +
		"// Agent is one agent.\ntype Agent struct {\n" +
		"\t// Backend is the agent's type.\n\tBackend Backend `yaml:\"type\"`\n" +
		"\t// Note is for people.\n\tNote string `yaml:\"note\"`\n}\n\n" +
		"// Backend is a type's keys.\ntype Backend interface{ b() }\n\n" +
		"var kinds = map[string]Backend{\"web\": (*Web)(nil), \"toy\": &Toy{}}\n\n" +
		"// Shared is what the HTTP types share.\ntype Shared struct {\n\t// URL is where.\n\tURL string `yaml:\"url\"`\n}\n\n" +
		"// Web is the keys of type web.\ntype Web struct {\n\tShared `yaml:\",inline\"`\n\t// Tries is how often. Zero means 3.\n\tTries int `yaml:\"tries\"`\n}\n\n" +
		"// Toy is the keys of type toy.\ntype Toy struct {\n\t// Loud shouts. Off by default.\n\tLoud bool `yaml:\"loud\"`\n}\n"
	doc, warnings := renderSource(t, src)
	for _, want := range []string{
		"| `agents.<id>.type` | string: `web`, `toy` | — | `type` is the agent's type. |",
		"| `agents.<id>.note` | string |",
		"## `agents.<id>` with `type: web`\n\nWeb is the keys of type web.",
		"| `agents.<id>.url` | string | — | `url` is where. |\n| `agents.<id>.tries` | integer | 3 |",
		"## `agents.<id>` with `type: toy`",
		"| `agents.<id>.loud` | bool | false |",
	} {
		if !strings.Contains(doc, want) {
			t.Errorf("missing %q in:\n%s", want, doc)
		}
	}
	if len(warnings) != 1 || !strings.HasPrefix(warnings[0], "agents ") {
		t.Errorf("warnings = %q, want one for agents", warnings)
	}
}

// renderSource renders the reference of a package made of src alone.
func renderSource(t *testing.T, src string) (string, []string) {
	t.Helper()
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "c.go"), []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	types, err := loadTypes(dir)
	if err != nil {
		t.Fatal(err)
	}
	doc, warnings, err := render(types, "Config")
	if err != nil {
		t.Fatal(err)
	}
	return string(doc), warnings
}
