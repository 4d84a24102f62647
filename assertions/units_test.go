package assertions

import (
	"fmt"
	"testing"

	"github.com/loadgate/loadgate/scenarios"
	"github.com/loadgate/loadgate/units"
)

// TestScenarioAndRulesReadSizesAlike writes every size unit once as a
// scenario's max_body and once in a rule, and checks that both read the
// same number of bytes: the two must never disagree on a spelling again.
func TestScenarioAndRulesReadSizesAlike(t *testing.T) {
	for _, u := range units.SizeUnits {
		for _, num := range []string{"512", "1.5"} {
			lit := num + u.Name
			t.Run(lit, func(t *testing.T) {
				src := fmt.Sprintf(`version: 1
name: s
targets:
  - name: api
    http: { url: "http://127.0.0.1:1/", max_body: %s }
phases: [{ name: steady, duration: 1s, concurrency: 1 }]
thresholds:
  - bytes_received < %s
`, lit, lit)
				sc, err := scenarios.Parse("units.yaml", []byte(src), scenarios.LoadOptions{})
				if u.Bytes == 1 && num == "1.5" {
					if err == nil {
						t.Fatalf("max_body: %s loaded; half a byte must be refused", lit)
					}
					if _, rerr := rewrite("x < " + lit); rerr == nil {
						t.Fatalf("rule with %s compiled; half a byte must be refused", lit)
					}
					return
				}
				if err != nil {
					t.Fatal(err)
				}
				if _, err := Compile(sc); err != nil {
					t.Fatalf("rule with %s: %v", lit, err)
				}
				rw, rerr := rewrite(lit)
				if rerr != nil {
					t.Fatal(rerr)
				}
				want := fmt.Sprint(sc.Cases[0].Target.HTTP.MaxBody)
				if rw.Text != want {
					t.Errorf("scenario reads %s as %s bytes, a rule as %s", lit, want, rw.Text)
				}
			})
		}
	}
}
