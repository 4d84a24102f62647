package scenarios

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"go.yaml.in/yaml/v3"
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

// TestSchemaAcceptsCorpus validates every valid scenario of the corpus with
// the subset of JSON Schema the schema uses, and checks that files with
// unknown fields are rejected, so that the schema is neither too strict nor
// too loose for an editor.
func TestSchemaAcceptsCorpus(t *testing.T) {
	root := loadSchema(t)
	files, _ := filepath.Glob(filepath.Join(corpus, "ok", "*.yaml"))
	if _, err := os.Stat(filepath.Join(corpus, "demo.yaml")); err == nil {
		files = append(files, filepath.Join(corpus, "demo.yaml")) // the bundled demo must please editors too
	}
	for _, file := range files {
		t.Run(filepath.Base(file), func(t *testing.T) {
			doc := loadYAML(t, file)
			if problems := validate(root, root, doc, "$"); len(problems) > 0 {
				t.Errorf("schema rejects %s:\n%s", file, strings.Join(problems, "\n"))
			}
		})
	}
	for _, name := range []string{"unknown-field-top", "unknown-field-target", "unknown-field-phase", "unknown-field-expect", "abort-window", "search-conflicts", "trials-adaptive", "no-stop", "version-2", "bad-duration", "bad-type",
		"tcp-and-http", "tcp-framing-errors", "tcp-step-errors", "server-and-monitor", "server-errors", "monitor-errors", "url-secrets",
		"flow-and-requests", "flow-setup-without-flow", "flow-extract-two-sources"} {
		t.Run(name, func(t *testing.T) {
			doc := loadYAML(t, filepath.Join(corpus, "err", name+".yaml"))
			if problems := validate(root, root, doc, "$"); len(problems) == 0 {
				t.Errorf("schema accepts %s, which the decoder rejects", name)
			}
		})
	}
}

func loadYAML(t *testing.T, file string) *yaml.Node {
	t.Helper()
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	var doc yaml.Node
	if err := yaml.Unmarshal(data, &doc); err != nil {
		t.Fatal(err)
	}
	return doc.Content[0]
}

// validate checks node n against schema s, resolving "#/definitions/…"
// references in root. It knows the keywords schema.json uses: $ref, anyOf,
// oneOf, not, type, const, enum, pattern, required, properties,
// additionalProperties and items.
func validate(root, s jsonSchema, n *yaml.Node, path string) []string {
	d := &decoder{src: newSource(nil)}
	n = d.deref(n)
	if ref, ok := s["$ref"].(string); ok {
		defs, _ := root["definitions"].(jsonSchema)
		target, _ := defs[strings.TrimPrefix(ref, "#/definitions/")].(jsonSchema)
		if target == nil {
			return []string{path + ": unresolvable $ref " + ref}
		}
		return validate(root, target, n, path)
	}
	var problems []string
	if alts, ok := s["anyOf"].([]any); ok {
		var all []string
		for _, alt := range alts {
			p := validate(root, alt.(jsonSchema), n, path)
			if len(p) == 0 {
				all = nil
				break
			}
			all = append(all, p...)
		}
		if all != nil {
			problems = append(problems, fmt.Sprintf("%s: no alternative of anyOf matches: %s", path, strings.Join(all, "; ")))
		}
	}
	if alts, ok := s["oneOf"].([]any); ok {
		matches := 0
		for _, alt := range alts {
			if len(validate(root, alt.(jsonSchema), n, path)) == 0 {
				matches++
			}
		}
		if matches != 1 {
			problems = append(problems, fmt.Sprintf("%s: %d alternatives of oneOf match, want exactly 1", path, matches))
		}
	}
	if not, ok := s["not"].(jsonSchema); ok && len(validate(root, not, n, path)) == 0 {
		problems = append(problems, fmt.Sprintf("%s: matches %v, which it must not", path, not))
	}
	if types, ok := s["type"]; ok && !typeMatches(types, n) {
		return append(problems, fmt.Sprintf("%s: %s is not of type %v", path, describe(n), types))
	}
	if c, ok := s["const"]; ok && fmt.Sprint(c) != n.Value {
		problems = append(problems, fmt.Sprintf("%s: %s is not %v", path, n.Value, c))
	}
	if e, ok := s["enum"].([]any); ok && !slices.ContainsFunc(e, func(v any) bool { return fmt.Sprint(v) == n.Value }) {
		problems = append(problems, fmt.Sprintf("%s: %s is not one of %v", path, n.Value, e))
	}
	if p, ok := s["pattern"].(string); ok && n.Kind == yaml.ScalarNode && n.ShortTag() == "!!str" && !regexp.MustCompile(p).MatchString(n.Value) {
		problems = append(problems, fmt.Sprintf("%s: %q does not match %s", path, n.Value, p))
	}
	switch n.Kind {
	case yaml.MappingNode:
		props, _ := s["properties"].(jsonSchema)
		pairs := d.pairs(n, 0)
		required, _ := s["required"].([]any)
		for _, r := range required {
			if !slices.ContainsFunc(pairs, func(p pair) bool { return p.key.Value == r }) {
				problems = append(problems, fmt.Sprintf("%s: required property %q is missing", path, r))
			}
		}
		for _, kv := range pairs {
			key := kv.key.Value
			switch sub, extra := props[key], s["additionalProperties"]; {
			case sub != nil:
				problems = append(problems, validate(root, sub.(jsonSchema), kv.val, path+"."+key)...)
			case extra == false:
				problems = append(problems, fmt.Sprintf("%s: property %q is not allowed", path, key))
			case extra != nil:
				problems = append(problems, validate(root, extra.(jsonSchema), kv.val, path+"."+key)...)
			}
		}
	case yaml.SequenceNode:
		if items, ok := s["items"].(jsonSchema); ok {
			for i, item := range n.Content {
				problems = append(problems, validate(root, items, item, fmt.Sprintf("%s[%d]", path, i))...)
			}
		}
	}
	return problems
}

// typeMatches reports whether n is of the JSON type(s) named, as the YAML
// scalar's resolved tag says.
func typeMatches(types any, n *yaml.Node) bool {
	var names []string
	switch t := types.(type) {
	case string:
		names = []string{t}
	case []any:
		for _, v := range t {
			names = append(names, fmt.Sprint(v))
		}
	}
	var kind string
	switch n.Kind {
	case yaml.MappingNode:
		kind = "object"
	case yaml.SequenceNode:
		kind = "array"
	default:
		kind = map[string]string{"!!int": "integer", "!!float": "number", "!!bool": "boolean", "!!null": "null"}[n.ShortTag()]
		if kind == "" {
			kind = "string"
		}
	}
	return slices.Contains(names, kind) || (kind == "integer" && slices.Contains(names, "number"))
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
