package runner

import (
	"context"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"regexp"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/loadgate/loadgate/results"
	"github.com/loadgate/loadgate/scenarios"
)

// countingServer is a loopback HTTP server that counts accepted TCP
// connections and served requests.
type countingServer struct {
	*httptest.Server
	accepts, requests atomic.Int64
}

func newCountingServer(t *testing.T, h http.HandlerFunc) *countingServer {
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
	cs.Start()
	t.Cleanup(cs.Close)
	return cs
}

func hello(w http.ResponseWriter, _ *http.Request) { _, _ = io.WriteString(w, "hello") }

func httpScenario(target scenarios.HTTPTarget, phases ...scenarios.Phase) *scenarios.Scenario {
	if target.Timeout == 0 {
		target.Timeout = 5 * time.Second
	}
	if target.MaxBody == 0 {
		target.MaxBody = 10 << 20
	}
	if target.Expect.Length == 0 {
		target.Expect.Length = -1
	}
	for i := range target.Requests {
		if target.Requests[i].Method == "" {
			target.Requests[i].Method = http.MethodGet
		}
		if target.Requests[i].Weight == 0 {
			target.Requests[i].Weight = 1
		}
	}
	tg := scenarios.Target{Name: "t", HTTP: &target}
	return &scenarios.Scenario{
		Name:    "test",
		Targets: []scenarios.Target{tg},
		Cases:   []scenarios.Case{{ID: "t", Target: tg, Phases: phases}},
	}
}

func single(url string) []scenarios.HTTPRequest {
	return []scenarios.HTTPRequest{{URL: url}}
}

func TestRequestLimitIsExact(t *testing.T) {
	srv := newCountingServer(t, hello)
	sc := httpScenario(scenarios.HTTPTarget{Requests: single(srv.URL), Keepalive: true},
		scenarios.Phase{Name: "m", Requests: 137, Concurrency: 8})
	res, err := Run(context.Background(), sc, Config{})
	if err != nil {
		t.Fatal(err)
	}
	p := res.Cases[0].Phases[0]
	if p.Requests != 137 || p.Succeeded != 137 || p.Failed != 0 {
		t.Errorf("requests/succeeded/failed = %d/%d/%d, want 137/137/0", p.Requests, p.Succeeded, p.Failed)
	}
	if got := srv.requests.Load(); got != 137 {
		t.Errorf("server saw %d requests, want 137", got)
	}
	if got := p.Latency.Count(); got != 137 {
		t.Errorf("latency histogram holds %d samples, want 137", got)
	}
	if p.BytesReceived <= 137*int64(len("hello")) || p.BytesSent == 0 {
		t.Errorf("bytes received %d / sent %d: headers are not counted", p.BytesReceived, p.BytesSent)
	}
	var series int64
	for _, s := range p.Series {
		series += s.Completed
	}
	if series != 137 {
		t.Errorf("time series adds up to %d, want 137", series)
	}
}

func TestKeepaliveConnections(t *testing.T) {
	for _, tc := range []struct {
		name      string
		keepalive bool
		want      func(n int64) bool
		wantText  string
	}{
		{"keepalive reuses one connection per worker", true, func(n int64) bool { return n == 2 }, "2"},
		{"no keepalive opens one connection per request", false, func(n int64) bool { return n == 60 }, "60"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			// The first request waits until the second arrives: without
			// that, one worker can claim all 60 requests before the other
			// is first scheduled, and only one connection is ever opened.
			second := make(chan struct{})
			var arrivals atomic.Int64
			srv := newCountingServer(t, func(w http.ResponseWriter, r *http.Request) {
				switch arrivals.Add(1) {
				case 1:
					select {
					case <-second:
					case <-r.Context().Done():
					}
				case 2:
					close(second)
				}
				hello(w, r)
			})
			sc := httpScenario(scenarios.HTTPTarget{Requests: single(srv.URL), Keepalive: tc.keepalive},
				scenarios.Phase{Name: "m", Requests: 60, Concurrency: 2})
			res, err := Run(context.Background(), sc, Config{})
			if err != nil {
				t.Fatal(err)
			}
			if got := srv.accepts.Load(); !tc.want(got) {
				t.Errorf("server accepted %d connections, want %s", got, tc.wantText)
			}
			p := res.Cases[0].Phases[0]
			if p.Succeeded != 60 {
				t.Errorf("succeeded = %d, want 60", p.Succeeded)
			}
			if got := p.Connect.Count(); !tc.want(got) {
				t.Errorf("connect histogram holds %d handshakes, want %s", got, tc.wantText)
			}
		})
	}
}

