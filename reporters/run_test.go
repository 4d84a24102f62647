package reporters

import (
	"bytes"
	"encoding/json"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/loadgate/loadgate/results"
	"github.com/loadgate/loadgate/scenarios"
)

// histComparer compares histograms by the samples they hold; their fields
// are unexported and their encoding is not the only one for a content.
var histComparer = cmp.Comparer(func(a, b *results.Histogram) bool {
	if a == nil || b == nil {
		return a == b
	}
	return a.Count() == b.Count() && cmp.Equal(buckets(a), buckets(b))
})

func buckets(h *results.Histogram) [][2]int64 {
	var out [][2]int64
	h.Buckets(func(upTo time.Duration, n int64) { out = append(out, [2]int64{int64(upTo), n}) })
	return out
}

func TestNewRun(t *testing.T) {
	run := fixtureRun()
	if run.Schema != results.Schema {
		t.Errorf("Schema = %d, want %d", run.Schema, results.Schema)
	}
	if run.Passed {
		t.Error("Passed = true, want false: rps >= 5000 fails on four cases")
	}
	if got := len(run.Scenarios); got != 4 {
		t.Fatalf("%d scenarios, want 4", got)
	}
	hello := run.Scenarios[0]
	if got := len(hello.Cases); got != 6 {
		t.Fatalf("%d cases, want 6", got)
	}
	for _, c := range hello.Cases {
		for _, p := range c.Phases {
			if p.Warmup {
				t.Errorf("case %s: warm-up phase %q kept", c.ID, p.Name)
			}
		}
		if len(c.Phases) != 1 {
			t.Errorf("case %s: %d phases, want the measured one only", c.ID, len(c.Phases))
		}
		// Stats must not count the warm-up's requests.
		if c.Stats.Requests != c.Phases[0].Requests {
			t.Errorf("case %s: Stats.Requests = %d, want %d", c.ID, c.Stats.Requests, c.Phases[0].Requests)
		}
		for _, v := range c.Verdicts {
			if v.Case != c.ID {
				t.Errorf("case %s holds a verdict of case %s", c.ID, v.Case)
			}
		}
	}
	if got := len(hello.Cases[0].Verdicts); got != 4 {
		t.Errorf("keepalive case: %d verdicts, want 4", got)
	}
	if got := len(hello.Cases[3].Verdicts); got != 5 {
		t.Errorf("close case: %d verdicts, want 5 (one narrowed to target close)", got)
	}
	if got := hello.Cases[1].Matrix; !cmp.Equal(got, []results.MatrixEntry{{Key: "concurrency", Value: int64(10)}}) {
		t.Errorf("matrix = %#v", got)
	}
	agent := run.Scenarios[2]
	if agent.Name != "tcp-agent" || agent.Error == "" || len(agent.Cases) != 0 {
		t.Errorf("broken scenario = %+v", agent)
	}
}

// TestWriteJSONGolden compares results.json with its golden file. An
// -update would bless any change to the on-disk format, so the document
// is also validated against the published results schema and read back by
// its documented field names and units, against the run it was written
// from (see checkResultsMeaning).
func TestWriteJSONGolden(t *testing.T) {
	run := fixtureRun()
	var b bytes.Buffer
	if err := results.WriteJSON(&b, run); err != nil {
		t.Fatal(err)
	}
	golden(t, "results.golden.json", b.Bytes())
	validatePublishedResultsSchema(t, b.Bytes())
	checkResultsMeaning(t, run, b.Bytes())
}

func TestJSONHasNoWarmup(t *testing.T) {
	var b bytes.Buffer
	if err := results.WriteJSON(&b, fixtureRun()); err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Scenarios []struct {
			Cases []struct {
				ID     string
				Phases []map[string]any
			}
		}
	}
	if err := json.Unmarshal(b.Bytes(), &doc); err != nil {
		t.Fatal(err)
	}
	phases := 0
	for _, s := range doc.Scenarios {
		for _, c := range s.Cases {
			for _, p := range c.Phases {
				phases++
				if _, ok := p["warmup"]; ok || p["name"] == "warmup" {
					t.Errorf("case %s: warm-up phase in JSON: name=%v", c.ID, p["name"])
				}
			}
		}
	}
	if phases != 9 {
		t.Errorf("%d phases in JSON, want 9 measured ones", phases)
	}
}

