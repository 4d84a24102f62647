package grpc

import (
	"context"
	"errors"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/loadgate/loadgate/protocols"
)

// errUnexpectedOK is the sample of a call that ended OK when expect.code
// does not list OK.
var errUnexpectedOK = errors.New("status OK, not one of expect.code")

// accepts says whether expect.code lists code.
func (s *Shared) accepts(code codes.Code) bool {
	for _, c := range s.target.Expect.Codes {
		if codes.Code(c) == code {
			return true
		}
	}
	return len(s.target.Expect.Codes) == 0 && code == codes.OK
}

// fail classifies the end of a call that did not end as expected. The
// library reports every failure as a status, so what happened on the
// connection comes first: a call that outlived its timeout (or the phase)
// is a timeout, an UNAVAILABLE while the connection could not be made is
// `connect`, and one whose socket failed (reset, closed) is `reset`,
// whatever expect.code says. Any other status, sent by the
// server or made by the library, is a `grpc` error counted by its code.
func (c *client) fail(ctx context.Context, err error, out *protocols.Outcome) {
	if err == nil {
		out.Kind, out.Status, out.Err = protocols.KindGRPC, int(codes.OK), errUnexpectedOK
		return
	}
	out.Err = err
	code := status.Code(err)
	switch {
	case ctx.Err() != nil || code == codes.DeadlineExceeded:
		// The call's deadline travels with it, so the server may end the
		// call with DEADLINE_EXCEEDED a moment before the client's timer
		// fires: either way the call ran out of time.
		out.Kind = protocols.KindTimeout
		return
	case code == codes.Unavailable && c.c.dialFailed.Load():
		out.Kind = protocols.KindConnect
		return
	case code == codes.Unavailable && c.c.lost.Load():
		out.Kind = protocols.KindReset
		return
	}
	if c.s.accepts(code) {
		*out = protocols.Outcome{BytesSent: out.BytesSent, BytesReceived: out.BytesReceived,
			Messages: out.Messages, Connect: out.Connect, Status: int(code)}
		return
	}
	out.Kind, out.Status = protocols.KindGRPC, int(code)
}
