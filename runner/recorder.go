package runner

import (
	"strconv"
	"sync"
	"time"

	"github.com/loadgate/loadgate/protocols"
	"github.com/loadgate/loadgate/results"
	"github.com/loadgate/loadgate/scenarios"
)

// shard is one slice of a phase's measurements. Workers are spread over a
// few shards so that recording takes an uncontended lock instead of one
// global mutex per request; the collector drains every shard once a second.
// A shard holds only the current second: cumulative figures live with the
// collector, their single owner.
type shard struct {
	mu       sync.Mutex
	counters results.Counters
	latency  *results.Histogram // succeeded requests only: a refused connection is not a fast response
	failed   *results.Histogram // failed requests, kept apart so they cannot flatter the percentiles
	connect  *results.Histogram
	sendLag  *results.Histogram // open model only
	byName   []namedShard       // parallel to the request mix or the flow's steps; nil for a single request
	iter     *iterShard         // a flow's iterations; nil for other targets
	// samples holds the first message of each error kind this shard saw
	// that the collector has not taken yet; sampled marks the kinds already
	// described, so that each is formatted once per phase, not per failure.
	samples [protocols.NumKinds]string
	sampled [protocols.NumKinds]bool
	// statuses, when set, counts the responses' status codes: HTTP
	// targets only (countStatus), since a gRPC status is another code.
	statuses *statusCounts
	// answers spans the responses of the current second, for stalls.
	answers answerSpan
}

// answerSpan is when the first and the last of n answers came, as
// offsets from the phase's start. An answer is any response, accepted or
// not, and any failure but a timeout or an unfinished request: a refused
// connection is the server's answer too, silence is not.
// gaveUp counts the unfinished requests among those that ended: they
// were waiting until they were given up.
type answerSpan struct {
	n           int64
	first, last time.Duration
	gaveUp      int64
}

func (a *answerSpan) add(at time.Duration, kind protocols.ErrorKind) {
	if kind == protocols.KindUnfinished {
		a.gaveUp++
	}
	if at < 0 || kind == protocols.KindTimeout || kind == protocols.KindUnfinished {
		return
	}
	if a.n == 0 || at < a.first {
		a.first = at
	}
	a.last = max(a.last, at)
	a.n++
}

func (a *answerSpan) merge(o answerSpan) {
	a.gaveUp += o.gaveUp
	if o.n == 0 {
		return
	}
	if a.n == 0 || o.first < a.first {
		a.first = o.first
	}
	a.last = max(a.last, o.last)
	a.n += o.n
}

type namedShard struct {
	counters results.Counters
	latency  *results.Histogram
	statuses statusCounts // used only when the shard's statuses is set
}

// iterShard is one shard's part of a flow's iterations.
type iterShard struct {
	iterations, succeeded, failed int64
	latency                       *results.Histogram // succeeded iterations only
}

// newShard makes a shard for names named requests (0 for a single one)
// and, with flow, the iterations of a flow.
func newShard(names int, open, flow bool) *shard {
	s := &shard{latency: results.NewHistogram(), failed: results.NewHistogram(), connect: results.NewHistogram()}
	if open {
		s.sendLag = results.NewHistogram()
	}
	if flow {
		s.iter = &iterShard{latency: results.NewHistogram()}
	}
	if names > 0 {
		s.byName = make([]namedShard, names)
		for i := range s.byName {
			s.byName[i].latency = results.NewHistogram()
		}
	}
	return s
}

// record adds one completed request that ended at (an offset from the
// phase's start; negative when unknown); lag is its send lag in the open
// model. It allocates nothing, except once per error kind per phase to
// describe it.
func (s *shard) record(req int, at, latency, lag time.Duration, o *protocols.Outcome) {
	s.mu.Lock()
	s.add(req, "", latency, o)
	s.answers.add(at, o.Kind)
	if s.sendLag != nil {
		s.sendLag.Record(lag)
	}
	s.mu.Unlock()
}

// recordStep adds one completed step of a flow iteration, named request
// req, that ended at; req < 0 is a failed setup step, counted among the phase's requests
// and errors only (setup is not measured, but its failures must show). A
// step has no send lag of its own: its iteration has (recordIteration).
func (s *shard) recordStep(req int, name string, at, latency time.Duration, o *protocols.Outcome) {
	s.mu.Lock()
	s.add(req, name, latency, o)
	s.answers.add(at, o.Kind)
	s.mu.Unlock()
}

// recordIteration adds one completed iteration of a flow; lag is its send
// lag in the open model.
func (s *shard) recordIteration(latency, lag time.Duration, kind protocols.ErrorKind) {
	s.mu.Lock()
	it := s.iter
	it.iterations++
	if kind == protocols.KindNone {
		it.succeeded++
		it.latency.Record(latency)
	} else {
		it.failed++
	}
	if s.sendLag != nil {
		s.sendLag.Record(lag)
	}
	s.mu.Unlock()
}

