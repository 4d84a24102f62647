package units

import (
	"math"
	"testing"
	"time"
)

func TestFormatDuration(t *testing.T) {
	tests := []struct {
		in    time.Duration
		style Style
		want  string
	}{
		// A report's figure: the decimals of its magnitude, kept when zero.
		{0, Figure, "0"},                                               // no unit on nothing
		{-time.Millisecond, Figure, "0"},                               // no latency is negative
		{850, Figure, "0µs"},                                           // below a microsecond: whole microseconds
		{850 * time.Microsecond, Figure, "850µs"},                      //
		{999900 * time.Nanosecond, Figure, "999µs"},                    // truncated, never rounded into the next unit
		{1234 * time.Microsecond, Figure, "1.23ms"},                    // two decimals below 10ms
		{1500 * time.Microsecond, Figure, "1.50ms"},                    // trailing zero kept: the column lines up
		{63240 * time.Microsecond, Figure, "63.2ms"},                   // one decimal below a second
		{50 * time.Millisecond, Figure, "50.0ms"},                      //
		{1500 * time.Millisecond, Figure, "1.50s"},                     // two decimals below a minute
		{90 * time.Second, Figure, "1m30s"},                            // from a minute up: Go's whole seconds
		{2 * time.Minute, Figure, "2m0s"},                              // as Go writes it
		{95400 * time.Millisecond, Figure, "1m35s"},                    // rounded to the second
		{time.Duration(1<<63 - 1), Figure, "2562047h47m16.854775807s"}, // Round leaves the largest as it is
		// A verdict's actual value: three significant digits, as a rule writes it.
		{0, Actual, "0s"},                                    // zero has a unit, as in Go
		{850, Actual, "850ns"},                               // below a microsecond: whole nanoseconds
		{850 * time.Microsecond, Actual, "850µs"},            // three digits, no decimals needed
		{1234 * time.Microsecond, Actual, "1.23ms"},          // rounded to three significant digits
		{1500 * time.Microsecond, Actual, "1.5ms"},           // trailing zeros dropped
		{63231 * time.Microsecond, Actual, "63.2ms"},         // a histogram value's noise digits dropped
		{50 * time.Millisecond, Actual, "50ms"},              //
		{999600 * time.Nanosecond, Actual, "1ms"},            // rounding up moves to the next unit
		{1250 * time.Millisecond, Actual, "1.25s"},           // seconds
		{59960 * time.Millisecond, Actual, "1m"},             // rounds up into minutes
		{95400 * time.Millisecond, Actual, "1m35s"},          // from a minute up: whole seconds
		{2 * time.Hour, Actual, "2h"},                        // Go's 2h0m0s, as people write it
		{90 * time.Minute, Actual, "1h30m"},                  // Go's 1h30m0s, shortened
		{-1500 * time.Microsecond, Actual, "-1.5ms"},         // a difference keeps its sign
		{math.MinInt64, Actual, "-2562047h47m16.854775808s"}, // the smallest does not overflow on negation
		{time.Duration(1<<63 - 1), Actual, "2561111h6m40s"},  // the largest does not overflow rounding up
	}
	for _, tt := range tests {
		if got := FormatDuration(tt.in, tt.style); got != tt.want {
			t.Errorf("FormatDuration(%d, %v) = %q, want %q", int64(tt.in), tt.style, got, tt.want)
		}
	}
}

// TestActualDurationReadsAsALiteral checks the promise of Actual: what a
// verdict shows can be written back into a rule, and reads as the value
// shown to within its three significant digits.
func TestActualDurationReadsAsALiteral(t *testing.T) {
	for _, d := range []time.Duration{1, 999, 1234, 999_600, 63_231_000, 1_250_000_000, 59_960_000_000, 95_400_000_000, 7_200_000_000_000} {
		s := FormatDuration(d, Actual)
		back, err := ParseDuration(s)
		if err != nil {
			t.Errorf("FormatDuration(%d, Actual) = %q, which ParseDuration refuses: %v", int64(d), s, err)
			continue
		}
		// Three significant digits: within half a unit of the third,
		// and at most half a second from a minute up.
		tol := math.Max(float64(d)*0.005, 1)
		if d >= time.Minute {
			tol = float64(time.Second / 2)
		}
		if diff := math.Abs(float64(back - d)); diff > tol {
			t.Errorf("FormatDuration(%d, Actual) = %q reads back as %d, off by %v", int64(d), s, int64(back), time.Duration(diff))
		}
	}
}

func TestFormatNumber(t *testing.T) {
	tests := []struct {
		in    float64
		style Style
		want  string
	}{
		{0, Figure, "0.0"},             // always one decimal
		{0.04, Figure, "0.0"},          // below the tenths: 0
		{0.05, Figure, "0.1"},          // half up
		{1234.5, Figure, "1,234.5"},    // separators
		{5000, Figure, "5,000.0"},      // the decimal kept: the column lines up
		{8499.96, Figure, "8,500.0"},   // rounding carries into the whole part
		{-1234.5, Figure, "-1,234.5"},  // a sign before the separators
		{math.NaN(), Figure, "NaN"},    // not a number says so
		{math.Inf(1), Figure, "+Inf"},  //
		{1234.5, Actual, "1234.5"},     // rps: one decimal, no separators, as a rule writes it
		{5000, Actual, "5000"},         // whole: no decimal
		{12.345, Actual, "12.3"},       // small rates: three digits
		{0.012345, Actual, "0.0123"},   // error rates: three digits
		{0, Actual, "0"},               //
		{-250.25, Actual, "-250.2"},    // a difference keeps its sign
		{math.NaN(), Actual, "NaN"},    //
		{math.Inf(-1), Actual, "-Inf"}, //
	}
	for _, tt := range tests {
		if got := FormatNumber(tt.in, tt.style); got != tt.want {
			t.Errorf("FormatNumber(%v, %v) = %q, want %q", tt.in, tt.style, got, tt.want)
		}
	}
}

func TestFormatCount(t *testing.T) {
	tests := []struct {
		in   int64
		want string
	}{
		{0, "0"},
		{999, "999"},             // no separator below a thousand
		{1000, "1,000"},          //
		{1234567, "1,234,567"},   // every three digits
		{-1234567, "-1,234,567"}, // the sign before the digits
		{math.MinInt64, "-9,223,372,036,854,775,808"}, // the smallest
	}
	for _, tt := range tests {
		if got := FormatCount(tt.in); got != tt.want {
			t.Errorf("FormatCount(%d) = %q, want %q", tt.in, got, tt.want)
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
		if got := FormatSize(tt.in); got != tt.want {
			t.Errorf("FormatSize(%d) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

func TestFormatMiB(t *testing.T) {
	tests := []struct {
		in   int64
		want string
	}{
		{0, "0.0"},           // one decimal, always
		{12_900_000, "12.3"}, // no unit: the column's heading has it
		{600 << 20, "600.0"}, //
		{3 << 30, "3072.0"},  // still MiB: every row of a column in one unit
		{52_429, "0.1"},      // rounded to the tenth (0.05MiB)
	}
	for _, tt := range tests {
		if got := FormatMiB(tt.in); got != tt.want {
			t.Errorf("FormatMiB(%d) = %q, want %q", tt.in, got, tt.want)
		}
	}
}
