package runner

import (
	"testing"
	"time"

	"github.com/loadgate/loadgate/internal/testpeer"
	"github.com/loadgate/loadgate/scenarios"
)

func tcpLit(s string) scenarios.Template {
	return scenarios.Template{Parts: []scenarios.TemplatePart{{Kind: scenarios.PartLiteral, Literal: []byte(s)}}}
}

func tcpSend(t scenarios.Template) scenarios.TCPStep {
	return scenarios.TCPStep{Kind: scenarios.StepSend, Payload: t}
}

func tcpExpectStep(contains string) scenarios.TCPStep {
	e := scenarios.TCPExpect{}
	if contains != "" {
		e.Contains = []byte(contains)
	}
	return scenarios.TCPStep{Kind: scenarios.StepExpect, Expect: e}
}

// monitorTarget is the agent of the long-vs-short study: a Connect
// handshake, then two data messages per iteration, each acknowledged.
func monitorTarget(addr string, conn scenarios.TCPConnection) *scenarios.Target {
	return &scenarios.Target{Name: "agent", TCP: &scenarios.TCPTarget{
		Address: addr, Connection: conn, Timeout: 5 * time.Second, MaxFrame: 1 << 20,
		Framing:   monitorFraming,
		OnConnect: []scenarios.TCPStep{tcpSend(tcpLit(`{"T":"Connect","S":1}`)), tcpExpectStep("ConnectAck")},
		Iteration: []scenarios.TCPStep{
			tcpSend(tcpLit(`{"T":"MonitorItemData","S":39}`)), tcpExpectStep(`"Ack"`),
			tcpSend(tcpLit(`{"T":"MonitorItemData","S":42}`)), tcpExpectStep(`"Ack"`),
		},
	}}
}

// monitorFraming frames the monitor protocol the ack server speaks.
var monitorFraming = scenarios.Framing{Kind: scenarios.FramingLengthPrefixed, Fields: []scenarios.FrameField{
	{Size: 2, Value: 1}, {Size: 4, Length: true},
}}

func TestTCPTargetThroughTheEngine(t *testing.T) {
	srv := testpeer.NewAckServer(t, 4)
	sc := &scenarios.Scenario{Name: "tcp", Cases: []scenarios.Case{{
		ID: "agent", Target: *monitorTarget(srv.Addr(), scenarios.Persistent),
		Phases: []scenarios.Phase{{Name: "m", Requests: 400, Concurrency: 4, Trials: 1}},
	}}}
	res, err := Run(t.Context(), sc, Config{Tick: 50 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	p := res.Cases[0].Phases[0]
	if p.Requests != 400 || p.Failed != 0 || p.Connect.Count() != 4 {
		t.Errorf("requests %d, failed %d, connects %d; want 400, 0, 4", p.Requests, p.Failed, p.Connect.Count())
	}
	if got := srv.Accepted(); got != 4 {
		t.Errorf("accepted %d connections, want one per worker", got)
	}
	if len(requestMix(&sc.Cases[0].Target)) != 1 {
		t.Errorf("a TCP target's mix must have one entry")
	}
}

// BenchmarkTCPEncode measures rendering and framing one monitor message
// into a worker's reused buffer: a static one (framed once, then copied),
// one with a timestamp, sequence and random number, and one with a UUID.
