package schemas

import (
	"bytes"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestFilesIdenticalToSharedCopies proves the embedded files are the
// official ones, byte for byte.
func TestFilesIdenticalToSharedCopies(t *testing.T) {
	shared := filepath.Join("..", "..", "shared", "specs", "a2ui")
	if _, err := os.Stat(shared); err != nil {
		t.Skipf("shared specs not beside the checkout: %v", err)
	}
	n := 0
	err := fs.WalkDir(FS, ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		got, _ := FS.ReadFile(p)
		want, err := os.ReadFile(filepath.Join(shared, p))
		if err != nil {
			t.Errorf("%s: no shared copy: %v", p, err)
			return nil
		}
		if !bytes.Equal(got, want) {
			t.Errorf("%s differs from the shared copy", p)
		}
		n++
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if n != 2*(11+2)+2 {
		t.Errorf("compared %d files, want 28 (11 json + 2 catalogs per folder, LICENSE, SOURCE.md)", n)
	}
	// The examples copied for tests are verbatim too.
	filepath.WalkDir("testdata/examples", func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		got, _ := os.ReadFile(p)
		want, err := os.ReadFile(filepath.Join(shared, "v0_9_1", "examples", strings.TrimPrefix(p, "testdata/examples/")))
		if err != nil || !bytes.Equal(got, want) {
			t.Errorf("%s differs from the shared copy (%v)", p, err)
		}
		return nil
	})
}

func TestResources(t *testing.T) {
	for _, folder := range []string{"v0_9", "v0_9_1"} {
		res, err := Resources(folder, "basic")
		if err != nil {
			t.Fatal(err)
		}
		for _, u := range []string{CatalogAlias, BasicCatalogID, Base + "client_to_server.json", Base + "server_to_client.json", Base + "common_types.json"} {
			if res[u] == nil {
				t.Errorf("%s: %s not registered", folder, u)
			}
		}
		if id := res[CatalogAlias].(map[string]any)["$id"]; id != CatalogAlias {
			t.Errorf("alias $id = %v", id)
		}
		// The version const accepts both strings, in memory only.
		s2c := res[Base+"server_to_client.json"].(map[string]any)
		ver := s2c["$defs"].(map[string]any)["CreateSurfaceMessage"].(map[string]any)["properties"].(map[string]any)["version"].(map[string]any)
		if ver["const"] != nil || len(ver["enum"].([]any)) != 2 {
			t.Errorf("version schema = %v, want an enum of two", ver)
		}
		raw, _ := FS.ReadFile(folder + "/json/server_to_client.json")
		if !bytes.Contains(raw, []byte(`"const": "v0.9"`)) {
			t.Error("embedded file was modified")
		}
	}
	if _, err := Resources("v0_8", "basic"); err == nil {
		t.Error("unknown folder accepted")
	}
}
