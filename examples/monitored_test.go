package examples_test

import (
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/loadgate/loadgate/internal/cli"
	"github.com/loadgate/loadgate/internal/testpeer"
)

const monitoredDir = "long-vs-short-tcp-monitored"

// requireTools returns the paths of the named commands. Outside CI a
// machine without one skips, with the reason; in CI, whose .ci/run
// installs them, that is a failure.
func requireTools(t *testing.T, names ...string) []string {
	t.Helper()
	paths := make([]string, len(names))
	for i, name := range names {
		p, err := exec.LookPath(name)
		if err != nil {
			msg := name + " is not installed (apt-get install redis-server prometheus prometheus-process-exporter)"
			if os.Getenv("CI") != "" {
				t.Fatal(msg + ", and CI is set")
			}
			t.Skip(msg)
		}
		paths[i] = p
	}
	return paths
}

// exampleFile writes the example's file name into dir with each old
// string replaced by its new one, so the test runs the example's own
// process-exporter and Prometheus configuration on its free ports.
func exampleFile(t *testing.T, dir, name string, oldNew ...string) string {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(monitoredDir, name))
	if err != nil {
		t.Fatal(err)
	}
	text := string(data)
	for i := 0; i < len(oldNew); i += 2 {
		if !strings.Contains(text, oldNew[i]) {
			t.Fatalf("%s does not hold %q", name, oldNew[i])
		}
		text = strings.ReplaceAll(text, oldNew[i], oldNew[i+1])
	}
	path := filepath.Join(dir, name)
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// waitFor polls ready until it returns nil, failing after a minute.
func waitFor(t *testing.T, what string, ready func() error) {
	t.Helper()
	deadline := time.Now().Add(time.Minute)
	for {
		err := ready()
		if err == nil {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s: %v", what, err)
		}
		time.Sleep(200 * time.Millisecond)
	}
}

// promHasRate reports whether Prometheus holds a CPU rate of the group,
// which takes two scrapes: the check loadgate makes before any load.
func promHasRate(promURL, group string) error {
	q := fmt.Sprintf(`sum(rate(namedprocess_namegroup_cpu_seconds_total{groupname=%q}[3s]))`, group)
	resp, err := http.Get(promURL + "/api/v1/query?query=" + url.QueryEscape(q))
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	var body struct {
		Data struct {
			Result []json.RawMessage `json:"result"`
		} `json:"data"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&body); err != nil {
		return err
	}
	if len(body.Data.Result) == 0 {
		return fmt.Errorf("no rate of group %s yet", group)
	}
	return nil
}

// storeStats reads the built-in server's store counters from /stats.
func storeStats(t *testing.T, httpAddr string) (stored, errs, dials int64) {
	t.Helper()
	resp, err := http.Get("http://" + httpAddr + "/stats")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var st struct {
		Store *struct{ Stored, Errors, Dials int64 } `json:"store"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&st); err != nil || st.Store == nil {
		t.Fatalf("/stats has no store (%v)", err)
	}
	return st.Store.Stored, st.Store.Errors, st.Store.Dials
}

type monitoredUsage struct {
	Samples int     `json:"samples"`
	CPUMean float64 `json:"cpu_mean"`
	RSSMax  int64   `json:"rss_max"`
	Reason  string  `json:"reason"`
}

type monitoredResults struct {
	Scenarios []struct {
		Cases []struct {
			ID         string          `json:"id"`
			ServerName string          `json:"server_name"`
			Server     *monitoredUsage `json:"server"`
			Servers    []struct {
				Name string `json:"name"`
				monitoredUsage
			} `json:"servers"`
			Stats struct {
				Requests int64 `json:"requests"`
				Failed   int64 `json:"failed"`
			} `json:"stats"`
			Verdicts []struct {
				Name   string `json:"name"`
				Status string `json:"status"`
				Reason string `json:"reason"`
			} `json:"verdicts"`
		} `json:"cases"`
	} `json:"scenarios"`
}

