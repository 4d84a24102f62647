package sut

import (
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	"github.com/loadgate/loadgate/results"
)

// fakeProc is a /proc with one process, pid 42, its parent 1, and the
// host files a monitor reads.
type fakeProc struct {
	t    *testing.T
	root string
}

func newFakeProc(t *testing.T) fakeProc {
	t.Helper()
	p := fakeProc{t, t.TempDir()}
	p.write("stat", "cpu  100 0 100 800 0 0 0 0 0 0\n")
	p.write("loadavg", "0.42 0.30 0.20 1/100 4242\n")
	p.write("meminfo", "MemTotal:        1048576 kB\nMemFree:          524288 kB\n")
	p.proc(42, 'S', 300, 777, 256)
	return p
}

func (p fakeProc) write(name, content string) {
	p.t.Helper()
	path := filepath.Join(p.root, name)
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		p.t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		p.t.Fatal(err)
	}
}

// proc writes /proc/PID/stat: state, CPU ticks, start time and RSS pages.
func (p fakeProc) proc(pid int, state byte, ticks, start, pages int64) {
	p.write(fmt.Sprintf("%d/stat", pid), fmt.Sprintf(
		"%d (server) %c 1 %d %d 0 -1 0 0 0 0 0 %d 0 0 0 20 0 1 0 %d 1000 %d 0", pid, state, pid, pid, ticks, start, pages))
}

// TestMonitorSamplesAtStartAndEnd drives a monitor over a fake /proc with
// an interval longer than the test, so the only samples are the one taken
// when it starts and the one taken when it stops, as for a case shorter
// than the sampling interval.
func TestMonitorSamplesAtStartAndEnd(t *testing.T) {
	page := int64(os.Getpagesize())
	for _, tc := range []struct {
		name    string
		noProc  bool             // there is no /proc at all (another OS)
		before  func(p fakeProc) // before the monitor starts
		between func(p fakeProc) // between its start and Stop
		samples int
		exited  bool
		reason  string // a part of Usage.Reason
		rssMax  int64
	}{
		{name: "a short case has a sample at its start and one at its end", samples: 2, rssMax: 300 * page,
			between: func(p fakeProc) { p.proc(42, 'R', 310, 777, 300) }},
		{name: "a process gone before the case has no sample", samples: 0, reason: "process 42 is gone",
			before: func(p fakeProc) { os.RemoveAll(filepath.Join(p.root, "42")) }},
		{name: "a zombie is gone too", samples: 0, reason: "process 42 is gone",
			before: func(p fakeProc) { p.proc(42, 'Z', 300, 777, 0) }},
		{name: "a process that exits during the case keeps its first sample", samples: 1, exited: true,
			reason: "process 42 exited", rssMax: 256 * page,
			between: func(p fakeProc) { os.RemoveAll(filepath.Join(p.root, "42")) }},
		{name: "a process that turns zombie during the case exited", samples: 1, exited: true,
			reason: "process 42 exited", rssMax: 256 * page,
			between: func(p fakeProc) { p.proc(42, 'Z', 300, 777, 0) }},
		// Another process with the recycled pid is not the one watched.
		{name: "a pid reused by another process", samples: 1, exited: true,
			reason: "process 42 exited", rssMax: 256 * page,
			between: func(p fakeProc) { p.proc(42, 'S', 5, 999, 4096) }},
		{name: "no /proc: nothing sampled, and why", noProc: true, samples: 0, reason: "sampled on Linux only"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := newFakeProc(t)
			root := p.root
			if tc.noProc {
				root = filepath.Join(p.root, "absent")
			}
			if tc.before != nil {
				tc.before(p)
			}
			m := startMonitor(root, 42, time.Hour)
			if tc.between != nil {
				tc.between(p)
			}
			u, err := m.Stop()
			if u.Samples != tc.samples || len(u.Series) != tc.samples || u.Exited != tc.exited || u.RSSMax != tc.rssMax {
				t.Errorf("samples %d (series %d), exited %v, rss max %d; want %d, %v, %d",
					u.Samples, len(u.Series), u.Exited, u.RSSMax, tc.samples, tc.exited, tc.rssMax)
			}
			if !strings.Contains(u.Reason, tc.reason) || (tc.reason == "") != (u.Reason == "") || (err == nil) != (tc.reason == "") {
				t.Errorf("reason %q, err %v; want one containing %q", u.Reason, err, tc.reason)
			}
			if u.Sampled() != (tc.samples > 0) {
				t.Errorf("Sampled() = %v with %d samples", u.Sampled(), u.Samples)
			}
			if tc.samples > 0 && !u.Series[0].First {
				t.Error("the first sample is not marked First")
			}
			if tc.samples == 0 && (u.CPUMean != 0 || u.HostMemTotal != 0 || u.HostLoad1Max != 0) {
				t.Errorf("figures without a sample: %+v", u)
			}
		})
	}
}

