package results

import (
	"bufio"
	"io"
	"os"
	"runtime"
	"sort"
	"strings"
)

// runnerLabels are the CI variables that describe the kind of machine, as
// opposed to the one machine (RUNNER_NAME) or paths on it (RUNNER_TEMP):
// two runs on equivalent hosted runners must get the same fingerprint.
var runnerLabels = []string{"RUNNER_ARCH", "RUNNER_ENVIRONMENT", "RUNNER_OS"}

// HostInfo describes the machine this process runs on. Cores is the number
// of logical CPUs; CPUModel comes from /proc/cpuinfo and is empty where that
// file does not exist.
func HostInfo() Host {
	h := Host{
		OS:    runtime.GOOS,
		Arch:  runtime.GOARCH,
		Cores: runtime.NumCPU(),
	}
	if name, err := os.Hostname(); err == nil && name != "" {
		h.Hostname = name
	} else {
		h.Hostname = "localhost"
	}
	if f, err := os.Open("/proc/cpuinfo"); err == nil {
		h.CPUModel = cpuModel(f)
		_ = f.Close() // read-only: nothing to lose on close
	}
	h.Runner = runnerFingerprint(os.Getenv)
	return h
}

// cpuModel finds the processor's name in /proc/cpuinfo. x86 calls the field
// "model name"; other architectures use "Hardware", "cpu model" or "cpu".
func cpuModel(r io.Reader) string {
	fields := map[string]string{}
	sc := bufio.NewScanner(r)
	for sc.Scan() {
		key, val, ok := strings.Cut(sc.Text(), ":")
		if !ok {
			continue
		}
		key, val = strings.TrimSpace(key), strings.TrimSpace(val)
		if _, dup := fields[key]; !dup && val != "" {
			fields[key] = val
		}
	}
	for _, key := range []string{"model name", "Hardware", "cpu model", "cpu", "Processor"} {
		if v, ok := fields[key]; ok {
			return v
		}
	}
	return ""
}

// runnerFingerprint joins the set runner labels as sorted KEY=value pairs.
func runnerFingerprint(getenv func(string) string) string {
	var parts []string
	for _, k := range runnerLabels {
		if v := getenv(k); v != "" {
			parts = append(parts, k+"="+v)
		}
	}
	sort.Strings(parts)
	return strings.Join(parts, " ")
}