// TestLongVsShortTCPMonitored runs the monitored study as its README does:
// redis-server, the built-in server storing into it, process-exporter
// with the example's groups and Prometheus with the example's scrape
// config, each on a free loopback port, and the scenario shortened.
func TestLongVsShortTCPMonitored(t *testing.T) {
	tools := requireTools(t, "redis-server", "prometheus-process-exporter", "prometheus")
	dir, out := t.TempDir(), t.TempDir()
	redisAddr := startRedis(t, tools[0])
	_, redisPort, _ := net.SplitHostPort(redisAddr)
	tcpPort, httpPort, exporterPort, promPort := freePort(t), freePort(t), freePort(t), freePort(t)
	tcpAddr, httpAddr := "127.0.0.1:"+tcpPort, "127.0.0.1:"+httpPort
	testpeer.StartProcess(t, dir, "serve", loadgate.Path(t), "serve", "--http", httpAddr, "--tcp", tcpAddr, "--tcp-store", redisAddr)
	waitFor(t, "the built-in server", func() error {
		c, err := net.Dial("tcp", tcpAddr)
		if err == nil {
			_ = c.Close()
		}
		return err
	})
	procCfg := exampleFile(t, dir, "process-exporter.yml", ":13888", ":"+tcpPort, ":6379", ":"+redisPort)
	promCfg := exampleFile(t, dir, "prometheus.yml", "127.0.0.1:9256", "127.0.0.1:"+exporterPort)
	testpeer.StartProcess(t, dir, "process-exporter", tools[1], "-config.path", procCfg,
		"-web.listen-address", "127.0.0.1:"+exporterPort, "-threads=false", "-gather-smaps=false")
	promURL := "http://127.0.0.1:" + promPort
	testpeer.StartProcess(t, dir, "prometheus", tools[2], "--config.file="+promCfg,
		"--storage.tsdb.path="+filepath.Join(dir, "tsdb"), "--web.listen-address=127.0.0.1:"+promPort)
	for _, group := range []string{"app", "db"} {
		waitFor(t, "Prometheus's figures of "+group, func() error { return promHasRate(promURL, group) })
	}

	code, stdout, stderr := run(t, "run", "--no-progress", "-o", out, "--var", "host="+tcpAddr,
		"--var", "prometheus="+promURL, "--var", "measure=5s", monitoredDir+"/scenario.yaml")
	if code != cli.ExitOK {
		t.Fatalf("exit %d\n%s\n%s", code, stdout, stderr)
	}
	checkMonitoredResults(t, out)
	md, err := os.ReadFile(filepath.Join(out, "summary.md"))
	if err != nil {
		t.Fatal(err)
	}
	i := strings.Index(string(md), "**Servers side by side**")
	if i < 0 {
		t.Fatalf("summary.md has no servers table:\n%s", md)
	}
	table := string(md[i:])
	for _, col := range []string{"| app CPU mean / max |", "| app RSS max (MiB) |", "| db CPU mean / max |", "| db RSS max (MiB) |",
		"`persistent concurrency=10`", "`per_iteration concurrency=50`"} {
		if !strings.Contains(table, col) {
			t.Errorf("the servers table lacks %q:\n%s", col, table)
		}
	}
	// The agents' messages reached Redis, over no more connections than
	// the pool holds, though per_iteration opened one per iteration.
	if stored, errs, dials := storeStats(t, httpAddr); stored == 0 || errs != 0 || dials < 1 || dials > 4 {
		t.Errorf("store: %d stored, %d errors, %d dials; want some stored, no errors, 1 to 4 dials", stored, errs, dials)
	}
}

func checkMonitoredResults(t *testing.T, out string) {
	t.Helper()
	var res monitoredResults
	readJSON(t, filepath.Join(out, "results.json"), &res)
	cases := res.Scenarios[0].Cases
	if len(cases) != 4 {
		t.Fatalf("%d cases, want 2 targets × 2 levels", len(cases))
	}
	for _, c := range cases {
		if c.Stats.Requests == 0 || c.Stats.Failed != 0 {
			t.Errorf("%s: %d requests, %d failed", c.ID, c.Stats.Requests, c.Stats.Failed)
		}
		if c.ServerName != "app" || c.Server == nil || len(c.Servers) != 1 || c.Servers[0].Name != "db" {
			t.Fatalf("%s: watched %q %v and %+v, want app and db", c.ID, c.ServerName, c.Server, c.Servers)
		}
		app, db := c.Server, c.Servers[0].monitoredUsage
		if app.Samples == 0 || db.Samples == 0 {
			t.Errorf("%s: %d samples of app (%s), %d of db (%s)", c.ID, app.Samples, app.Reason, db.Samples, db.Reason)
		}
		if app.CPUMean <= 0 || db.CPUMean <= 0 || db.RSSMax <= 0 || app.RSSMax <= 0 {
			t.Errorf("%s: app cpu %.2f%% rss %d, db cpu %.2f%% rss %d; want all above 0",
				c.ID, app.CPUMean, app.RSSMax, db.CPUMean, db.RSSMax)
		}
		if len(c.Verdicts) != 8 {
			t.Errorf("%s: %d verdicts, want one per threshold (8)", c.ID, len(c.Verdicts))
		}
		for _, v := range c.Verdicts {
			if v.Status != "pass" && v.Status != "fail" {
				t.Errorf("%s: %s was not judged: %s (%s)", c.ID, v.Name, v.Status, v.Reason)
			}
		}
		t.Logf("%s: %d requests; app cpu %.1f%% rss %.1f MiB; db cpu %.1f%% rss %.1f MiB", c.ID, c.Stats.Requests,
			app.CPUMean, float64(app.RSSMax)/(1<<20), db.CPUMean, float64(db.RSSMax)/(1<<20))
	}
}
