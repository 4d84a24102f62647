package reporters

import (
	"encoding/xml"
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"

	"github.com/loadgate/loadgate/results"
	"github.com/loadgate/loadgate/scenarios"
)

// The document follows the Apache Ant JUnit schema, which is what Jenkins
// and the GitHub test-report actions validate against. That schema is strict:
// <testsuites> takes no attributes, every suite needs package and id, and
// <properties>, <system-out> and <system-err> must be present even when
// empty. Element order in the structs is the order the schema demands.

type junitSuites struct {
	XMLName xml.Name     `xml:"testsuites"`
	Suites  []junitSuite `xml:"testsuite"`
}

type junitSuite struct {
	Name       string          `xml:"name,attr"`
	Package    string          `xml:"package,attr"`
	ID         int             `xml:"id,attr"`
	Timestamp  string          `xml:"timestamp,attr"` // local form: the schema forbids a zone
	Hostname   string          `xml:"hostname,attr"`
	Tests      int             `xml:"tests,attr"`
	Failures   int             `xml:"failures,attr"`
	Errors     int             `xml:"errors,attr"`
	Skipped    int             `xml:"skipped,attr"`
	Time       string          `xml:"time,attr"`
	Properties junitProperties `xml:"properties"`
	Cases      []junitCase     `xml:"testcase"`
	SystemOut  junitText       `xml:"system-out"`
	SystemErr  junitText       `xml:"system-err"`
}

// junitText is free text kept as CDATA, so that multi-line bodies stay
// readable in the file instead of turning into &#xA; escapes.
type junitText struct {
	Text string `xml:",cdata"`
}

type junitProperties struct {
	Property []junitProperty `xml:"property"`
}

type junitProperty struct {
	Name  string `xml:"name,attr"`
	Value string `xml:"value,attr"`
}

type junitCase struct {
	Name      string `xml:"name,attr"`
	Classname string `xml:"classname,attr"`
	Time      string `xml:"time,attr"`
	// File and Line are written only with JUnitOptions.SourceAttrs: the
	// Ant schema has no such attributes.
	File    string        `xml:"file,attr,omitempty"`
	Line    int           `xml:"line,attr,omitempty"`
	Skipped *junitSkipped `xml:"skipped"`
	Error   *junitProblem `xml:"error"`
	Failure *junitProblem `xml:"failure"`
}

type junitSkipped struct {
	Message string `xml:"message,attr,omitempty"`
}

type junitProblem struct {
	Message string `xml:"message,attr"`
	Type    string `xml:"type,attr"`
	Body    string `xml:",cdata"`
}

// junitTime is the schema's ISO 8601 pattern without a zone; times are
// written in UTC so that runs from different machines line up.
const junitTime = "2006-01-02T15:04:05"

// WriteJUnit writes run as JUnit XML: one <testsuite> per scenario and one
// <testcase> per threshold × case, named "[case id] threshold" with
// classname "scenario › target" (see junitClassname: no dot, so that no
// reader takes it for a source file). A failing fail-level threshold is a
// <failure> showing expected (the rule) against actual, and for a
// regression the judgement; a rule that could not be evaluated is an
// <error>; a skipped rule is <skipped>, and so is an inconclusive one
// (message "inconclusive: …") unless --fail-on-inconclusive made it a
// failure. A warn-level failure must not fail a build and must not read as
// a pass either: it is <skipped message="warn: rule: actual">, and listed
// in the suite's <system-out>. A scenario or case that could not run is an
// <error>. The testcases' times add up to their suite's, the scenario's
// wall time: each case's share is on its first testcase only
// (junitSetTimes). Each suite's <properties> carry rps, p50, p99 and
// error rate per case, plus dropped arrivals for open-model cases, the rps
// coefficient of variation for cases run with trials, the server's mean CPU
// (server_cpu_mean, percent of one core) and highest memory (server_rss_max,
// bytes) and the host's highest load1 (host_load1_max) when they were
// sampled, and the baseline's figures and environment check when a baseline
// was loaded; a baseline from a different environment is also noted in
// <system-out>, and is a failing testcase under --strict-env. An
// interrupted scenario gets a testcase "run completed" with an <error> of
// type "interrupted", so that no consumer shows partial figures as green.
// A scenario an abort: true rule stopped has a <failure> of type "abort"
// on that rule's testcase, saying when, over which window and with what
// values, and a property "aborted"; a case that ran a capacity search has
// properties capacity (requests/s; when the generator limited the search,
// capacity_at_least instead), capacity_limited_by_generator and probes.
func WriteJUnit(w io.Writer, run *results.Run) error {
	return JUnitOptions{}.Write(w, run)
}

