package scenarios

import (
	"math"
	"strings"
	"time"

	"go.yaml.in/yaml/v3"
)

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
