package runner

import (
	"context"
	"fmt"

	"github.com/loadgate/loadgate/protocols"
	"github.com/loadgate/loadgate/results"
	"github.com/loadgate/loadgate/scenarios"
	"github.com/loadgate/loadgate/sut"
)

// caseRun is what the phases of one case run with: the run, and how the
// case's workers get their clients.
type caseRun struct {
	*scenarioRun
	// newClient makes the case's worker clients: the run's own (a seam), or
	// those of the case's shared state (its connections); nil: NewClient's,
	// or the event loop's where it can run the phase.
	newClient protocols.NewClientFunc
}

// runGroup runs the phases of the cases of one group. An interleaved phase
// alternates trial k of every case before trial k+1; other phases run case
// by case. The server of each case is sampled while its measured phases run.
func runGroup(ctx context.Context, sc *scenarios.Scenario, group []int, caseResults []*results.CaseResult, sys *sut.Systems, run *scenarioRun) error {
	watches := make([]caseWatch, len(group))
	defer func() {
		inGroup := make([]*results.CaseResult, len(group))
		for gi, i := range group {
			inGroup[gi] = caseResults[i]
		}
		stopWatches(watches, inGroup, run)
		setCPUPerRequest(inGroup)
	}()
	crs, closeShared, err := caseRuns(ctx, sc, group, run)
	defer closeShared()
	if err != nil {
		return err
	}
	phases := sc.Cases[group[0]].Phases
	for j := range phases {
		if ctx.Err() != nil {
			return nil
		}
		if !phases[j].Warmup {
			for gi, i := range group {
				if !watches[gi].started {
					watches[gi] = startWatch(sys, sc, &sc.Cases[i])
					caseResults[i].ServerName = watches[gi].name
				}
			}
		}
		ph := &phases[j]
		if ph.Adaptive != nil && !ph.Warmup {
			if err := runAdaptive(ctx, sc, group, j, caseResults, crs, run.Judge); err != nil {
				return err
			}
			continue
		}
		if ph.Interleave && !ph.Warmup && ph.Trials > 1 && len(group) > 1 {
			runs := make([][]*results.PhaseResult, len(group))
			for k := 1; k <= ph.Trials && ctx.Err() == nil; k++ {
				for gi, i := range group {
					c := &sc.Cases[i]
					r, err := runOnce(ctx, sc.Name, c, &c.Phases[j], &crs[gi], fmt.Sprintf("trial %d/%d, interleaved", k, ph.Trials))
					if err != nil {
						return fmt.Errorf("case %q: phase %q: %w", c.ID, ph.Name, err)
					}
					runs[gi] = append(runs[gi], r)
				}
			}
			for gi, i := range group {
				if len(runs[gi]) > 0 {
					caseResults[i].Phases = append(caseResults[i].Phases, results.MergeTrialRuns(runs[gi]))
				}
			}
			continue
		}
		for gi, i := range group {
			if ctx.Err() != nil {
				return nil
			}
			c := &sc.Cases[i]
			pr, err := runTrials(ctx, sc.Name, c, &c.Phases[j], &crs[gi])
			if err != nil {
				return fmt.Errorf("case %q: phase %q: %w", c.ID, c.Phases[j].Name, err)
			}
			caseResults[i].Phases = append(caseResults[i].Phases, pr)
		}
	}
	return nil
}

// caseRuns gives each case of group its caseRun, whose newClient makes
// the clients of the case's shared state (its connections): made once for
// all its phases and trials, and closed by the returned function when the
// group is done.
func caseRuns(ctx context.Context, sc *scenarios.Scenario, group []int, run *scenarioRun) ([]caseRun, func(), error) {
	var closers []func() error
	closeAll := func() {
		for gi, c := range closers {
			if err := c(); err != nil {
				run.Logger.Warn().Err(err).Str("case", sc.Cases[group[gi]].ID).Msg("closing connections")
			}
		}
	}
	crs := make([]caseRun, len(group))
	for gi, i := range group {
		newClient, closeShared, err := caseClients(ctx, &sc.Cases[i].Target, run.clients)
		if err != nil {
			return nil, closeAll, fmt.Errorf("case %q: %w", sc.Cases[i].ID, err)
		}
		closers = append(closers, closeShared)
		crs[gi] = caseRun{scenarioRun: run, newClient: newClient}
	}
	return crs, closeAll, nil
}

// runTrials runs a phase once, or trials times for a measured phase with
// trials: N, merging the repetitions and keeping each one's figures.
func runTrials(ctx context.Context, scenario string, c *scenarios.Case, ph *scenarios.Phase, cr *caseRun) (*results.PhaseResult, error) {
	n := ph.Trials
	if n <= 1 || ph.Warmup {
		return runOnce(ctx, scenario, c, ph, cr, "")
	}
	var runs []*results.PhaseResult
	for k := 1; k <= n && ctx.Err() == nil; k++ {
		r, err := runOnce(ctx, scenario, c, ph, cr, fmt.Sprintf("trial %d/%d", k, n))
		if err != nil {
			return nil, err
		}
		runs = append(runs, r)
	}
	return results.MergeTrialRuns(runs), nil
}