// TestMonitorShareOfRAM checks rss_pct against MemTotal: 1 GiB of RAM,
// 256 then 768 pages of memory.
func TestMonitorShareOfRAM(t *testing.T) {
	p := newFakeProc(t)
	m := startMonitor(p.root, 42, time.Hour)
	p.proc(42, 'S', 300, 777, 768)
	u, err := m.Stop()
	if err != nil {
		t.Fatal(err)
	}
	page := float64(os.Getpagesize())
	want := results.Usage{PID: 42, Samples: 2, HostMemTotal: 1 << 30, RSSMean: int64(512 * page), RSSMax: int64(768 * page),
		RSSPct: 100 * 512 * page / (1 << 30), RSSMaxPct: 100 * 768 * page / (1 << 30), HostLoad1Max: 0.42}
	opts := cmpopts.IgnoreFields(results.Usage{}, "Series", "CPUMean", "CPUMax", "HostCPUMean", "Window")
	if diff := cmp.Diff(want, u, opts, cmpopts.EquateApprox(0, 1e-9)); diff != "" {
		t.Errorf("usage (-want +got):\n%s", diff)
	}
}

func TestMemTotal(t *testing.T) {
	for _, tc := range []struct {
		name, meminfo string
		want          int64
	}{
		{"Linux", "MemTotal:       16318412 kB\nMemFree: 1 kB\n", 16318412 << 10},
		{"not the first line", "Foo: 1 kB\nMemTotal: 2048 kB\n", 2 << 20},
		{"another unit is not guessed", "MemTotal: 2048 MB\n", 0},
		{"no MemTotal", "MemFree: 1 kB\n", 0},
		{"garbage", "MemTotal: lots kB\n", 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			if err := os.WriteFile(filepath.Join(dir, "meminfo"), []byte(tc.meminfo), 0o644); err != nil {
				t.Fatal(err)
			}
			if got := memTotal(dir); got != tc.want {
				t.Errorf("memTotal = %d, want %d", got, tc.want)
			}
		})
	}
	if got := memTotal(t.TempDir()); got != 0 {
		t.Errorf("without /proc/meminfo: %d, want 0", got)
	}
}

// TestCPUFigures feeds samples straight to a monitor sampling once a
// second: the mean weighs intervals by their length, and a short last
// interval, whose CPU is a tick or none, does not set the maximum.
func TestCPUFigures(t *testing.T) {
	type pt struct{ cpu, secs float64 }
	for _, tc := range []struct {
		name         string
		points       []pt
		mean, cpuMax float64
	}{
		{"whole seconds", []pt{{100, 1}, {50, 1}}, 75, 100},
		// 500 % over 10 ms is one tick: it moves the mean a little and is
		// no maximum.
		{"a short last interval", []pt{{100, 1}, {50, 1}, {500, 0.01}}, 155 / 2.01, 100},
		{"only a short interval: the case's own figure", []pt{{300, 0.05}}, 300, 300},
		{"a long interval after short ones", []pt{{300, 0.05}, {20, 1}}, 35 / 1.05, 20},
		{"the first sample alone: no CPU figure", nil, 0, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m := &Monitor{every: time.Second}
			m.add(results.UsagePoint{First: true, RSS: 1}, 0)
			for _, p := range tc.points {
				m.add(results.UsagePoint{CPU: p.cpu, RSS: 1}, p.secs)
			}
			u := m.usage
			if math.Abs(u.CPUMean-tc.mean) > 1e-9 || math.Abs(u.CPUMax-tc.cpuMax) > 1e-9 || u.Samples != len(tc.points)+1 {
				t.Errorf("cpu mean %v max %v, %d samples; want %v, %v, %d", u.CPUMean, u.CPUMax, u.Samples, tc.mean, tc.cpuMax, len(tc.points)+1)
			}
			// The window the mean covers is every interval, short ones too.
			var window float64
			for _, p := range tc.points {
				window += p.secs
			}
			if math.Abs(u.Window-window) > 1e-9 {
				t.Errorf("window %vs, want %vs", u.Window, window)
			}
		})
	}
}

func TestProcessAlive(t *testing.T) {
	p := newFakeProc(t)
	p.proc(43, 'Z', 1, 2, 0)
	for _, tc := range []struct {
		name, root string
		pid        int
		want       string // "" for alive
	}{
		{"running", p.root, 42, ""},
		{"no such process", p.root, 44, "process 44 is gone"},
		{"a zombie", p.root, 43, "process 43 is gone (a zombie, ended but not reaped)"},
		{"no /proc: cannot tell", filepath.Join(p.root, "absent"), 44, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := processAlive(tc.root, tc.pid)
			if got := fmt.Sprint(err); (tc.want == "" && err != nil) || (tc.want != "" && got != tc.want) {
				t.Errorf("processAlive = %v, want %q", err, tc.want)
			}
		})
	}
}
