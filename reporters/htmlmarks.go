package reporters

import (
	"html/template"
	"strings"
	"unicode/utf8"
)

// The reports share their words and their marks (✅ ❌ ⚠️ …): the console
// and summary.md print the glyphs, which a terminal and GitHub draw. A
// browser draws them from an emoji font, and a machine without one (a
// stock Debian, a CI container) shows empty boxes instead. report.html
// therefore draws each known mark itself, as an inline SVG icon with the
// mark's meaning as its accessible name, in the page's pass/fail/warn
// colours; the text around it is unchanged, so the wording of a headline
// or a verdict may change without touching the page.

// htmlMark is how report.html draws one mark glyph.
type htmlMark struct {
	id    string // the <symbol> in markSymbols
	class string // the colour: pass, fail, warn, skip, info
	label string // the accessible name, and the tooltip
}

// markOf is the icon of a mark glyph; ok is false for any other rune. A
// variation selector after the glyph (⚠️ is U+26A0 U+FE0F) is the same
// mark.
func markOf(r rune) (m htmlMark, ok bool) {
	switch r {
	case '✅':
		return htmlMark{"mk-pass", "pass", "passed"}, true
	case '✓':
		return htmlMark{"mk-met", "pass", "met"}, true
	case '❌':
		return htmlMark{"mk-fail", "fail", "failed"}, true
	case '✗':
		return htmlMark{"mk-missed", "fail", "missed"}, true
	case '⚠':
		return htmlMark{"mk-warn", "warn", "warning"}, true
	case '⛔':
		return htmlMark{"mk-stop", "fail", "stopped"}, true
	case '⏹':
		return htmlMark{"mk-halt", "warn", "interrupted"}, true
	case '❔':
		return htmlMark{"mk-unsure", "warn", "inconclusive"}, true
	case '⏭':
		return htmlMark{"mk-skip", "skip", "skipped"}, true
	case 'ℹ':
		return htmlMark{"mk-info", "info", "note"}, true
	case '📈':
		return htmlMark{"mk-trend", "info", "trend"}, true
	case '🎯':
		return htmlMark{"mk-target", "pass", "found"}, true
	}
	return htmlMark{}, false
}

// Joiners that belong to the glyph before them, not to the text.
const (
	variationEmoji = '\uFE0F'
	variationText  = '\uFE0E'
)

// markSymbols defines every icon once per page; each mark then costs a
// <use>. Shapes are filled with currentColor (the mark's class) and
// cut out in white, on a 16×16 grid: they read at text size and in
// greyscale, where a circle with a check, a cross, a triangle and a
// square stay apart by shape.
const markSymbols = `<svg class="mk-defs" aria-hidden="true" focusable="false"><defs>` +
	`<symbol id="mk-pass" viewBox="0 0 16 16"><circle cx="8" cy="8" r="7.5"/><path d="M4.4 8.3l2.4 2.4 4.8-5" fill="none" stroke="#fff" stroke-width="1.9" stroke-linecap="round" stroke-linejoin="round"/></symbol>` +
	`<symbol id="mk-met" viewBox="0 0 16 16"><path d="M2.5 8.6l3.7 3.7 7.3-8.1" fill="none" stroke="currentColor" stroke-width="2.2" stroke-linecap="round" stroke-linejoin="round"/></symbol>` +
	`<symbol id="mk-fail" viewBox="0 0 16 16"><circle cx="8" cy="8" r="7.5"/><path d="M5.2 5.2l5.6 5.6m0-5.6l-5.6 5.6" stroke="#fff" stroke-width="1.9" stroke-linecap="round"/></symbol>` +
	`<symbol id="mk-missed" viewBox="0 0 16 16"><path d="M3.5 3.5l9 9m0-9l-9 9" stroke="currentColor" stroke-width="2.2" stroke-linecap="round"/></symbol>` +
	`<symbol id="mk-warn" viewBox="0 0 16 16"><path d="M8 1.3l7.2 13H.8z" stroke="currentColor" stroke-width="1" stroke-linejoin="round"/><path d="M8 5.6v4.3" stroke="#fff" stroke-width="1.8" stroke-linecap="round"/><circle cx="8" cy="12.2" r="1.05" fill="#fff"/></symbol>` +
	`<symbol id="mk-stop" viewBox="0 0 16 16"><circle cx="8" cy="8" r="7.5"/><rect x="3.6" y="6.7" width="8.8" height="2.6" rx=".6" fill="#fff"/></symbol>` +
	`<symbol id="mk-halt" viewBox="0 0 16 16"><rect x="1.5" y="1.5" width="13" height="13" rx="2.5"/><rect x="5" y="5" width="6" height="6" rx=".8" fill="#fff"/></symbol>` +
	`<symbol id="mk-unsure" viewBox="0 0 16 16"><circle cx="8" cy="8" r="7.5"/><path d="M5.7 6.1a2.4 2.4 0 1 1 3.4 2.2c-.7.4-1.1.8-1.1 1.6v.3" fill="none" stroke="#fff" stroke-width="1.7" stroke-linecap="round"/><circle cx="8" cy="12.3" r="1" fill="#fff"/></symbol>` +
	`<symbol id="mk-skip" viewBox="0 0 16 16"><path d="M1.5 3v10l5.8-5zm5.8 0v10l5.8-5z"/><rect x="13.3" y="3" width="1.8" height="10" rx=".4"/></symbol>` +
	`<symbol id="mk-info" viewBox="0 0 16 16"><circle cx="8" cy="8" r="7.5"/><circle cx="8" cy="4.6" r="1.1" fill="#fff"/><path d="M8 7.2v5" stroke="#fff" stroke-width="1.9" stroke-linecap="round"/></symbol>` +
	`<symbol id="mk-trend" viewBox="0 0 16 16"><path d="M1.5 1.5v13h13" fill="none" stroke="currentColor" stroke-width="1.4"/><path d="M3.5 11.5l3.2-3.6 2.6 2 4.4-5.6" fill="none" stroke="currentColor" stroke-width="1.9" stroke-linecap="round" stroke-linejoin="round"/></symbol>` +
	`<symbol id="mk-target" viewBox="0 0 16 16"><circle cx="8" cy="8" r="6.8" fill="none" stroke="currentColor" stroke-width="1.4"/><circle cx="8" cy="8" r="3.9" fill="none" stroke="currentColor" stroke-width="1.4"/><circle cx="8" cy="8" r="1.5"/></symbol>` +
	`</defs></svg>`

