package cli

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/loadgate/loadgate/internal/demoserver"
)

// interruptScenario warms up with exactly five requests, one at a time,
// then measures for up to a minute: request 1 falls in the warm-up and
// request 20 in the measured phase.
const interruptScenario = `version: 1
name: stopped
targets:
  - name: hello
    http: { url: "http://${host}/" }
phases:
  - { name: warm, warmup: true, requests: 5, concurrency: 1 }
  - { name: measured, duration: 60s, concurrency: 2 }
thresholds:
  - rps > 0
  - error_rate <= 1
`

// cancellingServer answers every request and cancels ctx when the n-th
// arrives: the interrupt lands at a known point of the run without any
// timer.
func cancellingServer(t *testing.T, n int64, cancel context.CancelFunc) *httptest.Server {
	t.Helper()
	var seen atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		if seen.Add(1) == n {
			cancel()
		}
		_, _ = w.Write([]byte("hello"))
	}))
	t.Cleanup(srv.Close)
	return srv
}

func TestInterruptedRunIsNotPassedAnywhereNorABaseline(t *testing.T) {
	path := writeScenario(t, interruptScenario)
	for _, tc := range []struct {
		name     string
		cancelAt int64
	}{
		{"in the warm-up", 1},
		{"in the measured phase", 20},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			srv := cancellingServer(t, tc.cancelAt, cancel)
			host := strings.TrimPrefix(srv.URL, "http://")
			out, tmp := t.TempDir(), t.TempDir()
			stepSummary := filepath.Join(tmp, "step-summary.md")
			gh := map[string]string{"GITHUB_ACTIONS": "true", "GITHUB_STEP_SUMMARY": stepSummary}
			r := invoke(t, ctx, gh, "run", "--no-progress", "-o", out, "--var", "host="+host, path)
			if r.code != ExitInterrupted {
				t.Fatalf("exit %d, want 130; stderr:\n%s", r.code, r.stderr)
			}

			var doc struct {
				Passed      *bool `json:"passed"`
				Interrupted bool  `json:"interrupted"`
			}
			readJSON(t, filepath.Join(out, "results.json"), &doc)
			if doc.Passed == nil || *doc.Passed || !doc.Interrupted {
				t.Errorf("results.json: passed %v, interrupted %v; want false, true", doc.Passed, doc.Interrupted)
			}
			md := readFile(t, filepath.Join(out, "summary.md"))
			if !strings.HasPrefix(md, "## ⏹ loadgate: interrupted — not judged\n") {
				t.Errorf("summary.md headline:\n%.300s", md)
			}
			if sum := readFile(t, stepSummary); strings.Contains(sum, "loadgate: passed") {
				t.Errorf("step summary says passed:\n%.300s", sum)
			}
			junit := readFile(t, filepath.Join(out, "junit.xml"))
			if !strings.Contains(junit, `<error message="run interrupted: partial results" type="interrupted">`) {
				t.Errorf("junit.xml has no interrupted <error>:\n%s", junit)
			}
			if !strings.Contains(r.stdout, "::error title=loadgate%3A interrupted::") {
				t.Errorf("no interrupted annotation in stdout:\n%s", r.stdout)
			}
			if !strings.Contains(r.stdout, "⏹ INTERRUPTED — not judged") {
				t.Errorf("console does not say the run was not judged:\n%s", r.stdout)
			}

			// As a baseline, alone or in a directory: refused before any
			// request is sent.
			interrupted := filepath.Join(out, "results.json")
			live := startServer(t, demoserver.Config{})
			for _, bl := range []string{interrupted, out} {
				before := live.Stats().Requests
				r := invoke(t, context.Background(), nil, "run", "--no-progress", "-o", "", "--baseline", bl,
					"--var", "host="+live.HTTPAddr(), path)
				want := "--baseline: " + interrupted + ": the run was interrupted; an interrupted run cannot be a baseline"
				if r.code != ExitUsage || !strings.Contains(r.stderr, want) {
					t.Errorf("--baseline %s: exit %d, want 2 with %q:\n%s", bl, r.code, want, r.stderr)
				}
				if sent := live.Stats().Requests - before; sent != 0 {
					t.Errorf("--baseline %s: %d requests sent despite the refusal", bl, sent)
				}
			}
			r = invoke(t, context.Background(), nil, "compare", interrupted, interrupted)
			if r.code != ExitUsage || !strings.Contains(r.stderr, "an interrupted run cannot be compared") {
				t.Errorf("compare: exit %d, want 2:\n%s", r.code, r.stderr)
			}
		})
	}
}

