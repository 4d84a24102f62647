package results

import (
	"testing"

	"github.com/loadgate/loadgate/runner"
)

func TestValidateRefusesNegativeGRPCCount(t *testing.T) {
	var v validator
	c := runner.Counters{Requests: 1, Failed: 1}
	c.Errors.AddGRPC("UNAVAILABLE", -1)
	v.counters("case", &c)
	if len(v.problems) == 0 {
		t.Error("a negative errors.grpc count passed validation")
	}
}
