package cli

import (
	"context"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/loadgate/loadgate/internal/demoserver"
	"go.yaml.in/yaml/v3"
)

// quick are the variables that make an init scenario run in about a second.
var quick = []string{"--var", "duration=300ms", "--var", "trials=2", "--var", "warmup=100ms", "--var", "concurrency=2"}

// TestInitWritesScenarioAndWorkflow: both files, the scenario valid as
// loadgate validate says, with the modeline first; the workflow runs on
// pushes to main and pull requests through the action, with a baseline
// kept by main, a comment, and the permissions those need; the output
// names both and the next command.
func TestInitWritesScenarioAndWorkflow(t *testing.T) {
	tests := []struct {
		name      string
		args      []string
		file      string
		scenarios []string // lines the scenario must hold
	}{
		{"built-in server", nil, "smoke.yaml", []string{"  command: exec ${loadgate} serve --http 127.0.0.1:${port} --delay 2ms", "      url: http://127.0.0.1:${port}/"}},
		{"url", []string{"--url", "https://www.shop.example.com/cart?id=1"}, "shop-example-com.yaml", []string{"  url: https://www.shop.example.com/cart?id=1", "      url: ${url}"}},
		{"named", []string{"--url", "http://127.0.0.1:8080/", "--name", "checkout"}, "checkout.yaml", []string{"name: checkout"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			r := invoke(t, context.Background(), nil, append([]string{"init", "--dir", dir}, tt.args...)...)
			if r.code != ExitOK {
				t.Fatalf("exit %d\n%s", r.code, r.stderr)
			}
			scenario := filepath.Join(dir, "loadgate", tt.file)
			workflow := filepath.Join(dir, ".github", "workflows", "loadgate.yml")
			for _, want := range []string{"wrote " + scenario, "wrote " + workflow, "next: loadgate run " + scenario} {
				if !strings.Contains(r.stdout, want) {
					t.Errorf("stdout lacks %q:\n%s", want, r.stdout)
				}
			}
			if v := invoke(t, context.Background(), nil, "validate", scenario); v.code != ExitOK {
				t.Fatalf("validate: exit %d\n%s", v.code, v.stderr)
			}
			text := readFile(t, scenario)
			if first, _, _ := strings.Cut(text, "\n"); first != "# yaml-language-server: $schema="+schemaURL() {
				t.Errorf("first line %q", first)
			}
			for _, want := range append(tt.scenarios, `rule: '!regressed("rps", 15%)'`, "    trials: ${trials}", "    warmup: true") {
				if !strings.Contains(text, want+"\n") && !strings.Contains(text, want+" ") {
					t.Errorf("scenario lacks %q:\n%s", want, text)
				}
			}
			checkWorkflow(t, readFile(t, workflow), "loadgate/"+tt.file)
		})
	}
}

// checkWorkflow reads the workflow as GitHub would and checks what the
// action needs (docs/github-actions.md).
func checkWorkflow(t *testing.T, text, scenario string) {
	t.Helper()
	var wf struct {
		On struct {
			Push struct {
				Branches []string `yaml:"branches"`
			} `yaml:"push"`
			PullRequest *struct{} `yaml:"pull_request"`
		} `yaml:"on"`
		Permissions map[string]string `yaml:"permissions"`
		Jobs        map[string]struct {
			Permissions map[string]string `yaml:"permissions"`
			Steps       []struct {
				Uses string            `yaml:"uses"`
				With map[string]string `yaml:"with"`
			} `yaml:"steps"`
		} `yaml:"jobs"`
	}
	if err := yaml.Unmarshal([]byte(text), &wf); err != nil {
		t.Fatalf("workflow: %v\n%s", err, text)
	}
	if !cmp.Equal(wf.On.Push.Branches, []string{"main"}) || !strings.Contains(text, "\n  pull_request:\n") {
		t.Errorf("on: push to %v, pull_request in it: %v", wf.On.Push.Branches, strings.Contains(text, "pull_request:"))
	}
	job, ok := wf.Jobs["load"]
	if !ok || len(wf.Jobs) != 1 {
		t.Fatalf("jobs: %v", wf.Jobs)
	}
	if d := cmp.Diff(map[string]string{"contents": "read", "actions": "read", "pull-requests": "write"}, job.Permissions); d != "" {
		t.Errorf("job permissions (-want +got):\n%s", d)
	}
	if d := cmp.Diff(map[string]string{"contents": "read"}, wf.Permissions); d != "" {
		t.Errorf("workflow permissions (-want +got):\n%s", d)
	}
	last := job.Steps[len(job.Steps)-1]
	want := map[string]string{
		"scenarios":         scenario,
		"artifact-name":     "${{ github.event_name == 'push' && 'loadgate-baseline' || 'loadgate-results' }}",
		"baseline-artifact": "loadgate-baseline",
		"comment":           "${{ github.event_name == 'pull_request' }}",
	}
	if last.Uses != "loadgate/loadgate@"+actionRef() {
		t.Errorf("uses %q", last.Uses)
	}
	if d := cmp.Diff(want, last.With); d != "" {
		t.Errorf("the action's inputs (-want +got):\n%s", d)
	}
}

