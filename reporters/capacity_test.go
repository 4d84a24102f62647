package reporters

import (
	"bytes"
	"math"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/loadgate/loadgate/assertions"
	"github.com/loadgate/loadgate/assertions/regression"
	"github.com/loadgate/loadgate/results"
)

func TestCapacityReportsGolden(t *testing.T) {
	run := capacityRun()
	var md, junit, js, con bytes.Buffer
	if err := WriteMarkdown(&md, run); err != nil {
		t.Fatal(err)
	}
	if err := WriteJUnit(&junit, run); err != nil {
		t.Fatal(err)
	}
	if err := results.WriteJSON(&js, run); err != nil {
		t.Fatal(err)
	}
	c := NewConsole(&con, ConsoleOptions{})
	capRes, capVerdicts := capacityResult()
	c.Summary(capRes, capVerdicts)
	abRes, abVerdicts := abortResult()
	c.Summary(abRes, abVerdicts)
	golden(t, "capacity.golden.md", md.Bytes())
	golden(t, "capacity-junit.golden.xml", junit.Bytes())
	golden(t, "capacity-results.golden.json", js.Bytes())
	golden(t, "capacity-console.golden.txt", con.Bytes())
	xmllint(t, junit.Bytes())

	for _, tc := range []struct {
		report, out string
		want        []string
	}{
		{"markdown", md.String(), []string{
			// The generator-limited search makes the run invalid (SPEC
			// §14), which the headline says before the abort.
			"## ⚠ loadgate: invalid — not judged",
			"| capacity (rps) |",
			"| 4,875 |",
			"≥ 9,600 (generator-limited, invalid)",
			"🎯 **capacity: 4,875 rps (bracket 4,875–5,000, precision 5%)**",
			"⛔ **capacity ≥ 9,600 rps (limited by the generator) — INVALID**",
			"| 4 | grow | 8,000 | 6,120.4 | 90.0ms | 812.0ms | 1.32% | ❌ p99 = 812ms, error_rate = 1.3% |",
			"| 5 | grow | 19,200 | 12,040.5 | 2.00ms | 9.00ms | 0.00% | ⚠️ generator saturated: generator CPU 98%, send lag p99 41ms |",
			"    line [50.00, 50.00, 50.00, 50.00, 50.00, 50.00, 50.00, 50.00, 50.00, 50.00, 50.00]",
			"> ⛔ **Aborted** at 3.2s into phase `measured` of case `checkout`: `p99 < 50ms` failed over the last 10s: p99 = 812ms.",
			"> - hello-capacity / edge: phase capacity: the generator limited the capacity search: capacity ≥ 9,600/s",
		}},
		{"console", con.String(), []string{
			"Capacity search (phase capacity; SLO: p99 < 50ms && error_rate < 0.1%)",
			"capacity: 4,875 rps (bracket 4,875–5,000, precision 5%)",
			"capacity ≥ 9,600 rps (limited by the generator) — INVALID",
			"✗ p99 = 61ms, error_rate = 0",
			"⛔ ABORTED at 3.2s into phase measured of case checkout: p99 < 50ms failed over the last 10s: p99 = 812ms.",
		}},
		{"junit", junit.String(), []string{
			`<failure message="aborted at 3.2s into phase measured of case checkout: p99 &lt; 50ms failed over the last 10s: p99 = 812ms" type="abort">`,
			`<property name="api.capacity" value="4875.00"></property>`,
			`<property name="api.capacity_limited_by_generator" value="false"></property>`,
			`<property name="api.probes" value="11"></property>`,
			`<property name="edge.capacity_at_least" value="9600.00"></property>`,
			`<property name="edge.capacity_limited_by_generator" value="true"></property>`,
		}},
		{"json", js.String(), []string{`"passed": false`, `"kind": "confirm"`, `"limited_by_generator": true`, `"at_ns": 3200000000`, `"window_ns": 10000000000`}},
	} {
		for _, w := range tc.want {
			if !strings.Contains(tc.out, w) {
				t.Errorf("%s report lacks %q", tc.report, w)
			}
		}
	}
	if strings.Contains(md.String(), "loadgate: passed") || strings.Contains(junit.String(), `property name="edge.capacity"`) {
		t.Error("an aborted run reads as passed, or a generator-limited search shows a capacity")
	}
	if n := strings.Count(junit.String(), `type="abort"`); n != 1 {
		t.Errorf("JUnit has %d abort failures, want 1 (on the aborting threshold's testcase)", n)
	}
}

func TestAbortedNeverPasses(t *testing.T) {
	ab, _ := abortResult()
	// Even when every verdict over what was measured passes, the abort
	// fails the run, and JUnit still fails the rule's testcase.
	run := results.NewRun(fixtureMeta(), []results.ScenarioInput{{Result: ab}})
	if run.Passed || run.Aborted() == nil {
		t.Fatalf("Passed = %v, Aborted = %v; want a failed, aborted run", run.Passed, run.Aborted())
	}
	var junit bytes.Buffer
	if err := WriteJUnit(&junit, run); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(junit.String(), `name="[checkout] p99 &lt; 50ms"`) || !strings.Contains(junit.String(), `type="abort"`) {
		t.Errorf("no abort testcase without a verdict:\n%s", junit.String())
	}
	xmllint(t, junit.Bytes())
	var js bytes.Buffer
	if err := results.WriteJSON(&js, run); err != nil {
		t.Fatal(err)
	}
	back, err := results.ReadRun(&js)
	if err != nil {
		t.Fatal(err)
	}
	if a := back.Aborted(); a == nil || a.At != abortAt.at || a.Window != abortAt.window || back.Passed {
		t.Errorf("round trip lost the abort: %+v, passed %v", a, back.Passed)
	}
}

