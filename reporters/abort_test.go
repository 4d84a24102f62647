package reporters

import (
	"testing"
	"time"

	"github.com/loadgate/loadgate/results"
)

func TestAbortReason(t *testing.T) {
	full := results.Aborted{Case: "api", Phase: "steady", Name: "p99 < 50ms", Rule: "p99 < 50ms",
		At: 3200 * time.Millisecond, Window: 10 * time.Second, Actual: "p99 = 812ms"}
	with := func(f func(*results.Aborted)) *results.Aborted { a := full; f(&a); return &a }
	tests := []struct {
		name string
		in   *results.Aborted
		want string
	}{
		{"everything", &full,
			"at 3.2s into phase steady of case api: p99 < 50ms failed over the last 10s: p99 = 812ms"},
		{"a named rule: name and rule", with(func(a *results.Aborted) { a.Name = "latency" }),
			"at 3.2s into phase steady of case api: latency: p99 < 50ms failed over the last 10s: p99 = 812ms"},
		{"the whole phase so far", with(func(a *results.Aborted) { a.Window = 0 }),
			"at 3.2s into phase steady of case api: p99 < 50ms failed over the phase so far: p99 = 812ms"},
		{"to a tenth of a second, whole seconds too", with(func(a *results.Aborted) { a.At = 2*time.Second + 46*time.Millisecond }),
			"at 2.0s into phase steady of case api: p99 < 50ms failed over the last 10s: p99 = 812ms"},
		{"no case", with(func(a *results.Aborted) { a.Case = "" }),
			"at 3.2s into phase steady: p99 < 50ms failed over the last 10s: p99 = 812ms"},
		{"no values seen", with(func(a *results.Aborted) { a.Actual = "" }),
			"at 3.2s into phase steady of case api: p99 < 50ms failed over the last 10s"},
		{"one line", with(func(a *results.Aborted) { a.Rule, a.Name = "p99 <\n  50ms", "" }),
			"at 3.2s into phase steady of case api: p99 < 50ms failed over the last 10s: p99 = 812ms"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := AbortReason(tt.in); got != tt.want {
				t.Errorf("AbortReason =\n%q, want\n%q", got, tt.want)
			}
		})
	}
}

// TestAbortSentenceMarkup checks that Markdown marks the names of the
// same sentence and changes none of its words.
func TestAbortSentenceMarkup(t *testing.T) {
	a := &results.Aborted{Case: "api", Phase: "steady", Name: "p99 < 50ms", Rule: "p99 < 50ms",
		At: 3200 * time.Millisecond, Actual: "p99 = 812ms"}
	want := "> ⛔ **Aborted** at 3.2s into phase `steady` of case `api`: `p99 < 50ms` failed over the phase so far: p99 = 812ms. The load was stopped there; the run fails.\n\n"
	if got := mdAborted(a); got != want {
		t.Errorf("mdAborted =\n%q, want\n%q", got, want)
	}
}
