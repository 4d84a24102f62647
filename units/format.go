package units

import (
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"
)

// Style is who reads a formatted value, which decides its digits. A
// report's tables and a verdict's actual value show the same latencies
// differently on purpose, and both spellings are kept here side by side.
type Style int

const (
	// Figure is a measurement in a report (a table cell, a summary line,
	// a sentence about a phase), read beside the same figure of other
	// cases and runs: a fixed number of decimals for each magnitude
	// (1.50ms, 12.3ms, 1.25s, whole microseconds) and thousands
	// separators (12,345.6), so that figures of one magnitude take the
	// same room and line up. Zero is 0 and a negative duration, which no
	// latency is, is 0 too.
	Figure Style = iota
	// Actual is a value a rule read, shown in its verdict beside the
	// rule's own bound: spelled as a rule writes a literal, with three
	// significant digits and no trailing zeros (1.5ms, 50ms, 2m, 1234.5,
	// 0.0123), since a fourth digit is below the histogram's precision.
	// A negative value, a difference, keeps its sign.
	Actual
)

// FormatDuration renders d for a reader of style s: Figure gives 850µs,
// 1.23ms, 63.2ms, 1.50s, 1m30s; Actual gives 850ns, 850µs, 1.23ms, 50ms,
// 1.25s, 1m35s, 2m, 1h30m.
func FormatDuration(d time.Duration, s Style) string {
	if s == Actual {
		return actualDuration(d)
	}
	return figureDuration(d)
}

// figureDuration is a latency in the unit people read latencies in, with
// the decimals of its magnitude; Duration.String prints nanosecond noise.
func figureDuration(d time.Duration) string {
	switch {
	case d <= 0:
		return "0"
	case d < time.Millisecond:
		return strconv.FormatInt(int64(d/time.Microsecond), 10) + "µs"
	case d < 10*time.Millisecond:
		return fmt.Sprintf("%.2fms", float64(d)/float64(time.Millisecond))
	case d < time.Second:
		return fmt.Sprintf("%.1fms", float64(d)/float64(time.Millisecond))
	case d < time.Minute:
		return fmt.Sprintf("%.2fs", d.Seconds())
	default:
		return d.Round(time.Second).String()
	}
}

// actualDuration is d with three significant digits in the largest unit
// below it, and whole seconds from a minute up.
func actualDuration(d time.Duration) string {
	switch {
	case d == math.MinInt64:
		return d.String()
	case d < 0:
		return "-" + actualDuration(-d)
	case d == 0:
		return "0s"
	}
	d = roundSignificant(d, 3)
	switch {
	case d < time.Microsecond:
		return strconv.FormatInt(int64(d), 10) + "ns"
	case d < time.Millisecond:
		return scaled(d, time.Microsecond) + "µs"
	case d < time.Second:
		return scaled(d, time.Millisecond) + "ms"
	case d < time.Minute:
		return scaled(d, time.Second) + "s"
	}
	s := d.Round(time.Second).String()
	// Go writes 2m0s and 1h0m0s; people write 2m and 1h.
	if t, ok := strings.CutSuffix(s, "m0s"); ok {
		s = t + "m"
		if t, ok := strings.CutSuffix(s, "h0m"); ok {
			s = t + "h"
		}
	}
	return s
}

// roundSignificant rounds a positive d, half up, to n significant digits.
func roundSignificant(d time.Duration, n int) time.Duration {
	digits := len(strconv.FormatInt(int64(d), 10))
	if digits <= n {
		return d
	}
	p := int64(1)
	for range digits - n {
		p *= 10
	}
	v := int64(d)
	r := v / p * p
	if v-r >= p/2 && r <= math.MaxInt64-p {
		r += p
	}
	return time.Duration(r)
}

func scaled(d, unit time.Duration) string {
	return strconv.FormatFloat(float64(d)/float64(unit), 'f', -1, 64)
}

// FormatNumber renders f for a reader of style s. Figure gives one
// decimal with thousands separators (8,500.0, 0.0), the resolution a
// report gives rates; Actual gives large values one decimal, dropped when
// it is zero (1234.5, 5000), and small ones three significant digits
// (12.3, 0.0123), so that an error rate keeps its digits.
func FormatNumber(f float64, s Style) string {
	if s == Actual {
		return actualNumber(f)
	}
	return figureNumber(f)
}

// figureNumber rounds the tenths half up by hand so that 8499.96 reads
// 8,500.0 with its separator.
func figureNumber(f float64) string {
	switch {
	case math.IsNaN(f) || math.IsInf(f, 0):
		return strconv.FormatFloat(f, 'f', -1, 64)
	case f < 0:
		return "-" + figureNumber(-f)
	}
	whole := int64(f)
	frac := int64((f-float64(whole))*10 + 0.5)
	if frac == 10 {
		whole, frac = whole+1, 0
	}
	return FormatCount(whole) + "." + strconv.FormatInt(frac, 10)
}

func actualNumber(f float64) string {
	switch {
	case f == 0:
		return "0"
	case math.IsNaN(f) || math.IsInf(f, 0):
		return strconv.FormatFloat(f, 'g', -1, 64)
	case math.Abs(f) >= 100:
		s := strconv.FormatFloat(f, 'f', 1, 64)
		return strings.TrimSuffix(s, ".0")
	}
	return strconv.FormatFloat(f, 'g', 3, 64)
}

// FormatCount renders an integer with thousands separators (1,234,567), so
// that large request counts can be read at a glance.
func FormatCount(n int64) string {
	s := strconv.FormatInt(n, 10)
	neg := strings.HasPrefix(s, "-")
	if neg {
		s = s[1:]
	}
	var b strings.Builder
	if neg {
		b.WriteByte('-')
	}
	for i, r := range s {
		if i > 0 && (len(s)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(r)
	}
	return b.String()
}

// FormatSize renders a byte count as a rule writes a size: in binary
// units with three significant digits (900B, 12.3MiB, 512MiB, 1.5GiB). A
// negative count, a difference, keeps its sign.
func FormatSize(n int64) string {
	sign := ""
	if n < 0 {
		sign = "-"
	}
	x := math.Abs(float64(n))
	if x < 1024 {
		return sign + strconv.FormatFloat(x, 'f', 0, 64) + "B"
	}
	units := []string{"KiB", "MiB", "GiB", "TiB", "PiB", "EiB"}
	u := 0
	// 1023.6KiB would print as 1024KiB; it is 1MiB.
	for x /= 1024; x >= 1023.5 && u+1 < len(units); u++ {
		x /= 1024
	}
	if x >= 100 {
		return sign + strconv.FormatFloat(x, 'f', 0, 64) + units[u]
	}
	return sign + strconv.FormatFloat(x, 'g', 3, 64) + units[u]
}

// FormatMiB renders a byte count in MiB with one decimal and without the
// unit (12.3), for a report's memory column, whose heading names the unit
// once so that every row of it compares in the same one.
func FormatMiB(n int64) string { return strconv.FormatFloat(float64(n)/(1<<20), 'f', 1, 64) }

// FormatRate writes a request rate as users write it in a scenario: whole
// numbers without a fraction, others to a tenth ("250/s", "12.5/s").
func FormatRate(r float64) string {
	if r == math.Trunc(r) {
		return fmt.Sprintf("%.0f/s", r)
	}
	return fmt.Sprintf("%.1f/s", r)
}
