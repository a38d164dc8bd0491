package schemas

import (
	"os/exec"
	"strings"
	"testing"
)

// TestDependencies keeps schemas a leaf: the standard library only.
func TestDependencies(t *testing.T) {
	out, err := exec.Command("go", "list", "-deps", "-f", "{{if not .Standard}}{{.ImportPath}}{{end}}", ".").Output()
	if err != nil {
		t.Skipf("go list unavailable: %v", err)
	}
	for _, p := range strings.Fields(string(out)) {
		if p != "github.com/genui-adapter/genui-adapter/schemas" {
			t.Errorf("schemas depends on %s; it may import only the standard library", p)
		}
	}
}
