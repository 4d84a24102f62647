package assertions

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/expr-lang/expr/ast"
	"github.com/loadgate/loadgate/results"
)

// offError is a problem found while walking a rule, at a rune offset of
// the rewritten text.
type offError struct {
	Off int
	Msg string
}

// inspector walks a parsed rule once, as an expr patch, to swap duration
// numbers for time.Duration constants and to learn what the rule reads.
type inspector struct {
	src       rewritten
	known     *known
	inner     map[ast.Node]bool // nodes that are part of a larger chain
	cands     []ast.Node        // identifiers, member chains and p(q) calls
	declared  map[string]bool   // names bound by `let`
	baseline  bool
	regressed bool // calls regressed()
	// baseFigures: reads baseline.* figures, which no both-ways
	// evaluation can stand in for when the loads compared differ.
	baseFigures bool
	usage       usageReads
	servers     serversReads
	byName      bool
	requests    []string // literal keys of requests_by_name
	errs        []offError
	// keyErrs are the status map keys no response can have, found
	// before expr checks types and reported instead of its errors.
	keyErrs []offError
}

// usageReads records which sampled figures a rule reads, and which
// figures only a flow has.
type usageReads struct {
	server, host         bool // server.*, host.*
	baseServer, baseHost bool // baseline.server.*, baseline.host.*
	// memPct, baseMemPct: server.rss_pct or server.rss_max_pct, which need
	// the host's RAM; the same under baseline.
	memPct, baseMemPct bool
	// cost, baseCost: server.cpu_per_request, which needs succeeded
	// requests and two CPU samples; the same under baseline.
	cost, baseCost bool
	flow, baseFlow bool // iterations, iterations_rps, iteration.*; the same under baseline
	// capacity, baseCapacity: capacity, or baseline.capacity; both for
	// regressed("capacity", …).
	capacity, baseCapacity bool
}

// flowFigures are the names only a flow target measures.
var flowFigures = []string{"iterations", "iterations_rps", "iteration"}

// Visit is called bottom-up: children before their parent.
func (in *inspector) Visit(n *ast.Node) {
	switch x := (*n).(type) {
	case *ast.IntegerNode, *ast.FloatNode:
		if d, ok := in.src.Durations[x.Location().From]; ok {
			ast.Patch(n, &ast.ConstantNode{Value: d})
		}
	case *ast.IdentifierNode:
		switch x.Value {
		case "baseline":
			in.baseline, in.baseFigures = true, true
		case "regressed":
			in.baseline, in.regressed = true, true
		case "capacity":
			in.usage.capacity = true
		case "requests_by_name":
			in.byName = true
		case "server":
			in.usage.server = true
		case "host":
			in.usage.host = true
		case "servers":
			in.servers.roots++
		}
		if slices.Contains(flowFigures, x.Value) {
			in.usage.flow = true
		}
		in.cands = append(in.cands, x)
	case *ast.MemberNode:
		in.inner[x.Node] = true
		in.checkKey(x)
		in.visitServers(x)
		if name, _, ok := chainText(x); ok && memPctFigures[ownFigure(name)] {
			own := ownFigure(name) == name
			in.usage.memPct = in.usage.memPct || own
			in.usage.baseMemPct = in.usage.baseMemPct || !own
		}
		if name, _, ok := chainText(x); ok && ownFigure(name) == "server.cpu_per_request" {
			own := ownFigure(name) == name
			in.usage.cost = in.usage.cost || own
			in.usage.baseCost = in.usage.baseCost || !own
		}
		if root, ok := x.Node.(*ast.IdentifierNode); ok && root.Value == "baseline" {
			if p, ok := x.Property.(*ast.StringNode); ok {
				in.usage.baseServer = in.usage.baseServer || p.Value == "server"
				in.usage.baseHost = in.usage.baseHost || p.Value == "host"
				in.usage.baseFlow = in.usage.baseFlow || slices.Contains(flowFigures, p.Value)
				in.usage.baseCapacity = in.usage.baseCapacity || p.Value == "capacity"
			}
		}
		in.cands = append(in.cands, x)
	case *ast.BinaryNode:
		in.checkPercent(x)
	case *ast.ChainNode:
		in.inner[x.Node] = true
		in.cands = append(in.cands, x)
	case *ast.CallNode:
		in.inner[x.Callee] = true
		if name, _, ok := chainText(x.Callee); ok && (name == "p" || strings.HasSuffix(name, ".p")) {
			in.cands = append(in.cands, x)
		} else if m, ok := x.Callee.(*ast.MemberNode); ok {
			// A method such as p99.Milliseconds(): list the receiver.
			delete(in.inner, m.Node)
		}
	case *ast.VariableDeclaratorNode:
		in.declared[x.Name] = true
	}
}

