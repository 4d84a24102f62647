package host

import (
	"fmt"
	"os"
	"runtime"
	"slices"
	"strconv"
	"testing"

	"golang.org/x/sys/unix"
)

func TestPinThisProcess(t *testing.T) {
	if runtime.GOOS != "linux" || runtime.NumCPU() < 2 {
		t.Skip("needs Linux and two CPUs")
	}
	before, err := cpus(os.Getpid())
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = Pin(os.Getpid(), before) }()
	if err := Pin(os.Getpid(), []int{1}); err != nil {
		t.Fatal(err)
	}
	tasks, err := os.ReadDir("/proc/self/task")
	if err != nil {
		t.Fatal(err)
	}
	for _, task := range tasks {
		tid, _ := strconv.Atoi(task.Name())
		got, err := cpus(tid)
		if err == nil && !slices.Equal(got, []int{1}) {
			t.Errorf("thread %d runs on CPUs %v after Pin(self, [1])", tid, got)
		}
	}
}

// cpus lists the CPUs thread (or process) pid may run on.
func cpus(pid int) ([]int, error) {
	var set unix.CPUSet
	if err := unix.SchedGetaffinity(pid, &set); err != nil {
		return nil, fmt.Errorf("affinity of %d: %w", pid, err)
	}
	var cpus []int
	for c := 0; c < len(set)*64; c++ {
		if set.IsSet(c) {
			cpus = append(cpus, c)
		}
	}
	return cpus, nil
}