func readFile(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func readJSON(t *testing.T, path string, v any) {
	t.Helper()
	if err := json.Unmarshal([]byte(readFile(t, path)), v); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
}

// mutated writes a copy of the results document src with edit applied to
// its generic JSON form, the way a hand edit or a corrupted file would.
func mutated(t *testing.T, src, name string, edit func(doc map[string]any)) string {
	t.Helper()
	var doc map[string]any
	readJSON(t, src, &doc)
	edit(doc)
	b, err := json.Marshal(doc)
	if err != nil {
		t.Fatal(err)
	}
	dst := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(dst, b, 0o644); err != nil {
		t.Fatal(err)
	}
	return dst
}

// at walks a generic JSON document along keys and indexes.
func at(doc map[string]any, path ...any) map[string]any {
	var cur any = doc
	for _, p := range path {
		switch k := p.(type) {
		case string:
			cur = cur.(map[string]any)[k]
		case int:
			cur = cur.([]any)[k]
		}
	}
	return cur.(map[string]any)
}

func firstCase(doc map[string]any) map[string]any { return at(doc, "scenarios", 0, "cases", 0) }
func firstPhase(doc map[string]any) map[string]any {
	return at(doc, "scenarios", 0, "cases", 0, "phases", 0)
}

func TestCompareRefusesWhatIsNotComparable(t *testing.T) {
	srv := startServer(t, demoserver.Config{})
	path := writeScenario(t, quickScenario)
	r, dir := runGate(t, path, srv)
	if r.code != ExitOK {
		t.Fatalf("run: exit %d: %s", r.code, r.stderr)
	}
	good := filepath.Join(dir, "results.json")
	renamed := mutated(t, good, "other.json", func(d map[string]any) { at(d, "scenarios", 0)["name"] = "other" })
	otherTarget := mutated(t, good, "target.json", func(d map[string]any) { firstCase(d)["id"] = "elsewhere" })
	for _, tc := range []struct {
		name      string
		base, new string
		want      string
	}{
		{"different scenarios", good, renamed, `not comparable: different scenarios: ` + good + ` has "gate", ` + renamed + ` has "other"`},
		{"no case in common", good, otherTarget, `no case was measured in both`},
		{"negative requests", good, mutated(t, good, "neg.json", func(d map[string]any) { firstPhase(d)["requests"] = -100000 }),
			`phase "measured": requests is negative (-100000)`},
		{"absurd rps", good, mutated(t, good, "rps.json", func(d map[string]any) { at(firstCase(d), "stats")["rps"] = 1e308 }),
			`rps is 1e+308, beyond any measurable value`},
		{"counters that do not add up", good, mutated(t, good, "sum.json", func(d map[string]any) { firstPhase(d)["failed"] = 7 }),
			`succeeded 50 + failed 7 is not requests 50`},
		{"error rate above one", mutated(t, good, "er.json", func(d map[string]any) { at(firstCase(d), "stats")["error_rate"] = 2 }), good,
			`error_rate is 2, beyond any measurable value (at most 1)`},
		{"another schema", good, mutated(t, good, "schema.json", func(d map[string]any) { d["schema"] = 2 }),
			`results schema 2 is not supported`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := invoke(t, context.Background(), nil, "compare", tc.base, tc.new)
			if r.code != ExitUsage || !strings.Contains(r.stderr, tc.want) {
				t.Errorf("exit %d, want 2 with %q in stderr:\n%s", r.code, tc.want, r.stderr)
			}
			if strings.Contains(r.stdout, "no regression") {
				t.Errorf("stdout claims no regression:\n%s", r.stdout)
			}
		})
	}
}

func TestMergeRefusesInterruptedAndImpossibleParts(t *testing.T) {
	srv := startServer(t, demoserver.Config{})
	path := writeScenario(t, distributedScenario)
	dirs := runSegments(t, 2, path, srv.HTTPAddr())
	part2 := filepath.Join(dirs[1], "results.json")
	for _, tc := range []struct {
		name string
		edit func(map[string]any)
		want string
	}{
		{"negative requests", func(d map[string]any) { firstPhase(d)["requests"] = -100000 }, "requests is negative (-100000)"},
		{"invalid part: 300 of 30,000 due arrivals sent by a busy generator", func(d map[string]any) {
			p := firstPhase(d)
			p["rate"] = map[string]any{"from": 10000, "to": 10000}
			p["dropped"] = 29700
			p["generator"] = map[string]any{"cpu": 0.97}
			d["passed"] = false
		}, "(segment 2/2): the run is invalid (distributed / hello: phase measured: the generator sent 1.0 % of the requested 10,000/s (300 of 30,000 due arrivals); loadgate used 97% of its CPU); an invalid run cannot be merged"},
		{"succeeded + failed != requests", func(d map[string]any) { firstPhase(d)["succeeded"] = 1 }, "is not requests 300"},
		{"absurd rps", func(d map[string]any) { at(firstCase(d), "stats")["rps"] = 1e308 }, "rps is 1e+308"},
		{"negative error count", func(d map[string]any) { at(firstPhase(d), "errors")["reset"] = -1 }, "errors.reset is negative (-1)"},
		// A part passes unless it errored; its "passed" must say so.
		{"a part that errored, said to pass", func(d map[string]any) { firstCase(d)["error"] = "no request completed" },
			`results.json: "passed": true contradicts the "error" of case "hello" (no request completed)`},
		{"a part that passed, said to fail", func(d map[string]any) { d["passed"] = false },
			`results.json: "passed": false contradicts the document`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			bad := mutated(t, part2, "results.json", tc.edit)
			out := t.TempDir()
			r := invoke(t, context.Background(), nil, "merge", "-o", out, dirs[0], bad)
			if r.code != ExitUsage || !strings.Contains(r.stderr, tc.want) {
				t.Errorf("exit %d, want 2 with %q in stderr:\n%s", r.code, tc.want, r.stderr)
			}
			if _, err := os.Stat(filepath.Join(out, "results.json")); err == nil {
				t.Error("a refused merge wrote results")
			}
		})
	}
}
