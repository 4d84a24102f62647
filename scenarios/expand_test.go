package scenarios

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestExpand(t *testing.T) {
	dir := t.TempDir()
	for _, name := range []string{"b.yaml", "a.yml", "c.txt", "sub/d.yaml", "sub/deeper/e.yaml", "empty/.keep"} {
		path := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, nil, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	p := func(name string) string { return filepath.Join(dir, name) }
	tests := []struct {
		name    string
		args    []string
		want    []string
		wantErr []string // substrings, one per failing argument
	}{
		{"a directory: its yaml files, sorted, not recursive", []string{dir}, []string{p("a.yml"), p("b.yaml")}, nil},
		{"a file of any extension stands for itself", []string{p("c.txt")}, []string{p("c.txt")}, nil},
		{"arguments keep their order", []string{p("sub"), p("b.yaml")}, []string{p("sub/d.yaml"), p("b.yaml")}, nil},
		{"a path listed twice is kept once", []string{p("b.yaml"), dir}, []string{p("b.yaml"), p("a.yml")}, nil},
		{"a glob", []string{p("*.yaml")}, []string{p("b.yaml")}, nil},
		{"a glob matching a directory expands it", []string{p("su*")}, []string{p("sub/d.yaml")}, nil},
		{"a glob's empty directories are skipped", []string{p("*y")}, nil, []string{"matches no scenario file"}},
		{"a missing file", []string{p("nope.yaml")}, nil, []string{"nope.yaml: no such file or directory"}},
		{"a glob that matches nothing", []string{p("*.json")}, nil, []string{"*.json: no file matches"}},
		{"an explicit empty directory", []string{p("empty")}, nil, []string{"empty: directory holds no *.yaml or *.yml file"}},
		{"a malformed glob", []string{p("[")}, nil, []string{"syntax error in pattern"}},
		{"every failing argument is reported", []string{p("x.yaml"), dir, p("y.yaml")}, nil,
			[]string{"x.yaml: no such file", "y.yaml: no such file"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := Expand(tc.args)
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("paths (-want +got):\n%s", diff)
			}
			if (err != nil) != (tc.wantErr != nil) {
				t.Fatalf("err = %v, want errors containing %q", err, tc.wantErr)
			}
			for _, w := range tc.wantErr {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("err = %v, want it to contain %q", err, w)
				}
			}
		})
	}
}
