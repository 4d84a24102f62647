package cli

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"
)

// The distributed examples of docs/distributed.md are checked here, since
// kubeconform needs schemas from the network; actionlint checks the
// workflow's syntax in CI (.ci/run).
const distributedExamples = "../../docs/examples/distributed"

func readExample(t *testing.T, name string) []byte {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(distributedExamples, name))
	if err != nil {
		t.Fatal(err)
	}
	return data
}

// yamlDocs decodes every document of a multi-document YAML file.
func yamlDocs(t *testing.T, data []byte) []map[string]any {
	t.Helper()
	dec := yaml.NewDecoder(bytes.NewReader(data))
	var docs []map[string]any
	for {
		var doc map[string]any
		err := dec.Decode(&doc)
		if errors.Is(err, io.EOF) {
			return docs
		}
		if err != nil {
			t.Fatal(err)
		}
		docs = append(docs, doc)
	}
}

// dig walks nested maps and lists: dig(doc, "spec", "containers", 0, "name").
func dig(t *testing.T, v any, path ...any) any {
	t.Helper()
	for _, p := range path {
		switch k := p.(type) {
		case string:
			m, ok := v.(map[string]any)
			if !ok {
				t.Fatalf("at %q: not a mapping: %v", k, v)
			}
			v = m[k]
		case int:
			l, ok := v.([]any)
			if !ok || k >= len(l) {
				t.Fatalf("at [%d]: not a list that long: %v", k, v)
			}
			v = l[k]
		}
	}
	return v
}

// script joins a container's command and args as the shell sees them.
func script(t *testing.T, container any) string {
	t.Helper()
	var words []string
	for _, key := range []string{"command", "args"} {
		if l, ok := dig(t, container, key).([]any); ok {
			for _, w := range l {
				words = append(words, fmt.Sprint(w))
			}
		}
	}
	return strings.Join(words, " ")
}

func TestK8sIndexedJobExample(t *testing.T) {
	docs := yamlDocs(t, readExample(t, "k8s-indexed-job.yaml"))
	jobs := map[string]map[string]any{}
	claims := map[string]bool{}
	for _, d := range docs {
		switch d["kind"] {
		case "Job":
			if d["apiVersion"] != "batch/v1" {
				t.Errorf("Job apiVersion %v, want batch/v1", d["apiVersion"])
			}
			jobs[fmt.Sprint(dig(t, d, "metadata", "name"))] = d
		case "PersistentVolumeClaim":
			claims[fmt.Sprint(dig(t, d, "metadata", "name"))] = true
		}
	}
	seg, merge := jobs["loadgate-segments"], jobs["loadgate-merge"]
	if seg == nil || merge == nil {
		t.Fatalf("want Jobs loadgate-segments and loadgate-merge, have %v", jobs)
	}

	spec := dig(t, seg, "spec")
	if dig(t, spec, "completionMode") != "Indexed" {
		t.Error("the segments Job is not completionMode: Indexed")
	}
	n, _ := dig(t, spec, "completions").(int)
	if n < 2 || dig(t, spec, "parallelism") != n {
		t.Errorf("completions %v, parallelism %v: want N ≥ 2 pods all at once", dig(t, spec, "completions"), dig(t, spec, "parallelism"))
	}
	if dig(t, spec, "template", "spec", "restartPolicy") != "Never" {
		t.Error("a Job's pods need restartPolicy Never (or OnFailure)")
	}
	run := script(t, dig(t, spec, "template", "spec", "containers", 0))
	for _, want := range []string{"JOB_COMPLETION_INDEX + 1", "loadgate run --segment", fmt.Sprintf(`"$segment/%d"`, n)} {
		if !strings.Contains(run, want) {
			t.Errorf("segment container does not contain %q:\n%s", want, run)
		}
	}
	env := map[string]any{}
	for _, e := range dig(t, spec, "template", "spec", "containers", 0, "env").([]any) {
		env[fmt.Sprint(dig(t, e, "name"))] = dig(t, e, "value")
	}
	if env["LOADGATE_START_AT"] == nil {
		t.Error("the segments do not share a start time (LOADGATE_START_AT)")
	}
	for _, vol := range dig(t, spec, "template", "spec", "volumes").([]any) {
		if c, ok := dig(t, vol, "persistentVolumeClaim").(map[string]any); ok && !claims[fmt.Sprint(c["claimName"])] {
			t.Errorf("volume claim %v is not in the manifest", c["claimName"])
		}
	}

	mspec := dig(t, merge, "spec", "template", "spec")
	wait := script(t, dig(t, mspec, "initContainers", 0))
	if !strings.Contains(wait, fmt.Sprintf("-ge %d", n)) {
		t.Errorf("the merge Job does not wait for %d parts:\n%s", n, wait)
	}
	if m := script(t, dig(t, mspec, "containers", 0)); !strings.Contains(m, "loadgate merge") {
		t.Errorf("the merge Job does not run loadgate merge:\n%s", m)
	}
}

