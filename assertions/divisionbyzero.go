package assertions

import (
	"fmt"
	"math"
	"reflect"
	"strings"
	"time"

	"github.com/expr-lang/expr"
	"github.com/expr-lang/expr/ast"
)

// A division by zero stops the rule with an error verdict, for `/` and `%`
// alike. On its own expr divides numbers as floats, so `rps / 0 > 1` would
// pass on +Inf and `failed / requests` would be NaN on a case with no
// requests, while `requests % 0` fails with a Go runtime panic: a gate must
// not pass on either, and must say why.
//
// divisionGuard, an expr patch, wraps the divisor of every `/` and `%` in a
// call to one of the functions below, which returns the divisor unchanged
// or an error naming the division as written in the rule. The call keeps
// the divisor's type, so type checking and the duration arithmetic of
// envOptions see the rule as before.
const (
	divisorFn    = "$divisor"     // numbers and durations: the type is kept
	divisorAnyFn = "$divisor_any" // a divisor whose type is only known at run time
)

// divisorOptions declares the guard functions.
func divisorOptions() []expr.Option {
	return []expr.Option{
		expr.Function(divisorFn, checkDivisor,
			new(func(int, string) int),
			new(func(int64, string) int64),
			new(func(float64, string) float64),
			new(func(time.Duration, string) time.Duration)),
		expr.Function(divisorAnyFn, checkDivisor, new(func(any, string) any)),
	}
}

// checkDivisor returns args[0] unless it is zero or not a number.
func checkDivisor(args ...any) (any, error) {
	zero, nan := false, false
	switch v := args[0].(type) {
	case int:
		zero = v == 0
	case int64:
		zero = v == 0
	case time.Duration:
		zero = v == 0
	case float64:
		zero, nan = v == 0, math.IsNaN(v)
	}
	switch {
	case zero:
		return nil, fmt.Errorf("division by zero in `%s`", args[1])
	case nan:
		return nil, fmt.Errorf("division by NaN (not a number) in `%s`", args[1])
	}
	return args[0], nil
}

// divisionGuard is the patch that wraps divisors; it runs once, after the
// inspector has turned duration literals into constants.
type divisionGuard struct {
	src  rewritten
	rule string // as written, for the messages
}

// Visit wraps the divisor of a `/` or `%` node.
func (g divisionGuard) Visit(n *ast.Node) {
	b, ok := (*n).(*ast.BinaryNode)
	if !ok || (b.Operator != "/" && b.Operator != "%") {
		return
	}
	fn := divisorAnyFn
	if t := b.Right.Type(); t != nil && (t == reflect.TypeFor[time.Duration]() ||
		t.Kind() == reflect.Int || t.Kind() == reflect.Int64 || t.Kind() == reflect.Float64) {
		fn = divisorFn
	}
	b.Right = &ast.CallNode{
		Callee:    &ast.IdentifierNode{Value: fn},
		Arguments: []ast.Node{b.Right, &ast.StringNode{Value: g.text(b)}},
	}
}

// text is the division as written in the rule. expr locates a binary node
// at its operator, so the span is that of every node below it, widened to
// the parentheses it leaves unbalanced (a grouped operand, a call's
// closing parenthesis).
func (g divisionGuard) text(b *ast.BinaryNode) string {
	from, to := math.MaxInt, 0
	var root ast.Node = b
	ast.Walk(&root, spanner{&from, &to})
	rule := []rune(g.rule)
	lo, hi := g.src.Orig(from), g.src.Orig(to)
	if lo < 0 || hi > len(rule) || lo >= hi {
		return b.String()
	}
	open, closed := 0, 0 // unbalanced parentheses of the span
	for _, r := range rule[lo:hi] {
		switch {
		case r == '(':
			open++
		case r == ')' && open > 0:
			open--
		case r == ')':
			closed++
		}
	}
	for ; open > 0 && hi < len(rule); hi++ {
		if rule[hi] == ')' {
			open--
		}
	}
	for ; closed > 0 && lo > 0; lo-- {
		if rule[lo-1] == '(' {
			closed--
		}
	}
	return strings.TrimSpace(string(rule[lo:hi]))
}

// spanner records the rune span of the nodes it visits.
type spanner struct{ from, to *int }

func (s spanner) Visit(n *ast.Node) {
	loc := (*n).Location()
	if loc.From == 0 && loc.To == 0 {
		return // a node the parser did not place
	}
	*s.from = min(*s.from, loc.From)
	*s.to = max(*s.to, loc.To)
}
