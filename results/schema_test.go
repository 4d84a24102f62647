package results

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/santhosh-tekuri/jsonschema/v6"
)

const publishedSchema = "../docs/results.schema.json"

// TestResultsSchemaIsCurrent regenerates the schema from the Go types and
// compares it with the embedded copy and the published one; -update
// rewrites both. A field added, renamed or retyped without -update fails here.
// reportersTestdata holds the golden results documents: the reporters'
// tests write them (-update) from the fixtures every renderer is tested on.
const reportersTestdata = "../reporters/testdata"

func TestResultsSchemaIsCurrent(t *testing.T) {
	m := buildResultsSchema(t)
	for _, d := range m.defs {
		if d.doc == "" {
			t.Errorf("type %s has no doc comment: the schema would not describe it", d.name)
		}
		for _, f := range d.fields {
			if f.doc == "" {
				t.Errorf("%s.%s has no doc comment and no entry in fieldNotes: the schema would not describe it", f.owner, f.name)
			}
		}
	}
	generated, err := m.JSON()
	if err != nil {
		t.Fatal(err)
	}
	if *update {
		for _, f := range []string{"results.schema.json", publishedSchema} {
			if err := os.WriteFile(f, generated, 0o644); err != nil {
				t.Fatal(err)
			}
		}
		return
	}
	if diff := cmp.Diff(string(generated), string(ResultsSchema())); diff != "" {
		t.Errorf("results/results.schema.json is stale; regenerate with go test ./results -run TestResultsSchemaIsCurrent -update (-types +embedded):\n%s", diff)
	}
	published, err := os.ReadFile(publishedSchema)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(string(ResultsSchema()), string(published)); diff != "" {
		t.Errorf("docs/results.schema.json differs from the embedded schema (-embedded +published):\n%s", diff)
	}
}

// compileResultsSchema compiles the embedded schema with a validator of
// draft 2020-12 that also asserts formats (date-time), so a malformed schema
// fails here before any document is checked.
func compileResultsSchema(t *testing.T) *jsonschema.Schema {
	t.Helper()
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(ResultsSchema()))
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

func validateResults(t *testing.T, s *jsonschema.Schema, data []byte) error {
	t.Helper()
	v, err := jsonschema.UnmarshalJSON(bytes.NewReader(data))
	if err != nil {
		t.Fatalf("not JSON: %v", err)
	}
	return s.Validate(v)
}

// TestResultsSchemaAcceptsFixtures validates documents that the package
// writes: the golden fixtures, and a document round-tripped through ReadRun
// and WriteJSON (what merge and report write back).
func TestResultsSchemaAcceptsFixtures(t *testing.T) {
	s := compileResultsSchema(t)
	for _, name := range []string{"results.golden.json", "capacity-results.golden.json"} {
		t.Run(name, func(t *testing.T) {
			data, err := os.ReadFile(filepath.Join(reportersTestdata, name))
			if err != nil {
				t.Fatal(err)
			}
			if err := validateResults(t, s, data); err != nil {
				t.Errorf("schema rejects %s: %v", name, err)
			}
			run, err := ReadRun(bytes.NewReader(data))
			if err != nil {
				t.Fatal(err)
			}
			var buf bytes.Buffer
			if err := WriteJSON(&buf, run); err != nil {
				t.Fatal(err)
			}
			if err := validateResults(t, s, buf.Bytes()); err != nil {
				t.Errorf("schema rejects %s read and written again: %v", name, err)
			}
		})
	}
}

