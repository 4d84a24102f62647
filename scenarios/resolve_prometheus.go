package scenarios

import (
	"fmt"
	"math"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"

	"go.yaml.in/yaml/v3"
)

// Defaults of a prometheus block. The window of the default queries needs
// two scrapes in it at least; 15s suits scrape intervals up to 5s.
const (
	defaultPromWindow = 15 * time.Second
	defaultPromStep   = time.Second
	defaultPromSettle = 2 * time.Second
	maxPromSettle     = 5 * time.Minute
)

// The default queries, by form. %[1]s is the label matchers, %[2]s the
// rate window. node_exporter's CPU leaves out idle and iowait, as the
// host's busy share of a local monitor does; its memory is what the host
// cannot hand out without reclaiming, MemTotal − MemAvailable.
const (
	nodeCPUQuery    = `sum(rate(node_cpu_seconds_total{%[1]s,mode!~"idle|iowait"}[%[2]s]))*100`
	nodeRSSQuery    = `sum(node_memory_MemTotal_bytes{%[1]s} - node_memory_MemAvailable_bytes{%[1]s})`
	processCPUQuery = `sum(rate(namedprocess_namegroup_cpu_seconds_total{%[1]s}[%[2]s]))*100`
	processRSSQuery = `sum(namedprocess_namegroup_memory_bytes{%[1]s,memtype="resident"})`
)

// promLabelName is the syntax of a Prometheus label name.
var promLabelName = regexp.MustCompile(`^[a-zA-Z_][a-zA-Z0-9_]*$`)

// promReserved are the label names labels: cannot set: those with a field
// of their own, and those the default queries match on themselves.
var promReserved = []string{"job", "instance", "groupname", "mode", "memtype"}

// prometheus resolves a monitor's prometheus block: its URL, its queries
// in one of three forms, and the timing of its range queries.
func (r *resolver) prometheus(p *rawPrometheus) *Prometheus {
	if p == nil || !p.ok {
		return nil
	}
	out := &Prometheus{Step: defaultPromStep, Settle: defaultPromSettle}
	switch {
	case p.url.key == nil:
		if !r.d.exhausted() {
			r.d.errorf(p.node, "prometheus: missing required field %q", "url")
		}
	case p.url.val != nil:
		if s, u := r.url(p.url.val, "url"); u != nil {
			if u.RawQuery != "" || u.Fragment != "" {
				r.d.errorf(p.url.val, "url: the Prometheus server's address takes no query or fragment, got %q", maskURL(s))
			} else {
				out.URL = s
			}
		}
	}
	if v, ok := r.promDuration(p.step, "step", true); ok {
		out.Step = v
	}
	if v, ok := r.promDuration(p.settle, "settle", false); ok {
		if v > maxPromSettle {
			r.d.errorf(p.settle.val, "settle: must be at most %v, got %v", maxPromSettle, v)
		} else {
			out.Settle = v
		}
	}
	r.promQueries(p, out)
	return out
}

// promDuration resolves one of the block's durations, if written;
// positive refuses 0.
func (r *resolver) promDuration(f pair, label string, positive bool) (time.Duration, bool) {
	if f.val == nil {
		return 0, false
	}
	if positive {
		return r.positiveDuration(f.val, label)
	}
	return r.duration(f.val, label)
}

// promQueries fills in out's queries from the form p is written in:
// cpu and rss of one's own, process-exporter's for a groupname, or
// node_exporter's for an instance. A field of another form is reported.
func (r *resolver) promQueries(p *rawPrometheus, out *Prometheus) {
	switch {
	case p.cpu.key != nil || p.rss.key != nil:
		r.explicitQueries(p, out)
	case p.groupname.key != nil || p.instance.key != nil:
		window := r.promWindow(p.window)
		matchers, name := r.promMatchers(p)
		cpu, rss := nodeCPUQuery, nodeRSSQuery
		if p.groupname.key != nil {
			cpu, rss = processCPUQuery, processRSSQuery
		}
		if matchers == "" {
			return
		}
		out.CPU = fmt.Sprintf(cpu, matchers, promDurationText(window))
		out.RSS = fmt.Sprintf(rss, matchers)
		out.Lookback, out.Name = window, name
	case !r.d.exhausted():
		at := p.node
		if p.job.key != nil {
			at = p.job.key
		}
		r.d.errorf(at, "prometheus: needs cpu and rss (queries of your own), instance (a whole host, from node_exporter) or groupname (a process group, from process-exporter)")
	}
}

