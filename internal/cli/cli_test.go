package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"net"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/loadgate/loadgate/internal/demoserver"
	"github.com/loadgate/loadgate/results"
)

// invocation is one in-process run of loadgate.
type invocation struct {
	code           int
	stdout, stderr string
}

func invoke(t *testing.T, ctx context.Context, environ map[string]string, args ...string) invocation {
	t.Helper()
	var out, errb bytes.Buffer
	env := Env{
		Stdin: strings.NewReader(""), Stdout: &out, Stderr: &errb,
		Getenv:    func(k string) string { return environ[k] },
		LookupEnv: func(k string) (string, bool) { v, ok := environ[k]; return v, ok },
	}
	code := Main(ctx, args, env)
	return invocation{code: code, stdout: out.String(), stderr: errb.String()}
}

func startServer(t *testing.T, cfg demoserver.Config) *demoserver.Server {
	t.Helper()
	if cfg.HTTPAddr == "" {
		cfg.HTTPAddr = "127.0.0.1:0"
	}
	srv, err := demoserver.Start(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = srv.Close() })
	return srv
}

func writeScenario(t *testing.T, body string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "s.yaml")
	if err := os.WriteFile(path, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

type resultsFile struct {
	Schema      int  `json:"schema"`
	Interrupted bool `json:"interrupted"`
	Passed      bool `json:"passed"`
	Scenarios   []struct {
		Name  string `json:"name"`
		Cases []struct {
			ID     string `json:"id"`
			Phases []struct {
				Name     string `json:"name"`
				Warmup   bool   `json:"warmup"`
				Requests int64  `json:"requests"`
			} `json:"phases"`
			Stats struct {
				Requests int64 `json:"requests"`
				Errors   struct {
					Connect int64 `json:"connect"`
				} `json:"errors"`
			} `json:"stats"`
		} `json:"cases"`
	} `json:"scenarios"`
}

func readResults(t *testing.T, dir string) resultsFile {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(dir, "results.json"))
	if err != nil {
		t.Fatal(err)
	}
	var r resultsFile
	if err := json.Unmarshal(data, &r); err != nil {
		t.Fatalf("results.json: %v", err)
	}
	return r
}

const basicScenario = `version: 1
name: basic
targets:
  - name: hello
    http:
      url: http://${host}/
      keepalive: ${keepalive:-true}
phases:
  - name: warm
    warmup: true
    requests: 30
    concurrency: 3
  - name: measured
    requests: 40
    concurrency: 2
thresholds:
  - requests == 40
  - error_rate == 0
  - RULE
`

func TestRunPassesWritesOutputsAndKeepsWarmupOut(t *testing.T) {
	srv := startServer(t, demoserver.Config{})
	out := t.TempDir()
	path := writeScenario(t, strings.Replace(basicScenario, "RULE", "p99 < 5s", 1))
	r := invoke(t, context.Background(), nil, "run", "--no-progress", "-o", out, "--var", "host="+srv.HTTPAddr(), path)
	if r.code != ExitOK {
		t.Fatalf("exit %d, stderr:\n%s\nstdout:\n%s", r.code, r.stderr, r.stdout)
	}
	for _, f := range []string{"results.json", "junit.xml", "summary.md", "report.html"} {
		if st, err := os.Stat(filepath.Join(out, f)); err != nil || st.Size() == 0 {
			t.Errorf("%s missing or empty: %v", f, err)
		}
	}
	res := readResults(t, out)
	if res.Schema != 1 || !res.Passed || len(res.Scenarios) != 1 {
		t.Fatalf("results.json: %+v", res)
	}
	c := res.Scenarios[0].Cases[0]
	for _, p := range c.Phases {
		if p.Warmup || p.Name == "warm" {
			t.Errorf("warm-up phase %q is in results.json", p.Name)
		}
	}
	if c.Stats.Requests != 40 {
		t.Errorf("results.json counts %d requests, want the 40 measured ones", c.Stats.Requests)
	}
	if got := srv.Stats().Requests; got != 70 {
		t.Errorf("server served %d requests, want 30 warm-up + 40 measured", got)
	}
	if !strings.Contains(r.stdout, "Requests per second") {
		t.Errorf("console summary missing:\n%s", r.stdout)
	}
}

