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
