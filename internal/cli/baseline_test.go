package cli

import (
	"context"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/loadgate/loadgate/assertions"
	"github.com/loadgate/loadgate/assertions/regression"
	"github.com/loadgate/loadgate/internal/demoserver"
	"github.com/loadgate/loadgate/reporters"
	"github.com/loadgate/loadgate/results"
)

// gateScenario runs five 300 ms trials of LOAD, enough for the rank test
// to reach p < 0.05 when a difference is real. Every request waits the
// server's fixed delay, so the delay, not the noise of a shared machine,
// sets the figures; the warm-up opens the connections, so the first trial
// pays for no handshakes.
const gateScenario = `version: 1
name: gate
targets:
  - name: hello
    http: { url: "http://${host}/" }
phases:
  - { name: warm, warmup: true, requests: 100, concurrency: 4 }
  - { name: measured, duration: 300ms, LOAD, trials: 5 }
thresholds:
  - '!regressed("rps", 5%)'
  - '!regressed("p50", 10%)'
  - { rule: 'p99 < baseline.p99 * 1.2', severity: warn }
`

// runGate runs a scenario against srv with results in a new directory and
// returns the invocation and that directory.
func runGate(t *testing.T, scenario string, srv *demoserver.Server, extra ...string) (invocation, string) {
	t.Helper()
	out := t.TempDir()
	args := append([]string{"run", "--no-progress", "-o", out, "--var", "host=" + srv.HTTPAddr()}, extra...)
	r := invoke(t, context.Background(), nil, append(args, scenario)...)
	return r, out
}

func readRun(t *testing.T, path string) *results.Run {
	t.Helper()
	run, err := results.ReadRunFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return run
}

// verdictsByRule maps each rule of the run's first case to its verdict.
func verdictsByRule(t *testing.T, run *results.Run) map[string]results.Verdict {
	t.Helper()
	out := map[string]results.Verdict{}
	for _, v := range run.Scenarios[0].Cases[0].Verdicts {
		out[v.Rule] = v
	}
	return out
}

// logTrials reports the medians the judgement compared and the rank
// test's p-value, computed even where the judgement needed none.
func logTrials(t *testing.T, label string, base, cand *results.Run) {
	t.Helper()
	bt := results.TrialsOf(base.Scenarios[0].Cases[0].Phases)
	ct := results.TrialsOf(cand.Scenarios[0].Cases[0].Phases)
	for _, m := range []string{"rps", "p50"} {
		j, err := assertions.JudgeRegression(m, bt, nil, ct, 0)
		if err != nil {
			t.Fatal(err)
		}
		xs := func(ts []results.Trial) []float64 {
			out := make([]float64, len(ts))
			for i, tr := range ts {
				if m == "rps" {
					out[i] = tr.RPS
				} else {
					out[i] = float64(tr.P50)
				}
			}
			return out
		}
		p := regression.MannWhitneyU(xs(bt), xs(ct)).P
		if m == "rps" {
			t.Logf("%s: rps median %.1f → %.1f (%+.1f%%), p = %.3f, %d vs %d trials", label, j.Base, j.Cand, 100*j.Change, p, len(bt), len(ct))
		} else {
			t.Logf("%s: p50 median %v → %v (%+.1f%%), p = %.3f", label, time.Duration(j.Base), time.Duration(j.Cand), 100*j.Change, p)
		}
	}
}

// firstGateRun runs the gate scenario without a baseline, checks that it
// skips every comparison, and returns its results file.
func firstGateRun(t *testing.T, path string, srv *demoserver.Server) (string, *results.Run) {
	t.Helper()
	r, dir := runGate(t, path, srv)
	if r.code != ExitOK {
		t.Fatalf("first run: exit %d\n%s\n%s", r.code, r.stdout, r.stderr)
	}
	file := filepath.Join(dir, "results.json")
	base := readRun(t, file)
	for rule, v := range verdictsByRule(t, base) {
		if v.Status != results.StatusSkip || v.Reason != assertions.ReasonNoBaseline {
			t.Errorf("without a baseline, %s: %s %q", rule, v.Status, v.Reason)
		}
	}
	return file, base
}

