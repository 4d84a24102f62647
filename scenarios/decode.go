package scenarios

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"go.yaml.in/yaml/v3"
)

// maxNodes bounds the walk over a document. yaml.v3 does not expand
// aliases when decoding into a yaml.Node, so a file that repeats a large
// anchored subtree through aliases many times over (a "billion laughs")
// would otherwise cost the walk exponential time.
const maxNodes = 1 << 20

// maxMergeDepth bounds nested `<<:` merge keys, which may refer to the
// mapping that contains them.
const maxMergeDepth = 8

// Nouns naming what a field expects, in messages of the form
// `concurrency: expected an integer, got "abc"`.
const (
	anInteger = "an integer"
	aBool     = "true or false"
	aRate     = "a number of requests per second"
	aDuration = "a duration such as 30s or 1m30s"
	aSize     = "a size such as 512KiB or 10MiB"
	aPercent  = "a percentage such as 5%"
	aString   = "a string"
	aName     = "a name"
	aValue    = "a single value"
)

// The raw* types of decode_*.go are the first of two passes over a file:
// the shape of the document is checked once (unknown fields, lists versus
// mappings) and every scalar is kept as its node, so that the second pass
// (resolve_*.go) can substitute variables per matrix combination and still
// point at the exact position.

// decoder walks the yaml.Node tree of one file and collects diagnostics.
// Problems are recorded, never returned, so that one run reports all of them.
type decoder struct {
	file   string
	dir    string // body_file and ca_file are relative to it
	src    *source
	errs   ErrorList
	nodes  int
	files  map[string]fileResult // body_file contents, read once per path
	tooBig bool
	// secrets are the values found in credentials and secret variables;
	// diagnostics are redacted with them before they are returned.
	secrets secretSet
	// judgeOnly: see LoadOptions.JudgeOnly.
	judgeOnly bool
	data      dataSet
	// protos holds the compiled proto files of gRPC targets, by their
	// paths and import paths, so each list compiles once.
	protos map[string]*protoSet
}

func (d *decoder) pos(n *yaml.Node) Pos {
	// yaml.v3 puts the empty node of a file that ends right after "---"
	// on the line after it, which such a file does not have.
	if n.Line > len(d.src.lines) {
		return d.src.posOf(d.file, len(d.src.data))
	}
	return Pos{File: d.file, Line: max(n.Line, 1), Col: max(n.Column, 1)}
}

func (d *decoder) errorf(n *yaml.Node, format string, args ...any) {
	d.errs = append(d.errs, Errorf(d.pos(n), format, args...))
}

// exhausted reports whether the walk has used up its node budget; loops
// over user-controlled lists check it so that a hostile file ends quickly.
func (d *decoder) exhausted() bool { return d.tooBig }

// deref follows an alias to its anchored node and charges the node budget.
func (d *decoder) deref(n *yaml.Node) *yaml.Node {
	for range 4 {
		if n.Kind != yaml.AliasNode || n.Alias == nil {
			break
		}
		n = n.Alias
	}
	d.nodes++
	if d.nodes > maxNodes && !d.tooBig {
		d.tooBig = true
		d.errorf(n, "the document is too large once its aliases are expanded (more than %d nodes)", maxNodes)
	}
	return n
}

// describe renders what was found where something else was expected.
func describe(n *yaml.Node) string {
	switch n.Kind {
	case yaml.MappingNode:
		return "a mapping"
	case yaml.SequenceNode:
		return "a list"
	case yaml.ScalarNode:
		if isNull(n) {
			return "nothing"
		}
		return strconv.Quote(n.Value)
	}
	return "nothing"
}

func isNull(n *yaml.Node) bool {
	return n.Kind == yaml.ScalarNode && n.Tag == "!!null"
}

// field is one key that an object of type T accepts. set stores the value
// node into the raw object; a nil set marks a key that the specification
// names but this version does not implement yet, so that it earns a clear
// "not supported" rather than "unknown field".
type field[T any] struct {
	name string
	set  func(d *decoder, raw *T, key, val *yaml.Node)
}

// scalarField is the common field whose value is one scalar, resolved later.
func scalarField[T any](name, noun string, ptr func(*T) **yaml.Node) field[T] {
	return field[T]{name: name, set: func(d *decoder, raw *T, _, v *yaml.Node) {
		*ptr(raw) = d.scalar(v, name, noun)
	}}
}

// fieldNames lists the keys a table accepts: the supported ones, or the
// ones named but not supported yet.
func fieldNames[T any](table []field[T], supported bool) []string {
	var names []string
	for _, f := range table {
		if (f.set != nil) == supported {
			names = append(names, f.name)
		}
	}
	return names
}

