package exporters

import (
	"fmt"
	"sync"
	"time"

	"github.com/loadgate/loadgate/results"
	"github.com/loadgate/loadgate/scenarios"
)

// Options tune an Exporter. The zero value works.
type Options struct {
	// Now stamps the updates. nil = time.Now.
	Now func() time.Time
	// PushTimeout is how long one push may take before it counts as
	// failed. Default 2s: a receiver that slow is behind anyway.
	PushTimeout time.Duration
	// CloseTimeout is how long Close may go on sending what is still
	// queued when the run is over. Default 5s.
	CloseTimeout time.Duration
	// QueueLen is how many updates each destination keeps while it falls
	// behind; the oldest are dropped beyond. Default 60 (a minute of one
	// phase).
	QueueLen int
	// UserAgent is sent to receivers over HTTP.
	UserAgent string
}

func (o *Options) defaults() {
	if o.Now == nil {
		o.Now = time.Now
	}
	if o.PushTimeout <= 0 {
		o.PushTimeout = 2 * time.Second
	}
	if o.CloseTimeout <= 0 {
		o.CloseTimeout = 5 * time.Second
	}
	if o.QueueLen <= 0 {
		o.QueueLen = 60
	}
}

// Exporter sends every phase's figures to its destinations while a run
// goes on. Observe one scenario's run with Scenario; Close it when the
// run is over.
type Exporter struct {
	opts   Options
	queues []*queue

	mu   sync.Mutex
	last time.Time // of the latest update: each one is later
	cum  []int64   // scratch for the histogram's buckets
}

// Open starts an exporter for every spec (a json-lines file is created
// now): nothing is sent until a phase starts.
func Open(specs []Spec, opts Options) (*Exporter, error) {
	opts.defaults()
	e := &Exporter{opts: opts, cum: make([]int64, len(Bounds))}
	for _, sp := range specs {
		var s sink
		switch sp.Kind {
		case KindPrometheusRW:
			s = newRemoteWrite(sp.Dest, opts.UserAgent, opts.PushTimeout)
		case KindJSONLines:
			j, err := openJSONLines(sp.Dest)
			if err != nil {
				e.Close()
				return nil, err
			}
			s = j
		default:
			e.Close()
			return nil, fmt.Errorf("unknown exporter %q: %s", sp.Kind, specForm)
		}
		e.queues = append(e.queues, newQueue(sp.String(), s, opts.PushTimeout, opts.QueueLen))
	}
	return e, nil
}

// Close sends what is still queued, for at most Options.CloseTimeout,
// and returns one sentence for each destination that did not get
// everything ("prometheus-rw http://…: 3 of 40 pushes failed (connection
// refused); the run's results are unaffected"): for the caller to say
// once.
func (e *Exporter) Close() []string {
	var msgs []string
	for _, q := range e.queues {
		if m := q.close(e.opts.CloseTimeout); m != "" {
			msgs = append(msgs, m)
		}
	}
	return msgs
}

// Scenario returns the observer of one run of sc, whose cases it names
// the targets of.
func (e *Exporter) Scenario(sc *scenarios.Scenario) *Observer {
	return &Observer{e: e, sc: sc}
}

// Observer exports the phases of one scenario's run (a runner.Observer).
// Its calls come from the runner's goroutine, which owns the results
// they read.
type Observer struct {
	e  *Exporter
	sc *scenarios.Scenario
}

// PhaseStarted sends the phase's series at zero, so that the first
// second's increase is counted from its start.
func (o *Observer) PhaseStarted(s results.Snapshot) { o.export(s, s.Result, 0) }

// Progress sends the phase's figures so far.
func (o *Observer) Progress(s results.Snapshot) { o.export(s, s.Result, s.InFlight) }

// PhaseDone sends the phase's final figures.
func (o *Observer) PhaseDone(s results.Snapshot, r *results.PhaseResult) { o.export(s, r, 0) }

func (o *Observer) export(s results.Snapshot, r *results.PhaseResult, inFlight int64) {
	if r == nil || len(o.e.queues) == 0 {
		return
	}
	labels := o.labels(s)
	e := o.e
	e.mu.Lock()
	b := Batch{Time: e.stamp(), Samples: samples(labels, r, inFlight, e.cum)}
	e.mu.Unlock()
	for _, q := range e.queues {
		q.offer(b)
	}
}

// stamp is the time of a new update, in whole milliseconds, later than
// the one before: a receiver refuses a series' second sample at the same
// time, and a phase's last tick and its end may fall in one millisecond.
// The caller holds mu.
func (e *Exporter) stamp() time.Time {
	t := e.opts.Now().Truncate(time.Millisecond)
	if !t.After(e.last) {
		t = e.last.Add(time.Millisecond)
	}
	e.last = t
	return t
}

// labels are the labels of the phase s is about, the scenario's secrets
// redacted from their values: they leave the machine.
func (o *Observer) labels(s results.Snapshot) []Label {
	name, label := s.Name, s.Label
	if name == "" {
		name = s.Phase // a snapshot from an older runner
	}
	trial, rest := splitLabel(label)
	phase := name
	if rest != "" {
		phase += " (" + rest + ")"
	}
	target := ""
	for i := range o.sc.Cases {
		if o.sc.Cases[i].ID == s.Case {
			target = o.sc.Cases[i].Target.Name
			break
		}
	}
	r := o.sc.Redact
	return phaseLabels(r(s.Scenario), r(target), r(s.Case), r(phase), trial)
}
