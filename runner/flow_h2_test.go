package runner

import (
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/loadgate/loadgate/protocols/httpflow"
	"github.com/loadgate/loadgate/scenarios"
)

// The flow tests of flow_test.go and flow2_test.go, over HTTP/2: h2c with
// prior knowledge and h2 over TLS, the users' steps carried as streams on
// the case's shared connections.

// newH2Server is a countingServer speaking HTTP/2 only: h2c, or h2 over
// TLS when secure.
func newH2Server(t *testing.T, secure bool, h http.HandlerFunc) *countingServer {
	t.Helper()
	cs := &countingServer{}
	cs.Server = httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.ProtoMajor != 2 {
			w.WriteHeader(http.StatusHTTPVersionNotSupported)
			return
		}
		cs.requests.Add(1)
		h(w, r)
	}))
	cs.Config.ConnState = func(_ net.Conn, s http.ConnState) {
		if s == http.StateNew {
			cs.accepts.Add(1)
		}
	}
	cs.Config.Protocols = new(http.Protocols)
	if secure {
		cs.Config.Protocols.SetHTTP2(true)
		cs.EnableHTTP2 = true
		cs.StartTLS()
	} else {
		cs.Config.Protocols.SetUnencryptedHTTP2(true)
		cs.Start()
	}
	t.Cleanup(cs.Close)
	return cs
}

// h2Flow makes sc's flow target send over HTTP/2 on conns connections.
func h2Flow(sc *scenarios.Scenario, conns int) *scenarios.Scenario {
	h := sc.Targets[0].HTTP
	h.HTTP2, h.Connections = true, conns
	h.TLS.InsecureSkipVerify = true // the test server's own certificate
	return sc
}

var h2Modes = []struct {
	name   string
	secure bool
}{{"h2c", false}, {"h2", true}}

// Every user logs in once, carries its token, the id from a JSON body to
// the next path, the Location header and a regex capture; C connections
// carry every user's flow.
func TestFlowOverHTTP2CarriesValuesFromStepToStep(t *testing.T) {
	for _, mode := range h2Modes {
		for _, conns := range []int{1, 2} {
			t.Run(fmt.Sprintf("%s/connections=%d", mode.name, conns), func(t *testing.T) {
				api := &apiServer{counts: map[string]int{}, users: map[string]int{}, items: `{"items":[{"id":42},{"id":7}]}`, login: 200}
				srv := newH2Server(t, mode.secure, api.serve)
				sc := h2Flow(flowScenario(shopFlow(srv.URL), usersData(scenarios.DataUnique, scenarios.ExhaustedStop, "ann", "bob", "cy", "dee"),
					scenarios.Phase{Name: "m", Requests: 40, Concurrency: 4}), conns)
				p := runFlow(t, sc)
				if p.Iterations == nil || p.Iterations.Iterations != 40 || p.Iterations.Succeeded != 40 || p.Iterations.Latency.Count() != 40 {
					t.Fatalf("iterations = %+v, errors %v, want 40 succeeded", p.Iterations, p.ErrorSamples)
				}
				wantNames := []string{"list", "get", "order", "follow", "ref"}
				serverKeys := []string{"GET /items", "GET /items/{id}", "POST /orders", "GET /orders/7", "GET /refs/R-7"}
				if len(p.ByName) != len(wantNames) {
					t.Fatalf("by name: %d entries, want %d", len(p.ByName), len(wantNames))
				}
				for i, n := range p.ByName {
					if n.Name != wantNames[i] || n.Requests != 40 || n.Succeeded != 40 || n.Latency.Count() != 40 {
						t.Errorf("step %d = %s %+v, want %s: 40 succeeded", i, n.Name, n.Counters, wantNames[i])
					}
					if got := api.count(serverKeys[i]); int64(got) != n.Requests {
						t.Errorf("step %s: the server served %d, loadgate counted %d", n.Name, got, n.Requests)
					}
				}
				if p.Requests != 200 || p.Succeeded != 200 {
					t.Errorf("phase counts %d requests, %d succeeded; want the 200 step requests, setup excluded", p.Requests, p.Succeeded)
				}
				// A virtual user logs in before its first iteration; on a busy
				// machine the first users can take all 40 before the last starts.
				if logins := api.count("POST /login"); logins < 1 || logins > 4 || len(api.users) != logins {
					t.Errorf("%d logins by users %v: want at most one per virtual user, each its own unique row", logins, api.users)
				}
				if got := srv.accepts.Load(); got != int64(conns) {
					t.Errorf("4 users over %d connections: the server accepted %d", conns, got)
				}
			})
		}
	}
}

