package cli

import (
	"bufio"
	"encoding/json"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/golang/snappy"
	"github.com/prometheus/prometheus/prompb"

	"github.com/loadgate/loadgate/internal/demoserver"
)

// exportScenario has a warm-up and a measured phase run twice; DURATION
// is the measured phase's.
const exportScenario = `version: 1
name: pushed
targets:
  - name: hello
    http: { url: "http://${host}/" }
phases:
  - { name: warm, warmup: true, requests: 50, concurrency: 2 }
  - { name: measured, duration: DURATION, concurrency: 4, trials: 2 }
thresholds:
  - error_rate == 0
`

// seriesKey names a series by its labels, __name__ among them.
func seriesKey(labels map[string]string) string {
	keys := make([]string, 0, len(labels))
	for k := range labels {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var b strings.Builder
	for _, k := range keys {
		b.WriteString(k + "=" + labels[k] + ";")
	}
	return b.String()
}

// lastValues keeps the latest value of every series it is given, by
// time, with the series' labels.
type lastValues struct {
	mu     sync.Mutex
	at     map[string]int64
	value  map[string]float64
	labels map[string]map[string]string
}

func newLastValues() *lastValues {
	return &lastValues{at: map[string]int64{}, value: map[string]float64{}, labels: map[string]map[string]string{}}
}

func (l *lastValues) add(labels map[string]string, at int64, v float64) {
	l.mu.Lock()
	defer l.mu.Unlock()
	k := seriesKey(labels)
	if prev, ok := l.at[k]; ok && at <= prev {
		return
	}
	l.at[k], l.value[k], l.labels[k] = at, v, labels
}

// sum adds the latest values of the series named name whose labels
// include want.
func (l *lastValues) sum(name string, want map[string]string) (total float64, series int) {
	l.mu.Lock()
	defer l.mu.Unlock()
	for k, labels := range l.labels {
		if labels["__name__"] != name {
			continue
		}
		match := true
		for wk, wv := range want {
			match = match && labels[wk] == wv
		}
		if match {
			total += l.value[k]
			series++
		}
	}
	return total, series
}

// rwReceiver is a remote-write receiver on 127.0.0.1 that decodes every
// push into last.
func rwReceiver(t *testing.T, last *lastValues) *httptest.Server {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, err := io.ReadAll(r.Body)
		if err == nil && r.Header.Get("Content-Encoding") != "snappy" {
			err = io.ErrUnexpectedEOF
		}
		var raw []byte
		if err == nil {
			raw, err = snappy.Decode(nil, body)
		}
		var req prompb.WriteRequest
		if err == nil {
			err = req.Unmarshal(raw)
		}
		if err != nil {
			t.Errorf("push: %v", err)
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		for _, ts := range req.Timeseries {
			labels := map[string]string{}
			for _, l := range ts.Labels {
				labels[l.Name] = l.Value
			}
			for _, s := range ts.Samples {
				last.add(labels, s.Timestamp, s.Value)
			}
		}
		w.WriteHeader(http.StatusNoContent)
	}))
	t.Cleanup(srv.Close)
	return srv
}

// readJSONLines reads the points of a json-lines file into last.
func readJSONLines(t *testing.T, path string, last *lastValues) {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		var p struct {
			Time   time.Time         `json:"time"`
			Name   string            `json:"name"`
			Labels map[string]string `json:"labels"`
			Value  float64           `json:"value"`
		}
		if err := json.Unmarshal(sc.Bytes(), &p); err != nil {
			t.Fatalf("%v: %s", err, sc.Text())
		}
		p.Labels["__name__"] = p.Name
		if p.Labels["trial"] == "" {
			delete(p.Labels, "trial") // as remote write leaves it out
		}
		last.add(p.Labels, p.Time.UnixMilli(), p.Value)
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
}

// checkTotals: the last pushed counters of every trial of every phase are
// results.json's, exactly.
func checkTotals(t *testing.T, via string, last *lastValues, resultsFile string) {
	t.Helper()
	run := readRun(t, resultsFile)
	c := run.Scenarios[0].Cases[0]
	for _, ph := range c.Phases {
		type want struct {
			trial               string
			requests, succeeded int64
		}
		wants := []want{{"", ph.Requests, ph.Succeeded}}
		if len(ph.Trials) > 0 {
			wants = nil
			for i, tr := range ph.Trials {
				wants = append(wants, want{string(rune('1' + i)), tr.Requests, tr.Requests - tr.Failed})
			}
		}
		for _, w := range wants {
			sel := map[string]string{"scenario": "pushed", "target": "hello", "case": c.ID, "phase": ph.Name, "trial": w.trial}
			if w.trial == "" {
				delete(sel, "trial")
			}
			got, n := last.sum("loadgate_requests_total", sel)
			if n != 1 || int64(got) != w.requests || w.requests == 0 {
				t.Errorf("%s: phase %s trial %q: loadgate_requests_total = %v over %d series, want %d (results.json)", via, ph.Name, w.trial, got, n, w.requests)
			}
			if got, _ := last.sum("loadgate_request_duration_seconds_count", sel); int64(got) != w.succeeded {
				t.Errorf("%s: phase %s trial %q: _count = %v, want %d successes", via, ph.Name, w.trial, got, w.succeeded)
			}
			inf := map[string]string{"le": "+Inf"}
			for k, v := range sel {
				inf[k] = v
			}
			if got, _ := last.sum("loadgate_request_duration_seconds_bucket", inf); int64(got) != w.succeeded {
				t.Errorf("%s: phase %s trial %q: le=+Inf = %v, want %d successes", via, ph.Name, w.trial, got, w.succeeded)
			}
		}
	}
}