func TestJSONRoundTrip(t *testing.T) {
	orig := fixtureRun()
	var first bytes.Buffer
	if err := results.WriteJSON(&first, orig); err != nil {
		t.Fatal(err)
	}
	got, err := results.ReadRun(bytes.NewReader(first.Bytes()))
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(orig, got, histComparer); diff != "" {
		t.Errorf("round trip changed the run (-wrote +read):\n%s", diff)
	}
	for i, c := range got.Scenarios[0].Cases {
		want := orig.Scenarios[0].Cases[i].Stats.LatencyHist
		if c.Stats.LatencyHist == nil || c.Stats.LatencyHist.Count() != want.Count() {
			t.Fatalf("case %s: LatencyHist not rebuilt", c.ID)
		}
		// Arbitrary percentiles (rules' p(q)) must survive the file.
		if g, w := c.Stats.LatencyHist.Quantile(99.99), want.Quantile(99.99); g != w {
			t.Errorf("case %s: p99.99 = %v after reading, %v before", c.ID, g, w)
		}
	}
	checkLoadModelFields(t, got.Scenarios[1])
	var second bytes.Buffer
	if err := results.WriteJSON(&second, got); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(first.String(), second.String()); diff != "" {
		t.Errorf("rewritten JSON differs:\n%s", diff)
	}
}

// checkLoadModelFields spells out what the hello-slo scenario must carry
// after a round trip, so that a field lost on both sides (written as zero,
// read as zero) cannot pass as equal.
func checkLoadModelFields(t *testing.T, sr *results.ScenarioRun) {
	t.Helper()
	if len(sr.Cases) != 2 {
		t.Fatalf("hello-slo: %d cases, want 2", len(sr.Cases))
	}
	paced, repeated := sr.Cases[0], sr.Cases[1]
	p := paced.Phases[0]
	if p.Rate == nil || *p.Rate != (scenarios.Rate{From: sloRate, To: sloRate}) {
		t.Errorf("paced: Rate = %v, want %d/s", p.Rate, sloRate)
	}
	if p.Dropped != sloDropped || paced.Stats.Dropped != sloDropped {
		t.Errorf("paced: Dropped = %d, Stats.Dropped = %d, want %d", p.Dropped, paced.Stats.Dropped, sloDropped)
	}
	if p.SendLag == nil || p.SendLag.Count() != p.Requests {
		t.Errorf("paced: SendLag lost its samples: %v", p.SendLag)
	}
	// The stored summary must agree with the histogram it was read with.
	if want := results.Distribute(p.SendLag); paced.Stats.SendLag != want || want.P99 == 0 {
		t.Errorf("paced: Stats.SendLag = %+v, histogram gives %+v", paced.Stats.SendLag, want)
	}
	if p.Concurrency != 0 || paced.Stats.Trials != nil {
		t.Errorf("paced: Concurrency = %d, Trials = %v; want an open-model phase without trials", p.Concurrency, paced.Stats.Trials)
	}

	r := repeated.Phases[0]
	if len(r.Trials) != len(sloTrialRPS) {
		t.Fatalf("repeated: %d trials, want %d", len(r.Trials), len(sloTrialRPS))
	}
	for i, tr := range r.Trials {
		if tr.RPS != float64(sloTrialRPS[i]) || tr.P99 == 0 || tr.Elapsed != 10*time.Second {
			t.Errorf("repeated: trial %d = %+v", i+1, tr)
		}
	}
	sp := repeated.Stats.Trials
	if sp == nil || sp.N != 3 || sp.RPSMedian != 4920 || sp.RPSMin != 4850 || sp.RPSMax != 5100 || len(sp.RPS) != 3 {
		t.Fatalf("repeated: Stats.Trials = %+v", sp)
	}
	if repeated.Stats.RPS != sp.RPSMedian {
		t.Errorf("repeated: Stats.RPS = %v, want the median trial's %v", repeated.Stats.RPS, sp.RPSMedian)
	}
	if r.Rate != nil || r.SendLag != nil || repeated.Stats.Dropped != 0 {
		t.Errorf("repeated: closed-model phase grew open-model fields: rate %v, send lag %v, dropped %d", r.Rate, r.SendLag, repeated.Stats.Dropped)
	}
}
