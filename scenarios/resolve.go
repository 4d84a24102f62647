package scenarios

import (
	"errors"
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"time"

	"go.yaml.in/yaml/v3"

	"github.com/loadgate/loadgate/units"
)

// resolver is the second pass: it substitutes variables into scalars and
// converts them to typed values. Scenario-wide fields (names, thresholds)
// are resolved once with matrix == nil; targets and phases once per matrix
// combination, with that combination's values.
type resolver struct {
	d      *decoder
	vars   *varTable
	matrix map[string]string
	where  string // names the scenario-wide fields, for matrix-key errors
	// used collects the values substituted since it was last cleared, so
	// that a variable used in a credential becomes a secret itself.
	used []string
}

func (r *resolver) lookup(name string) (string, error) {
	if v, ok := r.matrix[name]; ok {
		r.used = append(r.used, v)
		return v, nil
	}
	if r.matrix == nil && r.vars.matrixKeys[name] {
		return "", fmt.Errorf("matrix variable %q cannot be used in %s", name, strings.ReplaceAll(r.where, "NAME", name))
	}
	if r.vars.cycle[name] {
		return "", errVarCycle
	}
	if v, ok := r.vars.lookup(name); ok {
		r.used = append(r.used, v)
		return v, nil
	}
	return "", fmt.Errorf("undefined variable %q (define it under vars:, pass --var %s=..., or set %s%s)", name, name, EnvPrefix, name)
}

// text returns scalar n's value with variables substituted. A null scalar
// is the empty string.
func (r *resolver) text(n *yaml.Node) (string, bool) {
	if isNull(n) {
		return "", true
	}
	out, errs := substitute(n.Value, r.lookup)
	for _, e := range errs {
		if e.Msg == errVarCycle.Error() {
			continue // reported where the variables are defined
		}
		r.d.errs = append(r.d.errs, Errorf(r.d.posAt(n, e.Off), "%s", e.Msg))
	}
	return out, len(errs) == 0
}

// posAt returns the position of byte offset off inside scalar n's value:
// exact for a value written verbatim on one line, else n's own position.
func (d *decoder) posAt(n *yaml.Node, off int) Pos {
	p := d.pos(n)
	if col, ok := d.src.valueStart(n); ok && off <= len(n.Value) {
		p.Col = col + len([]rune(n.Value[:off]))
	}
	return p
}

func (r *resolver) int(n *yaml.Node, label string) (int64, bool) {
	s, ok := r.text(n)
	if !ok {
		return 0, false
	}
	v, err := strconv.ParseInt(s, 10, 64)
	switch {
	case errors.Is(err, strconv.ErrRange):
		r.d.errorf(n, "%s: %s is too large", label, s)
		return 0, false
	case err != nil:
		r.d.errorf(n, "%s: expected %s, got %q", label, anInteger, s)
		return 0, false
	}
	return v, true
}

// intIn resolves an integer that must lie in [lo, hi].
func (r *resolver) intIn(n *yaml.Node, label string, lo, hi int64) (int64, bool) {
	v, ok := r.int(n, label)
	switch {
	case !ok:
	case v < lo:
		r.d.errorf(n, "%s: must be at least %d, got %d", label, lo, v)
		ok = false
	case v > hi:
		r.d.errorf(n, "%s: must be at most %d, got %d", label, hi, v)
		ok = false
	}
	return v, ok
}

// bool accepts the YAML 1.2 spellings of true and false only: yes/no/on/off
// mean booleans in YAML 1.1 but strings in 1.2, and guessing helps nobody.
func (r *resolver) bool(n *yaml.Node, label string) (bool, bool) {
	s, ok := r.text(n)
	if !ok {
		return false, false
	}
	switch s {
	case "true", "True", "TRUE":
		return true, true
	case "false", "False", "FALSE":
		return false, true
	}
	r.d.errorf(n, "%s: expected %s, got %q", label, aBool, s)
	return false, false
}

// decimal is the number syntax of a rate: plain decimal notation with an
// optional exponent. strconv.ParseFloat alone would also take hex floats,
// "Inf" and "NaN", none of which is a request rate.
var decimal = regexp.MustCompile(`^[-+]?([0-9]+(\.[0-9]*)?|\.[0-9]+)([eE][-+]?[0-9]+)?$`)

// float resolves a decimal number. It also returns the text as written, for
// messages: a value that underflows to 0 should be quoted, not printed as 0.
func (r *resolver) float(n *yaml.Node, label, noun string) (float64, string, bool) {
	s, ok := r.text(n)
	if !ok {
		return 0, s, false
	}
	if !decimal.MatchString(s) {
		r.d.errorf(n, "%s: expected %s, got %q", label, noun, s)
		return 0, s, false
	}
	v, err := strconv.ParseFloat(s, 64)
	if err != nil {
		r.d.errorf(n, "%s: %s is too large", label, s)
		return 0, s, false
	}
	return v, s, true
}

// duration resolves a duration (units.ParseDuration): Go's syntax, not
// negative, and a bare number only when it is 0.
func (r *resolver) duration(n *yaml.Node, label string) (time.Duration, bool) {
	s, ok := r.text(n)
	if !ok {
		return 0, false
	}
	v, err := units.ParseDuration(s)
	switch {
	case errors.Is(err, units.ErrNoUnit):
		r.d.errorf(n, "%s: expected %s, got %s (a number needs a unit: write %ss)", label, aDuration, s, s)
		return 0, false
	case errors.Is(err, units.ErrNegative):
		r.d.errorf(n, "%s: must not be negative, got %s", label, s)
		return 0, false
	case err != nil:
		r.d.errorf(n, "%s: expected %s, got %q", label, aDuration, s)
		return 0, false
	}
	return v, true
}

// size resolves a byte count (units.ParseSize).
func (r *resolver) size(n *yaml.Node, label string) (int64, bool) {
	s, ok := r.text(n)
	if !ok {
		return 0, false
	}
	v, err := units.ParseSize(s)
	switch {
	case errors.Is(err, units.ErrFraction), errors.Is(err, units.ErrRange):
		r.d.errorf(n, "%s: %q is %v", label, s, err)
		return 0, false
	case err != nil:
		r.d.errorf(n, "%s: expected %s, got %q", label, aSize, s)
		return 0, false
	}
	return v, true
}

var validName = regexp.MustCompile(`^[A-Za-z0-9._-]+$`)

// name resolves the name of a scenario, target, phase or request. Names
// show up in case IDs, file names and rules, so they are kept plain.
func (r *resolver) name(n *yaml.Node, label string) (string, bool) {
	s, ok := r.text(n)
	if !ok {
		return "", false
	}
	if !validName.MatchString(s) {
		r.d.errorf(n, "%s: %q is not a valid name (use letters, digits, '.', '_' and '-')", label, s)
		return "", false
	}
	return s, true
}
