package results

import (
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"
)

// maxRate bounds every per-second figure (rps, bytes per second) a results
// document may carry: a thousand machines at ten million requests per
// second each stay below it, while a hand-edited 1e308 does not, and would
// otherwise overflow the integer formatting of every report.
const maxRate = 1e12

// ErrInvalidResults is wrapped by every refusal of validate.
var ErrInvalidResults = errors.New("invalid results")

// validate checks a decoded results document for what no run of loadgate
// writes: negative counts, more failures than requests, succeeded and
// failed not adding up to requests, negative durations, and rates or
// ratios that are NaN, infinite or absurd. It is the one check on read
// for baselines, compare, merge and report, so that nothing downstream has
// to guard its arithmetic against a corrupted or hand-edited file.
func validate(run *Run) error {
	v := validator{}
	v.count("host.cores", int64(run.Host.Cores))
	for _, sr := range run.Scenarios {
		if a := sr.Aborted; a != nil {
			v.duration(fmt.Sprintf("scenario %q: aborted at", sr.Name), a.At)
			v.duration(fmt.Sprintf("scenario %q: aborted window", sr.Name), a.Window)
		}
		for _, c := range sr.Cases {
			where := fmt.Sprintf("scenario %q, case %q", sr.Name, c.ID)
			v.stats(where, &c.Stats)
			for _, n := range c.ByName {
				v.named(where+", request "+strconv.Quote(n.Name), &n)
			}
			for _, p := range c.Phases {
				v.phase(where+", phase "+strconv.Quote(p.Name), p)
			}
			if u := c.Server; u != nil {
				v.usage(where+", server", u)
			}
			for i := range c.Servers {
				v.usage(where+", server "+strconv.Quote(c.Servers[i].Name), &c.Servers[i].Usage)
			}
			if b := c.Baseline; b != nil {
				v.rate(where+", baseline rps", b.RPS)
				v.ratio(where+", baseline error_rate", b.ErrorRate)
				v.duration(where+", baseline p50", b.P50)
				v.duration(where+", baseline p99", b.P99)
			}
		}
	}
	if len(v.problems) == 0 {
		return nil
	}
	more := ""
	if n := len(v.problems); n > 1 {
		more = fmt.Sprintf(" (and %d more problems)", n-1)
	}
	return fmt.Errorf("%w: %s%s", ErrInvalidResults, v.problems[0], more)
}

// validator collects problems; the first names the document's flaw and
// the count says how far the damage goes.
type validator struct{ problems []string }

func (v *validator) add(format string, args ...any) {
	v.problems = append(v.problems, fmt.Sprintf(format, args...))
}

func (v *validator) count(what string, n int64) {
	if n < 0 {
		v.add("%s is negative (%d)", what, n)
	}
}

func (v *validator) duration(what string, d time.Duration) {
	if d < 0 {
		v.add("%s is a negative duration (%s)", what, d)
	}
}

// number accepts a finite, non-negative float no larger than limit.
func (v *validator) number(what string, f, limit float64) {
	switch {
	case math.IsNaN(f) || math.IsInf(f, 0):
		v.add("%s is %v", what, f)
	case f < 0:
		v.add("%s is negative (%g)", what, f)
	case f > limit:
		v.add("%s is %g, beyond any measurable value (at most %g)", what, f, limit)
	}
}

func (v *validator) rate(what string, f float64)  { v.number(what, f, maxRate) }
func (v *validator) ratio(what string, f float64) { v.number(what, f, 1) }

// counters checks one set of additive figures.
func (v *validator) counters(where string, c *Counters) {
	v.count(where+": requests", c.Requests)
	v.count(where+": succeeded", c.Succeeded)
	v.count(where+": failed", c.Failed)
	v.count(where+": bytes_sent", c.BytesSent)
	v.count(where+": bytes_received", c.BytesReceived)
	v.count(where+": messages", c.Messages)
	c.Errors.Each(func(kind string, n int64) { v.count(where+": errors."+kind, n) })
	for code, n := range c.Errors.GRPC {
		if code == "" {
			v.add("%s: errors.grpc has an empty status name", where)
		}
		v.count(where+": errors.grpc["+code+"]", n)
	}
	if c.Requests >= 0 && c.Succeeded >= 0 && c.Failed >= 0 && c.Succeeded+c.Failed != c.Requests {
		v.add("%s: succeeded %d + failed %d is not requests %d", where, c.Succeeded, c.Failed, c.Requests)
	}
	v.statusCodes(where, c)
}

// statusCodes checks the responses counted by status: codes loadgate can
// count, and no more responses than requests.
func (v *validator) statusCodes(where string, c *Counters) {
	var sum int64
	for code, n := range c.StatusCodes {
		if !IsStatusKey(code) {
			v.add("%s: status_codes has %q, which is not a code from 100 to 599 nor %q", where, code, StatusOther)
		}
		v.count(where+": status_codes["+code+"]", n)
		if n > 0 {
			sum += n
		}
	}
	if sum > c.Requests && c.Requests >= 0 {
		v.add("%s: status_codes count %d responses, more than requests %d", where, sum, c.Requests)
	}
}