// add counts one request; name, when set, prefixes its error sample. The
// caller holds mu.
func (s *shard) add(req int, name string, latency time.Duration, o *protocols.Outcome) {
	addOutcome(&s.counters, o)
	if s.statuses != nil && o.Status != 0 {
		s.statuses.add(o.Status)
	}
	if req < 0 {
		s.sample(req, name, o)
		return
	}
	if o.Kind == protocols.KindNone {
		s.latency.Record(latency)
	} else {
		s.failed.Record(latency)
		s.sample(req, name, o)
	}
	if o.Connect > 0 {
		s.connect.Record(o.Connect)
	}
	if s.byName != nil {
		n := &s.byName[req]
		addOutcome(&n.counters, o)
		if o.Kind == protocols.KindNone {
			n.latency.Record(latency)
		}
		if s.statuses != nil && o.Status != 0 {
			n.statuses.add(o.Status)
		}
	}
}

// sample describes the first failure of each kind, once per phase. A
// flow's step is named, `step "get": …`, or `setup step "login": …` for
// one of its setup (req < 0).
func (s *shard) sample(req int, name string, o *protocols.Outcome) {
	if k := min(o.Kind, protocols.NumKinds-1); o.Kind != protocols.KindNone && !s.sampled[k] {
		s.sampled[k] = true
		s.samples[k] = describeFailure(o)
		switch {
		case name != "" && req < 0:
			s.samples[k] = "setup step " + strconv.Quote(name) + ": " + s.samples[k]
		case name != "":
			s.samples[k] = "step " + strconv.Quote(name) + ": " + s.samples[k]
		}
	}
}

func addOutcome(c *results.Counters, o *protocols.Outcome) {
	c.Requests++
	if o.Kind == protocols.KindNone {
		c.Succeeded++
	} else {
		c.Failed++
		if o.Kind == protocols.KindGRPC {
			c.Errors.AddGRPC(scenarios.GRPCCode(o.Status).String(), 1)
		} else {
			countError(&c.Errors, o.Kind, 1)
		}
	}
	c.BytesSent += o.BytesSent
	c.BytesReceived += o.BytesReceived
	c.Messages += o.Messages
}

// collector owns a phase's cumulative figures and its time series.
type collector struct {
	shards  []*shard
	total   *results.PhaseResult
	second  *results.Histogram // reused for each second's percentiles
	connect *results.Histogram // the second's connect times, reused likewise
	pending results.Counters   // counted this second
	answers answerSpan         // answered this second
	ring    *secondRing        // the last seconds, for abort rules with a window; nil without
}

func newCollector(p *results.PhaseResult, shards []*shard) *collector {
	return &collector{shards: shards, total: p, second: results.NewHistogram(), connect: results.NewHistogram()}
}

// drain moves every shard's figures into the phase totals and the current
// second's histogram.
func (c *collector) drain() {
	for _, s := range c.shards {
		s.mu.Lock()
		c.total.Counters.Merge(s.counters)
		c.pending.Merge(s.counters)
		if s.statuses != nil {
			s.statuses.moveTo(&c.total.StatusCodes)
		}
		c.total.Latency.Merge(s.latency)
		c.second.Merge(s.latency)
		c.total.FailedLatency.Merge(s.failed)
		for k, msg := range s.samples {
			if msg != "" {
				noteError(c.total, protocols.ErrorKind(k), msg)
				s.samples[k] = ""
			}
		}
		c.total.Connect.Merge(s.connect)
		c.connect.Merge(s.connect)
		if s.sendLag != nil {
			c.total.SendLag.Merge(s.sendLag)
			s.sendLag.Reset()
		}
		for i := range s.byName {
			n := &s.byName[i]
			c.total.ByName[i].Counters.Merge(n.counters)
			if s.statuses != nil {
				n.statuses.moveTo(&c.total.ByName[i].StatusCodes)
			}
			c.total.ByName[i].Latency.Merge(n.latency)
			n.counters = results.Counters{}
			n.latency.Reset()
		}
		if it := s.iter; it != nil {
			t := c.total.Iterations
			t.Iterations += it.iterations
			t.Succeeded += it.succeeded
			t.Failed += it.failed
			t.Latency.Merge(it.latency)
			it.iterations, it.succeeded, it.failed = 0, 0, 0
			it.latency.Reset()
		}
		c.answers.merge(s.answers)
		s.answers = answerSpan{}
		s.counters = results.Counters{}
		s.latency.Reset()
		s.failed.Reset()
		s.connect.Reset()
		s.mu.Unlock()
	}
}

// closeSecond drains and appends one point to the time series: inFlight
// requests are waiting at its end, the oldest for oldest. It returns the
// point and when the second's answers came.
func (c *collector) closeSecond(at int, inFlight int64, oldest time.Duration) (results.Second, answerSpan) {
	c.drain()
	pt := results.Second{
		At:         at,
		Completed:  c.pending.Requests,
		Errors:     c.pending.Failed,
		P50:        c.second.Quantile(50),
		P99:        c.second.Quantile(99),
		InFlight:   inFlight,
		OldestWait: oldest,
		Connects:   c.connect.Count(),
		ConnectP99: c.connect.Quantile(99),
	}
	answers := c.answers
	c.total.Series = append(c.total.Series, pt)
	if c.ring != nil {
		c.ring.push(c.pending, c.second)
	}
	c.pending = results.Counters{}
	c.answers = answerSpan{}
	c.second.Reset()
	c.connect.Reset()
	return pt, answers
}
