package results

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/loadgate/loadgate/scenarios"
)

// Schema is the version of the results document this package writes. It
// changes only when an existing field changes meaning or disappears; adding a
// field keeps it, so older readers of the same schema still work.
const Schema = 1

// Run is the results document (results.json): everything one invocation of
// loadgate measured and judged. It is self-contained so that it can serve as
// a baseline and as input to `loadgate merge` and `loadgate report`.
type Run struct {
	Schema          int           `json:"schema"` // always Schema when written by this version
	LoadgateVersion string        `json:"loadgate_version"`
	Start           time.Time     `json:"start"`
	End             time.Time     `json:"end"`
	Interrupted     bool          `json:"interrupted,omitempty"` // stopped by SIGINT/SIGTERM: figures are partial
	Commit          string        `json:"commit,omitempty"`      // git commit of the code under test
	Host            Host          `json:"host"`
	Passed          bool          `json:"passed"`             // no fail-level verdict failed, nothing errored, not interrupted, aborted nor invalid; derived again on reading
	Baseline        *BaselineInfo `json:"baseline,omitempty"` // what --baseline loaded, and whether its environment matches
	// Segment marks a part of a distributed run (run --segment, --start-at);
	// nil for an ordinary run.
	Segment *SegmentInfo `json:"segment,omitempty"`
	// Merged lists the parts that `loadgate merge` put together; nil
	// unless this document was written by merge.
	Merged    *MergeInfo     `json:"merged,omitempty"`
	Scenarios []*ScenarioRun `json:"scenarios"`
}

// Host describes the machine that generated the load. Together with the
// loadgate version it is the environment fingerprint that baselines are
// compared under: numbers from different fingerprints are not comparable.
type Host struct {
	Hostname string `json:"hostname"`
	OS       string `json:"os"`   // runtime.GOOS
	Arch     string `json:"arch"` // runtime.GOARCH
	CPUModel string `json:"cpu_model,omitempty"`
	Cores    int    `json:"cores"` // logical CPUs usable by the process
	// Runner holds the CI runner labels (RUNNER_OS, RUNNER_ARCH,
	// RUNNER_ENVIRONMENT) as sorted "KEY=value" pairs separated by spaces;
	// empty outside CI. It is a string so that Host stays comparable with ==.
	Runner string `json:"runner,omitempty"`
}

// ScenarioRun is one scenario of a run.
type ScenarioRun struct {
	Name        string    `json:"name"`
	Description string    `json:"description,omitempty"`
	File        string    `json:"file,omitempty"`
	Hash        string    `json:"hash,omitempty"` // hex SHA-256 of the scenario file
	Start       time.Time `json:"start"`
	End         time.Time `json:"end"`
	Interrupted bool      `json:"interrupted,omitempty"`
	// Aborted is set when an abort: true threshold stopped the scenario's
	// load (SPEC §4): the rule, when, over which window, with what values.
	// Such a scenario never passes.
	Aborted *Aborted `json:"aborted,omitempty"`
	// Error is set when the scenario could not be carried out at all (its
	// server did not start, for example); Cases then holds what was measured.
	Error string     `json:"error,omitempty"`
	Cases []*CaseRun `json:"cases"`
	// Verdicts holds the verdicts that name no case of this scenario, so
	// that no judgement is ever lost from the document.
	Verdicts []Verdict `json:"verdicts,omitempty"`

	// Segment parts only: the scenario file as read and its effective
	// variables (secret-looking ones redacted), so that merge can judge
	// the whole without the file at hand.
	Source string            `json:"source,omitempty"`
	Vars   map[string]string `json:"vars,omitempty"`
	// NothingToSend: this segment's share of the scenario was zero (more
	// segments than workers or requests), so it sent nothing and Cases is
	// empty. Merge counts the part as present.
	NothingToSend bool `json:"nothing_to_send,omitempty"`
}

