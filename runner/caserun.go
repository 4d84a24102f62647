package runner

import (
	"context"
	"fmt"

	"github.com/loadgate/loadgate/results"
	"github.com/loadgate/loadgate/scenarios"
	"github.com/loadgate/loadgate/sut"
)

// runGroup runs the phases of the cases of one group. An interleaved phase
// alternates trial k of every case before trial k+1; other phases run case
// by case. The server of each case is sampled while its measured phases run.
func runGroup(ctx context.Context, sc *scenarios.Scenario, group []int, caseResults []*results.CaseResult, sys *sut.Systems, cfg *Config) error {
	monitors := make([]*sut.Monitor, len(group))
	defer func() {
		for gi, m := range monitors {
			if m != nil {
				u, err := m.Stop()
				switch id := caseResults[group[gi]].ID; {
				case u.Exited:
					cfg.Logger.Warn().Str("case", id).Msg(u.Reason + " during the case: its figures cover the case until then")
				case err != nil:
					cfg.Logger.Warn().Str("case", id).Msg("no sample of the server: " + u.Reason)
				}
				caseResults[group[gi]].Server = &u
			}
		}
	}()
	cfgs, closeShared, err := caseConfigs(ctx, sc, group, cfg)
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
				if monitors[gi] == nil {
					monitors[gi], caseResults[i].ServerName = sys.Watch(sc, &sc.Cases[i])
				}
			}
		}
		ph := &phases[j]
		if ph.Adaptive != nil && !ph.Warmup {
			if err := runAdaptive(ctx, sc, group, j, caseResults, cfgs, cfg.Judge); err != nil {
				return err
			}
			continue
		}
		if ph.Interleave && !ph.Warmup && ph.Trials > 1 && len(group) > 1 {
			runs := make([][]*results.PhaseResult, len(group))
			for k := 1; k <= ph.Trials && ctx.Err() == nil; k++ {
				for gi, i := range group {
					c := &sc.Cases[i]
					r, err := runOnce(ctx, sc.Name, c, &c.Phases[j], &cfgs[gi], fmt.Sprintf("trial %d/%d, interleaved", k, ph.Trials))
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
			pr, err := runTrials(ctx, sc.Name, c, &c.Phases[j], &cfgs[gi])
			if err != nil {
				return fmt.Errorf("case %q: phase %q: %w", c.ID, c.Phases[j].Name, err)
			}
			caseResults[i].Phases = append(caseResults[i].Phases, pr)
		}
	}
	return nil
}

// caseConfigs gives each case of group its own copy of cfg, whose
// NewClient makes the clients of the case's shared state (its
// connections): made once for all its phases and trials, and closed by the
// returned function when the group is done.
func caseConfigs(ctx context.Context, sc *scenarios.Scenario, group []int, cfg *Config) ([]Config, func(), error) {
	var closers []func() error
	closeAll := func() {
		for gi, c := range closers {
			if err := c(); err != nil {
				cfg.Logger.Warn().Err(err).Str("case", sc.Cases[group[gi]].ID).Msg("closing connections")
			}
		}
	}
	cfgs := make([]Config, len(group))
	for gi, i := range group {
		newClient, closeShared, err := caseClients(ctx, &sc.Cases[i].Target, cfg.NewClient)
		if err != nil {
			return nil, closeAll, fmt.Errorf("case %q: %w", sc.Cases[i].ID, err)
		}
		closers = append(closers, closeShared)
		cfgs[gi] = *cfg
		cfgs[gi].NewClient = newClient
	}
	return cfgs, closeAll, nil
}

// runTrials runs a phase once, or trials times for a measured phase with
// trials: N, merging the repetitions and keeping each one's figures.
func runTrials(ctx context.Context, scenario string, c *scenarios.Case, ph *scenarios.Phase, cfg *Config) (*results.PhaseResult, error) {
	n := ph.Trials
	if n <= 1 || ph.Warmup {
		return runOnce(ctx, scenario, c, ph, cfg, "")
	}
	var runs []*results.PhaseResult
	for k := 1; k <= n && ctx.Err() == nil; k++ {
		r, err := runOnce(ctx, scenario, c, ph, cfg, fmt.Sprintf("trial %d/%d", k, n))
		if err != nil {
			return nil, err
		}
		runs = append(runs, r)
	}
	return results.MergeTrialRuns(runs), nil
}
