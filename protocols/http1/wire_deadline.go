package http1

import (
	"errors"
	"os"
	"time"
)

// lazyDeadline spares a plain socket a SetDeadline per request, which costs
// a timer update in the runtime's poller: a few per cent of a kept-alive
// request's CPU. A request's deadline is its start plus the target's
// timeout. The connection keeps the deadline of an earlier request while
// more than half the timeout of it is left: that deadline is earlier than
// the request's own, never later, so it can only fire early. When it does,
// rearm sets the request's own deadline and the wait goes on, so a request
// times out exactly when it would with a deadline set for it.
type lazyDeadline struct {
	req     time.Time // the request's deadline; zero: none
	set     time.Time // the deadline the connection has
	rearmed bool      // set is req: a deadline that fires now is the request's
	// rearm is http1Client.rearm bound once, for the response reader and
	// the raw exchange: a method value per request would allocate.
	rearm func() bool
}

// setDeadline gives the connection the deadline d of a request starting
// at now, or leaves it an earlier one (see lazyDeadline).
func (c *http1Client) setDeadline(d, now time.Time) error {
	c.dl.req, c.dl.rearmed = d, false
	if c.rawOK || c.tlsOK {
		keep := d.IsZero() && c.dl.set.IsZero() ||
			!d.IsZero() && !c.dl.set.IsZero() && c.dl.set.Sub(now) > c.target.Timeout/2
		if keep {
			return nil
		}
	}
	if err := c.conn.SetDeadline(d); err != nil {
		return err
	}
	c.dl.set = d
	return nil
}

// dialed records the deadline a new connection was given.
func (c *http1Client) dialed(d time.Time) {
	c.dl.req, c.dl.set, c.dl.rearmed = d, d, false
}

// rearm is called when a wait of the current request failed with err, and
// reports whether the wait should go on: err is a deadline that fired
// before the request's own, which the connection now has instead. A
// deadline set by interrupt is left alone: the phase is over.
func (c *http1Client) rearm() bool {
	if c.dl.rearmed || done(c.watched) || !c.dl.req.IsZero() && !time.Now().Before(c.dl.req) {
		return false
	}
	c.dl.rearmed = true
	if c.conn.SetDeadline(c.dl.req) != nil {
		return false
	}
	c.dl.set = c.dl.req
	// interrupt may have run just before, its deadline undone by this one.
	return !done(c.watched)
}

// early reports whether err is a deadline that fired before the request's
// own, after which the wait goes on (see lazyDeadline).
func early(err error, rearm func() bool) bool {
	return rearm != nil && errors.Is(err, os.ErrDeadlineExceeded) && rearm()
}

func done(ch <-chan struct{}) bool {
	select {
	case <-ch:
		return true
	default:
		return false
	}
}
