package reporters

import (
	"strings"
	"testing"
	"unicode/utf8"
)

const xss = `<img src=x onerror=alert(1)>`

func TestConsoleText(t *testing.T) {
	for _, tc := range []struct {
		name, in, want string
	}{
		{"plain text is kept", "p99 < 50ms | ok", "p99 < 50ms | ok"},
		{"newline and tab are layout, kept", "a\n\tb", "a\n\tb"},
		{"ESC cannot start a sequence", "\x1b[2Jcleared", `\x1b[2Jcleared`},
		{"BEL cannot ring", "ding\a", `ding\x07`},
		{"NUL is visible", "a\x00b", `a\x00b`},
		{"CR cannot overwrite the line", "ok\rFAIL", `ok\x0dFAIL`},
		{"DEL", "a\x7f", `a\x7f`},
		{"C1 CSI as a rune", "a\u009b31m", `a\u009b31m`},
		{"a byte that is not UTF-8", "a\xffb", `a\xffb`},
		{"bidi override", "admin\u202euser", `admin\u202euser`},
		{"HTML is harmless on a terminal", xss, xss},
		{"non-ASCII letters stay", "héllo → 世界", "héllo → 世界"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := ConsoleText(tc.in); got != tc.want {
				t.Errorf("ConsoleText(%q) = %q, want %q", tc.in, got, tc.want)
			}
		})
	}
}

func TestMdText(t *testing.T) {
	for _, tc := range []struct {
		name, in, want string
	}{
		{"plain", "checkout flow", "checkout flow"},
		{"HTML becomes entities", xss, "&lt;img src=x onerror=alert(1)&gt;"},
		{"ampersand; a quote is inert without a tag", `a & "b"`, `a &amp; "b"`},
		{"a backtick cannot open a code span", "a`b", "a\\`b"},
		{"a pipe cannot split a cell", "a|b", `a\|b`},
		{"newlines fold to one line", "a\nb\r\nc", "a b c"},
		{"emphasis and links are literal", "*x* _y_ [z](u) ~~s~~", `\*x\* \_y\_ \[z\](u) \~\~s\~\~`},
		{"snake_case stays readable", "server.rss_max _x_", `server.rss_max \_x\_`},
		{"a backslash is literal", `C:\dir`, `C:\\dir`},
		{"leading heading marker", "# not a heading", `\# not a heading`},
		{"leading list marker", "- not a list", `\- not a list`},
		{"leading ordered marker", "1. not a list", `1\. not a list`},
		{"a version is no list", "1.2.3", "1.2.3"},
		{"a negative number is no list", "-5", "-5"},
		{"a marker inside is kept", "a - b # c 1. d", "a - b # c 1. d"},
		{"ESC", "a\x1b[31mb", `a\\x1b\[31mb`},
		{"BEL and NUL", "\a\x00", `\\x07\\x00`},
		{"invalid UTF-8", "\xff", `\\xff`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := mdText(tc.in); got != tc.want {
				t.Errorf("mdText(%q) = %q, want %q", tc.in, got, tc.want)
			}
		})
	}
}

func TestMdCode(t *testing.T) {
	for _, tc := range []struct {
		name, in, want string
	}{
		{"plain", "p99 < 50ms", "`p99 < 50ms`"},
		{"HTML is literal inside code", xss, "`" + xss + "`"},
		{"a backtick gets a longer fence", "a`b", "``a`b``"},
		{"a run of backticks", "a```b", "````a```b````"},
		{"a backtick at an edge is padded", "`x", "`` `x ``"},
		{"a pipe sits between spans", "a|b", "`a`\\|`b`"},
		{"pipes at the edges", "|a|", "\\|`a`\\|"},
		{"outer spaces of a piece are kept", "a | b", "`a `\\|` b`"},
		{"newline folds", "a\nb", "`a b`"},
		{"ESC", "a\x1bb", "`a\\x1bb`"},
		{"empty", "", "—"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := mdCode(tc.in)
			if got != tc.want {
				t.Errorf("mdCode(%q) = %q, want %q", tc.in, got, tc.want)
			}
			if tc.in != "" && !strings.ContainsAny(tc.in, "\x1b\n") {
				if back, ok := decodeMdCode(got); !ok || back != oneLine(tc.in) {
					t.Errorf("mdCode(%q) = %q reads back as %q (ok %v)", tc.in, got, back, ok)
				}
			}
		})
	}
}

func TestMermaidText(t *testing.T) {
	for _, tc := range []struct {
		name, in, want string
	}{
		{"plain", "checkout", "checkout"},
		{"quote cannot end the string", `say "hi"`, "say 'hi'"},
		{"backticks cannot close the fence", "a```b", "a'''b"},
		{"no HTML", xss, "‹img src=x onerror=alert(1)›"},
		{"controls", "a\x1b\x07", `a\x1b\x07`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := mermaidText(tc.in); got != tc.want {
				t.Errorf("mermaidText(%q) = %q, want %q", tc.in, got, tc.want)
			}
		})
	}
}