// TestInitNeverOverwritesWithoutForce: a second init finds the files and
// changes nothing, not even the one that is missing; --force writes both.
func TestInitNeverOverwritesWithoutForce(t *testing.T) {
	dir := t.TempDir()
	if r := invoke(t, context.Background(), nil, "init", "--dir", dir); r.code != ExitOK {
		t.Fatalf("exit %d\n%s", r.code, r.stderr)
	}
	scenario := filepath.Join(dir, "loadgate", "smoke.yaml")
	workflow := filepath.Join(dir, ".github", "workflows", "loadgate.yml")
	written := readFile(t, scenario)
	writeFile(t, scenario, "mine\n")
	if err := os.Remove(workflow); err != nil {
		t.Fatal(err)
	}
	r := invoke(t, context.Background(), nil, "init", "--dir", dir)
	if r.code != ExitUsage || !strings.Contains(r.stderr, scenario+" exists; nothing was written (--force overwrites it)") {
		t.Fatalf("exit %d, stderr:\n%s\nwant 2 naming %s", r.code, r.stderr, scenario)
	}
	if got := readFile(t, scenario); got != "mine\n" {
		t.Errorf("the scenario was changed: %q", got)
	}
	if _, err := os.Stat(workflow); !os.IsNotExist(err) {
		t.Errorf("the workflow was written though the scenario was refused: %v", err)
	}
	writeFile(t, workflow, "mine too\n")
	r = invoke(t, context.Background(), nil, "init", "--dir", dir)
	if r.code != ExitUsage || !strings.Contains(r.stderr, "loadgate.yml exist; nothing was written (--force overwrites them)") {
		t.Fatalf("both exist: exit %d, stderr:\n%s", r.code, r.stderr)
	}
	if r := invoke(t, context.Background(), nil, "init", "--dir", dir, "--force"); r.code != ExitOK {
		t.Fatalf("--force: exit %d\n%s", r.code, r.stderr)
	}
	if got := readFile(t, scenario); got != written {
		t.Errorf("--force did not write the scenario:\n%s", got)
	}
	if got := readFile(t, workflow); got == "mine too\n" {
		t.Error("--force did not write the workflow")
	}
	entries, _ := os.ReadDir(filepath.Dir(scenario))
	if len(entries) != 1 {
		t.Errorf("loadgate/ holds %d entries, want the scenario alone (no temporary file left)", len(entries))
	}
}

// TestInitWorkflowPassesActionlint, with the actionlint .ci/run installs.
func TestInitWorkflowPassesActionlint(t *testing.T) {
	bin, err := exec.LookPath("actionlint")
	if err != nil {
		t.Skip("actionlint is not on PATH (.ci/run installs it: go install github.com/rhysd/actionlint/cmd/actionlint@v1.7.12)")
	}
	for _, args := range [][]string{nil, {"--url", "http://127.0.0.1:8080/"}, {"--url", "https://api.example.com/"}} {
		dir := t.TempDir()
		if r := invoke(t, context.Background(), nil, append([]string{"init", "--dir", dir}, args...)...); r.code != ExitOK {
			t.Fatalf("exit %d\n%s", r.code, r.stderr)
		}
		cmd := exec.Command(bin, "-no-color", filepath.Join(".github", "workflows", "loadgate.yml"))
		cmd.Dir = dir
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Errorf("init %q: actionlint: %v\n%s", args, err, out)
		}
	}
}

// TestInitScenarioRunsAndPassesWithoutBaseline: the scenario written for a
// URL, run against the built-in server, passes on its first run with the
// regression rules skipped, and judges them once given a baseline.
func TestInitScenarioRunsAndPassesWithoutBaseline(t *testing.T) {
	srv := startServer(t, demoserver.Config{})
	dir := t.TempDir()
	if r := invoke(t, context.Background(), nil, "init", "--dir", dir, "--url", "http://"+srv.HTTPAddr()+"/"); r.code != ExitOK {
		t.Fatalf("exit %d\n%s", r.code, r.stderr)
	}
	scenario := filepath.Join(dir, "loadgate", "smoke.yaml")
	first := t.TempDir()
	r := invoke(t, context.Background(), nil, append([]string{"run", "--no-progress", "-o", first, scenario}, quick...)...)
	if r.code != ExitOK {
		t.Fatalf("first run: exit %d\n%s", r.code, r.stderr)
	}
	for _, v := range verdicts(t, first) {
		isRegression := strings.Contains(v.Rule, "regressed(")
		if isRegression && (v.Status != "skip" || v.Reason != "no baseline loaded") || !isRegression && v.Status != "pass" {
			t.Errorf("first run: %s: %s (%s)", v.Rule, v.Status, v.Reason)
		}
	}
	second := t.TempDir()
	invoke(t, context.Background(), nil, append([]string{"run", "--no-progress", "-o", second, "--baseline", filepath.Join(first, "results.json"), scenario}, quick...)...)
	judged := 0
	for _, v := range verdicts(t, second) {
		if strings.Contains(v.Rule, "regressed(") && v.Status != "skip" {
			judged++
		}
	}
	if judged != 2 {
		t.Errorf("with a baseline, %d regression rules were judged, want 2", judged)
	}
}

