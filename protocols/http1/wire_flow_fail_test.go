package http1

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/loadgate/loadgate/protocols"
	"github.com/loadgate/loadgate/scenarios"
)

// failSink keeps what the engine would: the kind of the failed step and
// its message, worded when the step is recorded.
type failSink struct {
	nopSink
	kind protocols.ErrorKind
	msg  string
}

func (s *failSink) Step(_ context.Context, _ int, _ string, _ time.Duration, out *protocols.Outcome) bool {
	s.kind, s.msg = out.Kind, ""
	if out.Err != nil {
		s.msg = out.Err.Error()
	}
	return true
}

// canned is a kept-alive response of status with body.
func canned(status int, body string) string {
	return fmt.Sprintf("HTTP/1.1 %d X\r\nContent-Length: %d\r\n\r\n%s", status, len(body), body)
}

func TestFlowStepFailureQuotesTheBody(t *testing.T) {
	vars := []scenarios.FlowVar{{Name: "token", Source: -1}}
	long := strings.Repeat("z", 100)
	tests := []struct {
		name string
		resp string
		edit func(st *scenarios.Step)
		kind protocols.ErrorKind
		want string
	}{
		{
			name: "a refused status",
			resp: canned(401, `{"error":"bad token"}`),
			kind: protocols.KindStatus,
			want: `unexpected status 401: got "{\"error\":\"bad token\"}"`,
		},
		{
			// A status says it all when there is no body: no "got".
			name: "a refused status, no body",
			resp: canned(503, ""),
			kind: protocols.KindStatus,
		},
		{
			name: "a long body",
			resp: canned(500, long),
			kind: protocols.KindStatus,
			want: `unexpected status 500: got "` + long[:64] + `"…`,
		},
		{
			name: "body_contains",
			resp: canned(200, `{"items":[]}`),
			edit: func(st *scenarios.Step) { st.Expect.BodyContains = `"id"` },
			kind: protocols.KindCheck,
			want: `body does not contain "\"id\"": got "{\"items\":[]}"`,
		},
		{
			name: "an extraction",
			resp: canned(200, `{"error":"expired"}`),
			edit: func(st *scenarios.Step) {
				st.Extract = []scenarios.Extraction{{Var: "token", Slot: 0, Kind: scenarios.ExtractJSON, Path: "access_token"}}
			},
			kind: protocols.KindExtract,
			want: `extract token: json path "access_token" not found: got "{\"error\":\"expired\"}"`,
		},
		{
			name: "expect.length",
			resp: canned(200, "short"),
			edit: func(st *scenarios.Step) { st.Expect.Length = 10 },
			kind: protocols.KindLength,
			want: `body length is not 10 bytes (expect.length): got "short"`,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			url := cannedServer(t, tt.resp)
			st := step(vars, "login", "POST", url+"login", 200)
			if tt.edit != nil {
				tt.edit(&st)
			}
			c, err := newFlowClient(benchTarget(url, &scenarios.Flow{Steps: []scenarios.Step{st}, Vars: vars}), 0, nil)
			if err != nil {
				t.Fatal(err)
			}
			defer c.Close()
			var sink failSink
			c.Iterate(t.Context(), time.Now(), &sink)
			if sink.kind != tt.kind || sink.msg != tt.want {
				t.Errorf("kind %v, message\n%s\nwant %v,\n%s", sink.kind, sink.msg, tt.kind, tt.want)
			}
		})
	}
}

// TestFlowStepFailureDoesNotAllocate: quoting the body costs a copy of at
// most 64 bytes per response, and a failing step no allocation.
func TestFlowStepFailureDoesNotAllocate(t *testing.T) {
	url := cannedServer(t, canned(401, `{"error":"bad token"}`))
	c, err := newFlowClient(benchTarget(url, &scenarios.Flow{Steps: []scenarios.Step{step(nil, "login", "GET", url+"login", 200)}}), 0, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	ctx := t.Context()
	c.Iterate(ctx, time.Now(), nopSink{}) // connect outside the count
	var r protocols.IterOutcome
	allocs := testing.AllocsPerRun(200, func() { r = c.Iterate(ctx, time.Now(), nopSink{}) })
	if r.Kind != protocols.KindStatus {
		t.Fatalf("iteration %+v, want a status failure", r)
	}
	if allocs != 0 {
		t.Errorf("a failed step allocates %v times", allocs)
	}
}
