package reporters

import (
	"bytes"
	"fmt"
	"slices"
	"strconv"

	"github.com/loadgate/loadgate/results"
	"github.com/loadgate/loadgate/units"
)

// The system under test's CPU and memory and the host's load (SPEC §3, §8)
// in every report. A results.Usage with PID 0 sampled only the host: its
// server figures are zeros, not measurements, so they are never shown;
// nor are those of a Usage without a sample, which reports show as "no
// sample", never as 0. One read from Prometheus has a server's figures
// and no host's: its load shows as "—".

// noSample stands where a monitor could take no sample.
const noSample = "no sample"

// serverSampled reports whether u holds figures of a server process.
func serverSampled(u *results.Usage) bool { return u.Sampled() }

// usageColumns says which usage columns a scenario's tables need: server
// CPU and RSS when some case monitored a server (sampled or not), host
// load when some case sampled anything.
func usageColumns(sr *results.ScenarioRun) (server, host bool) {
	for _, c := range sr.Cases {
		server = server || c.Server.OfServer()
		host = host || (c.Server != nil && c.Server.Prometheus == "")
	}
	return server, host
}

// costColumn says whether a scenario's tables need the server's CPU per
// request: when some case has the figure.
func costColumn(sr *results.ScenarioRun) bool {
	for _, c := range sr.Cases {
		if c.Server != nil && c.Server.CPUPerRequestUS != nil {
			return true
		}
	}
	return false
}

// costCell is the server's CPU per succeeded request in µs, "—" where
// there is no figure and "no sample" where the monitor took none.
func costCell(u *results.Usage) string {
	switch {
	case u != nil && u.Samples == 0:
		return noSample
	case u == nil || u.CPUPerRequestUS == nil:
		return "—"
	}
	return fmtCost(*u.CPUPerRequestUS)
}

// fmtCost renders µs of CPU per request with one decimal: 123.4.
func fmtCost(us float64) string { return units.FormatNumber(us, units.Figure) }

// usageNote says what a case's usage figures lack, "" when nothing: no
// sample at all, or a process that exited during the case.
func usageNote(c *results.CaseRun) string {
	u := c.Server
	switch {
	case u == nil:
		return ""
	case u.Samples == 0:
		return fmt.Sprintf("%s: no sample of the server (%s), so rules on server.* are skipped", c.ID, u.Reason)
	case u.Exited:
		return fmt.Sprintf("%s during case %s: its figures cover the case until then, so rules on server.* are skipped", u.Reason, c.ID)
	}
	return ""
}

// ramNote explains the share of RAM beside RSS, when a case has one.
func ramNote(sr *results.ScenarioRun) string {
	for _, c := range sr.Cases {
		if c.Server != nil && c.Server.HostMemTotal > 0 {
			return ", in brackets its share of the host's RAM"
		}
	}
	return ""
}

// promNote says what figures read from Prometheus are, when a case has
// some.
func promNote(sr *results.ScenarioRun) string {
	for _, c := range sr.Cases {
		if c.Server != nil && c.Server.Prometheus != "" {
			return "; read from Prometheus, CPU and RSS are what the monitor's cpu and rss queries give over the case, as fine as the scrape interval"
		}
	}
	return ""
}

// fmtRSS renders bytes in MiB with one decimal, and the share of the
// host's RAM where it is known: "12.3 (0.2%)".
func fmtRSS(n int64, pct float64, u *results.Usage) string {
	if u.HostMemTotal == 0 {
		return units.FormatMiB(n)
	}
	return units.FormatMiB(n) + " (" + fmtPctOfRAM(pct) + ")"
}

// fmtPctOfRAM renders a share of RAM with two significant decimals for
// small shares: 0.05% rather than 0.0%.
func fmtPctOfRAM(pct float64) string {
	if pct < 1 {
		return strconv.FormatFloat(pct, 'f', 2, 64) + "%"
	}
	return strconv.FormatFloat(pct, 'f', 1, 64) + "%"
}

// cpuCell is CPU mean / max, or "no sample" when there was no interval
// to measure it over: a process that exited before its second sample.
func cpuCell(u *results.Usage) string {
	if !u.CPUSampled() {
		return noSample
	}
	return fmtCPU(u.CPUMean) + " / " + fmtCPU(u.CPUMax)
}

// fmtCPU renders a CPU figure in percent of one core: 250.0% is two and a
// half cores busy.
func fmtCPU(pct float64) string { return strconv.FormatFloat(pct, 'f', 1, 64) + "%" }

// fmtLoad renders a load average as uptime(1) does.
func fmtLoad(l float64) string { return strconv.FormatFloat(l, 'f', 2, 64) }