// CaseRun is one target × matrix combination with its measured phases and
// its verdicts. Warm-up phases never appear here.
type CaseRun struct {
	ID     string        `json:"id"`
	Target string        `json:"target"`
	Matrix []MatrixEntry `json:"matrix,omitempty"`
	// Phases are the measured phases in run order, histograms included.
	Phases []*PhaseResult `json:"phases"`
	// Stats summarise Phases taken together (Summarize).
	Stats Stats `json:"stats"`
	// ByName summarises each named request of Phases taken together: the
	// requests of a weighted mix, or the steps of a flow in step order;
	// empty for a single-request target.
	ByName   []NamedStats `json:"by_name,omitempty"`
	Verdicts []Verdict    `json:"verdicts"`
	Error    string       `json:"error,omitempty"` // the case could not be carried out
	// Baseline holds the same case's figures in the baseline; nil without
	// a baseline or when it has no matching case.
	Baseline *CaseBaseline `json:"baseline,omitempty"`
	// Server is the system under test's CPU and memory during the measured
	// phases (SPEC §3, §8); nil when none was started or monitored.
	Server     *Usage `json:"server,omitempty"`
	ServerName string `json:"server_name,omitempty"`
	// Servers are the other servers watched beside Server: the entries
	// of the scenario's `monitors:`, such as its database, in file order.
	Servers []NamedUsage `json:"servers,omitempty"`
	// SearchSpecs are the SLO and precision of the case's capacity-search
	// phases, for reports rendered without the scenario; nil without one.
	SearchSpecs []SearchSpec `json:"search_specs,omitempty"`
	// Load is the fingerprint of the case's load (scenarios.LoadShape):
	// a later run compares with this case only if its load is alike.
	// nil in a document written before loads had one.
	Load *scenarios.LoadShape `json:"load,omitempty"`
}

// MatrixEntry is one matrix key of a case with its typed value: int64,
// float64, bool or string, as the scenario wrote it.
type MatrixEntry struct {
	Key   string `json:"key"`
	Value any    `json:"value"`
}

