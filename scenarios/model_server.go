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

// Monitor picks what to watch: an already running process on this host,
// or a server elsewhere whose figures a Prometheus server holds.
type Monitor struct {
	PID        int            // exactly one of PID, Process and Prometheus is set
	Process    *regexp.Regexp // matched against /proc/PID/cmdline (arguments joined by spaces); the oldest match wins
	Prometheus *Prometheus
	Pos        Pos
}

// NamedMonitor is one entry of `monitors:`. Rules read its figures as
// servers.NAME.cpu and so on.
type NamedMonitor struct {
	Name string
	Monitor
}

// Prometheus reads a server's CPU and memory from a Prometheus server
// after each case, by range queries over the case's time window.
type Prometheus struct {
	URL string // http(s)://host:port[/prefix] of the Prometheus HTTP API
	// CPU and RSS are PromQL expressions that each give one series: the
	// server's CPU in percent of one core and its resident memory in
	// bytes. The default queries of the form written are filled in.
	CPU, RSS string
	// Lookback is how far before its evaluation time a point of either
	// query reads samples: the longest range selector in them. Points are
	// taken from the case's start plus Lookback on, so that none mixes in
	// what the server did before the case.
	Lookback time.Duration
	Step     time.Duration // resolution of the range queries
	// Settle is how long after a case loadgate waits before querying, so
	// that the scrapes of the case's last seconds are stored.
	Settle time.Duration
	// Name says what is watched, for reports: the process group, the
	// instance, or "prometheus" for queries of one's own.
	Name string
}
