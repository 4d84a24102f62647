// Package examples_test runs every worked example of examples/ on loopback
// against the built-in server, shortened through their variables.
package examples_test

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/loadgate/loadgate/internal/cli"
	"github.com/loadgate/loadgate/internal/demoserver"
)

func start(t *testing.T, cfg demoserver.Config) *demoserver.Server {
	t.Helper()
	cfg.HTTPAddr = "127.0.0.1:0"
	srv, err := demoserver.Start(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = srv.Close() })
	return srv
}

func run(t *testing.T, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	var out, errb bytes.Buffer
	env := cli.Env{Stdin: strings.NewReader(""), Stdout: &out, Stderr: &errb,
		Getenv: func(string) string { return "" }, LookupEnv: func(string) (string, bool) { return "", false }}
	code = cli.Main(context.Background(), args, env)
	return code, out.String(), errb.String()
}

type results struct {
	Scenarios []struct {
		Cases []struct {
			ID    string `json:"id"`
			Stats struct {
				Requests int64   `json:"requests"`
				Failed   int64   `json:"failed"`
				RPS      float64 `json:"rps"`
				Errors   struct {
					Status int64 `json:"status"`
				} `json:"errors"`
			} `json:"stats"`
		} `json:"cases"`
	} `json:"scenarios"`
}

func readResults(t *testing.T, dir string) results {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(dir, "results.json"))
	if err != nil {
		t.Fatal(err)
	}
	var r results
	if err := json.Unmarshal(data, &r); err != nil {
		t.Fatal(err)
	}
	return r
}

func TestConcurrencySweep(t *testing.T) {
	srv := start(t, demoserver.Config{})
	out := t.TempDir()
	code, stdout, stderr := run(t, "run", "--no-progress", "-o", out,
		"--var", "host="+srv.HTTPAddr(), "--var", "requests=3000",
		"concurrency-sweep/scenario.yaml")
	if code != cli.ExitOK {
		t.Fatalf("exit %d\n%s\n%s", code, stdout, stderr)
	}
	res := readResults(t, out)
	cases := res.Scenarios[0].Cases
	if len(cases) != 3 {
		t.Fatalf("%d cases, want one per concurrency level", len(cases))
	}
	for i, level := range []string{"concurrency=1", "concurrency=100", "concurrency=1000"} {
		if !strings.HasSuffix(cases[i].ID, level) || cases[i].Stats.Requests != 3000 {
			t.Errorf("case %d = %s with %d requests, want %s with 3000", i, cases[i].ID, cases[i].Stats.Requests, level)
		}
	}
	// Every request opened its own connection, as ab without -k does.
	if got := srv.Stats().Accepted; got != 9000 {
		t.Errorf("server accepted %d connections for 9000 requests", got)
	}
	md, err := os.ReadFile(filepath.Join(out, "summary.md"))
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"concurrency=1000", "p99", "knee"} {
		if !strings.Contains(strings.ToLower(string(md)), strings.ToLower(want)) {
			t.Errorf("summary.md lacks %q", want)
		}
	}
}

func TestWarmupThenMeasure(t *testing.T) {
	a := start(t, demoserver.Config{})
	b := start(t, demoserver.Config{Delay: time.Millisecond, ErrorRate: 0.02, Seed: 7})
	out := t.TempDir()
	code, stdout, stderr := run(t, "run", "--no-progress", "-o", out,
		"--var", "server_a="+a.HTTPAddr(), "--var", "server_b="+b.HTTPAddr(),
		"--var", "warmup_requests=300", "--var", "requests=1500",
		"warmup-then-measure/scenario.yaml")
	if code != cli.ExitOK {
		t.Fatalf("exit %d\n%s\n%s", code, stdout, stderr)
	}
	cases := readResults(t, out).Scenarios[0].Cases
	if len(cases) != 2 {
		t.Fatalf("%d cases, want one per server", len(cases))
	}
	for _, c := range cases {
		if c.Stats.Requests != 1500 {
			t.Errorf("%s: %d requests in results, want the 1500 measured (warm-up excluded)", c.ID, c.Stats.Requests)
		}
	}
	if cases[0].Stats.Failed != 0 {
		t.Errorf("server-a failed %d requests", cases[0].Stats.Failed)
	}
	if cases[1].Stats.Errors.Status == 0 || cases[1].Stats.Errors.Status != cases[1].Stats.Failed {
		t.Errorf("server-b: %d failed, %d by status: failures are not split by kind",
			cases[1].Stats.Failed, cases[1].Stats.Errors.Status)
	}
	if a.Stats().Requests != 1800 {
		t.Errorf("server-a served %d requests, want 300 warm-up + 1500 measured", a.Stats().Requests)
	}
	if !strings.Contains(stdout, "Failed requests") {
		t.Errorf("console lacks the ab-style failure breakdown:\n%s", stdout)
	}
}

// TestEveryExampleValidates checks every example's scenario as `loadgate
// validate` does, so one that no other test runs still cannot rot. vars
// point at files an example reads that a running server writes.
func TestEveryExampleValidates(t *testing.T) {
	cert := filepath.Join(t.TempDir(), "cert.pem")
	start(t, demoserver.Config{HTTPSAddr: "127.0.0.1:0", CertFile: cert})
	vars := map[string][]string{"http2": {"--var", "ca=" + cert}}
	files, _ := filepath.Glob("*/scenario.yaml")
	if len(files) < 13 {
		t.Fatalf("%d examples found, want every one of examples/", len(files))
	}
	for _, f := range files {
		t.Run(filepath.Dir(f), func(t *testing.T) {
			args := append(append([]string{"validate"}, vars[filepath.Dir(f)]...), f)
			if code, stdout, stderr := run(t, args...); code != cli.ExitOK {
				t.Errorf("exit %d\n%s\n%s", code, stdout, stderr)
			}
		})
	}
}
