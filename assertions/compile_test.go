package assertions

import (
	"errors"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/loadgate/loadgate/scenarios"
	"github.com/loadgate/loadgate/units"
)

// testScenario is a resolved scenario with a matrix, a target with a named
// request mix, a plain target, a warm-up and two measured phases.
func testScenario(ths ...scenarios.Threshold) *scenarios.Scenario {
	api := scenarios.Target{Name: "api", HTTP: &scenarios.HTTPTarget{Requests: []scenarios.HTTPRequest{
		{Name: "login", Weight: 1}, {Name: "browse", Weight: 3},
	}}}
	web := scenarios.Target{Name: "web", HTTP: &scenarios.HTTPTarget{Requests: []scenarios.HTTPRequest{{Weight: 1}}}}
	phases := []scenarios.Phase{{Name: "warmup", Warmup: true}, {Name: "steady"}, {Name: "spike"}}
	sc := &scenarios.Scenario{
		File:       "load.yaml",
		Name:       "load",
		Matrix:     []scenarios.Axis{{Key: "concurrency"}},
		Targets:    []scenarios.Target{api, web},
		Thresholds: ths,
	}
	for _, t := range sc.Targets {
		sc.Cases = append(sc.Cases, scenarios.Case{ID: t.Name, Target: t, Phases: phases})
	}
	return sc
}

// at places a rule at line:col of load.yaml; the threshold entry starts two
// columns earlier, where its `- ` is.
func at(line, col int, rule string) scenarios.Threshold {
	return scenarios.Threshold{
		Rule:    rule,
		Pos:     scenarios.Pos{File: "load.yaml", Line: line, Col: col - 2},
		RulePos: scenarios.Pos{File: "load.yaml", Line: line, Col: col},
	}
}

