package demoserver

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"
	"time"
)

// start starts a server for one test and closes it when the test ends.
func start(t *testing.T, cfg Config) *Server {
	t.Helper()
	if cfg.HTTPAddr == "" {
		cfg.HTTPAddr = "127.0.0.1:0"
	}
	s, err := Start(t.Context(), cfg)
	if err != nil {
		t.Fatalf("Start: %v", err)
	}
	t.Cleanup(func() {
		if err := s.Close(); err != nil {
			t.Errorf("Close: %v", err)
		}
	})
	return s
}

// newClient returns a client with its own transport, so connection reuse is
// decided by keepAlive alone and no pooled connection leaks between tests.
// The timeout only guards against a hung test; no test expects to reach it.
func newClient(t *testing.T, keepAlive bool) *http.Client {
	t.Helper()
	tr := &http.Transport{DisableKeepAlives: !keepAlive}
	t.Cleanup(tr.CloseIdleConnections)
	return &http.Client{Transport: tr, Timeout: 30 * time.Second}
}

type response struct {
	status int
	header http.Header
	length int64
	body   string
	close  bool // the server announced it closes the connection
}

// do sends one request and reads the whole body, which a keep-alive client
// needs before it can reuse the connection.
func do(t *testing.T, c *http.Client, method, url, body string, header http.Header) response {
	t.Helper()
	var rd io.Reader
	if body != "" {
		rd = strings.NewReader(body)
	}
	req, err := http.NewRequestWithContext(t.Context(), method, url, rd)
	if err != nil {
		t.Fatal(err)
	}
	for k, v := range header {
		req.Header[k] = v
	}
	resp, err := c.Do(req)
	if err != nil {
		t.Fatalf("%s %s: %v", method, url, err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatalf("%s %s: reading body: %v", method, url, err)
	}
	return response{status: resp.StatusCode, header: resp.Header, length: resp.ContentLength, body: string(b), close: resp.Close}
}

func TestRoutes(t *testing.T) {
	s := start(t, Config{})
	c := newClient(t, true)
	base := "http://" + s.HTTPAddr()

	tests := []struct {
		name       string
		method     string
		path       string
		body       string
		header     http.Header
		wantStatus int
		wantBody   string // exact, unless check is set
		wantCT     string // Content-Type prefix; empty = not checked
		check      func(t *testing.T, body string)
	}{
		{name: "hello", method: "GET", path: "/", wantStatus: 200, wantBody: "hello", wantCT: "text/plain"},
		// HEAD must keep Content-Length so ab-style length checks agree with GET.
		{name: "hello HEAD", method: "HEAD", path: "/", wantStatus: 200, wantBody: "", wantCT: "text/plain"},
		{name: "hello wrong method", method: "POST", path: "/", wantStatus: 405, check: func(*testing.T, string) {}},
		{name: "health", method: "GET", path: "/health", wantStatus: 200, wantBody: "ok", wantCT: "text/plain"},
		{name: "time", method: "GET", path: "/time", wantStatus: 200, wantCT: "text/plain",
			check: func(t *testing.T, body string) {
				if _, err := time.Parse(time.RFC3339Nano, body); err != nil {
					t.Errorf("body %q is not RFC 3339: %v", body, err)
				}
			}},
		{name: "stats", method: "GET", path: "/stats", wantStatus: 200, wantCT: "application/json",
			check: func(t *testing.T, body string) {
				var st Stats
				if err := json.Unmarshal([]byte(body), &st); err != nil {
					t.Fatalf("body %q: %v", body, err)
				}
				// Every earlier row plus this request went over one connection.
				if st.Accepted != 1 || st.Requests < 1 || st.Errors != 0 {
					t.Errorf("stats = %+v, want accepted 1, requests >= 1, errors 0", st)
				}
			}},
		{name: "echo", method: "POST", path: "/echo", body: "ping\x00pong",
			header:     http.Header{"Content-Type": {"application/x-test"}},
			wantStatus: 200, wantBody: "ping\x00pong", wantCT: "application/x-test"},
		{name: "echo empty", method: "GET", path: "/echo", wantStatus: 200, wantBody: "", wantCT: "application/octet-stream"},
		{name: "bytes 0", method: "GET", path: "/bytes/0", wantStatus: 200, wantBody: ""},
		{name: "bytes 40", method: "GET", path: "/bytes/40", wantStatus: 200,
			wantBody: "0123456789abcdefghijklmnopqrstuvwxyz\n012", wantCT: "application/octet-stream"},
		{name: "bytes max", method: "GET", path: "/bytes/" + strconv.Itoa(maxBodyBytes), wantStatus: 200,
			check: func(t *testing.T, body string) {
				if len(body) != maxBodyBytes {
					t.Errorf("got %d bytes, want %d", len(body), maxBodyBytes)
				}
			}},
		{name: "bytes over max", method: "GET", path: "/bytes/" + strconv.Itoa(maxBodyBytes+1), wantStatus: 400, check: func(*testing.T, string) {}},
		{name: "bytes negative", method: "GET", path: "/bytes/-1", wantStatus: 400, check: func(*testing.T, string) {}},
		{name: "bytes not a number", method: "GET", path: "/bytes/ten", wantStatus: 400, check: func(*testing.T, string) {}},
		{name: "status 418", method: "GET", path: "/status/418", wantStatus: 418, wantBody: "I'm a teapot\n"},
		{name: "status 503 by POST", method: "POST", path: "/status/503", body: "x", wantStatus: 503, wantBody: "Service Unavailable\n"},
		// 204 must not carry a body; net/http would refuse the write.
		{name: "status 204", method: "GET", path: "/status/204", wantStatus: 204, wantBody: ""},
		{name: "status unknown code", method: "GET", path: "/status/599", wantStatus: 599, wantBody: "status 599\n"},
		{name: "status interim", method: "GET", path: "/status/100", wantStatus: 400, check: func(*testing.T, string) {}},
		{name: "unknown path", method: "GET", path: "/nope", wantStatus: 404, check: func(*testing.T, string) {}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := do(t, c, tt.method, base+tt.path, tt.body, tt.header)
			if got.status != tt.wantStatus {
				t.Errorf("status = %d, want %d (body %q)", got.status, tt.wantStatus, got.body)
			}
			if tt.check != nil {
				tt.check(t, got.body)
			} else if got.body != tt.wantBody {
				t.Errorf("body = %q, want %q", got.body, tt.wantBody)
			}
			if ct := got.header.Get("Content-Type"); !strings.HasPrefix(ct, tt.wantCT) {
				t.Errorf("Content-Type = %q, want prefix %q", ct, tt.wantCT)
			}
			if tt.wantStatus == 200 {
				want := int64(len(got.body))
				if tt.method == "HEAD" {
					want = int64(len("hello"))
				}
				if got.length != want {
					t.Errorf("Content-Length = %d, want %d", got.length, want)
				}
			}
		})
	}
}

