package scenarios

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// cycleDoc is a scenario whose vars: are the lines of vars (indented
// under vars: at line 3) and whose URL uses ${a}.
func cycleDoc(vars ...string) string {
	return "version: 1\nname: c\nvars:\n  " + strings.Join(vars, "\n  ") + `
targets:
  - name: t
    http:
      url: http://127.0.0.1:8080/${a}
phases:
  - { name: m, requests: 1 }
`
}

const cycleHint = " (values under vars: are taken as written, not expanded: write the value itself)"

func TestVarCycles(t *testing.T) {
	tests := []struct {
		name string
		vars []string
		opts LoadOptions
		want string // diagnostics, one per line; "" for none
	}{
		{
			// The use in the URL adds nothing: the cycle is the problem.
			name: "two variables",
			vars: []string{"a: '${b}'", "b: '${a}'"},
			want: "s.yaml:4:3: variable cycle: a → b → a" + cycleHint + "\n",
		},
		{
			name: "three variables",
			vars: []string{"a: x${b}", "b: ${c}y", "c: '${a}'"},
			want: "s.yaml:4:3: variable cycle: a → b → c → a" + cycleHint + "\n",
		},
		{
			name: "a variable that refers to itself",
			vars: []string{"a: '${a}'"},
			want: "s.yaml:4:3: variable cycle: a → a" + cycleHint + "\n",
		},
		{
			// Found from a, which is not in it: the cycle starts at the
			// variable of the cycle written first, and is placed there.
			name: "a cycle reached from outside it",
			vars: []string{"a: '${c}'", "b: '${c}'", "c: '${b}'"},
			want: "s.yaml:5:3: variable cycle: b → c → b" + cycleHint + "\n",
		},
		{
			name: "written in the long form, with a default",
			vars: []string{"a: { value: '${b:-x}', secret: true }", "b: '${a}'"},
			want: "s.yaml:4:3: variable cycle: a → b → a" + cycleHint + "\n",
		},
		{
			name: "two cycles",
			vars: []string{"a: '${b}'", "b: '${a}'", "c: '${d}'", "d: '${c}'"},
			want: "s.yaml:4:3: variable cycle: a → b → a" + cycleHint + "\n" +
				"s.yaml:6:3: variable cycle: c → d → c" + cycleHint + "\n",
		},
		{
			// $$ is a literal $, no reference.
			name: "an escaped dollar",
			vars: []string{"a: '$${b}'", "b: '${a}'"},
		},
		{
			// A value set on the command line is not the file's: no cycle.
			name: "broken by --var",
			vars: []string{"a: '${b}'", "b: '${a}'"},
			opts: LoadOptions{Vars: map[string]string{"b": "x"}},
		},
		{
			name: "broken by the environment",
			vars: []string{"a: '${b}'", "b: '${a}'"},
			opts: LoadOptions{LookupEnv: env(map[string]string{envPrefix + "a": "x"})},
		},
		{
			// A value naming a variable that refers to nothing is no cycle.
			name: "a chain",
			vars: []string{"a: '${b}'", "b: '${c}'", "c: x"},
		},
		{
			// A reference to something that is no variable of the file.
			name: "an undefined reference",
			vars: []string{"a: '${nope}'"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := diagnostics(t, cycleDoc(tt.vars...), tt.opts)
			if tt.want == "" {
				// The file's values are then used as written, as ever: a
				// URL holding "${…}" may be refused, but not as a cycle.
				if strings.Contains(got, "variable cycle") {
					t.Errorf("diagnostics:\n%s\nwant no variable cycle", got)
				}
				return
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}

func TestReferences(t *testing.T) {
	known := map[string]int{"a": 0, "b": 1, "c": 2}
	for _, tt := range []struct {
		value string
		want  []string
	}{
		{"plain", nil},
		{"${a}${b}${a}", []string{"a", "b"}},       // in order, each once
		{"http://${b}:${c}/", []string{"b", "c"}},  // inside text
		{"${b:-x}${a:-}", []string{"b", "a"}},      // with defaults
		{"${b:-${c}}", []string{"b"}},              // a default is text
		{"$${a} ${nope} ${A} ${c}", []string{"c"}}, // escaped, unknown, another case
		{"$$${a}", []string{"a"}},                  // $$, then a reference
		{"${a", nil},                               // unterminated
		{"${not valid} ${}", nil},                  // no variable names
	} {
		if got := references(tt.value, known); !cmp.Equal(got, tt.want) {
			t.Errorf("references(%q) = %q, want %q", tt.value, got, tt.want)
		}
	}
}
