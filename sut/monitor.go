package sut

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"sync"
	"time"
)

// Resource monitoring of the system under test (SPEC §3, §8): the CPU and
// memory of a process tree and the host's load, sampled from /proc once a
// second, with no external tools.

// clockTicks is USER_HZ, the unit of utime/stime in /proc/PID/stat. Linux
// has fixed it at 100 on every architecture Go supports.
const clockTicks = 100

// Usage is what a monitor saw over a run.
type Usage struct {
	PID     int     `json:"pid"`
	Samples int     `json:"samples"`
	CPUMean float64 `json:"cpu_mean"` // percent of one core: 250 = two and a half cores busy
	CPUMax  float64 `json:"cpu_max"`
	RSSMean int64   `json:"rss_mean"` // bytes, summed over the process tree
	RSSMax  int64   `json:"rss_max"`
	// HostLoad1Max is the highest 1-minute load average seen.
	HostLoad1Max float64 `json:"host_load1_max"`
	// HostCPUMean is the whole host's busy share (0–100 %) over the run.
	HostCPUMean float64      `json:"host_cpu_mean"`
	Series      []UsagePoint `json:"series"`
}

// UsagePoint is one sample.
type UsagePoint struct {
	At    time.Time `json:"at"`
	CPU   float64   `json:"cpu"` // percent of one core since the previous sample
	RSS   int64     `json:"rss"`
	Load1 float64   `json:"load1"`
	Procs int       `json:"procs"` // processes in the tree
}

// procStat is the part of /proc/PID/stat a monitor needs.
type procStat struct {
	ppid       int
	cpuTicks   int64 // utime + stime
	rssPages   int64
	startTicks int64
}

// parseProcStat reads one /proc/PID/stat line. The command name sits in
// parentheses and may itself contain spaces and parentheses, so fields are
// counted from the last ')'.
func parseProcStat(b []byte) (procStat, error) {
	end := bytes.LastIndexByte(b, ')')
	if end < 0 || end+2 > len(b) {
		return procStat{}, fmt.Errorf("stat: no command field")
	}
	// Fields after the command, 1-based from field 3 (state).
	f := bytes.Fields(b[end+1:])
	// state(3) ppid(4) … utime(14) stime(15) … starttime(22) vsize(23) rss(24)
	const need = 24 - 2
	if len(f) < need {
		return procStat{}, fmt.Errorf("stat: %d fields, want %d", len(f)+2, need+2)
	}
	num := func(field int) (int64, error) { return strconv.ParseInt(string(f[field-3]), 10, 64) }
	var s procStat
	var vals [5]int64
	for i, field := range []int{4, 14, 15, 22, 24} {
		v, err := num(field)
		if err != nil {
			return procStat{}, fmt.Errorf("stat field %d: %w", field, err)
		}
		vals[i] = v
	}
	s.ppid, s.cpuTicks, s.startTicks, s.rssPages = int(vals[0]), vals[1]+vals[2], vals[3], vals[4]
	return s, nil
}

// treeSample is one reading of a process tree: CPU ticks and RSS pages,
// keyed by pid+start time so a recycled pid is not mistaken for an old one.
type treeSample struct {
	ticks map[[2]int64]int64
	rss   int64
	procs int
}

// readTree sums the process root and all its descendants.
func readTree(procRoot string, root int) (treeSample, error) {
	entries, err := os.ReadDir(procRoot)
	if err != nil {
		return treeSample{}, err
	}
	stats := map[int]procStat{}
	children := map[int][]int{}
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		b, err := os.ReadFile(filepath.Join(procRoot, e.Name(), "stat"))
		if err != nil {
			continue // exited meanwhile
		}
		s, err := parseProcStat(b)
		if err != nil {
			continue
		}
		stats[pid] = s
		children[s.ppid] = append(children[s.ppid], pid)
	}
	if _, ok := stats[root]; !ok {
		return treeSample{}, fmt.Errorf("process %d is gone", root)
	}
	out := treeSample{ticks: map[[2]int64]int64{}}
	for queue := []int{root}; len(queue) > 0; queue = queue[1:] {
		pid := queue[0]
		s := stats[pid]
		out.ticks[[2]int64{int64(pid), s.startTicks}] = s.cpuTicks
		out.rss += s.rssPages * int64(os.Getpagesize())
		out.procs++
		queue = append(queue, children[pid]...)
	}
	return out, nil
}

// cpuDelta is the CPU ticks spent between two samples by processes alive
// in the second; a process new since the first counts from zero.
func cpuDelta(prev, cur treeSample) int64 {
	var d int64
	for k, t := range cur.ticks {
		d += t - prev.ticks[k]
	}
	return max(d, 0)
}

