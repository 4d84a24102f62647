package scenarios

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

type jsonSchema = map[string]any

func loadSchema(t *testing.T) jsonSchema {
	t.Helper()
	var s jsonSchema
	if err := json.Unmarshal(Schema(), &s); err != nil {
		t.Fatalf("Schema() is not valid JSON: %v", err)
	}
	return s
}

// TestSchemaMatchesDecoder checks that the schema accepts exactly the keys
// the decoder accepts, object by object: the field tables are the source of
// truth, so the two cannot drift apart unnoticed.
func TestSchemaMatchesDecoder(t *testing.T) {
	root := loadSchema(t)
	if root["$schema"] != "http://json-schema.org/draft-07/schema#" {
		t.Errorf("$schema = %v, want draft-07", root["$schema"])
	}
	defs, _ := root["definitions"].(jsonSchema)
	def := func(name string) jsonSchema { d, _ := defs[name].(jsonSchema); return d }
	thresholdObject := jsonSchema{}
	if alts, ok := def("threshold")["anyOf"].([]any); ok && len(alts) == 2 {
		thresholdObject, _ = alts[1].(jsonSchema)
	}
	tests := []struct {
		object string
		schema jsonSchema
		fields []string
	}{
		{"scenario", root, fieldNames(scenarioFields, true)},
		{"target", def("target"), fieldNames(targetFields, true)},
		{"http", def("http"), fieldNames(httpFields, true)},
		{"tls", def("tls"), fieldNames(tlsFields, true)},
		{"request", def("request"), fieldNames(requestFields, true)},
		{"expect", def("expect"), fieldNames(expectFields, true)},
		{"phase", def("phase"), fieldNames(phaseFields, true)},
		{"concurrencyRamp", def("concurrencyRamp"), fieldNames(rampFields("concurrency", anInteger), true)},
		{"rateRamp", def("rateRamp"), fieldNames(rampFields("rate", aRate), true)},
		{"threshold", thresholdObject, fieldNames(thresholdFields, true)},
		{"tcp", def("tcp"), fieldNames(tcpFields, true)},
		{"framingKind", def("framingKind"), fieldNames(framingKinds, true)},
		{"lengthPrefixed", def("lengthPrefixed"), fieldNames(lengthPrefixedFields, true)},
		{"frameField", def("frameField"), frameFieldTypes},
		{"tcpStep", def("tcpStep"), fieldNames(stepFields, true)},
		{"tcpExpect", def("tcpExpect"), fieldNames(tcpExpectFields, true)},
		{"server", def("server"), fieldNames(serverFields, true)},
		{"ready", def("ready"), fieldNames(readyFields, true)},
		{"monitor", def("monitor"), fieldNames(monitorFields, true)},
		{"var", def("var"), fieldNames(varFields, true)},
		{"step", def("step"), fieldNames(flowStepFields, true)},
		{"extraction", def("extraction"), fieldNames(extractFields, true)},
		{"dataSource", def("dataSource"), fieldNames(dataFields, true)},
		{"grpc", def("grpc"), fieldNames(grpcFields, true)},
		{"grpcExpect", subProperty(def("grpc"), "expect"), fieldNames(grpcExpectFields, true)},
		{"websocket", def("websocket"), fieldNames(wsFields, true)},
		{"wsStep", def("wsStep"), fieldNames(wsStepFields, true)},
		{"wsExpect", def("wsExpect"), fieldNames(wsExpectFields, true)},
	}
	for _, tc := range tests {
		t.Run(tc.object, func(t *testing.T) {
			props, _ := tc.schema["properties"].(jsonSchema)
			var got []string
			for k := range props {
				got = append(got, k)
			}
			slices.Sort(got)
			want := slices.Sorted(slices.Values(tc.fields))
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("schema properties differ from the decoder's fields (-decoder +schema):\n%s", diff)
			}
			if tc.schema["additionalProperties"] != false {
				t.Errorf("additionalProperties = %v, want false: decoding is strict", tc.schema["additionalProperties"])
			}
		})
	}
}

// subProperty is the schema of property name of object schema s.
func subProperty(s jsonSchema, name string) jsonSchema {
	props, _ := s["properties"].(jsonSchema)
	sub, _ := props[name].(jsonSchema)
	return sub
}

// validScenarios are the files that must please an editor's schema check:
// the valid corpus, the bundled demo, the worked examples and the scenarios
// the documentation shows.
var validScenarios = []string{
	corpus + "/ok/*.yaml",
	corpus + "/demo.yaml",
	"../internal/cli/demo.yaml",
	"../examples/*/*.yaml",
	"../docs/examples/*.yaml",
	"../docs/examples/distributed/scenario.yaml",
}

// TestSchemaAcceptsCorpus validates every valid scenario of the repository
// with a draft-07 validator, so that the schema is never stricter than the
// decoder: an editor must not flag a file that loadgate runs. The invalid
// files are TestSchemaCoverageOfErrCorpus's.
func TestSchemaAcceptsCorpus(t *testing.T) {
	s := compileScenarioSchema(t)
	var files []string
	for _, pattern := range validScenarios {
		m, _ := filepath.Glob(pattern)
		if len(m) == 0 {
			t.Errorf("no file matches %s", pattern)
		}
		for _, f := range m {
			if !strings.HasSuffix(f, ".openapi.yaml") { // an API description beside the scenarios, not one
				files = append(files, f)
			}
		}
	}
	for _, file := range files {
		t.Run(file, func(t *testing.T) {
			data, err := os.ReadFile(file)
			if err != nil {
				t.Fatal(err)
			}
			v, err := yamlToJSON(data)
			if err != nil {
				t.Fatal(err)
			}
			if err := s.Validate(v); err != nil {
				t.Errorf("schema rejects %s:\n%v", file, err)
			}
		})
	}
}

// TestPublishedSchemaIsCurrent compares the copy of the schema that scenario
// files in the repository point their editors at, when there is one.
func TestPublishedSchemaIsCurrent(t *testing.T) {
	published, err := os.ReadFile("../docs/loadgate.schema.json")
	if err != nil {
		t.Skip("no published schema:", err)
	}
	if diff := cmp.Diff(string(Schema()), string(published)); diff != "" {
		t.Errorf("docs/loadgate.schema.json is stale; regenerate it with `loadgate schema` (-embedded +published):\n%s", diff)
	}
}
