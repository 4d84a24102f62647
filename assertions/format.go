package assertions

import (
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/loadgate/loadgate/units"
)

// formatValue renders a value a rule read, for results.Verdict.Actual, in the
// style of a rule's literal (units.Actual). ok is false
// for values with no short rendering (whole structs, functions), which are
// left out rather than dumped.
func formatValue(v any) (s string, ok bool) {
	switch x := v.(type) {
	case nil:
		return "nil", true
	case time.Duration:
		return units.FormatDuration(x, units.Actual), true
	case float64:
		return units.FormatNumber(x, units.Actual), true
	case float32:
		return units.FormatNumber(float64(x), units.Actual), true
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