func TestKeepaliveFalseOpensOneConnectionPerRequest(t *testing.T) {
	srv := startServer(t, demoserver.Config{})
	path := writeScenario(t, strings.Replace(basicScenario, "RULE", "errors.connect == 0", 1))
	r := invoke(t, context.Background(), nil, "run", "--no-progress", "-o", "", "--var", "host="+srv.HTTPAddr(),
		"--var", "keepalive=false", path)
	if r.code != ExitOK {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	if got := srv.Stats().Accepted; got != 70 {
		t.Errorf("server accepted %d connections for 70 requests with keepalive: false", got)
	}
}

func TestFailingThresholdExits1WithExpectedAndActual(t *testing.T) {
	srv := startServer(t, demoserver.Config{Delay: 5 * time.Millisecond})
	out := t.TempDir()
	path := writeScenario(t, strings.Replace(basicScenario, "RULE", "p99 < 1ms", 1))
	r := invoke(t, context.Background(), nil, "run", "--no-progress", "-o", out, "--var", "host="+srv.HTTPAddr(), path)
	if r.code != ExitFailed {
		t.Fatalf("exit %d, want %d; stderr:\n%s", r.code, ExitFailed, r.stderr)
	}
	junit, err := os.ReadFile(filepath.Join(out, "junit.xml"))
	if err != nil {
		t.Fatal(err)
	}
	failure := regexp.MustCompile(`(?s)<failure[^>]*>.*?</failure>`).FindString(string(junit))
	if !strings.Contains(failure, "p99 &lt; 1ms") || !regexp.MustCompile(`p99 = [0-9.]+ms`).MatchString(failure) {
		t.Errorf("failure does not carry expected rule and actual p99:\n%s", failure)
	}
	if readResults(t, out).Passed {
		t.Error("results.json says passed")
	}
}

func TestInvalidScenariosExit2WithPositionAndSendNothing(t *testing.T) {
	srv := startServer(t, demoserver.Config{})
	for _, tc := range []struct {
		name, from, to string
		want           string // regexp on stderr
	}{
		{"unknown field", "      url: http://${host}/\n", "      url: http://${host}/\n      colour: blue\n", `s\.yaml:7:7: .*colour`},
		{"bad type", "    concurrency: 2\n", "    concurrency: lots\n", `s\.yaml:15:18: .*concurrency`},
		{"undefined variable", "url: http://${host}/", "url: http://${nohost}/", `s\.yaml:6:\d+: .*nohost`},
		{"invalid rule", "  - RULE", "  - p98 < 1ms", `s\.yaml:19:5: .*p98`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			body := strings.Replace(strings.Replace(basicScenario, tc.from, tc.to, 1), "RULE", "p99 < 5s", 1)
			path := writeScenario(t, body)
			r := invoke(t, context.Background(), nil, "run", "--no-progress", "-o", t.TempDir(), "--var", "host="+srv.HTTPAddr(), path)
			if r.code != ExitUsage {
				t.Fatalf("exit %d, want 2; stderr:\n%s", r.code, r.stderr)
			}
			if !regexp.MustCompile(tc.want).MatchString(r.stderr) {
				t.Errorf("stderr does not match %s:\n%s", tc.want, r.stderr)
			}
			v := invoke(t, context.Background(), nil, "validate", "--var", "host="+srv.HTTPAddr(), path)
			if v.code != ExitUsage {
				t.Errorf("validate exit %d, want 2", v.code)
			}
		})
	}
	if got := srv.Stats().Requests; got != 0 {
		t.Errorf("invalid scenarios sent %d requests", got)
	}
}

// deadTCPScenario talks a line protocol to ${host}.
const deadTCPScenario = `version: 1
name: deadtcp
targets:
  - name: agent
    tcp:
      address: ${host}
      framing: { line: "\n" }
      iteration:
        - send: PING
        - expect: { frame: true }
phases:
  - { name: measured, requests: 40, concurrency: 2 }
thresholds:
  - rps >= 1
  - p99 < 5s
`

