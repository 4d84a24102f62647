package runner

import (
	"strconv"

	"github.com/loadgate/loadgate/results"
	"github.com/loadgate/loadgate/scenarios"
)

// Status codes are counted the way ab counts non-2xx responses and
// Artillery http.codes.*: per code, every response that arrived, whether
// or not expect accepted it. Only HTTP targets (HTTP/1.1, HTTP/2 and their
// flows) count them; a gRPC call's status is a gRPC code, counted by name
// among the failures (errors.grpc), and TCP and WebSocket have no status.

// countsStatus reports whether t's responses carry an HTTP status code.
func countsStatus(t *scenarios.Target) bool { return t.HTTP != nil }

// statusCounts is the hot path's count of status codes: a fixed array,
// so that counting a response never allocates. Index code-minStatus holds
// code's count; the last slot counts every other code.
type statusCounts [results.MaxStatus - results.MinStatus + 2]int64

// statusNames are the map keys of every slot, made once so that moving
// counts into a map allocates no key strings.
var statusNames = func() (names [len(statusCounts{})]string) {
	for i := range names {
		names[i] = strconv.Itoa(results.MinStatus + i)
	}
	names[len(names)-1] = results.StatusOther
	return names
}()

// add counts one response with status code.
func (s *statusCounts) add(code int) {
	i := code - results.MinStatus
	if code < results.MinStatus || code > results.MaxStatus {
		i = len(s) - 1
	}
	s[i]++
}

// moveTo adds every non-zero count to m (made when needed) and zeroes s.
func (s *statusCounts) moveTo(m *map[string]int64) {
	for i, n := range s {
		if n == 0 {
			continue
		}
		if *m == nil {
			*m = map[string]int64{}
		}
		(*m)[statusNames[i]] += n
		s[i] = 0
	}
}
