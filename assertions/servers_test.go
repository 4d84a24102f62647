package assertions

import (
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/loadgate/loadgate/results"
	"github.com/loadgate/loadgate/scenarios"
)

// serversScenario is testScenario whose servers are an application and
// its database, both entries of monitors:.
func serversScenario(ths ...scenarios.Threshold) *scenarios.Scenario {
	sc := testScenario(ths...)
	sc.Monitors = []scenarios.NamedMonitor{{Name: "app", Monitor: scenarios.Monitor{PID: 1}}, {Name: "db", Monitor: scenarios.Monitor{PID: 2}}}
	return sc
}

func TestCompileServers(t *testing.T) {
	for _, tc := range []struct {
		name string
		sc   *scenarios.Scenario
		rule string
		want string
	}{
		{"a misspelt server", serversScenario(), "servers.dbb.cpu < 80", `load.yaml:2:13: invalid rule: unknown server "dbb" (known: app, db)`},
		{"no server watched", testScenario(), "servers.db.cpu < 80", `load.yaml:2:13: invalid rule: unknown server "db": the scenario watches no server (start one with server:, or name processes under monitors:)`},
		{"a percentage of CPU", serversScenario(), "servers.db.cpu_max < 80%", "load.yaml:2:26: invalid rule: servers.db.cpu_max is in percent of one core (250 means two and a half cores busy), not a fraction, so 80% would mean 0.8; write 80 for 80 percent"},
		{"an unknown figure", serversScenario(), "servers.db.cpus < 80", `load.yaml:2:16: invalid rule: unknown field "cpus" (known: cpu, cpu_max, cpu_per_request, rss, rss_max, rss_pct, rss_max_pct)`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tc.sc.Thresholds = []scenarios.Threshold{at(2, 5, tc.rule)}
			_, err := Compile(tc.sc)
			if err == nil {
				t.Fatalf("compiled; want %q", tc.want)
			}
			if diff := cmp.Diff(tc.want, err.Error()); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}

func TestJudgeServers(t *testing.T) {
	rules, err := Compile(serversScenario(
		at(2, 5, "servers.db.cpu_max < 80 && servers.db.rss_max < 2GiB"),
		at(3, 5, "servers.app.cpu < 150"),
		at(4, 5, "servers.db.cpu_per_request < 100"),
		at(5, 5, "all(values(servers), .rss_max < 1GiB)"),
	))
	if err != nil {
		t.Fatal(err)
	}
	steady := func() *results.PhaseResult {
		return phase("steady", false, time.Second, load{latency: time.Millisecond, n: 100})
	}
	cost := 40.0
	app := results.Usage{PID: 1, Samples: 5, CPUMean: 120, CPUMax: 140, RSSMean: 50 << 20, RSSMax: 60 << 20}
	db := results.Usage{PID: 2, Samples: 5, CPUMean: 30, CPUMax: 95, RSSMean: 1 << 30, RSSMax: 1536 << 20, CPUPerRequestUS: &cost}
	idle := results.Usage{PID: 2, Samples: 5, CPUMean: 3, CPUMax: 5, RSSMean: 100 << 20, RSSMax: 110 << 20}
	gone := results.Usage{PID: 2, Reason: "process 2 is gone"}
	withServers := func(c *results.CaseResult, others ...results.NamedUsage) *results.CaseResult {
		c.Server, c.ServerName, c.Servers = &app, "app", others
		return c
	}
	res := &results.ScenarioResult{Cases: []*results.CaseResult{
		withServers(caseOf("web", 1, steady()), results.NamedUsage{Name: "db", Usage: db}),
		withServers(caseOf("web", 2, steady()), results.NamedUsage{Name: "db", Usage: idle}),
		withServers(caseOf("web", 3, steady()), results.NamedUsage{Name: "db", Usage: gone}),
		withServers(caseOf("web", 4, steady())),
	}}
	want := []brief{
		{Case: "web concurrency=1", Rule: "servers.db.cpu_max < 80 && servers.db.rss_max < 2GiB", Status: results.StatusFail, Actual: "servers.db.cpu_max = 95, servers.db.rss_max = 1.5GiB"},
		{Case: "web concurrency=1", Rule: "servers.app.cpu < 150", Status: results.StatusPass, Actual: "servers.app.cpu = 120"},
		{Case: "web concurrency=1", Rule: "servers.db.cpu_per_request < 100", Status: results.StatusPass, Actual: "servers.db.cpu_per_request = 40"},
		{Case: "web concurrency=1", Rule: "all(values(servers), .rss_max < 1GiB)", Status: results.StatusFail},

		{Case: "web concurrency=2", Rule: "servers.db.cpu_max < 80 && servers.db.rss_max < 2GiB", Status: results.StatusPass, Actual: "servers.db.cpu_max = 5, servers.db.rss_max = 110MiB"},
		{Case: "web concurrency=2", Rule: "servers.app.cpu < 150", Status: results.StatusPass, Actual: "servers.app.cpu = 120"},
		{Case: "web concurrency=2", Rule: "servers.db.cpu_per_request < 100", Status: results.StatusSkip, Reason: "servers.db: " + ReasonNoCost},
		{Case: "web concurrency=2", Rule: "all(values(servers), .rss_max < 1GiB)", Status: results.StatusPass},

		{Case: "web concurrency=3", Rule: "servers.db.cpu_max < 80 && servers.db.rss_max < 2GiB", Status: results.StatusSkip, Reason: "servers.db: " + ReasonNoSample + ": process 2 is gone"},
		{Case: "web concurrency=3", Rule: "servers.app.cpu < 150", Status: results.StatusPass, Actual: "servers.app.cpu = 120"},
		{Case: "web concurrency=3", Rule: "servers.db.cpu_per_request < 100", Status: results.StatusSkip, Reason: "servers.db: " + ReasonNoSample + ": process 2 is gone"},
		{Case: "web concurrency=3", Rule: "all(values(servers), .rss_max < 1GiB)", Status: results.StatusSkip, Reason: "servers.db: " + ReasonNoSample + ": process 2 is gone"},

		{Case: "web concurrency=4", Rule: "servers.db.cpu_max < 80 && servers.db.rss_max < 2GiB", Status: results.StatusSkip, Reason: `no server named "db" is watched in this case`},
		{Case: "web concurrency=4", Rule: "servers.app.cpu < 150", Status: results.StatusPass, Actual: "servers.app.cpu = 120"},
		{Case: "web concurrency=4", Rule: "servers.db.cpu_per_request < 100", Status: results.StatusSkip, Reason: `no server named "db" is watched in this case`},
		{Case: "web concurrency=4", Rule: "all(values(servers), .rss_max < 1GiB)", Status: results.StatusPass},
	}
	if diff := cmp.Diff(want, briefs(rules.Judge(res, JudgeOptions{}))); diff != "" {
		t.Errorf("verdicts (-want +got):\n%s", diff)
	}
}
