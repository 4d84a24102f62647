package host

import (
	"fmt"
	"os"
	"strconv"

	"golang.org/x/sys/unix"
)

// Pin restricts every thread of process pid to the given CPUs. Affinity
// belongs to threads, and a new thread inherits its creator's, so the
// threads are set until a pass finds none left out: one made meanwhile by
// a thread not yet set is caught by the next pass.
func Pin(pid int, cpus []int) error {
	var set unix.CPUSet
	for _, c := range cpus {
		set.Set(c)
	}
	dir := "/proc/" + strconv.Itoa(pid) + "/task"
	for pass := 0; pass < 10; pass++ {
		tasks, err := os.ReadDir(dir)
		if err != nil {
			return fmt.Errorf("pin %d: %w", pid, err)
		}
		changed := false
		for _, t := range tasks {
			tid, err := strconv.Atoi(t.Name())
			if err != nil {
				continue
			}
			var cur unix.CPUSet
			if unix.SchedGetaffinity(tid, &cur) == nil && cur == set {
				continue
			}
			if err := unix.SchedSetaffinity(tid, &set); err != nil && err != unix.ESRCH {
				return fmt.Errorf("pin %d: thread %d: %w", pid, tid, err)
			}
			changed = true
		}
		if !changed {
			return nil
		}
	}
	return fmt.Errorf("pin %d: threads kept appearing", pid)
}