// markIcon is the page's drawing of m: a role="img" with m's meaning as
// its name (and its tooltip), in m's colour.
func markIcon(b *strings.Builder, m htmlMark) {
	b.WriteString(`<svg class="mk `)
	b.WriteString(m.class)
	b.WriteString(`" viewBox="0 0 16 16" role="img" aria-label="`)
	b.WriteString(m.label)
	b.WriteString(`"><title>`)
	b.WriteString(m.label)
	b.WriteString(`</title><use href="#`)
	b.WriteString(m.id)
	b.WriteString(`"/></svg>`)
}

// markAt reads the mark glyph at text[i:], if one is there, and where
// the text after it begins.
func markAt(text string, i int) (m htmlMark, next int, ok bool) {
	r, size := utf8.DecodeRuneInString(text[i:])
	next = i + size
	if m, ok = markOf(r); ok {
		if v, vs := utf8.DecodeRuneInString(text[next:]); v == variationEmoji || v == variationText {
			next += vs
		}
	}
	return m, next, ok
}

// htmlMarks renders text for the page: every known mark glyph in it is
// drawn as its icon, everything else is escaped as html/template would
// have escaped the text.
func htmlMarks(text string) template.HTML {
	var b strings.Builder
	plain := 0 // start of the text not yet written
	for i := 0; i < len(text); {
		m, next, ok := markAt(text, i)
		if ok {
			b.WriteString(template.HTMLEscapeString(text[plain:i]))
			markIcon(&b, m)
			plain = next
		}
		i = next
	}
	b.WriteString(template.HTMLEscapeString(text[plain:]))
	return template.HTML(b.String())
}

// htmlUnmarked is text for where no markup may go (the page's <title>):
// a leading mark is dropped, since the words after it say the same, and a
// mark inside the text is replaced by its name.
func htmlUnmarked(text string) string {
	var b strings.Builder
	for i := 0; i < len(text); {
		m, next, ok := markAt(text, i)
		switch {
		case !ok:
			b.WriteString(text[i:next])
		case b.Len() > 0:
			b.WriteString(m.label)
		}
		i = next
	}
	return strings.TrimLeft(b.String(), " ")
}

// htmlFuncs are the page template's functions: marks draws the marks of a
// text, unmark spells them out, markSymbols defines the icons.
func htmlFuncs() template.FuncMap {
	return template.FuncMap{
		"marks":       htmlMarks,
		"unmark":      htmlUnmarked,
		"markSymbols": func() template.HTML { return template.HTML(markSymbols) },
	}
}