// TestEchoTooLarge runs in-process: over a socket the server answers 413
// and closes while the client is still uploading, and whether the client
// then sees the 413 or a reset depends on scheduling.
func TestEchoTooLarge(t *testing.T) {
	tests := []struct {
		name          string
		contentLength int64 // -1 = unknown (chunked), caught while reading
	}{
		{name: "declared length", contentLength: maxBodyBytes + 1},
		{name: "chunked", contentLength: -1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			req := httptest.NewRequest("POST", "/echo", strings.NewReader(strings.Repeat("x", maxBodyBytes+1)))
			req.ContentLength = tt.contentLength
			rec := httptest.NewRecorder()
			serveEcho(rec, req)
			if rec.Code != http.StatusRequestEntityTooLarge {
				t.Errorf("status = %d, want 413", rec.Code)
			}
		})
	}
}

func TestAcceptedCountsConnections(t *testing.T) {
	const n = 20
	tests := []struct {
		name      string
		keepAlive bool
		want      int64
	}{
		{name: "short connections: one per request", keepAlive: false, want: n},
		{name: "keep-alive: one for all", keepAlive: true, want: 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := start(t, Config{})
			c := newClient(t, tt.keepAlive)
			for range n {
				if got := do(t, c, "GET", "http://"+s.HTTPAddr()+"/", "", nil); got.status != 200 {
					t.Fatalf("status = %d", got.status)
				}
			}
			st := s.Stats()
			if st.Accepted != tt.want || st.Requests != n {
				t.Errorf("stats = %+v, want accepted %d, requests %d", st, tt.want, n)
			}
		})
	}
}

