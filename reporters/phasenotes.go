package reporters

import (
	"bytes"
	"fmt"
	"time"

	"github.com/loadgate/loadgate/results"
	"github.com/loadgate/loadgate/units"
)

// A phase's figures hide two things a reader must know: that the server
// stopped answering for a while (a stall), and that the phase ended
// before its course (its data ran out, an abort, an interrupt). Every
// report says them in the same words.

// phaseNotes are the sentences for phases: one per stall, one per phase
// that ended early.
func phaseNotes(phases []*results.PhaseResult) []string {
	var out []string
	for _, p := range phases {
		for _, st := range p.Stalls {
			out = append(out, fmt.Sprintf("phase %s: the server answered nothing for %s, from %s into the phase, %s waiting",
				p.Name, fmtTenths(st.Duration), fmtTenths(st.At), plural(int(st.Waiting), "request")))
		}
		if endedEarly(p) {
			cause := p.EndedDetail
			if cause == "" {
				cause = p.Ended
			}
			out = append(out, fmt.Sprintf("phase %s ended after %s: %s", p.Name, units.FormatDuration(p.Elapsed, units.Figure), cause))
		}
	}
	return out
}

// endedEarly reports whether phase p stopped sending before its course:
// neither its duration, its request count nor its schedule ended it.
func endedEarly(p *results.PhaseResult) bool {
	switch p.Ended {
	case "", results.EndDuration, results.EndRequests, results.EndSchedule, results.EndSearch:
		return false
	}
	return true
}

// fmtTenths is a stall's time to a tenth of a second: "2.0 s".
func fmtTenths(d time.Duration) string {
	return fmt.Sprintf("%.1f s", d.Seconds())
}

// consoleNotes writes a case's notes under its phases.
func consoleNotes(b *bytes.Buffer, phases []*results.PhaseResult) {
	for _, n := range phaseNotes(phases) {
		b.WriteString("⚠ " + n + "\n")
	}
}

// mdNotes writes the notes of every case of the run as one quote block.
func mdNotes(b *bytes.Buffer, run *results.Run) {
	var lines []string
	for _, sr := range run.Scenarios {
		for _, c := range sr.Cases {
			for _, n := range phaseNotes(c.Phases) {
				lines = append(lines, fmt.Sprintf("> - %s / %s: %s\n", mdText(sr.Name), mdText(c.ID), mdText(n)))
			}
		}
	}
	if len(lines) == 0 {
		return
	}
	b.WriteString("> ⚠ **Stalls and phases cut short:**\n")
	for _, l := range lines {
		b.WriteString(l)
	}
	b.WriteString("\n")
}

// droppedCause says who held back the arrivals that were due and never
// sent: the generator when it was saturated (its own verdict says why),
// else the server, which kept max_in_flight requests outstanding.
func droppedCause(st results.Stats) string {
	if g := st.Generator; g.Saturated {
		return "the generator could not send them in time (" + g.Reason + ")"
	}
	return "max_in_flight requests were outstanding: the server did not keep up with the requested rate"
}
