package runner

import (
	"context"
	"fmt"
	"slices"

	"github.com/loadgate/loadgate/results"
	"github.com/loadgate/loadgate/scenarios"
)

// adaptiveNext decides, after ran rounds of trials, whether to run one
// more or why to stop: Min rounds always run; then a decisive answer or
// Max ends them. decisive is asked only when it can change the answer.
func adaptiveNext(a *scenarios.AdaptiveTrials, ran int, decisive func() bool) (more bool, stop string) {
	switch {
	case ran < a.Min:
		return true, ""
	case decisive == nil:
		return false, results.TrialsNoJudge
	case decisive():
		return false, results.TrialsDecisive
	case ran >= a.Max:
		return false, results.TrialsMax
	default:
		return true, ""
	}
}

// runAdaptive runs phase j of every case of group in rounds — one trial
// of each case per round, so a same-job A/B alternates A B A B — until
// adaptiveNext says stop, and appends each case's merged trials.
func runAdaptive(ctx context.Context, sc *scenarios.Scenario, group []int, j int, caseResults []*results.CaseResult, crs []caseRun, judge Judge) error {
	ph := &sc.Cases[group[0]].Phases[j]
	a := ph.Adaptive
	runs := make([][]*results.PhaseResult, len(group))
	var decisive func() bool
	if judge.Decisive != nil {
		decisive = func() bool { return judge.Decisive(ph, provisional(group, caseResults, runs)) }
	}
	stop := results.TrialsInterrupted
	for ran := 0; ctx.Err() == nil; ran++ {
		more, why := adaptiveNext(a, ran, decisive)
		if !more {
			stop = why
			break
		}
		for gi, i := range group {
			if ctx.Err() != nil {
				break
			}
			c := &sc.Cases[i]
			label := fmt.Sprintf("trial %d of %d–%d", ran+1, a.Min, a.Max)
			r, err := runOnce(ctx, sc.Name, c, &c.Phases[j], &crs[gi], label)
			if err != nil {
				return fmt.Errorf("case %q: phase %q: %w", c.ID, ph.Name, err)
			}
			runs[gi] = append(runs[gi], r)
		}
	}
	for gi, i := range group {
		if len(runs[gi]) > 0 {
			m := results.MergeTrialRuns(runs[gi])
			m.TrialsStop = stop
			caseResults[i].Phases = append(caseResults[i].Phases, m)
		}
	}
	return nil
}

// provisional is what the cases of group look like with the trials run so
// far merged in: what Decisive judges.
func provisional(group []int, caseResults []*results.CaseResult, runs [][]*results.PhaseResult) []*results.CaseResult {
	out := make([]*results.CaseResult, 0, len(group))
	for gi, i := range group {
		cr := *caseResults[i]
		cr.Phases = slices.Clone(cr.Phases)
		if len(runs[gi]) > 0 {
			cr.Phases = append(cr.Phases, results.MergeTrialRuns(runs[gi]))
		}
		out = append(out, &cr)
	}
	return out
}