// Write writes run as JUnit XML the way WriteJUnit does, with o's choices.
func (o JUnitOptions) Write(w io.Writer, run *results.Run) error {
	doc := junitSuites{Suites: []junitSuite{}}
	for i, sr := range run.Scenarios {
		doc.Suites = append(doc.Suites, o.suite(i, run, sr))
	}
	if len(doc.Suites) == 0 && run.Interrupted {
		// Stopped before the first scenario began: an empty document
		// would read as green.
		doc.Suites = append(doc.Suites, o.suite(0, run, &results.ScenarioRun{Name: "loadgate", Interrupted: true}))
	}
	if _, err := io.WriteString(w, xml.Header); err != nil {
		return fmt.Errorf("write JUnit XML: %w", err)
	}
	enc := xml.NewEncoder(w)
	enc.Indent("", "  ")
	if err := enc.Encode(doc); err != nil {
		return fmt.Errorf("write JUnit XML: %w", err)
	}
	if err := enc.Close(); err != nil {
		return fmt.Errorf("write JUnit XML: %w", err)
	}
	if _, err := io.WriteString(w, "\n"); err != nil {
		return fmt.Errorf("write JUnit XML: %w", err)
	}
	return nil
}

func (o JUnitOptions) suite(id int, run *results.Run, sr *results.ScenarioRun) junitSuite {
	start := sr.Start
	if start.IsZero() {
		start = run.Start
	}
	host := oneLine(run.Host.Hostname)
	if host == "" {
		host = "localhost"
	}
	name := oneLine(sr.Name)
	if name == "" {
		name = "scenario"
	}
	s := junitSuite{
		Name:      name,
		Package:   name,
		ID:        id,
		Timestamp: start.UTC().Format(junitTime),
		Hostname:  host,
		Cases:     []junitCase{},
	}
	s.Properties.Property = junitSuiteProperties(run, sr)
	file, _ := o.junitSource(scenarios.Pos{}, sr.File)
	var caseOf []string // the case ID of each testcase, "" for the scenario's own
	add := func(caseID string, tc junitCase) {
		s.Cases = append(s.Cases, tc)
		caseOf = append(caseOf, caseID)
	}
	scenarioCase := func(tc junitCase) junitCase {
		tc.Classname, tc.File = junitClassname(name, ""), file
		return tc
	}

	own, out := junitScenarioCases(run, sr)
	for _, tc := range own {
		add("", scenarioCase(tc))
	}
	measured := make(map[string]time.Duration)
	for _, c := range sr.Cases {
		measured[c.ID] = c.Stats.Elapsed
		if c.Error != "" {
			add(c.ID, junitCase{
				Name:      "[" + oneLine(c.ID) + "] run",
				Classname: junitClassname(name, c.Target),
				File:      file,
				Error:     &junitProblem{Message: oneLine(c.Error), Type: "case", Body: xmlSafe(c.Error)},
			})
		}
	}
	abortShown := false
	for _, v := range sr.AllVerdicts() {
		tc, note := junitVerdict(name, v)
		tc.File, tc.Line = o.junitSource(v.Pos, sr.File)
		if a := sr.Aborted; !abortShown && abortVerdict(a, v) {
			// The rule stopped the load: whatever the verdict over what
			// was measured says, the testcase fails with why and when.
			tc.Skipped, tc.Error, tc.Failure, note = nil, nil, junitAbortFailure(a, &v), ""
			abortShown = true
		}
		add(v.Case, tc)
		if note != "" {
			out = append(out, note)
		}
	}
	if a := sr.Aborted; a != nil {
		out = append(out, "ABORTED "+AbortReason(a))
		if !abortShown {
			add(a.Case, scenarioCase(junitCase{
				Name:    "[" + oneLine(a.Case) + "] " + oneLine(abortedRule(a)),
				Failure: junitAbortFailure(a, nil),
			}))
		}
	}
	junitSetTimes(&s, sr.End.Sub(sr.Start), caseOf, measured)
	s.count()
	if len(out) > 0 {
		s.SystemOut.Text = xmlSafe(strings.Join(out, "\n") + "\n")
	}
	return s
}

// count sets the suite's totals from its testcases.
func (s *junitSuite) count() {
	for _, tc := range s.Cases {
		switch {
		case tc.Failure != nil:
			s.Failures++
		case tc.Error != nil:
			s.Errors++
		case tc.Skipped != nil:
			s.Skipped++
		}
	}
	s.Tests = len(s.Cases)
}

