package examples_test

import (
	"testing"

	"github.com/loadgate/loadgate/internal/cli"
	"github.com/loadgate/loadgate/internal/demoserver"
)

// The capacity example searches the built-in server's known capacity.
// How close the answer comes to the truth is bench/capacitytruth's and the
// search's accuracy run's to say, on a quiet machine; here the search must
// run to an answer that is never above the truth by more than a bisection
// step, or say honestly that the generator limited it.
func TestCapacitySearch(t *testing.T) {
	const truth = 2000
	srv := start(t, demoserver.Config{Capacity: truth})
	out := t.TempDir()
	code, stdout, stderr := run(t, "run", "--no-progress", "-o", out,
		"--var", "host="+srv.HTTPAddr(), "--var", "step=300ms", "--var", "probe_warmup=200ms",
		"capacity/scenario.yaml")
	if code != cli.ExitFailed && code != cli.ExitOK && code != cli.ExitRun {
		t.Fatalf("exit %d\n%s\n%s", code, stdout, stderr)
	}
	c := readRun(t, out).Scenarios[0].Cases[0]
	s := c.Stats.Search
	if s == nil || len(s.Probes) == 0 || (len(s.Probes) < 2 && !s.LimitedByGenerator) {
		t.Fatalf("search = %+v, want its probes\n%s\n%s", s, stdout, stderr)
	}
	// A search the generator limited is an invalid run: exit 3, never a
	// pass or a fail on a lower bound.
	if s.LimitedByGenerator != (code == cli.ExitRun) {
		t.Errorf("exit %d with the search limited by the generator: %v; want exit 3 exactly when it was\n%s", code, s.LimitedByGenerator, stdout)
	}
	// capacity >= 4000 fails against a server that serves 2000/s, unless
	// a busy machine's generator limited the search: the rule is then
	// skipped, never passed on a made-up number.
	if want := cli.ExitFailed; !s.LimitedByGenerator && code != want {
		t.Errorf("exit %d, want %d (capacity >= 4000 against a capacity of %d)\n%s", code, want, truth, stdout)
	}
	if !s.LimitedByGenerator && (c.Stats.Capacity <= 0 || c.Stats.Capacity > 1.1*truth) {
		t.Errorf("capacity %.0f/s: above the server's true %d/s by more than a bisection step (probes %+v)", c.Stats.Capacity, truth, s.Probes)
	}
	for _, p := range s.Probes {
		if p.Rate > 2*truth && p.Passed {
			t.Errorf("probe at %.0f/s met the SLO against a server that serves %d/s", p.Rate, truth)
		}
	}
}
