package evloop

import "time"

// maxSpinLead is the longest the loop stops blocking before an arrival to
// poll instead: even with a timer slack of a nanosecond, a blocked thread
// wakes some tens of microseconds after its timeout (23 µs at the median,
// 36 µs at the 99th percentile on a 2-core VM), which a poll does not wait
// out.
const maxSpinLead = 40 * time.Microsecond

// spinMargin is what the lead keeps beyond the thread's usual oversleep,
// for the wake-ups that come later than usual.
const spinMargin = 5 * time.Microsecond

// spinLead is how long before an arrival the loop polls, given the gap
// between the last two arrivals and how late its waits end: the usual
// oversleep and a margin, and at most a quarter of the gap. Every
// microsecond of it is CPU spent per arrival, most of a request's cost at
// low rates, so it is no longer than the wake-ups need. A thread that
// polls all the time looks busy to the kernel's scheduler, which then
// lets the server's threads run first and sends arrivals milliseconds
// late, so at high rates the loop rather blocks and takes the wake-up's
// tens of microseconds.
func spinLead(gap, oversleep time.Duration) time.Duration {
	return max(0, min(maxSpinLead, gap/4, oversleep+spinMargin))
}

// nextOversleep folds one wait's lateness into the smoothed oversleep
// (an exponentially weighted mean over about 8 waits). A wait that ended
// much later than usual, the thread descheduled for others, counts as
// twice maxSpinLead: no lead could have made that up.
func nextOversleep(smoothed, late time.Duration) time.Duration {
	late = max(0, min(late, 2*maxSpinLead))
	return smoothed + (late-smoothed)/8
}

// The closed model's answers come as the server writes them, one
// connection after another: a loop that blocks as soon as it has handled
// what came costs the thread a sleep and a wake-up per answer or two, tens
// of microseconds of CPU on a virtual machine, and the server's thread the
// wake-up's share, which slows it too. A loop with requests in flight
// therefore polls for up to maxSpin before it blocks, as long as that
// finds answers: spin counts how often it did lately, from -maxSpinScore
// to maxSpinScore, and below 0 the loop blocks at once, as against a slow
// server, where polling would only take CPU from it.
const (
	maxSpin      = 20 * time.Microsecond
	spinWorth    = 8 * time.Microsecond
	maxSpinScore = 8
)

// spinning reports whether the loop polls before it blocks, given its
// spin score.
func spinning(score int) bool { return score >= 0 }

// nextSpin is the spin score after a wait for answers: caught says that
// they came within spinWorth of when the loop began to wait (whether it
// polled or blocked meanwhile), soon enough for polling to cost less than
// the sleep it saves. A miss counts twice a catch, so that a server
// slower than that stops the polling after a few waits, and one that
// turns fast starts it again.
func nextSpin(score int, caught bool) int {
	if caught {
		return min(score+1, maxSpinScore)
	}
	return max(score-2, -maxSpinScore)
}

func later(a, b time.Time) time.Time {
	if a.After(b) {
		return a
	}
	return b
}