// junitScenarioCases are the testcases about the whole scenario (stopped
// early, measured against a baseline from elsewhere under --strict-env, or
// not run at all), with the lines they add to the suite's system-out.
func junitScenarioCases(run *results.Run, sr *results.ScenarioRun) ([]junitCase, []string) {
	var cases []junitCase
	var out []string
	if sr.Interrupted || run.Interrupted {
		out = append(out, "INTERRUPTED: the run was stopped early; figures are partial.")
		cases = append(cases, junitInterrupted())
	}
	if tc, ok := junitInvalid(sr); ok {
		out = append(out, "INVALID — NOT JUDGED: "+strings.TrimPrefix(tc.Error.Message, junitInvalidPrefix))
		cases = append(cases, tc)
	}
	if bi := run.Baseline; bi != nil && !bi.FingerprintMatch {
		note := "BASELINE FROM A DIFFERENT ENVIRONMENT (" + oneLine(bi.File) + "): " + oneLine(envSummary(bi.Differences))
		out = append(out, note)
		if bi.StrictEnv {
			cases = append(cases, junitCase{
				Name: "baseline environment",
				Failure: &junitProblem{
					Message: "--strict-env: the baseline was measured in a different environment: " + oneLine(envSummary(bi.Differences)),
					Type:    "environment",
					Body:    xmlSafe(strings.Join(bi.Differences, "\n") + "\n"),
				},
			})
		}
	}
	if mi := run.Merged; len(mi.Partial()) > 0 {
		text := oneLine(mi.PartialText())
		if mi.AllowPartial {
			out = append(out, "PARTIAL, JUDGED ON WHAT ARRIVED (--allow-partial): "+text)
		} else {
			out = append(out, "PARTIAL — NOT JUDGED: "+text)
			cases = append(cases, junitCase{
				Name:  "every segment's load",
				Error: &junitProblem{Message: text + "; thresholds not judged", Type: "partial", Body: xmlSafe(text + "\n")},
			})
		}
	}
	if t := run.Merged.SkewText(); t != "" {
		out = append(out, "SEGMENTS OUT OF STEP: "+oneLine(t))
	}
	if sr.Error != "" {
		cases = append(cases, junitCase{
			Name:  "run",
			Error: &junitProblem{Message: oneLine(sr.Error), Type: "scenario", Body: xmlSafe(sr.Error)},
		})
	}
	return cases, out
}

// junitVerdict maps one verdict onto a testcase. The note is a line for the
// suite's system-out, used for warn-level failures, which are also
// <skipped message="warn: …">: not failed, as the build is not, and not
// passed either.
func junitVerdict(scenario string, v results.Verdict) (junitCase, string) {
	tc := junitCase{
		Name:      "[" + oneLine(v.Case) + "] " + oneLine(v.Name),
		Classname: junitClassname(scenario, v.Target),
	}
	actual := verdictActual(v)
	body := junitDetail(v, actual)
	switch classify(v) {
	case classSkip, classNotJudged:
		tc.Skipped = &junitSkipped{Message: oneLine(v.Reason)}
	case classInconclusive, classIncomparable:
		msg := string(v.Status) + ": " + oneLine(v.Reason)
		if !v.Fails() {
			tc.Skipped = &junitSkipped{Message: msg}
			break
		}
		tc.Failure = &junitProblem{Message: msg + " (--fail-on-inconclusive)", Type: string(v.Status), Body: body}
	case classFail:
		if v.Status == results.StatusError {
			tc.Error = &junitProblem{Message: oneLine(v.Reason), Type: "rule", Body: body}
		} else {
			msg := "expected " + oneLine(v.Rule) + ", actual " + oneLine(actual)
			if at := where(v.Pos); at != "" {
				msg += " (" + at + ")"
			}
			tc.Failure = &junitProblem{Message: msg, Type: "threshold", Body: body}
		}
	case classWarn:
		msg := "warn: " + oneLine(v.Rule) + ": " + oneLine(actual)
		note := fmt.Sprintf("WARN %s: %s (actual %s)", tc.Name, oneLine(v.Rule), oneLine(actual))
		if at := where(v.Pos); at != "" {
			msg += " (" + at + ")"
			note += " at " + at
		}
		tc.Skipped = &junitSkipped{Message: msg}
		return tc, note
	}
	return tc, ""
}

// junitDetail is the failure body: enough to act on without opening the
// Markdown report.
func junitDetail(v results.Verdict, actual string) string {
	var b strings.Builder
	row := func(k, val string) {
		if val != "" {
			fmt.Fprintf(&b, "%-9s %s\n", k+":", val)
		}
	}
	row("expected", v.Rule)
	row("actual", actual)
	row("case", v.Case)
	row("phase", v.Phase)
	if v.BaselineTarget != "" {
		row("baseline", "target "+v.BaselineTarget+", same run")
	}
	row("severity", string(v.Severity))
	row("at", where(v.Pos))
	return xmlSafe(b.String())
}