// A target nobody listens on is not fast throughput: every variant exits 3
// and says "connection refused" wherever a person or a program looks.
func TestUnreachableTargetFailsWithConnectErrors(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	_ = ln.Close() // nothing listens there any more
	for _, tc := range []struct {
		name     string
		scenario string
		extra    []string
		connects int64
	}{
		{"http", strings.Replace(basicScenario, "RULE", "p99 < 5s", 1), nil, 40},
		{"tcp", deadTCPScenario, nil, 40},
		{"http segment part", strings.Replace(basicScenario, "RULE", "p99 < 5s", 1), []string{"--segment", "1/2"}, 20},
	} {
		t.Run(tc.name, func(t *testing.T) {
			out := t.TempDir()
			args := append([]string{"run", "--no-progress", "-o", out, "--var", "host=" + addr}, tc.extra...)
			r := invoke(t, context.Background(), nil, append(args, writeScenario(t, tc.scenario))...)
			if r.code != ExitRun {
				t.Fatalf("exit %d, want 3 (no request succeeded: the run could not be carried out); stderr:\n%s", r.code, r.stderr)
			}
			var res results.Run
			if err := json.Unmarshal([]byte(readFile(t, filepath.Join(out, "results.json"))), &res); err != nil {
				t.Fatal(err)
			}
			c := res.Scenarios[0].Cases[0]
			if c.Stats.Errors.Connect != tc.connects || c.Stats.RPS != 0 || c.Stats.Latency.P99 != 0 {
				t.Errorf("connect errors = %d, rps = %v, p99 = %v; want %d, 0, 0", c.Stats.Errors.Connect, c.Stats.RPS, c.Stats.Latency.P99, tc.connects)
			}
			if res.Passed {
				t.Error("results.json says passed for a run in which nothing succeeded")
			}
			for _, v := range c.Verdicts {
				if v.Status == "pass" {
					t.Errorf("verdict %q passed on a dead target", v.Rule)
				}
			}
			for what, text := range map[string]string{
				"stdout": r.stdout, "stderr": r.stderr, "case error": c.Error,
				"error sample": c.Stats.ErrorSamples["connect"], "summary.md": readFile(t, filepath.Join(out, "summary.md")),
			} {
				if !strings.Contains(text, "connection refused") {
					t.Errorf("%s does not say %q:\n%s", what, "connection refused", text)
				}
			}
		})
	}
}

func TestInterruptExits130AndMarksResults(t *testing.T) {
	srv := startServer(t, demoserver.Config{Delay: 2 * time.Millisecond})
	out := t.TempDir()
	path := writeScenario(t, `version: 1
name: long
targets:
  - name: hello
    http: { url: "http://${host}/" }
phases:
  - name: measured
    duration: 60s
    concurrency: 4
thresholds:
  - error_rate == 0
`)
	ctx, cancel := context.WithCancel(context.Background())
	// Interrupt once the measured phase is sending, however slow a busy
	// machine is to get there: the partial results must hold its requests.
	go func() {
		for ctx.Err() == nil && srv.Stats().Requests < 100 {
			time.Sleep(10 * time.Millisecond)
		}
		cancel()
	}()
	defer cancel()
	r := invoke(t, ctx, nil, "run", "--no-progress", "-o", out, "--var", "host="+srv.HTTPAddr(), path)
	if r.code != ExitInterrupted {
		t.Fatalf("exit %d, want 130; stderr:\n%s", r.code, r.stderr)
	}
	res := readResults(t, out)
	if !res.Interrupted {
		t.Error("results.json not marked interrupted")
	}
	if len(res.Scenarios) == 0 || len(res.Scenarios[0].Cases) == 0 {
		t.Fatalf("partial results lost: no case in results.json")
	}
	if res.Scenarios[0].Cases[0].Stats.Requests == 0 {
		t.Error("partial results lost: no requests in results.json")
	}
}

func TestUsageErrors(t *testing.T) {
	for _, args := range [][]string{
		{},
		{"frobnicate"},
		{"run"},
		{"run", "--no-such-flag", "x.yaml"},
		{"run", "does/not/exist.yaml"},
		{"run", "--log-level", "loud", writeScenario(t, strings.Replace(basicScenario, "RULE", "true", 1))},
	} {
		if r := invoke(t, context.Background(), nil, args...); r.code != ExitUsage {
			t.Errorf("%q: exit %d, want 2", args, r.code)
		}
	}
}

