package reporters

import (
	"fmt"
	"io"
	"os"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"golang.org/x/term"

	"github.com/loadgate/loadgate/results"
	"github.com/loadgate/loadgate/units"
)

// plainEvery is how often a non-terminal progress line is printed: often
// enough to show a CI log is alive, rarely enough to keep the log readable.
const plainEvery = 5 * time.Second

// ConsoleOptions configure a Console.
type ConsoleOptions struct {
	// TTY redraws one live progress line in place with \r. Without it,
	// progress is a plain line at most every 5 s, fit for CI logs.
	TTY bool
	// Quiet drops progress output and shortens the summary to one line per
	// case plus the threshold table.
	Quiet bool
	// NoProgress drops progress output (phase started, progress and done
	// lines) but keeps the full summary.
	NoProgress bool
	// Width, when positive, truncates the live line to fit a terminal of
	// that many columns; a wrapped line cannot be redrawn with \r.
	Width int
	// Now is the clock used to pace plain progress lines; nil = time.Now.
	Now func() time.Time
}

// Console prints live progress and an ab-style summary for humans. It
// implements runner.Observer. It is safe for concurrent use. Write errors
// cannot be returned through the Observer methods, so the first one is
// kept and reported by Err.
type Console struct {
	mu        sync.Mutex
	w         io.Writer
	opts      ConsoleOptions
	lastPlain time.Time // when the last plain progress line was printed
	liveWidth int       // columns of the live line currently on screen
	err       error
}

// NewConsole returns a Console writing to w.
func NewConsole(w io.Writer, opts ConsoleOptions) *Console {
	if opts.Now == nil {
		opts.Now = time.Now
	}
	return &Console{w: w, opts: opts}
}

// TTY reports whether f is a terminal, i.e. whether a live progress line
// can be redrawn in place.
func TTY(f *os.File) bool {
	return f != nil && term.IsTerminal(int(f.Fd()))
}

// Err returns the first error met writing to the output, if any.
func (c *Console) Err() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.err
}

// silent reports whether progress output is off.
func (c *Console) silent() bool { return c.opts.Quiet || c.opts.NoProgress }

// write prints text, names and messages included, with control characters
// made visible (ConsoleText): every line of the console goes through here.
func (c *Console) write(s string) { c.writeRaw(ConsoleText(s)) }

// writeRaw prints s as it is; only the \r redraws of the live line need it.
func (c *Console) writeRaw(s string) {
	if c.err != nil {
		return
	}
	if _, err := io.WriteString(c.w, s); err != nil {
		c.err = fmt.Errorf("write console: %w", err)
	}
}

