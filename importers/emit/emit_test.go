package emit

import "testing"

func TestUnsafeMethods(t *testing.T) {
	for _, tc := range []struct {
		methods []string
		want    string
	}{
		{nil, ""},
		{[]string{"GET", "HEAD", "OPTIONS"}, ""},
		{[]string{"GET", "POST", "DELETE", "POST"}, "every iteration sends POST, DELETE again: load a system where repeating that is harmless"},
	} {
		if got := UnsafeMethods(tc.methods); got != tc.want {
			t.Errorf("UnsafeMethods(%q) = %q, want %q", tc.methods, got, tc.want)
		}
	}
}

func TestEscape(t *testing.T) {
	for _, tc := range []struct {
		in                    string
		templated, refFollows bool
		want                  string
	}{
		{"price $5", false, false, "price $5"},
		{"${HOME} and $$", false, false, "$${HOME} and $$$"},
		{"cost $", false, true, "cost $$"},
		{"{{token}}", true, false, `{{"{{"}}token}}`},
		{"{{token}}", false, false, "{{token}}"},
	} {
		if got := Escape(tc.in, tc.templated, tc.refFollows); got != tc.want {
			t.Errorf("Escape(%q, %v, %v) = %q, want %q", tc.in, tc.templated, tc.refFollows, got, tc.want)
		}
	}
}
