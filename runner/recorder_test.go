package runner

import (
	"errors"
	"maps"
	"reflect"
	"testing"
	"time"

	"github.com/loadgate/loadgate/protocols"
	"github.com/loadgate/loadgate/results"
)

func TestCollectorSeriesAndTotals(t *testing.T) {
	p := &results.PhaseResult{Latency: results.NewHistogram(), FailedLatency: results.NewHistogram(), Connect: results.NewHistogram()}
	shards := []*shard{newShard(0, false, false), newShard(0, false, false)}
	col := newCollector(p, shards)
	ok := protocols.Outcome{BytesSent: 10, BytesReceived: 100}
	bad := protocols.Outcome{Kind: protocols.KindStatus, Status: 503, BytesSent: 10, BytesReceived: 50, Connect: time.Millisecond}
	for i := 0; i < 9; i++ {
		shards[i%2].record(0, -1, 10*time.Millisecond, 0, &ok)
	}
	shards[1].record(0, -1, 500*time.Millisecond, 0, &bad)
	first, _ := col.closeSecond(0, 3, 0)
	shards[0].record(0, -1, 20*time.Millisecond, 0, &ok)
	second, _ := col.closeSecond(1, 0, 0)

	if first.Completed != 10 || first.Errors != 1 || first.InFlight != 3 {
		t.Errorf("first second = %+v", first)
	}
	if first.P50 < 10*time.Millisecond || first.P50 > 10100*time.Microsecond {
		t.Errorf("first second p50 = %v, want ≈10ms", first.P50)
	}
	if first.P99 > 10100*time.Microsecond {
		t.Errorf("first second p99 = %v, want ≈10ms: the failed request's 500ms leaked into the successes", first.P99)
	}
	if second.Completed != 1 || second.P99 < 20*time.Millisecond || second.P99 > 21*time.Millisecond {
		t.Errorf("second second = %+v: the first second leaked into it", second)
	}
	if first.Connects != 1 || first.ConnectP99 < time.Millisecond || first.ConnectP99 > 1010*time.Microsecond {
		t.Errorf("first second opened %d connections, p99 %v; want 1 of ≈1ms", first.Connects, first.ConnectP99)
	}
	if second.Connects != 0 || second.ConnectP99 != 0 {
		t.Errorf("second second opened %d connections, p99 %v; want none: the first second leaked into it", second.Connects, second.ConnectP99)
	}
	want := results.Counters{Requests: 11, Succeeded: 10, Failed: 1, Errors: results.ErrorCounts{Status: 1},
		BytesSent: 110, BytesReceived: 1050}
	if !reflect.DeepEqual(p.Counters, want) {
		t.Errorf("totals = %+v, want %+v", p.Counters, want)
	}
	if p.Latency.Count() != 10 || p.FailedLatency.Count() != 1 || p.Connect.Count() != 1 {
		t.Errorf("histograms hold %d succeeded / %d failed latencies / %d connects, want 10 / 1 / 1",
			p.Latency.Count(), p.FailedLatency.Count(), p.Connect.Count())
	}
	if got := p.FailedLatency.Quantile(50); got < 500*time.Millisecond {
		t.Errorf("failed latency p50 = %v, want ≈500ms", got)
	}
	if got, want := p.ErrorSamples, map[string]string{"status": "unexpected status 503"}; !maps.Equal(got, want) {
		t.Errorf("error samples = %q, want %q", got, want)
	}
}

// BenchmarkRecord is the hot path's bookkeeping: one completed request into
// a shard. It must not allocate.
func BenchmarkRecord(b *testing.B) {
	sh := newShard(3, true, false)
	sh.statuses = new(statusCounts) // an HTTP target's, the one that counts most
	out := protocols.Outcome{Status: 200, BytesSent: 80, BytesReceived: 160}
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		sh.record(i%3, -1, time.Duration(i%5000)*time.Microsecond, 0, &out)
	}
}

