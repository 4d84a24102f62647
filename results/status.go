package results

import (
	"cmp"
	"maps"
	"slices"
	"strconv"
)

// The codes counted one by one; any other (a server may send 999) is
// counted under StatusOther.
const (
	MinStatus = 100
	MaxStatus = 599
)

// StatusOther is the key of StatusCodes that counts codes outside
// 100–599.
const StatusOther = "other"

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
	return err == nil && len(key) == 3 && c >= MinStatus && c <= MaxStatus
}
