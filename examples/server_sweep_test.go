package examples_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/loadgate/loadgate/internal/cli"
)

// TestServerSweep runs a matrix over a flag of the built-in server: the
// server is restarted for each case (a new pid per case), each case's
// latency follows its own server's delay, and CPU and memory are sampled
// per case.
func TestServerSweep(t *testing.T) {
	bin := loadgateBinary(t)
	out := t.TempDir()
	code, stdout, stderr := run(t, "run", "--no-progress", "-o", out,
		"--var", "port="+freePort(t), "--var", "loadgate="+bin, "--var", "measure=500ms", "server-sweep/scenario.yaml")
	if code != cli.ExitOK {
		t.Fatalf("exit %d\n%s\n%s", code, stdout, stderr)
	}
	var res struct {
		Scenarios []struct {
			Cases []struct {
				ID     string `json:"id"`
				Server *struct {
					PID     int   `json:"pid"`
					Samples int   `json:"samples"`
					RSSMax  int64 `json:"rss_max"`
				} `json:"server"`
				Stats struct {
					Requests int64 `json:"requests"`
				} `json:"stats"`
			} `json:"cases"`
		} `json:"scenarios"`
	}
	readJSON(t, filepath.Join(out, "results.json"), &res)
	cases := res.Scenarios[0].Cases
	if len(cases) != 3 {
		t.Fatalf("%d cases, want one per delay", len(cases))
	}
	pids := map[int]string{}
	for _, c := range cases {
		u := c.Server
		if u == nil || u.Samples < 2 || u.RSSMax <= 0 || c.Stats.Requests == 0 {
			t.Fatalf("%s: usage %+v, %d requests", c.ID, u, c.Stats.Requests)
		}
		if other, ok := pids[u.PID]; ok {
			t.Errorf("%s ran against the server of %s (pid %d): it was not restarted", c.ID, other, u.PID)
		}
		pids[u.PID] = c.ID
	}
	md, err := os.ReadFile(filepath.Join(out, "summary.md"))
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"`api delay_ms=1`", "`api delay_ms=20`", "server CPU mean / max", "server RSS max (MiB)"} {
		if !strings.Contains(string(md), want) {
			t.Errorf("summary.md lacks %q", want)
		}
	}
}
