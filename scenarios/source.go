package scenarios

import (
	"bytes"
	"sort"
	"strings"
	"unicode/utf8"

	"go.yaml.in/yaml/v3"
)

// source maps byte offsets of a scenario file onto the 1-based line:col
// that yaml.v3 reports for nodes: it counts the same line breaks (CR, LF,
// CRLF, NEL, LS, PS) and counts columns in characters, not bytes.
type source struct {
	data  []byte
	lines []int // byte offset at which each line starts
}

func newSource(data []byte) *source {
	s := &source{data: data, lines: []int{0}}
	for i := 0; i < len(data); {
		n := breakLen(data[i:])
		if n == 0 {
			i++
			continue
		}
		i += n
		s.lines = append(s.lines, i)
	}
	return s
}

var (
	nextLine      = []byte("\u0085")
	lineSep       = []byte("\u2028")
	paragraphSep  = []byte("\u2029")
	unicodeBreaks = [][]byte{nextLine, lineSep, paragraphSep}
)

// breakLen returns the length of the line break that b starts with, or 0.
func breakLen(b []byte) int {
	switch {
	case len(b) == 0:
		return 0
	case b[0] == '\r' && len(b) > 1 && b[1] == '\n':
		return 2
	case b[0] == '\r' || b[0] == '\n':
		return 1
	}
	for _, br := range unicodeBreaks {
		if bytes.HasPrefix(b, br) {
			return len(br)
		}
	}
	return 0
}

// posOf returns the line:col of byte offset off.
func (s *source) posOf(file string, off int) Pos {
	off = max(0, min(off, len(s.data)))
	line := sort.Search(len(s.lines), func(i int) bool { return s.lines[i] > off })
	start := s.lines[line-1]
	return Pos{File: file, Line: line, Col: utf8.RuneCount(s.data[start:off]) + 1}
}

// lineText returns line (1-based) without its line break, or "" when the
// file has no such line.
func (s *source) lineText(line int) string {
	if line < 1 || line > len(s.lines) {
		return ""
	}
	start, end := s.lines[line-1], len(s.data)
	if line < len(s.lines) {
		end = s.lines[line]
	}
	text := s.data[start:end]
	for len(text) > 0 {
		n := trailingBreakLen(text)
		if n == 0 {
			break
		}
		text = text[:len(text)-n]
	}
	return string(text)
}

func trailingBreakLen(b []byte) int {
	if b[len(b)-1] == '\n' || b[len(b)-1] == '\r' {
		return 1
	}
	for _, br := range unicodeBreaks {
		if bytes.HasSuffix(b, br) {
			return len(br)
		}
	}
	return 0
}

// valueStart returns the column at which scalar n's value text begins in
// the file, and whether every byte of the value appears there verbatim: a
// plain or quoted scalar on one line, without escapes or folding. Only then
// can an offset inside the value be turned into a column by addition.
func (s *source) valueStart(n *yaml.Node) (col int, verbatim bool) {
	col = n.Column
	switch n.Style {
	case 0, yaml.FlowStyle:
	case yaml.SingleQuotedStyle, yaml.DoubleQuotedStyle:
		col++
	default:
		return n.Column, false
	}
	line := s.lineText(n.Line)
	i := 0
	for range col - 1 {
		if i >= len(line) {
			return col, false
		}
		_, size := utf8.DecodeRuneInString(line[i:])
		i += size
	}
	return col, strings.HasPrefix(line[i:], n.Value)
}

// offsetOf is the byte offset of 1-based line:col (col in characters, as
// yaml.v3 counts), and whether the file has that place.
func (s *source) offsetOf(line, col int) (int, bool) {
	if line < 1 || line > len(s.lines) || col < 1 {
		return 0, false
	}
	off := s.lines[line-1]
	for range col - 1 {
		if off >= len(s.data) {
			return 0, false
		}
		_, size := utf8.DecodeRune(s.data[off:])
		off += size
	}
	return off, true
}