// checkKey catches a misspelt matrix key or request name, which expr's
// maps would only reveal as a nil at run time.
func (in *inspector) checkKey(m *ast.MemberNode) {
	root, ok := m.Node.(*ast.IdentifierNode)
	key, isStr := m.Property.(*ast.StringNode)
	if !ok || !isStr {
		return
	}
	var names []string
	var what string
	switch root.Value {
	case "matrix":
		names, what = in.known.matrixKeys, "matrix key"
	case "requests_by_name":
		names, what = in.known.requestNames, "request name"
	default:
		return
	}
	if what == "request name" && !slices.Contains(in.requests, key.Value) {
		in.requests = append(in.requests, key.Value)
	}
	if slices.Contains(names, key.Value) {
		return
	}
	msg := fmt.Sprintf("unknown %s %q", what, key.Value)
	switch {
	case len(names) == 0 && what == "matrix key":
		msg += ": the scenario has no matrix"
	case what == "request name" && slices.Contains(in.known.setupNames, key.Value):
		msg = fmt.Sprintf("%q is a setup step, which is not measured (steps: %s)", key.Value, orNone(names))
	case len(names) == 0:
		msg += ": no target has a named `requests:` mix or a flow"
	default:
		msg += fmt.Sprintf(" (known: %s)", strings.Join(names, ", "))
	}
	in.errs = append(in.errs, offError{Off: key.Location().From, Msg: msg})
}

// checkRegressed refuses regressed("rsp", …) and regressed("p90", …): a
// metric name that is a plain string would otherwise only fail once a
// baseline is loaded. It also refuses a whole-number tolerance such as
// regressed("rps", 5), which means 500 % where 5% was meant.
func (in *inspector) checkRegressed(c *ast.CallNode) {
	id, ok := c.Callee.(*ast.IdentifierNode)
	if !ok || id.Value != "regressed" || len(c.Arguments) != 2 {
		return
	}
	known := RegressionMetrics()
	if s, ok := c.Arguments[0].(*ast.StringNode); ok && s.Value == "capacity" {
		in.usage.capacity, in.usage.baseCapacity = true, true
	}
	if s, ok := c.Arguments[0].(*ast.StringNode); ok && !slices.Contains(known, s.Value) {
		msg := fmt.Sprintf("regressed: unknown metric %q", s.Value)
		switch near := closest(s.Value, known); {
		case slices.Contains(envNames, s.Value) || slices.Contains(envNames, strings.SplitN(s.Value, ".", 2)[0]):
			msg = fmt.Sprintf("regressed: %s is not measured trial by trial, so it cannot be compared (known: %s)",
				s.Value, strings.Join(known, ", "))
		case near != "":
			msg += fmt.Sprintf("; did you mean %s?", near)
		default:
			msg += fmt.Sprintf(" (known: %s)", strings.Join(known, ", "))
		}
		in.errs = append(in.errs, offError{Off: s.Location().From, Msg: msg})
	}
	if n, ok := c.Arguments[1].(*ast.IntegerNode); ok && n.Value != 0 {
		in.errs = append(in.errs, offError{Off: n.Location().From, Msg: fmt.Sprintf(
			"regressed: a tolerance is a fraction, so %d means %d00%%; write %d%% for %d percent", n.Value, n.Value, n.Value, n.Value)})
	}
}

// percentFigures are the figures measured in percent rather than as a
// fraction, with what their unit means.
var percentFigures = map[string]string{
	"server.cpu":         "percent of one core (250 means two and a half cores busy)",
	"server.cpu_max":     "percent of one core (250 means two and a half cores busy)",
	"host.cpu":           "percent (0 to 100)",
	"server.rss_pct":     "percent of the host's RAM (0 to 100)",
	"server.rss_max_pct": "percent of the host's RAM (0 to 100)",
}

// memPctFigures need the host's RAM, which only Linux tells.
var memPctFigures = map[string]bool{"server.rss_pct": true, "server.rss_max_pct": true}

// checkPercent refuses `server.cpu < 80%`: the percentage is the fraction
// 0.8, so the rule would demand less than one percent of a core and fail
// (or, with `>`, pass) whatever the server did.
func (in *inspector) checkPercent(b *ast.BinaryNode) {
	switch b.Operator {
	case "<", "<=", ">", ">=", "==", "!=":
	default:
		return
	}
	for _, side := range [][2]ast.Node{{b.Left, b.Right}, {b.Right, b.Left}} {
		name, _, ok := chainText(side[0])
		lit, isFloat := side[1].(*ast.FloatNode)
		if !ok || !isFloat || !in.src.Percents[lit.Location().From] {
			continue
		}
		unit, ok := percentFigures[asServerFigure(ownFigure(name))]
		if !ok {
			continue
		}
		// Twelve digits, since 7% is 0.07 and 0.07*100 is 7.000000000000001.
		n := strconv.FormatFloat(lit.Value*100, 'g', 12, 64)
		in.errs = append(in.errs, offError{Off: lit.Location().From, Msg: fmt.Sprintf(
			"%s is in %s, not a fraction, so %s%% would mean %s; write %s for %s percent",
			name, unit, n, strconv.FormatFloat(lit.Value, 'f', -1, 64), n, n)})
	}
}

