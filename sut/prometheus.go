package sut

import (
	"context"
	"errors"
	"fmt"
	"math"
	"net/http"
	"net/url"
	"sync"
	"time"

	"github.com/prometheus/client_golang/api"
	v1 "github.com/prometheus/client_golang/api/prometheus/v1"
	"github.com/prometheus/common/model"

	"github.com/loadgate/loadgate/results"
	"github.com/loadgate/loadgate/scenarios"
)

// A server elsewhere, whose figures a Prometheus server holds (SPEC §18):
// nothing is sampled while a case runs; after it, range queries over the
// case's window give its points. The figures are the local monitor's, in
// its units: CPU in percent of one core, memory in bytes.

// promTimeout bounds one query, and the check before the run.
const promTimeout = 10 * time.Second

// maxPromPoints keeps a range query under Prometheus's limit of 11,000
// points a series: a longer case is queried at a coarser step.
const maxPromPoints = 10_000

// promAPI is the part of the Prometheus HTTP API a monitor uses.
type promAPI interface {
	Query(ctx context.Context, query string, ts time.Time, opts ...v1.Option) (model.Value, v1.Warnings, v1.Infos, error)
	QueryRange(ctx context.Context, query string, r v1.Range, opts ...v1.Option) (model.Value, v1.Warnings, v1.Infos, error)
}

func newPromAPI(address string) (promAPI, error) {
	c, err := api.NewClient(api.Config{Address: address, Client: &http.Client{Timeout: promTimeout}})
	if err != nil {
		return nil, err
	}
	return v1.NewAPI(c), nil
}

// promAddress is a Prometheus server's address as reports show it:
// without credentials.
func promAddress(address string) string {
	u, err := url.Parse(address)
	if err != nil {
		return "the Prometheus server"
	}
	u.User = nil
	return u.String()
}

// checkPrometheus runs both queries once, before any load is sent: a
// server that does not answer, a query it refuses, or one that finds no
// series or several would give no figures for any case.
func checkPrometheus(p *scenarios.Prometheus) error {
	a, err := newPromAPI(p.URL)
	if err != nil {
		return fmt.Errorf("prometheus %s: %w", promAddress(p.URL), err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), promTimeout)
	defer cancel()
	for _, q := range []struct{ name, query string }{{"cpu", p.CPU}, {"rss", p.RSS}} {
		v, _, _, err := a.Query(ctx, q.query, time.Time{})
		if err != nil {
			return fmt.Errorf("prometheus %s: the %s query failed: %s", promAddress(p.URL), q.name, promError(err))
		}
		vec, ok := v.(model.Vector)
		switch {
		case !ok:
			// A scalar, say: one value, whatever it is.
		case len(vec) == 0:
			return fmt.Errorf("prometheus %s: the %s query finds no series now, so no case would have figures: check its labels, and that the window holds two scrapes (%s)",
				promAddress(p.URL), q.name, q.query)
		case len(vec) > 1:
			return fmt.Errorf("prometheus %s: the %s query finds %d series, not one: sum() them, or narrow it with labels (%s)",
				promAddress(p.URL), q.name, len(vec), q.query)
		}
	}
	return nil
}

// promError is the message of a failed query: Prometheus's own when it
// gave one (a parse error names the position in the query).
func promError(err error) string {
	var pe *v1.Error
	if errors.As(err, &pe) {
		if pe.Msg == "" {
			return string(pe.Type) + ": " + pe.Detail
		}
		return string(pe.Type) + ": " + pe.Msg
	}
	return err.Error()
}

// promWatch is the window of one case, read from Prometheus when it ends.
type promWatch struct {
	cfg   *scenarios.Prometheus
	api   promAPI
	addr  string
	kill  <-chan struct{}
	start time.Time

	mu    sync.Mutex
	endAt time.Time

	read  sync.Once
	usage results.Usage
	err   error
}

// startPromMonitor opens the window of a case now.
func startPromMonitor(p *scenarios.Prometheus, kill <-chan struct{}) *Monitor {
	w := &promWatch{cfg: p, addr: promAddress(p.URL), kill: kill, start: time.Now()}
	a, err := newPromAPI(p.URL)
	if err != nil {
		w.err = err
	}
	w.api = a
	return &Monitor{remote: w}
}

// end closes the window, once, and returns its end.
func (w *promWatch) end() time.Time {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.endAt.IsZero() {
		w.endAt = time.Now()
	}
	return w.endAt
}

// stop closes the window if it is not yet, waits for the case's last
// scrapes to be stored and queries the window, once.
func (w *promWatch) stop() (results.Usage, error) {
	end := w.end()
	w.read.Do(func() { w.usage, w.err = w.query(end) })
	return w.usage, w.err
}

