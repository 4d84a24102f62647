package history

import (
	"math"
	"slices"
	"time"

	"github.com/loadgate/loadgate/units"
)

// Unit says how a metric's values read.
type Unit int

const (
	Count    Unit = iota // requests, dropped arrivals
	PerSec               // requests per second
	Duration             // nanoseconds
	Fraction             // 0–1: the error rate
	Percent              // percent of one core: the server's CPU
)

// MetricInfo is what the history knows about a metric: which way is
// better and how to print it.
type MetricInfo struct {
	Name           string
	HigherIsBetter bool
	Unit           Unit
}

// knownMetrics in the order every output lists them.
var knownMetrics = []MetricInfo{
	{"rps", true, PerSec},
	{"capacity", true, PerSec},
	{"p50", false, Duration},
	{"p90", false, Duration},
	{"p99", false, Duration},
	{"error_rate", false, Fraction},
	{"dropped", false, Count},
	{"server.cpu", false, Percent},
	{"requests", true, Count},
}

// InfoOf returns what is known of the metric named name; an unknown name
// is taken as a count where lower is better.
func InfoOf(name string) MetricInfo {
	if i := slices.IndexFunc(knownMetrics, func(m MetricInfo) bool { return m.Name == name }); i >= 0 {
		return knownMetrics[i]
	}
	return MetricInfo{Name: name, Unit: Count}
}

// MetricNames lists the metrics an entry can hold.
func MetricNames() []string {
	out := make([]string, len(knownMetrics))
	for i, m := range knownMetrics {
		out[i] = m.Name
	}
	return out
}

func metricOrder(name string) int {
	if i := slices.IndexFunc(knownMetrics, func(m MetricInfo) bool { return m.Name == name }); i >= 0 {
		return i
	}
	return len(knownMetrics)
}

// Format prints v in the metric's unit, e.g. "1.23ms", "4,567/s", "0.5%".
func (m MetricInfo) Format(v float64) string {
	switch m.Unit {
	case PerSec:
		return units.FormatNumber(v, units.Actual) + "/s"
	case Duration:
		return units.FormatDuration(time.Duration(math.Round(v)), units.Actual)
	case Fraction:
		return units.FormatNumber(v*100, units.Actual) + "%"
	case Percent:
		return units.FormatNumber(v, units.Actual) + "% CPU"
	}
	return units.FormatNumber(v, units.Actual)
}

// Worse reports whether a change of level from before to after is a
// change for the worse.
func (m MetricInfo) Worse(before, after float64) bool {
	if m.HigherIsBetter {
		return after < before
	}
	return after > before
}