// A run pushed to a remote-write receiver and to a file: the last value
// of each phase's counter is the count results.json holds, trial by
// trial, and nothing is said to have failed.
func TestExportPushesWhatResultsHold(t *testing.T) {
	srv := startServer(t, demoserver.Config{Delay: 20 * time.Millisecond})
	path := writeScenario(t, strings.Replace(exportScenario, "DURATION", "1200ms", 1))
	pushed := newLastValues()
	rw := rwReceiver(t, pushed)
	lines := filepath.Join(t.TempDir(), "points.jsonl")

	r, dir := runGate(t, path, srv, "--export", "prometheus-rw="+rw.URL+"/api/v1/write", "--export", "json-lines="+lines)
	if r.code != ExitOK {
		t.Fatalf("exit %d\n%s", r.code, r.stderr)
	}
	if strings.Contains(r.stderr, "pushes failed") {
		t.Errorf("a loss was said with a receiver that took everything:\n%s", r.stderr)
	}
	checkTotals(t, "remote write", pushed, filepath.Join(dir, "results.json"))
	written := newLastValues()
	readJSONLines(t, lines, written)
	checkTotals(t, "json-lines", written, filepath.Join(dir, "results.json"))
}

// A receiver that refuses every push, or never answers: the run passes
// as it would without one, and the loss is said once, on stderr.
func TestExportToAReceiverThatFails(t *testing.T) {
	srv := startServer(t, demoserver.Config{})
	path := writeScenario(t, strings.Replace(exportScenario, "DURATION", "300ms", 1))
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	refused := "http://" + l.Addr().String() + "/api/v1/write"
	l.Close()
	release := make(chan struct{})
	var hits atomic.Int64
	hung := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hits.Add(1)
		select {
		case <-r.Context().Done():
		case <-release:
		}
	}))
	t.Cleanup(func() { close(release); hung.Close() })

	for _, tc := range []struct{ name, url, why string }{
		{"refused", refused, "(connection refused)"},
		{"hangs", hung.URL + "/api/v1/write", "(no answer within 2s)"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r, dir := runGate(t, path, srv, "--export", "prometheus-rw="+tc.url)
			if r.code != ExitOK {
				t.Fatalf("exit %d, want 0: a failing receiver must not fail the run\n%s", r.code, r.stderr)
			}
			if n := strings.Count(r.stderr, "pushes failed"); n != 1 {
				t.Fatalf("the loss is said %d times, want once:\n%s", n, r.stderr)
			}
			if !strings.Contains(r.stderr, "prometheus-rw "+tc.url+": ") || !strings.Contains(r.stderr, tc.why+"; the run's results are unaffected") {
				t.Errorf("stderr does not say which receiver failed and why %s:\n%s", tc.why, r.stderr)
			}
			if run := readRun(t, filepath.Join(dir, "results.json")); !run.Passed {
				t.Errorf("the run did not pass")
			}
		})
	}
	if hits.Load() == 0 {
		t.Error("the hanging receiver was never reached")
	}
}

// A wrong --export or LOADGATE_EXPORT is a usage error, said before any
// load.
func TestExportRefusesBadSpecs(t *testing.T) {
	var hits atomic.Int64
	target := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { hits.Add(1) }))
	t.Cleanup(target.Close)
	path := writeScenario(t, strings.Replace(exportScenario, "DURATION", "100ms", 1))
	host := strings.TrimPrefix(target.URL, "http://")
	for _, tc := range []struct {
		name string
		args []string
		env  map[string]string
		want string
	}{
		{"unknown", []string{"--export", "statsd=127.0.0.1:8125"}, nil, `unknown exporter "statsd"`},
		{"bad URL", []string{"--export", "prometheus-rw=127.0.0.1:9090"}, nil, "is not an http:// or https:// URL"},
		{"no file", []string{"--export", "json-lines="}, nil, "json-lines: no file given"},
		{"env", nil, map[string]string{"LOADGATE_EXPORT": "json-lines=a.jsonl,graphite=x"}, `LOADGATE_EXPORT: unknown exporter "graphite"`},
		{"unwritable", []string{"--export", "json-lines=" + filepath.Join(t.TempDir(), "none", "p.jsonl")}, nil, "--export: json-lines: open"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			out := t.TempDir()
			args := append([]string{"run", "--no-progress", "-o", out, "--var", "host=" + host}, tc.args...)
			r := invoke(t, t.Context(), tc.env, append(args, path)...)
			wantCode := ExitUsage
			if tc.name == "unwritable" {
				wantCode = ExitRun // like a report that cannot be written
			}
			if r.code != wantCode || !strings.Contains(r.stderr, tc.want) {
				t.Fatalf("exit %d, stderr %q; want %d saying %q", r.code, r.stderr, wantCode, tc.want)
			}
			if _, err := os.Stat(filepath.Join(out, "results.json")); err == nil {
				t.Error("results.json was written: the run went ahead")
			}
		})
	}
	if hits.Load() != 0 {
		t.Errorf("%d requests were sent despite the bad --export", hits.Load())
	}
}

// The flag replaces the variable's list rather than adding to it.
func TestExportFlagReplacesTheVariable(t *testing.T) {
	e := exportFlag{env: "json-lines=from-env.jsonl"}
	if err := e.Set("json-lines=from-flag.jsonl"); err != nil {
		t.Fatal(err)
	}
	if err := e.resolve(); err != nil {
		t.Fatal(err)
	}
	if len(e.specs) != 1 || e.specs[0].Dest != "from-flag.jsonl" {
		t.Fatalf("%+v", e.specs)
	}
	e = exportFlag{env: "json-lines=a.jsonl prometheus-rw=http://127.0.0.1:9/api/v1/write"}
	if err := e.resolve(); err != nil || len(e.specs) != 2 {
		t.Fatalf("%+v, %v", e.specs, err)
	}
}
