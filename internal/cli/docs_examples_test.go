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

// The distributed examples of docs/distributed.md are checked here;
// actionlint checks the workflow's syntax in CI (.ci/run), and
// internal/manifests decodes the Kubernetes example into the API types.
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
	// Every step that runs loadgate runs the release image.
	image := fmt.Sprint(dig(t, doc, "env", "LOADGATE_IMAGE"))
	if !strings.HasPrefix(image, "ghcr.io/loadgate/loadgate:") {
		t.Errorf("env.LOADGATE_IMAGE = %q, want the release image", image)
	}
	const inImage = `"$LOADGATE_IMAGE" `
	var run, upload string
	for _, st := range dig(t, load, "steps").([]any) {
		if r, ok := dig(t, st, "run").(string); ok && strings.Contains(r, inImage+"run ") {
			run = r + " " + fmt.Sprint(dig(t, st, "env"))
		}
		if u, ok := dig(t, st, "uses").(string); ok && strings.HasPrefix(u, "actions/upload-artifact") {
			upload = fmt.Sprint(dig(t, st, "with", "name"))
		}
	}
	for _, want := range []string{"docker run --rm --network host", fmt.Sprintf("--segment ${{ matrix.segment }}/%d", n), "--start-at", "needs.plan.outputs.start-at"} {
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
		if r, ok := dig(t, st, "run").(string); ok && strings.Contains(r, inImage+"merge ") {
			merged = true
			if strings.Contains(r, "||") || fmt.Sprint(dig(t, st, "continue-on-error")) == "true" {
				t.Error("the merge step must fail the workflow on exit 1")
			}
		}
	}
	if !merged {
		t.Error("no step runs loadgate merge in the image")
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
