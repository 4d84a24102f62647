package regression

import (
	"strings"
	"testing"
)

func TestAgainstRuns(t *testing.T) {
	steady := []float64{1000, 1002, 998, 1001, 999, 1000, 1003, 997}
	noisy := []float64{1000, 1080, 930, 1050, 960, 1100, 900, 990}
	regressed := Judgement{Status: Regressed, Reason: "12.0% lower, beyond the 5.0% tolerance and significant"}
	for _, tt := range []struct {
		name   string
		j      Judgement
		runs   []float64
		cand   []float64
		status Status
		says   string
	}{
		{"a slowdown beyond steady runs stands", regressed, steady, []float64{880, 881, 879}, Regressed, "beyond main's run-to-run spread"},
		{"the same slowdown within noisy runs is one run's luck", regressed, noisy, []float64{880, 881, 879}, Inconclusive, "within main's run-to-run spread"},
		{"too few runs to weigh", regressed, []float64{1000, 1001}, []float64{880}, Regressed, ""},
		{"runs that never vary", regressed, []float64{1000, 1000, 1000}, []float64{880}, Regressed, ""},
		{"a pass stays a pass", Judgement{Status: Pass, Reason: "within"}, noisy, []float64{990}, Pass, ""},
		{"inconclusive stays inconclusive", Judgement{Status: Inconclusive, Reason: "not significant"}, steady, []float64{700}, Inconclusive, ""},
	} {
		t.Run(tt.name, func(t *testing.T) {
			got := tt.j.AgainstRuns(tt.runs, tt.cand)
			if got.Status != tt.status {
				t.Fatalf("status %s, want %s (%s)", got.Status, tt.status, got.Reason)
			}
			if !strings.HasPrefix(got.Reason, tt.j.Reason) || !strings.Contains(got.Reason, tt.says) {
				t.Errorf("reason %q: want it to extend %q with %q", got.Reason, tt.j.Reason, tt.says)
			}
		})
	}
}