func TestCompileErrors(t *testing.T) {
	tests := []struct {
		name string
		th   scenarios.Threshold
		want []string
	}{
		{
			// `  - p99 < 50xs`: a plain scalar starting at column 5.
			name: "unknown unit, plain",
			th:   at(12, 5, "p99 < 50xs"),
			want: []string{`load.yaml:12:11: invalid rule: unknown unit "xs" in 50xs (` + units.Hint + ")"},
		},
		{
			// `  - { rule: 'p99 < 50xs', severity: warn }`: the quote is at
			// column 13, the rule text at 14.
			name: "unknown unit, quoted",
			th:   at(7, 14, "p99 < 50xs"),
			want: []string{`load.yaml:7:20: invalid rule: unknown unit "xs" in 50xs (` + units.Hint + ")"},
		},
		{
			// Status codes are map keys, strings: 503 alone would not compile
			// against a map of strings, and the message says what to write.
			name: "status code as a number",
			th:   at(6, 5, "status[503] < 10"),
			want: []string{`load.yaml:6:12: invalid rule: status codes are strings: write status["503"]`},
		},
		{
			// A key that can never be counted would read 0 for ever.
			name: "status class, not a code",
			th:   at(6, 5, `baseline.status["5xx"] == 0`),
			want: []string{`load.yaml:6:21: invalid rule: unknown status code "5xx" (a code from 100 to 599, such as "503", or "other")`},
		},
		{
			// Units are case-sensitive: mb is not MB.
			name: "lower-case size unit",
			th:   at(6, 5, "bytes_received > 64mb"),
			want: []string{`load.yaml:6:22: invalid rule: unknown unit "mb" in 64mb (` + units.Hint + ")"},
		},
		{
			// `  - p98 < 1ms`
			name: "unknown percentile name",
			th:   at(3, 5, "p98 < 1ms"),
			want: []string{`load.yaml:3:5: invalid rule: unknown name "p98"; write p(98) for any percentile`},
		},
		{
			// `  - rule: "p9999 < 1ms"`: the hint writes the percentile out.
			name: "unknown fine percentile, quoted",
			th:   at(4, 12, "p9999 < 1ms"),
			want: []string{`load.yaml:4:12: invalid rule: unknown name "p9999"; write p(99.99) for any percentile`},
		},
		{
			// A typo deep in the rule, after two rewritten literals: the
			// column is the one the user sees, not the rewritten one.
			name: "typo after literals",
			th:   at(5, 5, "p99 < 50ms && error_rate < 1% && rsp > 10"),
			want: []string{`load.yaml:5:38: invalid rule: unknown name "rsp"; did you mean rps?`},
		},
		{
			// The mismatch is reported at the operator.
			name: "number compared with a string, quoted",
			th:   at(9, 14, `rps >= "a"`),
			want: []string{`load.yaml:9:18: invalid rule: invalid operation: >= (mismatched types float64 and string)`},
		},
		{
			// A latency is a duration, so a bare number is refused.
			name: "duration compared with a number",
			th:   at(9, 5, `p99 < 50`),
			want: []string{`load.yaml:9:5: invalid rule: p99 < 50: p99 is a duration; write the number with its unit, e.g. 50ms`},
		},
		{
			// A threshold must be true or false; the whole rule is wrong,
			// so the error points at its start.
			name: "not a condition",
			th:   at(10, 5, "rps + 1"),
			want: []string{`load.yaml:10:5: invalid rule: a threshold must be a condition (true or false), but this rule is a float64`},
		},
		{
			name: "misspelt generator field",
			th:   at(11, 5, "!generator.saturate"),
			want: []string{`load.yaml:11:16: invalid rule: unknown field "saturate" (known: cpu, loop_cpu, saturated, sched_lag)`},
		},
		{
			name: "unknown server field",
			th:   at(11, 5, "server.memory < 1GiB"),
			want: []string{`load.yaml:11:12: invalid rule: unknown field "memory" (known: cpu, cpu_max, cpu_per_request, rss, rss_max, rss_pct, rss_max_pct)`},
		},
		{
			name: "unknown host field",
			th:   at(11, 5, "host.load < 4"),
			want: []string{`load.yaml:11:10: invalid rule: unknown field "load" (known: load1, cpu)`},
		},
		{
			// A field written without the value it belongs to.
			name: "bare server field",
			th:   at(11, 5, "rss_max < 512MiB"),
			want: []string{`load.yaml:11:5: invalid rule: unknown name "rss_max"; did you mean server.rss_max?`},
		},
		{
			name: "bare field of several values",
			th:   at(11, 5, "cpu < 80"),
			want: []string{`load.yaml:11:5: invalid rule: unknown name "cpu"; did you mean server.cpu, host.cpu or generator.cpu?`},
		},
		{
			name: "server field in other tools' naming",
			th:   at(11, 5, "server_cpu_max < 80"),
			want: []string{`load.yaml:11:5: invalid rule: unknown name "server_cpu_max"; did you mean server.cpu_max?`},
		},
		{
			// server.cpu is in percent of one core: 80% would be 0.8.
			name: "server cpu against a percentage",
			th:   at(11, 5, "server.cpu < 80%"),
			want: []string{`load.yaml:11:18: invalid rule: server.cpu is in percent of one core (250 means two and a half cores busy), not a fraction, so 80% would mean 0.8; write 80 for 80 percent`},
		},
		{
			name: "percentage on the left, baseline's host cpu",
			th:   at(11, 5, "7% > baseline.host.cpu && host.cpu <= 90"),
			want: []string{`load.yaml:11:5: invalid rule: baseline.host.cpu is in percent (0 to 100), not a fraction, so 7% would mean 0.07; write 7 for 7 percent`},
		},
		{
			name: "misspelt dropped",
			th:   at(2, 5, "droped == 0"),
			want: []string{`load.yaml:2:5: invalid rule: unknown name "droped"; did you mean dropped?`},
		},
		{
			// The flat naming of other tools, for a field of a struct value.
			name: "underscore for a dot",
			th:   at(2, 5, "send_lag_p99 < 5ms"),
			want: []string{`load.yaml:2:5: invalid rule: unknown name "send_lag_p99"; did you mean send_lag.p99?`},
		},
		{
			name: "unknown send lag field",
			th:   at(2, 5, "send_lag.p98 < 1ms"),
			want: []string{`load.yaml:2:14: invalid rule: unknown field "p98" (known: min, mean, max, stddev, p50, p90, p95, p99, p999)`},
		},
		{
			// Trials are counted, so they compare with integers only.
			name: "trials compared with a duration",
			th:   at(2, 5, "trials >= 1s"),
			want: []string{`load.yaml:2:12: invalid rule: invalid operation: >= (mismatched types int and time.Duration)`},
		},
		{
			name: "unknown latency field",
			th:   at(2, 5, "latency.p98 < 1ms"),
			want: []string{`load.yaml:2:13: invalid rule: unknown field "p98" (known: min, mean, max, stddev, p50, p90, p95, p99, p999)`},
		},
		{
			name: "misspelt matrix key",
			th:   at(2, 5, "matrix.concurency < 100"),
			want: []string{`load.yaml:2:12: invalid rule: unknown matrix key "concurency" (known: concurrency)`},
		},
		{
			name: "unknown request name",
			th:   at(2, 5, `requests_by_name["logon"].p99 < 1s`),
			want: []string{`load.yaml:2:22: invalid rule: unknown request name "logon" (known: login, browse)`},
		},
		{
			name: "unknown regressed metric",
			th:   at(2, 5, `!regressed("rsp", 5%)`),
			want: []string{`load.yaml:2:16: invalid rule: regressed: unknown metric "rsp"; did you mean rps?`},
		},
		{
			name: "regressed metric not measured per trial",
			th:   at(2, 5, `!regressed("latency.p90", 5%)`),
			want: []string{`load.yaml:2:16: invalid rule: regressed: latency.p90 is not measured trial by trial, so it cannot be compared (known: rps, p50, p99, latency.p50, latency.p99, error_rate, dropped, capacity)`},
		},
		{
			name: "regressed tolerance as a whole number",
			th:   at(2, 5, `!regressed("rps", 5)`),
			want: []string{`load.yaml:2:23: invalid rule: regressed: a tolerance is a fraction, so 5 means 500%; write 5% for 5 percent`},
		},
		{
			// A block scalar: the second line keeps the first's indentation,
			// so its columns add to RulePos.Col as well.
			name: "second line of a block scalar",
			th:   at(20, 7, "rps > 100 &&\np99 < 5xs"),
			want: []string{`load.yaml:21:13: invalid rule: unknown unit "xs" in 5xs (` + units.Hint + ")"},
		},
		{
			name: "syntax error",
			th:   at(2, 5, "p99 < < 1ms"),
			want: []string{`load.yaml:2:11: invalid rule: unexpected token Operator("<")`},
		},
		{
			name: "empty rule",
			th:   at(2, 5, "  "),
			want: []string{`load.yaml:2:5: invalid rule: the rule is empty`},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rules, err := Compile(testScenario(tt.th))
			if rules != nil {
				t.Errorf("Compile returned rules along with an error")
			}
			var list scenarios.ErrorList
			if !errors.As(err, &list) {
				t.Fatalf("error %v (%T) is not a scenarios.ErrorList", err, err)
			}
			var got []string
			for _, e := range list {
				got = append(got, e.Error())
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("errors (-want +got):\n%s", diff)
			}
		})
	}
}