// TestBaselineAA measures one server twice. The trials may fail to tell
// (inconclusive), but the same server must never be called a regression.
// The load is open-model: a fixed arrival rate makes rps what the server
// sustains. Closed-model rps also measures how much CPU the load generator
// got, and on a shared machine that changes between two runs a few seconds
// apart by more than 5 %, significantly: a real difference, but the
// machine's, not the server's.
func TestBaselineAA(t *testing.T) {
	// A server slow enough that a busy machine's scheduling noise (a few
	// milliseconds) stays well inside p50's 10% tolerance, paced at a rate
	// the generator keeps whatever else runs.
	srv := startServer(t, demoserver.Config{Delay: 50 * time.Millisecond})
	path := writeScenario(t, strings.Replace(gateScenario, "LOAD", "rate: 200, max_in_flight: 64", 1))
	baseFile, base := firstGateRun(t, path, srv)

	r, dir := runGate(t, path, srv, "--baseline", baseFile)
	cand := readRun(t, filepath.Join(dir, "results.json"))
	logTrials(t, "A/A", base, cand)
	vs := verdictsByRule(t, cand)
	for _, rule := range []string{`!regressed("rps", 5%)`, `!regressed("p50", 10%)`} {
		v := vs[rule]
		t.Logf("A/A %s: %s — %s", rule, v.Status, v.Reason)
		if v.Status != results.StatusPass && v.Status != results.StatusInconclusive {
			t.Errorf("A/A %s: %s (%s)", rule, v.Status, v.Reason)
		}
	}
	if r.code != ExitOK {
		t.Errorf("A/A: exit %d, want 0\n%s", r.code, r.stderr)
	}
	if v := vs["p99 < baseline.p99 * 1.2"]; (v.Status != results.StatusPass && v.Status != results.StatusFail) ||
		!strings.Contains(v.Actual, "baseline.p99 = ") {
		t.Errorf("baseline.p99 rule: %s, actual %q, reason %q", v.Status, v.Actual, v.Reason)
	}
	if cb := cand.Scenarios[0].Cases[0].Baseline; cb == nil || cb.File != baseFile || cb.Trials != 5 {
		t.Errorf("case baseline in results.json: %+v", cb)
	}
	if bi := cand.Baseline; bi == nil || !bi.FingerprintMatch || bi.File != baseFile {
		t.Errorf("run baseline in results.json: %+v", bi)
	}
	if !strings.Contains(r.stdout, "Baseline: "+baseFile+", measured in the same environment.") {
		t.Errorf("console does not name the baseline:\n%s", r.stdout)
	}

	// compare on two real measurements judges p99 too, which a busy machine
	// moves significantly between two runs; the same measurements on both
	// sides must never be a regression, whatever the machine.
	c := invoke(t, context.Background(), nil, "compare", baseFile, baseFile)
	if c.code != ExitOK || strings.Contains(c.stdout, "❌") {
		t.Errorf("compare A/A: exit %d\n%s\n%s", c.code, c.stdout, c.stderr)
	}
}

