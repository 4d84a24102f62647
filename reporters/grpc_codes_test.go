package reporters

import (
	"testing"

	"github.com/loadgate/loadgate/results"
)

func TestErrorKindsShowGRPCCodes(t *testing.T) {
	var withCodes results.ErrorCounts
	withCodes.Connect = 3
	withCodes.AddGRPC("UNAVAILABLE", 10)
	withCodes.AddGRPC("INTERNAL", 2)
	tests := []struct {
		name string
		c    results.ErrorCounts
		want string
	}{
		{"http kinds only", results.ErrorCounts{Connect: 3, Reset: 1}, "connect 3, reset 1"},
		{"grpc codes, sorted by name", withCodes, "connect 3, grpc 12 (INTERNAL 2, UNAVAILABLE 10)"},
	}
	for _, tt := range tests {
		if got := errorKinds(tt.c); got != tt.want {
			t.Errorf("%s: errorKinds = %q, want %q", tt.name, got, tt.want)
		}
	}
}