func TestErrorKinds(t *testing.T) {
	closed := func() string {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		addr := l.Addr().String()
		l.Close()
		return "http://" + addr + "/"
	}()
	srv := newCountingServer(t, func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/500":
			w.WriteHeader(http.StatusInternalServerError)
		case "/slow":
			select {
			case <-time.After(2 * time.Second):
			case <-r.Context().Done():
			}
		case "/reset":
			hj, _ := w.(http.Hijacker)
			conn, _, _ := hj.Hijack()
			if tc, ok := conn.(*net.TCPConn); ok {
				_ = tc.SetLinger(0)
			}
			conn.Close()
		case "/garbage":
			hj, _ := w.(http.Hijacker)
			conn, _, _ := hj.Hijack()
			_, _ = io.WriteString(conn, "NOT HTTP AT ALL\r\n\r\n")
			conn.Close()
		default:
			_, _ = io.WriteString(w, "hello")
		}
	})
	for _, tc := range []struct {
		name   string
		url    string
		expect scenarios.Expect
		want   results.ErrorCounts
		// codes counts the responses by status: every response that
		// arrived, whether expect accepted it or not.
		codes map[string]int64
	}{
		{"refused connection", closed, scenarios.Expect{}, results.ErrorCounts{Connect: 4}, nil},
		{"status outside 2xx/3xx", srv.URL + "/500", scenarios.Expect{}, results.ErrorCounts{Status: 4}, map[string]int64{"500": 4}},
		{"status not in expect list", srv.URL + "/", scenarios.Expect{Status: []int{201}}, results.ErrorCounts{Status: 4}, map[string]int64{"200": 4}},
		{"timeout", srv.URL + "/slow", scenarios.Expect{}, results.ErrorCounts{Timeout: 4}, nil},
		{"body length", srv.URL + "/", scenarios.Expect{Length: 3}, results.ErrorCounts{Length: 4}, map[string]int64{"200": 4}},
		{"body_contains", srv.URL + "/", scenarios.Expect{BodyContains: "bye"}, results.ErrorCounts{Check: 4}, map[string]int64{"200": 4}},
		{"body_regex", srv.URL + "/", scenarios.Expect{BodyRegex: regexp.MustCompile(`^h.*z$`)}, results.ErrorCounts{Check: 4}, map[string]int64{"200": 4}},
		{"reset by peer", srv.URL + "/reset", scenarios.Expect{}, results.ErrorCounts{Reset: 4}, nil},
		{"garbage response", srv.URL + "/garbage", scenarios.Expect{}, results.ErrorCounts{Protocol: 4}, nil},
		{"all checks pass", srv.URL + "/", scenarios.Expect{Status: []int{200}, Length: 5, BodyContains: "ell",
			BodyRegex: regexp.MustCompile(`^hello$`)}, results.ErrorCounts{}, map[string]int64{"200": 4}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if tc.expect.Length == 0 {
				tc.expect.Length = -1
			}
			sc := httpScenario(scenarios.HTTPTarget{Requests: single(tc.url), Keepalive: true,
				Timeout: 200 * time.Millisecond, Expect: tc.expect},
				scenarios.Phase{Name: "m", Requests: 4, Concurrency: 1})
			res, err := Run(context.Background(), sc, Config{})
			if err != nil {
				t.Fatal(err)
			}
			p := res.Cases[0].Phases[0]
			if diff := cmp.Diff(tc.want, p.Errors); diff != "" {
				t.Errorf("errors by kind (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tc.codes, p.StatusCodes); diff != "" {
				t.Errorf("status codes (-want +got):\n%s", diff)
			}
			if p.Requests != 4 || p.Failed != tc.want.Total() {
				t.Errorf("requests/failed = %d/%d, want 4/%d", p.Requests, p.Failed, tc.want.Total())
			}
		})
	}
}

func TestWeightedMixIsReportedByName(t *testing.T) {
	srv := newCountingServer(t, hello)
	sc := httpScenario(scenarios.HTTPTarget{Keepalive: true, Requests: []scenarios.HTTPRequest{
		{Name: "home", URL: srv.URL + "/", Weight: 3},
		{Name: "login", URL: srv.URL + "/login", Method: http.MethodPost, Body: []byte("u=1"), Weight: 1},
	}}, scenarios.Phase{Name: "m", Requests: 400, Concurrency: 4})
	res, err := Run(context.Background(), sc, Config{})
	if err != nil {
		t.Fatal(err)
	}
	p := res.Cases[0].Phases[0]
	if len(p.ByName) != 2 {
		t.Fatalf("by_name has %d entries, want 2", len(p.ByName))
	}
	home, login := p.ByName[0], p.ByName[1]
	if home.Requests+login.Requests != 400 {
		t.Errorf("home %d + login %d != 400", home.Requests, login.Requests)
	}
	// 3:1 weights; a generous band keeps this deterministic-seeded check robust.
	if home.Requests < 240 || home.Requests > 360 {
		t.Errorf("home got %d of 400 requests, want about 300", home.Requests)
	}
	if home.Latency.Count() != home.Requests || login.Latency.Count() != login.Requests {
		t.Error("per-name histograms do not match per-name counts")
	}
	if home.StatusCodes["200"] != home.Requests || login.StatusCodes["200"] != login.Requests || p.StatusCodes["200"] != 400 {
		t.Errorf("status 200 counted %v (home), %v (login), %v (phase); want every response", home.StatusCodes, login.StatusCodes, p.StatusCodes)
	}
}

