package curl

import (
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestSplit(t *testing.T) {
	tests := []struct {
		src  string
		want [][]string
	}{
		{`curl http://h/`, [][]string{{"curl", "http://h/"}}},
		{`a 'b c' "d e" f\ g`, [][]string{{"a", "b c", "d e", "f g"}}},
		{`'it'\''s' "a\"b\\c\d\$" 'x\y'`, [][]string{{"it's", `a"b\c\d$`, `x\y`}}},
		{`$'a\nb\x41\u00e9\t\'\\\e\101\cA\q'`, [][]string{{"a\nbAé\t'\\\x1bA\x01\\q"}}},
		{`$"hi" "$'x'"`, [][]string{{"hi", "$'x'"}}},
		{"a \\\n  b\\\r\n c", [][]string{{"a", "b", "c"}}},
		{"a; b && c\n d\r\ne", [][]string{{"a"}, {"b"}, {"c"}, {"d"}, {"e"}}},
		{"# comment\na # another\n  #\nb#c", [][]string{{"a"}, {"b#c"}}},
		{`a "" '' x""y`, [][]string{{"a", "", "", "xy"}}},
		{`price=$ 5$ $`, [][]string{{"price=$", "5$", "$"}}},
		{"\"multi\nline\" x", [][]string{{"multi\nline", "x"}}},
		{"", nil},
		{" \t\n;;", nil},
	}
	for _, tt := range tests {
		cmds, err := Split(tt.src)
		if err != nil {
			t.Errorf("%q: %v", tt.src, err)
			continue
		}
		if d := cmp.Diff(tt.want, texts(cmds)); d != "" {
			t.Errorf("%q (-want +got):\n%s", tt.src, d)
		}
	}
}

func texts(cmds []Command) [][]string {
	var out [][]string
	for _, c := range cmds {
		var words []string
		for _, w := range c {
			words = append(words, w.Text)
		}
		out = append(out, words)
	}
	return out
}

// TestSplitKeepsShellVariables: $NAME and ${NAME} stay in the text as
// written, with their place, where they are not quoted away.
func TestSplitKeepsShellVariables(t *testing.T) {
	cmds, err := Split(`curl -H "Authorization: Bearer $TOKEN" -d x=${A_1}y '$NOT' \$NOR`)
	if err != nil {
		t.Fatal(err)
	}
	type ref struct {
		Name, Text string
		Pos        Pos
	}
	var got []ref
	for _, w := range cmds[0] {
		for _, r := range w.Refs {
			got = append(got, ref{r.Name, w.Text[r.Off:r.End], r.Pos})
		}
	}
	want := []ref{{"TOKEN", "$TOKEN", Pos{1, 32}}, {"A_1", "${A_1}", Pos{1, 45}}}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("(-want +got):\n%s", d)
	}
}

func TestSplitPositions(t *testing.T) {
	cmds, err := Split("curl  \"ü\" é\\\n   -x\n\tcurl")
	if err != nil {
		t.Fatal(err)
	}
	var got []Pos
	for _, c := range cmds {
		for _, w := range c {
			got = append(got, w.Pos)
		}
	}
	if d := cmp.Diff([]Pos{{1, 1}, {1, 7}, {1, 11}, {2, 4}, {3, 2}}, got); d != "" {
		t.Errorf("(-want +got):\n%s", d)
	}
}

func TestSplitErrors(t *testing.T) {
	tests := []struct{ src, want string }{
		{`curl 'http://h/`, "1:6: unterminated ' quote"},
		{"curl \"a\n b", `1:6: unterminated " quote`},
		{`curl $'abc`, "1:6: unterminated $' quote"},
		{`curl http://h/ | jq .`, "1:16: a pipe"},
		{`curl http://h/ > out`, "1:16: a redirection (>)"},
		{`curl http://h/ 2>/dev/null`, "1:17: a redirection (>)"},
		{`curl http://h/ &`, "1:16: a background job"},
		{`(curl http://h/)`, "1:1: a subshell"},
		{"curl \\\n  $(cat url)", "2:3: command substitution ($(…))"},
		{"curl `cat url`", "1:6: command substitution (`…`)"},
		{`curl "${X:-y}"`, "1:7: ${X:-y}: only plain variables"},
		{`curl ${X`, "1:6: unterminated ${"},
		{`curl $1`, "1:6: $1 is a shell parameter"},
		{`curl "$?"`, "1:7: $? is a shell parameter"},
		{`curl $'\uD800'`, `1:8: \uD800 is not a Unicode character`},
	}
	for _, tt := range tests {
		_, err := Split(tt.src)
		var e *Error
		if !errors.As(err, &e) || !strings.HasPrefix(e.Error(), tt.want) {
			t.Errorf("%q: %v, want %q", tt.src, err, tt.want)
		}
	}
}

// FuzzCurlWords: Split never panics; an error has a place inside the
// input; words written back in single quotes split into the same words.
func FuzzCurlWords(f *testing.F) {
	for _, s := range []string{
		`curl -H 'a: b' "x $Y ${Z}" $'\x41\u00e9' a\ b`, "a \\\n b; c && d # e\n", `'it'\''s'`,
		`$"x"`, "\"a\r\nb\"", `x$`, "$'\\c", "a|b", "\xff'\xfe'",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, src string) {
		cmds, err := Split(src)
		if err != nil {
			var e *Error
			if !errors.As(err, &e) {
				t.Fatalf("%q: an error without a place: %v", src, err)
			}
			if lines := strings.Count(src, "\n") + 1; e.Pos.Line < 1 || e.Pos.Line > lines || e.Pos.Col < 1 {
				t.Fatalf("%q: %v is outside the input's %d lines", src, err, lines)
			}
			return
		}
		var b strings.Builder
		for _, c := range cmds {
			if len(c) == 0 {
				t.Fatalf("%q: an empty command", src)
			}
			for i, w := range c {
				if i > 0 {
					b.WriteByte(' ')
				}
				b.WriteString("'" + strings.ReplaceAll(w.Text, "'", `'\''`) + "'")
				for _, r := range w.Refs {
					if r.Off < 0 || r.End > len(w.Text) || r.Off >= r.End || w.Text[r.Off] != '$' {
						t.Fatalf("%q: word %q has a variable at [%d,%d)", src, w.Text, r.Off, r.End)
					}
				}
			}
			b.WriteByte('\n')
		}
		again, err := Split(b.String())
		if err != nil {
			t.Fatalf("%q: its words written back do not split: %v\n%s", src, err, b.String())
		}
		if d := cmp.Diff(texts(cmds), texts(again)); d != "" {
			t.Fatalf("%q: written back, the words differ (-first +again):\n%s", src, d)
		}
	})
}