// explicitQueries resolves cpu and rss written out, which must come
// together and leave the default queries' fields out.
func (r *resolver) explicitQueries(p *rawPrometheus, out *Prometheus) {
	for _, f := range []struct {
		key  *yaml.Node
		name string
	}{{p.job.key, "job"}, {p.instance.key, "instance"}, {p.groupname.key, "groupname"}, {p.labelsKey, "labels"}, {p.window.key, "window"}} {
		if f.key != nil {
			r.d.errorf(f.key, "%s: shapes the default queries only, and cpu and rss are written out; put it into them instead", f.name)
		}
	}
	switch {
	case p.cpu.key == nil:
		r.d.errorf(p.rss.key, "rss: needs cpu beside it: write both queries, or neither and instance or groupname for the default ones")
	case p.rss.key == nil:
		r.d.errorf(p.cpu.key, "cpu: needs rss beside it: write both queries, or neither and instance or groupname for the default ones")
	}
	var cpuBack, rssBack time.Duration
	out.CPU, cpuBack = r.promQL(p.cpu.val, "cpu")
	out.RSS, rssBack = r.promQL(p.rss.val, "rss")
	out.Lookback, out.Name = max(cpuBack, rssBack), "prometheus"
}

// promMatchers renders the label matchers of the default queries:
// groupname, job and instance, then labels in file order. name is what
// the monitor watches, for reports. It returns "" after an error.
func (r *resolver) promMatchers(p *rawPrometheus) (matchers, name string) {
	var parts []string
	bad := false
	add := func(label, shown string, n *yaml.Node) string {
		if n == nil {
			bad = true // reported by the decoder
			return ""
		}
		v, ok := r.text(n)
		switch {
		case !ok:
			bad = true
		case v == "":
			r.d.errorf(n, "%s: must not be empty; it would match series without the label", shown)
			bad = true
		default:
			parts = append(parts, label+"="+strconv.Quote(v))
		}
		return v
	}
	if p.groupname.key != nil {
		name = add("groupname", "groupname", p.groupname.val)
	}
	if p.job.key != nil {
		add("job", "job", p.job.val)
	}
	if p.instance.key != nil {
		if v := add("instance", "instance", p.instance.val); name == "" {
			name = v
		}
	}
	for _, kv := range p.labels {
		switch l := kv.key.Value; {
		case !promLabelName.MatchString(l) || strings.HasPrefix(l, "__"):
			r.d.errorf(kv.key, "labels: %q is not a label name a query can match (letters, digits and _, not starting with a digit or __)", l)
			bad = true
		case slices.Contains(promReserved, l):
			r.d.errorf(kv.key, "labels: %s is set by its own field or by the default queries", l)
			bad = true
		default:
			add(l, "labels."+l, kv.val)
		}
	}
	if bad {
		return "", ""
	}
	return strings.Join(parts, ","), name
}

// promWindow resolves the rate window of the default queries: at least a
// second, in whole milliseconds, the precision of PromQL's durations.
func (r *resolver) promWindow(f pair) time.Duration {
	v, ok := r.promDuration(f, "window", true)
	switch {
	case !ok:
		return defaultPromWindow
	case v < time.Second:
		r.d.errorf(f.val, "window: must be at least 1s, to hold two scrapes; got %v", v)
		return defaultPromWindow
	case v%time.Millisecond != 0:
		r.d.errorf(f.val, "window: must be a whole number of milliseconds, got %v", v)
		return defaultPromWindow
	}
	return v
}

// promDurationText writes d in PromQL's syntax: whole seconds, or
// milliseconds.
func promDurationText(d time.Duration) string {
	if d%time.Second == 0 {
		return strconv.FormatInt(int64(d/time.Second), 10) + "s"
	}
	return strconv.FormatInt(int64(d/time.Millisecond), 10) + "ms"
}

// A light check of PromQL: loadgate does not parse the language, whose
// parser would weigh more than the rest of the scenario format together.
// What a typo most often breaks, an unclosed quote or bracket, is found
// here with its position; anything else is the Prometheus server's to
// refuse, which it does before any load is sent (the queries are run
// once then). The same walk finds the query's lookback: its longest range
// selector, [5m] or a subquery's [30m:1m].