// xmlSafe replaces the characters XML 1.0 cannot carry at all. The encoder
// does this for attributes and escaped text but not inside CDATA, and rule
// text or server errors may hold anything.
func xmlSafe(s string) string {
	return strings.Map(func(r rune) rune {
		switch {
		case r == '\t' || r == '\n' || r == '\r',
			r >= 0x20 && r <= 0xD7FF,
			r >= 0xE000 && r <= 0xFFFD,
			r >= 0x10000 && r <= 0x10FFFF:
			return r
		default:
			return '\uFFFD'
		}
	}, s)
}

// junitSuiteProperties lists the run's identity, then the key figures of
// every case, with units in the property names so that tools can chart them.
func junitSuiteProperties(run *results.Run, sr *results.ScenarioRun) []junitProperty {
	props := []junitProperty{{"loadgate.version", run.LoadgateVersion}}
	add := func(name, value string) {
		if value != "" {
			props = append(props, junitProperty{name, value})
		}
	}
	add("commit", run.Commit)
	add("headline", Headline(run))
	add("scenario.file", sr.File)
	add("scenario.hash", sr.Hash)
	if sr.Interrupted || run.Interrupted {
		add("interrupted", "true")
	}
	if a := sr.Aborted; a != nil {
		add("aborted", AbortReason(a))
	}
	if bi := run.Baseline; bi != nil {
		add("baseline.file", bi.File)
		add("baseline.fingerprint_match", strconv.FormatBool(bi.FingerprintMatch))
		add("baseline.differences", oneLine(envSummary(bi.Differences)))
	}
	for _, c := range sr.Cases {
		id := oneLine(c.ID)
		st := c.Stats
		add(id+".requests", strconv.FormatInt(st.Requests, 10))
		add(id+".rps", strconv.FormatFloat(st.RPS, 'f', 2, 64))
		add(id+".p50_ms", strconv.FormatFloat(ms(st.Latency.P50), 'f', 3, 64))
		add(id+".p99_ms", strconv.FormatFloat(ms(st.Latency.P99), 'f', 3, 64))
		add(id+".error_rate", strconv.FormatFloat(st.ErrorRate, 'f', 6, 64))
		if openModel(c.Phases) {
			add(id+".dropped", strconv.FormatInt(st.Dropped, 10))
		}
		if why := c.Invalidity(); why != "" {
			add(id+".invalid", oneLine(why))
		}
		if st.Trials != nil {
			add(id+".rps_cv", strconv.FormatFloat(st.Trials.RPSCV, 'f', 4, 64))
		}
		junitSearchProperties(id, c, add)
		if u := c.Server; u != nil && u.Samples > 0 {
			if serverSampled(u) {
				add(id+".server_cpu_mean", strconv.FormatFloat(u.CPUMean, 'f', 2, 64))
				add(id+".server_rss_max", strconv.FormatInt(u.RSSMax, 10))
			}
			if serverSampled(u) && u.HostMemTotal > 0 {
				add(id+".server_rss_max_pct", strconv.FormatFloat(u.RSSMaxPct, 'f', 2, 64))
			}
			if u.HostSampled() {
				add(id+".host_load1_max", fmtLoad(u.HostLoad1Max))
			}
		}
		for _, sv := range c.Servers {
			if serverSampled(&sv.Usage) {
				add(id+".servers."+sv.Name+".cpu_mean", strconv.FormatFloat(sv.CPUMean, 'f', 2, 64))
				add(id+".servers."+sv.Name+".rss_max", strconv.FormatInt(sv.RSSMax, 10))
			}
		}
		junitFlowProperties(id, c, add)
		if cb := c.Baseline; cb != nil {
			add(id+".baseline.rps", strconv.FormatFloat(cb.RPS, 'f', 2, 64))
			add(id+".baseline.p50_ms", strconv.FormatFloat(ms(cb.P50), 'f', 3, 64))
			add(id+".baseline.p99_ms", strconv.FormatFloat(ms(cb.P99), 'f', 3, 64))
		}
	}
	return props
}

// junitSearchProperties adds what a case's capacity search found: the
// capacity only when it is a number, the lower bound's flag and the
// number of probes otherwise too.
func junitSearchProperties(id string, c *results.CaseRun, add func(name, value string)) {
	s := results.CaseSearch(c)
	if s == nil {
		return
	}
	if cp, ok := caseCapacity(c); ok {
		add(id+".capacity", strconv.FormatFloat(cp, 'f', 2, 64))
	} else if s.LimitedByGenerator && s.Pass > 0 {
		add(id+".capacity_at_least", strconv.FormatFloat(s.Pass, 'f', 2, 64))
	}
	add(id+".capacity_limited_by_generator", strconv.FormatBool(s.LimitedByGenerator))
	n := 0
	for _, p := range results.SearchedPhases(c.Phases) {
		n += len(p.Search.Probes)
	}
	add(id+".probes", strconv.Itoa(n))
}
