package httpcheck

import (
	"bytes"
	"io"
	"regexp"
	"runtime"
	"strings"
	"testing"
)

// pieces hands out a body in pieces of at most n bytes.
type pieces struct {
	data []byte
	n    int
	err  error // at the end instead of io.EOF
}

func (p *pieces) Next() ([]byte, error) {
	if len(p.data) == 0 {
		if p.err != nil {
			return nil, p.err
		}
		return nil, io.EOF
	}
	k := min(p.n, len(p.data))
	b := p.data[:k:k]
	p.data = p.data[k:]
	return b, nil
}

// checkWhole is what the checks must find: those of the whole body at once.
func checkWhole(body []byte, want string, re *regexp.Regexp) (contains, matches bool) {
	return want == "" || bytes.Contains(body, []byte(want)), re == nil || re.Match(body)
}

func TestBodyCheckMatchesAsTheWholeBody(t *testing.T) {
	long := strings.Repeat("lorem ipsum ", bodyCheckWindow/6) // twice the window
	for _, tc := range []struct {
		name, body, want, re string
	}{
		{"found", "hello world", "lo wo", `wor`},
		{"absent", "hello world", "bye", `bye`},
		{"at the very start and end", "hello world", "hello", `^hello world$`},
		{"empty body", "", "x", `^$`},
		{"needle of one byte", "abc", "c", `c$`},
		{"needle longer than the body", "ab", "abc", `abc`},
		{"repeats across seams", strings.Repeat("ab", 50) + "abc", "ababc", `(ab)+c$`},
		{"multibyte runes", "héllo wörld ✓ 𝄞 end", "ö", `ö.*✓ 𝄞 end$`},
		{"invalid UTF-8", "a\xff\xfeb\xe2\x9c", "\xfeb", `a..b..$`},
		{"word boundary", "say hello", "hello", `\bhello\b`},
		{"long body, match at its end", long + "needle", "needle", `needle$`},
		{"long body, match at its start", "needle" + long, "needle", `^needle`},
		{"long body, anchored miss", long + "needle\n", "needle", `needle$`},
		{"long body, multiline", long + "\nneedle\n" + long, "needle", `(?m)^needle$`},
		{"long body, rune across the window", strings.Repeat("x", bodyCheckWindow-1) + "é" + long, "é", `^x+é`},
		{"long body, no match", long, "needle", `needle`},
		{"long body, no match of a pattern", long, "needle", `ne+dle`},
		{"a literal across pieces", "say hello world", "", `lo wo`},
		{"an empty pattern", "abc", "", ``},
	} {
		re := regexp.MustCompile(tc.re)
		wantContains, wantMatches := checkWhole([]byte(tc.body), tc.want, re)
		for _, piece := range []int{1, 2, 3, 7, 4096, 1 << 20} {
			c := newBodyCheck(tc.want, re)
			if err := c.Run(&pieces{data: []byte(tc.body), n: piece}); err != nil {
				t.Fatalf("%s, pieces of %d: %v", tc.name, piece, err)
			}
			if c.contains != wantContains || c.matches != wantMatches {
				t.Errorf("%s, pieces of %d: contains %v matches %v, want %v %v",
					tc.name, piece, c.contains, c.matches, wantContains, wantMatches)
			}
			if (c.Err() == nil) != (wantContains && wantMatches) {
				t.Errorf("%s: error %v", tc.name, c.Err())
			}
		}
	}
}

// An error of the body ends the check with that error, also while the
// regular expression streams.
func TestBodyCheckStopsOnError(t *testing.T) {
	for _, size := range []int{10, 4 * bodyCheckWindow} {
		c := newBodyCheck("x", regexp.MustCompile(`never`))
		err := c.Run(&pieces{data: make([]byte, size), n: 1000, err: ErrBodyTooLarge})
		if err != ErrBodyTooLarge {
			t.Errorf("body of %d bytes: error %v, want %v", size, err, ErrBodyTooLarge)
		}
	}
}

// endless hands out the same piece again and again, up to total bytes.
type endless struct {
	piece []byte
	left  int
}

func (e *endless) Next() ([]byte, error) {
	if e.left <= 0 {
		return nil, io.EOF
	}
	k := min(len(e.piece), e.left)
	e.left -= k
	return e.piece[:k], nil
}

