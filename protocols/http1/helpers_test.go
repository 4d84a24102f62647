package http1

import (
	"context"
	"io"
	"log"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/loadgate/loadgate/protocols"
	"github.com/loadgate/loadgate/protocols/httpflow"
	"github.com/loadgate/loadgate/scenarios"
)

// Test helpers shared by this package's tests; runner's engine tests keep
// their own copies, as test files cannot be imported across packages.

// countingServer is a loopback HTTP server that counts accepted TCP
// connections and served requests.
type countingServer struct {
	*httptest.Server
	accepts, requests atomic.Int64
}

func newCountingServer(t *testing.T, h http.HandlerFunc) *countingServer {
	t.Helper()
	return startCountingServer(t, h, false)
}

// startCountingServer starts a countingServer, over TLS when tls is set
// (with the test server's certificate); the handshakes the tests make
// fail are not logged.
func startCountingServer(t *testing.T, h http.HandlerFunc, tls bool) *countingServer {
	t.Helper()
	cs := &countingServer{}
	cs.Server = httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		cs.requests.Add(1)
		h(w, r)
	}))
	cs.Config.ConnState = func(_ net.Conn, s http.ConnState) {
		if s == http.StateNew {
			cs.accepts.Add(1)
		}
	}
	if tls {
		cs.Config.ErrorLog = log.New(io.Discard, "", 0)
		cs.StartTLS()
	} else {
		cs.Start()
	}
	t.Cleanup(cs.Close)
	return cs
}

func hello(w http.ResponseWriter, _ *http.Request) { _, _ = io.WriteString(w, "hello") }

// tpl compiles a test template: {{seq}} and {{worker}} are built-ins, any
// other {{name}} is the flow variable of that name in vars.
func tpl(vars []scenarios.FlowVar, s string) scenarios.Template {
	var t scenarios.Template
	for s != "" {
		i := strings.Index(s, "{{")
		if i < 0 {
			t.Parts = append(t.Parts, scenarios.TemplatePart{Kind: scenarios.PartLiteral, Literal: []byte(s)})
			break
		}
		if i > 0 {
			t.Parts = append(t.Parts, scenarios.TemplatePart{Kind: scenarios.PartLiteral, Literal: []byte(s[:i])})
		}
		j := strings.Index(s, "}}")
		name := s[i+2 : j]
		s = s[j+2:]
		switch name {
		case "seq":
			t.Parts = append(t.Parts, scenarios.TemplatePart{Kind: scenarios.PartSeq})
		case "worker":
			t.Parts = append(t.Parts, scenarios.TemplatePart{Kind: scenarios.PartWorker})
		default:
			slot := -1
			for k, v := range vars {
				if v.Name == name {
					slot = k
				}
			}
			if slot < 0 {
				panic("unknown variable " + name)
			}
			t.Parts = append(t.Parts, scenarios.TemplatePart{Kind: scenarios.PartVar, Slot: slot})
		}
	}
	return t
}

// step is a flow step of the test API with no checks but the status.
func step(vars []scenarios.FlowVar, name, method, url string, status ...int) scenarios.Step {
	return scenarios.Step{Name: name, Method: method, URL: tpl(vars, url),
		Expect: scenarios.Expect{Status: status, Length: -1}}
}

// flowUser is the client of a flow target, as the tests drive it.
type flowUser interface {
	protocols.Client
	protocols.Iterator
}

// newFlowClient makes the client of virtual user worker of flow target t:
// over tr when it is not nil, else over the lean client's connections.
func newFlowClient(t *scenarios.Target, worker int, tr httpflow.StepTransport) (flowUser, error) {
	if tr == nil {
		c, _, err := newFlowUser(t, worker)
		return c, err
	}
	c, err := httpflow.NewClient(t, worker, tr)
	if err != nil {
		return nil, err
	}
	return c.(flowUser), nil
}

// newFlowUser is newFlowClient over the lean client's connections, and
// those connections, whose last request a test may read.
func newFlowUser(t *scenarios.Target, worker int) (flowUser, *flowWire, error) {
	w := newFlowWire(t, 0)
	c, err := httpflow.NewWireClient(t, worker, w)
	if err != nil {
		return nil, nil, err
	}
	return c.(flowUser), w, nil
}

// checkSecondRequest sends two requests on cl's one connection and checks
// that the second ends as want. When want is KindNone, the connection's
// deadline, kept from the first request, is made one that fires while the
// second waits: a deadline set lazily must be rearmed, not failed.
func checkSecondRequest(t *testing.T, cl *http1Client, want protocols.ErrorKind) {
	t.Helper()
	var out protocols.Outcome
	cl.Do(context.Background(), 0, &out)
	if out.Kind != protocols.KindNone {
		t.Fatalf("first request: %v %v", out.Kind, out.Err)
	}
	if want == protocols.KindNone {
		if err := cl.conn.SetDeadline(time.Now().Add(20 * time.Millisecond)); err != nil {
			t.Fatal(err)
		}
	}
	cl.Do(context.Background(), 0, &out)
	if out.Kind != want {
		t.Errorf("second request: kind %v (%v), want %v", out.Kind, out.Err, want)
	}
}
