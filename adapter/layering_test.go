package adapter_test

import (
	"encoding/json"
	"go/parser"
	"go/token"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

const module = "github.com/genui-adapter/genui-adapter"

// pkg is what `go list -json` says of one package.
type pkg struct {
	ImportPath string
	Dir        string
	GoFiles    []string
	Imports    []string
}

func listPackages(t *testing.T, patterns ...string) []pkg {
	t.Helper()
	cmd := exec.Command("go", append([]string{"list", "-deps=false", "-json"}, patterns...)...)
	cmd.Dir = ".."
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	var pkgs []pkg
	dec := json.NewDecoder(strings.NewReader(string(out)))
	for dec.More() {
		var p pkg
		if err := dec.Decode(&p); err != nil {
			t.Fatal(err)
		}
		pkgs = append(pkgs, p)
	}
	return pkgs
}

// nonStandard lists a package's non-standard dependencies.
func nonStandard(t *testing.T, path string) []string {
	t.Helper()
	cmd := exec.Command("go", "list", "-deps", "-f", "{{if not .Standard}}{{.ImportPath}}{{end}}", path)
	cmd.Dir = ".."
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go list -deps %s: %v", path, err)
	}
	return strings.Fields(string(out))
}

// TestLayering keeps the protocol packages free of the service (echo, the
// adapter, Redis, metrics) and of each other where docs/architecture.md
// says so.
func TestLayering(t *testing.T) {
	self := func(p string) func(string) bool { return func(d string) bool { return d == module+"/"+p } }
	prefix := func(ps ...string) func(string) bool {
		return func(d string) bool {
			for _, p := range ps {
				if d == p || strings.HasPrefix(d, p+"/") {
					return true
				}
			}
			return false
		}
	}
	any := func(fs ...func(string) bool) func(string) bool {
		return func(d string) bool {
			for _, f := range fs {
				if f(d) {
					return true
				}
			}
			return false
		}
	}
	// x/net/idna (and the x/text tables it uses) puts international
	// host names in the form net/http dials.
	idna := prefix("golang.org/x/net/idna", "golang.org/x/text")
	banned := func(d string) bool {
		return strings.Contains(d, "labstack/echo") || strings.HasPrefix(d, module+"/adapter") || strings.Contains(d, "go-redis") || strings.Contains(d, "prometheus")
	}
	for _, tt := range []struct {
		pkg     string
		allowed func(dep string) bool // nil: anything not banned
	}{
		// The standard library only (no HTTP: see below), and its buffer
		// pool.
		{"agui", any(self("agui"), self("agui/internal/bufpool"))},
		// The standard library and IDNA: every package may ask it.
		{"agui/origin", any(self("agui/origin"), idna)},
		{"schemas", self("schemas")}, // a leaf
		// The HTTP client: the codec and the origin rule.
		{"agui/aguihttp", any(self("agui/aguihttp"), self("agui"), self("agui/internal/bufpool"), self("agui/origin"), idna)},
		{"agui/langgraph", any(self("agui/langgraph"), self("agui"), self("agui/internal/bufpool"), self("agui/aguihttp"), self("agui/origin"), idna)},
		{"agui/a2a", any(self("agui/a2a"), self("agui"), self("agui/internal/bufpool"), self("agui/aguihttp"), self("agui/origin"), idna)},
		{"a2ui", any(self("a2ui"), self("agui"), self("agui/internal/bufpool"), self("schemas"), idna, prefix("github.com/santhosh-tekuri/jsonschema/v6", "golang.org/x/text"))},
		{"mcpapps", nil},
		{"mcpapps/dataview", nil},
		// Connections and sockets only: nothing of the service.
		{"internal/takeover", any(self("internal/takeover"), prefix("golang.org/x/sys"))},
	} {
		for _, d := range nonStandard(t, module+"/"+tt.pkg) {
			if banned(d) || (tt.allowed != nil && !tt.allowed(d)) {
				t.Errorf("%s depends on %s", tt.pkg, d)
			}
		}
	}
	// The runs concern knows runs, the AG-UI types and its log: no HTTP
	// framework, no metrics library, no UI protocol.
	for _, pkg := range []string{"adapter/runs", "adapter/runlog"} {
		for _, d := range nonStandard(t, module+"/"+pkg) {
			if strings.Contains(d, "labstack/echo") || strings.Contains(d, "prometheus") ||
				(strings.HasPrefix(d, module+"/") && d != module+"/"+pkg && d != module+"/adapter/runlog" && d != module+"/agui" && d != module+"/agui/internal/bufpool") {
				t.Errorf("%s depends on %s", pkg, d)
			}
		}
	}
	// agui is the protocol, not a client: no HTTP, no network, even
	// indirectly (the HTTP client is agui/aguihttp).
	cmd := exec.Command("go", "list", "-deps", module+"/agui")
	cmd.Dir = ".."
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go list -deps agui: %v", err)
	}
	for _, d := range strings.Fields(string(out)) {
		if d == "net" || strings.HasPrefix(d, "net/") {
			t.Errorf("agui depends on %s", d)
		}
	}
	// agui reports through Stats, never a logger.
	for _, p := range listPackages(t, "./agui") {
		for _, imp := range p.Imports {
			if imp == "log" || imp == "log/slog" {
				t.Errorf("agui imports %s; report through Stats instead", imp)
			}
		}
	}
}

// TestPackageDoc requires exactly one file with the package doc comment in
// every package of the module.
func TestPackageDoc(t *testing.T) {
	for _, p := range listPackages(t, "./...") {
		n := 0
		for _, f := range p.GoFiles {
			af, err := parser.ParseFile(token.NewFileSet(), filepath.Join(p.Dir, f), nil, parser.PackageClauseOnly|parser.ParseComments)
			if err != nil {
				t.Fatal(err)
			}
			if af.Doc != nil {
				n++
			}
		}
		if n != 1 {
			t.Errorf("%s: %d files carry the package doc, want exactly 1", p.ImportPath, n)
		}
	}
}
