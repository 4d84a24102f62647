package scenarios

import (
	"regexp"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// monitorsScenario is a scenario whose top level ends with extra, after a
// target named web.
func monitorsScenario(extra string) string {
	return "version: 1\nname: s\ntargets:\n  - name: web\n    http: { url: \"http://127.0.0.1:1/\" }\n" +
		"phases:\n  - { name: m, duration: 1s }\n" + extra
}

func TestMonitorsForms(t *testing.T) {
	sc := mustParse(t, monitorsScenario("server: { command: ./app }\nmonitors:\n  db: { process: '^postgres' }\n"+
		"  cache: { pid: 42 }\n  metrics: { prometheus: { url: 'http://127.0.0.1:9090', groupname: redis } }\n"), LoadOptions{})
	got := make([]string, 0, len(sc.Monitors))
	for _, m := range sc.Monitors {
		got = append(got, m.Name)
	}
	if diff := cmp.Diff([]string{"db", "cache", "metrics"}, got); diff != "" {
		t.Errorf("names (-want +got):\n%s", diff)
	}
	if re := sc.Monitors[0].Process; re == nil || re.String() != "^postgres" {
		t.Errorf("db: process %v, want ^postgres", re)
	}
	if sc.Monitors[1].PID != 42 {
		t.Errorf("cache: pid %d, want 42", sc.Monitors[1].PID)
	}
	if p := sc.Monitors[2].Prometheus; p == nil || p.Name != "metrics" {
		t.Errorf("metrics: prometheus %+v, want one named metrics", p)
	}
	if got := sc.WatchedName(&sc.Cases[0]); got != "server" {
		t.Errorf("WatchedName = %q, want server: the started server stands for server.*", got)
	}
}

// TestWatchedName: what stands for server.* is named as rules read it.
func TestWatchedName(t *testing.T) {
	for _, tc := range []struct{ name, extra, want string }{
		{"nothing watched", "", ""},
		{"the scenario's monitor", "monitor: { pid: 1 }\n", "server"},
		{"the first of monitors", "monitors: { app: { pid: 1 }, db: { pid: 2 } }\n", "app"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			sc := mustParse(t, monitorsScenario(tc.extra), LoadOptions{})
			if got := sc.WatchedName(&sc.Cases[0]); got != tc.want {
				t.Errorf("WatchedName = %q, want %q", got, tc.want)
			}
		})
	}
	sc := mustParse(t, "version: 1\nname: s\ntargets:\n  - name: web\n    http: { url: \"http://127.0.0.1:1/\" }\n"+
		"    monitor: { process: nginx }\nphases:\n  - { name: m, duration: 1s }\nmonitors: { db: { pid: 2 } }\n", LoadOptions{})
	if got := sc.WatchedName(&sc.Cases[0]); got != "web" {
		t.Errorf("a target's monitor: WatchedName = %q, want the target's name", got)
	}
	if !regexp.MustCompile("nginx").MatchString(sc.Cases[0].Target.Monitor.Process.String()) {
		t.Errorf("the target's monitor was lost beside monitors:")
	}
}

func TestMonitorsErrors(t *testing.T) {
	for _, tc := range []struct{ name, extra, want string }{
		{"beside monitor", "monitor: { pid: 1 }\nmonitors: { db: { pid: 2 } }\n",
			"s.yaml:9:1: monitor and monitors are exclusive: write the one monitor as an entry of monitors\n"},
		{"not a mapping", "monitors: [db]\n",
			"s.yaml:8:11: monitors: expected a mapping from names to monitors (monitors: { db: { process: postgres } }), got a list\n"},
		{"a name rules cannot read", "monitors: { my-db: { pid: 2 } }\n",
			"s.yaml:8:13: monitors: \"my-db\" is not a name rules can read as servers.my-db: use letters, digits and _, starting with a letter\n"},
		{"the server's name", "monitors: { server: { pid: 2 } }\n",
			"s.yaml:8:13: monitors: \"server\" names a server loadgate may start (the scenario's is \"server\", a target's has the target's name): pick another name\n"},
		{"a target's name", "monitors: { web: { pid: 2 } }\n",
			"s.yaml:8:13: monitors: \"web\" names a server loadgate may start (the scenario's is \"server\", a target's has the target's name): pick another name\n"},
		{"nothing to watch", "monitors: { db: {} }\n", "s.yaml:8:17: monitor: needs pid, process or prometheus, to know what to watch\n"},
		{"an unknown field", "monitors: { db: { procss: x } }\n", "s.yaml:8:17: monitor: needs pid, process or prometheus, to know what to watch\n" +
			"s.yaml:8:19: unknown field \"procss\" in monitor (did you mean \"process\"?)\n"},
		{"twice", "monitors: { db: { pid: 2 }, db: { pid: 3 } }\n", "s.yaml:8:29: field \"db\" appears twice (first at line 8)\n"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if diff := cmp.Diff(tc.want, diagnostics(t, monitorsScenario(tc.extra), LoadOptions{})); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}
