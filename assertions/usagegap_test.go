package assertions

import (
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/loadgate/loadgate/results"
)

// TestRulesOnMissingSamples: a monitor that sampled nothing, or whose
// process exited during the case, gives no figures a rule could pass or
// fail on; neither does a host whose RAM is unknown for rss_pct. Each
// such rule is skipped with the reason, and a rule that reads none of
// them is judged as usual.
func TestRulesOnMissingSamples(t *testing.T) {
	rules := mustCompile(t,
		at(2, 5, "server.rss_max > 1MiB"),
		at(3, 5, "server.rss_pct < 50 && server.rss_max_pct < 60"),
		at(4, 5, "host.load1 < 4"),
		at(5, 5, "rps > 0"),
	)
	steady := func() *results.PhaseResult {
		return phase("steady", false, time.Second, load{latency: time.Millisecond, n: 100})
	}
	res := &results.ScenarioResult{Cases: []*results.CaseResult{
		// Gone before the case started: not one sample.
		withUsage(caseOf("web", 1, steady()), &results.Usage{PID: 4242, Reason: "process 4242 is gone"}),
		// Killed during the case: the first samples only.
		withUsage(caseOf("web", 2, steady()), &results.Usage{PID: 4242, Samples: 3, RSSMax: 5 << 20,
			HostMemTotal: 1 << 30, RSSPct: 0.4, RSSMaxPct: 0.5, HostLoad1Max: 1, Exited: true, Reason: "process 4242 exited"}),
		// Sampled throughout on a host whose RAM is known.
		withUsage(caseOf("web", 3, steady()), &results.Usage{PID: 4242, Samples: 3, RSSMax: 5 << 20,
			HostMemTotal: 1 << 30, RSSPct: 0.25, RSSMaxPct: 0.5, HostLoad1Max: 1}),
		// Sampled throughout, RAM unknown (not Linux).
		withUsage(caseOf("web", 4, steady()), &results.Usage{PID: 4242, Samples: 3, RSSMax: 5 << 20, HostLoad1Max: 1}),
	}}
	noSample := "no sample of the server: process 4242 is gone"
	exited := "process 4242 exited during the case, so its figures cover only part of it"
	want := []brief{
		{Case: "web concurrency=1", Rule: "server.rss_max > 1MiB", Status: results.StatusSkip, Reason: noSample},
		{Case: "web concurrency=1", Rule: "server.rss_pct < 50 && server.rss_max_pct < 60", Status: results.StatusSkip, Reason: noSample},
		{Case: "web concurrency=1", Rule: "host.load1 < 4", Status: results.StatusSkip, Reason: noSample},
		{Case: "web concurrency=1", Rule: "rps > 0", Status: results.StatusPass, Actual: "rps = 100"},

		{Case: "web concurrency=2", Rule: "server.rss_max > 1MiB", Status: results.StatusSkip, Reason: exited},
		{Case: "web concurrency=2", Rule: "server.rss_pct < 50 && server.rss_max_pct < 60", Status: results.StatusSkip, Reason: exited},
		{Case: "web concurrency=2", Rule: "host.load1 < 4", Status: results.StatusPass, Actual: "host.load1 = 1"},
		{Case: "web concurrency=2", Rule: "rps > 0", Status: results.StatusPass, Actual: "rps = 100"},

		{Case: "web concurrency=3", Rule: "server.rss_max > 1MiB", Status: results.StatusPass, Actual: "server.rss_max = 5MiB"},
		{Case: "web concurrency=3", Rule: "server.rss_pct < 50 && server.rss_max_pct < 60", Status: results.StatusPass, Actual: "server.rss_pct = 0.25, server.rss_max_pct = 0.5"},
		{Case: "web concurrency=3", Rule: "host.load1 < 4", Status: results.StatusPass, Actual: "host.load1 = 1"},
		{Case: "web concurrency=3", Rule: "rps > 0", Status: results.StatusPass, Actual: "rps = 100"},

		{Case: "web concurrency=4", Rule: "server.rss_max > 1MiB", Status: results.StatusPass, Actual: "server.rss_max = 5MiB"},
		{Case: "web concurrency=4", Rule: "server.rss_pct < 50 && server.rss_max_pct < 60", Status: results.StatusSkip, Reason: ReasonNoHostMemory},
		{Case: "web concurrency=4", Rule: "host.load1 < 4", Status: results.StatusPass, Actual: "host.load1 = 1"},
		{Case: "web concurrency=4", Rule: "rps > 0", Status: results.StatusPass, Actual: "rps = 100"},
	}
	got := rules.Judge(res, JudgeOptions{})
	if diff := cmp.Diff(want, briefs(got)); diff != "" {
		t.Errorf("verdicts (-want +got):\n%s", diff)
	}
}

