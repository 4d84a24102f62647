package assertions

import (
	"fmt"
	"strconv"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/loadgate/loadgate/units"
)

// rewritten is a rule with loadgate's literals turned into plain expr.
// Offsets are counted in runes, as expr counts them in its errors.
type rewritten struct {
	Text string
	// Durations maps the rune offset in Text of every number that stands for
	// a duration literal to its value. expr has no duration literal, and its
	// name `duration` is taken by the metric, so the compiler swaps these
	// numbers for time.Duration constants after parsing.
	Durations map[int]time.Duration
	// Percents holds the rune offset in Text of every number written as a
	// percentage, so that a percentage compared with a figure that is
	// itself in percent (server.cpu) can be refused.
	Percents map[int]bool
	edits    []edit
}

// edit is one literal replaced: orig runes at origOff became text runes at
// newOff.
type edit struct {
	origOff, origLen int
	newOff, newLen   int
}

// Orig maps a rune offset in Text back onto the rule as written. An offset
// inside a replaced literal maps onto the literal's first rune, so an error
// about `50000000` points at the `50ms` the user typed.
func (r rewritten) Orig(off int) int {
	shift := 0
	for _, e := range r.edits {
		if off < e.newOff {
			break
		}
		if off < e.newOff+e.newLen {
			return e.origOff
		}
		shift = (e.origOff + e.origLen) - (e.newOff + e.newLen)
	}
	return off + shift
}

// literalError is a malformed literal at a rune offset of the original rule.
type literalError struct {
	Off int
	Msg string
}

// rewrite turns the literals of SPEC §4 into plain expr: durations (`50ms`,
// `1h30m`) become nanosecond integers recorded in Durations, sizes (`64MiB`)
// become byte counts, and percentages (`5%`) become fractions (`0.05`).
// Text inside string literals and comments is never touched. `%` right after
// a number is a percent sign when what follows cannot start an operand (the
// end, a closing bracket, a comma or an operator); otherwise it is modulo,
// so `10%3`, `10 % 3` and `10%(3)` keep their meaning.
func rewrite(src string) (rewritten, *literalError) {
	rs := []rune(src)
	out := rewritten{Durations: map[int]time.Duration{}, Percents: map[int]bool{}}
	var b strings.Builder
	b.Grow(len(src) + 16)
	outLen := 0 // runes written to b
	copied := 0 // runes of rs already written to b

	replace := func(from, to int, text string) {
		for _, r := range rs[copied:from] {
			b.WriteRune(r)
		}
		outLen += from - copied
		n := utf8.RuneCountInString(text)
		out.edits = append(out.edits, edit{origOff: from, origLen: to - from, newOff: outLen, newLen: n})
		b.WriteString(text)
		outLen += n
		copied = to
	}

	for i := 0; i < len(rs); {
		r := rs[i]
		switch {
		case r == '"' || r == '\'':
			i = skipQuoted(rs, i)
		case r == '`':
			i = skipRaw(rs, i)
		case r == '/' && i+1 < len(rs) && rs[i+1] == '/':
			for i < len(rs) && rs[i] != '\n' {
				i++
			}
		case r == '/' && i+1 < len(rs) && rs[i+1] == '*':
			i = skipBlockComment(rs, i)
		case isIdentRune(r):
			if !isDigit(r) || (i > 0 && rs[i-1] == '.') {
				// An identifier, or digits after `..` in a range: no units.
				for i < len(rs) && isIdentRune(rs[i]) {
					i++
				}
				continue
			}
			fallthrough
		case r == '.' && i+1 < len(rs) && isDigit(rs[i+1]) && startsOperand(rs, i):
			lit, err := scanLiteral(rs, i)
			if err != nil {
				return rewritten{}, err
			}
			if lit.text != "" {
				replace(i, lit.end, lit.text)
				at := outLen - utf8.RuneCountInString(lit.text)
				if lit.isDuration {
					out.Durations[at] = lit.dur
				}
				if lit.isPercent {
					out.Percents[at] = true
				}
			}
			i = lit.end
		default:
			i++
		}
	}
	for _, r := range rs[copied:] {
		b.WriteRune(r)
	}
	out.Text = b.String()
	return out, nil
}

// literal is one number scanned from a rule, with its replacement text; an
// empty text means the number stays as written.
type literal struct {
	end        int
	text       string
	isDuration bool
	dur        time.Duration
	isPercent  bool
}

