package assertions

import (
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/google/go-cmp/cmp"

	"github.com/loadgate/loadgate/scenarios"
	"github.com/loadgate/loadgate/units"
)

func TestRewrite(t *testing.T) {
	tests := []struct {
		in   string
		want string
		durs map[int]time.Duration // rune offset in want → duration constant
		err  *literalError
	}{
		// The basic latency threshold: the literal becomes nanoseconds.
		{in: "p99 < 50ms", want: "p99 < 50000000", durs: map[int]time.Duration{6: 50 * time.Millisecond}},
		// Microseconds in ASCII, with the micro sign and with the Greek mu.
		{in: "200us", want: "200000", durs: map[int]time.Duration{0: 200 * time.Microsecond}},
		{in: "200µs", want: "200000", durs: map[int]time.Duration{0: 200 * time.Microsecond}},
		{in: "200μs", want: "200000", durs: map[int]time.Duration{0: 200 * time.Microsecond}},
		// Fractions, minutes, hours and nanoseconds.
		{in: "1.5s", want: "1500000000", durs: map[int]time.Duration{0: 1500 * time.Millisecond}},
		{in: "2m", want: "120000000000", durs: map[int]time.Duration{0: 2 * time.Minute}},
		{in: "1h", want: "3600000000000", durs: map[int]time.Duration{0: time.Hour}},
		{in: "10ns", want: "10", durs: map[int]time.Duration{0: 10}},
		// Compound durations, as Go writes them.
		{in: "1h30m", want: "5400000000000", durs: map[int]time.Duration{0: 90 * time.Minute}},
		// Digit separators are allowed, as in plain expr numbers.
		{in: "1_000ms", want: "1000000000", durs: map[int]time.Duration{0: time.Second}},
		// A leading-dot number takes a unit too.
		{in: "p50 > .5s", want: "p50 > 500000000", durs: map[int]time.Duration{6: 500 * time.Millisecond}},
		// Two durations: offsets follow the lengthened text.
		{in: "p50 > 1ms && p99 < 2ms", want: "p50 > 1000000 && p99 < 2000000",
			durs: map[int]time.Duration{6: time.Millisecond, 23: 2 * time.Millisecond}},
		// Binary sizes are powers of 1024.
		{in: "bytes_received > 512KiB", want: "bytes_received > 524288"},
		{in: "1GiB", want: "1073741824"},
		{in: "1.5KiB", want: "1536"},
		// Decimal sizes are powers of 1000, computed exactly.
		{in: "64MB", want: "64000000"},
		{in: "10KB", want: "10000"},
		// kB is KB, as a scenario's max_body: 512kB reads it.
		{in: "server.rss_max < 512kB", want: "server.rss_max < 512000"},
		{in: "1e3KB", want: "1000000"},
		{in: "1.1KB", want: "1100"},
		{in: "5B", want: "5"},
		// A percentage at the end of the rule.
		{in: "error_rate < 5%", want: "error_rate < 0.05"},
		// Small percentages stay exact decimals.
		{in: "error_rate < 0.1%", want: "error_rate < 0.001"},
		// A whole-number result is still written as a float.
		{in: "500%", want: "5.0"},
		// Percent before a closing bracket and commas.
		{in: `regressed("rps", 5%)`, want: `regressed("rps", 0.05)`},
		{in: "[5%, 10%]", want: "[0.05, 0.1]"},
		// Percent followed by space and a comparison or logical operator.
		{in: "5% > error_rate", want: "0.05 > error_rate"},
		{in: "error_rate < 1% && rps > 1", want: "error_rate < 0.01 && rps > 1"},
		{in: "error_rate < 1% and rps > 1", want: "error_rate < 0.01 and rps > 1"},
		// An operator right after the percent sign: percent, then minus.
		{in: "5%-1", want: "0.05-1"},
		// A keyword operator glued to the sign is kept apart from the number.
		{in: "1%or true", want: "0.01 or true"},
		// Modulo: spaced, glued to a number, to a bracket or to a name.
		{in: "10 % 3 == 1", want: "10 % 3 == 1"},
		{in: "10%3 == 1", want: "10%3 == 1"},
		{in: "10%(3) == 1", want: "10%(3) == 1"},
		{in: "requests%2 == 0", want: "requests%2 == 0"},
		{in: "10%requests", want: "10%requests"},
		// Strings are never touched, whatever their quotes.
		{in: `target == "50ms 5%"`, want: `target == "50ms 5%"`},
		{in: `target == '1h' || p99 < 1s`, want: `target == '1h' || p99 < 1000000000`,
			durs: map[int]time.Duration{24: time.Second}},
		{in: "target == `5%`", want: "target == `5%`"},
		// An escaped quote does not end the string early.
		{in: `target == "a\"5ms" && p99 < 1s`, want: `target == "a\"5ms" && p99 < 1000000000`,
			durs: map[int]time.Duration{28: time.Second}},
		// Comments are left alone too.
		{in: "p99 < 1s // not 5ms", want: "p99 < 1000000000 // not 5ms",
			durs: map[int]time.Duration{6: time.Second}},
		{in: "/* 5% */ rps > 1", want: "/* 5% */ rps > 1"},
		// Digits inside names are not numbers.
		{in: "p99 < p999", want: "p99 < p999"},
		// Plain numbers keep their meaning: floats, exponents, hex, ranges.
		{in: "p(99.9) < 1s", want: "p(99.9) < 1000000000", durs: map[int]time.Duration{10: time.Second}},
		{in: "rps > 1e3", want: "rps > 1e3"},
		{in: "requests > 0x1F", want: "requests > 0x1F"},
		{in: "requests in 1..5", want: "requests in 1..5"},
		// An unknown unit points at the literal's first character.
		{in: "p99 < 50xs", err: &literalError{Off: 6, Msg: `unknown unit "xs" in 50xs (` + units.Hint + ")"}},
		// A known unit with a malformed tail is a bad duration.
		{in: "p99 < 1h30x", err: &literalError{Off: 6, Msg: "invalid duration 1h30x"}},
		// Sizes are whole bytes and fit an int64.
		{in: "0.5B", err: &literalError{Off: 0, Msg: "invalid size 0.5B: not a whole number of bytes"}},
		{in: "x > 99999999999TiB", err: &literalError{Off: 4, Msg: "invalid size 99999999999TiB: out of range"}},
		// Out-of-range durations are refused, not wrapped.
		{in: "9999999999h", err: &literalError{Off: 0, Msg: "invalid duration 9999999999h"}},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			got, err := rewrite(tt.in)
			if diff := cmp.Diff(tt.err, err); diff != "" {
				t.Fatalf("error (-want +got):\n%s", diff)
			}
			if tt.err != nil {
				return
			}
			if got.Text != tt.want {
				t.Errorf("text = %q, want %q", got.Text, tt.want)
			}
			want := tt.durs
			if want == nil {
				want = map[int]time.Duration{}
			}
			if diff := cmp.Diff(want, got.Durations); diff != "" {
				t.Errorf("durations (-want +got):\n%s", diff)
			}
		})
	}
}

