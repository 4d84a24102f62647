package scenarios

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/santhosh-tekuri/jsonschema/v6"
	"go.yaml.in/yaml/v3"
)

// schemaCoverage is the golden table of which invalid files of the corpus
// an editor's schema check already flags, and which only `loadgate
// validate` can; -update rewrites it.
const schemaCoverage = "../testdata/scenarios/schema-coverage.md"

// compileScenarioSchema compiles Schema() the way an editor does: as the
// draft-07 schema it declares itself to be.
func compileScenarioSchema(t *testing.T) *jsonschema.Schema {
	t.Helper()
	s, err := newScenarioCompiler(t).Compile("loadgate.schema.json")
	if err != nil {
		t.Fatalf("compile scenario schema: %v", err)
	}
	return s
}

// newScenarioCompiler holds Schema() as loadgate.schema.json, to compile
// it whole or any subschema by its JSON pointer.
func newScenarioCompiler(t *testing.T) *jsonschema.Compiler {
	t.Helper()
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(Schema()))
	if err != nil {
		t.Fatalf("schema is not JSON: %v", err)
	}
	c := jsonschema.NewCompiler()
	c.DefaultDraft(jsonschema.Draft7)
	if err := c.AddResource("loadgate.schema.json", doc); err != nil {
		t.Fatal(err)
	}
	return c
}

// yamlToJSON decodes the first document of a YAML file into the JSON value
// an editor validates: aliases and merge keys resolved, mapping keys as
// strings. A file that is not YAML returns the parser's error.
func yamlToJSON(data []byte) (any, error) {
	var v any
	if err := yaml.Unmarshal(data, &v); err != nil {
		return nil, err
	}
	js, err := json.Marshal(stringKeys(v))
	if err != nil {
		return nil, err
	}
	return jsonschema.UnmarshalJSON(bytes.NewReader(js))
}

// stringKeys converts the map[any]any that yaml.v3 gives a mapping with
// non-string keys (`200: ok`) to the object JSON would have, and the
// numbers JSON cannot hold to text.
func stringKeys(v any) any {
	switch v := v.(type) {
	case map[string]any:
		for k, e := range v {
			v[k] = stringKeys(e)
		}
		return v
	case map[any]any:
		m := make(map[string]any, len(v))
		for k, e := range v {
			m[fmt.Sprint(k)] = stringKeys(e)
		}
		return m
	case []any:
		for i, e := range v {
			v[i] = stringKeys(e)
		}
	case float64:
		// JSON has no infinities; loadgate reads .inf and .nan as the
		// text they are, and so does the schema.
		if math.IsInf(v, 0) || math.IsNaN(v) {
			return strconv.FormatFloat(v, 'g', -1, 64)
		}
	}
	return v
}

// Verdicts of the coverage table.
const (
	bySchema   = "schema"
	byParser   = "YAML parser"
	byValidate = "validate only"
)

// validateOnly says, for each invalid file the schema accepts, why draft-07
// cannot express the rule it breaks. A file newly accepted by the schema
// fails the test until it is explained here (or the schema catches it).
var validateOnly = map[string]string{
	"bad-regex": "regular expressions are compiled (RE2)",
	// A ramp from N to N is a constant level, which needs no duration and
	// allows ramp_up; draft-07 cannot compare from with to.
	"concurrency-ramp-no-duration":  "only a ramp whose from and to differ needs duration",
	"rate-ramp-no-duration":         "only a ramp whose from and to differ needs duration (the schema asks it of ramps from or to 0)",
	"ramp-up-with-concurrency-ramp": "only a ramp whose from and to differ excludes ramp_up",
	"flow-data-missing":             "the data file is read",
	"flow-tls-proxy":                "the client certificate and key are loaded",
	"flow-unique-too-few":           "the data file's rows are counted against each case's virtual users",
	"flow-unknown-names":            "placeholders must name data columns or values that earlier steps extract",
	"grpc-proto-not-compiling":      "the proto files are compiled",
	"http-url-host-port":            "URLs are parsed (a host, a port from 1 to 65535)",
	"matrix-value-type":             "a matrix value is typed where its variable is used",
	"multi-doc":                     "editors validate each YAML document alone; loadgate wants one",
	"tcp-vars":                      "values given through variables, and payload placeholders, are checked once expanded",
	"tls-ca-not-pem":                "the CA file is read",
	"undefined-var":                 "${…} must name a variable defined in vars:, by --var or in the environment",
	"var-cycle":                     "the ${…} in the values under vars: are followed from variable to variable",
}

