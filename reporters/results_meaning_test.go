package reporters

import (
	"bytes"
	"encoding/json"
	"os"
	"testing"

	hdr "github.com/HdrHistogram/hdrhistogram-go"
	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/loadgate/loadgate/results"
)

// validatePublishedResultsSchema validates a results document against
// docs/results.schema.json, the schema users validate theirs with.
func validatePublishedResultsSchema(t *testing.T, data []byte) {
	t.Helper()
	schema, err := os.ReadFile("../docs/results.schema.json")
	if err != nil {
		t.Fatal(err)
	}
	sdoc, err := jsonschema.UnmarshalJSON(bytes.NewReader(schema))
	if err != nil {
		t.Fatalf("results schema is not JSON: %v", err)
	}
	c := jsonschema.NewCompiler()
	c.DefaultDraft(jsonschema.Draft2020)
	c.AssertFormat()
	if err := c.AddResource("results.schema.json", sdoc); err != nil {
		t.Fatal(err)
	}
	s, err := c.Compile("results.schema.json")
	if err != nil {
		t.Fatalf("compile results schema: %v", err)
	}
	v, err := jsonschema.UnmarshalJSON(bytes.NewReader(data))
	if err != nil {
		t.Fatalf("results.json is not JSON: %v", err)
	}
	if err := s.Validate(v); err != nil {
		t.Errorf("docs/results.schema.json rejects results.json: %v", err)
	}
}

// Field names and units as docs/results.md documents them, written out
// here rather than taken from the Go types: renaming a field or changing
// its unit must fail this test, whatever -update rewrote.
type meaningDoc struct {
	Schema    int               `json:"schema"`
	Passed    bool              `json:"passed"`
	Scenarios []meaningScenario `json:"scenarios"`
}

type meaningScenario struct {
	Name  string        `json:"name"`
	Cases []meaningCase `json:"cases"`
}

type meaningCase struct {
	ID       string           `json:"id"`
	Target   string           `json:"target"`
	Stats    meaningStats     `json:"stats"`
	Phases   []meaningPhase   `json:"phases"`
	Verdicts []meaningVerdict `json:"verdicts"`
}

type meaningStats struct {
	Requests  int64   `json:"requests"`
	Succeeded int64   `json:"succeeded"`
	Failed    int64   `json:"failed"`
	ElapsedNS int64   `json:"elapsed_ns"`
	RPS       float64 `json:"rps"`
	ErrorRate float64 `json:"error_rate"`
	Latency   struct {
		P50NS int64 `json:"p50_ns"`
		P99NS int64 `json:"p99_ns"`
		MaxNS int64 `json:"max_ns"`
	} `json:"latency"`
}

type meaningPhase struct {
	Name      string `json:"name"`
	Requests  int64  `json:"requests"`
	Succeeded int64  `json:"succeeded"`
	Latency   string `json:"latency"` // HDR V2 compressed, base64, µs
	// Samples and P99US are read from Latency with the HdrHistogram
	// library itself, as any reader of the document would.
	Samples int64 `json:"-"`
	P99US   int64 `json:"-"`
}

type meaningVerdict struct {
	Rule   string `json:"rule"`
	Status string `json:"status"`
}

// checkResultsMeaning reads a written results document by its documented
// names and units and compares it with the run it was written from.
func checkResultsMeaning(t *testing.T, run *results.Run, data []byte) {
	t.Helper()
	var got meaningDoc
	if err := json.Unmarshal(data, &got); err != nil {
		t.Fatal(err)
	}
	for _, sr := range got.Scenarios {
		for _, c := range sr.Cases {
			for i := range c.Phases {
				p := &c.Phases[i]
				h, err := hdr.Decode([]byte(p.Latency))
				if err != nil {
					t.Fatalf("case %q phase %q: latency does not decode with hdrhistogram: %v", c.ID, p.Name, err)
				}
				p.Samples, p.P99US, p.Latency = h.TotalCount(), h.ValueAtPercentile(99), ""
			}
		}
	}
	want := meaningDoc{Schema: results.Schema, Passed: run.Passed}
	for _, sr := range run.Scenarios {
		ws := meaningScenario{Name: sr.Name}
		for _, c := range sr.Cases {
			wc := meaningCase{ID: c.ID, Target: c.Target}
			st := &wc.Stats
			st.Requests, st.Succeeded, st.Failed = c.Stats.Requests, c.Stats.Succeeded, c.Stats.Failed
			st.ElapsedNS, st.RPS, st.ErrorRate = c.Stats.Elapsed.Nanoseconds(), c.Stats.RPS, c.Stats.ErrorRate
			st.Latency.P50NS, st.Latency.P99NS, st.Latency.MaxNS = c.Stats.Latency.P50.Nanoseconds(), c.Stats.Latency.P99.Nanoseconds(), c.Stats.Latency.Max.Nanoseconds()
			for _, p := range c.Phases {
				wc.Phases = append(wc.Phases, meaningPhase{Name: p.Name, Requests: p.Requests, Succeeded: p.Succeeded,
					Samples: p.Latency.Count(), P99US: p.Latency.Quantile(99).Microseconds()})
			}
			for _, v := range c.Verdicts {
				wc.Verdicts = append(wc.Verdicts, meaningVerdict{Rule: v.Rule, Status: string(v.Status)})
			}
			ws.Cases = append(ws.Cases, wc)
		}
		want.Scenarios = append(want.Scenarios, ws)
	}
	if diff := cmp.Diff(want, got, cmpopts.EquateEmpty()); diff != "" {
		t.Errorf("results.json does not say what the run measured (-run +document):\n%s", diff)
	}
	// Anchors in absolute terms, in case the fixture and the document
	// drifted together: 1,000 requests/s for 15 s, p99 under a millisecond.
	first := got.Scenarios[0].Cases[0]
	if first.Stats.Requests != 15000 || first.Stats.RPS != 1000 || first.Stats.ElapsedNS != 15e9 || first.Stats.Latency.P99NS != 990000 {
		t.Errorf("first case: requests %d, rps %v, elapsed_ns %d, p99_ns %d; want 15000, 1000, 15e9, 990000",
			first.Stats.Requests, first.Stats.RPS, first.Stats.ElapsedNS, first.Stats.Latency.P99NS)
	}
}