// fields walks mapping n against table. label names n in type errors and
// what names the kind of object in unknown-field errors. It reports whether
// n was a mapping.
func fields[T any](d *decoder, n *yaml.Node, label, what string, table []field[T], raw *T) bool {
	n = d.deref(n)
	if n.Kind != yaml.MappingNode {
		d.errorf(n, "%s: expected a mapping, got %s", label, describe(n))
		return false
	}
	for _, kv := range d.pairs(n, 0) {
		if d.exhausted() {
			break
		}
		i := slices.IndexFunc(table, func(f field[T]) bool { return f.name == kv.key.Value })
		switch {
		case i < 0:
			d.errorf(kv.key, "unknown field %q in %s%s", kv.key.Value, what, suggest(kv.key.Value, fieldNames(table, true)))
		case table[i].set == nil:
			d.errorf(kv.key, "%q is not supported by this version of loadgate", kv.key.Value)
		case isNull(d.deref(kv.val)):
			// `key:` with nothing after it means the same as leaving it out.
		default:
			table[i].set(d, raw, kv.key, kv.val)
		}
	}
	return true
}

type pair struct{ key, val *yaml.Node }

// namedEntries reads a mapping from names to blocks, such as `data:` or
// `monitors:`, in file order: entry makes each entry's raw block from its
// key and value. A node that is not a mapping is reported as label:
// expected want.
func namedEntries[T any](d *decoder, n *yaml.Node, label, want string, entry func(kv pair) *T) []*T {
	n = d.deref(n)
	if n.Kind != yaml.MappingNode {
		d.errorf(n, "%s: expected %s, got %s", label, want, describe(n))
		return nil
	}
	var out []*T
	for _, kv := range d.pairs(n, 0) {
		if d.exhausted() {
			break
		}
		out = append(out, entry(kv))
	}
	return out
}

// pairs returns the entries of mapping n in file order, with `<<:` merge
// keys expanded (explicit keys win over merged ones, as in YAML 1.1) and
// duplicate keys reported.
func (d *decoder) pairs(n *yaml.Node, depth int) []pair {
	explicit := map[string]*yaml.Node{}
	var keys []*yaml.Node
	for i := 0; i+1 < len(n.Content); i += 2 {
		k := d.deref(n.Content[i])
		keys = append(keys, k)
		if k.Kind != yaml.ScalarNode {
			d.errorf(k, "expected a field name, got %s", describe(k))
			continue
		}
		if k.Tag == "!!merge" {
			continue
		}
		if first, dup := explicit[k.Value]; dup {
			d.errorf(k, "field %q appears twice (first at line %d)", k.Value, first.Line)
			continue
		}
		explicit[k.Value] = k
	}
	var out []pair
	seen := map[string]bool{}
	for i, k := range keys {
		v := n.Content[2*i+1]
		switch {
		case k.Kind != yaml.ScalarNode:
		case k.Tag == "!!merge":
			for _, m := range d.merge(k, v, depth) {
				if explicit[m.key.Value] == nil && !seen[m.key.Value] {
					seen[m.key.Value] = true
					out = append(out, m)
				}
			}
		case explicit[k.Value] == k:
			out = append(out, pair{k, v})
		}
	}
	return out
}

// merge returns the entries a `<<:` key brings in: one mapping, or a list
// of mappings where earlier ones win.
func (d *decoder) merge(key, v *yaml.Node, depth int) []pair {
	if depth >= maxMergeDepth {
		d.errorf(key, "merge keys (<<) are nested too deeply")
		return nil
	}
	v = d.deref(v)
	switch v.Kind {
	case yaml.MappingNode:
		return d.pairs(v, depth+1)
	case yaml.SequenceNode:
		var out []pair
		seen := map[string]bool{}
		for _, m := range v.Content {
			m = d.deref(m)
			if m.Kind != yaml.MappingNode {
				d.errorf(m, "<<: expected a mapping, got %s", describe(m))
				continue
			}
			for _, p := range d.pairs(m, depth+1) {
				if !seen[p.key.Value] {
					seen[p.key.Value] = true
					out = append(out, p)
				}
			}
		}
		return out
	}
	d.errorf(v, "<<: expected a mapping or a list of mappings, got %s", describe(v))
	return nil
}

