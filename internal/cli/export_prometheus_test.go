package cli

import (
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/loadgate/loadgate/exporters"
	"github.com/loadgate/loadgate/internal/demoserver"
)

// startPrometheus runs a Prometheus server that accepts remote write, on
// 127.0.0.1 with its data in a temporary directory, and returns its base
// URL. The test is skipped when there is no prometheus binary.
func startPrometheus(t *testing.T) string {
	t.Helper()
	bin, err := exec.LookPath("prometheus")
	if err != nil {
		t.Skip("no prometheus binary (Debian package prometheus): the export to a real Prometheus is not tested")
	}
	dir := t.TempDir()
	cfg := filepath.Join(dir, "prometheus.yml")
	if err := os.WriteFile(cfg, []byte("global:\n  scrape_interval: 1h\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	return startReceiver(t, bin, dir, "/-/ready", func(addr string) []string {
		return []string{"--config.file=" + cfg, "--storage.tsdb.path=" + filepath.Join(dir, "data"),
			"--web.listen-address=" + addr, "--web.enable-remote-write-receiver"}
	})
}

// startVictoriaMetrics runs a single-node VictoriaMetrics on 127.0.0.1
// with its data in a temporary directory, answering the newest points at
// once, and returns its base URL. The test is skipped when there is no
// victoria-metrics binary.
func startVictoriaMetrics(t *testing.T) string {
	t.Helper()
	bin, err := exec.LookPath("victoria-metrics")
	if err != nil {
		t.Skip("no victoria-metrics binary (Debian package victoria-metrics): the export to VictoriaMetrics is not tested")
	}
	dir := t.TempDir()
	return startReceiver(t, bin, dir, "/health", func(addr string) []string {
		return []string{"-httpListenAddr=" + addr, "-storageDataPath=" + filepath.Join(dir, "data"),
			"-search.latencyOffset=0s", "-search.disableCache"}
	})
}