// decodeMdCode reads mdCode's output back the way a CommonMark renderer
// with GitHub's table extension would: code spans and escaped pipes only.
func decodeMdCode(s string) (string, bool) {
	var out strings.Builder
	for s != "" {
		if strings.HasPrefix(s, `\|`) {
			out.WriteByte('|')
			s = s[2:]
			continue
		}
		n := len(s) - len(strings.TrimLeft(s, "`"))
		if n == 0 {
			return "", false
		}
		fence := s[:n]
		rest := s[n:]
		end := -1
		for i := 0; i+n <= len(rest); i++ {
			if rest[i:i+n] == fence && (i+n == len(rest) || rest[i+n] != '`') && (i == 0 || rest[i-1] != '`') {
				end = i
				break
			}
		}
		if end < 0 {
			return "", false
		}
		body := rest[:end]
		if len(body) >= 2 && body[0] == ' ' && body[len(body)-1] == ' ' && strings.Trim(body, " ") != "" {
			body = body[1 : len(body)-1]
		}
		out.WriteString(body)
		s = rest[end+n:]
	}
	return out.String(), true
}

// rawControl reports a byte no report may carry raw.
func rawControl(s string, allowNewline bool) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c == 0x7f || (c < 0x20 && !(allowNewline && (c == '\n' || c == '\t'))) {
			return true
		}
	}
	for _, r := range s {
		if (r >= 0x80 && r <= 0x9f) || (r >= 0x202a && r <= 0x202e) || (r >= 0x2066 && r <= 0x2069) {
			return true
		}
	}
	return !utf8.ValidString(s)
}

// escapedAt reports whether the byte at i is preceded by an odd number of
// backslashes, i.e. escaped.
func escapedAt(s string, i int) bool {
	n := 0
	for j := i - 1; j >= 0 && s[j] == '\\'; j-- {
		n++
	}
	return n%2 == 1
}

func fuzzSeeds(f *testing.F) {
	for _, s := range []string{"", xss, "a`b|c", "\x1b[31m\a\x00", "\xff\xfe", "# x", "1. y", "a\u009b\u202e", "```", "| |", `\|`, "\\`"} {
		f.Add(s)
	}
}

func FuzzConsoleText(f *testing.F) {
	fuzzSeeds(f)
	f.Fuzz(func(t *testing.T, s string) {
		got := ConsoleText(s)
		if rawControl(got, true) {
			t.Fatalf("ConsoleText(%q) = %q carries a raw control character or invalid UTF-8", s, got)
		}
		if !needsEscape(s, true) && got != s {
			t.Fatalf("ConsoleText(%q) = %q changed safe text", s, got)
		}
	})
}

func FuzzMdText(f *testing.F) {
	fuzzSeeds(f)
	f.Fuzz(func(t *testing.T, s string) {
		got := mdText(s)
		if rawControl(got, false) || strings.ContainsAny(got, "<>\n") {
			t.Fatalf("mdText(%q) = %q carries raw HTML, a newline or a control character", s, got)
		}
		for i := 0; i < len(got); i++ {
			if got[i] == '_' && intraword(got, i) {
				continue // inert between letters
			}
			if strings.IndexByte("|`*_[]~", got[i]) >= 0 && !escapedAt(got, i) {
				t.Fatalf("mdText(%q) = %q: unescaped %q at %d", s, got, got[i], i)
			}
		}
	})
}

func FuzzMdCode(f *testing.F) {
	fuzzSeeds(f)
	f.Fuzz(func(t *testing.T, s string) {
		got := mdCode(s)
		if rawControl(got, false) || strings.Contains(got, "\n") {
			t.Fatalf("mdCode(%q) = %q carries a newline or a control character", s, got)
		}
		for i := 0; i < len(got); i++ {
			if got[i] == '|' && !escapedAt(got, i) {
				t.Fatalf("mdCode(%q) = %q: unescaped pipe at %d", s, got, i)
			}
		}
		want := oneLine(s)
		if want == "" {
			return
		}
		if needsEscape(want, false) {
			var b strings.Builder
			writeEscaped(&b, want, false)
			want = b.String()
		}
		back, ok := decodeMdCode(got)
		if !ok || back != want {
			t.Fatalf("mdCode(%q) = %q reads back as %q (ok %v), want %q", s, got, back, ok, want)
		}
	})
}

func FuzzMermaidText(f *testing.F) {
	fuzzSeeds(f)
	f.Fuzz(func(t *testing.T, s string) {
		got := mermaidText(s)
		if rawControl(got, false) || strings.ContainsAny(got, "<>\"`\n") {
			t.Fatalf("mermaidText(%q) = %q carries a character that could leave its string", s, got)
		}
	})
}