// usageCells are the case table's usage cells: server CPU mean / max,
// server RSS max in MiB (with its share of the host's RAM), and host
// load1 max; "—" where nothing was monitored, "no sample" where the
// monitor could sample nothing.
func usageCells(u *results.Usage) (cpu, rss, load string) {
	cpu, rss, load = "—", "—", "—"
	switch {
	case u == nil:
	case u.Samples == 0:
		cpu, rss, load = noSample, noSample, noSample
	default:
		if serverSampled(u) {
			cpu, rss = cpuCell(u), fmtRSS(u.RSSMax, u.RSSMaxPct, u)
		}
		if u.HostSampled() {
			load = fmtLoad(u.HostLoad1Max)
		}
	}
	return cpu, rss, load
}

// consoleUsage is the console's line after a case's ab-style block, e.g.
// "Server: cpu mean 45.2% (max 98.0%), rss max 12.3 MiB, host load1 max 1.20".
// A server started for one target carries that target's name.
func consoleUsage(b *bytes.Buffer, cr *results.CaseResult) {
	label := "Server"
	if cr.ServerName != "" && cr.ServerName != "server" {
		label += " " + cr.ServerName
	}
	consoleServer(b, label, cr.Server, cr.ID)
	for i := range cr.Servers {
		consoleServer(b, "Server "+cr.Servers[i].Name, &cr.Servers[i].Usage, cr.ID)
	}
}

// consoleServer is consoleUsage's line of one server.
func consoleServer(b *bytes.Buffer, label string, u *results.Usage, caseID string) {
	switch {
	case u == nil:
		return
	case u.Samples == 0:
		fmt.Fprintf(b, "%s: %s (%s)\n\n", label, noSample, u.Reason)
		return
	case !u.OfServer():
		fmt.Fprintf(b, "Host: load1 max %s, cpu mean %s (no server process monitored)\n\n",
			fmtLoad(u.HostLoad1Max), fmtCPU(u.HostCPUMean))
		return
	}
	rss := units.FormatMiB(u.RSSMax) + " MiB"
	if u.HostMemTotal > 0 {
		rss += " (" + fmtPctOfRAM(u.RSSMaxPct) + " of RAM)"
	}
	cpu := "cpu " + noSample
	if u.CPUSampled() {
		cpu = fmt.Sprintf("cpu mean %s (max %s)", fmtCPU(u.CPUMean), fmtCPU(u.CPUMax))
	}
	if u.CPUPerRequestUS != nil {
		cpu += fmt.Sprintf(", cpu per request %s µs", fmtCost(*u.CPUPerRequestUS))
	}
	host := ", host load1 max " + fmtLoad(u.HostLoad1Max)
	if !u.HostSampled() {
		host = " (read from Prometheus)"
	}
	fmt.Fprintf(b, "%s: %s, rss max %s%s\n", label, cpu, rss, host)
	if u.Exited {
		fmt.Fprintf(b, "%s: %s during case %q: the figures above cover the case until then\n", label, u.Reason, caseID)
	}
	b.WriteString("\n")
}

// compareUsage adds the server rows to a case of `loadgate compare` when
// either side monitored a server: a change of CPU or memory per request is
// as much a regression as a change of latency.
func compareUsage(b *bytes.Buffer, base, cand *results.Usage) {
	compareServer(b, "server", base, cand)
}

// compareServers adds the rows of the servers watched beside the first,
// the entries of `monitors:`, each against the same name in the base.
func compareServers(b *bytes.Buffer, base, cand []results.NamedUsage) {
	var names []string
	for _, list := range [][]results.NamedUsage{cand, base} {
		for _, s := range list {
			if !slices.Contains(names, s.Name) {
				names = append(names, s.Name)
			}
		}
	}
	of := func(list []results.NamedUsage, name string) *results.Usage {
		if i := slices.IndexFunc(list, func(s results.NamedUsage) bool { return s.Name == name }); i >= 0 {
			return &list[i].Usage
		}
		return nil
	}
	for _, n := range names {
		compareServer(b, n, of(base, n), of(cand, n))
	}
}

// compareServer writes one server's rows, labelled with its name.
func compareServer(b *bytes.Buffer, name string, base, cand *results.Usage) {
	if !serverSampled(base) && !serverSampled(cand) {
		return
	}
	row := func(label string, of func(*results.Usage) float64, f func(float64) string) {
		x, y, delta := "—", "—", " |"
		if serverSampled(base) {
			x = f(of(base))
		}
		if serverSampled(cand) {
			y = f(of(cand))
		}
		if serverSampled(base) && serverSampled(cand) {
			delta = " " + fmtDelta(of(base), of(cand)) + " |"
		}
		fmt.Fprintf(b, "| %s | %s | %s |%s\n", label, x, y, delta)
	}
	row(name+" CPU mean", func(u *results.Usage) float64 { return u.CPUMean }, fmtCPU)
	row(name+" CPU max", func(u *results.Usage) float64 { return u.CPUMax }, fmtCPU)
	row(name+" RSS max (MiB)", func(u *results.Usage) float64 { return float64(u.RSSMax) },
		func(f float64) string { return units.FormatMiB(int64(f)) })
}
