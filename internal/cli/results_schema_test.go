package cli

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/loadgate/loadgate/internal/demoserver"
	"github.com/loadgate/loadgate/results"
)

// wideScenario exercises many optional parts of the results document at
// once: a matrix, a weighted mix (by_name), trials, an open-model phase
// (rate, send lag) and a warn-level verdict.
const wideScenario = `version: 1
name: wide
targets:
  - name: mix
    http:
      url: http://${host}/
      requests:
        - { name: home }
        - { name: again, path: "/", weight: 2 }
matrix:
  workers: [1, 2]
phases:
  - { name: closed, requests: 40, concurrency: "${workers}", trials: 2 }
  - { name: open, duration: 300ms, rate: 200 }
thresholds:
  - error_rate == 0
  - { rule: "p99 < 5s", severity: warn }
`

// TestRealResultsMatchPublishedSchema validates what real invocations
// write against `loadgate schema --results`: a plain run, a run judged
// against a baseline, the parts of a segmented run and their merge.
func TestRealResultsMatchPublishedSchema(t *testing.T) {
	r := invoke(t, context.Background(), nil, "schema", "--results")
	if r.code != ExitOK {
		t.Fatalf("schema --results: exit %d: %s", r.code, r.stderr)
	}
	if r.stdout != string(results.ResultsSchema()) {
		t.Fatal("schema --results does not print the embedded results schema")
	}
	schema := compileSchema(t, []byte(r.stdout))

	srv := startServer(t, demoserver.Config{})
	host := "host=" + srv.HTTPAddr()
	wide := writeScenario(t, wideScenario)
	first, second := t.TempDir(), t.TempDir()
	parts := []string{t.TempDir(), t.TempDir()}
	merged := t.TempDir()
	runs := []struct {
		name string
		env  map[string]string
		args []string
		out  string
		want []string // parts of the document the step must exercise
	}{
		{"plain run", nil, []string{"run", "--no-progress", "-o", first, "--var", host, wide}, first, []string{`"by_name"`, `"trials"`, `"rate"`, `"send_lag"`, `"matrix"`}},
		{"with baseline", nil, []string{"run", "--no-progress", "-o", second, "--baseline", filepath.Join(first, "results.json"), "--var", host, wide}, second, []string{`"fingerprint_match"`, `"baseline": {`}},
		{"segment 1/2", map[string]string{"LOADGATE_SEGMENT": "1/2"}, []string{"run", "--no-progress", "-o", parts[0], "--var", host, wide}, parts[0], []string{`"segment"`, `"source"`}},
		{"segment 2/2", map[string]string{"LOADGATE_SEGMENT": "2/2"}, []string{"run", "--no-progress", "-o", parts[1], "--var", host, wide}, parts[1], []string{`"segment"`}},
		{"merge", nil, []string{"merge", "-o", merged, parts[0], parts[1]}, merged, []string{`"merged"`, `"upper_bounds"`}},
	}
	for _, run := range runs {
		// Sequential on purpose: each step reads what the previous wrote.
		r := invoke(t, context.Background(), run.env, run.args...)
		if r.code != ExitOK && r.code != ExitFailed {
			t.Fatalf("%s: exit %d\n%s\n%s", run.name, r.code, r.stdout, r.stderr)
		}
		data, err := os.ReadFile(filepath.Join(run.out, "results.json"))
		if err != nil {
			t.Fatalf("%s: %v", run.name, err)
		}
		for _, w := range run.want {
			if !bytes.Contains(data, []byte(w)) {
				t.Errorf("%s: results.json has no %s: the test no longer covers that part of the schema", run.name, w)
			}
		}
		doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(data))
		if err != nil {
			t.Fatalf("%s: results.json is not JSON: %v", run.name, err)
		}
		if err := schema.Validate(doc); err != nil {
			t.Errorf("%s: results.json does not match the published schema: %v", run.name, err)
		}
	}
}

func compileSchema(t *testing.T, data []byte) *jsonschema.Schema {
	t.Helper()
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(data))
	if err != nil {
		t.Fatalf("schema is not JSON: %v", err)
	}
	c := jsonschema.NewCompiler()
	c.DefaultDraft(jsonschema.Draft2020)
	c.AssertFormat()
	if err := c.AddResource("results.schema.json", doc); err != nil {
		t.Fatal(err)
	}
	s, err := c.Compile("results.schema.json")
	if err != nil {
		t.Fatalf("compile results schema: %v", err)
	}
	return s
}