func TestErrorRate(t *testing.T) {
	const n = 200
	tests := []struct {
		name     string
		rate     float64
		min, max int
	}{
		{name: "never", rate: 0, min: 0, max: 0},
		{name: "always", rate: 1, min: n, max: n},
		// With a fixed seed the count is deterministic; the band only says
		// what any sane generator must give, so the seed is not special.
		{name: "half", rate: 0.5, min: n * 30 / 100, max: n * 70 / 100},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := start(t, Config{ErrorRate: tt.rate, Seed: 42})
			c := newClient(t, true)
			var fails int
			for range n {
				switch got := do(t, c, "GET", "http://"+s.HTTPAddr()+"/", "", nil); got.status {
				case 500:
					fails++
				case 200:
				default:
					t.Fatalf("status = %d", got.status)
				}
			}
			if fails < tt.min || fails > tt.max {
				t.Errorf("%d of %d requests failed, want %d..%d", fails, n, tt.min, tt.max)
			}
			if got := s.Stats().Errors; got != int64(fails) {
				t.Errorf("Stats().Errors = %d, want %d (the 500s seen)", got, fails)
			}
		})
	}
}

func TestHealthAndStatsAreExemptFromFaults(t *testing.T) {
	// An hour of delay, or a stall of 59 minutes from the start, would time
	// the client out if the exemption broke.
	s := start(t, Config{Delay: time.Hour, ErrorRate: 1, StallEvery: time.Hour, StallFor: 59 * time.Minute})
	c := newClient(t, true)
	for _, path := range []string{"/health", "/stats"} {
		if got := do(t, c, "GET", "http://"+s.HTTPAddr()+path, "", nil); got.status != 200 {
			t.Errorf("%s: status = %d, want 200", path, got.status)
		}
	}
	if got := s.Stats().Errors; got != 0 {
		t.Errorf("Errors = %d, want 0", got)
	}
}

func TestDelayIsALowerBound(t *testing.T) {
	tests := []struct {
		name    string
		cfg     Config
		atLeast time.Duration
	}{
		{name: "delay", cfg: Config{Delay: 50 * time.Millisecond}, atLeast: 50 * time.Millisecond},
		{name: "delay plus jitter", cfg: Config{Delay: 30 * time.Millisecond, Jitter: 20 * time.Millisecond}, atLeast: 30 * time.Millisecond},
		// Injected errors are delayed too, like a slow failing backend.
		{name: "delayed error", cfg: Config{Delay: 50 * time.Millisecond, ErrorRate: 1}, atLeast: 50 * time.Millisecond},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := start(t, tt.cfg)
			c := newClient(t, true)
			begin := time.Now()
			do(t, c, "GET", "http://"+s.HTTPAddr()+"/", "", nil)
			if took := time.Since(begin); took < tt.atLeast {
				t.Errorf("response took %v, want at least %v", took, tt.atLeast)
			}
		})
	}
}

func TestCloseStopsAcceptingAndIsIdempotent(t *testing.T) {
	s, err := Start(t.Context(), Config{HTTPAddr: "127.0.0.1:0"})
	if err != nil {
		t.Fatal(err)
	}
	addr := s.HTTPAddr()
	do(t, newClient(t, false), "GET", "http://"+addr+"/", "", nil)
	if err := s.Close(); err != nil {
		t.Fatalf("Close: %v", err)
	}
	if err := s.Close(); err != nil {
		t.Fatalf("second Close: %v", err)
	}
	if conn, err := net.DialTimeout("tcp", addr, 5*time.Second); err == nil {
		conn.Close()
		t.Fatalf("dial %s after Close succeeded", addr)
	}
}