// ownFigure names a figure the way the case's own would be named, so that
// baseline.server.cpu is treated as server.cpu is.
func ownFigure(name string) string {
	return strings.TrimPrefix(strings.TrimPrefix(name, "baseline."), "baseline?.")
}

// callChecker hands every call of a freshly parsed rule to checkRegressed,
// and every status map read to statusKeyProblem.
// It runs before expr's checker, which turns an integer argument into a
// float without a position.
type callChecker struct{ in *inspector }

func (cc callChecker) Visit(n *ast.Node) {
	switch x := (*n).(type) {
	case *ast.CallNode:
		cc.in.checkRegressed(x)
	case *ast.MemberNode:
		// Before expr's checker too, which would refuse status[503] only
		// as a map of strings indexed by an int.
		if msg := statusKeyProblem(x); msg != "" {
			cc.in.keyErrs = append(cc.in.keyErrs, offError{Off: x.Property.Location().From, Msg: msg})
		}
	}
}

// shownNames lists what the rule reads, as standalone expressions, in the
// order they appear in the rule, each once.
func (in *inspector) shownNames() []string {
	type found struct {
		name string
		from int
	}
	var fs []found
	for _, n := range in.cands {
		if in.inner[n] {
			continue
		}
		var name string
		var root *ast.IdentifierNode
		if c, ok := n.(*ast.CallNode); ok {
			callee, r, ok := chainText(c.Callee)
			if !ok {
				continue
			}
			args := make([]string, len(c.Arguments))
			for i, a := range c.Arguments {
				args[i] = a.String()
			}
			name, root = callee+"("+strings.Join(args, ", ")+")", r
		} else {
			var ok bool
			if name, root, ok = chainText(n); !ok {
				continue
			}
		}
		// Whole structs and maps are left out later, when formatting finds
		// no single value to show.
		if root.Value == "regressed" || name == "baseline" || in.declared[root.Value] ||
			!slices.Contains(envNames, root.Value) {
			continue
		}
		fs = append(fs, found{name: name, from: root.Location().From})
	}
	slices.SortStableFunc(fs, func(a, b found) int { return a.from - b.from })
	var names []string
	for _, f := range fs {
		if !slices.Contains(names, f.name) {
			names = append(names, f.name)
		}
	}
	return names
}

// statusKeyProblem says what is wrong with the key of a status map read
// (status["503"], baseline.status[…], requests_by_name[…].status[…]), or ""
// when nothing is. A wrong key would only ever read 0.
func statusKeyProblem(m *ast.MemberNode) string {
	if name, _, ok := chainText(m.Node); !ok || name != "status" && !strings.HasSuffix(name, ".status") {
		return ""
	}
	switch k := m.Property.(type) {
	case *ast.IntegerNode:
		return fmt.Sprintf("status codes are strings: write status[\"%d\"]", k.Value)
	case *ast.StringNode:
		if results.IsStatusKey(k.Value) {
			return ""
		}
		return fmt.Sprintf("unknown status code %q (a code from 100 to 599, such as \"503\", or \"other\")", k.Value)
	}
	return ""
}

// chainText renders an identifier or a member chain on one as expr source,
// with requests_by_name keys in brackets as people write them.
func chainText(n ast.Node) (string, *ast.IdentifierNode, bool) {
	switch x := n.(type) {
	case *ast.IdentifierNode:
		return x.Value, x, true
	case *ast.ChainNode:
		return chainText(x.Node)
	case *ast.MemberNode:
		base, root, ok := chainText(x.Node)
		if !ok {
			return "", nil, false
		}
		dot := "."
		if x.Optional {
			dot = "?."
		}
		s, isStr := x.Property.(*ast.StringNode)
		if isStr && isIdent(s.Value) && base != "requests_by_name" {
			return base + dot + s.Value, root, true
		}
		if x.Optional {
			return base + "?.[" + x.Property.String() + "]", root, true
		}
		return base + "[" + x.Property.String() + "]", root, true
	}
	return "", nil, false
}

func isIdent(s string) bool {
	if s == "" {
		return false
	}
	for i, r := range s {
		if !isIdentRune(r) || (i == 0 && isDigit(r)) {
			return false
		}
	}
	return true
}