// TestBaselineAB adds 2 ms to a 1 ms delay: p50 about triples, and with
// two closed-model workers rps drops to about a third, far beyond both the
// tolerances and the machine's noise.
func TestBaselineAB(t *testing.T) {
	path := writeScenario(t, strings.Replace(gateScenario, "LOAD", "concurrency: 2", 1))
	baseFile, base := firstGateRun(t, path, startServer(t, demoserver.Config{Delay: time.Millisecond}))

	// Twenty times slower: a gap no neighbour's CPU burst can close, so
	// every trial of B is worse than every trial of A.
	srvB := startServer(t, demoserver.Config{Delay: 20 * time.Millisecond})
	r, dir := runGate(t, path, srvB, "--baseline", baseFile)
	candFile := filepath.Join(dir, "results.json")
	cand := readRun(t, candFile)
	logTrials(t, "A/B", base, cand)
	if r.code != ExitFailed {
		t.Fatalf("A/B: exit %d, want 1\n%s\n%s", r.code, r.stdout, r.stderr)
	}
	v := verdictsByRule(t, cand)[`!regressed("p50", 10%)`]
	t.Logf("A/B p50: %s — %s", v.Status, v.Reason)
	if v.Status != results.StatusFail || !strings.HasPrefix(v.Reason, "p50 ") ||
		!strings.Contains(v.Reason, "higher, beyond the 10.0% tolerance and significant") {
		t.Errorf("A/B p50 verdict: %s %q", v.Status, v.Reason)
	}
	if !strings.Contains(r.stdout, "✗ FAIL") || !strings.Contains(r.stdout, v.Reason) {
		t.Errorf("console threshold table lacks the failing judgement:\n%s", r.stdout)
	}
	md, _ := os.ReadFile(filepath.Join(dir, "summary.md"))
	if !strings.Contains(string(md), "Δ vs baseline") || !strings.Contains(string(md), "| ❌ |") {
		t.Errorf("summary.md lacks the Δ column or the regressed verdict:\n%s", md)
	}
	junit, _ := os.ReadFile(filepath.Join(dir, "junit.xml"))
	if !strings.Contains(string(junit), `<failure message="expected !regressed(&#34;p50&#34;, 10%), actual p50 = `) {
		t.Errorf("junit.xml lacks the regression failure:\n%s", junit)
	}

	out := filepath.Join(t.TempDir(), "compare.md")
	c := invoke(t, context.Background(), nil, "compare", "--out", out, baseFile, candFile)
	if c.code != ExitFailed || !strings.Contains(c.stderr, "regressed") {
		t.Fatalf("compare A/B: exit %d, want 1\n%s\n%s", c.code, c.stdout, c.stderr)
	}
	got, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"## ❌ loadgate compare: regressed", "#### `hello`", "| p50 (median trial) |", "| p90 |", "| max |",
		"| error rate (median trial) |", "| dropped |", "| trials | 5 | 5 |", "| ❌ | p50 ", "| ❌ | rps ", "tolerance 5.0%"} {
		if !strings.Contains(string(got), want) {
			t.Errorf("compare output lacks %q:\n%s", want, got)
		}
	}
}

// quickScenario is a small run whose baseline rule passes against any run
// of itself, for tests about finding and describing the baseline.
const quickScenario = `version: 1
name: gate
targets:
  - name: ${tname:-hello}
    http: { url: "http://${host}/" }
phases:
  - { name: measured, requests: 50, concurrency: 2 }
thresholds:
  - rps > 0
  - { name: compared, rule: 'baseline.requests == requests' }
`

