package assertions

import (
	"errors"
	"fmt"
	"maps"
	"regexp"
	"slices"
	"strings"

	"github.com/expr-lang/expr"
	"github.com/expr-lang/expr/ast"
	"github.com/expr-lang/expr/file"
	"github.com/expr-lang/expr/parser"
	"github.com/expr-lang/expr/vm"

	"github.com/loadgate/loadgate/scenarios"
)

// Rules is a scenario's thresholds compiled once, before any traffic is
// sent. It is read-only after Compile, so Judge may run concurrently.
type Rules struct {
	rules []*rule
	// slos are the search phases' SLOs, by their text (a matrix value in
	// the SLO makes one per value).
	slos map[string]*rule
	// sc is the scenario compiled, which Decisive needs to find a case's
	// baseline (its name, its baseline_target).
	sc *scenarios.Scenario
}

// rule is one compiled threshold.
type rule struct {
	th      scenarios.Threshold
	program *vm.Program
	// shown are the values listed in results.Verdict.Actual, in source order.
	shown []shown
	// needsBaseline: the rule reads baseline or calls regressed().
	needsBaseline bool
	// regressed: the rule calls regressed(), which more trials can decide.
	regressed bool
	// baseFigures: the rule reads baseline.* figures.
	baseFigures bool
	// usage says which sampled figures the rule reads, which a case (or
	// a baseline case) without them cannot answer.
	usage usageReads
	// servers says which servers.NAME the rule reads.
	servers serversReads
	// byName: the rule reads requests_by_name, which costs a histogram
	// merge per request of the mix, so it is only built when asked for.
	byName bool
	// requests are the request names the rule reads from requests_by_name.
	requests []string
}

// shown is one value a rule reads, compiled on its own so its value can be
// reported next to the verdict.
type shown struct {
	name    string
	program *vm.Program
	bytes   bool // a memory figure, shown as 12.3MiB rather than a byte count
}

// Compile type-checks every threshold of sc against Env. Problems come back
// as a scenarios.ErrorList, every entry pointing into the YAML file: the
// line is RulePos.Line plus the line inside the rule, the column RulePos.Col
// plus the column (in characters) inside that line. For a rule spanning
// lines that is exact when RulePos is its first character and the lines
// share one indentation, as in a literal block scalar.
func Compile(sc *scenarios.Scenario) (*Rules, error) {
	if sc == nil {
		return &Rules{}, nil
	}
	k := knownOf(sc)
	var errs scenarios.ErrorList
	rs := &Rules{sc: sc, slos: map[string]*rule{}}
	for _, th := range sc.Thresholds {
		if th.RulePos == (scenarios.Pos{}) {
			th.RulePos = th.Pos
		}
		if th.RulePos.File == "" {
			th.RulePos.File = sc.File
		}
		if th.Pos.File == "" {
			th.Pos.File = sc.File
		}
		r, ruleErrs := compileRule(th, k)
		if len(ruleErrs) == 0 && th.Abort {
			ruleErrs = abortErrors(r)
		}
		errs = append(errs, ruleErrs...)
		rs.rules = append(rs.rules, r)
	}
	errs = append(errs, rs.compileSLOs(sc, k)...)
	if err := errs.Err(); err != nil {
		return nil, err
	}
	return rs, nil
}

// known is what the scenario declares, so that map keys a rule can only
// get wrong at run time are caught at load time instead. (A threshold's
// phase: and target: are checked by the scenarios package.)
type known struct {
	matrixKeys   []string
	requestNames []string // of `requests:` mixes and flow steps
	// setupNames are the flow setup steps, which are not measured: a rule
	// reading one is told so rather than that the name is unknown.
	setupNames []string
	// serverNames are the names rules may read under servers.
	serverNames []string
}

func knownOf(sc *scenarios.Scenario) *known {
	k := &known{serverNames: serverNamesOf(sc)}
	for _, a := range sc.Matrix {
		k.matrixKeys = append(k.matrixKeys, a.Key)
	}
	add := func(names *[]string, name string) {
		if name != "" && !slices.Contains(*names, name) {
			*names = append(*names, name)
		}
	}
	addRequests := func(t scenarios.Target) {
		if t.HTTP == nil {
			return
		}
		// A flow's Requests hold its steps already; the steps are read
		// as well so that the names never depend on that.
		for _, rq := range t.HTTP.Requests {
			add(&k.requestNames, rq.Name)
		}
		if f := t.HTTP.Flow; f != nil {
			for _, st := range f.Steps {
				add(&k.requestNames, st.Name)
			}
			for _, st := range f.Setup {
				add(&k.setupNames, st.Name)
			}
		}
	}
	for _, t := range sc.Targets {
		addRequests(t)
	}
	for _, c := range sc.Cases {
		addRequests(c.Target)
	}
	return k
}

