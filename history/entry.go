package history

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"time"

	"github.com/loadgate/loadgate/results"
)

// EntrySchema is the version of the entry files this package writes.
const EntrySchema = 1

// Entry is one run of one scenario as the history keeps it: the figures
// a series needs, per case and metric, and what identifies the run. It is
// written once and never changed.
type Entry struct {
	Schema   int    `json:"schema"`
	Scenario string `json:"scenario"`
	// Time is when the run ended, in UTC: runs are ordered by it.
	Time        time.Time   `json:"time"`
	Commit      string      `json:"commit,omitempty"`
	Parent      string      `json:"parent,omitempty"` // the commit's first parent
	Branch      string      `json:"branch,omitempty"`
	RunURL      string      `json:"run_url,omitempty"`
	Version     string      `json:"loadgate_version"`
	Environment Environment `json:"environment"`
	Cases       []CaseEntry `json:"cases"`
}

// Environment is the kind of machine that generated the load, with the
// loadgate version: the fingerprint under which figures compare. Runs of
// different environments are different series.
type Environment struct {
	OS       string `json:"os"`
	Arch     string `json:"arch"`
	CPUModel string `json:"cpu_model,omitempty"`
	Cores    int    `json:"cores"`
	Runner   string `json:"runner,omitempty"`
	Version  string `json:"loadgate_version"`
}

// EnvironmentOf is the environment of a run's results document.
func EnvironmentOf(run *results.Run) Environment {
	h := run.Host
	return Environment{OS: h.OS, Arch: h.Arch, CPUModel: h.CPUModel, Cores: h.Cores, Runner: h.Runner, Version: run.LoadgateVersion}
}

// ID names the environment in 8 hex digits, stable across runs.
func (e Environment) ID() string {
	sum := sha256.Sum256([]byte(fmt.Sprintf("%q %q %q %d %q %q", e.OS, e.Arch, e.CPUModel, e.Cores, e.Runner, e.Version)))
	return hex.EncodeToString(sum[:4])
}

// String describes the environment for a person, e.g.
// `linux/amd64, 2 × "AMD EPYC 7763", loadgate v1.2.0`.
func (e Environment) String() string {
	s := fmt.Sprintf("%s/%s, %d × %s", e.OS, e.Arch, e.Cores, strconv.Quote(e.CPUModel))
	if e.Runner != "" {
		s += ", " + e.Runner
	}
	return s + ", loadgate " + e.Version
}

// CaseEntry is one case's figures in a run.
type CaseEntry struct {
	ID     string `json:"id"`
	Target string `json:"target,omitempty"`
	// Load is the digest of the case's load shape (scenarios.LoadShape.Digest):
	// a changed load test starts a new series. Empty when the results
	// document had no shape.
	Load string `json:"load,omitempty"`
	// Phases names the measured phases, in run order.
	Phases  []string `json:"phases,omitempty"`
	Metrics []Metric `json:"metrics"`
}

// Metric is one metric of a case in a run: the value a series plots (the
// median of the trials when the metric has them) and the trials'.
type Metric struct {
	Name   string    `json:"name"`
	Median float64   `json:"median"`
	Trials []float64 `json:"trials,omitempty"`
}

// Metric returns the case's metric named name.
func (c *CaseEntry) Metric(name string) (Metric, bool) {
	i := slices.IndexFunc(c.Metrics, func(m Metric) bool { return m.Name == name })
	if i < 0 {
		return Metric{}, false
	}
	return c.Metrics[i], true
}

// Origin is what the results document does not know about a run: where
// in the repository's history and in CI it was made.
type Origin struct {
	Commit, Parent, Branch, RunURL string
}

// ErrRefused wraps the reason a results document cannot join the history.
var ErrRefused = errors.New("not added to the history")

// EntriesOf turns a results document into one entry per scenario.
// Interrupted, aborted, invalid and failed-to-run results are refused
// with the reason: their figures are not the level of the code.
func EntriesOf(run *results.Run, origin Origin) ([]*Entry, error) {
	if err := refused(run); err != nil {
		return nil, fmt.Errorf("%w: %w", ErrRefused, err)
	}
	if origin.Commit == "" {
		origin.Commit = run.Commit
	}
	var out []*Entry
	for _, sr := range run.Scenarios {
		e := &Entry{
			Schema: EntrySchema, Scenario: sr.Name, Time: run.End.UTC(),
			Commit: origin.Commit, Parent: origin.Parent, Branch: origin.Branch, RunURL: origin.RunURL,
			Version: run.LoadgateVersion, Environment: EnvironmentOf(run),
		}
		for _, c := range sr.Cases {
			e.Cases = append(e.Cases, caseEntryOf(c))
		}
		out = append(out, e)
	}
	return out, nil
}