// TestSchemaCoverageOfErrCorpus runs every invalid file of the corpus
// through the published schema, as an editor would, and keeps the table of
// what only `validate` catches in a golden file, so that a change in
// coverage (a rule the schema now expresses, or a new file it lets through)
// shows in review. Run with -update after a deliberate change.
func TestSchemaCoverageOfErrCorpus(t *testing.T) {
	s := compileScenarioSchema(t)
	files, _ := filepath.Glob(filepath.Join(corpus, "err", "*.yaml"))
	if len(files) < 20 {
		t.Fatalf("found %d files in %s/err; is the corpus missing?", len(files), corpus)
	}
	var rows []string
	count := map[string]int{}
	explained := maps.Clone(validateOnly)
	for _, file := range files {
		name := strings.TrimSuffix(filepath.Base(file), ".yaml")
		data, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		verdict, why := bySchema, ""
		switch v, err := yamlToJSON(data); {
		case err != nil:
			verdict, why = byParser, oneLine(err.Error())
		default:
			if err := s.Validate(v); err != nil {
				why = "at " + flagged(err)
				break
			}
			verdict, why = byValidate, validateOnly[name]
			if why == "" {
				t.Errorf("the schema accepts err/%s.yaml: express its rule in scenarios/schema.json, or say in validateOnly why draft-07 cannot", name)
			}
		}
		count[verdict]++
		rows = append(rows, fmt.Sprintf("| %s | %s | %s |", name, verdict, why))
		delete(explained, name)
	}
	for name := range explained {
		t.Errorf("validateOnly explains err/%s.yaml, which the schema now catches or which is gone: remove it", name)
	}
	got := fmt.Sprintf("# Invalid scenarios: caught by the schema or only by validate\n\n"+
		"Generated by `go test ./scenarios -run TestSchemaCoverageOfErrCorpus -update`.\n\n"+
		"%d files in testdata/scenarios/err: %d caught by the schema, %d by the YAML parser, %d only by `loadgate validate`.\n\n"+
		"| file | caught by | where the schema flags it, or why it cannot |\n|---|---|---|\n%s\n",
		len(files), count[bySchema], count[byParser], count[byValidate], strings.Join(rows, "\n"))
	if *update {
		if err := os.WriteFile(schemaCoverage, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(schemaCoverage)
	if err != nil {
		t.Fatalf("%v (run go test ./scenarios -run TestSchemaCoverageOfErrCorpus -update to create it)", err)
	}
	if diff := cmp.Diff(string(want), got); diff != "" {
		t.Errorf("schema coverage changed; review, then -update (-want +got):\n%s", diff)
	}
}

// oneLine fits a multi-line parser error into one table cell.
func oneLine(s string) string {
	return strings.ReplaceAll(strings.Join(strings.Fields(s), " "), "|", `\|`)
}

// flagged lists the places in the document (JSON pointers) where the
// schema's innermost failures are, the few an editor would underline.
func flagged(err error) string {
	var ve *jsonschema.ValidationError
	if !errors.As(err, &ve) {
		return err.Error()
	}
	var at []string
	var walk func(e *jsonschema.ValidationError)
	walk = func(e *jsonschema.ValidationError) {
		if len(e.Causes) == 0 {
			at = append(at, "/"+strings.Join(e.InstanceLocation, "/"))
		}
		for _, c := range e.Causes {
			walk(c)
		}
	}
	walk(ve)
	slices.Sort(at)
	at = slices.Compact(at)
	const most = 3
	if len(at) > most {
		return fmt.Sprintf("%s and %d more", strings.Join(at[:most], ", "), len(at)-most)
	}
	return strings.Join(at, ", ")
}

// TestMergeKeysSchemaAgreesWithDecoder shows that YAML merge keys (`<<`)
// are accepted, and that the schema, which sees the document with its
// merges resolved as an editor does, agrees with the decoder on what a
// merge brings in.
func TestMergeKeysSchemaAgreesWithDecoder(t *testing.T) {
	s := compileScenarioSchema(t)
	const head = "version: 1\nname: m\ntargets:\n  - name: t\n    http: { url: \"http://h/\" }\nphases:\n"
	tests := []struct {
		name   string
		phases string
		valid  bool
	}{
		{"one merge, a key beside it wins", "  - &p { name: a, duration: 1s, concurrency: 2 }\n  - { <<: *p, name: b, concurrency: 3 }\n", true},
		{"a list of merges", "  - &p { name: a, duration: 1s }\n  - &q { name: b, requests: 5, concurrency: 2 }\n  - { <<: [*q, *p], name: c }\n", true},
		{"a written key wins over a merged rate", "  - &o { name: a, duration: 1s, rate: 10 }\n  - { <<: *o, name: b, rate: 20 }\n", true},
		{"a merge brings rate beside concurrency", "  - &o { name: a, duration: 1s, rate: 10 }\n  - { <<: *o, name: b, concurrency: 4 }\n", false},
		{"a merge brings max_in_flight into a closed phase", "  - &o { name: a, duration: 1s, rate: 10, max_in_flight: 5 }\n  - name: b\n    <<: *o\n    rate: 20\n  - { name: c, requests: 5, <<: { max_in_flight: 5 } }\n", false},
		{"a merge brings warmup to the only measured phase", "  - &w { name: a, warmup: true, requests: 5 }\n  - { <<: *w, name: b }\n", false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			src := head + tc.phases
			_, loadErr := Parse("s.yaml", []byte(src), LoadOptions{})
			if (loadErr == nil) != tc.valid {
				t.Errorf("decoder: valid = %v, want %v (%v)", loadErr == nil, tc.valid, loadErr)
			}
			v, err := yamlToJSON([]byte(src))
			if err != nil {
				t.Fatal(err)
			}
			if schemaErr := s.Validate(v); (schemaErr == nil) != tc.valid {
				t.Errorf("schema: valid = %v, want %v (%v)", schemaErr == nil, tc.valid, schemaErr)
			}
		})
	}
}

// TestMergeKeysResolveAlike checks that the document the schema validates
// has the same merged values as the scenario loadgate loads, precedence
// included (a written key over a merged one, an earlier merge over a later
// one).
func TestMergeKeysResolveAlike(t *testing.T) {
	file := filepath.Join(corpus, "ok", "anchors.yaml")
	sc, err := Load(file, LoadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	var fromDecoder []string
	for _, p := range sc.Cases[0].Phases {
		fromDecoder = append(fromDecoder, fmt.Sprintf("%s: concurrency %d, think_time %s", p.Name, p.Concurrency, p.ThinkTime))
	}
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Phases []struct {
			Name        string `json:"name"`
			Concurrency int    `json:"concurrency"`
			ThinkTime   string `json:"think_time"`
		} `json:"phases"`
	}
	v, err := yamlToJSON(data)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(mustMarshal(t, v), &doc); err != nil {
		t.Fatal(err)
	}
	var fromSchema []string
	for _, p := range doc.Phases {
		think := p.ThinkTime
		if think == "" {
			think = "0s" // as time.Duration prints none
		}
		fromSchema = append(fromSchema, fmt.Sprintf("%s: concurrency %d, think_time %s", p.Name, p.Concurrency, think))
	}
	if diff := cmp.Diff(fromDecoder, fromSchema); diff != "" {
		t.Errorf("merged phases differ (-decoder +schema's view):\n%s", diff)
	}
}

func mustMarshal(t *testing.T, v any) []byte {
	t.Helper()
	data, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return data
}
