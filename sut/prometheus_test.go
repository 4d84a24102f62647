package sut

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/loadgate/loadgate/results"
	"github.com/loadgate/loadgate/scenarios"
)

// fakeProm speaks the part of the Prometheus HTTP API a monitor uses: it
// answers /api/v1/query and /api/v1/query_range with the body that answer
// gives for the query, and keeps the range queries it was asked.
type fakeProm struct {
	answer func(query string) (status int, body string)
	mu     sync.Mutex
	ranges []map[string]string
}

func (f *fakeProm) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if err := r.ParseForm(); err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	if r.URL.Path == "/api/v1/query_range" {
		f.mu.Lock()
		f.ranges = append(f.ranges, map[string]string{"query": r.Form.Get("query"),
			"start": r.Form.Get("start"), "end": r.Form.Get("end"), "step": r.Form.Get("step")})
		f.mu.Unlock()
	} else if r.URL.Path != "/api/v1/query" {
		http.NotFound(w, r)
		return
	}
	status, body := f.answer(r.Form.Get("query"))
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_, _ = w.Write([]byte(body))
}

// promMatrix is a query_range answer: one series per list of values,
// the values one second apart from t0.
func promMatrix(t0 time.Time, series ...[]string) string {
	var out []string
	for i, vals := range series {
		var pts []string
		for j, v := range vals {
			pts = append(pts, fmt.Sprintf("[%d,%q]", t0.Unix()+int64(j), v))
		}
		out = append(out, fmt.Sprintf(`{"metric":{"i":"%d"},"values":[%s]}`, i, strings.Join(pts, ",")))
	}
	return `{"status":"success","data":{"resultType":"matrix","result":[` + strings.Join(out, ",") + `]}}`
}

const (
	promVector1 = `{"status":"success","data":{"resultType":"vector","result":[{"metric":{},"value":[1700000000,"1"]}]}}`
	promVector0 = `{"status":"success","data":{"resultType":"vector","result":[]}}`
	promVector2 = `{"status":"success","data":{"resultType":"vector","result":[{"metric":{"a":"1"},"value":[1700000000,"1"]},{"metric":{"a":"2"},"value":[1700000000,"1"]}]}}`
	promBadData = `{"status":"error","errorType":"bad_data","error":"1:5: parse error: unexpected \")\""}`
)

// promAnswers answers the query CPU with cpu and any other with rss.
func promAnswers(cpu, rss string) func(string) (int, string) {
	return func(q string) (int, string) {
		if q == "CPU" {
			return 200, cpu
		}
		return 200, rss
	}
}

