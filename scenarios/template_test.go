package scenarios

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestCompileTemplate(t *testing.T) {
	tests := []struct {
		in       string
		want     []TemplatePart
		min, max int
	}{
		// Text without placeholders is one literal, braces and all.
		{`{"a":{"b":1}}`, []TemplatePart{{Kind: PartLiteral, Literal: []byte(`{"a":{"b":1}}`)}}, 13, 13},
		{"", nil, 0, 0},
		{"{{seq}}", []TemplatePart{{Kind: PartSeq}}, 1, maxSeqLen},
		// Spaces inside the braces are allowed; a quoted literal merges
		// into the text around it.
		{`a{{ "{{" }}b{{ worker }}`, []TemplatePart{{Kind: PartLiteral, Literal: []byte("a{{b")}, {Kind: PartWorker}}, 5, 4 + maxWorkerLen},
		{"{{now_ms}}", []TemplatePart{{Kind: PartNowMS}}, minNowMSLen, maxNowMSLen},
		{"{{uuid}}", []TemplatePart{{Kind: PartUUID}}, uuidLen, uuidLen},
		// rand_int's longest rendering is its longest bound, sign included.
		{"{{rand_int -100 7}}", []TemplatePart{{Kind: PartRandInt, Min: -100, Max: 7}}, 1, 4},
	}
	for _, tc := range tests {
		got, errs := compileTemplate(tc.in)
		if len(errs) > 0 {
			t.Errorf("%q: %v", tc.in, errs)
			continue
		}
		if diff := cmp.Diff(tc.want, got.Parts); diff != "" {
			t.Errorf("%q (-want +got):\n%s", tc.in, diff)
		}
		if got.MinLen() != tc.min || got.MaxLen() != tc.max {
			t.Errorf("%q: MinLen %d, MaxLen %d; want %d, %d", tc.in, got.MinLen(), got.MaxLen(), tc.min, tc.max)
		}
		if got.Static() != (len(tc.want) <= 1 && (len(tc.want) == 0 || tc.want[0].Kind == PartLiteral)) {
			t.Errorf("%q: Static() = %v", tc.in, got.Static())
		}
	}
}

func TestCompileTemplateErrors(t *testing.T) {
	tests := []struct {
		in  string
		off []int // byte offsets of the problems
	}{
		{"x {{nope}} y {{seq}} {{bad arg}}", []int{2, 21}},
		{"abc {{seq", []int{4}},
		{`{{"unterminated}}`, []int{0}},
		{"{{seq 1}}{{rand_int 1 x}}{{rand_int 5 1}}{{}}", []int{0, 9, 25, 41}},
	}
	for _, tc := range tests {
		_, errs := compileTemplate(tc.in)
		var got []int
		for _, e := range errs {
			got = append(got, e.Off)
		}
		if diff := cmp.Diff(tc.off, got); diff != "" {
			t.Errorf("%q: offsets (-want +got):\n%s\n%v", tc.in, diff, errs)
		}
	}
}
