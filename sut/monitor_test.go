//go:build unix

package sut

import (
	"os"
	"os/exec"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

func TestParseProcStat(t *testing.T) {
	rest := " S 41 42 42 0 -1 4194560 100 0 0 0 250 50 0 0 20 0 1 0 777 12345678 321 18446744073709551615"
	for _, tc := range []struct {
		name string
		line string
		want procStat
		ok   bool
	}{
		{"plain command", "42 (nginx)" + rest, procStat{state: 'S', ppid: 41, cpuTicks: 300, startTicks: 777, rssPages: 321}, true},
		// A command may hold spaces and parentheses; fields count from the last ')'.
		{"command with ') ('", "42 (we ird) (x)" + rest, procStat{state: 'S', ppid: 41, cpuTicks: 300, startTicks: 777, rssPages: 321}, true},
		{"zombie", "42 (nginx) Z" + rest[2:], procStat{state: 'Z', ppid: 41, cpuTicks: 300, startTicks: 777, rssPages: 321}, true},
		{"truncated", "42 (nginx) S 41 42", procStat{}, false},
		{"no command", "42 nginx S 41", procStat{}, false},
		{"garbage number", "42 (nginx) S x 42 42 0 -1 4194560 100 0 0 0 250 50 0 0 20 0 1 0 777 12345678 321", procStat{}, false},
		{"empty", "", procStat{}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := parseProcStat([]byte(tc.line))
			if (err == nil) != tc.ok || got != tc.want {
				t.Errorf("parseProcStat = %+v, %v; want %+v ok=%v", got, err, tc.want, tc.ok)
			}
		})
	}
}

func FuzzParseProcStat(f *testing.F) {
	f.Add([]byte("42 (nginx) S 41 42 42 0 -1 4194560 100 0 0 0 250 50 0 0 20 0 1 0 777 12345678 321 0"))
	f.Add([]byte("1 ((((( S"))
	f.Fuzz(func(t *testing.T, b []byte) {
		s, err := parseProcStat(b)
		if err != nil && s != (procStat{}) {
			t.Errorf("error %v with a non-zero result %+v", err, s)
		}
	})
}

// TestMonitorSeesTheWholeTree runs a shell whose grandchild burns CPU: the
// monitor must count it, and its RSS must agree with /proc.
func TestMonitorSeesTheWholeTree(t *testing.T) {
	cmd := exec.Command("sh", "-c", "sh -c 'while :; do :; done' & sleep 30")
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) // the group we started
		_ = cmd.Wait()
	})
	m := startProcMonitor(cmd.Process.Pid, 200*time.Millisecond)
	time.Sleep(1300 * time.Millisecond)
	rssNow := treeRSSFromStatus(t, cmd.Process.Pid)
	u, err := m.Stop()
	if err != nil {
		t.Fatal(err)
	}
	if u.Samples < 4 {
		t.Fatalf("%d samples in 1.3s at 200ms", u.Samples)
	}
	// The busy grandchild wants a whole core; on a loaded machine it gets
	// less, but without it the tree (a shell and sleep) uses next to none.
	if u.CPUMax < 5 {
		t.Errorf("cpu max %.1f%%: the grandchild's CPU was not counted", u.CPUMax)
	}
	last := u.Series[len(u.Series)-1]
	if last.Procs < 3 {
		t.Errorf("tree has %d processes, want sh, its child and sleep", last.Procs)
	}
	if u.RSSMax <= 0 || last.RSS < rssNow/2 || last.RSS > rssNow*2 {
		t.Errorf("rss %d vs /proc status %d", last.RSS, rssNow)
	}
	if u.HostCPUMean <= 0 || u.HostLoad1Max < 0 {
		t.Errorf("host figures %+v", u)
	}
}

// treeRSSFromStatus sums VmRSS of pid and its children via /proc/PID/status,
// an independent reading of what the monitor derives from stat.
func treeRSSFromStatus(t *testing.T, pid int) int64 {
	t.Helper()
	tree, err := readTree("/proc", pid)
	if err != nil {
		t.Fatal(err)
	}
	var total int64
	for k := range tree.ticks {
		b, err := os.ReadFile("/proc/" + strconv.FormatInt(k[0], 10) + "/status")
		if err != nil {
			continue
		}
		for _, line := range strings.Split(string(b), "\n") {
			if v, ok := strings.CutPrefix(line, "VmRSS:"); ok {
				kb, _ := strconv.ParseInt(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(v), "kB")), 10, 64)
				total += kb << 10
			}
		}
	}
	return total
}

func TestMonitorOfAMissingProcess(t *testing.T) {
	m := startProcMonitor(1<<30, 10*time.Millisecond)
	u, err := m.Stop()
	if err == nil || u.Samples != 0 || u.Sampled() || u.Reason != "process 1073741824 is gone" {
		t.Errorf("monitoring a pid that does not exist: %+v, %v", u, err)
	}
}
