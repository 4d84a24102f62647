package runner

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"io"
	"net"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/loadgate/loadgate/scenarios"
)

// Loopback TCP peers for driving a TCP target through the engine; the
// protocol's own tests in protocols/tcp keep their copies.

// tcpServer is a loopback server for the TCP client's tests; handle runs
// once per accepted connection.
type tcpServer struct {
	ln       net.Listener
	accepted atomic.Int64
	wg       sync.WaitGroup
}

func newTCPServer(t testing.TB, handle func(net.Conn)) *tcpServer {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	s := &tcpServer{ln: ln}
	var mu sync.Mutex
	var conns []net.Conn
	s.wg.Go(func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			s.accepted.Add(1)
			mu.Lock()
			conns = append(conns, c)
			mu.Unlock()
			s.wg.Go(func() {
				defer c.Close()
				handle(c)
			})
		}
	})
	t.Cleanup(func() {
		_ = ln.Close()
		mu.Lock()
		for _, c := range conns {
			_ = c.Close()
		}
		mu.Unlock()
		s.wg.Wait()
	})
	return s
}

func (s *tcpServer) addr() string { return s.ln.Addr().String() }

// readMonitorFrame reads one u16 type + u32 big-endian length frame.
func readMonitorFrame(r *bufio.Reader) (typ uint16, body []byte, err error) {
	var h [6]byte
	if _, err := io.ReadFull(r, h[:]); err != nil {
		return 0, nil, err
	}
	body = make([]byte, binary.BigEndian.Uint32(h[2:]))
	_, err = io.ReadFull(r, body)
	return binary.BigEndian.Uint16(h[:2]), body, err
}

func monitorFrame(typ uint16, body string) []byte {
	b := binary.BigEndian.AppendUint16(nil, typ)
	b = binary.BigEndian.AppendUint32(b, uint32(len(body)))
	return append(b, body...)
}

// ackServer answers a Connect frame with ConnectAck and every other frame
// with Ack, as the monitor servers of the long-vs-short study did. It
// records every body it receives.
type ackServer struct {
	*tcpServer
	mu     sync.Mutex
	bodies []string
}

// newAckServer holds every ConnectAck until workers connections have sent
// their Connect (or 10s passed), so that each worker of a request-limited
// phase is sure to connect before the first ones use up the requests.
func newAckServer(t testing.TB, workers int) *ackServer {
	a := &ackServer{}
	var connects atomic.Int32
	all := make(chan struct{})
	a.tcpServer = newTCPServer(t, func(c net.Conn) {
		r := bufio.NewReader(c)
		for {
			typ, body, err := readMonitorFrame(r)
			if err != nil {
				return
			}
			a.mu.Lock()
			a.bodies = append(a.bodies, string(body))
			a.mu.Unlock()
			reply := `{"T":"Ack"}`
			if bytes.Contains(body, []byte(`"T":"Connect"`)) {
				reply = `{"T":"ConnectAck"}`
				if connects.Add(1) == int32(workers) {
					close(all)
				}
				select {
				case <-all:
				case <-time.After(10 * time.Second):
				}
			}
			if _, err := c.Write(monitorFrame(typ, reply)); err != nil {
				return
			}
		}
	})
	return a
}

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
	srv := newAckServer(t, 4)
	sc := &scenarios.Scenario{Name: "tcp", Cases: []scenarios.Case{{
		ID: "agent", Target: *monitorTarget(srv.addr(), scenarios.Persistent),
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
	if got := srv.accepted.Load(); got != 4 {
		t.Errorf("accepted %d connections, want one per worker", got)
	}
	if len(requestMix(&sc.Cases[0].Target)) != 1 {
		t.Errorf("a TCP target's mix must have one entry")
	}
}

// BenchmarkTCPEncode measures rendering and framing one monitor message
// into a worker's reused buffer: a static one (framed once, then copied),
// one with a timestamp, sequence and random number, and one with a UUID.