func TestBaselineFingerprintMismatch(t *testing.T) {
	srv := startServer(t, demoserver.Config{})
	path := writeScenario(t, quickScenario)
	r0, dir0 := runGate(t, path, srv)
	if r0.code != ExitOK {
		t.Fatalf("exit %d: %s", r0.code, r0.stderr)
	}
	// The same results, as if measured on another machine.
	var doc map[string]any
	data, _ := os.ReadFile(filepath.Join(dir0, "results.json"))
	if err := json.Unmarshal(data, &doc); err != nil {
		t.Fatal(err)
	}
	doc["host"].(map[string]any)["cpu_model"] = "Imaginary CPU 9000"
	edited := filepath.Join(t.TempDir(), "other-machine.json")
	data, _ = json.Marshal(doc)
	if err := os.WriteFile(edited, data, 0o644); err != nil {
		t.Fatal(err)
	}

	r, dir := runGate(t, path, srv, "--baseline", edited)
	if r.code != ExitOK {
		t.Fatalf("a different environment alone must not fail the run: exit %d\n%s", r.code, r.stderr)
	}
	if !strings.Contains(r.stdout, `WARNING: the baseline was measured in a different environment (cpu_model: baseline "Imaginary CPU 9000", this run `) {
		t.Errorf("console does not flag the environment:\n%s", r.stdout)
	}
	run := readRun(t, filepath.Join(dir, "results.json"))
	if bi := run.Baseline; bi == nil || bi.FingerprintMatch || len(bi.Differences) != 1 || !strings.HasPrefix(bi.Differences[0], "cpu_model: ") {
		t.Errorf("results.json baseline: %+v", run.Baseline)
	}
	if v := verdictsByRule(t, run)["baseline.requests == requests"]; v.Status != results.StatusPass {
		t.Errorf("the comparison is still made: %+v", v)
	}
	md, _ := os.ReadFile(filepath.Join(dir, "summary.md"))
	if !strings.Contains(string(md), "> ⚠️ **Baseline from a different environment**") {
		t.Errorf("summary.md has no warning banner:\n%s", md)
	}
	junit, _ := os.ReadFile(filepath.Join(dir, "junit.xml"))
	for _, want := range []string{`<property name="baseline.fingerprint_match" value="false">`, "BASELINE FROM A DIFFERENT ENVIRONMENT"} {
		if !strings.Contains(string(junit), want) {
			t.Errorf("junit.xml lacks %q", want)
		}
	}

	strict, dir := runGate(t, path, srv, "--baseline", edited, "--strict-env")
	if strict.code != ExitFailed || !strings.Contains(strict.stderr, "--strict-env: the baseline "+edited+" was measured in a different environment (cpu_model: ") {
		t.Errorf("--strict-env: exit %d, want 1 with a clear message\n%s", strict.code, strict.stderr)
	}
	if readRun(t, filepath.Join(dir, "results.json")).Passed {
		t.Error("--strict-env: results.json says passed")
	}
	junit, _ = os.ReadFile(filepath.Join(dir, "junit.xml"))
	if !strings.Contains(string(junit), `<testcase name="baseline environment"`) {
		t.Errorf("--strict-env: junit.xml has no failing environment testcase:\n%s", junit)
	}
	env := invoke(t, context.Background(), map[string]string{"LOADGATE_BASELINE": edited, "LOADGATE_STRICT_ENV": "true"},
		"run", "--no-progress", "-o", "", "--var", "host="+srv.HTTPAddr(), path)
	if env.code != ExitFailed {
		t.Errorf("LOADGATE_BASELINE + LOADGATE_STRICT_ENV: exit %d, want 1", env.code)
	}
}

