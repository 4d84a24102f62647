package httpcheck

import (
	"bytes"
	"fmt"
	"io"
	"regexp"
	"unicode/utf8"
)

// bodyCheckWindow bounds the part of a body kept for expect.body_regex. A
// body that fits is matched as a whole, the fastest way; a longer one
// streams through the regular expression as it arrives. Either way the
// result is the one of matching the whole body.
const bodyCheckWindow = 32 << 10

// BodySource hands out a response body piece by piece: each piece is valid
// until the next call, and the body ends with io.EOF.
type BodySource interface {
	Next() ([]byte, error)
}

// BodyReader consumes a body piece by piece from src, until io.EOF, which
// it does not return: a BodyCheck, a flow step's reader, or a test's.
type BodyReader interface {
	Run(src BodySource) error
}

// BodyCheck applies expect.body_contains and expect.body_regex to a body
// as it arrives, so that a worker keeps at most bodyCheckWindow bytes of it
// plus twice the length of body_contains, whatever the body's size. It is
// made once per worker and reused for every response.
type BodyCheck struct {
	want substring      // body_contains
	re   *regexp.Regexp // body_regex, unless it is a literal; nil for no check
	lit  substring      // body_regex when it is a literal: a search is faster

	// Set by Run: whether each check passed.
	contains, matches bool

	src    BodySource
	window []byte // the body so far while it fits in bodyCheckWindow
	runes  bodyRunes

	// Errors made once, for Outcome.Err.
	errContains, errMatch error
}

// newBodyCheck returns the checks of want and re, or nil when there is
// none.
func newBodyCheck(want string, re *regexp.Regexp) *BodyCheck {
	if want == "" && re == nil {
		return nil
	}
	c := &BodyCheck{re: re, want: newSubstring(want)}
	if want != "" {
		c.errContains = fmt.Errorf("body does not contain %q", want)
	}
	if re != nil {
		c.errMatch = fmt.Errorf("body does not match %q", re.String())
		if lit, complete := re.LiteralPrefix(); complete && lit != "" {
			c.re, c.lit = nil, newSubstring(lit)
		}
	}
	c.runes.check = c
	return c
}

// Err is why the last body failed the checks, or nil.
func (c *BodyCheck) Err() error {
	switch {
	case !c.contains:
		return c.errContains
	case !c.matches:
		return c.errMatch
	}
	return nil
}

// Run reads the whole body from src and checks it. An error of src ends it
// and is returned; the checks' results are then meaningless.
func (c *BodyCheck) Run(src BodySource) error {
	c.src = src
	defer func() { c.src = nil }()
	c.want.reset()
	c.lit.reset()
	c.contains, c.matches = c.want.found, c.re == nil
	c.window = c.window[:0]
	streamed := false // the regular expression has seen the body
	for {
		b, err := c.pull()
		if err == io.EOF {
			break
		}
		if err != nil {
			return err
		}
		if c.matches || streamed {
			continue
		}
		if len(c.window)+len(b) <= bodyCheckWindow {
			c.window = appendBounded(c.window, b, bodyCheckWindow)
			continue
		}
		// Too long to keep: what is kept, then b, then the rest of the body
		// go through the regular expression as a stream of runes.
		streamed = true
		c.runes.start(c.window, b)
		c.matches = c.re.MatchReader(&c.runes)
		if c.runes.err != nil {
			return c.runes.err
		}
		if c.runes.eof {
			break
		}
	}
	if !c.matches && !streamed {
		c.matches = c.re.Match(c.window)
	}
	c.contains = c.want.found
	c.matches = c.matches && c.lit.found
	return nil
}

// pull reads the next piece of the body and searches it for want.
func (c *BodyCheck) pull() ([]byte, error) {
	b, err := c.src.Next()
	if err == nil {
		c.want.search(b)
		c.lit.search(b)
	}
	return b, err
}

// substring searches a body that arrives in pieces for a string, keeping
// len(want)-1 bytes of overlap.
type substring struct {
	want  []byte // nil: no search
	found bool
	tail  []byte // the last len(want)-1 bytes seen, for a match across pieces
	seam  []byte // scratch of 2·(len(want)-1) bytes: tail + the next piece's head
}

