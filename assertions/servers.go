package assertions

import (
	"fmt"
	"slices"
	"strings"

	"github.com/expr-lang/expr/ast"
	"github.com/loadgate/loadgate/results"
	"github.com/loadgate/loadgate/scenarios"
)

// Rules read every watched server as servers.NAME: the one of server.*
// under its name ("server", a target's, or its key in `monitors:`) and the
// entries of `monitors:` beside it, such as the application's database.

// serverRead is what a rule reads of one named server.
type serverRead struct {
	name string
	// memPct, cost: rss_pct or rss_max_pct, which need the host's RAM;
	// cpu_per_request, which needs two CPU samples and succeeded requests.
	memPct, cost bool
}

// serversReads records the servers.NAME a rule reads.
type serversReads struct {
	named []serverRead
	// roots and keyed count the rule's reads of servers and of
	// servers.NAME: a read of the whole map (any(values(servers), …))
	// needs every server of the case sampled.
	roots, keyed int
}

// any reports whether the rule reads servers without naming one.
func (r *serversReads) any() bool { return r.roots > r.keyed }

func (r *serversReads) read(name string) *serverRead {
	i := slices.IndexFunc(r.named, func(s serverRead) bool { return s.name == name })
	if i < 0 {
		r.named = append(r.named, serverRead{name: name})
		i = len(r.named) - 1
	}
	return &r.named[i]
}

// visitServers notes a member read under servers: servers.NAME, and the
// figure servers.NAME.FIELD read of it.
func (in *inspector) visitServers(x *ast.MemberNode) {
	if root, ok := x.Node.(*ast.IdentifierNode); ok && root.Value == "servers" {
		if key, ok := x.Property.(*ast.StringNode); ok {
			in.servers.keyed++
			in.servers.read(key.Value)
			in.checkServerName(key)
		}
		return
	}
	name, _, ok := chainText(x)
	if !ok {
		return
	}
	if srv, fig, ok := namedServerFigure(name); ok {
		r := in.servers.read(srv)
		r.memPct = r.memPct || memPctFigures[fig]
		r.cost = r.cost || fig == "server.cpu_per_request"
	}
}

// checkServerName catches servers.dbb where the scenario watches db.
func (in *inspector) checkServerName(key *ast.StringNode) {
	names := in.known.serverNames
	if slices.Contains(names, key.Value) {
		return
	}
	msg := fmt.Sprintf("unknown server %q", key.Value)
	if len(names) == 0 {
		msg += ": the scenario watches no server (start one with server:, or name processes under monitors:)"
	} else {
		msg += fmt.Sprintf(" (known: %s)", strings.Join(names, ", "))
	}
	in.errs = append(in.errs, offError{Off: key.Location().From, Msg: msg})
}

// namedServerFigure reads servers.NAME.FIELD as NAME and server.FIELD, the
// same figure of the server rules read as server.*.
func namedServerFigure(name string) (server, figure string, ok bool) {
	rest, ok := strings.CutPrefix(name, "servers.")
	if !ok {
		return "", "", false
	}
	server, field, ok := strings.Cut(rest, ".")
	if !ok || strings.Contains(field, ".") {
		return "", "", false
	}
	return server, "server." + field, true
}

// asServerFigure names servers.NAME.FIELD as server.FIELD, so that both
// are checked and shown alike; other names are returned as they are.
func asServerFigure(name string) string {
	if _, fig, ok := namedServerFigure(name); ok {
		return fig
	}
	return name
}

// serverNamesOf lists the names rules can read under servers in any case
// of the scenario, in the order the scenario declares them.
func serverNamesOf(sc *scenarios.Scenario) []string {
	var names []string
	add := func(n string) {
		if n != "" && !slices.Contains(names, n) {
			names = append(names, n)
		}
	}
	for i := range sc.Cases {
		add(sc.WatchedName(&sc.Cases[i]))
	}
	for _, m := range sc.Monitors {
		add(m.Name)
	}
	return names
}

// serversMetrics is what rules see under servers for a case.
func serversMetrics(c *results.CaseResult) map[string]ServerMetrics {
	all := results.ServersOf(c.Server, c.ServerName, c.Servers)
	out := make(map[string]ServerMetrics, len(all))
	for i := range all {
		out[all[i].Name] = serverMetricsOf(&all[i].Usage)
	}
	return out
}

// serversGap is why a rule reading servers cannot be judged on case c, ""
// when it can: a named server this case does not watch, or one whose
// figures the rule needs were not measured.
func serversGap(r *serversReads, c *results.CaseResult) string {
	all := results.ServersOf(c.Server, c.ServerName, c.Servers)
	if r.any() {
		if len(all) == 0 {
			return ReasonNoServer
		}
		for i := range all {
			if gap := usageGap(true, false, false, false, &all[i].Usage); gap != "" {
				return "servers." + all[i].Name + ": " + gap
			}
		}
	}
	for _, rd := range r.named {
		i := slices.IndexFunc(all, func(u results.NamedUsage) bool { return u.Name == rd.name })
		if i < 0 {
			return fmt.Sprintf("no server named %q is watched in this case", rd.name)
		}
		if gap := usageGap(true, false, rd.memPct, rd.cost, &all[i].Usage); gap != "" {
			return "servers." + rd.name + ": " + gap
		}
	}
	return ""
}
