package runner

import (
	"cmp"
	"maps"
	"slices"
	"strconv"

	"github.com/loadgate/loadgate/scenarios"
)

// Status codes are counted the way ab counts non-2xx responses and
// Artillery http.codes.*: per code, every response that arrived, whether
// or not expect accepted it. Only HTTP targets (HTTP/1.1, HTTP/2 and their
// flows) count them; a gRPC call's status is a gRPC code, counted by name
// among the failures (errors.grpc), and TCP and WebSocket have no status.

// countsStatus reports whether t's responses carry an HTTP status code.
func countsStatus(t *scenarios.Target) bool { return t.HTTP != nil }

// The codes counted one by one; any other (a server may send 999) is
// counted under StatusOther.
const (
	minStatus = 100
	maxStatus = 599
)

// StatusOther is the key of StatusCodes that counts codes outside
// 100–599.
const StatusOther = "other"

// statusCounts is the hot path's count of status codes: a fixed array,
// so that counting a response never allocates. Index code-minStatus holds
// code's count; the last slot counts every other code.
type statusCounts [maxStatus - minStatus + 2]int64

// statusNames are the map keys of every slot, made once so that moving
// counts into a map allocates no key strings.
var statusNames = func() (names [len(statusCounts{})]string) {
	for i := range names {
		names[i] = strconv.Itoa(minStatus + i)
	}
	names[len(names)-1] = StatusOther
	return names
}()

// add counts one response with status code.
func (s *statusCounts) add(code int) {
	i := code - minStatus
	if code < minStatus || code > maxStatus {
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

// mergeStatus adds src's counts to dst, making dst when src has any.
func mergeStatus(dst *map[string]int64, src map[string]int64) {
	for code, n := range src {
		if *dst == nil {
			*dst = make(map[string]int64, len(src))
		}
		(*dst)[code] += n
	}
}

// EachStatus calls fn for every status code counted, in numeric order,
// with StatusOther last.
func (c Counters) EachStatus(fn func(code string, n int64)) {
	keys := slices.SortedFunc(maps.Keys(c.StatusCodes), compareStatus)
	for _, k := range keys {
		fn(k, c.StatusCodes[k])
	}
}

// compareStatus orders status keys by number; keys that are not numbers
// (StatusOther) sort after those that are, by name.
func compareStatus(a, b string) int {
	na, errA := strconv.Atoi(a)
	nb, errB := strconv.Atoi(b)
	switch {
	case errA == nil && errB == nil:
		return na - nb
	case errA == nil:
		return -1
	case errB == nil:
		return 1
	}
	return cmp.Compare(a, b)
}

// Non2xx is the number of responses whose status is not 2xx, as ab's
// "Non-2xx responses" line counts them.
func (c Counters) Non2xx() int64 {
	var n int64
	for code, k := range c.StatusCodes {
		if len(code) != 3 || code[0] != '2' {
			n += k
		}
	}
	return n
}

// IsStatusKey reports whether key can be a key of Counters.StatusCodes: a
// code from 100 to 599 written with three digits, or StatusOther.
func IsStatusKey(key string) bool {
	if key == StatusOther {
		return true
	}
	c, err := strconv.Atoi(key)
	return err == nil && len(key) == 3 && c >= minStatus && c <= maxStatus
}
