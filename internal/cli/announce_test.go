package cli

import (
	"os"
	"path/filepath"
	"testing"
)

// TestOutputsLine: demo's last line names every report it wrote, with
// absolute paths whatever was given, and says so when it wrote none.
func TestOutputsLine(t *testing.T) {
	wd, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	const all = "results.json, junit.xml, summary.md, report.html"
	tests := []struct {
		name string
		opts runOptions
		want string
	}{
		{"the default directory, made absolute", runOptions{out: "loadgate-results"},
			"loadgate demo: reports in " + filepath.Join(wd, "loadgate-results") + ": " + all},
		{"an absolute directory", runOptions{out: "/tmp/x"}, "loadgate demo: reports in /tmp/x: " + all},
		{"a directory and files of their own", runOptions{out: "/tmp/x", html: "r.html", junit: "/ci/junit.xml"},
			"loadgate demo: reports in /tmp/x: " + all + "; also /ci/junit.xml, " + filepath.Join(wd, "r.html")},
		{"files only", runOptions{markdown: "/tmp/s.md", json: "/tmp/r.json"}, "loadgate demo: reports: /tmp/s.md, /tmp/r.json"},
		{"a report on stdout", runOptions{out: "/tmp/x", json: "-"}, "loadgate demo: reports in /tmp/x: " + all + "; --json on stdout"},
		{"nothing", runOptions{}, `loadgate demo: no report written (--out "")`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tt.opts.announce = "demo"
			if got := tt.opts.outputsLine(); got != tt.want {
				t.Errorf("outputsLine() =\n%s\nwant\n%s", got, tt.want)
			}
		})
	}
}