// promQL resolves a query of a prometheus block and returns it with its
// lookback.
func (r *resolver) promQL(n *yaml.Node, label string) (string, time.Duration) {
	if n == nil {
		return "", 0
	}
	s, ok := r.text(n)
	if !ok {
		return "", 0
	}
	if strings.TrimSpace(s) == "" {
		r.d.errorf(n, "%s: must not be empty", label)
		return "", 0
	}
	back, off, msg := checkPromQL(s)
	if msg != "" {
		p := r.d.pos(n)
		if s == n.Value {
			p = r.d.posAt(n, off)
		}
		r.d.errs = append(r.d.errs, Errorf(p, "%s: %s", label, msg))
		return "", 0
	}
	return s, back
}

// checkPromQL walks query q for balanced quotes and brackets. It returns
// the longest range selector's duration, or the byte offset of the first
// problem with a message saying what it is.
func checkPromQL(q string) (lookback time.Duration, off int, msg string) {
	var open []int // offsets of the brackets not closed yet
	closing := map[byte]byte{')': '(', ']': '[', '}': '{'}
	for i := 0; i < len(q); i++ {
		switch c := q[i]; c {
		case '"', '\'', '`':
			end := closeQuote(q, i)
			if end < 0 {
				return 0, i, "the string opened here is not closed"
			}
			i = end
		case '#':
			// A comment, to the end of the line.
			if nl := strings.IndexByte(q[i:], '\n'); nl >= 0 {
				i += nl
			} else {
				i = len(q)
			}
		case '(', '[', '{':
			open = append(open, i)
		case ')', ']', '}':
			switch {
			case len(open) == 0:
				return 0, i, "unexpected " + string(c) + ": nothing is open here"
			case q[open[len(open)-1]] != closing[c]:
				return 0, i, string(c) + " here does not close the " + string(q[open[len(open)-1]]) + " opened before it"
			}
			if c == ']' {
				if d, ok := promRange(q[open[len(open)-1]+1 : i]); ok {
					lookback = max(lookback, d)
				}
			}
			open = open[:len(open)-1]
		}
	}
	if len(open) > 0 {
		at := open[len(open)-1]
		return 0, at, "the " + string(q[at]) + " opened here is not closed"
	}
	return lookback, 0, ""
}

// closeQuote returns the offset of the quote that closes the string
// opening at q[i], or -1. Backquoted strings have no escapes.
func closeQuote(q string, i int) int {
	quote := q[i]
	for j := i + 1; j < len(q); j++ {
		switch {
		case q[j] == '\\' && quote != '`':
			j++
		case q[j] == quote:
			return j
		case q[j] == '\n' && quote != '`':
			return -1
		}
	}
	return -1
}

// promRange reads the inside of a range selector or subquery: "5m",
// "1h30m", "30m:1m" or "30m:". A range it cannot read (a variable of
// another tool, say) counts for nothing; the server judges it.
func promRange(s string) (time.Duration, bool) {
	s, _, _ = strings.Cut(strings.TrimSpace(s), ":")
	return parsePromDuration(strings.TrimSpace(s))
}

// promUnits are PromQL's duration units, "ms" before "m".
var promUnits = []struct {
	name string
	d    time.Duration
}{
	{"ms", time.Millisecond}, {"s", time.Second}, {"m", time.Minute}, {"h", time.Hour},
	{"d", 24 * time.Hour}, {"w", 7 * 24 * time.Hour}, {"y", 365 * 24 * time.Hour},
}

// parsePromDuration reads a PromQL duration: one or more number-unit
// pairs such as 1h30m.
func parsePromDuration(s string) (time.Duration, bool) {
	var total time.Duration
	for s != "" {
		n := 0
		for n < len(s) && s[n] >= '0' && s[n] <= '9' {
			n++
		}
		if n == 0 || n > 9 {
			return 0, false
		}
		v := 0
		for _, c := range s[:n] {
			v = v*10 + int(c-'0')
		}
		s = s[n:]
		found := false
		for _, u := range promUnits {
			if strings.HasPrefix(s, u.name) {
				if time.Duration(v) > (math.MaxInt64-total)/u.d {
					return 0, false
				}
				total += time.Duration(v) * u.d
				s, found = s[len(u.name):], true
				break
			}
		}
		if !found {
			return 0, false
		}
	}
	return total, total > 0
}
