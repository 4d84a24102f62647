package runner

import (
	"strings"

	"github.com/loadgate/loadgate/protocols"
	"github.com/loadgate/loadgate/results"
	"github.com/loadgate/loadgate/scenarios"
)

// redactSamples removes the scenario's secrets from the error messages a
// case kept: a client's error may quote the request's URL, token and all,
// and a failed step the reply it got.
func redactSamples(sc *scenarios.Scenario, cr *results.CaseResult) {
	if sc == nil {
		return
	}
	for _, p := range cr.Phases {
		for k, msg := range p.ErrorSamples {
			p.ErrorSamples[k] = protocols.RedactSample(msg, sc.Secrets)
		}
	}
}

// collect keeps the cases that started, in scenario order.
func collect(caseResults []*results.CaseResult) []*results.CaseResult {
	var out []*results.CaseResult
	for _, r := range caseResults {
		if r != nil {
			out = append(out, r)
		}
	}
	return out
}

// caseGroups orders the cases for running. Normally each case runs alone,
// in scenario order. When a phase interleaves trials (same-job A/B) or
// adds them adaptively, the cases that share matrix values run together so
// their trials alternate.
func caseGroups(sc *scenarios.Scenario) [][]int {
	interleave := false
	for _, c := range sc.Cases {
		for _, ph := range c.Phases {
			// Adaptive trials run in rounds across the cases that share
			// matrix values, so that Decisive sees A and B together.
			interleave = interleave || ph.Interleave || ph.Adaptive != nil
		}
	}
	var groups [][]int
	if !interleave {
		for i := range sc.Cases {
			groups = append(groups, []int{i})
		}
		return groups
	}
	index := map[string]int{}
	for i, c := range sc.Cases {
		key := matrixKey(c.Matrix)
		g, ok := index[key]
		if !ok {
			g = len(groups)
			index[key] = g
			groups = append(groups, nil)
		}
		groups[g] = append(groups[g], i)
	}
	return groups
}

func matrixKey(m []scenarios.MatrixValue) string {
	var b strings.Builder
	for _, v := range m {
		b.WriteString(v.Key + "=" + v.Text + "\x00")
	}
	return b.String()
}
