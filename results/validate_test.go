package results

import (
	"testing"
)

func TestValidateRefusesNegativeGRPCCount(t *testing.T) {
	var v validator
	c := Counters{Requests: 1, Failed: 1}
	c.Errors.AddGRPC("UNAVAILABLE", -1)
	v.counters("case", &c)
	if len(v.problems) == 0 {
		t.Error("a negative errors.grpc count passed validation")
	}
}

func TestValidateStatusCodes(t *testing.T) {
	tests := []struct {
		name  string
		codes map[string]int64
		ok    bool
	}{
		{"none counted", nil, true},
		{"every response", map[string]int64{"200": 8, "503": 2}, true},
		{"some requests got no response", map[string]int64{"200": 5, "other": 1}, true},
		{"more responses than requests", map[string]int64{"200": 11}, false},
		{"a negative count", map[string]int64{"200": 12, "503": -2}, false},
		{"a class, not a code", map[string]int64{"5xx": 1}, false},
		{"beyond 599", map[string]int64{"999": 1}, false}, // runner counts it as other
		{"not three digits", map[string]int64{"0200": 1}, false},
	}
	for _, tt := range tests {
		var v validator
		c := Counters{Requests: 10, Succeeded: 10, StatusCodes: tt.codes}
		v.counters("case", &c)
		if got := len(v.problems) == 0; got != tt.ok {
			t.Errorf("%s: valid = %v, want %v (problems: %q)", tt.name, got, tt.ok, v.problems)
		}
	}
}
