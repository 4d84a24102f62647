package scenarios

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// flowDoc is a scenario whose target's http block is the lines of http,
// from line 7; vars c and id are defined.
func flowDoc(http ...string) string {
	return `version: 1
name: f
vars: { c: 3, id: 7 }
targets:
  - name: api
    http:
      ` + strings.Join(http, "\n      ") + `
phases:
  - { name: m, requests: 1 }
`
}

const (
	inMapping  = " unquoted in a flow mapping { … }, where YAML reads its { as the start of a mapping; quote "
	inSequence = " unquoted in a flow sequence [ … ], where YAML reads its { as the start of a mapping; quote "
)

func TestFlowVarErrors(t *testing.T) {
	tests := []struct {
		name string
		http []string
		want string
	}{
		{
			name: "a flow step on one line",
			http: []string{"url: http://127.0.0.1:8080", "flow:", "  - { name: x, path: /items/${c} }"},
			want: "s.yaml:9:35: syntax error: ${c}" + inMapping + "the value, e.g. '/items/${c}'\n",
		},
		{
			// The value is the variable alone.
			name: "a body mapping",
			http: []string{"url: http://127.0.0.1:8080", "flow:", "  - name: x", "    body: {id: ${c}}"},
			want: "s.yaml:10:22: syntax error: ${c}" + inMapping + "the value, e.g. '${c}'\n",
		},
		{
			// The mapping opens on line 7; the parser complains about it
			// there, the variable is on line 9.
			name: "a mapping over several lines",
			http: []string{"{ url: http://127.0.0.1:8080,", "  keepalive: true,", "  headers: { X-Id: v${id} } }"},
			want: "s.yaml:9:27: syntax error: ${id}" + inMapping + "the value, e.g. 'v${id}'\n",
		},
		{
			// One diagnostic per value: quoting it fixes both.
			name: "two in one value, and another value",
			http: []string{"url: http://127.0.0.1:8080", "headers: { A: ${c}-${id}, B: x }", "expect: { body_contains: ${id} }"},
			want: "s.yaml:8:21: syntax error: ${c}" + inMapping + "the value, e.g. '${c}-${id}'\n" +
				"s.yaml:9:32: syntax error: ${id}" + inMapping + "the value, e.g. '${id}'\n",
		},
		{
			name: "a flow sequence",
			http: []string{"url: http://127.0.0.1:8080", "expect: { status: [200, ${c}] }"},
			want: "s.yaml:8:31: syntax error: ${c}" + inSequence + "the value, e.g. '${c}'\n",
		},
		{
			name: "a key",
			http: []string{"url: http://127.0.0.1:8080", "headers: { X-${c}: v }"},
			want: "s.yaml:8:20: syntax error: ${c}" + inMapping + "the key, e.g. 'X-${c}'\n",
		},
		{
			// A quote in the value is doubled in the suggestion.
			name: "a quote in the value",
			http: []string{"url: http://127.0.0.1:8080", "headers: { A: it's ${c} }"},
			want: "s.yaml:8:26: syntax error: ${c}" + inMapping + "the value, e.g. 'it''s ${c}'\n",
		},
		{
			// Block context: a plain scalar may hold ${…} and { as it likes,
			// so only the flow mapping's reference is reported.
			name: "a block value beside",
			http: []string{"url: http://127.0.0.1:8080/${c}", "headers: { A: ${c} }"},
			want: "s.yaml:8:21: syntax error: ${c}" + inMapping + "the value, e.g. '${c}'\n",
		},
		{
			// Another mistake remains once the variables are set aside: the
			// parser's own words, where it gave up, which is not said to be
			// the variable.
			name: "another syntax error",
			http: []string{"url: http://127.0.0.1:8080", "headers: { A: ${c} }", "expect: { status: [200 }"},
			want: "s.yaml:8:18: syntax error: did not find expected ',' or '}'\n",
		},
		{
			name: "quoted, with another syntax error",
			http: []string{"url: http://127.0.0.1:8080", "headers: { A: '${c}' }", "expect: { status: [200 }"},
			want: "s.yaml:9:26: syntax error: did not find expected ',' or ']'\n",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := diagnostics(t, flowDoc(tt.http...), LoadOptions{})
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("(-want +got):\n%s\nfile:\n%s", diff, flowDoc(tt.http...))
			}
		})
	}
}

func TestOffsetOf(t *testing.T) {
	s := newSource([]byte("ab\nµx: y\r\nz"))
	for _, tt := range []struct {
		line, col, want int
		ok              bool
	}{
		{1, 1, 0, true},
		{1, 3, 2, true},  // the end of the line
		{2, 2, 5, true},  // after µ, two bytes
		{3, 1, 11, true}, // after CRLF
		{0, 1, 0, false},
		{4, 1, 0, false},
		{3, 3, 0, false}, // past the end of the file
	} {
		got, ok := s.offsetOf(tt.line, tt.col)
		if got != tt.want || ok != tt.ok {
			t.Errorf("offsetOf(%d, %d) = %d, %v; want %d, %v", tt.line, tt.col, got, ok, tt.want, tt.ok)
		}
	}
}