func (v *validator) distribution(what string, d Distribution) {
	for _, x := range []time.Duration{d.Min, d.Mean, d.Max, d.StdDev, d.P50, d.P90, d.P95, d.P99, d.P999} {
		if x < 0 {
			v.duration(what, x)
			return
		}
	}
}

func (v *validator) stats(where string, st *Stats) {
	v.counters(where, &st.Counters)
	v.duration(where+": elapsed", st.Elapsed)
	v.count(where+": dropped", st.Dropped)
	v.rate(where+": rps", st.RPS)
	v.rate(where+": attempted_rps", st.AttemptedRPS)
	v.rate(where+": transfer_rate", st.TransferRate)
	v.ratio(where+": error_rate", st.ErrorRate)
	v.distribution(where+": latency", st.Latency)
	v.distribution(where+": failed_latency", st.FailedLatency)
	v.distribution(where+": connect", st.Connect)
	v.number(where+": generator.cpu", st.Generator.CPU, 1e6)
	v.number(where+": generator.loop_cpu", st.Generator.LoopCPU, 1e6)
	v.rate(where+": capacity", st.Capacity)
	if st.Search != nil {
		v.search(where+": search", st.Search)
	}
	if it := st.Iterations; it != nil {
		v.iterations(where+": iterations", it.Iterations, it.Succeeded, it.Failed)
		v.rate(where+": iterations.rps", it.RPS)
		v.distribution(where+": iterations.latency", it.Latency)
	}
	if sp := st.Trials; sp != nil {
		v.count(where+": trials.n", int64(sp.N))
		for _, f := range append([]float64{sp.RPSMedian, sp.RPSMin, sp.RPSMax}, sp.RPS...) {
			v.rate(where+": trials rps", f)
		}
		v.number(where+": trials.rps_cv", sp.RPSCV, 1e6)
	}
}

func (v *validator) phase(where string, p *PhaseResult) {
	v.counters(where, &p.Counters)
	v.duration(where+": elapsed", p.Elapsed)
	v.count(where+": concurrency", int64(p.Concurrency))
	v.count(where+": dropped", p.Dropped)
	for _, t := range p.Trials {
		v.count(where+": trial requests", t.Requests)
		v.count(where+": trial failed", t.Failed)
		v.rate(where+": trial rps", t.RPS)
		v.rate(where+": trial capacity", t.Capacity)
		v.duration(where+": trial elapsed", t.Elapsed)
	}
	if p.Search != nil {
		v.search(where+": search", p.Search)
	}
	if a := p.Aborted; a != nil {
		v.duration(where+": aborted at", a.At)
		v.duration(where+": aborted window", a.Window)
	}
	for _, s := range p.Series {
		v.count(where+": series completed", s.Completed)
		v.count(where+": series errors", s.Errors)
	}
	for _, n := range p.ByName {
		if n != nil {
			v.counters(where+", request "+strconv.Quote(n.Name), &n.Counters)
		}
	}
	if it := p.Iterations; it != nil {
		v.iterations(where+": iterations", it.Iterations, it.Succeeded, it.Failed)
	}
}

// iterations checks a flow's iteration counters, which add up the way a
// request's do: every completed iteration succeeded or failed.
func (v *validator) iterations(where string, n, succeeded, failed int64) {
	v.count(where, n)
	v.count(where+" succeeded", succeeded)
	v.count(where+" failed", failed)
	if n >= 0 && succeeded >= 0 && failed >= 0 && succeeded+failed != n {
		v.add("%s: succeeded %d + failed %d is not iterations %d", where, succeeded, failed, n)
	}
}

// named checks the summary of one named request (a mix's, a flow step's).
func (v *validator) named(where string, n *NamedStats) {
	v.counters(where, &n.Counters)
	v.rate(where+": rps", n.RPS)
	v.ratio(where+": error_rate", n.ErrorRate)
	v.distribution(where+": latency", n.Latency)
}

func (v *validator) usage(where string, u *Usage) {
	for _, f := range []float64{u.CPUMean, u.CPUMax, u.HostLoad1Max, u.HostCPUMean, u.RSSPct, u.RSSMaxPct} {
		v.number(where+": cpu/load/rss_pct", f, 1e6)
	}
	v.count(where+": rss_mean", u.RSSMean)
	v.count(where+": rss_max", u.RSSMax)
	v.count(where+": host_mem_total", u.HostMemTotal)
}

