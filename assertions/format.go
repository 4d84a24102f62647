package assertions

import (
	"math"
	"slices"
	"strconv"
	"strings"
	"time"
)

// formatValue renders a value a rule read, for Verdict.Actual. ok is false
// for values with no short rendering (whole structs, functions), which are
// left out rather than dumped.
func formatValue(v any) (s string, ok bool) {
	switch x := v.(type) {
	case nil:
		return "nil", true
	case time.Duration:
		return formatDuration(x), true
	case float64:
		return formatFloat(x), true
	case float32:
		return formatFloat(float64(x)), true
	case int:
		return strconv.Itoa(x), true
	case int64:
		return strconv.FormatInt(x, 10), true
	case bool:
		return strconv.FormatBool(x), true
	case string:
		return strconv.Quote(x), true
	case map[string]any:
		// The matrix: short and worth seeing, keys sorted for stable output.
		keys := make([]string, 0, len(x))
		for k := range x {
			keys = append(keys, k)
		}
		slices.Sort(keys)
		parts := make([]string, 0, len(keys))
		for _, k := range keys {
			s, ok := formatValue(x[k])
			if !ok {
				return "", false
			}
			parts = append(parts, k+": "+s)
		}
		return "{" + strings.Join(parts, ", ") + "}", true
	}
	return "", false
}

// formatDuration renders d with three significant digits in the largest
// unit below it (850µs, 63.2ms, 1.25s), and whole seconds from a minute up
// (1m35s), since a latency's fourth digit is below the histogram's precision.
func formatDuration(d time.Duration) string {
	switch {
	case d == math.MinInt64:
		return d.String()
	case d < 0:
		return "-" + formatDuration(-d)
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

// formatFloat gives large values one decimal (rps = 1234.5) and small ones
// three significant digits (error_rate = 0.0123).
func formatFloat(f float64) string {
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

// formatSize renders a byte count in binary units with three significant
// digits (900B, 12.3MiB, 512MiB, 1.5GiB), the units rules write sizes in.
func formatSize(n int64) string {
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