// TestInitServerScenarioRuns: the scenario without --url starts the
// built-in server itself (this test binary standing in for loadgate).
func TestInitServerScenarioRuns(t *testing.T) {
	t.Setenv(asLoadgate, "1")
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	if r := invoke(t, context.Background(), nil, "init", "--dir", dir); r.code != ExitOK {
		t.Fatalf("exit %d\n%s", r.code, r.stderr)
	}
	out := t.TempDir()
	args := append([]string{"run", "--no-progress", "-o", out, "--var", "loadgate=" + exe, "--var", "port=" + freeLoopbackPort(t),
		filepath.Join(dir, "loadgate", "smoke.yaml")}, quick...)
	if r := invoke(t, context.Background(), nil, args...); r.code != ExitOK {
		t.Fatalf("run: exit %d\n%s", r.code, r.stderr)
	}
	if res := readResults(t, out); res.Scenarios[0].Cases[0].Stats.Requests == 0 {
		t.Error("no request was sent")
	}
}

type verdict struct {
	Rule, Status, Reason string
}

func verdicts(t *testing.T, dir string) []verdict {
	t.Helper()
	var res struct {
		Scenarios []struct {
			Cases []struct {
				Verdicts []verdict `json:"verdicts"`
			} `json:"cases"`
		} `json:"scenarios"`
	}
	readJSON(t, filepath.Join(dir, "results.json"), &res)
	if len(res.Scenarios) != 1 || len(res.Scenarios[0].Cases) != 1 || len(res.Scenarios[0].Cases[0].Verdicts) != 4 {
		t.Fatalf("want one case with 4 verdicts: %+v", res)
	}
	return res.Scenarios[0].Cases[0].Verdicts
}

// TestInitNamesAndMistakes: the default name comes from the URL's host;
// a bad URL, name or argument is a usage error and writes nothing.
func TestInitNamesAndMistakes(t *testing.T) {
	for host, want := range map[string]string{
		"": "smoke", "127.0.0.1": "smoke", "::1": "smoke", "localhost": "smoke", "LocalHost": "smoke",
		"www.Example.com": "example-com", "api.shop.example.com": "api-shop-example-com", "xn--bcher-kva.example": "xn-bcher-kva-example",
	} {
		if got := nameOfHost(host); got != want {
			t.Errorf("nameOfHost(%q) = %q, want %q", host, got, want)
		}
	}
	for _, args := range [][]string{
		{"--url", "ftp://example.com/"}, {"--url", "example.com"}, {"--url", "http:///x"},
		{"--name", "../x"}, {"--name", ".hidden"}, {"--name", "a b"}, {"extra"},
	} {
		dir := t.TempDir()
		r := invoke(t, context.Background(), nil, append([]string{"init", "--dir", dir}, args...)...)
		if r.code != ExitUsage || !strings.Contains(r.stderr, "init") {
			t.Errorf("%q: exit %d, stderr %q; want 2", args, r.code, r.stderr)
		}
		if entries, _ := os.ReadDir(dir); len(entries) != 0 {
			t.Errorf("%q wrote %d entries", args, len(entries))
		}
	}
}

// TestInitWritesAtTheTopOfTheRepository: run inside a repository without
// --dir, init writes next to .git and shows paths as typed from there.
func TestInitWritesAtTheTopOfTheRepository(t *testing.T) {
	top := t.TempDir()
	sub := filepath.Join(top, "services", "api")
	for _, d := range []string{filepath.Join(top, ".git"), sub} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if got := gitTop(sub); got != top {
		t.Errorf("gitTop(%s) = %s, want %s", sub, got, top)
	}
	outside := t.TempDir()
	if got := gitTop(outside); got != outside {
		t.Errorf("outside a repository gitTop = %s, want the directory itself", got)
	}
	t.Chdir(top)
	r := invoke(t, context.Background(), nil, "init")
	if r.code != ExitOK {
		t.Fatalf("exit %d\n%s", r.code, r.stderr)
	}
	want := "loadgate init: wrote loadgate/smoke.yaml\nloadgate init: wrote .github/workflows/loadgate.yml\nnext: loadgate run loadgate/smoke.yaml\n"
	if r.stdout != filepath.FromSlash(want) {
		t.Errorf("stdout:\n%s\nwant:\n%s", r.stdout, want)
	}
	t.Chdir(sub)
	if r := invoke(t, context.Background(), nil, "init", "--url", "https://api.example.com/", "--force"); r.code != ExitOK {
		t.Fatalf("from a subdirectory: exit %d\n%s", r.code, r.stderr)
	}
	if _, err := os.Stat(filepath.Join(top, "loadgate", "api-example-com.yaml")); err != nil {
		t.Errorf("from a subdirectory: %v", err)
	}
}

func freeLoopbackPort(t *testing.T) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return strconv.Itoa(l.Addr().(*net.TCPAddr).Port)
}

func writeFile(t *testing.T, path, text string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
}
