package sut

import (
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/loadgate/loadgate/internal/testbin"
	"github.com/loadgate/loadgate/internal/testpeer"
	"github.com/loadgate/loadgate/results"
	"github.com/loadgate/loadgate/scenarios"
)

// loadgate is the command whose built-in server the real Prometheus test
// loads and watches.
var loadgate = testbin.New("../cmd/loadgate")

// promTools finds Debian's prometheus, prometheus-process-exporter and
// prometheus-node-exporter. Outside CI a machine without them skips; in CI
// (CI set, as .ci/run does, which installs them) that is a failure.
func promTools(t *testing.T) (prom, process, node string) {
	t.Helper()
	find := func(name string) string {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
		if p := "/usr/bin/" + name; isExecutable(p) {
			return p
		}
		msg := name + " is not installed (apt-get install prometheus prometheus-process-exporter prometheus-node-exporter)"
		if os.Getenv("CI") != "" {
			t.Fatal(msg + ", and CI is set")
		}
		t.Skip(msg)
		return ""
	}
	return find("prometheus"), find("prometheus-process-exporter"), find("prometheus-node-exporter")
}

func isExecutable(path string) bool {
	info, err := os.Stat(path)
	return err == nil && !info.IsDir() && info.Mode()&0o111 != 0
}

// freeLoopback returns an address on 127.0.0.1 that nothing listened on a
// moment ago.
func freeLoopback(t *testing.T) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	if err := l.Close(); err != nil {
		t.Fatal(err)
	}
	return addr
}