// search checks a capacity search: rates, bracket and capacity are finite
// and non-negative, and so is every probe's figure.
func (v *validator) search(where string, s *SearchResult) {
	v.rate(where+": capacity", s.Capacity)
	v.rate(where+": pass", s.Pass)
	v.rate(where+": fail", s.Fail)
	for i, p := range s.Probes {
		pw := fmt.Sprintf("%s: probe %d", where, i+1)
		v.rate(pw+": rate", p.Rate)
		v.rate(pw+": achieved", p.Achieved)
		v.ratio(pw+": error_rate", p.ErrorRate)
		v.count(pw+": requests", p.Requests)
		v.count(pw+": failed", p.Failed)
		v.duration(pw+": p50", p.P50)
		v.duration(pw+": p99", p.P99)
		v.duration(pw+": elapsed", p.Elapsed)
	}
}

// ErrPassedContradicts is wrapped by the refusal of a document whose
// written "passed" says otherwise than its verdicts and figures: a hand
// edit, or a forgery, that report, compare, merge and --baseline must not
// take at its word nor quietly correct.
var ErrPassedContradicts = errors.New(`"passed" contradicts the document`)

// contradiction is the refusal itself, worded after what the document
// says; errors.Is matches it with ErrPassedContradicts.
type contradiction struct{ msg string }

func (c *contradiction) Error() string        { return c.msg }
func (c *contradiction) Is(target error) bool { return target == ErrPassedContradicts }

// checkPassed refuses a document whose written "passed" is not what its
// contents derive. An absent or null field claims nothing; any other
// value was already decoded as a boolean.
func checkPassed(run *Run, written json.RawMessage) error {
	var claim *bool
	if err := json.Unmarshal(written, &claim); err != nil || claim == nil || *claim == run.Passed {
		return nil
	}
	if !*claim {
		return &contradiction{msg: `"passed": false contradicts the document: no verdict fails the run, and it was neither interrupted, aborted, invalid nor in error`}
	}
	return &contradiction{msg: `"passed": true contradicts ` + joinAnd(failReasons(run))}
}

// failReasons names, field by field, what keeps run from passing, in
// the order a reader should hear it.
func failReasons(run *Run) []string {
	var out []string
	if run.Interrupted || anyScenarioInterrupted(run) {
		out = append(out, `"interrupted": true`)
	}
	for _, sr := range run.Scenarios {
		if a := sr.Aborted; a != nil {
			out = append(out, fmt.Sprintf(`the "aborted" of scenario %q (abort rule %q stopped case %q at %s)`, sr.Name, a.Name, a.Case, a.At.Round(time.Millisecond)))
		}
	}
	if e := errorFields(run); e != "" {
		out = append(out, e)
	}
	if why := run.InvalidReason(); why != "" {
		out = append(out, "its figures, which make the run invalid ("+why+")")
	}
	if v := failedVerdicts(run); v != "" {
		out = append(out, v)
	}
	if run.Baseline.EnvFailed() {
		out = append(out, `its "baseline", measured in a different environment under "strict_env": true`)
	}
	return out
}

// errorFields names the first "error" of a scenario or case, with a count
// of the others.
func errorFields(run *Run) string {
	var errs []string
	for _, sr := range run.Scenarios {
		if sr.Error != "" {
			errs = append(errs, fmt.Sprintf(`the "error" of scenario %q (%s)`, sr.Name, sr.Error))
		}
		for _, c := range sr.Cases {
			if c.Error != "" {
				errs = append(errs, fmt.Sprintf(`the "error" of case %q (%s)`, c.ID, c.Error))
			}
		}
	}
	return firstOf(errs, "error")
}

// maxNamed bounds how many failing verdicts a refusal names: the count
// says the rest.
const maxNamed = 3

// failedVerdicts is `its verdicts (2 failed: case "x" p99 < 50ms, …)`,
// "" when none fails the run.
func failedVerdicts(run *Run) string {
	var names []string
	for _, sr := range run.Scenarios {
		for _, v := range sr.AllVerdicts() {
			if v.Fails() {
				names = append(names, fmt.Sprintf("case %q %s", v.Case, v.Name))
			}
		}
	}
	if len(names) == 0 {
		return ""
	}
	shown := names[:min(len(names), maxNamed)]
	more := ""
	if len(names) > maxNamed {
		more = ", …"
	}
	return fmt.Sprintf("its verdicts (%d failed: %s%s)", len(names), strings.Join(shown, ", "), more)
}

// firstOf is the first item, with a count of the other ones.
func firstOf(items []string, noun string) string {
	switch len(items) {
	case 0:
		return ""
	case 1:
		return items[0]
	case 2:
		return items[0] + " and 1 more " + noun
	}
	return fmt.Sprintf("%s and %d more %ss", items[0], len(items)-1, noun)
}

// joinAnd joins reasons as a sentence: "a", "a and b", "a, b and c".
func joinAnd(items []string) string {
	if len(items) <= 1 {
		return strings.Join(items, "")
	}
	return strings.Join(items[:len(items)-1], ", ") + " and " + items[len(items)-1]
}
