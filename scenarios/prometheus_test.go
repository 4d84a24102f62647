package scenarios

import (
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// The corpus's file of prometheus monitors, one per form; its entry lives
// here, beside the forms' other tests.
func init() {
	okChecks["monitor-prometheus"] = func(t *testing.T, s *Scenario) {
		f := s.File
		want := map[string]*Monitor{
			"db": {Pos: Pos{f, 11, 5}, Prometheus: &Prometheus{URL: "http://127.0.0.1:9090",
				CPU:      `sum(rate(node_cpu_seconds_total{job="node",instance="db.internal:9100",mode!~"idle|iowait"}[15s]))*100`,
				RSS:      `sum(node_memory_MemTotal_bytes{job="node",instance="db.internal:9100"} - node_memory_MemAvailable_bytes{job="node",instance="db.internal:9100"})`,
				Lookback: 15 * time.Second, Step: time.Second, Settle: 2 * time.Second, Name: "db.internal:9100"}},
			"web": {Pos: Pos{f, 15, 5}, Prometheus: &Prometheus{URL: "http://127.0.0.1:9090",
				CPU:      `sum(rate(namedprocess_namegroup_cpu_seconds_total{groupname="nginx",instance="web1:9256",env="prod"}[30s]))*100`,
				RSS:      `sum(namedprocess_namegroup_memory_bytes{groupname="nginx",instance="web1:9256",env="prod",memtype="resident"})`,
				Lookback: 30 * time.Second, Step: 2 * time.Second, Settle: 5 * time.Second, Name: "nginx"}},
			"own": {Pos: Pos{f, 26, 5}, Prometheus: &Prometheus{URL: "https://prom.example.test/prometheus",
				CPU:      `sum(rate(container_cpu_usage_seconds_total{pod="api"}[1m])) * 100`,
				RSS:      `sum(container_memory_working_set_bytes{pod="api"})`,
				Lookback: time.Minute, Step: time.Second, Settle: 2 * time.Second, Name: "prometheus"}},
		}
		if len(s.Cases) != len(want) {
			t.Fatalf("%d cases, want %d", len(s.Cases), len(want))
		}
		for _, c := range s.Cases {
			if diff := cmp.Diff(want[c.Target.Name], c.Target.Monitor); diff != "" {
				t.Errorf("case %s: monitor (-want +got):\n%s", c.ID, diff)
			}
		}
	}
}

// promScenario is a scenario whose monitor is the prometheus block given,
// inline on line 3.
func promScenario(block string) string {
	return "version: 1\nname: s\nmonitor: { prometheus: " + block + " }\n" +
		"targets:\n  - name: t\n    http: { url: \"http://127.0.0.1:1/\" }\nphases:\n  - { name: m, duration: 1s }\n"
}

func TestPrometheusForms(t *testing.T) {
	for _, tc := range []struct {
		name  string
		block string
		want  Prometheus
	}{
		{
			name:  "queries of one's own, with the lookback of the longest range",
			block: `{ url: "http://127.0.0.1:9090", cpu: 'sum(rate(x_cpu[30s]))*100', rss: 'max_over_time(x_rss[1m:5s])' }`,
			want: Prometheus{URL: "http://127.0.0.1:9090", CPU: "sum(rate(x_cpu[30s]))*100", RSS: "max_over_time(x_rss[1m:5s])",
				Lookback: time.Minute, Step: time.Second, Settle: 2 * time.Second, Name: "prometheus"},
		},
		{
			name:  "a gauge has no lookback",
			block: `{ url: "https://prom.example:9090/prefix", cpu: 'cpu_pct{a="]"}', rss: 'rss_bytes', step: 5s, settle: 0s }`,
			want: Prometheus{URL: "https://prom.example:9090/prefix", CPU: `cpu_pct{a="]"}`, RSS: "rss_bytes",
				Step: 5 * time.Second, Name: "prometheus"},
		},
		{
			name:  "node_exporter's figures of a host",
			block: `{ url: "http://127.0.0.1:9090", job: node, instance: 'db:9100' }`,
			want: Prometheus{URL: "http://127.0.0.1:9090",
				CPU:      `sum(rate(node_cpu_seconds_total{job="node",instance="db:9100",mode!~"idle|iowait"}[15s]))*100`,
				RSS:      `sum(node_memory_MemTotal_bytes{job="node",instance="db:9100"} - node_memory_MemAvailable_bytes{job="node",instance="db:9100"})`,
				Lookback: 15 * time.Second, Step: time.Second, Settle: 2 * time.Second, Name: "db:9100"},
		},
		{
			name:  "process-exporter's of a group, narrowed by labels, with a window",
			block: `{ url: "http://127.0.0.1:9090", groupname: nginx, labels: { instance_kind: 'a"b', zone: z1 }, window: 1500ms }`,
			want: Prometheus{URL: "http://127.0.0.1:9090",
				CPU:      `sum(rate(namedprocess_namegroup_cpu_seconds_total{groupname="nginx",instance_kind="a\"b",zone="z1"}[1500ms]))*100`,
				RSS:      `sum(namedprocess_namegroup_memory_bytes{groupname="nginx",instance_kind="a\"b",zone="z1",memtype="resident"})`,
				Lookback: 1500 * time.Millisecond, Step: time.Second, Settle: 2 * time.Second, Name: "nginx"},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := mustParse(t, promScenario(tc.block), LoadOptions{})
			if s.Monitor == nil || s.Monitor.Prometheus == nil {
				t.Fatalf("monitor = %+v, want a prometheus one", s.Monitor)
			}
			if s.Monitor.PID != 0 || s.Monitor.Process != nil {
				t.Errorf("monitor = %+v: a prometheus one names no local process", s.Monitor)
			}
			if diff := cmp.Diff(tc.want, *s.Monitor.Prometheus); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}

func TestPrometheusErrors(t *testing.T) {
	const url = `url: "http://127.0.0.1:9090", `
	for _, tc := range []struct {
		name, block, want string
	}{
		{"no url", `{ instance: 'h:9100' }`, "s.yaml:3:24: prometheus: missing required field \"url\"\n"},
		{"not http", `{ url: "ftp://h:21", instance: 'h:9100' }`, "s.yaml:3:31: url: expected an absolute http:// or https:// URL, got \"ftp://h:21\"\n"},
		{"a query string", `{ url: "http://h:9090/?x=1", instance: 'h:9100' }`, "s.yaml:3:31: url: the Prometheus server's address takes no query or fragment, got \"http://h:9090/?x=1\"\n"},
		{"no form", `{ ` + url + `step: 1s }`, "s.yaml:3:24: prometheus: needs cpu and rss (queries of your own), instance (a whole host, from node_exporter) or groupname (a process group, from process-exporter)\n"},
		{"job alone", `{ ` + url + `job: node }`, "s.yaml:3:56: prometheus: needs cpu and rss (queries of your own), instance (a whole host, from node_exporter) or groupname (a process group, from process-exporter)\n"},
		{"cpu without rss", `{ ` + url + `cpu: 'up' }`, "s.yaml:3:56: cpu: needs rss beside it: write both queries, or neither and instance or groupname for the default ones\n"},
		{"queries and a default query's field", `{ ` + url + `cpu: 'a', rss: 'b', instance: 'h:1' }`,
			"s.yaml:3:76: instance: shapes the default queries only, and cpu and rss are written out; put it into them instead\n"},
		{"an unclosed bracket", `{ ` + url + `cpu: 'sum(rate(x[1m])', rss: 'b' }`, "s.yaml:3:65: cpu: the ( opened here is not closed\n"},
		{"a bracket closing another", `{ ` + url + `cpu: 'rate(x[1m)]', rss: 'b' }`, "s.yaml:3:71: cpu: ) here does not close the [ opened before it\n"},
		{"an unclosed string", `{ ` + url + `cpu: 'a', rss: 'x{a="b}' }`, "s.yaml:3:76: rss: the string opened here is not closed\n"},
		{"an empty query", `{ ` + url + `cpu: ' ', rss: 'b' }`, "s.yaml:3:61: cpu: must not be empty\n"},
		{"an empty instance", `{ ` + url + `instance: '' }`, "s.yaml:3:66: instance: must not be empty; it would match series without the label\n"},
		{"a label of the default queries", `{ ` + url + `groupname: g, labels: { memtype: swapped } }`, "s.yaml:3:80: labels: memtype is set by its own field or by the default queries\n"},
		{"a label name PromQL refuses", `{ ` + url + `groupname: g, labels: { 9x: a } }`, "s.yaml:3:80: labels: \"9x\" is not a label name a query can match (letters, digits and _, not starting with a digit or __)\n"},
		{"a window too short", `{ ` + url + `instance: 'h:1', window: 500ms }`, "s.yaml:3:81: window: must be at least 1s, to hold two scrapes; got 500ms\n"},
		{"a zero step", `{ ` + url + `instance: 'h:1', step: 0s }`, "s.yaml:3:79: step: must be greater than 0\n"},
		{"a settle too long", `{ ` + url + `instance: 'h:1', settle: 10m }`, "s.yaml:3:81: settle: must be at most 5m0s, got 10m0s\n"},
		{"an unknown field", `{ ` + url + `instance: 'h:1', query: x }`, "s.yaml:3:73: unknown field \"query\" in prometheus\n"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if diff := cmp.Diff(tc.want, diagnostics(t, promScenario(tc.block), LoadOptions{})); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}

// TestPrometheusExcludesALocalProcess: a monitor watches one thing.
func TestPrometheusExcludesALocalProcess(t *testing.T) {
	src := "version: 1\nname: s\nmonitor:\n  pid: 1\n  prometheus: { url: 'http://127.0.0.1:9090', instance: 'h:1' }\n" +
		"targets:\n  - name: t\n    http: { url: \"http://127.0.0.1:1/\" }\nphases:\n  - { name: m, duration: 1s }\n"
	want := "s.yaml:5:3: prometheus and pid are exclusive: prometheus reads a server's figures from Prometheus, pid watches a process on this host\n"
	if diff := cmp.Diff(want, diagnostics(t, src, LoadOptions{})); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}

func TestCheckPromQL(t *testing.T) {
	for _, tc := range []struct {
		q        string
		lookback time.Duration
		off      int
		bad      bool
	}{
		{q: `up`},
		{q: `rate(a[5m]) + rate(b[1h30m])`, lookback: 90 * time.Minute},
		{q: `max_over_time(rate(a[1m])[2d:1h])`, lookback: 48 * time.Hour},
		{q: "sum(x) # a comment with ( and \"\n", lookback: 0},
		{q: "a{b=`x)`}"},
		{q: `a{b="x\"("}`},
		{q: `a[$__rate_interval]`},
		{q: `a[99999999999y]`},
		{q: `a[5m`, off: 1, bad: true},
		{q: `a)`, off: 1, bad: true},
		{q: `a{b='c}`, off: 4, bad: true},
	} {
		back, off, msg := checkPromQL(tc.q)
		if (msg != "") != tc.bad || back != tc.lookback || (tc.bad && off != tc.off) {
			t.Errorf("checkPromQL(%q) = %v, %d, %q; want lookback %v, bad %v at %d", tc.q, back, off, msg, tc.lookback, tc.bad, tc.off)
		}
	}
}