func TestRewritePercents(t *testing.T) {
	// Only numbers written with a percent sign are marked: 80 stays a
	// plain number, 10%3 stays modulo.
	got, err := rewrite("server.cpu < 80 && error_rate < 1.5% && requests%3 == 0 && x > 5%")
	if err != nil {
		t.Fatal(err)
	}
	const wantText = "server.cpu < 80 && error_rate < 0.015 && requests%3 == 0 && x > 0.05"
	if got.Text != wantText {
		t.Fatalf("text = %q, want %q", got.Text, wantText)
	}
	want := map[int]bool{32: true, 64: true}
	if diff := cmp.Diff(want, got.Percents); diff != "" {
		t.Errorf("percents (-want +got):\n%s", diff)
	}
}

func TestRewriteOrig(t *testing.T) {
	const src = "p99 < 50ms && error_rate < 1% && bogus"
	rw, err := rewrite(src)
	if err != nil {
		t.Fatal(err)
	}
	// "p99 < 50000000 && error_rate < 0.01 && bogus"
	tests := []struct {
		off, want int
	}{
		{0, 0},   // before any literal: unchanged
		{6, 6},   // the first digit of 50000000 is the 5 of 50ms
		{10, 6},  // inside the replacement: the literal's start
		{14, 10}, // just after it: shifted back by four runes
		{31, 27}, // the start of 0.01 is the start of 1%
		{39, 33}, // `bogus`, past both literals
		{44, 38}, // the end of the text maps to the end of the rule
	}
	for _, tt := range tests {
		if got := rw.Orig(tt.off); got != tt.want {
			t.Errorf("Orig(%d) = %d, want %d", tt.off, got, tt.want)
		}
	}
}

func FuzzRewrite(f *testing.F) {
	for _, s := range []string{
		"p99 < 50ms", "error_rate < 0.1%", "10 % 3", `target == "5%"`, "1h30m", "512KiB",
		"p(99.99) < 1.5s", "requests in 1..5", ".5s", "0x1F", "5%and", "`a``b` 5ms", "/* 5%", "'5ms",
		"requests_by_name[\"login\"].p99 < 200µs", "1e400%", "50xs", "9999999999999999999h",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, src string) {
		rw, err := rewrite(src)
		n := utf8.RuneCountInString(src)
		if err != nil {
			if err.Off < 0 || err.Off > n {
				t.Fatalf("error offset %d outside 0..%d", err.Off, n)
			}
			return
		}
		// The whole compile path must not panic either, and every error it
		// reports must land inside the rule.
		th := scenarios.Threshold{Rule: src, RulePos: scenarios.Pos{Line: 1, Col: 1}}
		_, errs := compileRule(th, &known{})
		lines := strings.Count(src, "\n") + 1
		for _, e := range errs {
			if e.Pos.Line < 1 || e.Pos.Line > lines || e.Pos.Col < 1 || e.Pos.Col > n+1 {
				t.Fatalf("error %v outside the rule %q", e, src)
			}
		}

		m := utf8.RuneCountInString(rw.Text)
		last := 0
		for off := 0; off <= m; off++ {
			o := rw.Orig(off)
			if o < 0 || o > n {
				t.Fatalf("Orig(%d) = %d outside 0..%d for %q → %q", off, o, n, src, rw.Text)
			}
			if o < last {
				t.Fatalf("Orig(%d) = %d goes back from %d", off, o, last)
			}
			last = o
		}
		for off := range rw.Durations {
			if off < 0 || off >= m {
				t.Fatalf("duration offset %d outside the text %q", off, rw.Text)
			}
		}
		for off := range rw.Percents {
			if off < 0 || off >= m {
				t.Fatalf("percent offset %d outside the text %q", off, rw.Text)
			}
		}
	})
}