// startReceiver starts bin with the arguments args gives for a free
// loopback address, logging into dir, and waits until ready answers 200.
func startReceiver(t *testing.T, bin, dir, ready string, args func(addr string) []string) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close()
	logFile, err := os.Create(filepath.Join(dir, filepath.Base(bin)+".log"))
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(bin, args(addr)...)
	cmd.Stdout, cmd.Stderr = logFile, logFile
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
		logFile.Close()
	})
	base := "http://" + addr
	for i := 0; ; i++ {
		resp, err := http.Get(base + ready)
		if err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return base
			}
		}
		if i == 600 {
			log, _ := os.ReadFile(logFile.Name())
			t.Fatalf("%s not ready after a minute: %v\n%s", bin, err, log)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// promQuery runs an instant PromQL query and returns each result's labels
// and value.
func promQuery(t *testing.T, base, expr string) []promSample {
	t.Helper()
	resp, err := http.Get(base + "/api/v1/query?query=" + url.QueryEscape(expr))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var body struct {
		Status string `json:"status"`
		Error  string `json:"error"`
		Data   struct {
			Result []struct {
				Metric map[string]string `json:"metric"`
				Value  [2]any            `json:"value"`
			} `json:"result"`
		} `json:"data"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&body); err != nil {
		t.Fatal(err)
	}
	if body.Status != "success" {
		t.Fatalf("%s: %s", expr, body.Error)
	}
	var out []promSample
	for _, r := range body.Data.Result {
		s, _ := r.Value[1].(string)
		v, err := strconv.ParseFloat(s, 64)
		if err != nil {
			t.Fatalf("%s: value %v: %v", expr, r.Value, err)
		}
		out = append(out, promSample{r.Metric, v})
	}
	return out
}

type promSample struct {
	labels map[string]string
	value  float64
}

// bucketOf is the index of the histogram bucket that holds d.
func bucketOf(d time.Duration) int {
	for i, b := range exporters.Bounds {
		if d <= b {
			return i
		}
	}
	return len(exporters.Bounds)
}

// A real Prometheus reads what a run pushed: each trial's counter is the
// count results.json holds, and the p99 PromQL computes from the
// histogram is within a bucket of loadgate's own.
func TestExportToPrometheus(t *testing.T) {
	base := startPrometheus(t)
	checkExport(t, base, base+"/api/v1/write", func() {})
}

// The same against VictoriaMetrics, another receiver users point remote
// write at, which answers the same PromQL.
func TestExportToVictoriaMetrics(t *testing.T) {
	base := startVictoriaMetrics(t)
	checkExport(t, base, base+"/api/v1/write", func() {
		// Ingested points become searchable once flushed.
		if resp, err := http.Get(base + "/internal/force_flush"); err == nil {
			resp.Body.Close()
		}
	})
}

// checkExport pushes a run to the receiver at writeURL and reads it back
// with PromQL from base; flush makes what was pushed searchable.
func checkExport(t *testing.T, base, writeURL string, flush func()) {
	t.Helper()
	srv := startServer(t, demoserver.Config{Delay: 2 * time.Millisecond})
	path := writeScenario(t, strings.Replace(exportScenario, "DURATION", "1200ms", 1))
	r, dir := runGate(t, path, srv, "--export", "prometheus-rw="+writeURL)
	if r.code != ExitOK || strings.Contains(r.stderr, "pushes failed") {
		t.Fatalf("exit %d\n%s", r.code, r.stderr)
	}
	flush()
	run := readRun(t, filepath.Join(dir, "results.json"))
	var measured = run.Scenarios[0].Cases[0].Phases[len(run.Scenarios[0].Cases[0].Phases)-1]
	if len(measured.Trials) != 2 {
		t.Fatalf("%d trials of the measured phase, want 2", len(measured.Trials))
	}
	// A receiver may take a moment before the newest points are searchable.
	var got map[string]float64
	for wait := 0; wait < 100; wait++ {
		got = map[string]float64{}
		for _, s := range promQuery(t, base, `loadgate_requests_total{scenario="pushed",phase="measured"}`) {
			got[s.labels["trial"]] = s.value
		}
		if got[strconv.Itoa(len(measured.Trials))] == float64(measured.Trials[len(measured.Trials)-1].Requests) {
			break
		}
		flush()
		time.Sleep(100 * time.Millisecond)
	}
	for i, tr := range measured.Trials {
		trial := strconv.Itoa(i + 1)
		if got[trial] != float64(tr.Requests) || tr.Requests == 0 {
			t.Errorf("trial %s: Prometheus has %v requests, results.json %d", trial, got[trial], tr.Requests)
		}
		// The series start at 0 with their phase: their latest values are
		// the whole trial's.
		q := fmt.Sprintf(`histogram_quantile(0.99, sum by (le) (loadgate_request_duration_seconds_bucket{phase="measured",trial="%s"}))`, trial)
		res := promQuery(t, base, q)
		if len(res) != 1 {
			t.Fatalf("%s: %d results", q, len(res))
		}
		p99 := time.Duration(res[0].value * float64(time.Second))
		if d := bucketOf(p99) - bucketOf(tr.P99); d < -1 || d > 1 {
			t.Errorf("trial %s: PromQL's p99 %v is %d buckets from loadgate's %v", trial, p99, d, tr.P99)
		}
	}
	checkDashboardQueries(t, base)
}

// checkDashboardQueries runs every query of the example dashboard, its
// variables set to all values: each is PromQL that finds the run's data.
func checkDashboardQueries(t *testing.T, base string) {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("..", "..", "docs", "examples", "grafana-loadgate.json"))
	if err != nil {
		t.Fatal(err)
	}
	var dash struct {
		Panels []struct {
			Title   string `json:"title"`
			Targets []struct {
				Expr string `json:"expr"`
			} `json:"targets"`
		} `json:"panels"`
	}
	if err := json.Unmarshal(data, &dash); err != nil {
		t.Fatal(err)
	}
	vars := strings.NewReplacer("$scenario", ".*", "$case", ".*", "$phase", ".*", "$__rate_interval", "1m", "$__range", "5m")
	for _, p := range dash.Panels {
		for _, tg := range p.Targets {
			if res := promQuery(t, base, vars.Replace(tg.Expr)); len(res) == 0 {
				t.Errorf("panel %q: %s finds nothing", p.Title, tg.Expr)
			}
		}
	}
}
