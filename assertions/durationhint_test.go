package assertions

import (
	"errors"
	"fmt"
	"reflect"
	"slices"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/loadgate/loadgate/scenarios"
)

// durationNames lists every name of type time.Duration a rule can reach
// in values of type t, prefixed: p99, latency.p99, baseline.stall_max, …
// Maps and functions are left out; TestDurationHint writes them itself.
func durationNames(t reflect.Type, prefix string) []string {
	var out []string
	for f := range t.Fields() {
		name := prefix + f.Tag.Get("expr")
		ft := f.Type
		switch {
		case f.Anonymous:
			out = append(out, durationNames(ft, prefix)...)
		case ft == reflect.TypeFor[time.Duration]():
			out = append(out, name)
		case ft.Kind() == reflect.Struct:
			out = append(out, durationNames(ft, name+".")...)
		case ft.Kind() == reflect.Pointer && ft.Elem().Kind() == reflect.Struct:
			out = append(out, durationNames(ft.Elem(), name+".")...)
		}
	}
	return out
}

// compileOne compiles rule placed at line:col and returns its diagnostics.
func compileOne(t *testing.T, line, col int, rule string) []string {
	t.Helper()
	_, err := Compile(testScenario(at(line, col, rule)))
	if err == nil {
		return nil
	}
	var list scenarios.ErrorList
	if !errors.As(err, &list) {
		t.Fatalf("error %v (%T) is not a scenarios.ErrorList", err, err)
	}
	var got []string
	for _, e := range list {
		got = append(got, e.Error())
	}
	return got
}

// TestDurationHintEveryDuration compares every duration a rule can read
// with a bare number, on either side: each must say to write the unit,
// at the comparison's first character.
func TestDurationHintEveryDuration(t *testing.T) {
	names := append(durationNames(reflect.TypeFor[Env](), ""), "p(99.9)", `requests_by_name["login"].p99`)
	// The walk must have found the shortcuts, the distributions' fields,
	// the case's own durations and the baseline's.
	for _, want := range []string{"p99", "mean", "max", "duration", "latency.p50", "connect.max",
		"failed_latency.p99", "send_lag.p90", "iteration.p99", "stall_max", "generator.sched_lag",
		"baseline.p99", "baseline.iteration.mean", "baseline.stall_max"} {
		if !slices.Contains(names, want) {
			t.Fatalf("durationNames misses %s: %v", want, names)
		}
	}
	for _, name := range names {
		for _, tt := range []struct{ before, cmp, num string }{
			{"", name + " < 50", "50"},
			{"", "50 > " + name, "50"},
			{"error_rate < 1% && ", name + " <= 2.5", "2.5"},
		} {
			got := compileOne(t, 7, 5, tt.before+tt.cmp)
			col := 5 + len([]rune(tt.before))
			want := []string{fmt.Sprintf("load.yaml:7:%d: invalid rule: %s: %s is a duration; write the number with its unit, e.g. %sms",
				col, tt.cmp, name, tt.num)}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("%s (-want +got):\n%s", tt.before+tt.cmp, diff)
			}
		}
	}
}