func TestCloseAbortsDelayedRequest(t *testing.T) {
	s, err := Start(t.Context(), Config{HTTPAddr: "127.0.0.1:0", Delay: time.Hour})
	if err != nil {
		t.Fatal(err)
	}
	c := newClient(t, true)
	reqErr := make(chan error, 1)
	go func() {
		resp, err := c.Get("http://" + s.HTTPAddr() + "/")
		if err == nil {
			resp.Body.Close()
		}
		reqErr <- err
	}()
	waitFor(t, func() bool { return s.Stats().Requests == 1 })

	closed := make(chan error, 1)
	go func() { closed <- s.Close() }()
	select {
	case err := <-closed:
		if err != nil {
			t.Fatalf("Close: %v", err)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("Close did not return while a request was sleeping in its delay")
	}
	// The aborted request must fail, not turn into an empty 200.
	if err := <-reqErr; err == nil {
		t.Error("request in flight at Close succeeded, want an error")
	}
}

func TestCloseAbortsStalledRequest(t *testing.T) {
	// The first stall starts with the server and lasts 59 minutes.
	s, err := Start(t.Context(), Config{HTTPAddr: "127.0.0.1:0", StallEvery: time.Hour, StallFor: 59 * time.Minute})
	if err != nil {
		t.Fatal(err)
	}
	c := newClient(t, true)
	reqErr := make(chan error, 1)
	go func() {
		resp, err := c.Get("http://" + s.HTTPAddr() + "/")
		if err == nil {
			resp.Body.Close()
		}
		reqErr <- err
	}()
	waitFor(t, func() bool { return s.Stats().Requests == 1 })

	closed := make(chan error, 1)
	go func() { closed <- s.Close() }()
	select {
	case err := <-closed:
		if err != nil {
			t.Fatalf("Close: %v", err)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("Close did not return while a request was held by a stall")
	}
	if err := <-reqErr; err == nil {
		t.Error("request in flight at Close succeeded, want an error")
	}
}

func TestCloseAfter(t *testing.T) {
	const n = 10
	tests := []struct {
		name       string
		closeAfter int
		keepAlive  bool
		want       int64 // accepted connections
	}{
		// 3+3+3+1: the 4th, 7th and 10th requests need a new connection.
		{name: "every 3rd request", closeAfter: 3, keepAlive: true, want: 4},
		// 1 turns keep-alive into one connection per request.
		{name: "every request", closeAfter: 1, keepAlive: true, want: n},
		// More than the client sends: one connection throughout.
		{name: "never reached", closeAfter: n + 1, keepAlive: true, want: 1},
		// Counts are per connection, so short connections never reach 3.
		{name: "short connections", closeAfter: 3, keepAlive: false, want: n},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := start(t, Config{CloseAfter: tt.closeAfter})
			c := newClient(t, tt.keepAlive)
			for i := 1; i <= n; i++ {
				got := do(t, c, "GET", "http://"+s.HTTPAddr()+"/", "", nil)
				if got.status != 200 {
					t.Fatalf("request %d: status = %d", i, got.status)
				}
				// A short-connection client asks for the close itself.
				wantClose := !tt.keepAlive || i%tt.closeAfter == 0
				if got.close != wantClose {
					t.Errorf("request %d: Connection: close = %v, want %v", i, got.close, wantClose)
				}
			}
			if st := s.Stats(); st.Accepted != tt.want || st.Requests != n {
				t.Errorf("stats = %+v, want accepted %d, requests %d", st, tt.want, n)
			}
		})
	}
}

func TestStallHoldsResponses(t *testing.T) {
	const (
		every = time.Second
		dur   = 300 * time.Millisecond
	)
	tests := []struct {
		name  string
		path  string
		delay time.Duration
		aim   time.Duration // offset into a window at which to send
		// extra is what the stall adds when the request lands where it is
		// aimed; a test goroutine scheduled late may land elsewhere, which
		// the lower bound allows for and the log says.
		extra time.Duration
	}{
		// Arriving just after a stall began: held for the rest of it.
		{name: "arrives during a stall", path: "/", aim: 20 * time.Millisecond, extra: 200 * time.Millisecond},
		// A 404 is frozen too; only /health and /stats are exempt.
		{name: "unknown path", path: "/nope", aim: 20 * time.Millisecond, extra: 200 * time.Millisecond},
		// Arriving during a stall, the delay only starts when it ends.
		{name: "delay after the stall", path: "/", delay: 100 * time.Millisecond, aim: 20 * time.Millisecond, extra: 200 * time.Millisecond},
		// Arriving just after a stall, a 750ms delay ends inside the next
		// one, which holds the response until it is over.
		{name: "delay runs into the next stall", path: "/", delay: 750 * time.Millisecond, aim: dur + 20*time.Millisecond, extra: 150 * time.Millisecond},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			s := start(t, Config{StallEvery: every, StallFor: dur, Delay: tt.delay})
			c := newClient(t, true)
			url := "http://" + s.HTTPAddr() + tt.path
			do(t, c, "GET", "http://"+s.HTTPAddr()+"/health", "", nil) // connect outside the measurement
			next := time.Since(s.Started())/every + 1
			time.Sleep(time.Until(s.Started().Add(next*every + tt.aim)))
			begin := time.Now()
			do(t, c, "GET", url, "", nil)
			took := time.Since(begin)
			// The server sees the request no earlier than begin, so it
			// cannot answer before this, whatever the scheduling: a lower
			// bound that holds wherever in the window the request landed.
			least := heldUntil(begin.Sub(s.Started()), tt.delay, every, dur) - begin.Sub(s.Started())
			if took < least {
				t.Errorf("response took %v, want at least %v (delay %v held by a stall)", took, least, tt.delay)
			}
			if least-tt.delay < tt.extra {
				// A busy machine sent the request late, past the aimed part
				// of the stall: the bound above still held, but the stall
				// added less than this row is about (faults_test.go's table
				// covers every position without a clock).
				t.Logf("request landed %v into its window; the stall added %v", begin.Sub(s.Started())%every, least-tt.delay)
			}
		})
	}
}

