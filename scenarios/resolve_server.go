package scenarios

import (
	"errors"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"time"

	"go.yaml.in/yaml/v3"
)

// Defaults of a server block.
const (
	defaultReadyTimeout = 30 * time.Second
	defaultStopTimeout  = 10 * time.Second
	defaultStopSignal   = "TERM"
)

// stopSignals are the names stop_signal accepts: the signals servers
// commonly shut down on, and KILL for those that shut down on none.
var stopSignals = []string{"TERM", "INT", "QUIT", "HUP", "KILL", "USR1", "USR2"}

// processes resolves the scenario's monitor and every target's, once for
// the whole run: a monitor watches one process for all cases, so its block
// cannot use matrix variables. Servers are resolved per case instead (see
// cases), since a server is restarted for a case that starts it
// differently. The per-target monitors are returned in target order, on
// otherwise empty Targets.
func (d *decoder) processes(vt *varTable, raw *rawScenario, s *Scenario) []Target {
	r := &resolver{d: d, vars: vt, where: "a monitor, which watches one process for all cases"}
	out := make([]Target, len(raw.targets))
	s.Monitor = r.monitor(raw.monitor)
	for i, t := range raw.targets {
		out[i].Monitor = r.monitor(t.monitor)
	}
	s.Monitors = r.namedMonitors(raw)
	return out
}

// monitorName is what a name of `monitors:` must look like: a word rules
// can write as servers.NAME.
var monitorName = regexp.MustCompile(`^[A-Za-z][A-Za-z0-9_]*$`)

// namedMonitors resolves `monitors:`. Their names share servers.* with
// the servers loadgate starts, "server" and the targets' names, so those
// are refused.
func (r *resolver) namedMonitors(raw *rawScenario) []NamedMonitor {
	var out []NamedMonitor
	for _, m := range raw.monitors {
		name := m.key.Value
		switch {
		case !monitorName.MatchString(name):
			r.d.errorf(m.key, "monitors: %q is not a name rules can read as servers.%s: use letters, digits and _, starting with a letter", name, name)
			continue
		case name == "server" || slices.ContainsFunc(raw.targets, func(t *rawTarget) bool { return t.name != nil && t.name.Value == name }):
			r.d.errorf(m.key, "monitors: %q names a server loadgate may start (the scenario's is \"server\", a target's has the target's name): pick another name", name)
			continue
		}
		if mon := r.monitor(m); mon != nil {
			if mon.Prometheus != nil {
				mon.Prometheus.Name = name
			}
			out = append(out, NamedMonitor{Name: name, Monitor: *mon})
		}
	}
	return out
}

func (r *resolver) server(s *rawServer, name string) *Server {
	if s == nil || !s.ok {
		return nil
	}
	out := &Server{
		Name:        name,
		Command:     r.command(s),
		Dir:         r.d.dir,
		Env:         r.env(s.env),
		Ready:       r.ready(&s.ready),
		StopSignal:  defaultStopSignal,
		StopTimeout: defaultStopTimeout,
		Pos:         r.d.pos(s.key),
	}
	if s.dir != nil {
		out.Dir = r.dir(s.dir)
	}
	if s.stopSignal != nil {
		out.StopSignal = r.stopSignal(s.stopSignal)
	}
	if s.stopTimeout != nil {
		if v, ok := r.positiveDuration(s.stopTimeout, "stop_timeout"); ok {
			out.StopTimeout = v
		}
	}
	return out
}

// command resolves the two forms of a command: one string, which a shell
// runs so that pipes, redirections and quoting work as in a terminal, or
// a list of arguments, run as is.
func (r *resolver) command(s *rawServer) []string {
	switch {
	case s.command != nil:
		cmd, ok := r.text(s.command)
		if ok && strings.TrimSpace(cmd) == "" {
			r.d.errorf(s.command, "command: must not be empty")
		}
		return []string{"sh", "-c", cmd}
	case s.argvNode != nil:
		if len(s.argvNode.Content) == 0 {
			r.d.errorf(s.argvNode, "command: needs at least the program to run")
			return nil
		}
		argv := make([]string, 0, len(s.argv))
		for _, a := range s.argv {
			if a == nil {
				continue
			}
			v, _ := r.text(a)
			argv = append(argv, v)
		}
		if len(s.argv) > 0 && s.argv[0] != nil && argv[0] == "" {
			r.d.errorf(s.argv[0], "command: the program to run must not be empty")
		}
		return argv
	case s.commandKey == nil && !r.d.exhausted():
		r.d.errorf(s.node, "server: missing required field %q", "command")
	}
	return nil
}

