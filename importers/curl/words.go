// Package curl turns curl command lines into a loadgate scenario: the
// commands a developer already has in a README, a shell history or a
// browser's "Copy as cURL" become the requests of a load test.
//
// The command lines are split into words the way a POSIX shell (and bash,
// for $'…') would, without running anything: no expansion, no command
// substitution, no globbing. Shell variables ($TOKEN, ${TOKEN}) are kept
// as references, which header values and bodies turn into scenario
// variables; everywhere else they are an error, since a load test cannot
// ask the shell for their value.
package curl

import (
	"fmt"
	"strings"
	"unicode/utf8"
)

// Pos is a place in one input: its line and column, in characters, from 1.
type Pos struct{ Line, Col int }

// Error is a problem at a place in an input, printed as input:line:col.
type Error struct {
	Input string // the input's name: a file, "stdin", "argument 2"
	Pos   Pos
	Msg   string
}

func (e *Error) Error() string {
	if e.Input == "" {
		return fmt.Sprintf("%d:%d: %s", e.Pos.Line, e.Pos.Col, e.Msg)
	}
	return fmt.Sprintf("%s:%d:%d: %s", e.Input, e.Pos.Line, e.Pos.Col, e.Msg)
}

func errorAt(p Pos, format string, args ...any) *Error {
	return &Error{Pos: p, Msg: fmt.Sprintf(format, args...)}
}

// Word is one shell word after quote removal.
type Word struct {
	Text string
	Pos  Pos // of its first character, a quote included
	// Refs are the shell variables in Text, unexpanded: Text[Off:End] is
	// the reference as written ("$TOKEN" or "${TOKEN}").
	Refs []Ref
	// plain: Text is the word exactly as written (no quote, escape or
	// variable), so a byte offset in it is a column of the input.
	plain bool
}

// at is the position of byte offset off of w's text: exact in a plain
// word, else the word's start.
func (w Word) at(off int) Pos {
	if !w.plain || off > len(w.Text) {
		return w.Pos
	}
	return Pos{w.Pos.Line, w.Pos.Col + utf8.RuneCountInString(w.Text[:off])}
}

// Ref is a reference to a shell variable inside a Word.
type Ref struct {
	Name     string
	Off, End int // byte offsets in the word's Text
	Pos      Pos
	// secret, when set, makes this span of the text a credential that the
	// scenario takes from a secret variable instead (Name is then "").
	secret *secretSpan
}

// secretSpan is a credential the scenario leaves out of the file.
type secretSpan struct {
	hint  string // the variable's name, before making it unique
	key   string // what makes two credentials the same one
	what  string // where the credential was, for the variable's comment
	howTo string // how to give it (NAME for the variable's name)
}

// Command is the words of one simple command.
type Command []Word

// Split splits src into commands and words. Commands end at a line break,
// `;` or `&&`; a backslash before a line break joins the lines; `#` at the
// start of a word begins a comment. Pipes, redirections, background jobs,
// subshells and command substitution are errors: each of them would need a
// shell to mean anything.
func Split(src string) ([]Command, error) {
	s := &splitter{src: src, line: 1, col: 1}
	return s.run()
}

type splitter struct {
	src       string
	i         int // byte offset of the next character
	line, col int // position of the next character
	cmds      []Command
	cur       Command
}

func (s *splitter) pos() Pos { return Pos{s.line, s.col} }

// peek returns the character at byte offset i+ahead bytes, 0 at the end.
func (s *splitter) peekAt(ahead int) byte {
	if s.i+ahead < len(s.src) {
		return s.src[s.i+ahead]
	}
	return 0
}

// next consumes one character (a whole UTF-8 sequence, or one byte of an
// invalid one) and returns it as a string.
func (s *splitter) next() string {
	_, n := utf8.DecodeRuneInString(s.src[s.i:])
	ch := s.src[s.i : s.i+n]
	s.i += n
	if ch == "\n" {
		s.line++
		s.col = 1
	} else {
		s.col++
	}
	return ch
}

// skip consumes n single-byte characters.
func (s *splitter) skip(n int) {
	for range n {
		s.next()
	}
}

func (s *splitter) endCommand() {
	if len(s.cur) > 0 {
		s.cmds = append(s.cmds, s.cur)
	}
	s.cur = nil
}

