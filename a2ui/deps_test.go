package a2ui_test

import (
	"os/exec"
	"strings"
	"testing"
)

// TestDependencies keeps a2ui a protocol package: agui, schemas, the JSON
// Schema validator (and its text dependency), never the service.
func TestDependencies(t *testing.T) {
	out, err := exec.Command("go", "list", "-deps", "-f", "{{if not .Standard}}{{.ImportPath}}{{end}}", ".").Output()
	if err != nil {
		t.Skipf("go list unavailable: %v", err)
	}
	for _, p := range strings.Fields(string(out)) {
		switch {
		case p == "github.com/genui-adapter/genui-adapter/a2ui",
			p == "github.com/genui-adapter/genui-adapter/agui",
			p == "github.com/genui-adapter/genui-adapter/schemas",
			strings.HasPrefix(p, "github.com/santhosh-tekuri/jsonschema/v6"),
			strings.HasPrefix(p, "golang.org/x/text/"):
		default:
			t.Errorf("a2ui depends on %s", p)
		}
	}
}
