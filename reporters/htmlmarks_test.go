package reporters

import (
	"fmt"
	"io"
	"regexp"
	"strings"
	"testing"

	"golang.org/x/net/html"

	"github.com/loadgate/loadgate/results"
)

func TestHTMLMarks(t *testing.T) {
	icon := func(class, id, label string) string {
		return fmt.Sprintf(`<svg class="mk %s" viewBox="0 0 16 16" role="img" aria-label="%s"><title>%s</title><use href="#%s"/></svg>`, class, label, label, id)
	}
	pass, fail, warn := icon("pass", "mk-pass", "passed"), icon("fail", "mk-fail", "failed"), icon("warn", "mk-warn", "warning")
	for _, tc := range []struct {
		name, in, want string
	}{
		{"no mark: escaped as html/template does", `a <b> & "c"`, `a &lt;b&gt; &amp; &#34;c&#34;`},
		{"a leading mark and the words after it", "✅ loadgate: passed", pass + " loadgate: passed"},
		{"the emoji variation selector belongs to the mark", "⚠️ warned", warn + " warned"},
		{"so does the text variation selector", "⚠\uFE0E warned", warn + " warned"},
		{"the bare glyph", "⚠", warn},
		{"a mark inside the text", "1 ❌ of 2", "1 " + fail + " of 2"},
		{"marks side by side", "✅❌", pass + fail},
		{"the text around a mark is escaped", "❌ <img src=x>", fail + " &lt;img src=x&gt;"},
		{"a selector not after a mark is text", "a\uFE0F", "a\uFE0F"},
		{"invalid UTF-8 is left for the page's escaping", "\xff❌", "\xff" + fail},
		{"the probe marks", "✓", icon("pass", "mk-met", "met")},
		{"empty", "", ""},
	} {
		if got := string(htmlMarks(tc.in)); got != tc.want {
			t.Errorf("%s: htmlMarks(%q)\n got %s\nwant %s", tc.name, tc.in, got, tc.want)
		}
	}
}

func TestHTMLUnmarked(t *testing.T) {
	for _, tc := range []struct {
		name, in, want string
	}{
		{"a leading mark goes: the words say it", "✅ loadgate: passed", "loadgate: passed"},
		{"with its selector", "⚠️ loadgate: warned", "loadgate: warned"},
		{"a mark inside is named", "probe ✓ at 500", "probe met at 500"},
		{"no mark", "loadgate report", "loadgate report"},
		{"invalid UTF-8 is left as it is", "\xff ⛔", "\xff stopped"},
	} {
		if got := htmlUnmarked(tc.in); got != tc.want {
			t.Errorf("%s: htmlUnmarked(%q) = %q, want %q", tc.name, tc.in, got, tc.want)
		}
	}
}

// reportGlyphs are every mark the reports print (grep the reporters for
// them): report.html must draw each one.
var reportGlyphs = []rune{'✅', '❌', '⚠', '⛔', '⏹', '❔', '⏭', '✓', '✗', 'ℹ', '📈', '🎯'}

func TestEveryMarkHasAnIcon(t *testing.T) {
	for _, r := range reportGlyphs {
		m, ok := markOf(r)
		if !ok {
			t.Errorf("%q (U+%04X) has no icon", r, r)
			continue
		}
		if !strings.Contains(markSymbols, `<symbol id="`+m.id+`"`) {
			t.Errorf("%q: icon %s is not defined in markSymbols", r, m.id)
		}
		if m.label == "" || m.class == "" {
			t.Errorf("%q: icon %s lacks a label or a colour", r, m.id)
		}
	}
}

// emojiRune reports whether a browser needs an emoji font (or a symbol
// font a stock Linux lacks) to draw r: the blocks of the marks, the
// pictographs and the variation selectors that ask for emoji.
func emojiRune(r rune) bool {
	switch {
	case r >= 0x2300 && r <= 0x23FF, // ⏹ ⏭ ⌛
		r >= 0x2600 && r <= 0x27BF,   // ⚠ ⛔ ✅ ❌ ❔ ✓ ✗
		r >= 0x2B00 && r <= 0x2BFF,   // ⬛ ⭐
		r >= 0x1F000 && r <= 0x1FAFF, // 📈 🎯
		r == 0x2139,                  // ℹ
		r == 0xFE0E || r == 0xFE0F, r == 0x200D:
		return true
	}
	return false
}

// visibleEmoji lists the emoji in the text a reader sees of page, with
// what precedes them: the text outside tags, comments, <style> and
// <script>, and outside attributes.
func visibleEmoji(t *testing.T, page string) []string {
	t.Helper()
	z := html.NewTokenizer(strings.NewReader(page))
	var found []string
	raw := "" // inside <style> or <script>
	for {
		switch z.Next() {
		case html.ErrorToken:
			if z.Err() != io.EOF {
				t.Fatalf("tokenize report.html: %v", z.Err())
			}
			return found
		case html.StartTagToken:
			if name, _ := z.TagName(); string(name) == "style" || string(name) == "script" {
				raw = string(name)
			}
		case html.EndTagToken:
			if name, _ := z.TagName(); string(name) == raw {
				raw = ""
			}
		case html.TextToken:
			if raw != "" {
				continue
			}
			text := string(z.Text())
			for i, r := range text {
				if emojiRune(r) {
					found = append(found, fmt.Sprintf("U+%04X after %q", r, text[max(0, i-40):i]))
				}
			}
		}
	}
}

var (
	markTag   = regexp.MustCompile(`<svg class="mk [^>]*>`)
	namedMark = regexp.MustCompile(`role="img" aria-label="[a-z]+[a-z ]*"`)
)

// TestHTMLReportsDrawTheirMarks renders every fixture's report.html and
// fails on any emoji left in its visible text: without an emoji font
// (a stock Debian's Chromium) each would show as an empty box.
func TestHTMLReportsDrawTheirMarks(t *testing.T) {
	interrupted := fixtureRun()
	interrupted.Interrupted, interrupted.Passed = true, false
	passed := abRun()
	passed.Passed = true
	hostile, _, _ := hostileRun()
	for _, tc := range []struct {
		name string
		run  *results.Run
	}{
		{"fixture", fixtureRun()},
		{"interrupted", interrupted},
		{"ab", abRun()},
		{"ab passed", passed},
		{"capacity", capacityRun()},
		{"hostile", hostile},
	} {
		page := renderHTML(t, tc.run)
		for _, f := range visibleEmoji(t, page) {
			t.Errorf("%s: report.html shows %s", tc.name, f)
		}
		if n := strings.Count(page, `<svg class="mk `); n == 0 {
			t.Errorf("%s: report.html draws no mark", tc.name)
		}
		for _, tag := range markTag.FindAllString(page, -1) {
			if !namedMark.MatchString(tag) {
				t.Errorf("%s: mark %s has no accessible name", tc.name, tag)
			}
		}
		if strings.Count(page, `class="mk-defs"`) != 1 {
			t.Errorf("%s: the icons are not defined exactly once", tc.name)
		}
	}
}
