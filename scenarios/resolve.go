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

func described(what, name string) string {
	if name == "" {
		return what
	}
	return fmt.Sprintf("%s %q", what, name)
}

// isToken reports whether s is an HTTP token (RFC 9110 §5.6.2), the
// syntax of methods and header names.
func isToken(s string) bool {
	if s == "" {
		return false
	}
	for _, c := range []byte(s) {
		if c <= ' ' || c >= 0x7f || strings.IndexByte(`"(),/:;<=>?@[\]{}`, c) >= 0 {
			return false
		}
	}
	return true
}

func (r *resolver) headers(kvs []pair) []Header {
	var out []Header
	for _, kv := range kvs {
		name := kv.key.Value
		if !isToken(name) {
			r.d.errorf(kv.key, "headers: %q is not a valid header name", name)
			continue
		}
		v, ok := r.headerValue(kv, name, "headers.%s: a header value cannot contain line breaks or NUL")
		if !ok {
			continue
		}
		out = append(out, Header{Name: name, Value: v})
	}
	return out
}

// headerValue resolves the value of a header (or of gRPC metadata) named
// name, whose credentials are secrets like its variables', and refuses a
// value that would break the request's framing: broken names that message,
// given the key as written.
func (r *resolver) headerValue(kv pair, name, broken string) (string, bool) {
	r.used = r.used[:0]
	v, ok := r.text(kv.val)
	if secretHeader(name) {
		pieces := headerSecrets(name, v)
		r.d.secrets.add(pieces...)
		r.d.secrets.addUsed(r.used, pieces)
	}
	if !ok {
		return "", false
	}
	if strings.ContainsAny(v, "\r\n\x00") {
		r.d.errorf(kv.val, broken, kv.key.Value)
		return "", false
	}
	return v, true
}

// timeout resolves a target's `timeout:`, which must be above zero; def is
// kept when the value is not a duration.
func (r *resolver) timeout(n *yaml.Node, def time.Duration) time.Duration {
	v, ok := r.duration(n, "timeout")
	if !ok {
		return def
	}
	if v == 0 {
		r.d.errorf(n, "timeout: must be greater than 0")
	}
	return v
}

// template substitutes variables into n and compiles the result. Values
// of variables may hold placeholders too; a problem in one is reported at
// the variable's use when it cannot be found in the text as written.
func (r *resolver) template(n *yaml.Node, label string) (Template, bool) {
	s, ok := r.text(n)
	if !ok {
		return Template{}, false
	}
	t, errs := compileTemplate(s)
	for _, e := range errs {
		r.d.errs = append(r.d.errs, Errorf(r.substitutedPos(n, s, e.Off), "%s: %s", label, e.Msg))
	}
	return t, len(errs) == 0
}

// substitutedPos maps offset off of s, n's value after substitution, onto
// the file: exactly when nothing was substituted, else by finding the same
// placeholder in the text as written.
func (r *resolver) substitutedPos(n *yaml.Node, s string, off int) Pos {
	if s == n.Value {
		return r.d.posAt(n, off)
	}
	tok := s[off:]
	if end := strings.Index(tok, "}}"); end >= 0 {
		tok = tok[:end+2]
	}
	if i := strings.Index(n.Value, tok); i >= 0 && tok != "" {
		return r.d.posAt(n, i)
	}
	return r.d.pos(n)
}

func (r *resolver) hexPayload(n *yaml.Node) Template {
	s, ok := r.text(n)
	if !ok {
		return Template{}
	}
	b, errs := parseHex(s)
	for _, e := range errs {
		r.d.errs = append(r.d.errs, Errorf(r.substitutedPos(n, s, e.Off), "%s", e.Msg))
	}
	if len(errs) == 0 && len(b) == 0 {
		r.d.errorf(n, "send_hex: no bytes given")
	}
	return literalTemplate(b)
}

// maxConcurrency bounds the workers of a closed-model phase and the
// requests in flight of an open-model one; each is a goroutine and,
// without keep-alive, a socket.
const maxConcurrency = 1_000_000

// maxRate bounds an open-model arrival rate, in requests per second. One
// process cannot schedule arrivals faster, so a larger rate is a typo.
const maxRate = 10_000_000

// rateValue resolves one rate in requests per second.
func (r *resolver) rateValue(n *yaml.Node, label string, zeroOK bool) (float64, bool) {
	v, s, ok := r.float(n, label, aRate)
	switch {
	case !ok:
	case v < 0 && zeroOK:
		r.d.errorf(n, "%s: must not be negative, got %s", label, s)
		ok = false
	case v <= 0 && !zeroOK:
		r.d.errorf(n, "%s: must be greater than 0, got %s", label, s)
		ok = false
	case v > maxRate:
		r.d.errorf(n, "%s: must be at most %d requests per second, got %s", label, maxRate, s)
		ok = false
	}
	return v, ok
}

func (r *resolver) positiveDuration(n *yaml.Node, label string) (time.Duration, bool) {
	v, ok := r.duration(n, label)
	if ok && v == 0 {
		r.d.errorf(n, "%s: must be greater than 0", label)
		return 0, false
	}
	return v, ok
}
