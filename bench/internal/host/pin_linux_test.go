package host

import (
	"os"
	"runtime"
	"slices"
	"strconv"
	"testing"
)

func TestPinThisProcess(t *testing.T) {
	if runtime.GOOS != "linux" || runtime.NumCPU() < 2 {
		t.Skip("needs Linux and two CPUs")
	}
	before, err := CPUs(os.Getpid())
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
		got, err := CPUs(tid)
		if err == nil && !slices.Equal(got, []int{1}) {
			t.Errorf("thread %d runs on CPUs %v after Pin(self, [1])", tid, got)
		}
	}
}
