package assertions

import (
	"testing"
	"time"
)

func TestFormatValue(t *testing.T) {
	tests := []struct {
		in   any
		want string
		ok   bool
	}{
		{63231 * time.Microsecond, "63.2ms", true}, // latencies as a rule writes them (units.Actual)
		{1500 * time.Microsecond, "1.5ms", true},   // not a report's 1.50ms
		{1234.5, "1234.5", true},                   // rps: one decimal
		{5000.0, "5000", true},                     // whole rps: no decimal
		{12.345, "12.3", true},                     // small rates: three digits
		{0.012345, "0.0123", true},                 // error rates: three digits
		{0.0, "0", true},                           // zero
		{int64(42), "42", true},                    // counters
		{"keepalive", `"keepalive"`, true},         // strings quoted, as in rules
		{true, "true", true},                       // booleans
		{nil, "nil", true},                         // e.g. a missing matrix value
		{map[string]any{"b": int64(2), "a": "x"}, `{a: "x", b: 2}`, true}, // the matrix, sorted
		{Metrics{}, "", false}, // whole structs are not shown
		{func() {}, "", false}, // nor functions
	}
	for _, tt := range tests {
		got, ok := formatValue(tt.in)
		if got != tt.want || ok != tt.ok {
			t.Errorf("formatValue(%#v) = %q, %v; want %q, %v", tt.in, got, ok, tt.want, tt.ok)
		}
	}
}