func TestEnvironmentSetsFlagsAndVars(t *testing.T) {
	srv := startServer(t, demoserver.Config{})
	out := filepath.Join(t.TempDir(), "from-env")
	path := writeScenario(t, strings.Replace(basicScenario, "RULE", "true", 1))
	r := invoke(t, context.Background(), map[string]string{
		"LOADGATE_OUT":      out,
		"LOADGATE_VAR_host": srv.HTTPAddr(),
	}, "run", "--no-progress", path)
	if r.code != ExitOK {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	if _, err := os.Stat(filepath.Join(out, "results.json")); err != nil {
		t.Errorf("LOADGATE_OUT ignored: %v", err)
	}
}

func TestSchemaAndVersion(t *testing.T) {
	r := invoke(t, context.Background(), nil, "schema")
	var schema map[string]any
	if r.code != ExitOK || json.Unmarshal([]byte(r.stdout), &schema) != nil || schema["properties"] == nil {
		t.Errorf("schema: exit %d, output is not a JSON Schema:\n%.200s", r.code, r.stdout)
	}
	if r := invoke(t, context.Background(), nil, "version"); r.code != ExitOK || !strings.HasPrefix(r.stdout, "loadgate ") {
		t.Errorf("version: exit %d %q", r.code, r.stdout)
	}
}

func TestEmbeddedDemoMatchesTestdata(t *testing.T) {
	onDisk, err := os.ReadFile("../../testdata/scenarios/demo.yaml")
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(onDisk, demoScenario) {
		t.Error("internal/cli/demo.yaml and testdata/scenarios/demo.yaml differ; copy one over the other")
	}
	r := invoke(t, context.Background(), nil, "validate", "../../testdata/scenarios/demo.yaml")
	if r.code != ExitOK {
		t.Errorf("demo.yaml does not validate: %s", r.stderr)
	}
}

func TestDemo(t *testing.T) {
	if testing.Short() {
		t.Skip("the demo runs for about 10 seconds")
	}
	out := t.TempDir()
	start := time.Now()
	r := invoke(t, context.Background(), nil, "demo", "--no-progress", "-o", out)
	if r.code != ExitOK {
		t.Fatalf("demo exit %d\nstdout:\n%s\nstderr:\n%s", r.code, r.stdout, r.stderr)
	}
	if took := time.Since(start); took > 30*time.Second {
		t.Errorf("demo took %v, want under 30s", took)
	}
	for _, want := range []string{"Requests per second", "concurrency=64", "p99 < 500ms"} {
		if !strings.Contains(r.stdout, want) {
			t.Errorf("demo output lacks %q", want)
		}
	}
	if n := len(readResults(t, out).Scenarios[0].Cases); n != 3 {
		t.Errorf("demo ran %d cases, want 3", n)
	}
	lines := strings.Split(strings.TrimSuffix(r.stdout, "\n"), "\n")
	if last, want := lines[len(lines)-1], "loadgate demo: reports in "+out+": results.json, junit.xml, summary.md, report.html"; last != want {
		t.Errorf("demo's last line is\n%s\nwant\n%s", last, want)
	}
}

func TestGitHubActionsSummaryAndAnnotations(t *testing.T) {
	srv := startServer(t, demoserver.Config{Delay: 2 * time.Millisecond})
	summary := filepath.Join(t.TempDir(), "step-summary.md")
	path := writeScenario(t, strings.Replace(basicScenario, "RULE", "p99 < 1ms", 1))
	r := invoke(t, context.Background(), map[string]string{
		"GITHUB_ACTIONS": "true", "GITHUB_STEP_SUMMARY": summary,
	}, "run", "--no-progress", "-o", "", "--var", "host="+srv.HTTPAddr(), path)
	if r.code != ExitFailed {
		t.Fatalf("exit %d, want 1: %s", r.code, r.stderr)
	}
	md, err := os.ReadFile(summary)
	if err != nil || !strings.Contains(string(md), "p99 < 1ms") {
		t.Errorf("step summary not written or lacks the failing rule (%v):\n%.300s", err, md)
	}
	// The rule sits on line 19, column 5 of the scenario.
	// A workflow command escapes % : and , in the file property.
	want := "::error file=" + strings.NewReplacer("%", "%25", ":", "%3A", ",", "%2C").Replace(path) + ",line=19,col=5,"
	if !strings.Contains(r.stdout, want) {
		t.Errorf("no annotation %q in:\n%s", want, r.stdout)
	}
	if strings.Count(r.stdout, "::error ") != 1 {
		t.Errorf("want exactly one error annotation (only the failing rule):\n%s", r.stdout)
	}
	if !strings.Contains(r.stdout, "::group::loadgate: basic") || !strings.Contains(r.stdout, "::endgroup::") {
		t.Error("console summary is not wrapped in a log group")
	}

	// Inside the checkout, the file is named as GitHub resolves it: relative
	// to the workspace.
	r = invoke(t, context.Background(), map[string]string{
		"GITHUB_ACTIONS": "true", "GITHUB_WORKSPACE": filepath.Dir(path),
	}, "run", "--no-progress", "-o", "", "--var", "host="+srv.HTTPAddr(), path)
	if want := "::error file=" + filepath.Base(path) + ",line=19,col=5,"; !strings.Contains(r.stdout, want) {
		t.Errorf("no annotation %q in:\n%s", want, r.stdout)
	}
}