func (s *splitter) run() ([]Command, error) {
	for s.i < len(s.src) {
		c := s.src[s.i]
		switch {
		case c == ' ' || c == '\t':
			s.next()
		case c == '\r' && s.peekAt(1) == '\n':
			s.next()
		case c == '\n' || c == ';':
			s.next()
			s.endCommand()
		case c == '&' && s.peekAt(1) == '&':
			s.skip(2)
			s.endCommand()
		case c == '\\' && (s.peekAt(1) == '\n' || s.peekAt(1) == '\r' && s.peekAt(2) == '\n'):
			s.next() // a continuation: the line goes on
			if s.src[s.i] == '\r' {
				s.next()
			}
			s.next()
		case c == '#':
			for s.i < len(s.src) && s.src[s.i] != '\n' {
				s.next()
			}
		default:
			if err := s.operator(); err != nil {
				return nil, err
			}
			w, err := s.word()
			if err != nil {
				return nil, err
			}
			s.cur = append(s.cur, w)
		}
	}
	s.endCommand()
	return s.cmds, nil
}

// operator refuses the shell operators that would need a shell to run.
func (s *splitter) operator() error {
	p := s.pos()
	switch c := s.src[s.i]; c {
	case '|':
		return errorAt(p, "a pipe (|): give the curl command alone")
	case '&':
		return errorAt(p, "a background job (&): give the curl command alone")
	case '<', '>':
		return errorAt(p, "a redirection (%c): give the curl command alone; its output is not needed", c)
	case '(', ')':
		return errorAt(p, "a subshell (%c): give the curl command alone", c)
	}
	return nil
}

// word reads one word, which starts at a character that is not a blank,
// a separator or an operator.
func (s *splitter) word() (Word, error) {
	w := Word{Pos: s.pos(), plain: true}
	var b strings.Builder
	for s.i < len(s.src) {
		c := s.src[s.i]
		switch {
		case c == ' ' || c == '\t' || c == '\n' || c == ';' || c == '|' || c == '&' || c == '<' || c == '>' || c == '(' || c == ')':
			w.Text = b.String()
			return w, nil
		case c == '\r' && s.peekAt(1) == '\n':
			w.Text = b.String()
			return w, nil
		case c == '\'':
			w.plain = false
			if err := s.single(&b); err != nil {
				return w, err
			}
		case c == '"':
			w.plain = false
			if err := s.double(&w, &b); err != nil {
				return w, err
			}
		case c == '\\':
			w.plain = false
			s.next()
			switch {
			case s.i == len(s.src):
				b.WriteByte('\\') // a shell would wait for more; nothing follows
			case s.src[s.i] == '\n':
				s.next()
			case s.src[s.i] == '\r' && s.peekAt(1) == '\n':
				s.skip(2)
			default:
				b.WriteString(s.next())
			}
		case c == '`':
			return w, errorAt(s.pos(), "command substitution (`…`) is not run: replace it by its value")
		case c == '$':
			w.plain = false
			if err := s.dollar(&w, &b); err != nil {
				return w, err
			}
		default:
			b.WriteString(s.next())
		}
	}
	w.Text = b.String()
	return w, nil
}

// single reads '…': every character up to the next ' as it is.
func (s *splitter) single(b *strings.Builder) error {
	start := s.pos()
	s.next()
	for s.i < len(s.src) {
		if s.src[s.i] == '\'' {
			s.next()
			return nil
		}
		b.WriteString(s.next())
	}
	return errorAt(start, "unterminated ' quote")
}

// double reads "…": \ escapes only $ ` " \ and a line break, and $NAME
// stays a reference.
func (s *splitter) double(w *Word, b *strings.Builder) error {
	start := s.pos()
	s.next()
	for s.i < len(s.src) {
		switch c := s.src[s.i]; c {
		case '"':
			s.next()
			return nil
		case '\\':
			s.next()
			switch n := s.peekAt(0); {
			case n == '$' || n == '`' || n == '"' || n == '\\':
				b.WriteString(s.next())
			case n == '\n':
				s.next()
			case n == '\r' && s.peekAt(1) == '\n':
				s.skip(2)
			default:
				b.WriteByte('\\')
			}
		case '`':
			return errorAt(s.pos(), "command substitution (`…`) is not run: replace it by its value")
		case '$':
			if s.peekAt(1) == '\'' {
				b.WriteString(s.next()) // $' is not special inside "…"
				continue
			}
			if err := s.dollar(w, b); err != nil {
				return err
			}
		default:
			b.WriteString(s.next())
		}
	}
	return errorAt(start, "unterminated \" quote")
}