func TestRecordDoesNotAllocate(t *testing.T) {
	sh := newShard(2, false, false)
	sh.statuses = new(statusCounts)
	out := protocols.Outcome{Kind: protocols.KindTimeout}
	status := protocols.Outcome{Kind: protocols.KindStatus, Status: 503}
	sh.record(0, -1, time.Millisecond, 0, &status) // the one description of the kind
	allocs := testing.AllocsPerRun(1000, func() {
		sh.record(1, -1, 3*time.Millisecond, 0, &out)
		sh.record(1, -1, 3*time.Millisecond, 0, &status)
	})
	if allocs != 0 {
		t.Errorf("record allocates %v times per request", allocs)
	}
}

func TestRecordStepAndIterationDoNotAllocate(t *testing.T) {
	sh := newShard(3, true, true)
	ok := protocols.Outcome{BytesSent: 80}
	bad := protocols.Outcome{Kind: protocols.KindExtract}
	sh.recordStep(0, "list", -1, time.Millisecond, &bad) // the one description of the kind
	allocs := testing.AllocsPerRun(1000, func() {
		sh.recordStep(1, "get", -1, 3*time.Millisecond, &ok)
		sh.recordStep(2, "order", -1, 3*time.Millisecond, &bad)
		sh.recordStep(-1, "login", -1, 0, &bad)
		sh.recordIteration(9*time.Millisecond, time.Microsecond, protocols.KindNone)
		sh.recordIteration(0, 0, protocols.KindExtract)
	})
	if allocs != 0 {
		t.Errorf("recording a flow's steps and iterations allocates %v times", allocs)
	}
}

func TestCollectorFlowTotals(t *testing.T) {
	errNotFound := errors.New(`extract id: json path "id" not found`)
	p := &results.PhaseResult{Latency: results.NewHistogram(), FailedLatency: results.NewHistogram(), Connect: results.NewHistogram(),
		ByName:     []*results.NamedResult{{Name: "a", Latency: results.NewHistogram()}, {Name: "b", Latency: results.NewHistogram()}},
		Iterations: &results.IterationResult{Latency: results.NewHistogram()}}
	shards := []*shard{newShard(2, false, true), newShard(2, false, true)}
	col := newCollector(p, shards)
	ok, bad := protocols.Outcome{}, protocols.Outcome{Kind: protocols.KindExtract, Err: errNotFound}
	for i := range 4 {
		sh := shards[i%2]
		sh.recordStep(0, "a", -1, time.Millisecond, &ok)
		sh.recordStep(1, "b", -1, 2*time.Millisecond, &ok)
		sh.recordIteration(3*time.Millisecond, 0, protocols.KindNone)
	}
	shards[0].recordStep(0, "a", -1, time.Millisecond, &bad)
	shards[0].recordIteration(0, 0, protocols.KindExtract)
	shards[1].recordStep(-1, "login", -1, 0, &protocols.Outcome{Kind: protocols.KindStatus, Status: 500})
	shards[1].recordIteration(0, 0, protocols.KindStatus)
	col.closeSecond(0, 0, 0)
	if got := *p.Iterations; got.Iterations != 6 || got.Succeeded != 4 || got.Failed != 2 || got.Latency.Count() != 4 {
		t.Errorf("iterations = %+v, want 6: 4 succeeded, 2 failed, 4 latencies", got)
	}
	if p.ByName[0].Requests != 5 || p.ByName[0].Errors.Extract != 1 || p.ByName[1].Requests != 4 {
		t.Errorf("by name = %+v, %+v", p.ByName[0].Counters, p.ByName[1].Counters)
	}
	want := results.Counters{Requests: 10, Succeeded: 8, Failed: 2, Errors: results.ErrorCounts{Extract: 1, Status: 1}}
	if !reflect.DeepEqual(p.Counters, want) {
		t.Errorf("totals = %+v, want %+v: steps and the failed setup request", p.Counters, want)
	}
	if got := p.ErrorSamples["extract"]; got != `step "a": `+errNotFound.Error() {
		t.Errorf("extract sample = %q, want it named after its step", got)
	}
	if got := p.ErrorSamples["status"]; got != `setup step "login": unexpected status 500` {
		t.Errorf("status sample = %q, want it named after its setup step", got)
	}
}
