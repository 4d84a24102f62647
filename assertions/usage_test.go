package assertions

import (
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/loadgate/loadgate/results"
)

// withUsage gives c a server usage, as the runner does when it started or
// monitored a server.
func withUsage(c *results.CaseResult, u *results.Usage) *results.CaseResult {
	c.Server = u
	return c
}

func TestJudgeServerUsage(t *testing.T) {
	rules := mustCompile(t,
		at(2, 5, "server.cpu < 80 && server.cpu_max < 200"),
		at(3, 5, "server.rss_max < 512MiB && server.rss > 1MiB"),
		at(4, 5, "host.load1 < 4 && host.cpu < 50"),
		at(5, 5, "rps > 0"),
	)
	steady := func() *results.PhaseResult {
		return phase("steady", false, time.Second, load{latency: time.Millisecond, n: 100})
	}
	res := &results.ScenarioResult{Cases: []*results.CaseResult{
		withUsage(caseOf("web", 1, steady()), &results.Usage{
			PID: 4242, Samples: 10, CPUMean: 45.2, CPUMax: 98, RSSMean: 10 << 20, RSSMax: 12_900_000,
			HostLoad1Max: 1.2, HostCPUMean: 30,
		}),
		// A busy server: two and a half cores, in percent of one core.
		withUsage(caseOf("web", 2, steady()), &results.Usage{
			PID: 4242, Samples: 10, CPUMean: 250, CPUMax: 390, RSSMean: 600 << 20, RSSMax: 700 << 20,
			HostLoad1Max: 6.5, HostCPUMean: 80,
		}),
		// Only the host was sampled: server figures are zeros, not measurements.
		withUsage(caseOf("web", 3, steady()), &results.Usage{Samples: 10, HostLoad1Max: 0.5, HostCPUMean: 10}),
		caseOf("web", 4, steady()),
	}}
	want := []brief{
		{Case: "web concurrency=1", Rule: "server.cpu < 80 && server.cpu_max < 200", Status: results.StatusPass, Actual: "server.cpu = 45.2, server.cpu_max = 98"},
		{Case: "web concurrency=1", Rule: "server.rss_max < 512MiB && server.rss > 1MiB", Status: results.StatusPass, Actual: "server.rss_max = 12.3MiB, server.rss = 10MiB"},
		{Case: "web concurrency=1", Rule: "host.load1 < 4 && host.cpu < 50", Status: results.StatusPass, Actual: "host.load1 = 1.2, host.cpu = 30"},
		{Case: "web concurrency=1", Rule: "rps > 0", Status: results.StatusPass, Actual: "rps = 100"},

		{Case: "web concurrency=2", Rule: "server.cpu < 80 && server.cpu_max < 200", Status: results.StatusFail, Actual: "server.cpu = 250, server.cpu_max = 390"},
		{Case: "web concurrency=2", Rule: "server.rss_max < 512MiB && server.rss > 1MiB", Status: results.StatusFail, Actual: "server.rss_max = 700MiB, server.rss = 600MiB"},
		{Case: "web concurrency=2", Rule: "host.load1 < 4 && host.cpu < 50", Status: results.StatusFail, Actual: "host.load1 = 6.5, host.cpu = 80"},
		{Case: "web concurrency=2", Rule: "rps > 0", Status: results.StatusPass, Actual: "rps = 100"},

		{Case: "web concurrency=3", Rule: "server.cpu < 80 && server.cpu_max < 200", Status: results.StatusSkip, Reason: ReasonNoServer},
		{Case: "web concurrency=3", Rule: "server.rss_max < 512MiB && server.rss > 1MiB", Status: results.StatusSkip, Reason: ReasonNoServer},
		{Case: "web concurrency=3", Rule: "host.load1 < 4 && host.cpu < 50", Status: results.StatusPass, Actual: "host.load1 = 0.5, host.cpu = 10"},
		{Case: "web concurrency=3", Rule: "rps > 0", Status: results.StatusPass, Actual: "rps = 100"},

		{Case: "web concurrency=4", Rule: "server.cpu < 80 && server.cpu_max < 200", Status: results.StatusSkip, Reason: ReasonNoServer},
		{Case: "web concurrency=4", Rule: "server.rss_max < 512MiB && server.rss > 1MiB", Status: results.StatusSkip, Reason: ReasonNoServer},
		{Case: "web concurrency=4", Rule: "host.load1 < 4 && host.cpu < 50", Status: results.StatusSkip, Reason: ReasonNoServer},
		{Case: "web concurrency=4", Rule: "rps > 0", Status: results.StatusPass, Actual: "rps = 100"},
	}
	got := rules.Judge(res, JudgeOptions{})
	if diff := cmp.Diff(want, briefs(got)); diff != "" {
		t.Errorf("verdicts (-want +got):\n%s", diff)
	}
	for _, v := range got {
		if v.Status == results.StatusSkip && v.Fails() {
			t.Errorf("%s on %s: a skipped rule fails the run", v.Rule, v.Case)
		}
	}
}

func TestJudgeBaselineServerUsage(t *testing.T) {
	ths := at(2, 5, "server.rss_max < baseline.server.rss_max * 1.2")
	base := caseOf("web", 10, trialRun("steady", time.Millisecond, 1000))
	cand := withUsage(caseOf("web", 10, trialRun("steady", time.Millisecond, 1000)),
		&results.Usage{PID: 7, Samples: 5, RSSMean: 90 << 20, RSSMax: 100 << 20})

	// A baseline case without usage: the comparison is skipped, not
	// judged against a zero.
	vs := judgeAgainst(t, base, cand, JudgeOptions{}, ths)
	if vs[0].Status != results.StatusSkip || vs[0].Reason != ReasonNoBaselineServer {
		t.Errorf("baseline without usage: %s %q, want skip %q", vs[0].Status, vs[0].Reason, ReasonNoBaselineServer)
	}

	// The candidate's own usage is missing: that skip comes first.
	cand.Server = nil
	vs = judgeAgainst(t, base, cand, JudgeOptions{}, ths)
	if vs[0].Status != results.StatusSkip || vs[0].Reason != ReasonNoServer {
		t.Errorf("candidate without usage: %s %q, want skip %q", vs[0].Status, vs[0].Reason, ReasonNoServer)
	}
}
