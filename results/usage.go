package results

import "time"

// Usage is what a monitor saw over a run.
//
// Missing samples are not zeros: with Samples 0 nothing was measured (Reason
// says why) and every figure is meaningless, and with Exited the figures
// cover the run only until the process ended.
type Usage struct {
	PID int `json:"pid"`
	// Prometheus is the Prometheus server the figures were read from, by
	// range queries over the case, when the monitor is a prometheus one
	// (its address without credentials); PID is then 0, and the host's
	// figures (HostLoad1Max, HostCPUMean, HostMemTotal) are not measured.
	Prometheus string `json:"prometheus,omitempty"`
	// Samples is how many times the process was sampled: one at the start
	// of the run, one a second, one at its end; or, read from Prometheus,
	// how many points of the range queries there were. 0 means none could
	// be taken, and the figures below are not measurements.
	Samples int     `json:"samples"`
	CPUMean float64 `json:"cpu_mean"` // percent of one core: 250 = two and a half cores busy
	// CPUMax is the busiest interval between two samples, in percent of
	// one core; a last interval shorter than half the sampling interval
	// counts only towards CPUMean, unless it is the only one.
	CPUMax float64 `json:"cpu_max"`
	// Window is the seconds CPUMean covers: from the first sample to the
	// last, or the span of the range queries read from Prometheus. 0 when
	// no CPU was sampled.
	Window float64 `json:"window_s,omitempty"`
	// CPUPerRequestUS is the server's CPU per succeeded request, in µs of
	// one core: CPUMean over Window, divided by the requests that
	// succeeded in Window (CPUPerRequest). Absent when there is no figure:
	// no CPU sample, no request succeeded, or the process exited while it
	// was sampled.
	CPUPerRequestUS *float64 `json:"cpu_per_request_us,omitempty"`
	RSSMean         int64    `json:"rss_mean"` // bytes, summed over the process tree
	RSSMax          int64    `json:"rss_max"`
	// HostMemTotal is the host's RAM in bytes (MemTotal of /proc/meminfo);
	// 0 where it is unknown, and RSSPct and RSSMaxPct are then not figures.
	HostMemTotal int64 `json:"host_mem_total,omitempty"`
	// RSSPct is RSSMean as a share of HostMemTotal, in percent (0–100).
	RSSPct float64 `json:"rss_pct,omitempty"`
	// RSSMaxPct is RSSMax as a share of HostMemTotal, in percent (0–100).
	RSSMaxPct float64 `json:"rss_max_pct,omitempty"`
	// Exited is set when the process ended while it was sampled: the
	// figures cover the run only until then.
	Exited bool `json:"exited,omitempty"`
	// Reason says why nothing was sampled (Samples 0) or why sampling
	// stopped early (Exited), e.g. "process 4242 is gone".
	Reason string `json:"reason,omitempty"`
	// HostLoad1Max is the highest 1-minute load average seen.
	HostLoad1Max float64 `json:"host_load1_max"`
	// HostCPUMean is the whole host's busy share (0–100 %) over the run.
	HostCPUMean float64      `json:"host_cpu_mean"`
	Series      []UsagePoint `json:"series"`
}

// Sampled reports whether u holds measurements of a server: it was
// sampled at least once. A Usage with PID 0 and no Prometheus sampled only
// the host.
func (u *Usage) Sampled() bool { return u.OfServer() && u.Samples > 0 }

// OfServer reports whether u watched a server, sampled or not: a process
// on this host, or one whose figures Prometheus holds.
func (u *Usage) OfServer() bool { return u != nil && (u.PID != 0 || u.Prometheus != "") }

// CPUSampled reports whether u's CPU figures are measurements. Sampled
// from /proc, the first sample has no CPU: it takes two. Every point read
// from Prometheus has one.
func (u *Usage) CPUSampled() bool {
	return u.Sampled() && (u.Samples >= 2 || u.Prometheus != "")
}

// HostSampled reports whether u's host figures (load, CPU, RAM) are
// measurements: Prometheus gives a server's own figures only.
func (u *Usage) HostSampled() bool { return u != nil && u.Samples > 0 && u.Prometheus == "" }

// CPUPerRequest is the CPU a server spent per succeeded request, in µs of
// one core: cpuMean percent of one core over windowSecs seconds is
// cpuMean/100 × windowSecs CPU-seconds, shared among the succeeded
// requests of that same window. ok is false when there is no figure: no
// window or no request succeeded in it.
func CPUPerRequest(cpuMean, windowSecs float64, succeeded int64) (us float64, ok bool) {
	if windowSecs <= 0 || succeeded <= 0 || cpuMean < 0 {
		return 0, false
	}
	return cpuMean / 100 * windowSecs * 1e6 / float64(succeeded), true
}

// SetCPUPerRequest sets u's CPUPerRequestUS from the requests that
// succeeded in its Window, or clears it when there is no figure: no CPU
// sample, or a process that exited before the window's end, whose CPU
// then covers fewer requests than were sent.
func (u *Usage) SetCPUPerRequest(succeeded int64) {
	u.CPUPerRequestUS = nil
	if !u.CPUSampled() || u.Exited {
		return
	}
	if us, ok := CPUPerRequest(u.CPUMean, u.Window, succeeded); ok {
		u.CPUPerRequestUS = &us
	}
}

// NamedUsage is what one more watched server, an entry of the scenario's
// `monitors:` (its database, say), used during a case; Name is its key.
type NamedUsage struct {
	// Name is the monitor's key in `monitors:`, as rules read it:
	// servers.NAME.cpu.
	Name string `json:"name"`
	Usage
}

// ServersOf lists every server watched during a case, the one of server.*
// first under its name, then the others in the scenario's order; nil when
// nothing was.
func ServersOf(first *Usage, firstName string, others []NamedUsage) []NamedUsage {
	var out []NamedUsage
	if first.OfServer() {
		out = append(out, NamedUsage{Name: firstName, Usage: *first})
	}
	return append(out, others...)
}

// UsagePoint is one sample.
type UsagePoint struct {
	At  time.Time `json:"at"`
	CPU float64   `json:"cpu"` // percent of one core since the previous sample
	// First marks the sample that starts the run's sampling: it has no
	// previous one, so its CPU is no figure.
	First bool    `json:"first,omitempty"`
	RSS   int64   `json:"rss"`
	Load1 float64 `json:"load1"`
	Procs int     `json:"procs"` // processes in the tree
}