// TestBaselineShareOfRAM: baseline.server.rss_pct needs the baseline's
// host RAM, not only the candidate's.
func TestBaselineShareOfRAM(t *testing.T) {
	ths := at(2, 5, "server.rss_pct < baseline.server.rss_pct * 1.2")
	base := withUsage(caseOf("web", 10, trialRun("steady", time.Millisecond, 1000)),
		&results.Usage{PID: 6, Samples: 5, RSSMean: 90 << 20, RSSMax: 100 << 20})
	cand := withUsage(caseOf("web", 10, trialRun("steady", time.Millisecond, 1000)),
		&results.Usage{PID: 7, Samples: 5, RSSMean: 90 << 20, RSSMax: 100 << 20, HostMemTotal: 1 << 30, RSSPct: 8.8, RSSMaxPct: 9.8})
	vs := judgeAgainst(t, base, cand, JudgeOptions{}, ths)
	if vs[0].Status != results.StatusSkip || vs[0].Reason != ReasonNoBaselineServer {
		t.Errorf("baseline without the host's RAM: %s %q, want skip %q", vs[0].Status, vs[0].Reason, ReasonNoBaselineServer)
	}
}

func TestShareOfRAMIsInPercent(t *testing.T) {
	_, err := Compile(testScenario(at(2, 5, "server.rss_pct < 50%")))
	want := "load.yaml:2:22: invalid rule: server.rss_pct is in percent of the host's RAM (0 to 100), not a fraction, so 50% would mean 0.5; write 50 for 50 percent"
	if err == nil || err.Error() != want {
		t.Errorf("Compile = %v\nwant %s", err, want)
	}
}

// TestRuleOnCPUPerRequest: server.cpu_per_request is judged on the
// figure, and skipped, never judged on a 0, on a case without one.
func TestRuleOnCPUPerRequest(t *testing.T) {
	rules := mustCompile(t, at(2, 5, "server.cpu_per_request < 200"))
	steady := func() *results.PhaseResult {
		return phase("steady", false, time.Second, load{latency: time.Millisecond, n: 100})
	}
	cost := func(us float64) *float64 { return &us }
	res := &results.ScenarioResult{Cases: []*results.CaseResult{
		withUsage(caseOf("web", 1, steady()), &results.Usage{PID: 7, Samples: 3, CPUMean: 10, Window: 2, CPUPerRequestUS: cost(150)}),
		withUsage(caseOf("web", 2, steady()), &results.Usage{PID: 7, Samples: 3, CPUMean: 10, Window: 2, CPUPerRequestUS: cost(250)}),
		// Sampled once: no CPU, so no cost.
		withUsage(caseOf("web", 3, steady()), &results.Usage{PID: 7, Samples: 1}),
	}}
	want := []brief{
		{Case: "web concurrency=1", Rule: "server.cpu_per_request < 200", Status: results.StatusPass, Actual: "server.cpu_per_request = 150"},
		{Case: "web concurrency=2", Rule: "server.cpu_per_request < 200", Status: results.StatusFail, Actual: "server.cpu_per_request = 250"},
		{Case: "web concurrency=3", Rule: "server.cpu_per_request < 200", Status: results.StatusSkip, Reason: ReasonNoCost},
	}
	got := rules.Judge(res, JudgeOptions{})
	if diff := cmp.Diff(want, briefs(got)); diff != "" {
		t.Errorf("verdicts (-want +got):\n%s", diff)
	}
}

// TestBaselineCPUPerRequest: baseline.server.cpu_per_request is compared
// when the baseline has the figure, and skips the rule when it has none.
func TestBaselineCPUPerRequest(t *testing.T) {
	ths := at(2, 5, "server.cpu_per_request < baseline.server.cpu_per_request * 1.2")
	cost := func(us float64) *float64 { return &us }
	usage := func(pid int, us *float64) *results.Usage {
		return &results.Usage{PID: pid, Samples: 5, CPUMean: 50, Window: 4, CPUPerRequestUS: us}
	}
	for _, tc := range []struct {
		name       string
		base, cand *float64
		want       results.Status
	}{
		{"cheaper", cost(100), cost(110), results.StatusPass},
		{"dearer", cost(100), cost(130), results.StatusFail},
		{"baseline without the figure", nil, cost(110), results.StatusSkip},
	} {
		t.Run(tc.name, func(t *testing.T) {
			base := withUsage(caseOf("web", 10, trialRun("steady", time.Millisecond, 1000)), usage(6, tc.base))
			cand := withUsage(caseOf("web", 10, trialRun("steady", time.Millisecond, 1000)), usage(7, tc.cand))
			vs := judgeAgainst(t, base, cand, JudgeOptions{}, ths)
			if vs[0].Status != tc.want {
				t.Errorf("%s (%s), want %s", vs[0].Status, vs[0].Reason, tc.want)
			}
		})
	}
}
