package cli

import (
	"context"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/loadgate/loadgate/internal/demoserver"
)

// TestJUnitSourceAttrs checks that --junit-source-attrs (and its
// environment variable) reach both the junit.xml of --out and the file of
// --junit, and that without it neither has the attributes.
func TestJUnitSourceAttrs(t *testing.T) {
	srv := startServer(t, demoserver.Config{Delay: 5 * time.Millisecond})
	path := writeScenario(t, strings.Replace(basicScenario, "RULE", "p99 < 1ms", 1))
	tests := []struct {
		name  string
		flag  []string
		env   map[string]string
		attrs bool
	}{
		{"default", nil, nil, false},
		{"flag", []string{"--junit-source-attrs"}, nil, true},
		{"environment", nil, map[string]string{"LOADGATE_JUNIT_SOURCE_ATTRS": "true"}, true},
	}
	attr := regexp.MustCompile(`<testcase [^>]*file="` + regexp.QuoteMeta(path) + `" line="[1-9][0-9]*"`)
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out := t.TempDir()
			single := filepath.Join(t.TempDir(), "j.xml")
			args := append([]string{"run", "--no-progress", "-o", out, "--junit", single, "--var", "host=" + srv.HTTPAddr(), path}, tt.flag...)
			if r := invoke(t, context.Background(), tt.env, args...); r.code != ExitFailed {
				t.Fatalf("exit %d, want %d; stderr:\n%s", r.code, ExitFailed, r.stderr)
			}
			for _, f := range []string{filepath.Join(out, "junit.xml"), single} {
				data, err := os.ReadFile(f)
				if err != nil {
					t.Fatal(err)
				}
				if got := attr.Match(data); got != tt.attrs {
					t.Errorf("%s: file/line attributes %v, want %v:\n%s", f, got, tt.attrs, data)
				}
			}
		})
	}
}