// seq returns the entries of list n, or nil after reporting that n is not one.
func (d *decoder) seq(n *yaml.Node, label string) []*yaml.Node {
	n = d.deref(n)
	if n.Kind != yaml.SequenceNode {
		d.errorf(n, "%s: expected a list, got %s", label, describe(n))
		return nil
	}
	return n.Content
}

// scalar returns n as a scalar node, or nil after reporting that it is not one.
func (d *decoder) scalar(n *yaml.Node, label, noun string) *yaml.Node {
	n = d.deref(n)
	if n.Kind != yaml.ScalarNode {
		d.errorf(n, "%s: expected %s, got %s", label, noun, describe(n))
		return nil
	}
	return n
}

// scalarMap returns the entries of a mapping from names to scalars, such
// as `vars:` and `headers:`. A null value stands for the empty string.
func (d *decoder) scalarMap(n *yaml.Node, label string) []pair {
	n = d.deref(n)
	if n.Kind != yaml.MappingNode {
		d.errorf(n, "%s: expected a mapping, got %s", label, describe(n))
		return nil
	}
	var out []pair
	for _, kv := range d.pairs(n, 0) {
		if d.exhausted() {
			break
		}
		v := d.deref(kv.val)
		if v.Kind != yaml.ScalarNode {
			d.errorf(v, "%s.%s: expected %s, got %s", label, kv.key.Value, aValue, describe(v))
			continue
		}
		out = append(out, pair{kv.key, v})
	}
	return out
}

// suggest proposes the accepted name closest to a misspelt one.
func suggest(name string, accepted []string) string {
	best, bestDist := "", 3
	for _, a := range accepted {
		if dist := EditDistance(name, a); dist < bestDist {
			best, bestDist = a, dist
		}
	}
	if best == "" {
		return ""
	}
	return fmt.Sprintf(" (did you mean %q?)", best)
}

// EditDistance is the Levenshtein distance between a and b, in runes: how
// far a misspelt name is from a known one, for "did you mean" hints here
// and in rules. Past 64 runes it gives up and says 64, which no hint
// accepts, so that a long unknown name costs nothing.
func EditDistance(a, b string) int {
	ra, rb := []rune(a), []rune(b)
	if len(ra) > 64 || len(rb) > 64 {
		return 64
	}
	prev := make([]int, len(rb)+1)
	cur := make([]int, len(rb)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(ra); i++ {
		cur[0] = i
		for j := 1; j <= len(rb); j++ {
			cost := 1
			if ra[i-1] == rb[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(rb)]
}

// scalarList reads a list of scalars; a single scalar is a list of one.
func (d *decoder) scalarList(v *yaml.Node, label, noun string) []*yaml.Node {
	if n := d.deref(v); n.Kind == yaml.ScalarNode {
		return []*yaml.Node{n}
	}
	var out []*yaml.Node
	for _, n := range d.seq(v, label) {
		if s := d.scalar(n, label, noun); s != nil {
			out = append(out, s)
		}
	}
	return out
}

// hasUnknownKey reports whether mapping n spells out a key that table does
// not accept.
func hasUnknownKey[T any](n *yaml.Node, table []field[T]) bool {
	for i := 0; i+1 < len(n.Content); i += 2 {
		k := n.Content[i].Value
		if !slices.ContainsFunc(table, func(f field[T]) bool { return f.name == k }) {
			return true
		}
	}
	return false
}

// later returns whichever of two keys comes last in the file: of two keys
// that exclude each other, the second is the one that broke the phase.
func later(a, b *yaml.Node) *yaml.Node {
	if b.Line > a.Line || (b.Line == a.Line && b.Column > a.Column) {
		return b
	}
	return a
}

// rulePos is where a rule's first character is, so that a column inside
// the rule maps onto the file by addition. Quoted rules start one column
// after the quote; a block scalar's text starts on its first line that is
// not blank, after the block's indentation. A block whose text starts
// with a line break keeps the node's position.
func rulePos(d *decoder, n *yaml.Node) Pos {
	p := d.pos(n)
	switch {
	case n.Style&(yaml.SingleQuotedStyle|yaml.DoubleQuotedStyle) != 0:
		p.Col++
	case n.Style&(yaml.LiteralStyle|yaml.FoldedStyle) != 0 && n.Value != "" && n.Value[0] != '\n':
		for line := p.Line + 1; line <= len(d.src.lines); line++ {
			text := d.src.lineText(line)
			if rest := strings.TrimLeft(text, " "); rest != "" {
				return Pos{File: p.File, Line: line, Col: utf8.RuneCountInString(text[:len(text)-len(rest)]) + 1}
			}
		}
	}
	return p
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