func TestBaselineDirectoryNewestFirst(t *testing.T) {
	srv := startServer(t, demoserver.Config{})
	path := writeScenario(t, quickScenario)
	_, dir0 := runGate(t, path, srv)
	run := readRun(t, filepath.Join(dir0, "results.json"))

	// Two copies a day apart; the newer is first in no alphabet.
	bdir := t.TempDir()
	newer, older := filepath.Join(bdir, "x-newer.json"), filepath.Join(bdir, "a-older.json")
	for _, f := range []struct {
		path string
		end  time.Time
	}{{newer, run.End}, {older, run.End.Add(-24 * time.Hour)}} {
		run.End = f.end
		if err := reporters.WriteFileAtomic(f.path, func(w io.Writer) error { return results.WriteJSON(w, run) }); err != nil {
			t.Fatal(err)
		}
	}
	r, dir := runGate(t, path, srv, "--baseline", bdir)
	if r.code != ExitOK {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	got := readRun(t, filepath.Join(dir, "results.json"))
	if cb := got.Scenarios[0].Cases[0].Baseline; cb == nil || cb.File != newer {
		t.Errorf("case baseline from %+v, want %s", cb, newer)
	}
	if bi := got.Baseline; bi == nil || bi.File != bdir || !slices.Equal(bi.Files, []string{newer, older}) {
		t.Errorf("run baseline: %+v", got.Baseline)
	}

	// A case the baseline does not have is skipped, not failed.
	r, dir = runGate(t, path, srv, "--baseline", bdir, "--var", "tname=other")
	if r.code != ExitOK {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	if v := verdictsByRule(t, readRun(t, filepath.Join(dir, "results.json")))["baseline.requests == requests"]; v.Status != results.StatusSkip ||
		v.Reason != assertions.ReasonNoBaselineCase {
		t.Errorf("unmatched case: %s %q", v.Status, v.Reason)
	}
}

func TestBaselineAndCompareBadInput(t *testing.T) {
	srv := startServer(t, demoserver.Config{})
	path := writeScenario(t, quickScenario)
	tmp := t.TempDir()
	write := func(name, body string) string {
		p := filepath.Join(tmp, name)
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	future := write("future.json", `{"schema": 99}`)
	notJSON := write("notes.json", "hello")
	emptyDir := filepath.Join(tmp, "empty")
	if err := os.Mkdir(emptyDir, 0o755); err != nil {
		t.Fatal(err)
	}
	_, dir := runGate(t, path, srv)
	good := filepath.Join(dir, "results.json")
	// The good run with its first histogram replaced by one of 1 µs to 10 h
	// holding a sample of 2 h, which loadgate's histograms cannot keep.
	data, err := os.ReadFile(good)
	if err != nil {
		t.Fatal(err)
	}
	wideHist := regexp.MustCompile(`"latency": "HIST[^"]*"`)
	if !wideHist.Match(data) {
		t.Fatal("no latency histogram in results.json")
	}
	wide := write("wide.json", wideHist.ReplaceAllLiteralString(string(data),
		`"latency": "HISTFAAAAC142pJpmSzMwMDAxgABzFCakYGBgSPxSAaD/QeIACfT7V9MTIAAAAD//2ttBfk="`))
	const wideErr = "wide.json: decode results: histogram of 1 µs to 36000000000 µs at 3 significant digits has 1 of its 2 samples beyond"

	for _, tc := range []struct {
		name string
		args []string
		want string
	}{
		{"missing baseline", []string{"run", "--baseline", filepath.Join(tmp, "nope.json"), path}, "--baseline: "},
		{"unknown schema", []string{"run", "--baseline", future, path}, "results schema 99 is not supported"},
		{"empty directory", []string{"run", "--baseline", emptyDir, path}, "no results files"},
		{"compare one file", []string{"compare", good}, "want two results files"},
		{"compare missing file", []string{"compare", good, filepath.Join(tmp, "nope.json")}, "no such file"},
		{"compare unknown schema", []string{"compare", future, good}, "results schema 99 is not supported"},
		{"compare not JSON", []string{"compare", good, notJSON}, "not valid JSON"},
		{"compare bare tolerance", []string{"compare", "--tolerance", "5", good, good}, "write 5% for 5 percent"},
		{"baseline losing samples", []string{"run", "--baseline", wide, path}, wideErr},
		{"compare losing samples", []string{"compare", good, wide}, wideErr},
		{"merge losing samples", []string{"merge", "-o", t.TempDir(), wide, good}, wideErr},
		{"report losing samples", []string{"report", wide}, wideErr},
	} {
		t.Run(tc.name, func(t *testing.T) {
			args := tc.args
			if args[0] == "run" {
				args = append([]string{"run", "--no-progress", "-o", "", "--var", "host=" + srv.HTTPAddr()}, args[1:]...)
			}
			r := invoke(t, context.Background(), nil, args...)
			if r.code != ExitUsage || !strings.Contains(r.stderr, tc.want) {
				t.Errorf("exit %d, want 2 with %q in stderr:\n%s", r.code, tc.want, r.stderr)
			}
		})
	}
	before := srv.Stats().Requests
	invoke(t, context.Background(), nil, "run", "--no-progress", "-o", "", "--baseline", future, "--var", "host="+srv.HTTPAddr(), path)
	if after := srv.Stats().Requests; after != before {
		t.Errorf("a bad baseline still sent %d requests", after-before)
	}

	// The same file against itself: nothing regressed, exit 0, stdout.
	r := invoke(t, context.Background(), nil, "compare", "--tolerance", "10%", good, good)
	if r.code != ExitOK || !strings.Contains(r.stdout, "## ✅ loadgate compare: no regression") || !strings.Contains(r.stdout, "tolerance 10.0%") {
		t.Errorf("compare a file with itself: exit %d\n%s\n%s", r.code, r.stdout, r.stderr)
	}
}
