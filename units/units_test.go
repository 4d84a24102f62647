package units

import (
	"errors"
	"math"
	"strconv"
	"testing"
	"time"
)

func TestParseSize(t *testing.T) {
	tests := []struct {
		in   string
		want int64
		err  error
	}{
		{"1048576", 1048576, nil},                    // a number alone is bytes
		{"100B", 100, nil},                           // explicit bytes
		{"512kB", 512_000, nil},                      // decimal kilo, SI spelling
		{"512KB", 512_000, nil},                      // decimal kilo, common spelling: the same
		{"64MB", 64_000_000, nil},                    // powers of 1000
		{"1GB", 1_000_000_000, nil},                  //
		{"2TB", 2_000_000_000_000, nil},              //
		{"512KiB", 512 << 10, nil},                   // powers of 1024
		{"10MiB", 10 << 20, nil},                     //
		{"1GiB", 1 << 30, nil},                       //
		{"1TiB", 1 << 40, nil},                       //
		{"1 GiB", 1 << 30, nil},                      // one space between number and unit
		{"1.5KiB", 1536, nil},                        // fractions of a unit
		{"1.1kB", 1100, nil},                         // computed exactly, not 1100.0000000000002
		{".5KiB", 512, nil},                          // a leading point, as in rates
		{"1e3", 1000, nil},                           // exponents, as in rates
		{"1e3KB", 1_000_000, nil},                    //
		{"0", 0, nil},                                //
		{"0.5B", 0, ErrFraction},                     // bytes are whole
		{"1.5", 0, ErrFraction},                      // even without a unit
		{"10mb", 0, ErrUnit},                         // case-sensitive: mb would be millibits
		{"10kiB", 0, ErrUnit},                        // there is no kiB
		{"10 MiB/s", 0, ErrUnit},                     // a rate is not a size
		{"-1", 0, ErrSyntax},                         // no negative sizes
		{"", 0, ErrSyntax},                           // nothing
		{"MiB", 0, ErrSyntax},                        // a unit without a number
		{"10 ", 0, ErrSyntax},                        // a space without a unit
		{"10  MiB", 0, ErrSyntax},                    // at most one space
		{" 10MiB", 0, ErrSyntax},                     // no leading space
		{"1_000", 0, ErrSyntax},                      // no digit separators
		{"0x10", 0, ErrSyntax},                       // no hexadecimal
		{"9999999TiB", 0, ErrRange},                  // overflows int64
		{"99999999999999999999", 0, ErrRange},        // beyond int64
		{"1e401", 0, ErrRange},                       // exponents are bounded
		{"9223372036854775807B", math.MaxInt64, nil}, // the largest
	}
	for _, tt := range tests {
		got, err := ParseSize(tt.in)
		if got != tt.want || !errors.Is(err, tt.err) || (err == nil) != (tt.err == nil) {
			t.Errorf("ParseSize(%q) = %d, %v; want %d, %v", tt.in, got, err, tt.want, tt.err)
		}
	}
}

func TestParseDuration(t *testing.T) {
	tests := []struct {
		in   string
		want time.Duration
		err  error
	}{
		{"500ms", 500 * time.Millisecond, nil}, //
		{"1m30s", 90 * time.Second, nil},       // compound
		{"1.5s", 1500 * time.Millisecond, nil}, // fractions
		{"200µs", 200 * time.Microsecond, nil}, // micro sign
		{"200μs", 200 * time.Microsecond, nil}, // Greek mu
		{"200us", 200 * time.Microsecond, nil}, // ASCII
		{"0", 0, nil},                          // zero needs no unit
		{"0.0", 0, nil},                        //
		{"30", 0, ErrNoUnit},                   // seconds or milliseconds? ask
		{"1.5", 0, ErrNoUnit},                  //
		{"-5s", 0, ErrNegative},                //
		{"5xs", 0, ErrSyntax},                  // unknown unit
		{"5 s", 0, ErrSyntax},                  // no space in a duration
		{"", 0, ErrSyntax},                     //
		{"1e3ms", 0, ErrSyntax},                // Go has no exponents in durations
		{"9999999999999999999h", 0, ErrSyntax}, // overflow
		{"1d", 0, ErrSyntax},                   // no days
	}
	for _, tt := range tests {
		got, err := ParseDuration(tt.in)
		if got != tt.want || !errors.Is(err, tt.err) || (err == nil) != (tt.err == nil) {
			t.Errorf("ParseDuration(%q) = %v, %v; want %v, %v", tt.in, got, err, tt.want, tt.err)
		}
	}
}

func TestParsePercent(t *testing.T) {
	tests := []struct {
		in   string
		want float64
		err  error
	}{
		{"5%", 0.05, nil},      //
		{"0.1%", 0.001, nil},   // exact: not 0.1/100 in floating point
		{"99.9%", 0.999, nil},  //
		{"500%", 5, nil},       // above 100% is a number like any other
		{"5 %", 0.05, nil},     // one space, as sizes allow
		{"1e-1%", 0.001, nil},  // exponents
		{"5", 0, ErrSyntax},    // the sign is what makes it a percentage
		{"%", 0, ErrSyntax},    //
		{"5  %", 0, ErrSyntax}, // at most one space
		{"-5%", 0, ErrSyntax},  // no sign
		{"1e999%", 0, ErrRange},
	}
	for _, tt := range tests {
		got, err := ParsePercent(tt.in)
		if got != tt.want || !errors.Is(err, tt.err) || (err == nil) != (tt.err == nil) {
			t.Errorf("ParsePercent(%q) = %v, %v; want %v, %v", tt.in, got, err, tt.want, tt.err)
		}
	}
}

// TestTableAgreesWithHint keeps the message that lists the units in step
// with the table that accepts them.
func TestTableAgreesWithHint(t *testing.T) {
	want := "durations:"
	for _, u := range durationUnits {
		if u != "μs" { // the Greek mu is listed once, as µ
			want += " " + u
		}
	}
	want += "; sizes:"
	for _, u := range SizeUnits {
		want += " " + u.Name
	}
	if Hint != want {
		t.Errorf("Hint = %q, want %q", Hint, want)
	}
}

// FuzzParse checks that no input makes a parser panic, and that what
// ParseSize accepts reads back the same when printed in bytes.
func FuzzParse(f *testing.F) {
	for _, s := range []string{"512kB", "1.5 KiB", "0.5B", "1e3KB", "9999999TiB", "1m30s", "-5s", "5%", "0.1 %", "1e401", ".5", ""} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if n, err := ParseSize(s); err == nil {
			if n < 0 {
				t.Fatalf("ParseSize(%q) = %d, negative", s, n)
			}
			if back, err := ParseSize(strconv.FormatInt(n, 10) + "B"); err != nil || back != n {
				t.Fatalf("ParseSize(%q) = %d, but %dB reads %d, %v", s, n, n, back, err)
			}
		}
		if d, err := ParseDuration(s); err == nil && d < 0 {
			t.Fatalf("ParseDuration(%q) = %v, negative", s, d)
		}
		if p, err := ParsePercent(s); err == nil && (p < 0 || math.IsNaN(p)) {
			t.Fatalf("ParsePercent(%q) = %v", s, p)
		}
	})
}