// UnmarshalJSON keeps integers as int64: a plain decode would turn
// `concurrency: 100` into a float64 and break matching against a baseline.
func (m *MatrixEntry) UnmarshalJSON(data []byte) error {
	var raw struct {
		Key   string `json:"key"`
		Value any    `json:"value"`
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	if err := dec.Decode(&raw); err != nil {
		return err
	}
	m.Key, m.Value = raw.Key, raw.Value
	if n, ok := raw.Value.(json.Number); ok {
		if i, err := n.Int64(); err == nil && !strings.ContainsAny(n.String(), ".eE") {
			m.Value = i
		} else if f, err := n.Float64(); err == nil {
			m.Value = f
		} else {
			return fmt.Errorf("matrix %q: bad number %s", raw.Key, n)
		}
	}
	return nil
}

// Meta is the run-wide information the caller knows and this package
// cannot find out by itself.
type Meta struct {
	Version     string // loadgate version
	Commit      string // git commit of the code under test
	Host        Host   // usually HostInfo()
	Start, End  time.Time
	Interrupted bool
	// Baseline is what the run was judged against; nil for none.
	Baseline RunBaseline
	// StrictEnv makes a baseline from a different environment fail the run.
	StrictEnv bool
	// Merged lists the parts of a run that loadgate merge put together;
	// nil for any other run.
	Merged *MergeInfo
}

// ScenarioInput is what one scenario produced: its result, its verdicts and
// the error that stopped it, if any.
type ScenarioInput struct {
	Result   *ScenarioResult // may be nil when the scenario never started
	Verdicts []Verdict
	Err      error
	// Scenario names the scenario when Result is nil or carries none.
	Scenario *scenarios.Scenario
}

// NewRun assembles the results document. Verdicts are grouped by case
// (Verdict.Case == CaseResult.ID), warm-up phases are dropped, and Passed is
// true only when no verdict fails the run, no scenario or case errored, the
// run was not interrupted (partial figures are never a pass) nor aborted
// by an abort: true rule nor invalid (its generator saturated or it did not
// apply its load), and no --strict-env baseline came from a different
// environment.
func NewRun(meta Meta, inputs []ScenarioInput) *Run {
	run := &Run{
		Schema:          Schema,
		LoadgateVersion: meta.Version,
		Start:           meta.Start,
		End:             meta.End,
		Interrupted:     meta.Interrupted,
		Commit:          meta.Commit,
		Host:            meta.Host,
		Passed:          true,
		Baseline:        BaselineInfoFor(meta.Baseline, meta.Host, meta.Version, meta.StrictEnv),
		Merged:          meta.Merged,
		Scenarios:       make([]*ScenarioRun, 0, len(inputs)),
	}
	for i, in := range inputs {
		run.Scenarios = append(run.Scenarios, newScenarioRun(i, in, meta.Baseline))
	}
	run.Passed = run.passed()
	return run
}

// passed derives Passed from the document's figures and verdicts: never
// for an interrupted run, a --strict-env baseline from another
// environment, a merge that lacks some segment's load and was not told to
// judge what arrived, or a scenario that does not pass (ScenarioRun.Passed).
// ReadRun derives it again, and refuses a document whose stored flag
// differs (checkPassed).
func (r *Run) passed() bool {
	if r.Baseline.EnvFailed() || r.Interrupted || r.Merged.NotJudged() {
		return false
	}
	for _, sr := range r.Scenarios {
		if !sr.Passed() {
			return false
		}
	}
	return true
}

// NotCarriedOut reports whether some scenario or case could not do its job
// (its server did not start, no request of a measured phase succeeded):
// such a run is not a slow result but no result.
func (r *Run) NotCarriedOut() bool {
	for _, sr := range r.Scenarios {
		if sr.Error != "" {
			return true
		}
		for _, c := range sr.Cases {
			if c.Error != "" {
				return true
			}
		}
	}
	return false
}

func newScenarioRun(i int, in ScenarioInput, bl RunBaseline) *ScenarioRun {
	sr := &ScenarioRun{Cases: []*CaseRun{}}
	sc := in.Scenario
	if in.Result != nil {
		if in.Result.Scenario != nil {
			sc = in.Result.Scenario
		}
		sr.Start, sr.End = in.Result.Start, in.Result.End
		sr.Interrupted = in.Result.Interrupted
		sr.Aborted = AbortedIn(in.Result)
	}
	if sc != nil {
		sr.Name, sr.Description, sr.File, sr.Hash = sc.Name, sc.Description, sc.File, sc.Hash
	}
	if sr.Name == "" {
		sr.Name = fmt.Sprintf("scenario-%d", i+1)
	}
	if in.Err != nil {
		sr.Error = in.Err.Error()
	}

	byCase := make(map[string][]Verdict)
	known := make(map[string]bool)
	if in.Result != nil {
		for _, c := range in.Result.Cases {
			known[c.ID] = true
		}
	}
	for _, v := range in.Verdicts {
		if known[v.Case] {
			byCase[v.Case] = append(byCase[v.Case], v)
		} else {
			sr.Verdicts = append(sr.Verdicts, v)
		}
	}
	if in.Result == nil {
		return sr
	}
	for _, c := range in.Result.Cases {
		measured := c.Measured("")
		cr := &CaseRun{
			ID:       c.ID,
			Target:   c.Target,
			Phases:   measured,
			Stats:    Summarize(measured),
			ByName:   NamedStatsOf(measured),
			Verdicts: byCase[c.ID],
			Error:    c.Err,

			Server:     c.Server,
			ServerName: c.ServerName,
			Servers:    c.Servers,

			SearchSpecs: SearchSpecs(sc, c.ID),
			Load:        LoadShapeOf(sc, c.ID),
		}
		if bl != nil {
			cr.Baseline = bl.CaseFigures(sr.Name, c.ID, cr.Load)
		}
		if cr.Phases == nil {
			cr.Phases = []*PhaseResult{}
		}
		if cr.Verdicts == nil {
			cr.Verdicts = []Verdict{}
		}
		for _, m := range c.Matrix {
			cr.Matrix = append(cr.Matrix, MatrixEntry{Key: m.Key, Value: m.Value})
		}
		sr.Cases = append(sr.Cases, cr)
	}
	return sr
}

// Aborted is the abort that stopped the run's first aborted scenario; nil
// when no abort: true rule failed.
func (r *Run) Aborted() *Aborted {
	for _, sr := range r.Scenarios {
		if sr.Aborted != nil {
			return sr.Aborted
		}
	}
	return nil
}

// Passed reports whether nothing in the scenario fails the run: an
// invalid case (CaseRun.Invalidity) never passes.
func (sr *ScenarioRun) Passed() bool {
	if sr.Error != "" || sr.Interrupted || sr.Aborted != nil {
		return false
	}
	for _, c := range sr.Cases {
		if c.Error != "" || c.Invalidity() != "" {
			return false
		}
	}
	for _, v := range sr.AllVerdicts() {
		if v.Fails() {
			return false
		}
	}
	return true
}

// AllVerdicts lists the case verdicts in case order, then the unattached ones.
func (sr *ScenarioRun) AllVerdicts() []Verdict {
	var out []Verdict
	for _, c := range sr.Cases {
		out = append(out, c.Verdicts...)
	}
	return append(out, sr.Verdicts...)
}

// Targets lists the scenario's target names in order of first appearance.
func (sr *ScenarioRun) Targets() []string {
	var out []string
	seen := make(map[string]bool)
	for _, c := range sr.Cases {
		if !seen[c.Target] {
			seen[c.Target] = true
			out = append(out, c.Target)
		}
	}
	return out
}

// ReadRun decodes a results document. It refuses documents of another
// schema rather than guessing at their meaning, and documents with figures
// no run writes (see validate), and documents whose "passed" contradicts
// their verdicts and figures (ErrPassedContradicts), and rebuilds what is not
// stored: Stats.LatencyHist is merged again from the phases' histograms.
func ReadRun(r io.Reader) (*Run, error) {
	data, err := io.ReadAll(r)
	if err != nil {
		return nil, fmt.Errorf("read results: %w", err)
	}
	var probe struct {
		Schema *int            `json:"schema"`
		Passed json.RawMessage `json:"passed"` // decoded with the document
	}
	if err := json.Unmarshal(data, &probe); err != nil {
		return nil, fmt.Errorf("results are not valid JSON: %w", err)
	}
	switch {
	case probe.Schema == nil:
		return nil, errors.New("not a loadgate results document: no \"schema\" field")
	case *probe.Schema != Schema:
		return nil, fmt.Errorf("results schema %d is not supported: this loadgate reads schema %d", *probe.Schema, Schema)
	}
	var run Run
	if err := json.Unmarshal(data, &run); err != nil {
		return nil, fmt.Errorf("decode results: %w", err)
	}
	for _, sr := range run.Scenarios {
		if sr == nil {
			return nil, errors.New("decode results: null scenario")
		}
		for _, c := range sr.Cases {
			if c == nil {
				return nil, fmt.Errorf("decode results: scenario %q: null case", sr.Name)
			}
			for _, p := range c.Phases {
				if p == nil {
					return nil, fmt.Errorf("decode results: case %q: null phase", c.ID)
				}
				// Consumers call methods on histograms; an absent one
				// means no samples, not a crash.
				if p.Latency == nil {
					p.Latency = NewHistogram()
				}
				if p.Connect == nil {
					p.Connect = NewHistogram()
				}
				if err := readFlowParts(p); err != nil {
					return nil, fmt.Errorf("decode results: case %q: %w", c.ID, err)
				}
			}
			c.Stats.LatencyHist = Summarize(c.Phases).LatencyHist
			if c.ByName == nil {
				// Written before by_name existed: derive it.
				c.ByName = NamedStatsOf(c.Phases)
			}
		}
	}
	if err := validate(&run); err != nil {
		return nil, err
	}
	// The figures decide whether the run is judged and whether it passed;
	// a stored verdict that says otherwise is a hand edit's, and refused
	// rather than corrected, so that no command shows it either way.
	notJudged(&run)
	run.Passed = run.passed()
	if err := checkPassed(&run, probe.Passed); err != nil {
		return nil, err
	}
	return &run, nil
}

// WriteJSON writes run as indented JSON. The output depends only on run, so
// golden files and diffs between runs stay meaningful. HTML escaping is off
// because rules such as `p99 < 50ms` must stay readable.
func WriteJSON(w io.Writer, run *Run) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	if err := enc.Encode(run); err != nil {
		return fmt.Errorf("write results JSON: %w", err)
	}
	return nil
}
