package cli

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
)

// promAnswering is a Prometheus whose series hold one value throughout:
// CPU 40% of a core, and 50 MiB. Range queries get a point every step
// from start to end.
func promAnswering(t *testing.T) *httptest.Server {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_ = r.ParseForm()
		value := "52428800"
		if strings.HasPrefix(r.Form.Get("query"), "sum(rate(") {
			value = "40"
		}
		w.Header().Set("Content-Type", "application/json")
		switch r.URL.Path {
		case "/api/v1/query":
			fmt.Fprintf(w, `{"status":"success","data":{"resultType":"vector","result":[{"metric":{},"value":[1,%q]}]}}`, value)
		case "/api/v1/query_range":
			start, _ := strconv.ParseFloat(r.Form.Get("start"), 64)
			end, _ := strconv.ParseFloat(r.Form.Get("end"), 64)
			step, _ := strconv.ParseFloat(r.Form.Get("step"), 64)
			var pts []string
			for ts := start; ts <= end && step > 0; ts += step {
				pts = append(pts, fmt.Sprintf("[%.3f,%q]", ts, value))
			}
			fmt.Fprintf(w, `{"status":"success","data":{"resultType":"matrix","result":[{"metric":{},"values":[%s]}]}}`, strings.Join(pts, ","))
		default:
			http.NotFound(w, r)
		}
	}))
	t.Cleanup(srv.Close)
	return srv
}

// promScenarioFile writes a scenario loading web whose monitor reads the
// Prometheus at prom, judged on the server's figures and the host's.
func promScenarioFile(t *testing.T, web, prom string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "remote.yaml")
	src := "version: 1\nname: remote\n" +
		"monitor:\n  prometheus: { url: \"" + prom + "\", groupname: api, window: 1s, settle: 0s, step: 100ms }\n" +
		"targets:\n  - name: api\n    http: { url: \"" + web + "/\" }\n" +
		"phases:\n  - { name: m, duration: 1500ms, concurrency: 1 }\n" +
		"thresholds:\n  - server.cpu < 80\n  - server.rss_max < 100MiB\n  - host.load1 < 100\n"
	if err := os.WriteFile(path, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// TestPrometheusMonitorJudged runs a case whose server's figures come from
// Prometheus: results.json says where they came from, rules on server.*
// are judged on them, and rules on host.* are skipped, since Prometheus
// gives none of the host's.
func TestPrometheusMonitorJudged(t *testing.T) {
	web := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { _, _ = w.Write([]byte("hello")) }))
	defer web.Close()
	prom := promAnswering(t)
	out := filepath.Join(t.TempDir(), "out")
	inv := invoke(t, context.Background(), nil, "run", "--no-progress", "-o", out, promScenarioFile(t, web.URL, prom.URL))
	if inv.code != ExitOK {
		t.Fatalf("exit %d, stderr:\n%s", inv.code, inv.stderr)
	}
	data, err := os.ReadFile(filepath.Join(out, "results.json"))
	if err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Scenarios []struct {
			Cases []struct {
				Server struct {
					PID        int     `json:"pid"`
					Prometheus string  `json:"prometheus"`
					Samples    int     `json:"samples"`
					CPUMean    float64 `json:"cpu_mean"`
					RSSMax     int64   `json:"rss_max"`
				} `json:"server"`
				ServerName string `json:"server_name"`
				Verdicts   []struct {
					Rule, Status, Reason string
				} `json:"verdicts"`
			} `json:"cases"`
		} `json:"scenarios"`
	}
	if err := json.Unmarshal(data, &doc); err != nil {
		t.Fatal(err)
	}
	c := doc.Scenarios[0].Cases[0]
	if s := c.Server; s.PID != 0 || s.Prometheus != prom.URL || s.Samples < 1 || s.CPUMean != 40 || s.RSSMax != 50<<20 || c.ServerName != "server" {
		t.Errorf("server %+v named %q: want 40%% and 50 MiB read from %s, named server as rules read it", s, c.ServerName, prom.URL)
	}
	want := map[string]string{"server.cpu < 80": "pass", "server.rss_max < 100MiB": "pass", "host.load1 < 100": "skip"}
	for _, v := range c.Verdicts {
		if v.Status != want[v.Rule] {
			t.Errorf("%s: %s (%s), want %s", v.Rule, v.Status, v.Reason, want[v.Rule])
		}
		if v.Status == "skip" && !strings.Contains(v.Reason, "read from Prometheus") {
			t.Errorf("%s skipped because %q: want it to say the figures came from Prometheus", v.Rule, v.Reason)
		}
	}
	if len(c.Verdicts) != len(want) {
		t.Errorf("%d verdicts, want %d", len(c.Verdicts), len(want))
	}
	// The CPU per request depends on how many requests the case sent.
	if !regexp.MustCompile(`Server: cpu mean 40\.0% \(max 40\.0%\), cpu per request [0-9.,]+ µs, rss max 50\.0 MiB \(read from Prometheus\)`).MatchString(inv.stdout) {
		t.Errorf("the console does not show the figures read from Prometheus:\n%s", inv.stdout)
	}
	summary, err := os.ReadFile(filepath.Join(out, "summary.md"))
	if err != nil || !regexp.MustCompile(`\| 40\.0% / 40\.0% \| [0-9.,]+ \| 50\.0 \|`).MatchString(string(summary)) || !strings.Contains(string(summary), "read from Prometheus, CPU and RSS are") {
		t.Errorf("summary.md (%v) does not show or explain the figures read from Prometheus:\n%s", err, summary)
	}
}

// TestPrometheusNotAnsweringExits3BeforeAnyLoad: a monitor whose
// Prometheus does not answer ends the run with exit code 3 and the
// reason, before a request is sent.
func TestPrometheusNotAnsweringExits3BeforeAnyLoad(t *testing.T) {
	var hits atomic.Int64
	web := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		hits.Add(1)
		_, _ = w.Write([]byte("hello"))
	}))
	defer web.Close()
	gone := httptest.NewServer(http.NotFoundHandler())
	gone.Close()
	path := promScenarioFile(t, web.URL, gone.URL)
	inv := invoke(t, context.Background(), nil, "run", "--no-progress", "-o", filepath.Join(t.TempDir(), "out"), path)
	want := "loadgate: remote: " + path + ":3:1: monitor: prometheus " + gone.URL + ": the cpu query failed: Post \"" + gone.URL + "/api/v1/query\": dial tcp "
	if inv.code != ExitRun || !strings.Contains(inv.stderr, want) || !strings.HasSuffix(inv.stderr, "; nothing would be measured of the server (nothing was sent)\n") {
		t.Errorf("exit %d, stderr:\n%s\nwant exit %d with:\n%s", inv.code, inv.stderr, ExitRun, want)
	}
	if n := hits.Load(); n != 0 {
		t.Errorf("%d requests were sent", n)
	}
}
