package examples_test

import (
	"encoding/json"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/loadgate/loadgate/internal/cli"
	"github.com/loadgate/loadgate/internal/testbin"
)

// requireNginx skips where nginx is not installed, except in CI, whose
// .ci/run installs it: there a missing nginx is a failure.
func requireNginx(t *testing.T) {
	t.Helper()
	if _, err := exec.LookPath("nginx"); err != nil {
		if os.Getenv("CI") != "" {
			t.Fatal("nginx is not installed (apt-get install nginx-light)")
		}
		t.Skip("nginx is not installed (apt-get install nginx-light)")
	}
}

func freePort(t *testing.T) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return strconv.Itoa(l.Addr().(*net.TCPAddr).Port)
}

// nginxRunning counts nginx processes whose command line names dir.
func nginxRunning(dir string) int {
	n := 0
	entries, _ := os.ReadDir("/proc")
	for _, e := range entries {
		cmd, err := os.ReadFile(filepath.Join("/proc", e.Name(), "cmdline"))
		if err == nil && strings.HasPrefix(string(cmd), "nginx") && strings.Contains(string(cmd), dir) {
			stat, _ := os.ReadFile(filepath.Join("/proc", e.Name(), "stat"))
			if f := strings.Fields(string(stat[strings.LastIndexByte(string(stat), ')')+1:])); len(f) > 0 && f[0] != "Z" {
				n++
			}
		}
	}
	return n
}

type usageResults struct {
	Scenarios []struct {
		Cases []struct {
			ID     string `json:"id"`
			Server *struct {
				CPUMean float64 `json:"cpu_mean"`
				RSSMax  int64   `json:"rss_max"`
			} `json:"server"`
			Stats struct {
				Requests int64 `json:"requests"`
				Failed   int64 `json:"failed"`
			} `json:"stats"`
		} `json:"cases"`
	} `json:"scenarios"`
}

func TestNginxAsSystemUnderTest(t *testing.T) {
	requireNginx(t)
	port, work, out := freePort(t), t.TempDir(), t.TempDir()
	code, stdout, stderr := run(t, "run", "--no-progress", "-o", out, "--var", "port="+port, "--var", "workdir="+work,
		"nginx/scenario.yaml")
	if code != cli.ExitOK {
		t.Fatalf("exit %d\n%s\n%s", code, stdout, stderr)
	}
	var res usageResults
	readJSON(t, filepath.Join(out, "results.json"), &res)
	c := res.Scenarios[0].Cases[0]
	if c.Server == nil || c.Server.CPUMean <= 0 || c.Server.RSSMax <= 0 {
		t.Fatalf("nginx usage not measured: %+v", c.Server)
	}
	t.Logf("nginx: %d requests, cpu mean %.1f%%, rss max %d KiB", c.Stats.Requests, c.Server.CPUMean, c.Server.RSSMax>>10)
	if n := nginxRunning(work); n != 0 {
		t.Errorf("%d nginx processes remain after the run", n)
	}
	if _, err := os.Stat(filepath.Join(out, "server-server.log")); err != nil {
		t.Errorf("server log not kept: %v", err)
	}
}

// loadgate is the command, built once for this package's tests.
var loadgate = testbin.New("../cmd/loadgate")

func loadgateBinary(t *testing.T) string { return loadgate.Path(t) }

func TestTwoServersSideBySide(t *testing.T) {
	requireNginx(t)
	bin := loadgateBinary(t)
	work, out := t.TempDir(), t.TempDir()
	start := time.Now()
	code, stdout, stderr := run(t, "run", "--no-progress", "-o", out,
		"--var", "nginx_port="+freePort(t), "--var", "go_port="+freePort(t), "--var", "workdir="+work,
		"--var", "loadgate="+bin, "--var", "measure=1s", "two-servers/scenario.yaml")
	if code != cli.ExitOK {
		t.Fatalf("exit %d\n%s\n%s", code, stdout, stderr)
	}
	t.Logf("took %v", time.Since(start))
	var res usageResults
	readJSON(t, filepath.Join(out, "results.json"), &res)
	cases := res.Scenarios[0].Cases
	if len(cases) != 6 {
		t.Fatalf("%d cases, want 2 servers × 3 levels", len(cases))
	}
	for _, c := range cases {
		if c.Server == nil || c.Server.RSSMax <= 0 || c.Stats.Requests == 0 || c.Stats.Failed != 0 {
			t.Errorf("%s: usage %+v, %d requests, %d failed", c.ID, c.Server, c.Stats.Requests, c.Stats.Failed)
		}
	}
	md, err := os.ReadFile(filepath.Join(out, "summary.md"))
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"nginx", "go-builtin", "CPU", "RSS"} {
		if !strings.Contains(string(md), want) {
			t.Errorf("summary.md lacks %q", want)
		}
	}
	if n := nginxRunning(work); n != 0 {
		t.Errorf("%d nginx processes remain", n)
	}
}

func readJSON(t *testing.T, path string, v any) {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(data, v); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
}
