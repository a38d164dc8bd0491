package mcpapps_test

import (
	"os/exec"
	"strings"
	"testing"
)

// TestDependencies keeps mcpapps free of the HTTP edge: agui and the MCP
// go-sdk (with its own dependencies), never echo or the adapter.
func TestDependencies(t *testing.T) {
	out, err := exec.Command("go", "list", "-deps", "-f", "{{if not .Standard}}{{.ImportPath}}{{end}}", ".").Output()
	if err != nil {
		t.Skipf("go list unavailable: %v", err)
	}
	for _, p := range strings.Fields(string(out)) {
		if strings.Contains(p, "labstack/echo") || strings.Contains(p, "genui-adapter/adapter") || strings.Contains(p, "go-redis") || strings.Contains(p, "prometheus") {
			t.Errorf("mcpapps depends on %s", p)
		}
	}
}