// dollar reads what follows a $: a variable reference, $'…' (bash's
// ANSI-C quoting, which browsers' "Copy as cURL" writes), $"…", or a plain
// dollar sign.
func (s *splitter) dollar(w *Word, b *strings.Builder) error {
	p := s.pos()
	switch n := s.peekAt(1); {
	case n == '\'':
		s.next()
		return s.ansiC(b, p)
	case n == '"':
		s.next() // $"…" is a translated string; untranslated, it is "…"
		return s.double(w, b)
	case n == '(':
		return errorAt(p, "command substitution ($(…)) is not run: replace it by its value")
	case n == '{':
		end := strings.IndexByte(s.src[s.i:], '}')
		if end < 0 {
			return errorAt(p, "unterminated ${")
		}
		name := s.src[s.i+2 : s.i+end]
		if !isShellName(name) {
			return errorAt(p, "${%s}: only plain variables ${NAME} are kept (as scenario variables), not other shell expansions", name)
		}
		off := b.Len()
		b.WriteString(s.src[s.i : s.i+end+1])
		s.skip(end + 1)
		w.Refs = append(w.Refs, Ref{Name: name, Off: off, End: b.Len(), Pos: p})
	case isNameStart(n):
		j := s.i + 1
		for j < len(s.src) && isNameChar(s.src[j]) {
			j++
		}
		off := b.Len()
		b.WriteString(s.src[s.i:j])
		name := s.src[s.i+1 : j]
		s.skip(j - s.i)
		w.Refs = append(w.Refs, Ref{Name: name, Off: off, End: b.Len(), Pos: p})
	case n >= '0' && n <= '9' || n != 0 && strings.IndexByte("?!#*@-$", n) >= 0:
		return errorAt(p, "$%c is a shell parameter; replace it by its value", n)
	default:
		b.WriteString(s.next()) // a lone $ is itself
	}
	return nil
}

func isNameStart(c byte) bool { return c == '_' || 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' }
func isNameChar(c byte) bool  { return isNameStart(c) || '0' <= c && c <= '9' }

func isShellName(s string) bool {
	if s == "" || !isNameStart(s[0]) {
		return false
	}
	for i := 1; i < len(s); i++ {
		if !isNameChar(s[i]) {
			return false
		}
	}
	return true
}

// ansiC reads $'…' after its $: backslash escapes as bash reads them.
func (s *splitter) ansiC(b *strings.Builder, start Pos) error {
	s.next()
	for s.i < len(s.src) {
		switch c := s.src[s.i]; c {
		case '\'':
			s.next()
			return nil
		case '\\':
			if err := s.ansiEscape(b); err != nil {
				return err
			}
		default:
			b.WriteString(s.next())
		}
	}
	return errorAt(start, "unterminated $' quote")
}

var ansiSimple = map[byte]byte{
	'a': '\a', 'b': '\b', 'e': 0x1b, 'E': 0x1b, 'f': '\f', 'n': '\n', 'r': '\r', 't': '\t', 'v': '\v',
	'\\': '\\', '\'': '\'', '"': '"', '?': '?',
}

// ansiEscape reads one backslash escape of $'…'.
func (s *splitter) ansiEscape(b *strings.Builder) error {
	p := s.pos()
	s.next()
	if s.i == len(s.src) {
		return errorAt(p, "unterminated $' quote (it ends in a backslash)")
	}
	c := s.src[s.i]
	if r, ok := ansiSimple[c]; ok {
		s.next()
		b.WriteByte(r)
		return nil
	}
	switch {
	case c >= '0' && c <= '7':
		v := s.digits(3, 8)
		b.WriteByte(byte(v))
	case c == 'x':
		s.next()
		if !isHex(s.peekAt(0)) {
			b.WriteString("\\x")
			return nil
		}
		b.WriteByte(byte(s.digits(2, 16)))
	case c == 'u' || c == 'U':
		s.next()
		if !isHex(s.peekAt(0)) {
			b.WriteByte('\\')
			b.WriteByte(c)
			return nil
		}
		n := 4
		if c == 'U' {
			n = 8
		}
		r := rune(s.digits(n, 16))
		if !utf8.ValidRune(r) {
			return errorAt(p, "\\%c%X is not a Unicode character", c, r)
		}
		b.WriteRune(r)
	case c == 'c':
		s.next()
		if s.i == len(s.src) {
			return errorAt(p, "unterminated $' quote")
		}
		b.WriteByte(s.src[s.i] & 0x1f)
		s.next()
	default:
		b.WriteByte('\\') // bash keeps an unknown escape as written
	}
	return nil
}

// digits reads up to max digits of base and returns their value.
func (s *splitter) digits(max, base int) int {
	v := 0
	for n := 0; n < max && s.i < len(s.src); n++ {
		d := digitValue(s.src[s.i])
		if d < 0 || d >= base {
			break
		}
		v = v*base + d
		s.next()
	}
	return v
}

func digitValue(c byte) int {
	switch {
	case '0' <= c && c <= '9':
		return int(c - '0')
	case 'a' <= c && c <= 'f':
		return int(c-'a') + 10
	case 'A' <= c && c <= 'F':
		return int(c-'A') + 10
	}
	return -1
}

func isHex(c byte) bool { return digitValue(c) >= 0 && digitValue(c) < 16 }