func compileRule(th scenarios.Threshold, k *known) (*rule, scenarios.ErrorList) {
	r := &rule{th: th}
	if strings.TrimSpace(th.Rule) == "" {
		return r, scenarios.ErrorList{scenarios.Errorf(th.RulePos, "invalid rule: the rule is empty")}
	}
	rw, lerr := rewrite(th.Rule)
	if lerr != nil {
		return r, scenarios.ErrorList{ruleError(th, lerr.Off, lerr.Msg)}
	}
	in := &inspector{src: rw, known: k, inner: map[ast.Node]bool{}, declared: map[string]bool{}}
	tree, perr := parser.Parse(rw.Text)
	if perr == nil {
		ast.Walk(&tree.Node, callChecker{in})
	}
	if len(in.keyErrs) > 0 {
		var errs scenarios.ErrorList
		for _, e := range in.keyErrs {
			errs = append(errs, ruleError(th, rw.Orig(e.Off), e.Msg))
		}
		return r, errs
	}
	opts := append(envOptions(), divisorOptions()...)
	opts = append(opts, expr.AsBool(), expr.Patch(in), expr.Patch(divisionGuard{src: rw, rule: th.Rule}))
	prog, err := expr.Compile(rw.Text, opts...)
	if err != nil {
		var fe *file.Error
		if errors.As(err, &fe) {
			if perr == nil {
				if off, msg, ok := durationHint(th.Rule, rw, tree.Node, fe); ok {
					return r, scenarios.ErrorList{ruleError(th, off, msg)}
				}
			}
			return r, scenarios.ErrorList{ruleError(th, rw.Orig(fe.From), explain(fe.Message))}
		}
		return r, scenarios.ErrorList{ruleError(th, 0, explain(err.Error()))}
	}
	if len(in.errs) > 0 {
		var errs scenarios.ErrorList
		for _, e := range in.errs {
			errs = append(errs, ruleError(th, rw.Orig(e.Off), e.Msg))
		}
		return r, errs
	}
	r.program = prog
	r.needsBaseline = in.baseline
	r.regressed = in.regressed
	r.baseFigures = in.baseFigures
	r.usage = in.usage
	r.servers = in.servers
	r.byName = in.byName
	r.requests = in.requests
	for _, name := range in.shownNames() {
		p, err := expr.Compile(name, envOptions()...)
		if err != nil {
			continue // a part that cannot stand alone is simply not listed
		}
		own := ownFigure(name)
		r.shown = append(r.shown, shown{name: name, program: p, bytes: asServerFigure(own) == "server.rss" || asServerFigure(own) == "server.rss_max"})
	}
	return r, nil
}

// ruleError places msg at rune offset off of the rule as written.
func ruleError(th scenarios.Threshold, off int, msg string) *scenarios.Error {
	pos := th.RulePos
	line, col := 0, 0
	for i, r := range []rune(th.Rule) {
		if i >= off {
			break
		}
		if r == '\n' {
			line++
			col = 0
		} else {
			col++
		}
	}
	pos.Line += line
	pos.Col += col
	return scenarios.Errorf(pos, "invalid rule: %s", msg)
}

var (
	percentileName = regexp.MustCompile(`^p([0-9]+)$`)
	noField        = regexp.MustCompile(`^type (\S+) has no field (\S+)$`)
)

// explain turns expr's messages into ones that name loadgate's concepts
// and, where a typo is likely, suggest the intended name.
func explain(msg string) string {
	if name, ok := strings.CutPrefix(msg, "unknown name "); ok {
		out := fmt.Sprintf("unknown name %q", name)
		if m := percentileName.FindStringSubmatch(name); m != nil {
			q := m[1]
			if len(q) > 2 {
				q = q[:2] + "." + q[2:]
			}
			return out + fmt.Sprintf("; write p(%s) for any percentile", q)
		}
		if dotted := dottedName(name); dotted != "" {
			return out + fmt.Sprintf("; did you mean %s?", dotted)
		}
		if owners := fieldOwners(name); len(owners) > 0 {
			return out + fmt.Sprintf("; did you mean %s?", orList(owners))
		}
		if c := closest(name, envNames); c != "" {
			return out + fmt.Sprintf("; did you mean %s?", c)
		}
		return out
	}
	if m := noField.FindStringSubmatch(msg); m != nil {
		if fields, ok := fieldNames[m[1]]; ok {
			return fmt.Sprintf("unknown field %q (known: %s)", m[2], strings.Join(fields, ", "))
		}
	}
	if t, ok := strings.CutPrefix(msg, "expected bool, but got "); ok {
		return fmt.Sprintf("a threshold must be a condition (true or false), but this rule is a %s", t)
	}
	return msg
}

// dottedName reads send_lag_p99 or latency_p99 as the field of a struct
// value that the author most likely meant, in other tools' naming style;
// "" when name is not of that form.
func dottedName(name string) string {
	for _, s := range slices.Sorted(maps.Keys(structNames)) {
		if f, ok := strings.CutPrefix(name, s+"_"); ok && slices.Contains(structNames[s], f) {
			return s + "." + f
		}
	}
	return ""
}

// fieldOwners lists where a bare field name such as cpu or rss_max lives
// (server.cpu, host.cpu, generator.cpu), in the environment's order.
func fieldOwners(name string) []string {
	var out []string
	for _, s := range structOrder {
		if slices.Contains(structNames[s], name) {
			out = append(out, s+"."+name)
		}
	}
	return out
}

// orNone lists names, or says there are none.
func orNone(names []string) string {
	if len(names) == 0 {
		return "none"
	}
	return strings.Join(names, ", ")
}

// orList joins names as "a", "a or b", "a, b or c".
func orList(names []string) string {
	if len(names) < 2 {
		return strings.Join(names, "")
	}
	return strings.Join(names[:len(names)-1], ", ") + " or " + names[len(names)-1]
}
