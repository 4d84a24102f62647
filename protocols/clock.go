package protocols

import "time"

// clockAnchor is the reading Now counts from.
var clockAnchor = time.Now()

// Now is time.Now at half its cost: it reads the monotonic clock only, and
// derives the wall clock from a reading taken when the process started.
// time.Now reads both clocks, a few per cent of what a kept-alive request
// costs the client, and the hot paths want durations, which only the
// monotonic clock gives. The wall time it carries does not follow later
// steps or slews of the system clock, which nothing of a run's timing
// should follow either.
func Now() time.Time { return clockAnchor.Add(time.Since(clockAnchor)) }
