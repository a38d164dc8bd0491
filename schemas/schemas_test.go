package schemas

import (
	"bufio"
	"bytes"
	"crypto/sha1"
	"encoding/hex"
	"fmt"
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
		if strings.HasPrefix(p, "v0_8/") || strings.HasPrefix(p, "v1_0/") {
			return nil // not in the shared copies: TestV08FilesAreTheOfficialBlobs, TestV10FilesAreTheOfficialBlobs
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

// TestV08FilesAreTheOfficialBlobs proves the v0.8 schemas and examples are
// the official ones: each file's git blob id (SHA-1 of "blob <size>\x00"
// and the bytes) is the one SOURCE_v0_8.md records from the upstream commit,
// and every v0.8 file is recorded.
func TestV08FilesAreTheOfficialBlobs(t *testing.T) {
	src, err := os.Open("SOURCE_v0_8.md")
	if err != nil {
		t.Fatal(err)
	}
	defer src.Close()
	want := map[string]string{} // local path -> blob id
	sc := bufio.NewScanner(src)
	for sc.Scan() {
		cells := strings.Split(sc.Text(), "|")
		if len(cells) != 5 {
			continue
		}
		local, repo, blob := strings.Trim(cells[1], " `"), strings.Trim(cells[2], " `"), strings.Trim(cells[3], " `")
		if strings.HasPrefix(repo, "specification/v0_8/") {
			want[local] = blob
		}
	}
	blobID := func(b []byte) string {
		h := sha1.New()
		fmt.Fprintf(h, "blob %d\x00", len(b))
		h.Write(b)
		return hex.EncodeToString(h.Sum(nil))
	}
	seen := 0
	check := func(local string, b []byte) {
		seen++
		id, ok := want[local]
		if !ok {
			t.Errorf("%s: not recorded in SOURCE_v0_8.md", local)
			return
		}
		if got := blobID(b); got != id {
			t.Errorf("%s: blob %s, SOURCE_v0_8.md records %s (not the official file)", local, got, id)
		}
	}
	fs.WalkDir(FS, "v0_8", func(p string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			b, _ := FS.ReadFile(p)
			check(p, b)
		}
		return err
	})
	filepath.WalkDir("testdata/v0_8", func(p string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			b, _ := os.ReadFile(p)
			check(filepath.ToSlash(p), b)
		}
		return err
	})
	if seen != len(want) || seen != 7+35 {
		t.Errorf("checked %d files, SOURCE_v0_8.md records %d, want 42 (7 schemas, 35 examples)", seen, len(want))
	}
}

func TestV08Resources(t *testing.T) {
	res, err := V08Resources()
	if err != nil {
		t.Fatal(err)
	}
	if res[V08Base+"standard_catalog_definition.json"].(map[string]any)["components"].(map[string]any)["MultipleChoice"] == nil {
		t.Error("no MultipleChoice in the v0.8 standard catalog")
	}
	props := res[V08Base+"server_to_client.json"].(map[string]any)["properties"].(map[string]any)
	for _, op := range []string{"beginRendering", "surfaceUpdate", "dataModelUpdate", "deleteSurface"} {
		if props[op] == nil {
			t.Errorf("no %s in the v0.8 schema", op)
		}
	}
}

// TestV10FilesAreTheOfficialBlobs proves the v1.0 schemas and examples are
// the published ones: each file's git blob id is the one SOURCE_v1_0.md
// records, every v1.0 file is recorded, and, where e2e/node_modules holds
// @a2ui/web_core 0.11.0, each file is the package's, byte for byte.
func TestV10FilesAreTheOfficialBlobs(t *testing.T) {
	src, err := os.ReadFile("SOURCE_v1_0.md")
	if err != nil {
		t.Fatal(err)
	}
	want := map[string][2]string{} // local path -> package file, blob id
	for _, line := range strings.Split(string(src), "\n") {
		cells := strings.Split(line, "|")
		if len(cells) != 5 || !strings.HasPrefix(strings.TrimSpace(cells[2]), "`src/v1_0/") {
			continue
		}
		want[strings.Trim(cells[1], " `")] = [2]string{strings.Trim(cells[2], " `"), strings.Trim(cells[3], " `")}
	}
	pkg := filepath.Join("..", "e2e", "node_modules", "@a2ui", "web_core")
	if b, err := os.ReadFile(filepath.Join(pkg, "package.json")); err != nil || !bytes.Contains(b, []byte(`"version": "0.11.0"`)) {
		pkg = "" // not installed here: the blob ids alone
	}
	seen := 0
	check := func(local string, b []byte) {
		seen++
		w, ok := want[local]
		if !ok {
			t.Errorf("%s: not recorded in SOURCE_v1_0.md", local)
			return
		}
		h := sha1.New()
		fmt.Fprintf(h, "blob %d\x00", len(b))
		h.Write(b)
		if got := hex.EncodeToString(h.Sum(nil)); got != w[1] {
			t.Errorf("%s: blob %s, SOURCE_v1_0.md records %s (not the published file)", local, got, w[1])
		}
		if pkg != "" {
			if p, err := os.ReadFile(filepath.Join(pkg, w[0])); err != nil || !bytes.Equal(p, b) {
				t.Errorf("%s differs from @a2ui/web_core 0.11.0's %s (%v)", local, w[0], err)
			}
		}
	}
	fs.WalkDir(FS, "v1_0", func(p string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			b, _ := FS.ReadFile(p)
			check(p, b)
		}
		return err
	})
	filepath.WalkDir("testdata/v1_0", func(p string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			b, _ := os.ReadFile(p)
			check(filepath.ToSlash(p), b)
		}
		return err
	})
	if seen != len(want) || seen != 13+43 {
		t.Errorf("checked %d files, SOURCE_v1_0.md records %d, want 56 (12 schemas, the basic catalog, 43 examples)", seen, len(want))
	}
}
