package scenarios

import (
	"regexp"
	"time"
)

// Server is how to start, await and stop a system under test (SPEC §8).
type Server struct {
	Name        string   // for its log file, server-<name>.log: "server", or the target's name
	Command     []string // argv; a command written as one string runs as {"sh", "-c", it}
	Dir         string   // working directory, relative paths resolved against the scenario file
	Env         []string // KEY=VALUE in file order, added to loadgate's environment
	Ready       Ready
	StopSignal  string        // signal name without SIG, e.g. "TERM" (default), "INT", "QUIT"
	StopTimeout time.Duration // then SIGKILL; default 10s
	Pos         Pos
}

// Ready is when a started server counts as ready: the first check to pass.
// With none set, the server is ready once started.
type Ready struct {
	HTTP    string         // URL answering with a status below 500
	TCP     string         // host:port accepting connections
	Log     *regexp.Regexp // a line of the server's output matching
	Timeout time.Duration  // default 30s
}

// Monitor picks an already running process to watch.
type Monitor struct {
	PID     int            // exactly one of PID and Process is set
	Process *regexp.Regexp // matched against /proc/PID/cmdline (arguments joined by spaces); the oldest match wins
	Pos     Pos
}
