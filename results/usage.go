package results

import "time"

// Usage is what a monitor saw over a run.
//
// Missing samples are not zeros: with Samples 0 nothing was measured (Reason
// says why) and every figure is meaningless, and with Exited the figures
// cover the run only until the process ended.
type Usage struct {
	PID int `json:"pid"`
	// Samples is how many times the process was sampled: one at the start
	// of the run, one a second, one at its end. 0 means none could be
	// taken, and the figures below are not measurements.
	Samples int     `json:"samples"`
	CPUMean float64 `json:"cpu_mean"` // percent of one core: 250 = two and a half cores busy
	// CPUMax is the busiest interval between two samples, in percent of
	// one core; a last interval shorter than half the sampling interval
	// counts only towards CPUMean, unless it is the only one.
	CPUMax  float64 `json:"cpu_max"`
	RSSMean int64   `json:"rss_mean"` // bytes, summed over the process tree
	RSSMax  int64   `json:"rss_max"`
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

// Sampled reports whether u holds measurements of a process: it was
// sampled at least once. A Usage with PID 0 sampled only the host.
func (u *Usage) Sampled() bool { return u != nil && u.PID != 0 && u.Samples > 0 }

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