// TestResultsSchemaRejectsDrift shows that the schema is strict enough to
// catch a document whose fields were renamed, retyped or dropped, and that
// the fixture it mutates is otherwise accepted.
func TestResultsSchemaRejectsDrift(t *testing.T) {
	s := compileResultsSchema(t)
	good, err := os.ReadFile(filepath.Join(reportersTestdata, "results.golden.json"))
	if err != nil {
		t.Fatal(err)
	}
	firstCase := func(d map[string]any) map[string]any {
		sc := d["scenarios"].([]any)[0].(map[string]any)
		return sc["cases"].([]any)[0].(map[string]any)
	}
	rename := func(m map[string]any, from, to string) { m[to] = m[from]; delete(m, from) }
	tests := []struct {
		name   string
		mutate func(d map[string]any)
		want   string // in the validator's message
	}{
		{"renamed p99_ns", func(d map[string]any) {
			rename(firstCase(d)["stats"].(map[string]any)["latency"].(map[string]any), "p99_ns", "p99_us")
		}, "p99_us"},
		{"renamed top-level field", func(d map[string]any) { rename(d, "loadgate_version", "version") }, "version"},
		{"unknown field in a phase", func(d map[string]any) {
			firstCase(d)["phases"].([]any)[0].(map[string]any)["rps"] = 12.5
		}, "rps"},
		{"counter as a string", func(d map[string]any) { firstCase(d)["stats"].(map[string]any)["requests"] = "12" }, "requests"},
		{"duration as a float", func(d map[string]any) { firstCase(d)["stats"].(map[string]any)["elapsed_ns"] = 1.5 }, "elapsed_ns"},
		{"unknown verdict status", func(d map[string]any) {
			firstCase(d)["verdicts"].([]any)[0].(map[string]any)["status"] = "passed"
		}, "status"},
		{"histogram as numbers", func(d map[string]any) {
			firstCase(d)["phases"].([]any)[0].(map[string]any)["latency"] = []any{1, 2}
		}, "latency"},
		{"missing required field", func(d map[string]any) { delete(firstCase(d), "target") }, "target"},
		{"bad time", func(d map[string]any) { d["start"] = "yesterday" }, "start"},
		{"other schema version", func(d map[string]any) { d["schema"] = 2 }, "schema"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var doc map[string]any
			if err := json.Unmarshal(good, &doc); err != nil {
				t.Fatal(err)
			}
			if err := validateResults(t, s, mustJSON(t, doc)); err != nil {
				t.Fatalf("unmutated fixture rejected: %v", err)
			}
			tc.mutate(doc)
			err := validateResults(t, s, mustJSON(t, doc))
			if err == nil {
				t.Fatal("schema accepts the mutated document")
			}
			if !strings.Contains(err.Error(), tc.want) {
				t.Errorf("error does not name %q:\n%v", tc.want, err)
			}
		})
	}
}

func mustJSON(t *testing.T, v any) []byte {
	t.Helper()
	data, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return data
}

const (
	resultsDoc     = "../docs/results.md"
	referenceBegin = "<!-- BEGIN field reference: generated by go test ./results -run TestResultsDocIsCurrent -update -->\n"
	referenceEnd   = "<!-- END field reference -->\n"
)

// TestResultsDocIsCurrent keeps the field reference of docs/results.md
// generated from the same types and comments as the schema, so the
// documentation describes every field the document can hold.
func TestResultsDocIsCurrent(t *testing.T) {
	data, err := os.ReadFile(resultsDoc)
	if err != nil {
		t.Fatal(err)
	}
	doc := string(data)
	before, rest, ok1 := strings.Cut(doc, referenceBegin)
	_, after, ok2 := strings.Cut(rest, referenceEnd)
	if !ok1 || !ok2 {
		t.Fatalf("%s lacks the field reference markers", resultsDoc)
	}
	want := before + referenceBegin + "\n" + buildResultsSchema(t).markdown() + referenceEnd + after
	if *update {
		if err := os.WriteFile(resultsDoc, []byte(want), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	if diff := cmp.Diff(want, doc); diff != "" {
		t.Errorf("docs/results.md's field reference is stale; regenerate with go test ./results -run TestResultsDocIsCurrent -update (-types +doc):\n%s", diff)
	}
}
