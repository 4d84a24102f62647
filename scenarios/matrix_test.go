package scenarios

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

func axis(key string, texts ...string) Axis {
	ax := Axis{Key: key}
	for _, t := range texts {
		ax.Values = append(ax.Values, MatrixValue{Key: key, Text: t, Value: t})
	}
	return ax
}

func TestCombinations(t *testing.T) {
	tests := []struct {
		name string
		axes []Axis
		want []string // case IDs for target "t"
	}{
		{"no matrix: one case named after the target", nil, []string{"t"}},
		{"one axis, in file order", []Axis{axis("c", "1", "100", "10")},
			[]string{"t c=1", "t c=100", "t c=10"}},
		{"the last axis varies fastest", []Axis{axis("a", "1", "2"), axis("b", "x", "y", "z")},
			[]string{"t a=1,b=x", "t a=1,b=y", "t a=1,b=z", "t a=2,b=x", "t a=2,b=y", "t a=2,b=z"}},
		{"single-valued axes still name the case", []Axis{axis("a", "1"), axis("b", "2")},
			[]string{"t a=1,b=2"}},
		{"an empty axis makes no combinations", []Axis{axis("a", "1"), axis("b")}, nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var got []string
			for _, combo := range combinations(tc.axes) {
				if len(combo) != len(tc.axes) {
					t.Fatalf("combination %v has %d values for %d axes", combo, len(combo), len(tc.axes))
				}
				got = append(got, caseID("t", combo))
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}

func TestCaseCountSaturates(t *testing.T) {
	big := axis("a")
	for range 1000 {
		big.Values = append(big.Values, MatrixValue{})
	}
	tests := []struct {
		axes    []Axis
		targets int
		want    int
	}{
		{nil, 3, 3},
		{[]Axis{axis("a", "1", "2")}, 3, 6},
		{[]Axis{big, big}, 1, maxCases + 1},           // a million combinations
		{[]Axis{big, big, big, big}, 1, maxCases + 1}, // would overflow without saturation
		{[]Axis{big}, 11, maxCases + 1},
	}
	for _, tc := range tests {
		if got := caseCount(tc.axes, tc.targets); got != tc.want {
			t.Errorf("caseCount(%d axes, %d targets) = %d, want %d", len(tc.axes), tc.targets, got, tc.want)
		}
	}
}

func TestMatrixTooLarge(t *testing.T) {
	src := "version: 1\nname: m\ntargets:\n  - name: t\n    http: { url: \"http://h/\" }\nmatrix:\n" +
		"  a: [1,2,3,4,5,6,7,8,9,10]\n  b: [1,2,3,4,5,6,7,8,9,10]\n  c: [1,2,3,4,5,6,7,8,9,10]\n  d: [1,2,3,4,5,6,7,8,9,10]\n  e: [1,2]\n" +
		"phases:\n  - { name: m, requests: 1 }\n"
	want := "s.yaml:6:1: matrix: targets × combinations make more than 10000 cases\n"
	if diff := cmp.Diff(want, diagnostics(t, src, LoadOptions{})); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}

func TestMatrixValueTypes(t *testing.T) {
	src := "version: 1\nname: m\ntargets:\n  - name: t\n    http: { url: \"http://h/\" }\nmatrix:\n" +
		"  v: [1, 0x10, 2.5, true, text, \"7\", 1e3]\n" +
		"phases:\n  - { name: m, requests: 1 }\n"
	s := mustParse(t, src, LoadOptions{})
	var got []MatrixValue
	for _, c := range s.Cases {
		got = append(got, c.Matrix...)
	}
	want := []MatrixValue{
		{"v", "1", int64(1)},
		{"v", "0x10", int64(16)},
		{"v", "2.5", 2.5},
		{"v", "true", true},
		{"v", "text", "text"},
		{"v", "7", "7"}, // quoted: a string, as YAML says
		{"v", "1e3", 1000.0},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}
