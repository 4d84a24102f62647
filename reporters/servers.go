package reporters

import (
	"slices"

	"github.com/loadgate/loadgate/results"
	"github.com/loadgate/loadgate/units"
)

// The servers side by side: when a case watched more than one server (the
// application and its database, through `monitors:`), every report shows
// the table the classic studies tabulate, the load's throughput and
// response time beside each server's CPU and memory.

// serversTable is that table, its cells formatted for any report.
type serversTable struct {
	Columns []string
	Rows    []serversRow
	// Names are the servers, in the order of the columns.
	Names []string
}

type serversRow struct {
	Case  string
	Cells []string
}

// serversTableOf builds sr's table; nil when no case watched more than
// one server, where the case table's server columns say it all.
func serversTableOf(sr *results.ScenarioRun) *serversTable {
	var names []string
	several := false
	for _, c := range sr.Cases {
		all := results.ServersOf(c.Server, c.ServerName, c.Servers)
		several = several || len(all) > 1
		for _, s := range all {
			if !slices.Contains(names, s.Name) {
				names = append(names, s.Name)
			}
		}
	}
	if !several {
		return nil
	}
	cost := map[string]bool{}
	for _, c := range sr.Cases {
		for _, s := range results.ServersOf(c.Server, c.ServerName, c.Servers) {
			cost[s.Name] = cost[s.Name] || s.CPUPerRequestUS != nil
		}
	}
	t := &serversTable{Names: names, Columns: []string{"case", "rps", "mean", "p99"}}
	for _, n := range names {
		t.Columns = append(t.Columns, n+" CPU mean / max")
		if cost[n] {
			t.Columns = append(t.Columns, n+" CPU per request (µs)")
		}
		t.Columns = append(t.Columns, n+" RSS max (MiB)")
	}
	for _, c := range sr.Cases {
		row := serversRow{Case: c.ID, Cells: []string{units.FormatNumber(c.Stats.RPS, units.Figure), "—", "—"}}
		if c.Stats.Succeeded > 0 {
			row.Cells[1] = units.FormatDuration(c.Stats.Latency.Mean, units.Figure)
			row.Cells[2] = units.FormatDuration(c.Stats.Latency.P99, units.Figure)
		}
		all := results.ServersOf(c.Server, c.ServerName, c.Servers)
		for _, n := range names {
			var u *results.Usage
			if i := slices.IndexFunc(all, func(s results.NamedUsage) bool { return s.Name == n }); i >= 0 {
				u = &all[i].Usage
			}
			cpu, rss, _ := usageCells(u)
			row.Cells = append(row.Cells, cpu)
			if cost[n] {
				row.Cells = append(row.Cells, costCell(u))
			}
			row.Cells = append(row.Cells, rss)
		}
		t.Rows = append(t.Rows, row)
	}
	return t
}

// namedUsageNotes say, per case, which of the servers beside the first
// could not be sampled or exited while they were.
func namedUsageNotes(c *results.CaseRun) []string {
	var notes []string
	for _, s := range c.Servers {
		switch {
		case s.Samples == 0:
			notes = append(notes, c.ID+": no sample of server "+s.Name+" ("+s.Reason+"), so rules on servers."+s.Name+" are skipped")
		case s.Exited:
			notes = append(notes, s.Reason+" during case "+c.ID+": the figures of server "+s.Name+" cover the case until then, so rules on servers."+s.Name+" are skipped")
		}
	}
	return notes
}
