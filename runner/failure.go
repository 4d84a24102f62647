package runner

import (
	"fmt"

	"github.com/loadgate/loadgate/protocols"
	"github.com/loadgate/loadgate/results"
	"github.com/loadgate/loadgate/scenarios"
)

// What the engine makes of a failed request for results.json: the count
// of its kind and a sample of its message. The mapping from a
// protocols.ErrorKind to a counter lives here, not in package results,
// so that the results vocabulary knows nothing of the clients that fill it.

// noteError keeps msg as kind's sample in p unless one is already kept.
func noteError(p *results.PhaseResult, kind protocols.ErrorKind, msg string) {
	if p.ErrorSamples == nil {
		p.ErrorSamples = map[string]string{}
	}
	if _, ok := p.ErrorSamples[kind.String()]; !ok {
		p.ErrorSamples[kind.String()] = msg
	}
}

// describeFailure is the sample message of a failed request.
func describeFailure(o *protocols.Outcome) string {
	switch {
	case o.Err != nil:
		return o.Err.Error()
	case o.Kind == protocols.KindStatus && o.Status != 0:
		return fmt.Sprintf("unexpected status %d", o.Status)
	case o.Kind == protocols.KindGRPC:
		return "unexpected status " + scenarios.GRPCCode(o.Status).String()
	default:
		return o.Kind.String() + " error"
	}
}

// countError counts n failures of kind k in c; KindNone is ignored.
func countError(c *results.ErrorCounts, k protocols.ErrorKind, n int64) {
	switch k {
	case protocols.KindNone:
	case protocols.KindConnect:
		c.Connect += n
	case protocols.KindTimeout:
		c.Timeout += n
	case protocols.KindReset:
		c.Reset += n
	case protocols.KindStatus:
		c.Status += n
	case protocols.KindLength:
		c.Length += n
	case protocols.KindCheck:
		c.Check += n
	case protocols.KindExtract:
		c.Extract += n
	case protocols.KindProtocol:
		c.Protocol += n
	case protocols.KindGRPC:
		// Callers that know the status call AddGRPC instead.
		c.AddGRPC("UNKNOWN", n)
	case protocols.KindUnfinished:
		c.Unfinished += n
	default:
		c.Other += n
	}
}
