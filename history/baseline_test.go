package history

import (
	"math/rand/v2"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/loadgate/loadgate/history/changepoint"
	"github.com/loadgate/loadgate/results"
)

// mainRuns is n runs of main, one an hour, each of three trials around
// level (±1 %), with commits c0, c1, ...
func mainRuns(t *testing.T, seed uint64, levels ...float64) []*Entry {
	t.Helper()
	rng := rand.New(rand.NewPCG(seed, 7))
	var out []*Entry
	for i, level := range levels {
		var rps []float64
		for range 3 {
			rps = append(rps, level*(1+0.01*rng.NormFloat64()))
		}
		es, err := EntriesOf(runOf(t0.Add(time.Duration(i)*time.Hour), "c"+strconv.Itoa(i), rps...), Origin{})
		if err != nil {
			t.Fatal(err)
		}
		es[0].Cases[0].Load = "L1"
		out = append(out, es[0])
	}
	return out
}

func repeat(v float64, n int) []float64 {
	out := make([]float64, n)
	for i := range out {
		out[i] = v
	}
	return out
}

func envA() Environment {
	return EnvironmentOf(&results.Run{Host: hostA, LoadgateVersion: "1.0.0"})
}

func TestBaselinePoolsTheLatestLevel(t *testing.T) {
	levels := append(repeat(1000, 40), repeat(800, 12)...)
	b := NewBaseline("store", mainRuns(t, 1, levels...), envA(), changepoint.Options{},
		func(string, string) string { return "L1" })
	bc, ok := b.Case("gate", "hello", "")
	if !ok || bc.Undecided != "" {
		t.Fatalf("ok = %v, undecided = %q", ok, bc.Undecided)
	}
	if len(bc.Trials) != 12*3 {
		t.Fatalf("%d trials pooled, want the 36 of the 12 runs since the step", len(bc.Trials))
	}
	if bc.Stats.RPS < 780 || bc.Stats.RPS > 820 {
		t.Fatalf("baseline rps = %v, want main's latest level ≈ 800", bc.Stats.RPS)
	}
	if len(bc.Runs) != 12 || bc.Runs[0].RPS < 780 || bc.Runs[0].RPS > 820 {
		t.Fatalf("runs = %+v, want the 12 runs' medians at ≈ 800", bc.Runs)
	}
	cb := b.CaseFigures("gate", "hello", nil)
	if cb.Runs != 12 || cb.Commits != "c40…c51" || cb.Trials != 36 {
		t.Fatalf("figures = %+v", cb)
	}
}

func TestBaselineCapsThePool(t *testing.T) {
	b := NewBaseline("store", mainRuns(t, 2, repeat(1000, 45)...), envA(), changepoint.Options{}, nil)
	bc, _ := b.Case("gate", "hello", "")
	if len(bc.Trials) != MaxPooledRuns*3 {
		t.Fatalf("%d trials, want the last %d runs' %d", len(bc.Trials), MaxPooledRuns, MaxPooledRuns*3)
	}
	if cb := b.CaseFigures("gate", "hello", nil); cb.Commits != "c15…c44" {
		t.Fatalf("commits = %s", cb.Commits)
	}
}

func TestBaselineSaysWhyItCannotDecide(t *testing.T) {
	other := envA()
	other.Cores = 64
	tests := []struct {
		name    string
		entries []*Entry
		env     Environment
		load    string
		want    string
	}{
		{"two runs", mainRuns(t, 3, 1000, 1000), envA(), "L1", "holds 2 run(s)"},
		{"another machine", mainRuns(t, 4, repeat(1000, 10)...), other, "L1", "none in this environment"},
		{"another load", mainRuns(t, 5, repeat(1000, 10)...), envA(), "L2", "the load changed"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			b := NewBaseline("store", tt.entries, tt.env, changepoint.Options{}, func(string, string) string { return tt.load })
			bc, ok := b.Case("gate", "hello", "")
			if !ok || !strings.Contains(bc.Undecided, tt.want) {
				t.Fatalf("ok = %v, undecided = %q, want it to say %q", ok, bc.Undecided, tt.want)
			}
			if cb := b.CaseFigures("gate", "hello", nil); cb == nil || cb.Undecided != bc.Undecided {
				t.Fatalf("figures = %+v", cb)
			}
		})
	}
}

func TestBaselineWithoutTheCase(t *testing.T) {
	b := NewBaseline("store", mainRuns(t, 6, repeat(1000, 5)...), envA(), changepoint.Options{}, nil)
	if _, ok := b.Case("gate", "other", ""); ok {
		t.Fatal("a case main never ran has a baseline")
	}
	if b.CaseFigures("other", "hello", nil) != nil {
		t.Fatal("figures of a scenario main never ran")
	}
	if bc, ok := b.Case("gate", "hello", "measured"); !ok || bc.Undecided != "" {
		t.Fatalf("narrowed to the only phase: ok = %v, %q", ok, bc.Undecided)
	}
	if bc, _ := b.Case("gate", "hello", "other"); bc.Undecided == "" {
		t.Fatal("narrowed to a phase the history does not keep apart, and decided")
	}
}

func TestBaselineInfo(t *testing.T) {
	b := NewBaseline("store", mainRuns(t, 7, 1000), envA(), changepoint.Options{}, nil)
	if bi := b.Info(hostA, "1.0.0", false); !bi.FingerprintMatch || !bi.History || bi.File != "store" {
		t.Fatalf("same environment: %+v", bi)
	}
	bi := b.Info(hostA, "2.0.0", true)
	if bi.FingerprintMatch || !bi.EnvFailed() || len(bi.Differences) != 1 || !strings.Contains(bi.Differences[0], "loadgate 1.0.0") {
		t.Fatalf("another version: %+v", bi)
	}
}
