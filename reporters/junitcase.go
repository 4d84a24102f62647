package reporters

import (
	"strings"
	"time"

	"github.com/loadgate/loadgate/scenarios"
)

// JUnitOptions are the choices about the JUnit document that the strict Ant
// schema leaves no room for. The zero value writes what WriteJUnit writes.
type JUnitOptions struct {
	// SourceAttrs adds file and line attributes to every testcase: the
	// scenario file, and the line of the threshold's rule when the testcase
	// is one threshold's verdict. Reporters that read them
	// (mikepenz/action-junit-report, EnricoMi/publish-unit-test-result-action,
	// GitLab) then point at the YAML instead of guessing a source file; the
	// Ant schema forbids them, hence off by default.
	SourceAttrs bool
}

// junitClassname names the class of a testcase after its scenario and
// target: "scenario › target", and "loadgate › scenario" for a testcase
// about the whole scenario. JUnit readers take a classname for a dotted
// Java class and guess a source file from its last segment
// (mikepenz/action-junit-report globs **/<segment>.* in the workspace, and
// annotated cmd/loadgate/main.go for a target named main), so the name has
// a separator no file name has and no dot: a dot in a scenario or target
// name is written as U+2024 ONE DOT LEADER, which reads the same.
func junitClassname(scenario, target string) string {
	name := oneLine(scenario) + " › " + oneLine(target)
	if oneLine(target) == "" {
		name = "loadgate › " + oneLine(scenario)
	}
	return strings.ReplaceAll(name, ".", "\u2024")
}

// junitSource returns the file and line attributes of a testcase at p, or
// of a testcase about the whole scenario (line 0, left out) when p has no
// line. Both are left out without --junit-source-attrs or without a file.
func (o JUnitOptions) junitSource(p scenarios.Pos, file string) (string, int) {
	if !o.SourceAttrs {
		return "", 0
	}
	if p.File != "" {
		return p.File, p.Line
	}
	return file, 0
}

// junitSetTimes shares the scenario's wall time out among its testcases so
// that their times add up to the suite's time, as JUnit readers add them:
// each case's share is in proportion to its measured time and goes to its
// first testcase (the others of the case get 0), so that a case judged by
// four thresholds is not counted four times. The time of warm-ups and
// server starts is part of the shares; a suite whose cases measured
// nothing gives its whole time to its first testcase. Shares are whole
// milliseconds, rounded so that they still add up exactly.
func junitSetTimes(s *junitSuite, wall time.Duration, caseOf []string, measured map[string]time.Duration) {
	total := wall.Round(time.Millisecond)
	first := map[string]int{} // case ID → index of its first testcase
	var order []string
	var sum time.Duration
	for i, id := range caseOf {
		if _, seen := first[id]; id == "" || seen {
			continue
		}
		first[id] = i
		order = append(order, id)
		sum += max(measured[id], 0)
	}
	if total <= 0 {
		total = sum.Round(time.Millisecond)
	}
	share := make([]time.Duration, len(s.Cases))
	if sum > 0 {
		// Cumulative rounding: every share is rounded, their sum is not.
		var cum time.Duration
		given := time.Duration(0)
		for _, id := range order {
			cum += max(measured[id], 0)
			upTo := time.Duration(float64(total) * float64(cum) / float64(sum)).Round(time.Millisecond)
			share[first[id]] = upTo - given
			given = upTo
		}
	} else if len(share) > 0 {
		share[0] = total
	}
	for i := range s.Cases {
		s.Cases[i].Time = fmtSeconds(share[i])
	}
	s.Time = fmtSeconds(total)
}
