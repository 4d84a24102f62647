package results

import (
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"
)

// How much of its load a phase applied, and whether what it measured is
// the server or loadgate itself. A run that did not apply its load is
// invalid (SPEC §6): its figures describe the generator, so nothing is
// judged on them. These are pure functions of the figures results.json
// keeps, so `loadgate report`, `compare` and `merge` decide exactly as the
// run did.

// AppliedTolerance is the least share of its due arrivals an open-model
// phase must send for its load to count as applied. Below it the phase is
// invalid unless the shortfall is the server's back-pressure (see
// Shortfall).
const AppliedTolerance = 0.95

// ShortfallSlack is how much of the schedule's end a phase may owe without
// falling short: arrivals due in the last 100 ms at the peak rate. A short
// phase that ends while a late scheduler catches up (7 of 60 arrivals of a
// 300 ms phase at 200/s behind a 35 ms lag) has sent its load.
const ShortfallSlack = 100 * time.Millisecond

// AppliedShare is the share of an open-model phase's due arrivals that were
// sent: requests / (requests + dropped), where dropped are the arrivals due
// before the phase ended that never left. ok is false for a closed-model or
// capacity-search phase (the search judges its own probes) and for a phase
// with no arrival due.
func (p *PhaseResult) AppliedShare() (share float64, ok bool) {
	if p == nil || p.Rate == nil || p.Search != nil {
		return 0, false
	}
	due := p.Requests + p.Dropped
	if due <= 0 {
		return 0, false
	}
	return float64(p.Requests) / float64(due), true
}

// Shortfall says in words why an open-model phase that sent less than
// AppliedTolerance of its due arrivals measured the generator, "" when it
// applied its load or the server held it back.
//
// Arrivals are never skipped: a late one waits in a backlog, and dropped
// counts the backlog left when the phase ended. A backlog grows for one of
// two reasons. Either every one of max_in_flight requests was waiting on
// the server — back-pressure, a finding about the server (a frozen or slow
// server, timeouts) — or loadgate could not issue requests fast enough. The
// second shows as the generator's CPU (or its event loop's) at or above 75 %, its scheduler
// running more than 10 ms late (p99) for arrivals it was free to send, or
// the engine's own saturation verdict (which also sees arrivals dropped
// while connections sat idle). Without any of these every connection was
// waiting on the server, and the shortfall is the server's. So it is when
// the engine's verdict rests on idle connections alone (CPU and scheduler
// fine) while requests were still unanswered at the end of the phase's
// graceful stop (errors.unfinished): the server held the connections when
// the phase ended, and the arrivals left over are its backlog. A server
// that stalls as a 200/s phase ends leaves 33 of 600 arrivals unsent behind
// 8 requests it never answers, though most arrivals of the phase found a
// connection free.
func (p *PhaseResult) Shortfall() string {
	share, ok := p.AppliedShare()
	if !ok || share >= AppliedTolerance || float64(p.Dropped) <= max(p.Rate.From, p.Rate.To)*ShortfallSlack.Seconds() {
		return ""
	}
	why := ""
	g := p.Generator
	switch {
	case g.Saturated && (g.busy() >= busyCPU || g.SchedLagP99 > saturatedSchedLag || p.Errors.Unfinished == 0):
		why = g.Reason
	case g.busy() >= busyCPU:
		why = g.busyWords()
	case g.SchedLagP99 > saturatedSchedLag:
		why = fmt.Sprintf("its scheduler ran %v late (p99)", g.SchedLagP99.Round(time.Millisecond/10))
	default:
		return "" // every connection was waiting on the server
	}
	return fmt.Sprintf("the generator sent %s of the requested %s (%s of %s due arrivals); %s",
		percentText(share), rateWords(p), groupDigits(p.Requests), groupDigits(p.Requests+p.Dropped), why)
}

// Invalidity says why a phase measured loadgate rather than the server, ""
// when it did not: it applied less of its load than AppliedTolerance and
// the generator, not the server, held it back (Shortfall), or its capacity
// search was stopped by the generator.
//
// Generator.Saturated alone does not make a phase invalid: on a busy
// machine the scheduler may run late (p99 above 10 ms) or loadgate may use
// most of its CPU while every arrival still leaves, and the figures then
// measure the load that was asked for. Reports note it; rules can require
// it with `!generator.saturated`.
func (p *PhaseResult) Invalidity() string {
	if p == nil {
		return ""
	}
	if s := p.Search; s != nil && s.LimitedByGenerator {
		why := "the generator limited the capacity search: capacity ≥ " + rateNum(math.Round(s.Capacity)) + "/s"
		if s.Reason != "" {
			why += " (" + s.Reason + ")"
		}
		return why
	}
	return p.Shortfall()
}

// Invalidity is the first reason one of phases is invalid, naming the
// phase; "" when every phase measured the server.
func Invalidity(phases []*PhaseResult) string {
	for _, p := range phases {
		if why := p.Invalidity(); why != "" {
			return "phase " + p.Name + ": " + why
		}
	}
	return ""
}

// percentText renders a share the way a reader says it: "1.2 %", "0.6 %",
// "93 %"; never "100 %" for a share short of it.
func percentText(share float64) string {
	pct := 100 * share
	switch {
	case pct < 10:
		return strconv.FormatFloat(pct, 'f', 1, 64) + " %"
	case pct > 99 && pct < 100:
		return strconv.FormatFloat(pct, 'f', 1, 64) + " %"
	}
	return strconv.FormatFloat(pct, 'f', 0, 64) + " %"
}

// rateWords is the requested rate, "2,000,000/s" or "100→5,000/s".
func rateWords(p *PhaseResult) string {
	r := p.Rate
	if r.From == r.To {
		return rateNum(r.From) + "/s"
	}
	return rateNum(r.From) + "→" + rateNum(r.To) + "/s"
}

// rateNum is a rate's figure: whole numbers grouped, fractions as given.
func rateNum(f float64) string {
	if f == math.Trunc(f) && math.Abs(f) < 1e15 {
		return groupDigits(int64(f))
	}
	return strconv.FormatFloat(f, 'f', -1, 64)
}

// groupDigits writes n with thousands separators: 2000000 → "2,000,000".
func groupDigits(n int64) string {
	s := strconv.FormatInt(n, 10)
	neg := strings.HasPrefix(s, "-")
	s = strings.TrimPrefix(s, "-")
	var b strings.Builder
	for i, c := range s {
		if i > 0 && (len(s)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(c)
	}
	if neg {
		return "-" + b.String()
	}
	return b.String()
}