func TestCompileCollectsEveryError(t *testing.T) {
	_, err := Compile(testScenario(at(2, 5, "p98 < 1ms"), at(3, 5, "rps > 1"), at(4, 5, "rps > 1xs")))
	var list scenarios.ErrorList
	if !errors.As(err, &list) || len(list) != 2 {
		t.Fatalf("want two errors, got %v", err)
	}
	if list[0].Pos.Line != 2 || list[1].Pos.Line != 4 {
		t.Errorf("errors at lines %d and %d, want 2 and 4", list[0].Pos.Line, list[1].Pos.Line)
	}
}

func TestCompileValid(t *testing.T) {
	tests := []struct {
		rule     string
		shown    []string // what Actual will list, in order
		baseline bool
		usage    usageReads
	}{
		{rule: "p99 < 50ms", shown: []string{"p99"}},
		{rule: "error_rate < 0.1%", shown: []string{"error_rate"}},
		{rule: "rps >= 5000", shown: []string{"rps"}},
		{rule: "errors.connect == 0", shown: []string{"errors.connect"}},
		{rule: `requests_by_name["login"].p99 < 200ms`, shown: []string{`requests_by_name["login"].p99`}},
		{rule: "requests_by_name.login.p(99.9) < 1s", shown: []string{`requests_by_name["login"].p(99.9)`}},
		{rule: "matrix.concurrency < 100 || p99 < 1s", shown: []string{"matrix.concurrency", "p99"}},
		{rule: "p(99.99) < 1s && p999 < 500ms", shown: []string{"p(99.99)", "p999"}},
		{rule: "bytes_received > 64MiB || transfer_rate > 1MB", shown: []string{"bytes_received", "transfer_rate"}},
		{rule: "duration >= 30s && connect.p99 < 5ms", shown: []string{"duration", "connect.p99"}},
		{rule: "p99 < 2 * p50 && p99 > p50", shown: []string{"p99", "p50"}},
		{rule: "p99.Milliseconds() < 50", shown: []string{"p99"}},
		{rule: `target == "api" ? p99 < 10ms : p99 < 50ms`, shown: []string{"target", "p99"}},
		{rule: `phase == "spike" || failed == 0`, shown: []string{"phase", "failed"}},
		{rule: "min > 0s && max < 1h && mean < 1s && stddev < 1s", shown: []string{"min", "max", "mean", "stddev"}},
		{rule: "dropped == 0", shown: []string{"dropped"}},
		{rule: "send_lag.p99 < 5ms && send_lag.max < 100ms", shown: []string{"send_lag.p99", "send_lag.max"}},
		{rule: "trials < 3 || rps_cv < 5%", shown: []string{"trials", "rps_cv"}},
		{rule: "baseline == nil || rps > baseline.rps", shown: []string{"rps", "baseline.rps"}, baseline: true},
		{rule: "p99 < baseline.p99 * 1.2 && p99 / baseline.p99 < 120%", shown: []string{"p99", "baseline.p99"}, baseline: true},
		{rule: `!regressed("latency.p99", 5%)`, baseline: true},
		{rule: "server.cpu < 80 && server.rss_max < 512MiB", shown: []string{"server.cpu", "server.rss_max"},
			usage: usageReads{server: true}},
		{rule: "host.load1 < 4 && host.cpu < 90", shown: []string{"host.load1", "host.cpu"},
			usage: usageReads{host: true}},
		{rule: "server.rss < baseline.server.rss * 1.2", shown: []string{"server.rss", "baseline.server.rss"}, baseline: true,
			usage: usageReads{server: true, baseServer: true}},
		{rule: "baseline.host.load1 < 2 || rps > 10", shown: []string{"baseline.host.load1", "rps"}, baseline: true,
			usage: usageReads{baseHost: true}},
		{rule: "generator.cpu < 90%", shown: []string{"generator.cpu"}}, // a fraction: the percentage is right
	}
	for _, tt := range tests {
		t.Run(tt.rule, func(t *testing.T) {
			rules, err := Compile(testScenario(at(2, 5, tt.rule)))
			if err != nil {
				t.Fatal(err)
			}
			r := rules.rules[0]
			var shownNames []string
			for _, s := range r.shown {
				shownNames = append(shownNames, s.name)
			}
			if diff := cmp.Diff(tt.shown, shownNames); diff != "" {
				t.Errorf("shown (-want +got):\n%s", diff)
			}
			if r.needsBaseline != tt.baseline {
				t.Errorf("needsBaseline = %v, want %v", r.needsBaseline, tt.baseline)
			}
			if r.usage != tt.usage {
				t.Errorf("usage = %+v, want %+v", r.usage, tt.usage)
			}
		})
	}
}