// scanLiteral reads the number at rs[start] with its unit or percent sign.
// It follows expr's own number syntax so that `1..5`, `0x1F` and `1e3` keep
// their meaning.
func scanLiteral(rs []rune, start int) (literal, *literalError) {
	i := start
	if rs[i] == '0' && i+1 < len(rs) && strings.ContainsRune("xXoObB", rs[i+1]) {
		// Prefixed integers take no unit; expr judges whatever follows.
		i += 2
		for i < len(rs) && isIdentRune(rs[i]) {
			i++
		}
		return literal{end: i}, nil
	}
	i = skipDigits(rs, i)
	if i < len(rs) && rs[i] == '.' && !(i+1 < len(rs) && rs[i+1] == '.') {
		i = skipDigits(rs, i+1)
	}
	if i < len(rs) && (rs[i] == 'e' || rs[i] == 'E') {
		j := i + 1
		if j < len(rs) && (rs[j] == '+' || rs[j] == '-') {
			j++
		}
		if j < len(rs) && isDigit(rs[j]) {
			i = skipDigits(rs, j)
		}
	}
	num := strings.ReplaceAll(string(rs[start:i]), "_", "")

	// The unit runs on while letters, digits or a decimal point follow,
	// which takes in compound durations such as 1h30m or 1m0.5s.
	unitEnd := i
	for unitEnd < len(rs) && (isIdentRune(rs[unitEnd]) ||
		rs[unitEnd] == '.' && unitEnd+1 < len(rs) && isDigit(rs[unitEnd+1])) {
		unitEnd++
	}
	unit := string(rs[i:unitEnd])
	word := string(rs[start:unitEnd])

	switch _, isSize := units.UnitBytes(unit); {
	case unit == "":
		if i < len(rs) && rs[i] == '%' && percentFollows(rs, i+1) {
			f, err := units.Percent(num)
			if err != nil {
				return literal{}, &literalError{Off: start, Msg: fmt.Sprintf("invalid percentage %s%%", word)}
			}
			text := floatText(f)
			if i+1 < len(rs) && isIdentRune(rs[i+1]) {
				text += " " // `5%and x` must not become the number `0.05and`
			}
			return literal{end: i + 1, text: text, isPercent: true}, nil
		}
		return literal{end: i}, nil
	case isSize:
		n, err := units.Size(num, unit)
		if err != nil {
			return literal{}, &literalError{Off: start, Msg: fmt.Sprintf("invalid size %s: %v", word, err)}
		}
		return literal{end: unitEnd, text: strconv.FormatInt(n, 10)}, nil
	}
	d, err := units.ParseDuration(num + unit)
	if err == nil {
		return literal{end: unitEnd, text: strconv.FormatInt(int64(d), 10), isDuration: true, dur: d}, nil
	}
	if first := leadingLetters(unit); units.IsDurationUnit(first) {
		return literal{}, &literalError{Off: start, Msg: fmt.Sprintf("invalid duration %s", word)}
	}
	return literal{}, &literalError{
		Off: start,
		Msg: fmt.Sprintf("unknown unit %q in %s (%s)", leadingLetters(unit), word, units.Hint),
	}
}

// percentFollows reports whether the text from rs[i] on, after any spaces,
// cannot start an operand, which makes the `%` before it a percent sign.
func percentFollows(rs []rune, i int) bool {
	for i < len(rs) && unicode.IsSpace(rs[i]) {
		i++
	}
	if i == len(rs) {
		return true
	}
	switch r := rs[i]; {
	case strings.ContainsRune(")]},;<>=&|+-*/%^?:", r):
		return true
	case r == '!':
		return i+1 < len(rs) && rs[i+1] == '='
	case isIdentRune(r):
		j := i
		for j < len(rs) && isIdentRune(rs[j]) {
			j++
		}
		switch string(rs[i:j]) {
		case "and", "or", "in", "not", "matches", "contains", "startsWith", "endsWith", "else":
			return true
		}
	}
	return false
}

// startsOperand reports whether a `.` at rs[i] can begin a number such as
// `.5s` rather than be a member access or part of `..`.
func startsOperand(rs []rune, i int) bool {
	if i == 0 {
		return true
	}
	p := rs[i-1]
	return !isIdentRune(p) && !strings.ContainsRune(").]?", p)
}

// floatText renders f so that expr reads it back as a float, never an int.
func floatText(f float64) string {
	s := strconv.FormatFloat(f, 'f', -1, 64)
	if !strings.ContainsRune(s, '.') {
		s += ".0"
	}
	return s
}

func leadingLetters(s string) string {
	for i, r := range s {
		if !unicode.IsLetter(r) {
			return s[:i]
		}
	}
	return s
}

func skipDigits(rs []rune, i int) int {
	for i < len(rs) && (isDigit(rs[i]) || rs[i] == '_') {
		i++
	}
	return i
}

// skipQuoted returns the offset just past the quoted string starting at
// rs[i], honouring backslash escapes. An unterminated string runs to the
// end of its line, where expr will report it.
func skipQuoted(rs []rune, i int) int {
	q := rs[i]
	for i++; i < len(rs); i++ {
		switch rs[i] {
		case '\\':
			i++
		case q:
			return i + 1
		case '\n':
			return i
		}
	}
	return len(rs)
}

// skipRaw skips a backquoted string; a doubled backquote inside it is an
// escaped one, which scanning it as close-then-open handles for free.
func skipRaw(rs []rune, i int) int {
	for i++; i < len(rs); i++ {
		if rs[i] == '`' {
			return i + 1
		}
	}
	return len(rs)
}

func skipBlockComment(rs []rune, i int) int {
	for i += 2; i+1 < len(rs); i++ {
		if rs[i] == '*' && rs[i+1] == '/' {
			return i + 2
		}
	}
	return len(rs)
}

func isDigit(r rune) bool { return '0' <= r && r <= '9' }

// isIdentRune matches expr's idea of a name character.
func isIdentRune(r rune) bool {
	return r == '_' || r == '$' || unicode.IsLetter(r) || unicode.IsDigit(r)
}