func TestFlowOverHTTP2FailedStepEndsIteration(t *testing.T) {
	for _, mode := range h2Modes {
		for _, tc := range []struct {
			name      string
			items     string
			login     int
			kind      string
			sample    string
			stepsSent int // steps of list, get the server saw
		}{
			{"extract", `{"items":[]}`, 200, "extract", `step "list": extract item: json path "items.0.id" not found: got "{\"items\":[]}"`, 1},
			{"setup status", `{"items":[{"id":42}]}`, 503, "status", `setup step "login": unexpected status 503`, 0},
			{"line break in a value", `{"items":[{"id":"1\r\nX-Evil: 1"}]}`, 200, "other", `step "get": ` + httpflow.ErrUnsafeValue.Error(), 1},
		} {
			t.Run(mode.name+"/"+tc.name, func(t *testing.T) {
				api := &apiServer{counts: map[string]int{}, users: map[string]int{}, items: tc.items, login: tc.login}
				srv := newH2Server(t, mode.secure, api.serve)
				sc := h2Flow(flowScenario(shopFlow(srv.URL), usersData(scenarios.DataSequential, scenarios.ExhaustedRecycle, "ann"),
					scenarios.Phase{Name: "m", Requests: 10, Concurrency: 2}), 1)
				p := runFlow(t, sc)
				if p.Iterations.Failed != 10 || p.Iterations.Succeeded != 0 || p.Iterations.Latency.Count() != 0 {
					t.Errorf("iterations = %+v, want 10 failed", p.Iterations)
				}
				var n int64
				p.Errors.Each(func(kind string, c int64) {
					if kind == tc.kind {
						n = c
					}
				})
				if n != 10 || p.Failed != 10 {
					t.Errorf("errors = %+v, want 10 of kind %s", p.Errors, tc.kind)
				}
				if got := p.ErrorSamples[tc.kind]; got != tc.sample {
					t.Errorf("sample = %q, want %q", got, tc.sample)
				}
				if got := api.count("GET /items/{id}"); got != 0 {
					t.Errorf("the server got %d requests for the step after the failed one, want 0", got)
				}
				if got := api.count("GET /items"); got != 10*tc.stepsSent {
					t.Errorf("the server got %d list requests, want %d", got, 10*tc.stepsSent)
				}
				if tc.login != 200 && api.count("POST /login") != 10 {
					t.Errorf("%d logins, want 10: a user retries setup before each iteration", api.count("POST /login"))
				}
			})
		}
	}
}

func TestFlowOverHTTP2CookiesRoundTrip(t *testing.T) {
	for _, mode := range h2Modes {
		for _, cookies := range []bool{true, false} {
			t.Run(fmt.Sprintf("%s/cookies=%v", mode.name, cookies), func(t *testing.T) {
				var withCookie, without countingConns
				srv := newH2Server(t, mode.secure, func(w http.ResponseWriter, r *http.Request) {
					switch r.URL.Path {
					case "/login":
						http.SetCookie(w, &http.Cookie{Name: "sid", Value: "s3cret", Path: "/"})
						http.SetCookie(w, &http.Cookie{Name: "lang", Value: "en", Path: "/"})
					case "/me":
						a, errA := r.Cookie("sid")
						b, errB := r.Cookie("lang")
						if errA == nil && errB == nil && a.Value == "s3cret" && b.Value == "en" {
							withCookie.n.Add(1)
							return
						}
						without.n.Add(1)
						w.WriteHeader(http.StatusUnauthorized)
					}
				})
				f := &scenarios.Flow{
					Setup:   []scenarios.Step{step(nil, "login", "POST", srv.URL+"/login", 200)},
					Steps:   []scenarios.Step{step(nil, "me", "GET", srv.URL+"/me", 200)},
					Cookies: cookies,
				}
				p := runFlow(t, h2Flow(flowScenario(f, nil, scenarios.Phase{Name: "m", Requests: 12, Concurrency: 2}), 1))
				if cookies && (p.Succeeded != 12 || withCookie.n.Load() != 12) {
					t.Errorf("cookies: %d succeeded, the server saw the cookies %d times; want 12", p.Succeeded, withCookie.n.Load())
				}
				if !cookies && (without.n.Load() != 12 || p.Errors.Status != 12) {
					t.Errorf("no cookies: the server saw %d requests without the cookies, %d status errors; want 12", without.n.Load(), p.Errors.Status)
				}
			})
		}
	}
}
