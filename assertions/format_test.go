package assertions

import (
	"math"
	"testing"
	"time"
)

func TestFormatDuration(t *testing.T) {
	tests := []struct {
		in   time.Duration
		want string
	}{
		{0, "0s"},                                   // zero has a unit, as in Go
		{850, "850ns"},                              // below a microsecond: whole nanoseconds
		{850 * time.Microsecond, "850µs"},           // three digits, no decimals needed
		{1234 * time.Microsecond, "1.23ms"},         // rounded to three significant digits
		{63231 * time.Microsecond, "63.2ms"},        // a histogram value's noise digits dropped
		{50 * time.Millisecond, "50ms"},             // trailing zeros dropped
		{999600 * time.Nanosecond, "1ms"},           // rounding up moves to the next unit
		{1250 * time.Millisecond, "1.25s"},          // seconds
		{59960 * time.Millisecond, "1m"},            // rounds up into minutes
		{95400 * time.Millisecond, "1m35s"},         // from a minute up: whole seconds
		{2 * time.Hour, "2h"},                       // Go's 2h0m0s, as people write it
		{90 * time.Minute, "1h30m"},                 // Go's 1h30m0s, shortened
		{-1500 * time.Microsecond, "-1.5ms"},        // negative values keep their sign
		{time.Duration(1<<63 - 1), "2561111h6m40s"}, // the largest duration does not overflow
	}
	for _, tt := range tests {
		if got := formatDuration(tt.in); got != tt.want {
			t.Errorf("formatDuration(%d) = %q, want %q", int64(tt.in), got, tt.want)
		}
	}
}

func TestFormatSize(t *testing.T) {
	tests := []struct {
		in   int64
		want string
	}{
		{0, "0B"},
		{900, "900B"},            // below a KiB: whole bytes
		{1536, "1.5KiB"},         // binary units, as in rules
		{12_900_000, "12.3MiB"},  // three significant digits
		{512 << 20, "512MiB"},    // trailing zeros dropped
		{1024<<20 - 100, "1GiB"}, // 1023.99MiB rounds into the next unit
		{3 << 40, "3TiB"},        // terabytes
		{-2048, "-2KiB"},         // a negative difference keeps its sign
		{math.MinInt64, "-8EiB"}, // the smallest int64 does not overflow
	}
	for _, tt := range tests {
		if got := formatSize(tt.in); got != tt.want {
			t.Errorf("formatSize(%d) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

func TestFormatValue(t *testing.T) {
	tests := []struct {
		in   any
		want string
		ok   bool
	}{
		{1234.5, "1234.5", true},           // rps: one decimal
		{5000.0, "5000", true},             // whole rps: no decimal
		{12.345, "12.3", true},             // small rates: three digits
		{0.012345, "0.0123", true},         // error rates: three digits
		{0.0, "0", true},                   // zero
		{int64(42), "42", true},            // counters
		{"keepalive", `"keepalive"`, true}, // strings quoted, as in rules
		{true, "true", true},               // booleans
		{nil, "nil", true},                 // e.g. a missing matrix value
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
