package runner

import (
	"context"
	"fmt"
	"sync/atomic"
	"time"

	"github.com/loadgate/loadgate/results"
	"github.com/loadgate/loadgate/scenarios"
	"github.com/loadgate/loadgate/sut"
)

// gracefulStop is how long the requests in flight at phase ph's end may
// take to be answered on target t: its graceful_stop, never longer than
// the target's own timeout, after which every one of them has failed
// anyway.
func gracefulStop(ph *scenarios.Phase, t *scenarios.Target) time.Duration {
	g := ph.GracefulStop
	if to := targetTimeout(t); to > 0 {
		g = min(g, to)
	}
	return max(g, 0)
}

// targetTimeout is the longest one request (or iteration) of t may take;
// 0 when the target sets none.
func targetTimeout(t *scenarios.Target) time.Duration {
	switch {
	case t.HTTP != nil:
		return t.HTTP.Timeout
	case t.TCP != nil:
		return t.TCP.Timeout
	case t.GRPC != nil:
		return t.GRPC.Timeout
	case t.WebSocket != nil:
		return t.WebSocket.Timeout
	}
	return 0
}

// ended says why the phase stopped sending, and for a phase cut short,
// the cause in words (reports say when). ctx is the run's context.
func (pr *phaseRun) ended(ctx context.Context, res *results.PhaseResult, sent *atomic.Int64) (reason, detail string) {
	ph := pr.phase
	switch {
	case res.Aborted != nil:
		return results.EndAborted, "abort rule " + quoteRule(res.Aborted) + " failed"
	case sut.ExitCause(ctx) != nil:
		return results.EndServer, "the server under test exited"
	case ctx.Err() != nil:
		return results.EndInterrupted, "the run was interrupted"
	case pr.exhausted.Load():
		return results.EndData, pr.exhaustedData()
	case pr.clientErr() != nil:
		return results.EndClientSetup, "a client could not be made"
	case ph.Requests > 0 && pr.claimed.Load() >= ph.Requests,
		ph.Requests > 0 && ph.Rate.Open() && sent.Load() >= ph.Requests:
		return results.EndRequests, ""
	case ph.Duration > 0:
		return results.EndDuration, ""
	}
	return results.EndTimeLimit, "the phase reached the run's time limit before its request count"
}

// exhaustedData names the data source that ran out.
func (pr *phaseRun) exhaustedData() string {
	for _, f := range pr.feeds {
		if f.Exhausted() {
			src := f.Source()
			return fmt.Sprintf("data source `%s` ran out of %s rows (%d)", src.Name, dataModeWord(src.Mode), len(src.Rows))
		}
	}
	return "a data source ran out of rows"
}

func dataModeWord(m scenarios.DataMode) string {
	if m == scenarios.DataUnique {
		return "unique"
	}
	return "sequential"
}

func quoteRule(a *results.Aborted) string {
	if a.Name != "" && a.Name != a.Rule {
		return fmt.Sprintf("%q (%s)", a.Name, a.Rule)
	}
	return "`" + a.Rule + "`"
}
