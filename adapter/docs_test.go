package adapter_test

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// docFiles are the README, the changelog and every page of docs/.
func docFiles(t *testing.T) []string {
	t.Helper()
	files, err := filepath.Glob("../docs/*.md")
	if err != nil {
		t.Fatal(err)
	}
	return append([]string{"../README.md", "../CHANGELOG.md"}, files...)
}

var (
	mdLink    = regexp.MustCompile(`\]\(([^)\s]+)\)`)
	mdHeading = regexp.MustCompile("(?m)^#{1,6} +(.+)$")
	slugDrop  = regexp.MustCompile("[^a-z0-9 _-]")
)

// slug is GitHub's anchor for a heading: lower case, punctuation dropped,
// spaces as dashes.
func slug(heading string) string {
	return strings.ReplaceAll(slugDrop.ReplaceAllString(strings.ToLower(heading), ""), " ", "-")
}

// anchors lists a Markdown file's heading anchors.
func anchors(t *testing.T, path string) map[string]bool {
	t.Helper()
	text, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]bool{}
	for _, m := range mdHeading.FindAllStringSubmatch(stripCode(string(text)), -1) {
		out[slug(m[1])] = true
	}
	return out
}

// stripCode removes fenced code blocks, whose lines are not headings or
// links.
func stripCode(s string) string {
	var b strings.Builder
	in := false
	for line := range strings.Lines(s) {
		if strings.HasPrefix(line, "```") {
			in = !in
			continue
		}
		if !in {
			b.WriteString(line)
		}
	}
	return b.String()
}

// TestDocsLinks: every relative link of the README and docs/ names a file
// that exists, and an anchor into a Markdown file names one of its
// headings.
func TestDocsLinks(t *testing.T) {
	for _, f := range docFiles(t) {
		text, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range mdLink.FindAllStringSubmatch(stripCode(string(text)), -1) {
			target := m[1]
			if strings.Contains(target, "://") || strings.HasPrefix(target, "mailto:") {
				continue
			}
			path, anchor, _ := strings.Cut(target, "#")
			file := f
			if path != "" {
				file = filepath.Join(filepath.Dir(f), path)
				if _, err := os.Stat(file); err != nil {
					t.Errorf("%s: link %q: %v", f, target, err)
					continue
				}
			}
			if anchor != "" && strings.HasSuffix(file, ".md") && !anchors(t, file)[anchor] {
				t.Errorf("%s: link %q: %s has no heading #%s", f, target, file, anchor)
			}
		}
	}
}

// TestDocsDescribeTheSoftware: the README stays a product's (at most 300
// lines) and no page is a diary.
func TestDocsDescribeTheSoftware(t *testing.T) {
	readme, err := os.ReadFile("../README.md")
	if err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(string(readme), "\n"); n > 300 {
		t.Errorf("README.md has %d lines; keep it under 300 and move reference material to docs/", n)
	}
	for _, f := range docFiles(t) {
		text, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		if i := strings.Index(strings.ToLower(string(text)), narrationWord); i >= 0 {
			t.Errorf("%s: %q: docs describe the software as it is; the history of the work is in git", f, string(text)[max(0, i-40):min(len(text), i+20)])
		}
	}
}

// narrationWord is a word that narrates the work rather than describing
// the software; spelled in two parts so that a search of the tree for it
// does not find this check.
const narrationWord = "sit" + "ting"