// TestPromSampling reads one case's window from a fake Prometheus: the
// figures are the means and maxima of the points both queries have, and
// a query that finds nothing, or fails, leaves no sample with the reason.
func TestPromSampling(t *testing.T) {
	t0 := time.Unix(1_700_000_000, 0)
	ok := promAnswers
	mib := strconv.Itoa(1 << 20)
	for _, tc := range []struct {
		name   string
		answer func(string) (int, string)
		want   results.Usage
	}{
		{
			name:   "one series each",
			answer: ok(promMatrix(t0, []string{"20", "40", "60"}), promMatrix(t0, []string{mib, mib, strconv.Itoa(4 << 20)})),
			want: results.Usage{Samples: 3, CPUMean: 40, CPUMax: 60, Window: 6, RSSMean: 2 << 20, RSSMax: 4 << 20, Series: []results.UsagePoint{
				{At: t0, CPU: 20, RSS: 1 << 20}, {At: t0.Add(time.Second), CPU: 40, RSS: 1 << 20}, {At: t0.Add(2 * time.Second), CPU: 60, RSS: 4 << 20}}},
		},
		{
			name:   "points without a figure are gaps, and only common points count",
			answer: ok(promMatrix(t0, []string{"NaN", "10", "30"}), promMatrix(t0, []string{mib, mib})),
			want: results.Usage{Samples: 1, CPUMean: 10, CPUMax: 10, Window: 6, RSSMean: 1 << 20, RSSMax: 1 << 20,
				Series: []results.UsagePoint{{At: t0.Add(time.Second), CPU: 10, RSS: 1 << 20}}},
		},
		{
			name:   "no series is no sample, not 0",
			answer: ok(promMatrix(t0), promMatrix(t0, []string{mib})),
			want:   results.Usage{Reason: "prometheus %s: the cpu query found no series during the case"},
		},
		{
			name:   "several series",
			answer: ok(promMatrix(t0, []string{"1"}), promMatrix(t0, []string{mib}, []string{mib})),
			want:   results.Usage{Reason: "prometheus %s: the rss query found 2 series during the case, not one: sum() them, or narrow it with labels"},
		},
		{
			name:   "a negative size",
			answer: ok(promMatrix(t0, []string{"1"}), promMatrix(t0, []string{"-5"})),
			want:   results.Usage{Reason: "prometheus %s: the rss query gave -5 at 2023-11-14T22:13:20Z, which is not a size"},
		},
		{
			name:   "an error of Prometheus's",
			answer: func(string) (int, string) { return 400, promBadData },
			want:   results.Usage{Reason: "prometheus %s: the cpu query failed: bad_data: 1:5: parse error: unexpected \")\""},
		},
		{
			name:   "no Prometheus at all",
			answer: func(string) (int, string) { return 404, "404 page not found" },
			want:   results.Usage{Reason: "prometheus %s: the cpu query failed: client_error: client error: 404"},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			srv := httptest.NewServer(&fakeProm{answer: tc.answer})
			defer srv.Close()
			// The window is the case's, start to end: 6s.
			u, err := promWindow(t, srv.URL, t0.Add(-time.Second), t0.Add(5*time.Second), 0).stop()
			want := tc.want
			want.Prometheus = srv.URL
			if want.Reason != "" {
				want.Reason = fmt.Sprintf(want.Reason, srv.URL)
				if err == nil || err.Error() != want.Reason {
					t.Errorf("err = %v, want %q", err, want.Reason)
				}
			} else if err != nil {
				t.Errorf("err = %v", err)
			}
			if diff := cmp.Diff(want, u); diff != "" {
				t.Errorf("usage (-want +got):\n%s", diff)
			}
			if want.Samples == 0 && (u.Sampled() || u.CPUSampled()) {
				t.Errorf("a usage without samples counts as sampled")
			}
			if want.Samples > 0 && (!u.CPUSampled() || u.HostSampled()) {
				t.Errorf("CPUSampled %v, HostSampled %v: want the server's figures and no host's", u.CPUSampled(), u.HostSampled())
			}
		})
	}
}

// promWindow is the window [start, end] of a case, on the Prometheus at
// address, whose queries look back lookback.
func promWindow(t *testing.T, address string, start, end time.Time, lookback time.Duration) *promWatch {
	t.Helper()
	a, err := newPromAPI(address)
	if err != nil {
		t.Fatal(err)
	}
	cfg := &scenarios.Prometheus{URL: address, CPU: "CPU", RSS: "RSS", Lookback: lookback, Step: time.Second, Name: "n"}
	return &promWatch{cfg: cfg, api: a, addr: promAddress(address), start: start, endAt: end}
}

// TestPromWindow checks what the range queries ask: from the case's start
// plus the queries' lookback to its end, and nothing for a case shorter
// than the lookback.
func TestPromWindow(t *testing.T) {
	t0 := time.Unix(1_700_000_000, 0)
	fake := &fakeProm{answer: func(string) (int, string) { return 200, promMatrix(t0.Add(15*time.Second), []string{"1"}) }}
	srv := httptest.NewServer(fake)
	defer srv.Close()
	u, err := promWindow(t, srv.URL, t0, t0.Add(20*time.Second), 15*time.Second).stop()
	if err != nil || u.Samples != 1 {
		t.Fatalf("usage %+v, err %v; want one sample", u, err)
	}
	want := []map[string]string{
		{"query": "CPU", "start": "1700000015", "end": "1700000020", "step": "1"},
		{"query": "RSS", "start": "1700000015", "end": "1700000020", "step": "1"},
	}
	if diff := cmp.Diff(want, fake.ranges); diff != "" {
		t.Errorf("range queries (-want +got):\n%s", diff)
	}

	fake.ranges = nil
	u, err = promWindow(t, srv.URL, t0, t0.Add(10*time.Second), 15*time.Second).stop()
	const why = "the case lasted 10s, less than the 15s its queries look back"
	if err == nil || u.Samples != 0 || !strings.Contains(u.Reason, why) {
		t.Errorf("usage %+v, err %v; want no sample because %s", u, err, why)
	}
	if len(fake.ranges) != 0 {
		t.Errorf("queried %v for a case shorter than the lookback", fake.ranges)
	}
}