func TestDurationHint(t *testing.T) {
	tests := []struct {
		name string
		th   scenarios.Threshold
		want string
	}{
		{
			// `  - p99 < 50`: the rule's own position.
			name: "the whole rule",
			th:   at(9, 5, "p99 < 50"),
			want: "load.yaml:9:5: invalid rule: p99 < 50: p99 is a duration; write the number with its unit, e.g. 50ms",
		},
		{
			// After a rewritten duration, the column is the one typed.
			name: "after other literals",
			th:   at(4, 5, "max < 1s && p50 < 0.5"),
			want: "load.yaml:4:17: invalid rule: p50 < 0.5: p50 is a duration; write the number with its unit, e.g. 0.5ms",
		},
		{
			// A literal block: the second line of the rule, which has the
			// block's indentation.
			name: "second line of a block",
			th:   at(20, 7, "requests > 0 &&\np99 < 50"),
			want: "load.yaml:21:7: invalid rule: p99 < 50: p99 is a duration; write the number with its unit, e.g. 50ms",
		},
		{
			name: "the number added",
			th:   at(3, 5, "p99 + 5 < 50ms"),
			want: "load.yaml:3:5: invalid rule: p99 + 5: p99 is a duration; write the number with its unit, e.g. 5ms",
		},
		{
			name: "a scaled duration",
			th:   at(3, 5, "p99 * 1.5 < 50"),
			want: "load.yaml:3:5: invalid rule: p99 * 1.5 < 50: p99 * 1.5 is a duration; write the number with its unit, e.g. 50ms",
		},
		{
			name: "in brackets",
			th:   at(3, 5, "(p(99)) >= 20"),
			want: "load.yaml:3:5: invalid rule: (p(99)) >= 20: p(99) is a duration; write the number with its unit, e.g. 20ms",
		},
		{
			// A variable bound to a duration is one too.
			name: "let",
			th:   at(3, 5, "let x = p99; x < 5"),
			want: "load.yaml:3:18: invalid rule: x < 5: x is a duration; write the number with its unit, e.g. 5ms",
		},
		{
			name: "digit separators",
			th:   at(3, 5, "p99 < 50_000"),
			want: "load.yaml:3:5: invalid rule: p99 < 50_000: p99 is a duration; write the number with its unit, e.g. 50_000ms",
		},
		{
			// A count is no number to give a unit to: another mistake.
			name: "a count",
			th:   at(3, 5, "p99 < requests"),
			want: "load.yaml:3:9: invalid rule: invalid operation: < (mismatched types time.Duration and int64)",
		},
		{
			name: "a count compared with a duration",
			th:   at(3, 5, "trials >= 1s"),
			want: "load.yaml:3:12: invalid rule: invalid operation: >= (mismatched types int and time.Duration)",
		},
		{
			name: "arithmetic on numbers",
			th:   at(3, 5, "p99 < 5 * 2"),
			want: "load.yaml:3:5: invalid rule: p99 < 5 * 2: p99 is a duration and 5 * 2 a number; write durations with their unit, e.g. 50ms",
		},
		{
			// 5% is the fraction 0.05: 5%ms would be no duration.
			name: "a percentage",
			th:   at(3, 5, "p99 < 5%"),
			want: "load.yaml:3:5: invalid rule: p99 < 5%: p99 is a duration and 5% a number; write durations with their unit, e.g. 50ms",
		},
		{
			name: "a size",
			th:   at(3, 5, "p99 < 64KiB"),
			want: "load.yaml:3:5: invalid rule: p99 < 64KiB: p99 is a duration and 64KiB a number; write durations with their unit, e.g. 50ms",
		},
		{
			// Other mismatches keep expr's words.
			name: "not a duration",
			th:   at(9, 14, `rps >= "a"`),
			want: `load.yaml:9:18: invalid rule: invalid operation: >= (mismatched types float64 and string)`,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := compileOne(t, tt.th.RulePos.Line, tt.th.RulePos.Col, tt.th.Rule)
			if diff := cmp.Diff([]string{tt.want}, got); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}

func TestOrigEnd(t *testing.T) {
	rw, err := rewrite("p99 < 50ms && rps > 1")
	if err != nil {
		t.Fatal(err)
	}
	// Text is "p99 < 50000000 && rps > 1": the literal is runes 6..14.
	for _, tt := range []struct{ to, want int }{
		{0, 0},
		{3, 3},   // before any literal
		{14, 10}, // the literal's end is the end of `50ms`
		{10, 10}, // inside the literal: still its end
		{25, 21}, // the rule's end
	} {
		if got := rw.origEnd(tt.to); got != tt.want {
			t.Errorf("origEnd(%d) = %d, want %d", tt.to, got, tt.want)
		}
	}
}