// query waits out the settle time and queries the window [start, end].
func (w *promWatch) query(end time.Time) (results.Usage, error) {
	u := results.Usage{Prometheus: w.addr}
	fail := func(format string, args ...any) (results.Usage, error) {
		u.Reason = fmt.Sprintf("prometheus %s: ", w.addr) + fmt.Sprintf(format, args...)
		return u, errors.New(u.Reason)
	}
	if w.api == nil {
		return fail("%v", w.err)
	}
	// Points are taken from Lookback after the start on: the one at the
	// start would read the seconds before the case.
	from, to := w.start.Add(w.cfg.Lookback), end
	if from.After(to) {
		return fail("the case lasted %v, less than the %v its queries look back: every point would mix in what the server did before it; lengthen the case or shorten the window",
			to.Sub(w.start).Round(time.Millisecond), w.cfg.Lookback)
	}
	w.settle(to)
	ctx, cancel := context.WithTimeout(context.Background(), promTimeout)
	defer cancel()
	if w.kill != nil {
		go func() {
			select {
			case <-w.kill:
				cancel()
			case <-ctx.Done():
			}
		}()
	}
	r := v1.Range{Start: from, End: to, Step: promStep(w.cfg.Step, to.Sub(from))}
	cpu, why := w.points(ctx, "cpu", "CPU share", w.cfg.CPU, r)
	if why != "" {
		return fail("%s", why)
	}
	rss, why := w.points(ctx, "rss", "size", w.cfg.RSS, r)
	if why != "" {
		return fail("%s", why)
	}
	if !usageOf(&u, cpu, rss) {
		return fail("the cpu and rss queries have no point in time in common")
	}
	// Each point is a rate over the Lookback before it, the first from the
	// start on: the mean covers the whole case.
	u.Window = to.Sub(w.start).Seconds()
	return u, nil
}

// settle waits until Settle has passed since the case ended, or loadgate
// is being killed.
func (w *promWatch) settle(end time.Time) {
	wait := time.Until(end.Add(w.cfg.Settle))
	if wait <= 0 {
		return
	}
	t := time.NewTimer(wait)
	defer t.Stop()
	select {
	case <-t.C:
	case <-w.kill:
	}
}

// promStep is the step of a range query over span: the configured one,
// coarser when the span would hold too many points.
func promStep(step, span time.Duration) time.Duration {
	if least := span / maxPromPoints; step < least {
		return (least/time.Second + 1) * time.Second
	}
	return step
}

// points runs one range query and returns its points; why says why there
// are none to use.
func (w *promWatch) points(ctx context.Context, name, noun, query string, r v1.Range) (_ []model.SamplePair, why string) {
	v, _, _, err := w.api.QueryRange(ctx, query, r)
	if err != nil {
		return nil, fmt.Sprintf("the %s query failed: %s", name, promError(err))
	}
	m, ok := v.(model.Matrix)
	if !ok {
		return nil, fmt.Sprintf("the %s query gave a %s, not a series of points", name, v.Type())
	}
	switch {
	case len(m) == 0:
		return nil, fmt.Sprintf("the %s query found no series during the case", name)
	case len(m) > 1:
		return nil, fmt.Sprintf("the %s query found %d series during the case, not one: sum() them, or narrow it with labels", name, len(m))
	}
	var out []model.SamplePair
	for _, p := range m[0].Values {
		f := float64(p.Value)
		switch {
		case math.IsNaN(f) || math.IsInf(f, 0):
			continue // no figure at that point, as a gap in the series is
		case f < 0 || f >= math.MaxInt64:
			return nil, fmt.Sprintf("the %s query gave %v at %s, which is not a %s", name, f, p.Timestamp.Time().UTC().Format(time.RFC3339), noun)
		}
		out = append(out, p)
	}
	if len(out) == 0 {
		return nil, fmt.Sprintf("the %s query found no point during the case", name)
	}
	return out, ""
}

// usageOf fills u from the points both queries have at the same time:
// the means and maxima of CPU and RSS, and the series. It reports whether
// there was one.
func usageOf(u *results.Usage, cpu, rss []model.SamplePair) bool {
	at := make(map[model.Time]float64, len(cpu))
	for _, p := range cpu {
		at[p.Timestamp] = float64(p.Value)
	}
	var cpuSum, rssSum float64
	for _, p := range rss {
		c, ok := at[p.Timestamp]
		if !ok {
			continue
		}
		pt := results.UsagePoint{At: p.Timestamp.Time(), CPU: c, RSS: int64(math.Round(float64(p.Value)))}
		u.Series = append(u.Series, pt)
		cpuSum += pt.CPU
		rssSum += float64(pt.RSS)
		u.CPUMax = max(u.CPUMax, pt.CPU)
		u.RSSMax = max(u.RSSMax, pt.RSS)
	}
	u.Samples = len(u.Series)
	if u.Samples == 0 {
		return false
	}
	n := float64(u.Samples)
	u.CPUMean, u.RSSMean = cpuSum/n, int64(math.Round(rssSum/n))
	return true
}
