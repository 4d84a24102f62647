package assertions

import (
	"regexp"
	"strings"

	"github.com/expr-lang/expr/ast"
	"github.com/expr-lang/expr/file"
	"github.com/expr-lang/expr/parser/lexer"

	"github.com/loadgate/loadgate/units"
)

// mismatch is expr's message for an operator between two types it cannot
// combine, such as `p99 < 50`: "invalid operation: < (mismatched types
// time.Duration and int)".
var mismatch = regexp.MustCompile(`^invalid operation: (\S+) \(mismatched types (\S+) and (\S+)\)$`)

// numberTypes are the types expr gives a bare number or a count.
var numberTypes = map[string]bool{"int": true, "int64": true, "float64": true}

// durationHint rewords expr's type mismatch between a duration and a
// number, which a rule such as `p99 < 50` makes: the number needs a unit.
// It returns the message and the rune offset, in the rule as written, of
// the operation's first character; ok is false for any other error.
// root is the rule's parse tree (of rw.Text), fe the error of compiling it.
func durationHint(rule string, rw rewritten, root ast.Node, fe *file.Error) (off int, msg string, ok bool) {
	m := mismatch.FindStringSubmatch(fe.Message)
	if m == nil {
		return 0, "", false
	}
	var op *ast.BinaryNode
	ast.Find(root, func(n ast.Node) bool {
		if b, isBin := n.(*ast.BinaryNode); isBin && b.Operator == m[1] && b.Location().From == fe.From {
			op = b
			return true
		}
		return false
	})
	if op == nil {
		return 0, "", false
	}
	dur, num := op.Left, op.Right
	switch {
	case m[2] == "time.Duration" && numberTypes[m[3]]:
	case numberTypes[m[2]] && m[3] == "time.Duration":
		dur, num = op.Right, op.Left
	default:
		return 0, "", false
	}
	// The hint is for a figure compared with a number the user typed: a
	// count compared with a duration (`trials >= 1s`) is another mistake.
	if !readsName(dur) || readsName(num) {
		return 0, "", false
	}
	src := sourceOf{rule: []rune(rule), rw: rw, toks: tokens(rw.Text)}
	from, whole := src.text(op)
	_, durText := src.text(dur)
	_, numText := src.text(num)
	if plain, _ := numberLiteral(num, rw); plain {
		if _, err := units.ParseDuration(strings.ReplaceAll(numText, "_", "") + "ms"); err == nil {
			return from, whole + ": " + durText + " is a duration; write the number with its unit, e.g. " + numText + "ms", true
		}
	}
	return from, whole + ": " + durText + " is a duration and " + numText +
		" a number; write durations with their unit, e.g. 50ms", true
}

// readsName reports whether n reads a name: a figure, a variable, a call.
func readsName(n ast.Node) bool {
	return ast.Find(n, func(c ast.Node) bool {
		_, ok := c.(*ast.IdentifierNode)
		return ok
	}) != nil
}

// numberLiteral reports whether n is a number literal, possibly signed;
// plain is false for one rewritten from a percentage or a size, which
// had a unit of their own.
func numberLiteral(n ast.Node, rw rewritten) (plain, ok bool) {
	if u, isUnary := n.(*ast.UnaryNode); isUnary && (u.Operator == "-" || u.Operator == "+") {
		n = u.Node
	}
	switch n.(type) {
	case *ast.IntegerNode, *ast.FloatNode:
		from := n.Location().From
		for _, e := range rw.edits {
			if e.newOff == from {
				return false, true
			}
		}
		return true, true
	}
	return false, false
}

// origEnd maps an exclusive end offset of Text back onto the rule as
// written: the end of a rewritten literal is the end of what the user
// typed, `50ms` rather than the middle of it.
func (r rewritten) origEnd(to int) int {
	if to <= 0 {
		return 0
	}
	for _, e := range r.edits {
		if to-1 >= e.newOff && to-1 < e.newOff+e.newLen {
			return e.origOff + e.origLen
		}
	}
	return r.Orig(to-1) + 1
}

// sourceOf finds the text of a parsed node in the rule as written.
type sourceOf struct {
	rule []rune
	rw   rewritten
	toks []lexer.Token
}

func tokens(text string) []lexer.Token {
	toks, _ := lexer.Lex(file.NewSource(text))
	return toks
}

// text returns where node n starts in the rule as written and its text
// there: from the first to the last token of its subtree, with the
// brackets that close inside it (the `)` of p(99)) or open it.
func (s sourceOf) text(n ast.Node) (int, string) {
	from, to := span(n)
	i, j := -1, -1
	for k, t := range s.toks {
		if t.Kind == lexer.EOF {
			continue
		}
		if i < 0 && t.From >= from {
			i = k
		}
		if t.To <= to {
			j = k
		}
	}
	if i >= 0 && j >= i {
		unopened, unclosed := 0, 0
		for _, t := range s.toks[i : j+1] {
			switch {
			case t.Is(lexer.Bracket, "(", "[", "{"):
				unclosed++
			case t.Is(lexer.Bracket, ")", "]", "}") && unclosed > 0:
				unclosed--
			case t.Is(lexer.Bracket, ")", "]", "}"):
				unopened++
			}
		}
		for ; unclosed > 0 && j+1 < len(s.toks) && s.toks[j+1].Is(lexer.Bracket, ")", "]", "}"); unclosed-- {
			j++
		}
		for ; unopened > 0 && i > 0 && s.toks[i-1].Is(lexer.Bracket, "(", "[", "{"); unopened-- {
			i--
		}
		from, to = s.toks[i].From, s.toks[j].To
	}
	a, b := s.rw.Orig(from), s.rw.origEnd(to)
	a, b = max(0, min(a, len(s.rule))), max(0, min(b, len(s.rule)))
	if b < a {
		b = a
	}
	return a, string(s.rule[a:b])
}

// span is the range of rune offsets the tokens of n's subtree cover.
func span(n ast.Node) (from, to int) {
	from, to = n.Location().From, n.Location().To
	ast.Find(n, func(c ast.Node) bool {
		from, to = min(from, c.Location().From), max(to, c.Location().To)
		return false
	})
	return from, to
}
