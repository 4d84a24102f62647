package runner

import (
	"strconv"

	"github.com/loadgate/loadgate/results"
)

// setCPUPerRequest gives each sampled server of a group its CPU per
// succeeded request. A group's monitors start at its first measured phase
// and stop at its end together, so each one's window holds every case of
// the group from then on: a server watched by several of its cases (the
// scenario's, under interleaved trials or a same-job comparison) served
// all their requests in it, and its CPU is shared among their total. A
// server only one case reaches divides by that case's requests; the other
// cases' phases add only its idle CPU to the figure.
func setCPUPerRequest(cases []*results.CaseResult) {
	total := map[string]int64{}
	eachUsage(cases, func(name string, u *results.Usage, cr *results.CaseResult) {
		total[serverKey(name, u)] += windowSucceeded(cr.Phases)
	})
	eachUsage(cases, func(name string, u *results.Usage, _ *results.CaseResult) {
		u.SetCPUPerRequest(total[serverKey(name, u)])
	})
}

// eachUsage calls f with every server usage of the cases: the one of
// server.* and those of `monitors:` beside it.
func eachUsage(cases []*results.CaseResult, f func(name string, u *results.Usage, cr *results.CaseResult)) {
	for _, cr := range cases {
		if cr.Server != nil {
			f(cr.ServerName, cr.Server, cr)
		}
		for i := range cr.Servers {
			f(cr.Servers[i].Name, &cr.Servers[i].Usage, cr)
		}
	}
}

// serverKey tells the servers of a group apart: a process by its pid, a
// Prometheus monitor by its address and the name of what it watches.
func serverKey(name string, u *results.Usage) string {
	return name + "\x00" + strconv.Itoa(u.PID) + "\x00" + u.Prometheus
}

// windowSucceeded counts the succeeded requests of the phases a monitor's
// window holds: from the first measured phase on, warm-ups after it
// included, since the server served them while it was sampled.
func windowSucceeded(phases []*results.PhaseResult) int64 {
	var n int64
	measuring := false
	for _, p := range phases {
		measuring = measuring || !p.Warmup
		if measuring {
			n += p.Succeeded
		}
	}
	return n
}
