package reporters

import (
	"fmt"
	"strings"
	"unicode/utf8"
)

// Every text that comes from a user, a scenario, a server or the network
// (scenario, target and case names, rules, matrix values, error messages,
// server log tails) passes through exactly one of the functions below on
// its way to a person. Each output context has one: Markdown prose and
// table cells (mdText), Markdown code spans (mdCode), Mermaid chart labels
// (mermaidText) and the terminal (ConsoleText). None of them trusts the
// others to have run first.

// ConsoleText makes s safe to print on a terminal: C0 control characters
// other than newline and tab, DEL, C1 controls, bidirectional overrides and
// bytes that are not UTF-8 are shown as Go-style escapes (`\x1b`,
// `\u009b`), so that a server's reply or a scenario name can neither move
// the cursor, recolour, retitle nor reorder what loadgate prints.
func ConsoleText(s string) string {
	if !needsEscape(s, true) {
		return s
	}
	var b strings.Builder
	b.Grow(len(s) + 8)
	writeEscaped(&b, s, true)
	return b.String()
}

// needsEscape reports whether s holds anything writeEscaped would change.
func needsEscape(s string, keepNewline bool) bool {
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 || unsafeRune(r, keepNewline) {
			return true
		}
		i += size
	}
	return false
}

// writeEscaped copies s to b with unsafe runes and invalid bytes escaped.
func writeEscaped(b *strings.Builder, s string, keepNewline bool) {
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size == 1:
			fmt.Fprintf(b, `\x%02x`, s[i])
		case unsafeRune(r, keepNewline):
			escapeRune(b, r)
		default:
			b.WriteString(s[i : i+size])
		}
		i += size
	}
}

// unsafeRune reports whether r must not reach a terminal or a report raw.
func unsafeRune(r rune, keepNewline bool) bool {
	switch {
	case r == '\n' || r == '\t':
		return !keepNewline
	case r < 0x20, r == 0x7f, r >= 0x80 && r <= 0x9f:
		return true
	case r >= 0x202a && r <= 0x202e, r >= 0x2066 && r <= 0x2069:
		return true // bidi overrides and isolates: "Trojan Source" reordering
	}
	return false
}

func escapeRune(b *strings.Builder, r rune) {
	if r < 0x80 {
		fmt.Fprintf(b, `\x%02x`, r)
		return
	}
	fmt.Fprintf(b, `\u%04x`, r)
}

// mdText makes free text literal in Markdown prose and in table cells:
// one line (a newline would end a table row or a paragraph), the HTML
// specials as entities (GitHub renders raw HTML; with no raw '<' no tag or
// attribute can open, so a double quote stays readable), Markdown's inline
// punctuation and the pipe backslash-escaped, a leading block marker
// (heading, list, quote) escaped, and control characters as `\x1b`.
func mdText(s string) string {
	s = oneLine(s)
	var b strings.Builder
	b.Grow(len(s) + 8)
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size == 1:
			fmt.Fprintf(&b, `\\x%02x`, s[i])
		case unsafeRune(r, false):
			b.WriteByte('\\')
			escapeRune(&b, r)
		case r == '&':
			b.WriteString("&amp;")
		case r == '<':
			b.WriteString("&lt;")
		case r == '>':
			b.WriteString("&gt;")
		case r == '_' && intraword(s, i):
			b.WriteByte('_') // snake_case cannot open emphasis; keep it readable
		case strings.ContainsRune("\\`*_[]~|", r):
			b.WriteByte('\\')
			b.WriteRune(r)
		case i == 0 && (r == '=' || strings.ContainsRune("#+-", r) && (len(s) == 1 || s[1] == ' ')):
			b.WriteByte('\\')
			b.WriteRune(r)
		default:
			b.WriteString(s[i : i+size])
		}
		i += size
	}
	return escapeOrderedMarker(b.String())
}

// intraword reports whether the byte at i sits between two ASCII letters
// or digits, where an underscore can neither open nor close emphasis.
func intraword(s string, i int) bool {
	return i > 0 && i+1 < len(s) && isAlnum(s[i-1]) && isAlnum(s[i+1])
}

func isAlnum(c byte) bool {
	return c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z'
}

// escapeOrderedMarker stops "1. x" or "2) x" at the start of a line from
// becoming a list; "1.2.3" is no marker and stays as it is.
func escapeOrderedMarker(s string) string {
	digits := 0
	for digits < len(s) && s[digits] >= '0' && s[digits] <= '9' {
		digits++
	}
	if digits == 0 || digits >= len(s) || (s[digits] != '.' && s[digits] != ')') ||
		(digits+1 < len(s) && s[digits+1] != ' ') {
		return s
	}
	return s[:digits] + `\` + s[digits:]
}

// mdCode renders s as inline code that is literal anywhere, table cells
// included. The fence is one backtick longer than the longest run of
// backticks inside, so none can close it early; a pipe, which GitHub's
// table parser splits on even inside code, is written between code spans
// as `\|`, which reads as a pipe in prose and in a table alike. Control
// characters appear as `\x1b`. Empty text renders as an empty-looking "—".
func mdCode(s string) string {
	s = oneLine(s)
	if s == "" {
		return "—"
	}
	parts := strings.Split(s, "|")
	out := make([]string, 0, len(parts))
	for _, p := range parts {
		out = append(out, codeSpan(p))
	}
	return strings.Join(out, `\|`)
}

// codeSpan fences one pipe-free piece; "" stays "" so that a pipe at an
// edge needs no empty span.
func codeSpan(s string) string {
	if s == "" {
		return ""
	}
	if needsEscape(s, false) {
		var b strings.Builder
		writeEscaped(&b, s, false)
		s = b.String()
	}
	longest, run := 0, 0
	for i := 0; i < len(s); i++ {
		if s[i] == '`' {
			run++
			longest = max(longest, run)
		} else {
			run = 0
		}
	}
	fence := strings.Repeat("`", longest+1)
	// CommonMark strips one space from each side when both are there,
	// which lets a span start or end with a backtick; pad only then, and
	// pad a span that already has outer spaces so they survive.
	if strings.HasPrefix(s, "`") || strings.HasSuffix(s, "`") ||
		(strings.HasPrefix(s, " ") && strings.HasSuffix(s, " ") && strings.Trim(s, " ") != "") {
		s = " " + s + " "
	}
	return fence + s + fence
}

// mermaidText makes a label safe inside a quoted Mermaid string within a
// fenced block: Mermaid has no escape for the double quote, a run of
// backticks could close the fence, and angle brackets could be read as
// HTML by a renderer with loose security.
func mermaidText(s string) string {
	s = strings.NewReplacer(`"`, "'", "`", "'", "<", "‹", ">", "›").Replace(oneLine(s))
	if !needsEscape(s, false) {
		return s
	}
	var b strings.Builder
	writeEscaped(&b, s, false)
	return b.String()
}
