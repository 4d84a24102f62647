package scenarios

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// env builds a LookupEnv over a fixed map, so tests need no process state.
func env(m map[string]string) func(string) (string, bool) {
	return func(k string) (string, bool) {
		v, ok := m[k]
		return v, ok
	}
}

// diagnostics parses src and returns its diagnostics as text, one per line.
func diagnostics(t *testing.T, src string, opts LoadOptions) string {
	t.Helper()
	_, err := Parse("s.yaml", []byte(src), opts)
	if err == nil {
		return ""
	}
	return render(t, err)
}

func mustParse(t *testing.T, src string, opts LoadOptions) *Scenario {
	t.Helper()
	s, err := Parse("s.yaml", []byte(src), opts)
	if err != nil {
		t.Fatalf("Parse:\n%v", err)
	}
	return s
}

const precedenceDoc = `version: 1
name: p
vars:
  a: file-a
  b: file-b
  c: file-c
targets:
  - name: t
    http:
      url: http://h/${a}/${b}/${c}/${d:-dflt}
phases:
  - { name: m, requests: 1 }
`

func TestVarPrecedence(t *testing.T) {
	tests := []struct {
		name     string
		opts     LoadOptions
		wantURL  string
		wantVars map[string]string
	}{
		{
			name:     "file values alone",
			opts:     LoadOptions{},
			wantURL:  "http://h/file-a/file-b/file-c/dflt",
			wantVars: map[string]string{"a": "file-a", "b": "file-b", "c": "file-c"},
		},
		{
			name: "environment beats the file, --var beats the environment",
			opts: LoadOptions{
				Vars:      map[string]string{"a": "cli-a"},
				LookupEnv: env(map[string]string{"LOADGATE_VAR_a": "env-a", "LOADGATE_VAR_b": "env-b"}),
			},
			wantURL:  "http://h/cli-a/env-b/file-c/dflt",
			wantVars: map[string]string{"a": "cli-a", "b": "env-b", "c": "file-c"},
		},
		{
			name: "a variable defined only outside the file replaces the default",
			opts: LoadOptions{
				Vars:      map[string]string{"unused": "x"},
				LookupEnv: env(map[string]string{"LOADGATE_VAR_d": "env-d", "d": "not-prefixed"}),
			},
			wantURL:  "http://h/file-a/file-b/file-c/env-d",
			wantVars: map[string]string{"a": "file-a", "b": "file-b", "c": "file-c", "d": "env-d", "unused": "x"},
		},
		{
			name:     "an empty value takes the default, as in the shell",
			opts:     LoadOptions{Vars: map[string]string{"d": ""}},
			wantURL:  "http://h/file-a/file-b/file-c/dflt",
			wantVars: map[string]string{"a": "file-a", "b": "file-b", "c": "file-c", "d": ""},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s := mustParse(t, precedenceDoc, tc.opts)
			if got := s.Targets[0].HTTP.Requests[0].URL; got != tc.wantURL {
				t.Errorf("url = %q, want %q", got, tc.wantURL)
			}
			if diff := cmp.Diff(tc.wantVars, s.Vars); diff != "" {
				t.Errorf("Vars (-want +got):\n%s", diff)
			}
		})
	}
}