func refused(run *results.Run) error {
	if err := results.RefuseInterrupted(run, "history"); err != nil {
		return err
	}
	if err := results.RefuseInvalid(run, "history"); err != nil {
		return err
	}
	if run.Merged == nil && run.Segment != nil {
		return fmt.Errorf("this is segment %d/%d of a distributed run; add the merged results", run.Segment.Index, run.Segment.Count)
	}
	if len(run.Scenarios) == 0 {
		return errors.New("the results hold no scenario")
	}
	for _, sr := range run.Scenarios {
		if sr.Aborted != nil {
			return fmt.Errorf("scenario %q was aborted by its rule %q; an aborted run cannot be history", sr.Name, sr.Aborted.Rule)
		}
		if sr.Error != "" {
			return fmt.Errorf("scenario %q could not be carried out (%s); such a run cannot be history", sr.Name, sr.Error)
		}
		for _, c := range sr.Cases {
			if c.Error != "" {
				return fmt.Errorf("case %q of scenario %q could not be carried out (%s); such a run cannot be history", c.ID, sr.Name, c.Error)
			}
		}
	}
	return nil
}

func caseEntryOf(c *results.CaseRun) CaseEntry {
	ce := CaseEntry{ID: c.ID, Target: c.Target}
	if c.Load != nil {
		ce.Load = c.Load.Digest()
	}
	for _, p := range c.Phases {
		ce.Phases = append(ce.Phases, p.Name)
	}
	trials := results.TrialsOf(c.Phases)
	for _, m := range trialMetricsOf(c) {
		xs := make([]float64, len(trials))
		for i, t := range trials {
			xs[i] = m.of(t)
		}
		ce.Metrics = append(ce.Metrics, Metric{Name: m.name, Median: median(xs), Trials: xs})
	}
	// p90 exists for the case's merged requests only; its series is still
	// one honest value per run.
	if c.Stats.Latency.P90 > 0 {
		ce.Metrics = append(ce.Metrics, Metric{Name: "p90", Median: float64(c.Stats.Latency.P90)})
	}
	if u := c.Server; u != nil && u.Samples > 0 {
		ce.Metrics = append(ce.Metrics, Metric{Name: "server.cpu", Median: u.CPUMean})
	}
	slices.SortStableFunc(ce.Metrics, func(a, b Metric) int { return metricOrder(a.Name) - metricOrder(b.Name) })
	return ce
}

// recordedTrialMetrics are the per-trial figures an entry keeps: those
// regressed() compares, and the request count that rebuilds a trial's
// error count.
type recordedTrialMetric struct {
	name string
	of   func(results.Trial) float64
}

func trialMetricsOf(c *results.CaseRun) []recordedTrialMetric {
	ms := []recordedTrialMetric{
		{"rps", func(t results.Trial) float64 { return t.RPS }},
		{"p50", func(t results.Trial) float64 { return float64(t.P50) }},
		{"p99", func(t results.Trial) float64 { return float64(t.P99) }},
		{"error_rate", results.Trial.ErrorRate},
		{"requests", func(t results.Trial) float64 { return float64(t.Requests) }},
	}
	if c.Stats.Capacity > 0 || c.Stats.Search != nil {
		ms = append(ms, recordedTrialMetric{"capacity", func(t results.Trial) float64 { return t.Capacity }})
	}
	if c.Stats.Dropped > 0 {
		ms = append(ms, recordedTrialMetric{"dropped", func(t results.Trial) float64 { return float64(t.Dropped) }})
	}
	return ms
}

// median of xs, which it sorts a copy of; 0 for none.
func median(xs []float64) float64 {
	if len(xs) == 0 {
		return 0
	}
	s := slices.Clone(xs)
	slices.Sort(s)
	n := len(s)
	if n%2 == 1 {
		return s[n/2]
	}
	return (s[n/2-1] + s[n/2]) / 2
}