// hostCPU reads the aggregate busy and total jiffies from /proc/stat.
func hostCPU(procRoot string) (busy, total int64, err error) {
	b, err := os.ReadFile(filepath.Join(procRoot, "stat"))
	if err != nil {
		return 0, 0, err
	}
	line, _, _ := bytes.Cut(b, []byte("\n"))
	f := bytes.Fields(line)
	if len(f) < 5 || string(f[0]) != "cpu" {
		return 0, 0, fmt.Errorf("/proc/stat: unexpected first line")
	}
	for i, v := range f[1:] {
		n, err := strconv.ParseInt(string(v), 10, 64)
		if err != nil {
			return 0, 0, err
		}
		total += n
		if i != 3 && i != 4 { // idle and iowait
			busy += n
		}
	}
	return busy, total, nil
}

func load1(procRoot string) float64 {
	b, err := os.ReadFile(filepath.Join(procRoot, "loadavg"))
	if err != nil {
		return 0
	}
	f := bytes.Fields(b)
	if len(f) == 0 {
		return 0
	}
	v, _ := strconv.ParseFloat(string(f[0]), 64)
	return v
}

// Monitor samples a process tree in the background until Stop.
type Monitor struct {
	procRoot string
	pid      int
	every    time.Duration
	stop     chan struct{}
	done     chan struct{}

	mu    sync.Mutex
	usage Usage
	err   error
}

// StartMonitor begins sampling pid's process tree every interval (1s when 0).
func StartMonitor(pid int, interval time.Duration) *Monitor {
	return startMonitor("/proc", pid, interval)
}

func startMonitor(procRoot string, pid int, interval time.Duration) *Monitor {
	if interval <= 0 {
		interval = time.Second
	}
	m := &Monitor{procRoot: procRoot, pid: pid, every: interval,
		stop: make(chan struct{}), done: make(chan struct{}), usage: Usage{PID: pid}}
	go m.loop()
	return m
}

func (m *Monitor) loop() {
	defer close(m.done)
	prev, err := readTree(m.procRoot, m.pid)
	if err != nil {
		m.setErr(err)
		return
	}
	prevAt := time.Now()
	busy0, total0, _ := hostCPU(m.procRoot)
	t := time.NewTicker(m.every)
	defer t.Stop()
	for {
		select {
		case <-m.stop:
			// A last, partial interval, so that a phase shorter than the
			// sampling interval still gets a figure.
			if now := time.Now(); now.Sub(prevAt) >= m.every/10 {
				if cur, err := readTree(m.procRoot, m.pid); err == nil {
					cpu := 100 * float64(cpuDelta(prev, cur)) / clockTicks / now.Sub(prevAt).Seconds()
					m.add(UsagePoint{At: now, CPU: cpu, RSS: cur.rss, Load1: load1(m.procRoot), Procs: cur.procs})
				}
			}
			busy1, total1, err := hostCPU(m.procRoot)
			if err == nil && total1 > total0 {
				m.mu.Lock()
				m.usage.HostCPUMean = 100 * float64(busy1-busy0) / float64(total1-total0)
				m.mu.Unlock()
			}
			return
		case now := <-t.C:
			cur, err := readTree(m.procRoot, m.pid)
			if err != nil {
				m.setErr(err)
				return
			}
			secs := now.Sub(prevAt).Seconds()
			cpu := 100 * float64(cpuDelta(prev, cur)) / clockTicks / secs
			m.add(UsagePoint{At: now, CPU: cpu, RSS: cur.rss, Load1: load1(m.procRoot), Procs: cur.procs})
			prev, prevAt = cur, now
		}
	}
}

func (m *Monitor) add(p UsagePoint) {
	m.mu.Lock()
	defer m.mu.Unlock()
	u := &m.usage
	u.Series = append(u.Series, p)
	n := float64(len(u.Series))
	u.Samples = len(u.Series)
	u.CPUMean += (p.CPU - u.CPUMean) / n
	u.CPUMax = max(u.CPUMax, p.CPU)
	u.RSSMean += int64((float64(p.RSS) - float64(u.RSSMean)) / n)
	u.RSSMax = max(u.RSSMax, p.RSS)
	u.HostLoad1Max = max(u.HostLoad1Max, p.Load1)
}

func (m *Monitor) setErr(err error) {
	m.mu.Lock()
	m.err = err
	m.mu.Unlock()
}

// Stop ends sampling and returns what was seen. Err reports a process that
// vanished (or never existed); the samples taken before are still returned.
func (m *Monitor) Stop() (Usage, error) {
	select {
	case <-m.stop:
	default:
		close(m.stop)
	}
	<-m.done
	m.mu.Lock()
	defer m.mu.Unlock()
	u := m.usage
	u.Series = append([]UsagePoint(nil), m.usage.Series...)
	return u, m.err
}