func TestPromStep(t *testing.T) {
	for _, tc := range []struct{ step, span, want time.Duration }{
		{time.Second, time.Minute, time.Second},
		{time.Second, 10 * time.Hour, 4 * time.Second}, // 36,000 s in 10,000 points at most
		{30 * time.Second, 10 * time.Hour, 30 * time.Second},
	} {
		if got := promStep(tc.step, tc.span); got != tc.want {
			t.Errorf("promStep(%v, %v) = %v, want %v", tc.step, tc.span, got, tc.want)
		}
	}
}

// TestCheckPrometheus is the check before any load: a Prometheus that
// does not answer, refuses a query, or finds no series or several for one
// stops the run with the reason and the monitor's position.
func TestCheckPrometheus(t *testing.T) {
	closed := httptest.NewServer(http.NotFoundHandler())
	closedURL := closed.URL
	closed.Close()
	for _, tc := range []struct {
		name   string
		answer func(string) (int, string) // nil: nothing listens
		want   string                     // "" passes
	}{
		{"both queries find one series", func(string) (int, string) { return 200, promVector1 }, ""},
		{"a scalar is one value", func(string) (int, string) {
			return 200, `{"status":"success","data":{"resultType":"scalar","result":[1700000000,"1"]}}`
		}, ""},
		{"nothing listens", nil, "the cpu query failed: Post \"" + closedURL + "/api/v1/query\": dial tcp"},
		{"a query refused", func(q string) (int, string) {
			if q == "RSS" {
				return 400, promBadData
			}
			return 200, promVector1
		}, "the rss query failed: bad_data: 1:5: parse error"},
		{"no series", func(string) (int, string) { return 200, promVector0 }, "the cpu query finds no series now, so no case would have figures"},
		{"two series", func(string) (int, string) { return 200, promVector2 }, "the cpu query finds 2 series, not one"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			address := closedURL
			if tc.answer != nil {
				srv := httptest.NewServer(&fakeProm{answer: tc.answer})
				defer srv.Close()
				address = srv.URL
			}
			m := &scenarios.Monitor{Pos: scenarios.Pos{File: "s.yaml", Line: 3, Col: 1},
				Prometheus: &scenarios.Prometheus{URL: address, CPU: "CPU", RSS: "RSS", Step: time.Second, Name: "n"}}
			err := NewSystems(Options{}, func(error) {}).ResolveMonitor("", m)
			switch {
			case tc.want == "" && err != nil:
				t.Errorf("ResolveMonitor = %v, want nil", err)
			case tc.want == "":
			case err == nil:
				t.Errorf("ResolveMonitor = nil, want an error with %q", tc.want)
			case !strings.HasPrefix(err.Error(), "s.yaml:3:1: monitor: prometheus "+address+": "+tc.want) ||
				!strings.HasSuffix(err.Error(), "; nothing would be measured of the server"):
				t.Errorf("ResolveMonitor = %v, want it to begin with the position and %q", err, tc.want)
			}
		})
	}
}

// TestPromCredentials: credentials in the URL are sent as basic auth and
// kept out of what reports show.
func TestPromCredentials(t *testing.T) {
	t0 := time.Unix(1_700_000_000, 0)
	var user, pass string
	fake := &fakeProm{answer: promAnswers(promMatrix(t0, []string{"1"}), promMatrix(t0, []string{"1"}))}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		user, pass, _ = r.BasicAuth()
		fake.ServeHTTP(w, r)
	}))
	defer srv.Close()
	address := strings.Replace(srv.URL, "http://", "http://lg:s3cret@", 1)
	u, err := promWindow(t, address, t0, t0.Add(time.Second), 0).stop()
	if err != nil || user != "lg" || pass != "s3cret" {
		t.Errorf("err %v; Prometheus saw basic auth %q:%q, want lg:s3cret", err, user, pass)
	}
	if u.Prometheus != srv.URL {
		t.Errorf("usage.Prometheus = %q, want %q without credentials", u.Prometheus, srv.URL)
	}
}