// dir resolves the working directory against the scenario's directory
// and checks that it exists, so that a typo is found by `validate` and
// not by a server failing to start in CI.
func (r *resolver) dir(n *yaml.Node) string {
	name, ok := r.text(n)
	if !ok {
		return ""
	}
	if name == "" {
		r.d.errorf(n, "dir: must not be empty (leave it out for the scenario's directory)")
		return ""
	}
	path := filepath.Clean(r.d.relPath(name))
	info, err := os.Stat(path)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		r.d.errorf(n, "dir: %q does not exist", name)
	case err != nil:
		r.d.errorf(n, "dir: cannot use %q: %s", name, describeIOError(err))
	case !info.IsDir():
		r.d.errorf(n, "dir: %q is not a directory", name)
	}
	return path
}

// env resolves `env:` into KEY=VALUE entries in file order. Values are
// text whatever YAML would type them as: an environment holds strings.
func (r *resolver) env(kvs []pair) []string {
	var out []string
	for _, kv := range kvs {
		name := kv.key.Value
		if name == "" || strings.ContainsAny(name, "=\x00") {
			r.d.errorf(kv.key, "env: %q is not a valid environment variable name", name)
			continue
		}
		v, ok := r.text(kv.val)
		if !ok {
			continue
		}
		if strings.ContainsRune(v, 0) {
			r.d.errorf(kv.val, "env.%s: a value cannot contain NUL", name)
			continue
		}
		out = append(out, name+"="+v)
	}
	return out
}

func (r *resolver) ready(rr *rawReady) Ready {
	out := Ready{Timeout: defaultReadyTimeout}
	if rr.http != nil {
		out.HTTP, _ = r.url(rr.http, "ready.http")
	}
	if rr.tcp != nil {
		out.TCP = r.address(rr.tcp, "ready.tcp")
	}
	if rr.log != nil {
		if s, ok := r.text(rr.log); ok {
			re, err := regexp.Compile(s)
			switch {
			case err != nil:
				r.d.errorf(rr.log, "ready.log: %v", err)
			case s == "":
				r.d.errorf(rr.log, "ready.log: must not be empty; it would match the first line of output, whatever it says")
			default:
				out.Log = re
			}
		}
	}
	switch {
	case rr.timeout.key == nil:
	case rr.http == nil && rr.tcp == nil && rr.log == nil:
		r.d.errorf(rr.timeout.key, "ready.timeout: there is nothing to wait for; add http, tcp or log")
	case rr.timeout.val != nil:
		if v, ok := r.positiveDuration(rr.timeout.val, "ready.timeout"); ok {
			out.Timeout = v
		}
	}
	return out
}

// stopSignal accepts a signal name as kill(1) and Go's os/signal spell it,
// with or without SIG and in any case, and returns it in one spelling.
func (r *resolver) stopSignal(n *yaml.Node) string {
	s, ok := r.text(n)
	if !ok {
		return defaultStopSignal
	}
	name := strings.TrimPrefix(strings.ToUpper(s), "SIG")
	if !slices.Contains(stopSignals, name) {
		r.d.errorf(n, "stop_signal: expected one of %s or %s (SIG in front is allowed), got %q",
			strings.Join(stopSignals[:len(stopSignals)-1], ", "), stopSignals[len(stopSignals)-1], s)
		return defaultStopSignal
	}
	return name
}

// monitor resolves a monitor block: exactly one of pid, process and
// prometheus.
func (r *resolver) monitor(m *rawMonitor) *Monitor {
	if m == nil || !m.ok {
		return nil
	}
	out := &Monitor{Pos: r.d.pos(m.key)}
	switch {
	case m.pid.key != nil && m.process.key != nil:
		r.d.errorf(later(m.pid.key, m.process.key), "pid and process are exclusive: pid names the process, process finds it by its command line")
	case m.prometheus != nil && (m.pid.key != nil || m.process.key != nil):
		other, name := m.pid.key, "pid"
		if other == nil {
			other, name = m.process.key, "process"
		}
		r.d.errorf(later(other, m.prometheus.key), "prometheus and %s are exclusive: prometheus reads a server's figures from Prometheus, %s watches a process on this host", name, name)
	case m.prometheus != nil:
		out.Prometheus = r.prometheus(m.prometheus)
		if out.Prometheus == nil {
			return nil
		}
	case m.pid.key == nil && m.process.key == nil:
		if !r.d.exhausted() {
			r.d.errorf(m.node, "monitor: needs pid, process or prometheus, to know what to watch")
		}
	case m.pid.val != nil:
		if v, ok := r.intIn(m.pid.val, "pid", 1, math.MaxInt32); ok {
			out.PID = int(v)
		}
	case m.process.val != nil:
		out.Process = r.processPattern(m.process.val)
	}
	return out
}

// processPattern resolves `process:`, a regular expression that must not
// match everything.
func (r *resolver) processPattern(n *yaml.Node) *regexp.Regexp {
	s, ok := r.text(n)
	if !ok {
		return nil
	}
	re, err := regexp.Compile(s)
	switch {
	case err != nil:
		r.d.errorf(n, "process: %v", err)
	case s == "":
		r.d.errorf(n, "process: must not be empty; it would match any process")
	default:
		return re
	}
	return nil
}
