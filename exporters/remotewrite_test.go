package exporters

import (
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/golang/snappy"
	"github.com/prometheus/prometheus/prompb"

	"github.com/loadgate/loadgate/results"
	"github.com/loadgate/loadgate/scenarios"
)

// receiver is a remote-write receiver on 127.0.0.1 that keeps what it
// was sent; status, when set, is its answer instead.
type receiver struct {
	*httptest.Server
	mu      sync.Mutex
	series  []prompb.TimeSeries
	headers http.Header
}

func newReceiver(t *testing.T, status int) *receiver {
	t.Helper()
	rc := &receiver{}
	rc.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if status != 0 {
			http.Error(w, "boom\nsecond line", status)
			return
		}
		body, err := io.ReadAll(r.Body)
		if err != nil {
			t.Error(err)
			return
		}
		raw, err := snappy.Decode(nil, body)
		if err != nil {
			t.Errorf("body is not snappy: %v", err)
			return
		}
		var req prompb.WriteRequest
		if err := req.Unmarshal(raw); err != nil {
			t.Errorf("body is not a WriteRequest: %v", err)
			return
		}
		rc.mu.Lock()
		rc.series = append(rc.series, req.Timeseries...)
		rc.headers = r.Header.Clone()
		rc.mu.Unlock()
		w.WriteHeader(http.StatusNoContent)
	}))
	t.Cleanup(rc.Close)
	return rc
}

func labelsOf(ts prompb.TimeSeries) map[string]string {
	m := map[string]string{}
	for _, l := range ts.Labels {
		m[l.Name] = l.Value
	}
	return m
}

// exportTwo sends a phase's start and end to spec.
func exportTwo(t *testing.T, spec Spec, opts Options) []string {
	t.Helper()
	e, err := Open([]Spec{spec}, opts)
	if err != nil {
		t.Fatal(err)
	}
	o := e.Scenario(&scenarios.Scenario{Name: "s", Cases: []scenarios.Case{{ID: "api", Target: scenarios.Target{Name: "api"}}}})
	r := &results.PhaseResult{Latency: results.NewHistogram()}
	s := results.Snapshot{Scenario: "s", Case: "api", Phase: "measured", Name: "measured", Result: r}
	o.PhaseStarted(s)
	r.Requests, r.Succeeded = 42, 42
	o.PhaseDone(s, r)
	return e.Close()
}

// Remote write 1.0 as a receiver reads it: snappy protobuf with its
// headers, every series' labels sorted with __name__ and without the
// empty trial label, a sample per update in milliseconds.
func TestRemoteWrite(t *testing.T) {
	rc := newReceiver(t, 0)
	at := time.UnixMilli(1_700_000_000_123)
	if msgs := exportTwo(t, Spec{KindPrometheusRW, rc.URL + "/api/v1/write"}, Options{Now: func() time.Time { return at }, UserAgent: "loadgate/test"}); len(msgs) != 0 {
		t.Fatalf("Close said %q", msgs)
	}
	rc.mu.Lock()
	defer rc.mu.Unlock()
	for k, v := range map[string]string{"Content-Encoding": "snappy", "Content-Type": "application/x-protobuf",
		"X-Prometheus-Remote-Write-Version": "0.1.0", "User-Agent": "loadgate/test"} {
		if got := rc.headers.Get(k); got != v {
			t.Errorf("header %s = %q, want %q", k, got, v)
		}
	}
	var requests [][2]float64
	for _, ts := range rc.series {
		names := make([]string, len(ts.Labels))
		for i, l := range ts.Labels {
			names[i] = l.Name
		}
		if !slices.IsSorted(names) || names[0] != "__name__" || slices.Contains(names, "trial") {
			t.Fatalf("labels %v: want sorted, __name__ first, no empty trial", names)
		}
		if l := labelsOf(ts); l["__name__"] == MetricRequests {
			if l["scenario"] != "s" || l["target"] != "api" || l["case"] != "api" || l["phase"] != "measured" {
				t.Errorf("labels %v", l)
			}
			for _, smp := range ts.Samples {
				requests = append(requests, [2]float64{smp.Value, float64(smp.Timestamp)})
			}
		}
	}
	want := [][2]float64{{0, float64(at.UnixMilli())}, {42, float64(at.UnixMilli() + 1)}}
	if !slices.Equal(requests, want) {
		t.Errorf("requests samples = %v, want %v", requests, want)
	}
}

// A receiver that refuses, errs or never answers: every update is lost,
// Close says so in one sentence, with why.
func TestRemoteWriteFailures(t *testing.T) {
	refused := func() string {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		addr := l.Addr().String()
		l.Close()
		return "http://" + addr + "/api/v1/write"
	}()
	hang := make(chan struct{})
	hung := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-r.Context().Done():
		case <-hang:
		}
	}))
	t.Cleanup(func() { close(hang); hung.Close() })

	for _, tc := range []struct {
		name, url, why string
	}{
		{"refused", refused, "(connection refused)"},
		{"status", newReceiver(t, http.StatusInternalServerError).URL, "(HTTP 500 Internal Server Error: boom)"},
		{"hangs", hung.URL, "(no answer within 50ms)"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			msgs := exportTwo(t, Spec{KindPrometheusRW, tc.url}, Options{PushTimeout: 50 * time.Millisecond})
			want := "prometheus-rw " + tc.url + ": 2 of 2 pushes failed " + tc.why + "; the run's results are unaffected"
			if len(msgs) != 1 || msgs[0] != want {
				t.Fatalf("Close said %q, want %q", msgs, want)
			}
		})
	}
}

func TestDescribeKeepsOtherErrors(t *testing.T) {
	w := newRemoteWrite("http://127.0.0.1:1/", "", time.Second)
	if got := w.describe(io.ErrUnexpectedEOF); got != io.ErrUnexpectedEOF {
		t.Fatalf("%v", got)
	}
	if got := w.describe(&net.DNSError{Err: "no such host", Name: "x"}); !strings.Contains(got.Error(), "no such host") {
		t.Fatalf("%v", got)
	}
}
