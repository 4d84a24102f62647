package assertions

import (
	"errors"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/loadgate/loadgate/scenarios"
)

var update = flag.Bool("update", false, "rewrite the expected diagnostics of testdata/rules/*.err")

// TestRulesCorpus loads every scenario of testdata/rules, which the
// scenarios package accepts, and compiles its thresholds: the diagnostics
// must be those expected beside the file. Run with -update to rewrite
// them after a deliberate change, then review the diff.
func TestRulesCorpus(t *testing.T) {
	files, _ := filepath.Glob(filepath.Join("testdata", "rules", "*.yaml"))
	if len(files) == 0 {
		t.Fatal("no scenario in testdata/rules; is the corpus missing?")
	}
	for _, file := range files {
		name := strings.TrimSuffix(filepath.Base(file), ".yaml")
		t.Run(name, func(t *testing.T) {
			sc, err := scenarios.Load(file, scenarios.LoadOptions{})
			if err != nil {
				t.Fatalf("the scenario does not load, so its rules are never compiled: %v", err)
			}
			_, err = Compile(sc)
			var list scenarios.ErrorList
			if !errors.As(err, &list) {
				t.Fatalf("Compile = %v; want a scenarios.ErrorList", err)
			}
			var b strings.Builder
			for _, e := range list {
				p := e.Pos
				p.File = filepath.Base(p.File)
				b.WriteString((&scenarios.Error{Pos: p, Msg: e.Msg}).Error() + "\n")
			}
			golden := strings.TrimSuffix(file, ".yaml") + ".err"
			if *update {
				if err := os.WriteFile(golden, []byte(b.String()), 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			want, err := os.ReadFile(golden)
			if err != nil {
				t.Fatalf("%v (run go test -update to create it)", err)
			}
			if diff := cmp.Diff(string(want), b.String()); diff != "" {
				t.Errorf("diagnostics differ from %s (-want +got):\n%s", golden, diff)
			}
		})
	}
}
