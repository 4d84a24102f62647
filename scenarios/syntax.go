package scenarios

import (
	"bytes"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"unicode/utf8"

	"go.yaml.in/yaml/v3"
)

// flowVarErrors explains a YAML syntax error made by a variable written
// unquoted inside a flow mapping or sequence: in `{ path: /items/${c} }`
// the plain scalar ends at the `{` of `${c}`, which YAML reads as the start
// of a nested mapping, and the parser gives up somewhere else, often on
// another line. Turning every `${…}` into `$(…)`, which has the same length
// and no meaning to YAML, shows whether they were the cause: when the file
// then parses, each plain scalar of a flow collection that held one is
// reported at its first `${`. It returns nil when the error has another
// cause, which is then reported as the parser words it.
func (d *decoder) flowVarErrors(data []byte) []*Error {
	if !bytes.Contains(data, []byte("${")) {
		return nil
	}
	patched := bytes.Clone(data)
	var refs []int // byte offsets of the `${` patched
	for i := 0; i+1 < len(patched); i++ {
		if patched[i] != '$' || patched[i+1] != '{' {
			continue
		}
		refs = append(refs, i)
		patched[i+1] = '('
		if end := bytes.IndexAny(patched[i+2:], "}\r\n"); end >= 0 && patched[i+2+end] == '}' {
			patched[i+2+end] = ')'
		}
	}
	doc, next, err := decodeDocuments(patched)
	if err != nil || doc == nil {
		return nil
	}
	f := flowVarFinder{d: d, data: data, patched: patched, refs: refs}
	f.walk(doc, nil)
	if next != nil {
		f.walk(next, nil)
	}
	return f.errs
}

// flowVarFinder looks for the plain scalars of flow collections that
// hold one of refs.
type flowVarFinder struct {
	d             *decoder
	data, patched []byte
	refs          []int
	errs          []*Error
}

func (f *flowVarFinder) walk(n, parent *yaml.Node) {
	if n.Kind == yaml.ScalarNode && n.Style == 0 && parent != nil && parent.Style&yaml.FlowStyle != 0 {
		f.scalar(n, parent)
	}
	for _, c := range n.Content {
		f.walk(c, n)
	}
}

// scalar reports n when it holds one of the patched references. Only a
// scalar written on one line is placed: its text is then the node's value,
// verbatim, from its line and column.
func (f *flowVarFinder) scalar(n, parent *yaml.Node) {
	start, ok := f.d.src.offsetOf(n.Line, n.Column)
	end := start + len(n.Value)
	if !ok || end > len(f.patched) || !bytes.Equal(f.patched[start:end], []byte(n.Value)) {
		return
	}
	for _, at := range f.refs {
		if at < start || at >= end {
			continue
		}
		what, fix := "flow mapping { … }", "the value"
		if parent.Kind == yaml.SequenceNode {
			what = "flow sequence [ … ]"
		} else if isKey(n, parent) {
			fix = "the key"
		}
		ref := f.data[at : at+2]
		if close := bytes.IndexByte(f.patched[at:end], ')'); close >= 0 && f.data[at+close] == '}' {
			ref = f.data[at : at+close+1]
		}
		value := string(f.data[start:end])
		f.errs = append(f.errs, Errorf(f.d.src.posOf(f.d.file, at),
			"syntax error: %s unquoted in a %s, where YAML reads its { as the start of a mapping; quote %s, e.g. %s",
			ref, what, fix, singleQuoted(value)))
		return // one diagnostic per scalar: quoting it fixes every reference
	}
}

// isKey reports whether n is a key of mapping m.
func isKey(n, m *yaml.Node) bool {
	for i := 0; i < len(m.Content); i += 2 {
		if m.Content[i] == n {
			return true
		}
	}
	return false
}

// singleQuoted writes s as a YAML single-quoted scalar.
func singleQuoted(s string) string {
	return "'" + strings.ReplaceAll(s, "'", "''") + "'"
}

var yamlPrefix = regexp.MustCompile(`^yaml: (?:line \d+: )?`)

// yamlMessage strips yaml.v3's prefix from a syntax error.
func yamlMessage(err error) string {
	return yamlPrefix.ReplaceAllString(err.Error(), "")
}

var yamlLine = regexp.MustCompile(`^yaml: line (\d+): `)

// syntaxErrorPos locates a syntax error. yaml.v3 reports a line only, not
// always the right one (parser errors count lines from 0, and some errors
// carry no line at all), and never a column. The parser reads the input
// once, left to right, so the shortest prefix of the file that fails with
// the same message ends where the parser gave up: find it by bisection.
func (d *decoder) syntaxErrorPos(data []byte, err error) Pos {
	msg := yamlMessage(err)
	// Cutting the input inside a UTF-8 sequence would fail with a different
	// message and break the bisection's monotony, so cut at rune starts only.
	cut := func(k int) int {
		for k < len(data) && !utf8.RuneStart(data[k]) {
			k++
		}
		return k
	}
	k := cut(sort.Search(len(data), func(k int) bool {
		_, _, err := decodeDocuments(data[:cut(k+1)])
		return err != nil && yamlMessage(err) == msg
	}) + 1)
	if k > len(data) {
		p := Pos{File: d.file, Line: 1, Col: 1}
		if m := yamlLine.FindStringSubmatch(err.Error()); m != nil {
			p.Line, _ = strconv.Atoi(m[1])
		}
		return p
	}
	last := k - 1
	for last > 0 && !utf8.RuneStart(data[last]) {
		last--
	}
	return d.src.posOf(d.file, last)
}
