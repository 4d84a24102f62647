package cli

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/loadgate/loadgate/scenarios"
)

// repoRoot is the repository's checkout, as GITHUB_WORKSPACE would be.
func repoRoot(t *testing.T) string {
	t.Helper()
	root, err := filepath.Abs(filepath.Join("..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	return root
}

// diagnosticLine is one diagnostic as printed: "file:line:col: message".
var diagnosticLine = regexp.MustCompile(`^(?:loadgate: )?(\S+?):(\d+):(\d+): (.*)$`)

// annotationLine is an ::error annotation with a position.
var annotationLine = regexp.MustCompile(`^::error file=([^,]+),line=(\d+),col=(\d+),title=loadgate%3A invalid scenario::(.*)$`)

// TestEveryDiagnosticOfTheErrCorpusIsAnnotated: under GitHub Actions,
// validate annotates each diagnostic it prints, at the same line and
// column, the file relative to the workspace.
func TestEveryDiagnosticOfTheErrCorpusIsAnnotated(t *testing.T) {
	root := repoRoot(t)
	files, err := filepath.Glob(filepath.Join(root, "testdata", "scenarios", "err", "*.yaml"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no err corpus: %v", err)
	}
	gh := map[string]string{"GITHUB_ACTIONS": "true", "GITHUB_WORKSPACE": root}
	for _, f := range files {
		rel, _ := filepath.Rel(root, f)
		r := invoke(t, context.Background(), gh, "validate", f)
		if r.code != ExitUsage {
			t.Errorf("%s: exit %d, want 2", rel, r.code)
			continue
		}
		var printed, annotated []string
		for _, line := range strings.Split(strings.TrimSuffix(r.stderr, "\n"), "\n") {
			if m := annotationLine.FindStringSubmatch(line); m != nil {
				annotated = append(annotated, fmt.Sprintf("%s:%s:%s", m[1], m[2], m[3]))
			} else if m := diagnosticLine.FindStringSubmatch(line); m != nil {
				p, _ := filepath.Rel(root, m[1])
				printed = append(printed, fmt.Sprintf("%s:%s:%s", filepath.ToSlash(p), m[2], m[3]))
			}
		}
		if len(printed) == 0 {
			t.Errorf("%s: no diagnostic with a position printed:\n%s", rel, r.stderr)
		}
		if d := cmp.Diff(printed, annotated); d != "" {
			t.Errorf("%s: annotations do not match the diagnostics (-printed +annotated):\n%s\n%s", rel, d, r.stderr)
		}
	}
}

func TestInvalidScenarioAnnotations(t *testing.T) {
	root := repoRoot(t)
	corpus := filepath.Join(root, "testdata", "scenarios", "err", "bad-regex.yaml")
	const badRegex = "::error file=testdata/scenarios/err/bad-regex.yaml,line=8,col=21,title=loadgate%3A invalid scenario::body_regex: error parsing regexp: missing closing ): `hello (world`"
	dir := t.TempDir()
	write := func(name, body string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	ok := "version: 1\nname: same\ntargets: [{name: t, http: {url: \"http://127.0.0.1:1/\"}}]\nphases: [{name: m, requests: 1}]\n"
	first, second := write("first.yaml", ok), write("second, with: 100%.yaml", ok)
	// As in TestSecretsNeverReachOutputs: a URL and a rule quoting secrets.
	secret := write("secret.yaml", strings.Replace(secretsScenario, "url: http://", "url: ftp://", 1)+"  - p99 < ${pin}\n")
	gh := map[string]string{"GITHUB_ACTIONS": "true", "GITHUB_WORKSPACE": root}
	tests := []struct {
		name    string
		env     map[string]string
		args    []string
		want    []string // annotation lines, in order
		without []string // texts no annotation may hold
	}{
		{"validate", gh, []string{"validate", corpus}, []string{badRegex}, nil},
		{"run, before any load", gh, []string{"run", "-o", "", corpus}, []string{badRegex}, nil},
		{"a relative path", gh, []string{"validate", "../../testdata/scenarios/err/bad-regex.yaml"}, []string{badRegex}, nil},
		{"outside the workspace: the path as given",
			map[string]string{"GITHUB_ACTIONS": "true", "GITHUB_WORKSPACE": filepath.Join(root, "docs")},
			[]string{"validate", "../../testdata/scenarios/err/bad-regex.yaml"},
			[]string{strings.Replace(badRegex, "testdata/", "../../testdata/", 1)}, nil},
		{"a name used twice, in a file whose name needs escaping", gh, []string{"validate", first, second},
			[]string{"::error file=" + strings.NewReplacer(",", "%2C", ":", "%3A", "%", "%25").Replace(second) +
				",line=2,col=7,title=loadgate%3A invalid scenario::scenario name \"same\" is already used by " + first}, nil},
		{"secrets in a URL and a rule", gh,
			[]string{"validate", "--var", "host=127.0.0.1:1", "--secret-var", "extra=extra-value-7777", secret}, nil, cliSecrets},
		{"not under Actions", map[string]string{"GITHUB_WORKSPACE": root}, []string{"validate", corpus}, []string{}, nil},
		{"GITHUB_ACTIONS=false", map[string]string{"GITHUB_ACTIONS": "false"}, []string{"validate", corpus}, []string{}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := invoke(t, context.Background(), tt.env, tt.args...)
			if r.code != ExitUsage {
				t.Fatalf("exit %d, want 2\n%s", r.code, r.stderr)
			}
			var got []string
			for _, line := range strings.Split(r.stderr, "\n") {
				if strings.HasPrefix(line, "::") {
					got = append(got, line)
				}
			}
			if tt.want != nil {
				if d := cmp.Diff(tt.want, got, cmpEmptyNil); d != "" {
					t.Errorf("annotations (-want +got):\n%s\nstderr:\n%s", d, r.stderr)
				}
			} else if len(got) == 0 || !strings.HasPrefix(got[0], "::error file=") || !strings.Contains(got[0], ",line=") {
				t.Errorf("no annotation with a position:\n%s", r.stderr)
			}
			for _, secret := range tt.without {
				if strings.Contains(r.stderr, secret) {
					t.Errorf("stderr holds %q:\n%s", secret, r.stderr)
				}
			}
			if tt.without != nil && !strings.Contains(strings.Join(got, "\n"), "REDACTED") {
				t.Errorf("no annotation shows a redacted value:\n%s", r.stderr)
			}
		})
	}
}

var cmpEmptyNil = cmp.Transformer("nilToEmpty", func(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
})

// TestDiagnosticsAreFoundHoweverWrapped: merge wraps the diagnostics of a
// part's scenario, loadPlans gathers one problem per file; each one is found,
// and a problem without a diagnostic stays one, position-less.
func TestDiagnosticsAreFoundHoweverWrapped(t *testing.T) {
	a := scenarios.Errorf(scenarios.Pos{File: "a.yaml", Line: 1, Col: 2}, "a")
	b := scenarios.Errorf(scenarios.Pos{File: "b.yaml", Line: 3, Col: 4}, "b")
	c := scenarios.Errorf(scenarios.Pos{File: "c.yaml", Line: 5}, "c")
	tests := []struct {
		name string
		err  error
		want []string
	}{
		{"none", errors.New("--log-level: no"), nil},
		{"a list, wrapped twice", withCode(ExitUsage, fmt.Errorf("merge: %w", scenarios.ErrorList{a, b})), []string{"a.yaml:1:2: a", "b.yaml:3:4: b"}},
		{"one error", fmt.Errorf("x: %w", c), []string{"c.yaml:5: c"}},
		{"joined", errors.Join(scenarios.ErrorList{a}, errors.New("plain"), c), []string{"a.yaml:1:2: a", "c.yaml:5: c"}},
		{"load problems", withCode(ExitUsage, loadProblems{scenarios.ErrorList{a, b}, fmt.Errorf("d.yaml: %w", os.ErrNotExist), c}),
			[]string{"a.yaml:1:2: a", "b.yaml:3:4: b", "d.yaml: file does not exist", "c.yaml:5: c"}},
	}
	for _, tt := range tests {
		var got []string
		for _, d := range diagnostics(tt.err) {
			got = append(got, d.Error())
		}
		if d := cmp.Diff(tt.want, got); d != "" {
			t.Errorf("%s (-want +got):\n%s", tt.name, d)
		}
	}
}

// TestRedactDiagnosticsKeepsPositions: a rule's diagnostics may quote what
// a secret variable expanded to; the text is redacted, the place kept.
func TestRedactDiagnosticsKeepsPositions(t *testing.T) {
	src := "version: 1\nname: s\nvars:\n  pin: { value: pin-value-6666, secret: true }\n" +
		"targets: [{name: t, http: {url: \"http://127.0.0.1:1/${pin}\"}}]\nphases: [{name: m, requests: 1}]\n"
	sc, err := scenarios.Parse("s.yaml", []byte(src), scenarios.LoadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	pos := scenarios.Pos{File: "s.yaml", Line: 9, Col: 3}
	tests := []struct {
		name string
		err  error
		want []string
	}{
		{"a list", scenarios.ErrorList{scenarios.Errorf(pos, "got pin-value-6666")}, []string{"s.yaml:9:3: got REDACTED"}},
		{"wrapped", fmt.Errorf("rules: %w", scenarios.ErrorList{scenarios.Errorf(pos, "pin-value-6666")}), []string{"s.yaml:9:3: REDACTED"}},
		{"no diagnostic", errors.New("x pin-value-6666"), nil},
	}
	for _, tt := range tests {
		red := redactDiagnostics(sc, tt.err)
		var got []string
		for _, d := range diagnostics(red) {
			got = append(got, d.Error())
		}
		if d := cmp.Diff(tt.want, got); d != "" {
			t.Errorf("%s (-want +got):\n%s", tt.name, d)
		}
		if strings.Contains(red.Error(), "pin-value-6666") {
			t.Errorf("%s: %q holds the secret", tt.name, red.Error())
		}
	}
}
