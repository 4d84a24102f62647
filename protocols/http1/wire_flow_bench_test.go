package http1

import (
	"context"
	"testing"
	"time"

	"github.com/loadgate/loadgate/protocols"
	"github.com/loadgate/loadgate/scenarios"
)

// jsonCanned is a kept-alive JSON answer for the flow benchmarks.
const jsonCanned = "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 37\r\n\r\n" +
	`{"access_token":"abc123","id":424242}`

// nopSink is a protocols.StepSink that records nothing, so that a benchmark measures
// the client alone.
type nopSink struct{}

func (nopSink) Now() time.Time                            { return time.Now() }
func (nopSink) Sleep(context.Context, time.Duration) bool { return true }
func (nopSink) Step(context.Context, int, string, time.Duration, *protocols.Outcome) bool {
	return true
}

func benchTarget(url string, f *scenarios.Flow) *scenarios.Target {
	h := &scenarios.HTTPTarget{Keepalive: true, Timeout: 5 * time.Second, MaxBody: 10 << 20, Flow: f,
		Expect: scenarios.Expect{Length: -1}}
	if f == nil {
		for _, p := range []string{"a", "b", "c"} {
			h.Requests = append(h.Requests, scenarios.HTTPRequest{Name: p, Method: "GET", URL: url + p, Weight: 1})
		}
	}
	return &scenarios.Target{Name: "bench", HTTP: h}
}

// BenchmarkFlowStep is one flow step with one JSON extraction and one
// templated header, on a kept-alive loopback connection.
func BenchmarkFlowStep(b *testing.B) {
	url := cannedServer(b, jsonCanned)
	vars := []scenarios.FlowVar{{Name: "token", Source: -1}}
	st := step(vars, "get", "GET", url+"items/{{seq}}", 200)
	st.Headers = []scenarios.HeaderTemplate{{Name: "Authorization", Value: tpl(vars, "Bearer {{token}}")}}
	st.Extract = []scenarios.Extraction{{Var: "token", Slot: 0, Kind: scenarios.ExtractJSON, Path: "access_token"}}
	c, err := newFlowClient(benchTarget(url, &scenarios.Flow{Steps: []scenarios.Step{st}, Vars: vars}), 0, nil)
	if err != nil {
		b.Fatal(err)
	}
	defer c.Close()
	ctx := context.Background()
	b.ReportAllocs()
	for b.Loop() {
		if r := c.Iterate(ctx, time.Now(), nopSink{}); r.Kind != protocols.KindNone {
			b.Fatalf("step failed: %+v", r)
		}
	}
}

// BenchmarkFlowVsMix sends three requests per op to a loopback server:
// as a three-step flow (an extraction and a templated path) and as the
// same three requests of a plain mix. Their ns/op ratio is the flow's
// cost; requests/s = 3e9 / ns/op per connection.
func BenchmarkFlowVsMix(b *testing.B) {
	url := cannedServer(b, jsonCanned)
	ctx := context.Background()
	b.Run("flow", func(b *testing.B) {
		vars := []scenarios.FlowVar{{Name: "id", Source: -1}}
		a := step(vars, "a", "GET", url+"a", 200)
		a.Extract = []scenarios.Extraction{{Var: "id", Slot: 0, Kind: scenarios.ExtractJSON, Path: "id"}}
		f := &scenarios.Flow{Steps: []scenarios.Step{a, step(vars, "b", "GET", url+"b?id={{id}}", 200),
			step(vars, "c", "GET", url+"c", 200)}, Vars: vars}
		c, err := newFlowClient(benchTarget(url, f), 0, nil)
		if err != nil {
			b.Fatal(err)
		}
		defer c.Close()
		b.ReportAllocs()
		for b.Loop() {
			if r := c.Iterate(ctx, time.Now(), nopSink{}); r.Kind != protocols.KindNone {
				b.Fatalf("iteration failed: %+v", r)
			}
		}
		b.ReportMetric(3*float64(b.N)/b.Elapsed().Seconds(), "req/s")
	})
	b.Run("mix", func(b *testing.B) {
		c, err := newHTTP1Client(benchTarget(url, nil), 0)
		if err != nil {
			b.Fatal(err)
		}
		defer c.Close()
		var out protocols.Outcome
		b.ReportAllocs()
		for b.Loop() {
			for req := range 3 {
				if c.Do(ctx, req, &out); out.Kind != protocols.KindNone {
					b.Fatalf("request failed: %v", out.Err)
				}
			}
		}
		b.ReportMetric(3*float64(b.N)/b.Elapsed().Seconds(), "req/s")
	})
}
