package results

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestCountersMergeSumsStatuses(t *testing.T) {
	var c Counters
	c.Merge(Counters{StatusCodes: map[string]int64{"200": 3, "503": 1}})
	c.Merge(Counters{})
	c.Merge(Counters{StatusCodes: map[string]int64{"200": 2, "other": 1}})
	if diff := cmp.Diff(map[string]int64{"200": 5, "503": 1, "other": 1}, c.StatusCodes); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
	var order []string
	c.EachStatus(func(code string, n int64) { order = append(order, code) })
	if got := strings.Join(order, " "); got != "200 503 other" {
		t.Errorf("EachStatus order = %q, want numeric with other last", got)
	}
	if got := c.Non2xx(); got != 2 {
		t.Errorf("Non2xx = %d, want 2 (503 and other)", got)
	}
}
