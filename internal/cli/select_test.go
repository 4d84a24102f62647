package cli

import (
	"context"
	"flag"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/loadgate/loadgate/internal/demoserver"
)

// selectScenario has a same-job pair (pr against main) and a third
// target, each at two concurrencies: six cases.
const selectScenario = `version: 1
name: sel
matrix:
  concurrency: [1, 2]
targets:
  - name: main
    http: { url: "http://${host}/" }
  - name: pr
    baseline_target: main
    http: { url: "http://${host}/" }
  - name: other
    http: { url: "http://${host}/" }
phases:
  - { name: measured, requests: 10, concurrency: "${concurrency}" }
thresholds:
  - rps > 0
`

// otherScenario is a second scenario of the same run, with targets of its
// own and one name in common.
const otherScenario = `version: 1
name: more
targets:
  - name: other
    http: { url: "http://${host}/" }
  - name: web
    http: { url: "http://${host}/" }
phases:
  - { name: measured, requests: 10, concurrency: 1 }
`

func selectPlans(t *testing.T) []plan {
	t.Helper()
	dir := t.TempDir()
	var files []string
	for name, body := range map[string]string{"a.yaml": selectScenario, "b.yaml": otherScenario} {
		f := filepath.Join(dir, name)
		if err := os.WriteFile(f, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
		files = append(files, f)
	}
	slices.Sort(files)
	plans, err := loadPlans(files, map[string]string{"host": "127.0.0.1:1"}, nil, Env{LookupEnv: func(string) (string, bool) { return "", false }})
	if err != nil {
		t.Fatal(err)
	}
	return plans
}

// TestCaseSelection: which cases --target and --case keep, scenario by
// scenario, and the refusals of patterns that select nothing.
func TestCaseSelection(t *testing.T) {
	tests := []struct {
		name           string
		targets, cases []string
		want           map[string][]string // scenario → case IDs run; nil with an error
		err            []string            // in the refusal
	}{
		{"nothing given: everything", nil, nil, map[string][]string{
			"sel":  {"main concurrency=1", "main concurrency=2", "pr concurrency=1", "pr concurrency=2", "other concurrency=1", "other concurrency=2"},
			"more": {"other", "web"}}, nil},
		{"a target in one scenario: the other is not run", []string{"main"}, nil,
			map[string][]string{"sel": {"main concurrency=1", "main concurrency=2"}}, nil},
		{"a target of both scenarios", []string{"other"}, nil,
			map[string][]string{"sel": {"other concurrency=1", "other concurrency=2"}, "more": {"other"}}, nil},
		{"a glob of targets", []string{"o*", "w?b"}, nil,
			map[string][]string{"sel": {"other concurrency=1", "other concurrency=2"}, "more": {"other", "web"}}, nil},
		{"a case by its ID", nil, []string{"other concurrency=2"},
			map[string][]string{"sel": {"other concurrency=2"}}, nil},
		{"a glob of cases", nil, []string{"* concurrency=1"},
			map[string][]string{"sel": {"main concurrency=1", "pr concurrency=1", "other concurrency=1"}}, nil},
		{"both: a case matches both", []string{"other", "main"}, []string{"*=2"},
			map[string][]string{"sel": {"main concurrency=2", "other concurrency=2"}}, nil},
		{"a same-job target brings its reference's same case", []string{"pr"}, []string{"*=2"},
			map[string][]string{"sel": {"main concurrency=2", "pr concurrency=2"}}, nil},
		{"the reference alone runs alone", nil, []string{"main concurrency=1"},
			map[string][]string{"sel": {"main concurrency=1"}}, nil},
		{"an unknown target", []string{"mian"}, nil, nil,
			[]string{`--target "mian" matches no target: scenario "sel" has "main", "pr", "other"; scenario "more" has "other", "web" (nothing was sent)`}},
		{"unknown targets and cases, all named", []string{"mian", "main", "x*"}, []string{"main concurrency=3"}, nil,
			[]string{`--target "mian", "x*" match no target: scenario "sel" has "main", "pr", "other"; scenario "more" has "other", "web"`,
				`--case "main concurrency=3" matches no case: scenario "sel" has "main concurrency=1", "main concurrency=2", "pr concurrency=1", "pr concurrency=2", "other concurrency=1", "other concurrency=2"; scenario "more" has "other", "web"`}},
		{"a target and a case of another target", []string{"web"}, []string{"main*"}, nil,
			[]string{`--target "web" and --case "main*" select no case together: scenario "sel" has no such case; scenario "more" has "web" (nothing was sent)`}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			sel := caseSelection{targets: patternsFlag{list: tt.targets}, cases: patternsFlag{list: tt.cases}}
			kept, _, err := sel.apply(selectPlans(t))
			if tt.err != nil {
				for _, w := range tt.err {
					if err == nil || !strings.Contains(err.Error(), w) {
						t.Errorf("err = %v\nwant it to contain %s", err, w)
					}
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			got := map[string][]string{}
			for _, p := range kept {
				for _, c := range p.scenario.Cases {
					got[p.scenario.Name] = append(got[p.scenario.Name], c.ID)
				}
			}
			if d := cmp.Diff(tt.want, got); d != "" {
				t.Errorf("cases run (-want +got):\n%s", d)
			}
		})
	}
}

// TestSelectionNotes: what the console is told before the load starts.
func TestSelectionNotes(t *testing.T) {
	sel := caseSelection{targets: patternsFlag{list: []string{"pr"}}}
	_, notes, err := sel.apply(selectPlans(t))
	if err != nil {
		t.Fatal(err)
	}
	want := []string{
		`scenario "sel": running 4 of 6 cases, selected by --target "pr"; target "main" runs too, as the baseline_target of "pr"`,
		`scenario "more": no case selected by --target "pr"; not run`,
	}
	if d := cmp.Diff(want, notes); d != "" {
		t.Errorf("notes (-want +got):\n%s", d)
	}
}

// TestSelectionFlags: the flags repeat, LOADGATE_TARGET and LOADGATE_CASE
// hold one pattern per line, the command line replaces them, and a
// malformed glob is refused as the flag is read.
func TestSelectionFlags(t *testing.T) {
	tests := []struct {
		name           string
		env            map[string]string
		args           []string
		targets, cases []string
		err            string
	}{
		{"repeated", nil, []string{"--target", "a", "--target", "b*", "--case", "a x=1"}, []string{"a", "b*"}, []string{"a x=1"}, ""},
		{"from the environment", map[string]string{"LOADGATE_TARGET": "a\n  b*  \n\n", "LOADGATE_CASE": "a x=1"}, nil, []string{"a", "b*"}, []string{"a x=1"}, ""},
		{"the command line replaces the environment", map[string]string{"LOADGATE_TARGET": "a\nb"}, []string{"--target", "c", "--target", "d"}, []string{"c", "d"}, nil, ""},
		{"a malformed glob", nil, []string{"--case", "a[x"}, nil, nil, `invalid value "a[x" for flag -case`},
		{"an empty name", nil, []string{"--target", ""}, nil, nil, `invalid value "" for flag -target`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			env := Env{Getenv: func(k string) string { return tt.env[k] }}
			fs := flag.NewFlagSet("run", flag.ContinueOnError)
			var errs strings.Builder
			fs.SetOutput(&errs)
			var sel caseSelection
			sel.register(fs, env)
			err := fs.Parse(tt.args)
			if tt.err != "" {
				if err == nil || !strings.Contains(err.Error(), tt.err) {
					t.Errorf("err = %v, want %q", err, tt.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if !cmp.Equal(sel.targets.list, tt.targets) || !cmp.Equal(sel.cases.list, tt.cases) {
				t.Errorf("targets %q, cases %q; want %q, %q", sel.targets.list, sel.cases.list, tt.targets, tt.cases)
			}
		})
	}
}

// TestRunSelectsCases: run sends the load of the selected cases only and
// writes only them; a pattern that matches nothing is exit 2 before any
// request, naming the targets there are.
func TestRunSelectsCases(t *testing.T) {
	srv := startServer(t, demoserver.Config{})
	path := writeScenario(t, selectScenario)
	out := t.TempDir()
	before := srv.Stats().Requests
	r := invoke(t, context.Background(), nil, "run", "--no-progress", "-o", out, "--var", "host="+srv.HTTPAddr(),
		"--target", "pr", "--case", "* concurrency=2", path)
	if r.code != ExitOK {
		t.Fatalf("exit %d\nstdout:\n%s\nstderr:\n%s", r.code, r.stdout, r.stderr)
	}
	var ids []string
	for _, c := range readResults(t, out).Scenarios[0].Cases {
		ids = append(ids, c.ID)
	}
	if want := []string{"main concurrency=2", "pr concurrency=2"}; !cmp.Equal(ids, want) {
		t.Errorf("results.json has cases %q, want %q", ids, want)
	}
	if sent := srv.Stats().Requests - before; sent != 20 {
		t.Errorf("%d requests sent, want the 10 of each of the two cases", sent)
	}
	if want := `loadgate: scenario "sel": running 2 of 6 cases, selected by --target "pr" and --case "* concurrency=2"; target "main" runs too`; !strings.Contains(r.stdout, want) {
		t.Errorf("stdout lacks %q:\n%s", want, r.stdout)
	}

	before = srv.Stats().Requests
	r = invoke(t, context.Background(), map[string]string{"LOADGATE_TARGET": "pr\nmian"}, "run", "--no-progress", "-o", "", "--var", "host="+srv.HTTPAddr(), path)
	want := `loadgate: --target "mian" matches no target: scenario "sel" has "main", "pr", "other" (nothing was sent)`
	if r.code != ExitUsage || !strings.Contains(r.stderr, want) {
		t.Errorf("exit %d, want 2 with %q:\n%s", r.code, want, r.stderr)
	}
	if sent := srv.Stats().Requests - before; sent != 0 {
		t.Errorf("%d requests sent despite the refusal", sent)
	}
}

// TestMergeRefusesPartsOfDifferentSelections: segments given the same
// --target merge into that selection; segments given different ones are
// refused, since a case run by one segment only is a share of its load.
func TestMergeRefusesPartsOfDifferentSelections(t *testing.T) {
	srv := startServer(t, demoserver.Config{})
	path := writeScenario(t, selectScenario)
	part := func(seg string, sel ...string) string {
		t.Helper()
		out := t.TempDir()
		args := append([]string{"run", "--no-progress", "--segment", seg, "-o", out, "--var", "host=" + srv.HTTPAddr()}, sel...)
		if r := invoke(t, context.Background(), nil, append(args, path)...); r.code != ExitOK {
			t.Fatalf("segment %s %q: exit %d\n%s", seg, sel, r.code, r.stderr)
		}
		return out
	}
	p1, p2 := part("1/2", "--target", "other"), part("2/2", "--target", "other")
	out := t.TempDir()
	r := invoke(t, context.Background(), nil, "merge", "--no-progress", "-o", out, p1, p2)
	if r.code != ExitOK {
		t.Fatalf("merge of one selection: exit %d\n%s", r.code, r.stderr)
	}
	var ids []string
	var requests int64
	for _, c := range readResults(t, out).Scenarios[0].Cases {
		ids = append(ids, c.ID)
		requests += c.Stats.Requests
	}
	if want := []string{"other concurrency=1", "other concurrency=2"}; !cmp.Equal(ids, want) || requests != 20 {
		t.Errorf("merged cases %q with %d requests, want %q with 20", ids, requests, want)
	}

	for _, tc := range []struct {
		name   string
		second string
		want   string
	}{
		{"another target", part("2/2", "--target", "main"), `(segment 1/2) did not run case "main concurrency=2"`},
		{"no selection", part("2/2"), `(segment 1/2) did not run case "main concurrency=2"`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			out := t.TempDir()
			r := invoke(t, context.Background(), nil, "merge", "-o", out, p1, tc.second)
			want := "merge: parts of different selections: scenario \"sel\": " + filepath.Join(p1, "results.json") + " " + tc.want
			if r.code != ExitUsage || !strings.Contains(r.stderr, want) || !strings.Contains(r.stderr, "give every segment the same --target and --case") {
				t.Errorf("exit %d, want 2 with %q:\n%s", r.code, want, r.stderr)
			}
			if _, err := os.Stat(filepath.Join(out, "results.json")); err == nil {
				t.Error("a refused merge wrote results")
			}
		})
	}
}