// promMonitorOf parses a monitor block as a scenario writes it, so that
// the test runs the default queries the scenario format fills in.
func promMonitorOf(t *testing.T, block string) *scenarios.Monitor {
	t.Helper()
	src := "version: 1\nname: s\nmonitor: { prometheus: " + block + " }\n" +
		"targets:\n  - name: t\n    http: { url: \"http://127.0.0.1:1/\" }\nphases:\n  - { name: m, duration: 1s }\n"
	s, err := scenarios.Parse("s.yaml", []byte(src), scenarios.LoadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	return s.Monitor
}

// realProm is a Prometheus on loopback scraping, every second, a
// process-exporter that watches the built-in server and a node_exporter.
type realProm struct {
	url       string
	server    *exec.Cmd
	serverURL string
	node      string // node_exporter's instance label
}

func startRealProm(t *testing.T) *realProm {
	promBin, processBin, nodeBin := promTools(t)
	dir := t.TempDir()
	srvAddr, procAddr, nodeAddr, promAddr := freeLoopback(t), freeLoopback(t), freeLoopback(t), freeLoopback(t)
	r := &realProm{url: "http://" + promAddr, serverURL: "http://" + srvAddr, node: nodeAddr}
	r.server = testpeer.StartProcess(t, dir, "serve", loadgate.Path(t), "serve", "--http", srvAddr)
	// The group is this test's server alone, found by its address: other
	// loadgate processes may run beside it.
	procCfg := fmt.Sprintf("process_names:\n  - name: lgserve\n    cmdline: ['--http %s']\n", regexp.QuoteMeta(srvAddr))
	promCfg := fmt.Sprintf("global: { scrape_interval: 1s, evaluation_interval: 1s }\nscrape_configs:\n"+
		"  - { job_name: process, static_configs: [{ targets: ['%s'] }] }\n"+
		"  - { job_name: node, static_configs: [{ targets: ['%s'] }] }\n", procAddr, nodeAddr)
	for name, text := range map[string]string{"process.yml": procCfg, "prometheus.yml": promCfg} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	testpeer.StartProcess(t, dir, "process-exporter", processBin, "-config.path", filepath.Join(dir, "process.yml"),
		"-web.listen-address", procAddr, "-threads=false", "-gather-smaps=false")
	testpeer.StartProcess(t, dir, "node-exporter", nodeBin, "--web.listen-address="+nodeAddr,
		"--collector.disable-defaults", "--collector.cpu", "--collector.meminfo")
	testpeer.StartProcess(t, dir, "prometheus", promBin, "--config.file="+filepath.Join(dir, "prometheus.yml"),
		"--storage.tsdb.path="+filepath.Join(dir, "tsdb"), "--web.listen-address="+promAddr)
	return r
}

// ready waits until the check before a run passes for m: Prometheus
// answers and both queries find their series (a rate needs two scrapes).
func (r *realProm) ready(t *testing.T, m *scenarios.Monitor) {
	t.Helper()
	deadline := time.Now().Add(60 * time.Second)
	for {
		err := NewSystems(Options{}, func(error) {}).ResolveMonitor("", m)
		if err == nil {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("Prometheus never became ready for %s: %v", m.Prometheus.Name, err)
		}
		time.Sleep(500 * time.Millisecond)
	}
}

// load sends requests to the built-in server from two workers until
// ctx is done.
func (r *realProm) load(ctx context.Context) *sync.WaitGroup {
	var wg sync.WaitGroup
	client := &http.Client{Timeout: 5 * time.Second}
	for range 2 {
		wg.Go(func() {
			for ctx.Err() == nil {
				resp, err := client.Get(r.serverURL + "/")
				if err != nil {
					continue
				}
				_, _ = io.Copy(io.Discard, resp.Body)
				_ = resp.Body.Close()
			}
		})
	}
	return &wg
}

// TestPrometheusMonitorReal reads a loaded server's figures from a real
// Prometheus, through process-exporter and node_exporter, over the same
// case as the local monitor samples it from /proc. The process group's
// CPU mean must come within 10% of /proc's (3 points of a core when that
// is more: a busy machine's load wavers, and the two windows' edges
// differ by up to a scrape), its memory within 10%; the whole host's
// figures must hold the server's.
func TestPrometheusMonitorReal(t *testing.T) {
	if testing.Short() {
		t.Skip("starts Prometheus and two exporters, and loads a server for seconds")
	}
	r := startRealProm(t)
	group := promMonitorOf(t, `{ url: "`+r.url+`", groupname: lgserve, window: 3s, settle: 2s }`)
	host := promMonitorOf(t, `{ url: "`+r.url+`", job: node, instance: "`+r.node+`", window: 3s, settle: 2s }`)
	r.ready(t, group)
	r.ready(t, host)

	ctx, cancel := context.WithCancel(context.Background())
	wg := r.load(ctx)
	defer func() { cancel(); wg.Wait() }()
	time.Sleep(time.Second) // the load is steady before the case starts
	local := startProcMonitor(r.server.Process.Pid, time.Second)
	remote := startPromMonitor(group.Prometheus, nil)
	whole := startPromMonitor(host.Prometheus, nil)
	time.Sleep(8 * time.Second)
	for _, m := range []*Monitor{local, remote, whole} {
		m.End()
	}
	cancel()
	wg.Wait()

	lu, err := local.Stop()
	if err != nil || !lu.CPUSampled() || lu.CPUMean <= 0 {
		t.Fatalf("local monitor: %+v, %v", lu, err)
	}
	gu, err := remote.Stop()
	if err != nil {
		t.Fatalf("process-exporter: %v", err)
	}
	checkRealUsage(t, "process-exporter", gu)
	t.Logf("process-exporter: cpu mean %.1f%% (max %.1f%%) over %d points; /proc: %.1f%% (max %.1f%%); rss %d vs %d",
		gu.CPUMean, gu.CPUMax, gu.Samples, lu.CPUMean, lu.CPUMax, gu.RSSMean, lu.RSSMean)
	if d := gu.CPUMean - lu.CPUMean; max(d, -d) > max(0.1*lu.CPUMean, 3) {
		t.Errorf("process-exporter's cpu mean %.1f%% is not within 10%% (or 3 points) of /proc's %.1f%%", gu.CPUMean, lu.CPUMean)
	}
	if d := float64(gu.RSSMean - lu.RSSMean); max(d, -d) > 0.1*float64(lu.RSSMean) {
		t.Errorf("process-exporter's rss mean %d is not within 10%% of /proc's %d", gu.RSSMean, lu.RSSMean)
	}

	hu, err := whole.Stop()
	if err != nil {
		t.Fatalf("node_exporter: %v", err)
	}
	checkRealUsage(t, "node_exporter", hu)
	t.Logf("node_exporter: the host's cpu mean %.1f%%, memory in use %d", hu.CPUMean, hu.RSSMean)
	if hu.CPUMean < 0.8*lu.CPUMean-3 || hu.RSSMean < lu.RSSMean {
		t.Errorf("the host's cpu mean %.1f%% and memory %d do not hold the server's %.1f%% and %d", hu.CPUMean, hu.RSSMean, lu.CPUMean, lu.RSSMean)
	}
}

// checkRealUsage checks that u holds measurements read from Prometheus:
// several points, CPU and memory above zero, the host's figures unset.
func checkRealUsage(t *testing.T, name string, u results.Usage) {
	t.Helper()
	switch {
	case u.Samples < 3:
		t.Errorf("%s: %d points over a case of 8s at a step of 1s (3s looked back), want 3 or more", name, u.Samples)
	case u.CPUMean <= 0 || u.CPUMax < u.CPUMean:
		t.Errorf("%s: cpu mean %v, max %v: want a loaded server's", name, u.CPUMean, u.CPUMax)
	case u.RSSMean <= 0 || u.RSSMax < u.RSSMean:
		t.Errorf("%s: rss mean %v, max %v", name, u.RSSMean, u.RSSMax)
	case u.PID != 0 || u.HostSampled() || !strings.HasPrefix(u.Prometheus, "http://127.0.0.1:"):
		t.Errorf("%s: usage %+v: want one read from Prometheus, without host figures", name, u)
	}
}