// PhaseStarted announces a phase.
func (c *Console) PhaseStarted(s results.Snapshot) {
	if c.silent() {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	c.lastPlain = c.opts.Now()
	if c.opts.TTY {
		c.live(progressLine(s))
		return
	}
	c.write(phaseLabel(s) + ": started" + phaseLimits(s) + "\n")
}

// Progress shows the running phase: redrawn in place on a terminal, a
// plain line at most every 5 s otherwise.
func (c *Console) Progress(s results.Snapshot) {
	if c.silent() {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.opts.TTY {
		c.live(progressLine(s))
		return
	}
	now := c.opts.Now()
	if now.Sub(c.lastPlain) < plainEvery {
		return
	}
	c.lastPlain = now
	c.write(progressLine(s) + "\n")
}

// PhaseDone replaces the progress with the phase's final figures.
func (c *Console) PhaseDone(s results.Snapshot, r *results.PhaseResult) {
	if c.silent() {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	c.clearLive()
	line := phaseLabel(s) + ": done"
	if r != nil {
		line += ", " + phaseFigures(r)
	}
	c.write(line + "\n")
}

// live redraws the progress line, padding over the remains of a longer one.
func (c *Console) live(line string) {
	if c.opts.Width > 1 && utf8.RuneCountInString(line) > c.opts.Width-1 {
		line = string([]rune(line)[:c.opts.Width-1])
	}
	n := utf8.RuneCountInString(line)
	pad := ""
	if c.liveWidth > n {
		pad = strings.Repeat(" ", c.liveWidth-n)
	}
	c.writeRaw("\r" + ConsoleText(line) + pad)
	c.liveWidth = n
}

// clearLive erases the live line so the next output starts on a clean row.
func (c *Console) clearLive() {
	if c.liveWidth == 0 {
		return
	}
	c.writeRaw("\r" + strings.Repeat(" ", c.liveWidth) + "\r")
	c.liveWidth = 0
}

// phaseLabel names a phase as "scenario / case / phase".
func phaseLabel(s results.Snapshot) string {
	parts := make([]string, 0, 3)
	for _, p := range []string{s.Scenario, s.Case, s.Phase} {
		if p != "" {
			parts = append(parts, p)
		}
	}
	label := strings.Join(parts, " / ")
	if s.Warmup {
		label += " (warm-up)"
	}
	return label
}

// phaseLimits describes when a phase stops.
func phaseLimits(s results.Snapshot) string {
	var parts []string
	if s.Planned > 0 {
		parts = append(parts, s.Planned.String())
	}
	if s.Target > 0 {
		parts = append(parts, units.FormatCount(s.Target)+" requests")
	}
	if len(parts) == 0 {
		return ""
	}
	return " (up to " + strings.Join(parts, " or ") + ")"
}

// progressLine is the one-line state of a running phase.
func progressLine(s results.Snapshot) string {
	var b strings.Builder
	b.WriteString(phaseLabel(s))
	b.WriteString("  " + fmtElapsed(s.Elapsed))
	if s.Planned > 0 {
		b.WriteString("/" + fmtElapsed(s.Planned))
	}
	b.WriteString("  " + units.FormatCount(s.Completed))
	if s.Target > 0 {
		b.WriteString("/" + units.FormatCount(s.Target))
	}
	b.WriteString(" done  " + units.FormatNumber(s.RPS, units.Figure) + " rps  " + units.FormatCount(s.Failed) + " errors")
	if s.Completed > 0 && s.Failed > 0 {
		b.WriteString(" (" + fmtPct(float64(s.Failed)/float64(s.Completed)) + ")")
	}
	b.WriteString("  p99 " + units.FormatDuration(s.P99, units.Figure))
	if s.OldestWait >= time.Second {
		// A request waiting this long says more than the p99 of those
		// that came back: the server may have stopped answering.
		b.WriteString("  " + units.FormatCount(s.InFlight) + " waiting, oldest " + fmtElapsed(s.OldestWait))
	}
	if s.Stopping {
		b.WriteString("  stopping: waiting for " + units.FormatCount(s.InFlight) + " in flight")
		return b.String()
	}
	if left, ok := eta(s); ok {
		b.WriteString("  ETA " + fmtElapsed(left))
	}
	return b.String()
}

// eta estimates the time a phase has left: whichever of its duration and
// request limits comes first, the latter at the current rate. ok is false
// when neither limit can give an estimate.
func eta(s results.Snapshot) (left time.Duration, ok bool) {
	if s.Planned > 0 {
		left, ok = max(s.Planned-s.Elapsed, 0), true
	}
	if s.Target > 0 && s.RPS > 0 {
		remaining := max(s.Target-s.Completed, 0)
		byCount := time.Duration(float64(remaining) / s.RPS * float64(time.Second))
		if !ok || byCount < left {
			left, ok = byCount, true
		}
	}
	return left, ok
}

// fmtElapsed renders wall time to the second, which is all a progress line
// needs.
func fmtElapsed(d time.Duration) string {
	if d < time.Second {
		return "0s"
	}
	return d.Truncate(time.Second).String()
}

// phaseFigures summarises a finished phase in one line.
func phaseFigures(r *results.PhaseResult) string {
	rps := 0.0
	if secs := r.Elapsed.Seconds(); secs > 0 {
		rps = float64(r.Requests) / secs
	}
	var p99 time.Duration
	if r.Latency != nil {
		p99 = r.Latency.Quantile(99)
	}
	took := fmt.Sprintf("%.2fs", r.Elapsed.Seconds())
	rpsNote := ""
	if len(r.Trials) > 1 {
		// The pooled rate would disagree with the median the summary and
		// the rules quote.
		if st := results.Summarize([]*results.PhaseResult{r}); st.Trials != nil {
			rps = st.Trials.RPSMedian
			took += fmt.Sprintf(" (%d trials)", st.Trials.N)
			rpsNote = " (median)"
		}
	}
	if r.Rate != nil {
		rpsNote += " of " + rateText(*r.Rate, groupedNum) + " requested"
	}
	s := fmt.Sprintf("%s requests in %s, %s rps%s, %s failed", units.FormatCount(r.Requests), took, units.FormatNumber(rps, units.Figure), rpsNote, units.FormatCount(r.Failed))
	if r.Failed > 0 {
		s += " (" + errorKinds(r.Errors) + ")"
	}
	if r.Rate != nil {
		s += ", " + units.FormatCount(r.Dropped) + " dropped"
	}
	s += ", p99 " + units.FormatDuration(p99, units.Figure)
	if r.Interrupted {
		s += " (interrupted)"
	}
	return s
}