// Whatever the size of the body, the checks keep a bounded part of it and
// allocate next to nothing, also when the regular expression streams.
func TestBodyCheckRetainsABoundedPart(t *testing.T) {
	piece := []byte(strings.Repeat("lorem ipsum ", 1365))
	for _, tc := range []struct {
		name, want, re string
	}{
		{"body_contains", "never-there", ""},
		{"body_regex, a literal", "", `never-there`},
		{"body_regex", "", `never-the[r]e`},
		{"body_regex anchored", "", `(?s)^lorem.*there$`},
		{"both", "never-there", `never-there`},
	} {
		var re *regexp.Regexp
		if tc.re != "" {
			re = regexp.MustCompile(tc.re)
		}
		c := newBodyCheck(tc.want, re)
		const total = 8 << 20
		src := &endless{piece: piece}
		run := func() {
			src.left = total
			if err := c.Run(src); err != nil || c.Err() == nil {
				t.Fatalf("%s: err %v, check error %v", tc.name, err, c.Err())
			}
		}
		run()
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		run()
		runtime.ReadMemStats(&after)
		// Other goroutines of the process, and a collection emptying
		// regexp's pool of machines, may allocate meanwhile: the bound is
		// far below the body's size, not zero.
		if n := after.TotalAlloc - before.TotalAlloc; n > 256<<10 {
			t.Errorf("%s: checking a %d MiB body allocated %d bytes", tc.name, total>>20, n)
		}
		kept := cap(c.window) + cap(c.want.tail) + cap(c.want.seam) + cap(c.lit.tail) + cap(c.lit.seam)
		if kept > bodyCheckWindow+3*(len(tc.want)+len(tc.re)) {
			t.Errorf("%s: kept %d bytes", tc.name, kept)
		}
	}
}

// A passing check of a body that arrives whole allocates nothing.
func TestBodyCheckAllocatesNothing(t *testing.T) {
	if raceEnabled {
		// Under the race detector sync.Pool drops what it is given at
		// random, so regexp's pooled matchers are made again now and then.
		t.Skip("the race detector allocates on its own")
	}
	body := []byte(`{"id": "3f2a", "status": "ok"}`)
	c := newBodyCheck(`"status": "ok"`, regexp.MustCompile(`"id":\s*"[0-9a-f-]+"`))
	src := &pieces{}
	run := func() {
		src.data, src.n = body, 4096
		if err := c.Run(src); err != nil || c.Err() != nil {
			t.Fatalf("err %v, check error %v", err, c.Err())
		}
	}
	run()
	if n := testing.AllocsPerRun(100, run); n != 0 {
		t.Errorf("%v allocations per check, want 0", n)
	}
}

// FuzzBodyCheck: in whatever pieces the body arrives, the checks find what
// they find in the whole body, and keep no more than their bounds.
func FuzzBodyCheck(f *testing.F) {
	regexps := []*regexp.Regexp{
		regexp.MustCompile(`ab+c`),
		regexp.MustCompile(`^a`),
		regexp.MustCompile(`z$`),
		regexp.MustCompile(`(?s)é.*✓`),
		regexp.MustCompile(`\bword\b`),
		regexp.MustCompile(`[^\x00-\x7f]{2}`),
		regexp.MustCompile(`ab`), // a literal
		regexp.MustCompile(``),   // matches every body
	}
	f.Add([]byte("xxabbbcxx"), "bbc", uint8(0), uint16(2), uint16(0))
	f.Add([]byte("héllo ✓ word"), "o ✓", uint8(3), uint16(1), uint16(40000))
	f.Add([]byte("\xe2\x9c\x93\xff"), "\x9c", uint8(5), uint16(1), uint16(bodyCheckWindow))
	f.Fuzz(func(t *testing.T, data []byte, want string, which uint8, piece, pad uint16) {
		re := regexps[int(which)%len(regexps)]
		// Padding past the window makes the regular expression stream.
		body := append(bytes.Repeat([]byte{'a'}, int(pad)), data...)
		c := newBodyCheck(want, re)
		if err := c.Run(&pieces{data: body, n: int(piece) + 1}); err != nil {
			t.Fatal(err)
		}
		contains, matches := checkWhole(body, want, re)
		if c.contains != contains || c.matches != matches {
			t.Fatalf("contains %v matches %v, want %v %v", c.contains, c.matches, contains, matches)
		}
		if cap(c.window) > bodyCheckWindow || cap(c.want.tail) > len(want) {
			t.Fatalf("kept %d + %d bytes", cap(c.window), cap(c.want.tail))
		}
	})
}