func TestDiagnostics(t *testing.T) {
	const head = "version: 1\nname: d\n"
	const target = "targets:\n  - name: t\n    http: { url: \"http://h/\" }\n"
	const phase = "phases:\n  - { name: m, requests: 1 }\n"
	tests := []struct {
		name string
		src  string
		opts LoadOptions
		want string
	}{
		{
			// The column of ${ inside a plain scalar is the node's column
			// plus the offset; inside a quoted one, one more for the quote.
			name: "undefined variables point at their ${",
			src:  head + "targets:\n  - name: t\n    http:\n      url: http://${x}/\n      body: 'ab ${y}'\n" + phase,
			want: "s.yaml:6:19: undefined variable \"x\" (define it under vars:, pass --var x=..., or set LOADGATE_VAR_x)\n" +
				"s.yaml:7:17: undefined variable \"y\" (define it under vars:, pass --var y=..., or set LOADGATE_VAR_y)\n",
		},
		{
			name: "escapes in a quoted scalar fall back to the node's position",
			src:  head + "targets:\n  - name: t\n    http:\n      url: \"http://\\x41${x}/\"\n" + phase,
			want: "s.yaml:6:12: undefined variable \"x\" (define it under vars:, pass --var x=..., or set LOADGATE_VAR_x)\n",
		},
		{
			name: "columns count characters, not bytes",
			src:  head + "description: \"héllo ${x}\"\n" + target + phase,
			want: "s.yaml:3:21: undefined variable \"x\" (define it under vars:, pass --var x=..., or set LOADGATE_VAR_x)\n",
		},
		{
			name: "a matrix value substituted into an integer is checked at the use, once",
			src: head + target + "matrix:\n  c: [1, x, y]\n  d: [a, b]\n" +
				"phases:\n  - name: m\n    requests: 1\n    concurrency: ${c}\n",
			want: "s.yaml:12:18: concurrency: expected an integer, got \"x\"\n" +
				"s.yaml:12:18: concurrency: expected an integer, got \"y\"\n",
		},
		{
			name: "--var cannot set a matrix key",
			src:  head + target + "matrix:\n  c: [1]\n" + phase,
			opts: LoadOptions{Vars: map[string]string{"c": "5"}},
			want: "s.yaml:7:3: matrix.c: also set with --var; a matrix variable takes its values from the matrix\n",
		},
		{
			name: "a threshold naming a phase is checked against existing phases",
			src:  head + target + phase + "thresholds:\n  - { rule: rps > 1, phase: x }\n",
			want: "s.yaml:9:29: phase: there is no phase named \"x\"\n",
		},
		{
			// The process is watched across all cases, so it cannot be a
			// different one per combination.
			name: "a monitor cannot use a matrix variable",
			src:  head + "matrix:\n  p: [1, 2]\ntargets:\n  - name: t\n    monitor: { pid: \"${p}\" }\n    http: { url: \"http://h/\" }\n" + phase,
			want: "s.yaml:7:22: matrix variable \"p\" cannot be used in a monitor, which watches one process for all cases\n",
		},
		{
			name: "the file size limit",
			src:  head + "description: " + strings.Repeat("x", maxFileSize) + "\n",
			want: "s.yaml:1:1: the file is larger than 4 MiB\n",
		},
		{
			name: "aliases that expand without bound are stopped",
			src:  head + phase + billionLaughs,
			want: "", // checked below: the exact node depends on walk order
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := diagnostics(t, tc.src, tc.opts)
			if tc.want == "" {
				if !strings.Contains(got, "too large once its aliases are expanded") {
					t.Errorf("diagnostics:\n%s\nwant the alias budget to stop the walk", got)
				}
				return
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}

// billionLaughs shares one target through aliases 100 times, each with
// 1000 requests sharing 1000 headers: 10^8 headers if walked naively.
var billionLaughs = func() string {
	var b strings.Builder
	b.WriteString("x:\n  h: &h {")
	for i := range 1000 {
		fmt.Fprintf(&b, "H%d: v, ", i)
	}
	b.WriteString("}\n  r: &r {name: a, headers: *h}\n  t: &t {name: t, http: {url: \"http://h/\", requests: [")
	b.WriteString(strings.Repeat("*r, ", 1000))
	b.WriteString("]}}\ntargets: [")
	b.WriteString(strings.Repeat("*t, ", 100))
	b.WriteString("]\n")
	return b.String()
}()

func TestSyntaxErrorPositions(t *testing.T) {
	tests := []struct {
		name, src, want string
	}{
		{"mapping value inside a plain scalar", "version: 1\nname: a: b\n",
			"s.yaml:2:8: syntax error: mapping values are not allowed in this context\n"},
		{"character that cannot start a token", "version: 1\nname: @x\n",
			"s.yaml:2:7: syntax error: found character that cannot start any token\n"},
		{"unclosed quote, reported where it opens", "version: 1\nname: 'abc\n",
			"s.yaml:2:7: syntax error: found unexpected end of stream\n"},
		{"on the first line, which yaml.v3 leaves unnumbered", "a: b: c\n",
			"s.yaml:1:5: syntax error: mapping values are not allowed in this context\n"},
		{"after multi-byte characters", "name: ü\nx: [ü, @\n",
			"s.yaml:2:8: syntax error: found character that cannot start any token\n"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if diff := cmp.Diff(tc.want, diagnostics(t, tc.src, LoadOptions{})); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}

func TestRequestsDefaultToOneEntry(t *testing.T) {
	s := mustParse(t, "version: 1\nname: d\ntargets:\n  - name: t\n    http:\n      url: http://h/\n      method: delete\n      body: x\n"+
		"phases:\n  - { name: m, duration: 1s }\n", LoadOptions{})
	want := []HTTPRequest{{Method: "DELETE", URL: "http://h/", Body: []byte("x"), Weight: 1}}
	if diff := cmp.Diff(want, s.Targets[0].HTTP.Requests); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
	if got := s.Targets[0].HTTP.Expect.Length; got != -1 {
		t.Errorf("Expect.Length = %d, want -1 when unset", got)
	}
}

func TestLoadErrors(t *testing.T) {
	dir := t.TempDir()
	missing := filepath.Join(dir, "missing.yaml")
	_, err := Load(missing, LoadOptions{})
	if !errors.Is(err, fs.ErrNotExist) || !strings.HasPrefix(err.Error(), missing+": ") {
		t.Errorf("Load(missing) = %v; want fs.ErrNotExist prefixed with the path once", err)
	}
	if strings.Count(err.Error(), missing) != 1 {
		t.Errorf("path repeated in %q", err)
	}

	big := filepath.Join(dir, "big.yaml")
	if err := os.WriteFile(big, make([]byte, maxFileSize+10), 0o644); err != nil {
		t.Fatal(err)
	}
	_, err = Load(big, LoadOptions{})
	var list ErrorList
	if !errors.As(err, &list) || len(list) != 1 || !strings.Contains(list[0].Msg, "larger than") {
		t.Errorf("Load(big) = %v; want one size diagnostic", err)
	}
}

func TestBodyFileIsRelativeToTheScenario(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "b.txt"), []byte("payload"), 0o644); err != nil {
		t.Fatal(err)
	}
	src := "version: 1\nname: b\ntargets:\n  - name: t\n    http: { url: \"http://h/\", body_file: b.txt }\n" +
		"  - name: dev\n    http: { url: \"http://h/\", body_file: " + os.DevNull + " }\n" +
		"phases:\n  - { name: m, requests: 1 }\n"
	_, err := Parse(filepath.Join(dir, "s.yaml"), []byte(src), LoadOptions{})
	want := "s.yaml:7:42: body_file: cannot read \"" + os.DevNull + "\": not a regular file\n"
	if diff := cmp.Diff(want, render(t, err)); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
	src = strings.Replace(src, "body_file: "+os.DevNull, "body: x", 1)
	s, err := Parse(filepath.Join(dir, "s.yaml"), []byte(src), LoadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if got := string(s.Targets[0].HTTP.Requests[0].Body); got != "payload" {
		t.Errorf("body = %q, want the file's content", got)
	}
}

// TestReferenceExample keeps the complete example of docs/scenario.md valid.
func TestReferenceExample(t *testing.T) {
	doc, err := os.ReadFile("../docs/scenario.md")
	if err != nil {
		t.Skip("docs/scenario.md not found:", err)
	}
	_, rest, _ := strings.Cut(string(doc), "## A complete example")
	_, rest, _ = strings.Cut(rest, "```yaml\n")
	example, _, ok := strings.Cut(rest, "```")
	if !ok {
		t.Fatal("no yaml block after \"## A complete example\"")
	}
	s := mustParse(t, example, LoadOptions{})
	if got := len(s.Cases); got != 6 {
		t.Errorf("the example has %d cases; the text says 6", got)
	}
}

// TestSameJobExample keeps the same-job A/B example of docs/scenario.md
// valid and meaning what the text around it says.
func TestSameJobExample(t *testing.T) {
	doc, err := os.ReadFile("../docs/scenario.md")
	if err != nil {
		t.Skip("docs/scenario.md not found:", err)
	}
	_, rest, _ := strings.Cut(string(doc), "## Same-job A/B")
	_, rest, _ = strings.Cut(rest, "```yaml\n")
	example, _, ok := strings.Cut(rest, "```")
	if !ok {
		t.Fatal("no yaml block after \"## Same-job A/B\"")
	}
	s, err := Parse("../docs/ab.yaml", []byte(example), LoadOptions{})
	if err != nil {
		t.Fatalf("Parse:\n%v", err)
	}
	pr := s.Targets[1]
	if pr.BaselineTarget != "main" || pr.Server == nil || s.Targets[0].Server == nil {
		t.Errorf("pr: baseline %q, server %v; main: server %v", pr.BaselineTarget, pr.Server, s.Targets[0].Server)
	}
	if p := s.Cases[0].Phases[1]; !p.Interleave || p.Trials != 5 {
		t.Errorf("measured phase: interleave %v, trials %d; want true, 5", p.Interleave, p.Trials)
	}
}
