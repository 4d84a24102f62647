package runner

import (
	"github.com/loadgate/loadgate/results"
	"github.com/loadgate/loadgate/scenarios"
	"github.com/loadgate/loadgate/sut"
)

// caseWatch is what samples the servers of one case while its measured
// phases run: the one rules read as server.*, and the entries of the
// scenario's `monitors:` beside it.
type caseWatch struct {
	started bool
	first   *sut.Monitor // nil when nothing stands for server.*
	name    string       // first's name
	named   []sut.Watched
}

// startWatch starts sampling case c's servers. With no server started or
// monitored, the first entry of `monitors:` stands for server.*.
func startWatch(sys *sut.Systems, sc *scenarios.Scenario, c *scenarios.Case) caseWatch {
	w := caseWatch{started: true}
	w.first, w.name = sys.Watch(sc, c)
	w.named = sys.WatchNamed(sc)
	if w.first == nil && len(w.named) > 0 {
		w.first, w.name, w.named = w.named[0].Monitor, w.named[0].Name, w.named[1:]
	}
	return w
}

// monitors lists every monitor of w, first first.
func (w *caseWatch) monitors() []*sut.Monitor {
	var out []*sut.Monitor
	if w.first != nil {
		out = append(out, w.first)
	}
	for _, n := range w.named {
		out = append(out, n.Monitor)
	}
	return out
}

// stopWatches stops every monitor of a group's cases and keeps what each
// saw in its case's result. The cases of a group end together, however
// long each monitor then takes to give its figures.
func stopWatches(watches []caseWatch, cases []*results.CaseResult, run *scenarioRun) {
	for gi := range watches {
		for _, m := range watches[gi].monitors() {
			m.End()
		}
	}
	for gi := range watches {
		w, cr := &watches[gi], cases[gi]
		if w.first != nil {
			u := stopMonitor(w.first, w.name, cr.ID, run)
			cr.Server = &u
		}
		for _, n := range w.named {
			cr.Servers = append(cr.Servers, results.NamedUsage{Name: n.Name, Usage: stopMonitor(n.Monitor, n.Name, cr.ID, run)})
		}
	}
}

// stopMonitor stops m and says what its figures lack.
func stopMonitor(m *sut.Monitor, name, caseID string, run *scenarioRun) results.Usage {
	u, err := m.Stop()
	switch {
	case u.Exited:
		run.Logger.Warn().Str("case", caseID).Str("server", name).Msg(u.Reason + " during the case: its figures cover the case until then")
	case err != nil:
		run.Logger.Warn().Str("case", caseID).Str("server", name).Msg("no sample of the server: " + u.Reason)
	}
	return u
}