func TestCapacityLine(t *testing.T) {
	for _, tc := range []struct {
		name      string
		s         results.SearchResult
		precision float64
		want      string
	}{
		{"found", results.SearchResult{Capacity: 4850, Pass: 4850, Fail: 5100}, 0.05, "capacity: 4,850 rps (bracket 4,850–5,100, precision 5%)"},
		{"no spec", results.SearchResult{Capacity: 4850, Pass: 4850, Fail: 5100}, 0, "capacity: 4,850 rps (bracket 4,850–5,100, within 5.2%)"},
		{"limited", results.SearchResult{Capacity: 9600, Pass: 9600, LimitedByGenerator: true}, 0.05, "capacity ≥ 9,600 rps (limited by the generator) — INVALID"},
		{"merged, not a number", results.SearchResult{LimitedByGenerator: true}, 0.05, "capacity: not a number (limited by the generator) — INVALID"},
		{"merged, a segment without a search", results.SearchResult{Reason: "segment 2 of 2 ran no search"}, 0.05, "capacity: not a number"},
		{"max met", results.SearchResult{Capacity: 200000, Pass: 200000}, 0.05, "capacity ≥ 200,000 rps (the search's max met the SLO)"},
		{"none", results.SearchResult{Probes: []results.Probe{{Rate: 1000}}}, 0.05, "capacity: none — the first rate (1,000 rps) already failed the SLO"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := capacityLine(&tc.s, tc.precision); got != tc.want {
				t.Errorf("got %q, want %q", got, tc.want)
			}
		})
	}
}

func TestSLOLine(t *testing.T) {
	for _, tc := range []struct {
		slo  string
		ms   float64
		want bool
	}{
		{"p99 < 50ms && error_rate < 0.1%", 50, true},
		{"error_rate < 1% && p99 <= 1.5s", 1500, true},
		{"latency.p99 < 250us", 0.25, true},
		{"p99 < 50ms || rps > 10", 0, false},   // a disjunction says no single bound
		{"!(p99 >= 50ms)", 0, false},           // negated: not read
		{"p95 < 50ms", 0, false},               // another metric
		{"p99 < threshold", 0, false},          // not a literal
		{"p99 < 50ms*2", 0, false},             // an expression
		{"error_rate < 0.1%", 0, false},        // no latency bound
		{"p99 > 50ms && p99 < 80ms", 80, true}, // the upper bound
	} {
		got, ok := sloLine(tc.slo)
		if ok != tc.want || math.Abs(got-tc.ms) > 1e-9 {
			t.Errorf("sloLine(%q) = %v, %v; want %v, %v", tc.slo, got, ok, tc.ms, tc.want)
		}
	}
}

func TestCompareCapacity(t *testing.T) {
	withCapacity := func(caps ...float64) *results.Run {
		run := capacityRun()
		// Without the generator-limited case: an invalid run is never compared.
		run.Scenarios[0].Cases = slices.DeleteFunc(run.Scenarios[0].Cases, func(c *results.CaseRun) bool { return c.Invalidity() != "" })
		p := run.Scenarios[0].Cases[0].Phases[0]
		p.Trials = nil
		for _, c := range caps {
			p.Trials = append(p.Trials, results.Trial{Capacity: c, Requests: 1000, Elapsed: time.Second, RPS: 1000})
		}
		return run
	}
	for _, tc := range []struct {
		name       string
		base, cand *results.Run
		want       regression.Status
		judged     bool
	}{
		{"lower capacity regressed", withCapacity(5000, 5010, 4990, 5005, 4995), withCapacity(4000, 4010, 3990, 4005, 3995), regression.Regressed, true},
		{"same capacity passes", withCapacity(5000, 5010, 4990, 5005, 4995), withCapacity(5002, 5008, 4992, 5003, 4997), regression.Pass, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c, err := assertions.Compare(tc.base, tc.cand, assertions.CompareOptions{Tolerance: 0.05, BaseName: "base.json", NewName: "new.json"})
			if err != nil {
				t.Fatal(err)
			}
			var got *regression.Status
			for _, sc := range c.Scenarios {
				for _, cc := range sc.Cases {
					for _, j := range cc.Judgements {
						if j.Metric == "capacity" && cc.ID == "api" {
							got = &j.Status
						}
						if j.Metric == "capacity" && cc.ID == "edge" {
							t.Error("a generator-limited capacity was judged")
						}
					}
				}
			}
			if got == nil || *got != tc.want {
				t.Fatalf("capacity judgement %v, want %v", got, tc.want)
			}
			var b bytes.Buffer
			if err := WriteCompare(&b, c); err != nil {
				t.Fatal(err)
			}
			if !strings.Contains(b.String(), "| capacity (rps) (median trial) | 5,000 |") {
				t.Errorf("no capacity row:\n%s", b.String())
			}
		})
	}
}
