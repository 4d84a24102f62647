package scenarios

import (
	"errors"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestSubstitute(t *testing.T) {
	vars := map[string]string{"host": "h:80", "empty": "", "dollar": "$${x}"}
	lookup := func(name string) (string, error) {
		if v, ok := vars[name]; ok {
			return v, nil
		}
		return "", errors.New("undefined " + name)
	}
	tests := []struct {
		name, in, want string
		errs           []varError
	}{
		{"no variables", "plain text", "plain text", nil},
		{"one variable", "http://${host}/", "http://h:80/", nil},
		{"adjacent variables", "${host}${host}", "h:80h:80", nil},
		{"$$ is a literal $", "cost $$5 ${host}", "cost $5 h:80", nil},
		{"$$ before a brace does not start a reference", "$${host}", "${host}", nil},
		{"a lone $ is kept, as expr's $env needs", "$env and $ and trailing $", "$env and $ and trailing $", nil},
		{"default when undefined", "${nope:-dflt}", "dflt", nil},
		{"default when empty, as in the shell", "${empty:-dflt}", "dflt", nil},
		{"empty default", "[${nope:-}]", "[]", nil},
		{"default not used when defined", "${host:-dflt}", "h:80", nil},
		{"a default may contain colons and dashes", "${nope:-a:-b}", "a:-b", nil},
		{"substituted text is not scanned again", "${dollar}", "$${x}", nil},
		{"undefined, at the offset of its ${", "ab${nope}cd", "abcd", []varError{{2, "undefined nope"}}},
		{"every problem is reported", "${a1}-${a2}", "-", []varError{{0, "undefined a1"}, {6, "undefined a2"}}},
		{"unterminated", "x ${host", "x ", []varError{{2, "unterminated ${ (write $$ for a literal $)"}}},
		{"empty name", "${}", "", []varError{{0, "invalid variable reference ${}: a name is letters, digits and _, not starting with a digit"}}},
		{"name starting with a digit", "${1x}", "", []varError{{0, "invalid variable reference ${1x}: a name is letters, digits and _, not starting with a digit"}}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, errs := substitute(tc.in, lookup)
			if got != tc.want {
				t.Errorf("substitute(%q) = %q, want %q", tc.in, got, tc.want)
			}
			if diff := cmp.Diff(tc.errs, errs, cmp.AllowUnexported(varError{})); diff != "" {
				t.Errorf("errors (-want +got):\n%s", diff)
			}
		})
	}
}

func TestValidVarName(t *testing.T) {
	for name, want := range map[string]bool{
		"host": true, "_x": true, "A1_b": true, "concurrency": true,
		"": false, "1a": false, "a-b": false, "a.b": false, "a b": false, "ü": false,
	} {
		if got := validVarName(name); got != want {
			t.Errorf("validVarName(%q) = %v, want %v", name, got, want)
		}
	}
}

func TestParseSize(t *testing.T) {
	tests := []struct {
		in   string
		want int64
		ok   bool
	}{
		{"1048576", 1048576, true},
		{"10MiB", 10 << 20, true},
		{"512KiB", 512 << 10, true},
		{"64MB", 64_000_000, true},
		{"1GB", 1_000_000_000, true},
		{"1 GiB", 1 << 30, true},           // one space is allowed between number and unit
		{"1.5KiB", 1536, true},             // fractions of a unit
		{"0.5B", 0, true},                  // rounded down to whole bytes
		{"100B", 100, true},                // explicit bytes
		{"10mb", 0, false},                 // units are case-sensitive: mb would be millibits
		{"10 MiB/s", 0, false},             // a rate is not a size
		{"-1", 0, false},                   // no negative sizes
		{"", 0, false},                     // nothing
		{"9999999TiB", 0, false},           // overflows int64
		{"1e3", 0, false},                  // no exponents
		{"10  MiB", 0, false},              // at most one space
		{"99999999999999999999", 0, false}, // beyond int64
	}
	for _, tc := range tests {
		got, err := parseSize(tc.in)
		if (err == nil) != tc.ok || got != tc.want {
			t.Errorf("parseSize(%q) = %d, %v; want %d, ok=%v", tc.in, got, err, tc.want, tc.ok)
		}
	}
}
