// Package units is the one table of the units loadgate reads: sizes,
// durations and percentages, as written in a scenario file (`max_body:
// 512kB`, `timeout: 2s`, `precision: 5%`) and in a rule (`server.rss_max <
// 512kB`, `p99 < 50ms`, `error_rate < 1%`). Both read them through this
// package, so a spelling accepted in one place is accepted in the other.
// Reports and verdicts write them through it too (format.go), in one of
// two styles: a report's figure, or a verdict's actual value as a rule
// would write it.
//
// A number is written in decimal, with an optional fraction and exponent
// (`512`, `1.5`, `.5`, `1e3`). Size units are case-sensitive: decimal ones
// are powers of 1000 (kB = KB = 1000 bytes, as in IEC 80000-13), binary
// ones powers of 1024 (KiB = 1024 bytes). Durations use Go's syntax
// (time.ParseDuration). A percentage is a number followed by `%`, read as
// the fraction it stands for: 5% is 0.05.
package units

import (
	"errors"
	"math/big"
	"regexp"
	"strconv"
	"strings"
	"time"
)

// The reasons a literal is refused. Callers wrap them with what they were
// reading and where; the texts are short enough to follow "invalid size
// 0.5B: ".
var (
	ErrSyntax   = errors.New("not a number")                // malformed number or literal
	ErrUnit     = errors.New("unknown unit")                // a unit outside the table
	ErrFraction = errors.New("not a whole number of bytes") // a size that splits a byte
	ErrRange    = errors.New("out of range")                // beyond int64 (bytes or nanoseconds)
	ErrNoUnit   = errors.New("a number needs a unit")       // a bare non-zero duration
	ErrNegative = errors.New("must not be negative")        // a negative duration
)

// SizeUnit is one row of the size table.
type SizeUnit struct {
	Name  string
	Bytes int64
}

// SizeUnits is the size table, in the order messages and documentation
// list it. Decimal units first: kB and KB are both 1000 bytes, since tools
// write either; there is no kiB.
var SizeUnits = []SizeUnit{
	{"B", 1},
	{"kB", 1000}, {"KB", 1000},
	{"MB", 1000 * 1000},
	{"GB", 1000 * 1000 * 1000},
	{"TB", 1000 * 1000 * 1000 * 1000},
	{"KiB", 1 << 10},
	{"MiB", 1 << 20},
	{"GiB", 1 << 30},
	{"TiB", 1 << 40},
}

// durationUnits are Go's duration units, both spellings of micro included.
var durationUnits = []string{"ns", "us", "µs", "μs", "ms", "s", "m", "h"}

// Hint lists every unit, for messages about one that is not.
const Hint = "durations: ns us µs ms s m h; sizes: B kB KB MB GB TB KiB MiB GiB TiB"

// UnitBytes is the number of bytes in size unit name; false when name is
// not a size unit.
func UnitBytes(name string) (int64, bool) {
	for _, u := range SizeUnits {
		if u.Name == name {
			return u.Bytes, true
		}
	}
	return 0, false
}

// IsDurationUnit reports whether name is one of Go's duration units (ns,
// us, µs, μs, ms, s, m, h).
func IsDurationUnit(name string) bool {
	for _, u := range durationUnits {
		if u == name {
			return true
		}
	}
	return false
}

// number is the syntax of every number in a literal.
var number = regexp.MustCompile(`^([0-9]+(\.[0-9]*)?|\.[0-9]+)([eE][-+]?[0-9]+)?$`)

// exact reads a decimal number as an exact rational, so that 1.1kB is 1100
// bytes and not 1100.0000000000002. Exponents are bounded because big.Rat
// would otherwise build 10^n for any n a file dares to write.
func exact(num string) (*big.Rat, error) {
	if !number.MatchString(num) {
		return nil, ErrSyntax
	}
	if i := strings.IndexAny(num, "eE"); i >= 0 {
		if exp, err := strconv.Atoi(num[i+1:]); err != nil || exp < -400 || exp > 400 {
			return nil, ErrRange
		}
	}
	q, ok := new(big.Rat).SetString(num)
	if !ok {
		return nil, ErrSyntax
	}
	return q, nil
}

// Size is num units of size unit, in bytes: num is a decimal number, an
// exponent allowed (1.5e3), read exactly; unit is a name from SizeUnits
// ("" for bytes).
func Size(num, unit string) (int64, error) {
	per, ok := int64(1), unit == ""
	if !ok {
		if per, ok = UnitBytes(unit); !ok {
			return 0, ErrUnit
		}
	}
	q, err := exact(num)
	if err != nil {
		return 0, err
	}
	q.Mul(q, new(big.Rat).SetInt64(per))
	switch {
	case !q.IsInt():
		return 0, ErrFraction
	case !q.Num().IsInt64():
		return 0, ErrRange
	}
	return q.Num().Int64(), nil
}

// ParseSize reads a byte count as a scenario writes it: a number, then
// optionally one space and a unit of SizeUnits; a number alone is bytes.
// "512KiB" is 524288, "1.5 kB" 1500, "0.5B" an error (ErrFraction).
func ParseSize(s string) (int64, error) {
	num, unit := splitUnit(s)
	if strings.HasSuffix(num, " ") {
		if unit == "" {
			return 0, ErrSyntax
		}
		num = num[:len(num)-1]
	}
	return Size(num, unit)
}

// splitUnit cuts s before its trailing letters.
func splitUnit(s string) (num, unit string) {
	i := len(s)
	for i > 0 && isLetter(s[i-1]) {
		i--
	}
	return s[:i], s[i:]
}

func isLetter(c byte) bool { return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' }

// ParseDuration reads a duration in Go's syntax ("500ms", "1m30s"). A
// bare number other than 0 is refused (ErrNoUnit), since tools disagree on
// whether it means seconds or milliseconds; so is a negative duration
// (ErrNegative). Anything else Go refuses, overflow included, is ErrSyntax.
func ParseDuration(s string) (time.Duration, error) {
	if number.MatchString(s) && !strings.ContainsAny(s, "eE") {
		if strings.Trim(s, "0.") != "" {
			return 0, ErrNoUnit
		}
		return 0, nil
	}
	d, err := time.ParseDuration(s)
	switch {
	case err != nil:
		return 0, ErrSyntax
	case d < 0:
		return 0, ErrNegative
	}
	return d, nil
}

// Percent is num percent as a fraction: "5" gives 0.05, computed exactly
// before rounding to float64 once.
func Percent(num string) (float64, error) {
	q, err := exact(num)
	if err != nil {
		return 0, err
	}
	f, _ := q.Quo(q, big.NewRat(100, 1)).Float64()
	return f, nil
}

// ParsePercent reads a percentage as a scenario writes it, "5%" or "5 %",
// and returns the fraction (0.05).
func ParsePercent(s string) (float64, error) {
	num, ok := strings.CutSuffix(s, "%")
	if !ok {
		return 0, ErrSyntax
	}
	return Percent(strings.TrimSuffix(num, " "))
}