func TestDurationPhaseStopsAndWarmupIsKeptApart(t *testing.T) {
	srv := newCountingServer(t, hello)
	sc := httpScenario(scenarios.HTTPTarget{Requests: single(srv.URL), Keepalive: true},
		scenarios.Phase{Name: "warm", Warmup: true, Requests: 50, Concurrency: 2},
		scenarios.Phase{Name: "m", Duration: 300 * time.Millisecond, Concurrency: 2, ThinkTime: 5 * time.Millisecond})
	start := time.Now()
	res, err := Run(context.Background(), sc, Config{Tick: 50 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	if took := time.Since(start); took > 5*time.Second {
		t.Errorf("run took %v for a 300ms phase", took)
	}
	c := res.Cases[0]
	if len(c.Phases) != 2 || !c.Phases[0].Warmup {
		t.Fatalf("phases = %+v", c.Phases)
	}
	m := c.Measured("")
	if len(m) != 1 || m[0].Name != "m" {
		t.Fatalf("measured phases = %v, want only m", m)
	}
	if m[0].Requests == 0 || m[0].Elapsed < 300*time.Millisecond {
		t.Errorf("measured phase: %d requests in %v", m[0].Requests, m[0].Elapsed)
	}
	// Think time bounds the rate: 2 workers × (300ms / ≥5ms) ≤ 120 requests.
	if m[0].Requests > 122 {
		t.Errorf("think_time ignored: %d requests", m[0].Requests)
	}
	if c.Err != "" {
		t.Errorf("case error %q", c.Err)
	}
}

func TestCancelStopsPromptlyAndMarksInterrupted(t *testing.T) {
	srv := newCountingServer(t, func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-time.After(50 * time.Millisecond):
		case <-r.Context().Done():
		}
		_, _ = io.WriteString(w, "hello")
	})
	sc := httpScenario(scenarios.HTTPTarget{Requests: single(srv.URL), Keepalive: true},
		scenarios.Phase{Name: "m", Duration: time.Minute, Concurrency: 4},
		scenarios.Phase{Name: "never", Duration: time.Minute, Concurrency: 4})
	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(400*time.Millisecond, cancel)
	start := time.Now()
	res, err := Run(ctx, sc, Config{})
	if err != nil {
		t.Fatal(err)
	}
	if took := time.Since(start); took > 3*time.Second {
		t.Errorf("cancel took %v to stop the run", took)
	}
	if !res.Interrupted {
		t.Error("result not marked interrupted")
	}
	c := res.Cases[0]
	if len(c.Phases) != 1 || !c.Phases[0].Interrupted || c.Phases[0].Requests == 0 {
		t.Errorf("want one interrupted phase with requests, got %d phases", len(c.Phases))
	}
}

// The start offsets themselves are a pure function (TestRampStart); this
// checks the engine keeps them. Only lower bounds are asserted: a busy
// machine can start a worker late, never early.
func TestRampUpStartsWorkersGradually(t *testing.T) {
	var mu sync.Mutex
	firstSeen := map[string]time.Time{} // by connection: one per keep-alive worker
	srv := newCountingServer(t, func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		if _, ok := firstSeen[r.RemoteAddr]; !ok {
			firstSeen[r.RemoteAddr] = time.Now()
		}
		mu.Unlock()
		time.Sleep(5 * time.Millisecond)
		_, _ = io.WriteString(w, "hello")
	})
	sc := httpScenario(scenarios.HTTPTarget{Requests: single(srv.URL), Keepalive: true},
		scenarios.Phase{Name: "m", Duration: 800 * time.Millisecond, Concurrency: 4, RampUp: 400 * time.Millisecond})
	before := time.Now()
	if _, err := Run(context.Background(), sc, Config{Tick: 100 * time.Millisecond}); err != nil {
		t.Fatal(err)
	}
	mu.Lock()
	defer mu.Unlock()
	var starts []time.Duration
	for _, at := range firstSeen {
		starts = append(starts, at.Sub(before))
	}
	slices.Sort(starts)
	if len(starts) != 4 {
		t.Fatalf("%d workers connected, want 4: %v", len(starts), starts)
	}
	for w, at := range starts {
		// Workers start at 0, 100, 200 and 300ms into the phase.
		if want := time.Duration(w) * 100 * time.Millisecond; at < want {
			t.Errorf("worker %d sent its first request %v after the run began, before its ramp start %v", w, at, want)
		}
	}
}

func TestNoCompletedRequestIsACaseError(t *testing.T) {
	srv := newCountingServer(t, hello)
	sc := httpScenario(scenarios.HTTPTarget{Requests: single(srv.URL), Keepalive: true},
		scenarios.Phase{Name: "warm", Warmup: true, Requests: 3, Concurrency: 1})
	res, err := Run(context.Background(), sc, Config{})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(res.Cases[0].Err, "no measured phase ran") {
		t.Errorf("case error = %q", res.Cases[0].Err)
	}
}