func TestGitHubMatrixExample(t *testing.T) {
	doc := yamlDocs(t, readExample(t, "github-matrix.yml"))[0]
	jobs := dig(t, doc, "jobs").(map[string]any)
	load := jobs["load"]
	segs, _ := dig(t, load, "strategy", "matrix", "segment").([]any)
	n := len(segs)
	for i, s := range segs {
		if s != i+1 {
			t.Fatalf("matrix.segment = %v, want 1..N in order", segs)
		}
	}
	if n < 2 {
		t.Fatalf("matrix.segment = %v", segs)
	}
	if needs := fmt.Sprint(dig(t, load, "needs")); needs != "plan" {
		t.Errorf("load needs %s, want the plan job that computes the start time", needs)
	}
	if out := fmt.Sprint(dig(t, jobs["plan"], "outputs", "start-at")); !strings.Contains(out, "steps.start.outputs.start-at") {
		t.Errorf("plan does not export the start time: %s", out)
	}
	var run, upload string
	for _, st := range dig(t, load, "steps").([]any) {
		if r, ok := dig(t, st, "run").(string); ok && strings.Contains(r, "loadgate run") {
			run = r + " " + fmt.Sprint(dig(t, st, "env"))
		}
		if u, ok := dig(t, st, "uses").(string); ok && strings.HasPrefix(u, "actions/upload-artifact") {
			upload = fmt.Sprint(dig(t, st, "with", "name"))
		}
	}
	for _, want := range []string{fmt.Sprintf("--segment ${{ matrix.segment }}/%d", n), "--start-at", "needs.plan.outputs.start-at"} {
		if !strings.Contains(run, want) {
			t.Errorf("the load step lacks %q:\n%s", want, run)
		}
	}
	if !strings.Contains(upload, "${{ matrix.segment }}") {
		t.Errorf("the parts are not uploaded under one name per segment: %q", upload)
	}

	merge := jobs["merge"]
	if fmt.Sprint(dig(t, merge, "needs")) != "load" || !strings.Contains(fmt.Sprint(dig(t, merge, "if")), "cancelled()") {
		t.Error("merge must need load and run even when a segment failed")
	}
	var merged bool
	for _, st := range dig(t, merge, "steps").([]any) {
		if r, ok := dig(t, st, "run").(string); ok && strings.Contains(r, "loadgate merge") {
			merged = true
			if strings.Contains(r, "||") || fmt.Sprint(dig(t, st, "continue-on-error")) == "true" {
				t.Error("the merge step must fail the workflow on exit 1")
			}
		}
	}
	if !merged {
		t.Error("no step runs loadgate merge")
	}
}

// The examples' scenario is valid, and docs/distributed.md shows every
// example file exactly as stored.
func TestDistributedDocShowsTheExamples(t *testing.T) {
	if r := invoke(t, t.Context(), nil, "validate", filepath.Join(distributedExamples, "scenario.yaml")); r.code != ExitOK {
		t.Errorf("scenario.yaml does not validate: %s", r.stderr)
	}
	doc, err := os.ReadFile("../../docs/distributed.md")
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"scenario.yaml", "github-matrix.yml", "k8s-indexed-job.yaml"} {
		if !bytes.Contains(doc, readExample(t, name)) {
			t.Errorf("docs/distributed.md does not include %s verbatim; copy it into the doc", name)
		}
	}
	entries, err := os.ReadDir(distributedExamples)
	if err != nil {
		t.Fatal(err)
	}
	if len(entries) != 3 {
		t.Errorf("docs/examples/distributed holds %d files; a new example needs a test and a place in the doc", len(entries))
	}
}