// heldUntil is when, counted from the server's start, a request arriving
// at since is answered at the earliest: the arrival waits out a stall, then
// the delay runs, then the response waits out any stall the delay ended in.
func heldUntil(since, delay, every, dur time.Duration) time.Duration {
	t := since + stallRemaining(since, every, dur)
	t += delay
	return t + stallRemaining(t, every, dur)
}

func TestContextCancelStopsServer(t *testing.T) {
	ctx, cancel := context.WithCancel(t.Context())
	s, err := Start(ctx, Config{HTTPAddr: "127.0.0.1:0"})
	if err != nil {
		t.Fatal(err)
	}
	addr := s.HTTPAddr()
	cancel()
	waitFor(t, func() bool {
		conn, err := net.DialTimeout("tcp", addr, 5*time.Second)
		if err == nil {
			conn.Close()
		}
		return err != nil
	})
	if err := s.Close(); err != nil {
		t.Fatalf("Close: %v", err)
	}
}

func TestStartDefaultsAndRefusals(t *testing.T) {
	t.Run("zero config listens on a free loopback port", func(t *testing.T) {
		s := start(t, Config{})
		host, port, err := net.SplitHostPort(s.HTTPAddr())
		if err != nil || host != "127.0.0.1" || port == "0" {
			t.Errorf("HTTPAddr = %q, want 127.0.0.1 with a resolved port", s.HTTPAddr())
		}
		if s.Seed() == 0 {
			t.Error("Seed() = 0, want the randomly chosen seed")
		}
	})
	tests := []struct {
		name string
		cfg  Config
		want string
	}{
		{name: "all interfaces", cfg: Config{HTTPAddr: "0.0.0.0:0"}, want: "not a loopback"},
		{name: "error rate above 1", cfg: Config{ErrorRate: 1.5}, want: "error rate"},
		{name: "negative delay", cfg: Config{Delay: -time.Second}, want: "delay"},
		{name: "negative jitter", cfg: Config{Jitter: -time.Second}, want: "jitter"},
		{name: "unknown delay distribution", cfg: Config{DelayDist: 99}, want: "distribution"},
		{name: "stall without EVERY", cfg: Config{StallFor: time.Second}, want: "both"},
		{name: "stall as long as its window", cfg: Config{StallEvery: time.Second, StallFor: time.Second}, want: "shorter"},
		{name: "negative stall", cfg: Config{StallEvery: -time.Second, StallFor: -time.Millisecond}, want: "negative"},
		{name: "negative close-after", cfg: Config{CloseAfter: -1}, want: "close-after"},
		{name: "user without a name", cfg: Config{Users: []User{{"ann", "a"}, {"", "b"}}}, want: "Users[1]: empty user name"},
		{name: "user twice", cfg: Config{Users: []User{{"ann", "a"}, {"bob", "b"}, {"ann", "c"}}}, want: `Users[2]: user "ann" already at Users[0]`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, err := Start(t.Context(), tt.cfg)
			if err == nil {
				s.Close()
				t.Fatal("Start succeeded, want an error")
			}
			if !strings.Contains(err.Error(), tt.want) {
				t.Errorf("error %q does not mention %q", err, tt.want)
			}
		})
	}
}

func TestStartCancelledContext(t *testing.T) {
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	s, err := Start(ctx, Config{})
	if err == nil {
		s.Close()
		t.Fatal("Start with a cancelled context succeeded")
	}
	if !errors.Is(err, context.Canceled) {
		t.Errorf("error = %v, want context.Canceled", err)
	}
}

// waitFor polls cond until it holds. It replaces sleeps of a guessed length,
// which flake on busy machines; the deadline only guards against a hang.
func waitFor(t *testing.T, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatal("condition not reached within 30s")
		}
		time.Sleep(5 * time.Millisecond)
	}
}
