package assertions

import (
	"errors"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/loadgate/loadgate/scenarios"
	"github.com/loadgate/loadgate/units"
)

// The scenario loader and Compile together: every position below was
// counted by hand in this file's text, so it checks that RulePos and the
// offsets inside rules add up to what an editor shows.
const positionsYAML = `version: 1
name: positions
matrix:
  concurrency: [1, 10]
targets:
  - name: api
    http:
      requests:
        - { name: login, url: "http://127.0.0.1:1/login" }
phases:
  - { name: steady, duration: 1s, concurrency: 1 }
thresholds:
  - p99 < 50xs
  - rule: 'p98 < 1ms'
  - { rule: "rps >= \"a\"", severity: warn }
  - p99 < 50ms && error_rate < 1% && rsp > 10
  - '  rps + 1'
  - requests_by_name["logon"].p99 < 1s
  - matrix.concurrency < 100 || p99 < 1s
`

func TestCompileLoadedScenario(t *testing.T) {
	sc, err := scenarios.Parse("positions.yaml", []byte(positionsYAML), scenarios.LoadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	_, err = Compile(sc)
	var list scenarios.ErrorList
	if !errors.As(err, &list) {
		t.Fatalf("want a scenarios.ErrorList, got %v", err)
	}
	var got []string
	for _, e := range list {
		got = append(got, e.Error())
	}
	want := []string{
		// `  - p99 < 50xs`: the rule starts at column 5, 50xs at 11.
		`positions.yaml:13:11: invalid rule: unknown unit "xs" in 50xs (` + units.Hint + ")",
		// `  - rule: 'p98 < 1ms'`: the quote is column 11, the rule 12.
		`positions.yaml:14:12: invalid rule: unknown name "p98"; write p(98) for any percentile`,
		// `  - { rule: "rps >= \"a\"", ...`: the rule at 14, >= at 18.
		`positions.yaml:15:18: invalid rule: invalid operation: >= (mismatched types float64 and string)`,
		// The typo after two rewritten literals, at the column shown.
		`positions.yaml:16:38: invalid rule: unknown name "rsp"; did you mean rps?`,
		// A whole rule that is not a condition: its first character,
		// which is a space inside the quotes at column 6.
		`positions.yaml:17:6: invalid rule: a threshold must be a condition (true or false), but this rule is a float64`,
		// The misspelt request name's opening quote.
		`positions.yaml:18:22: invalid rule: unknown request name "logon" (known: login)`,
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("errors (-want +got):\n%s", diff)
	}
}
