package cli

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/loadgate/loadgate/internal/demoserver"
	"github.com/loadgate/loadgate/results"
)

// TestChangedLoadIsNotBlamedOnTheCode edits only the concurrency of the
// gate scenario between the baseline and the candidate: a quarter of the
// workers gives about a quarter of the rps, which the code did not cause.
// The comparison must name the change and exit 0, or 1 under
// --fail-on-inconclusive; a threshold-only edit must still be judged.
func TestChangedLoadIsNotBlamedOnTheCode(t *testing.T) {
	srv := startServer(t, demoserver.Config{Delay: 2 * time.Millisecond})
	four := strings.Replace(gateScenario, "LOAD", "concurrency: 4", 1)
	baseFile, _ := firstGateRun(t, writeScenario(t, four), srv)

	one := writeScenario(t, strings.Replace(four, "concurrency: 4, trials", "concurrency: 1, trials", 1))
	for _, tc := range []struct {
		flags []string
		code  int
	}{
		{nil, ExitOK},
		{[]string{"--fail-on-inconclusive"}, ExitFailed},
	} {
		r, dir := runGate(t, one, srv, append([]string{"--baseline", baseFile}, tc.flags...)...)
		if r.code != tc.code {
			t.Fatalf("%v: exit %d, want %d\n%s\n%s", tc.flags, r.code, tc.code, r.stdout, r.stderr)
		}
		vs := verdictsByRule(t, readRun(t, filepath.Join(dir, "results.json")))
		const reason = results.ReasonIncomparable + "concurrency 4 → 1"
		for _, rule := range []string{`!regressed("rps", 5%)`, `!regressed("p50", 10%)`, "p99 < baseline.p99 * 1.2"} {
			if v := vs[rule]; v.Status != results.StatusIncomparable || v.Reason != reason {
				t.Errorf("%v %s: %s %q, want incomparable %q", tc.flags, rule, v.Status, v.Reason, reason)
			}
		}
		md, err := os.ReadFile(filepath.Join(dir, "summary.md"))
		if err != nil {
			t.Fatal(err)
		}
		headline := "loadgate: passed · ⚠ 3 undecided (incomparable 3)"
		if tc.code == ExitFailed {
			headline = "loadgate: failed · ⚠ 3 undecided (incomparable 3), failing the run by --fail-on-inconclusive"
		}
		for doc, text := range map[string]string{"console": r.stdout, "summary.md": string(md)} {
			for _, w := range []string{headline, "concurrency 4 → 1"} {
				if !strings.Contains(text, w) {
					t.Errorf("%v: %s lacks %q:\n%s", tc.flags, doc, w, text)
				}
			}
			if strings.Contains(text, "significant") {
				t.Errorf("%v: %s judged a comparison of another load:\n%s", tc.flags, doc, text)
			}
		}
	}

	// Editing a threshold keeps the load: the comparison is made.
	edited := writeScenario(t, strings.Replace(four, "p99 < baseline.p99 * 1.2", "p99 < baseline.p99 * 1.5", 1))
	_, dir := runGate(t, edited, srv, "--baseline", baseFile)
	for rule, v := range verdictsByRule(t, readRun(t, filepath.Join(dir, "results.json"))) {
		if v.Status == results.StatusIncomparable || v.Status == results.StatusSkip {
			t.Errorf("threshold-only edit, %s: %s %q", rule, v.Status, v.Reason)
		}
	}

	// compare sees the same change in the two files.
	candRun, candDir := runGate(t, one, srv)
	if candRun.code != ExitOK {
		t.Fatalf("candidate without a baseline: exit %d\n%s", candRun.code, candRun.stderr)
	}
	c := invoke(t, context.Background(), nil, "compare", baseFile, filepath.Join(candDir, "results.json"))
	if c.code != ExitOK || !strings.Contains(c.stdout, "Not compared: the load changed** (concurrency 4 → 1)") ||
		strings.Contains(c.stdout, "❌") {
		t.Errorf("compare of two loads: exit %d\n%s\n%s", c.code, c.stdout, c.stderr)
	}
}
