package sut

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"sync"
	"time"

	"github.com/loadgate/loadgate/results"
)

// Resource monitoring of the system under test (SPEC §3, §8): the CPU and
// memory of a process tree and the host's load, sampled from /proc once a
// second, with no external tools.

// clockTicks is USER_HZ, the unit of utime/stime in /proc/PID/stat. Linux
// has fixed it at 100 on every architecture Go supports.
const clockTicks = 100

// procStat is the part of /proc/PID/stat a monitor needs.
type procStat struct {
	state      byte // R, S, D, Z (zombie), X (dead), …
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
	s.state = f[0][0]
	s.ppid, s.cpuTicks, s.startTicks, s.rssPages = int(vals[0]), vals[1]+vals[2], vals[3], vals[4]
	return s, nil
}

// gone reports whether a process has ended: a zombie has, though its
// parent has not reaped it yet, and its memory reads 0.
func (s procStat) gone() bool { return s.state == 'Z' || s.state == 'X' }

// errGone is the error of a process that no longer runs.
var errGone = errors.New("is gone")

// treeSample is one reading of a process tree: CPU ticks and RSS pages,
// keyed by pid+start time so a recycled pid is not mistaken for an old one.
type treeSample struct {
	ticks     map[[2]int64]int64
	rss       int64
	procs     int
	rootStart int64 // the root's start time, in clock ticks since boot
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
	if st, ok := stats[root]; !ok || st.gone() {
		return treeSample{}, fmt.Errorf("process %d %w", root, errGone)
	}
	out := treeSample{ticks: map[[2]int64]int64{}, rootStart: stats[root].startTicks}
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

// memTotal reads the host's RAM in bytes from /proc/meminfo; 0 when it
// cannot (another OS).
func memTotal(procRoot string) int64 {
	b, err := os.ReadFile(filepath.Join(procRoot, "meminfo"))
	if err != nil {
		return 0
	}
	for line := range bytes.Lines(b) {
		rest, ok := bytes.CutPrefix(line, []byte("MemTotal:"))
		if !ok {
			continue
		}
		f := bytes.Fields(rest)
		if len(f) != 2 || string(f[1]) != "kB" {
			return 0
		}
		kb, err := strconv.ParseInt(string(f[0]), 10, 64)
		if err != nil || kb <= 0 {
			return 0
		}
		return kb << 10
	}
	return 0
}

// Monitor samples a process tree in the background until Stop: once when
// it starts, once every interval, and once when it stops, so that a case
// however short has a sample at its start and one at its end.
type Monitor struct {
	procRoot string
	pid      int
	every    time.Duration
	stop     chan struct{}
	done     chan struct{}

	// The sampling state, the loop's own once it runs.
	first, prev     treeSample
	prevAt          time.Time
	busy0, total0   int64
	cpuSecs, cpuSum float64 // seconds of intervals and CPU-percent × seconds, for the mean
	longest         bool    // some interval was long enough to count towards CPUMax

	mu    sync.Mutex
	usage results.Usage
	err   error

	// remote, when set, reads the figures from Prometheus instead.
	remote *promWatch
}

// startProcMonitor takes a first sample of pid's process tree at once, then
// samples it every interval (1s when 0) until Stop.
func startProcMonitor(pid int, interval time.Duration) *Monitor {
	return startMonitor("/proc", pid, interval)
}

func startMonitor(procRoot string, pid int, interval time.Duration) *Monitor {
	if interval <= 0 {
		interval = time.Second
	}
	m := &Monitor{procRoot: procRoot, pid: pid, every: interval,
		stop: make(chan struct{}), done: make(chan struct{}), usage: results.Usage{PID: pid}}
	if !m.begin(time.Now()) {
		close(m.done)
		return m
	}
	go m.loop()
	return m
}

// begin takes the first sample; false when there is nothing to sample.
func (m *Monitor) begin(now time.Time) bool {
	cur, err := readTree(m.procRoot, m.pid)
	if err != nil {
		m.err = err
		m.usage.Reason = err.Error()
		if !errors.Is(err, errGone) {
			m.usage.Reason = fmt.Sprintf("cannot read %s (%v): process usage is sampled on Linux only", m.procRoot, err)
		}
		return false
	}
	m.usage.HostMemTotal = memTotal(m.procRoot)
	m.busy0, m.total0, _ = hostCPU(m.procRoot)
	m.first, m.prev, m.prevAt = cur, cur, now
	m.add(results.UsagePoint{At: now, First: true, RSS: cur.rss, Load1: load1(m.procRoot), Procs: cur.procs}, 0)
	return true
}

func (m *Monitor) loop() {
	defer close(m.done)
	t := time.NewTicker(m.every)
	defer t.Stop()
	for {
		select {
		case <-m.stop:
			// The last sample, however short its interval: a case shorter
			// than the sampling interval still ends with one.
			m.sample(time.Now())
			m.hostCPU()
			return
		case now := <-t.C:
			if !m.sample(now) {
				m.hostCPU()
				return
			}
		}
	}
}

// sample reads the tree once more; false when the process has ended,
// which marks the usage Exited.
func (m *Monitor) sample(now time.Time) bool {
	cur, err := readTree(m.procRoot, m.pid)
	if err == nil && cur.rootStart != m.first.rootStart {
		// The pid now belongs to another process.
		err = fmt.Errorf("process %d %w", m.pid, errGone)
	}
	if err != nil {
		m.mu.Lock()
		m.err = err
		m.usage.Exited = true
		m.usage.Reason = fmt.Sprintf("process %d exited", m.pid)
		m.mu.Unlock()
		return false
	}
	secs := now.Sub(m.prevAt).Seconds()
	var cpu float64
	if secs > 0 {
		cpu = 100 * float64(cpuDelta(m.prev, cur)) / clockTicks / secs
	}
	m.add(results.UsagePoint{At: now, CPU: cpu, RSS: cur.rss, Load1: load1(m.procRoot), Procs: cur.procs}, secs)
	m.prev, m.prevAt = cur, now
	return true
}

// hostCPU sets the host's busy share since the first sample.
func (m *Monitor) hostCPU() {
	busy1, total1, err := hostCPU(m.procRoot)
	if err == nil && total1 > m.total0 {
		m.mu.Lock()
		m.usage.HostCPUMean = 100 * float64(busy1-m.busy0) / float64(total1-m.total0)
		m.mu.Unlock()
	}
}

// add records point p, whose CPU covers the secs since the previous
// sample (none for the first).
func (m *Monitor) add(p results.UsagePoint, secs float64) {
	m.mu.Lock()
	defer m.mu.Unlock()
	u := &m.usage
	u.Series = append(u.Series, p)
	n := float64(len(u.Series))
	u.Samples = len(u.Series)
	u.RSSMean += int64((float64(p.RSS) - float64(u.RSSMean)) / n)
	u.RSSMax = max(u.RSSMax, p.RSS)
	u.HostLoad1Max = max(u.HostLoad1Max, p.Load1)
	if u.HostMemTotal > 0 {
		u.RSSPct = 100 * float64(u.RSSMean) / float64(u.HostMemTotal)
		u.RSSMaxPct = 100 * float64(u.RSSMax) / float64(u.HostMemTotal)
	}
	if p.First || secs <= 0 {
		return
	}
	// The mean weighs each interval by its length: a last one of a few
	// milliseconds, whose CPU is a tick or none, must not count as much
	// as a whole second.
	m.cpuSecs += secs
	m.cpuSum += p.CPU * secs
	u.CPUMean = m.cpuSum / m.cpuSecs
	u.Window = m.cpuSecs
	switch long := secs >= m.every.Seconds()/2; {
	case long && !m.longest:
		m.longest, u.CPUMax = true, p.CPU
	case long:
		u.CPUMax = max(u.CPUMax, p.CPU)
	case !m.longest:
		u.CPUMax = u.CPUMean
	}
}

// End marks the end of the case the monitor watches without waiting for
// what it saw: the monitors of cases that ran together end at one time,
// however long each then takes to Stop.
func (m *Monitor) End() {
	if m.remote != nil {
		m.remote.end()
		return
	}
	select {
	case <-m.stop:
	default:
		close(m.stop)
	}
}

// Stop takes the last sample, ends sampling and returns what was seen.
// Err reports a process that vanished (or never existed), or figures that
// could not be read from Prometheus; the samples taken before are still
// returned, with Usage.Exited or Usage.Samples 0 and Usage.Reason saying
// which.
func (m *Monitor) Stop() (results.Usage, error) {
	if m.remote != nil {
		return m.remote.stop()
	}
	select {
	case <-m.stop:
	default:
		close(m.stop)
	}
	<-m.done
	m.mu.Lock()
	defer m.mu.Unlock()
	u := m.usage
	u.Series = append([]results.UsagePoint(nil), m.usage.Series...)
	return u, m.err
}

// pidAlive checks that pid names a running process, before any load is
// sent against it. It cannot tell where there is no /proc (another OS):
// the monitor then samples nothing and says so.
func pidAlive(pid int) error { return processAlive("/proc", pid) }

func processAlive(procRoot string, pid int) error {
	if _, err := os.Stat(procRoot); err != nil {
		return nil
	}
	b, err := os.ReadFile(filepath.Join(procRoot, strconv.Itoa(pid), "stat"))
	if err != nil {
		return fmt.Errorf("process %d %w", pid, errGone)
	}
	if st, err := parseProcStat(b); err == nil && st.gone() {
		return fmt.Errorf("process %d %w (a zombie, ended but not reaped)", pid, errGone)
	}
	return nil
}
