package agui_test

import (
	"go/parser"
	"go/token"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestDependencies keeps the protocol package free of the service: agui may
// import only the standard library.
func TestDependencies(t *testing.T) {
	out, err := exec.Command("go", "list", "-deps", "-f", "{{if not .Standard}}{{.ImportPath}}{{end}}", ".").Output()
	if err != nil {
		t.Skipf("go list unavailable: %v", err)
	}
	for _, p := range strings.Fields(string(out)) {
		if p != "github.com/genui-adapter/genui-adapter/agui" {
			t.Errorf("agui depends on %s; it may import only the standard library", p)
		}
	}
	for _, banned := range []string{"log/slog", "log"} {
		if strings.Contains(" "+string(mustList(t))+" ", " "+banned+" ") {
			t.Errorf("agui imports %s; report through Stats instead", banned)
		}
	}
}

func mustList(t *testing.T) []byte {
	out, err := exec.Command("go", "list", "-f", `{{join .Imports " "}}`, ".").Output()
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// TestPackageDoc requires exactly one file with a package doc comment.
func TestPackageDoc(t *testing.T) {
	files, _ := filepath.Glob("*.go")
	n := 0
	for _, f := range files {
		if strings.HasSuffix(f, "_test.go") {
			continue
		}
		af, err := parser.ParseFile(token.NewFileSet(), f, nil, parser.PackageClauseOnly|parser.ParseComments)
		if err != nil {
			t.Fatal(err)
		}
		if af.Doc != nil {
			n++
		}
	}
	if n != 1 {
		t.Errorf("%d files carry the package doc, want exactly 1 (doc.go)", n)
	}
}