func newSubstring(want string) substring {
	if want == "" {
		return substring{}
	}
	return substring{
		want: []byte(want),
		tail: make([]byte, 0, len(want)-1),
		seam: make([]byte, 0, 2*(len(want)-1)),
	}
}

// reset readies the search for a new body; with nothing to search for, it
// is found.
func (c *substring) reset() {
	c.found = c.want == nil
	c.tail = c.tail[:0]
}

// search looks for want in b and across the seam between the previous
// pieces and b, then keeps the last len(want)-1 bytes seen.
func (c *substring) search(b []byte) {
	if c.found {
		return
	}
	if len(c.tail) > 0 {
		head := b[:min(len(b), len(c.want)-1)]
		c.seam = append(append(c.seam[:0], c.tail...), head...)
		if bytes.Contains(c.seam, c.want) {
			c.found = true
			return
		}
	}
	if bytes.Contains(b, c.want) {
		c.found = true
		return
	}
	keep := len(c.want) - 1
	if len(b) >= keep {
		c.tail = append(c.tail[:0], b[len(b)-keep:]...)
		return
	}
	// b is shorter than the overlap: the tail is the end of tail + b.
	drop := max(0, len(c.tail)+len(b)-keep)
	c.tail = append(c.tail[:copy(c.tail, c.tail[drop:])], b...)
}

// appendBounded appends b to dst, growing it by doubling but never beyond
// limit bytes of capacity.
func appendBounded(dst, b []byte, limit int) []byte {
	if need := len(dst) + len(b); need > cap(dst) {
		size := min(max(2*cap(dst), need, 512), limit)
		grown := make([]byte, len(dst), size)
		copy(grown, dst)
		dst = grown
	}
	return append(dst, b...)
}

// bodyRunes feeds the regular expression the rest of a body that outgrew
// the window: first what was kept, then the pieces still to come, decoding
// runes that straddle two pieces as regexp does on a whole body.
type bodyRunes struct {
	check  *BodyCheck
	cur    []byte // unread bytes of the window, then of the current piece
	queued []byte // the piece that did not fit in the window, read after it
	carry  [utf8.UTFMax]byte
	pend   []byte // bytes of an incomplete rune, in carry
	eof    bool   // the body ended
	err    error  // the body failed
}

func (r *bodyRunes) start(window, piece []byte) {
	r.cur, r.queued, r.pend, r.eof, r.err = window, piece, nil, false, nil
}

// more makes cur the next non-empty piece; false at the end of the body.
func (r *bodyRunes) more() bool {
	for len(r.cur) == 0 {
		if r.queued != nil {
			r.cur, r.queued = r.queued, nil
			continue
		}
		if r.eof || r.err != nil {
			return false
		}
		b, err := r.check.pull()
		switch {
		case err == io.EOF:
			r.eof = true
			return false
		case err != nil:
			r.err = err
			return false
		}
		r.cur = b
	}
	return true
}

// ReadRune implements io.RuneReader; an invalid byte is utf8.RuneError of
// width 1, as regexp reads a []byte.
func (r *bodyRunes) ReadRune() (rune, int, error) {
	if len(r.pend) == 0 {
		if !r.more() {
			return 0, 0, io.EOF
		}
		if c := r.cur[0]; c < utf8.RuneSelf {
			r.cur = r.cur[1:]
			return rune(c), 1, nil
		}
		if utf8.FullRune(r.cur) {
			ru, n := utf8.DecodeRune(r.cur)
			r.cur = r.cur[n:]
			return ru, n, nil
		}
		r.pend = r.carry[:copy(r.carry[:], r.cur)]
		r.cur = nil
	}
	// An incomplete rune: take bytes one at a time until it is complete or
	// the body ends; whatever the decoding leaves over comes next.
	for !utf8.FullRune(r.pend) && r.more() {
		n := copy(r.carry[:], r.pend)
		r.carry[n] = r.cur[0]
		r.cur = r.cur[1:]
		r.pend = r.carry[:n+1]
	}
	ru, n := utf8.DecodeRune(r.pend)
	r.pend = r.pend[n:]
	return ru, n, nil
}
