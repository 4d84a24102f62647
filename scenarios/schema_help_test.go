package scenarios

import (
	"encoding/json"
	"fmt"
	"maps"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// What an editor shows while a scenario is typed comes from the schema's
// annotations: description and markdownDescription on hover and beside a
// completion, default and examples as proposed values, enum as the list to
// pick from. These tests keep them documented, true to the decoder and
// valid against the schema itself.

// schemaNode is one subschema of the scenario schema, at its JSON pointer.
type schemaNode struct {
	ptr    string
	schema jsonSchema
}

// schemaProperties lists every property schema a document can hold, in
// objects of the root, of the definitions and of property schemas nested
// in them, through anyOf and oneOf alternatives, list items and map
// values. The constraints of allOf, if, then, not, dependencies and
// contains only restate properties, which they need not document.
func schemaProperties(root jsonSchema) []schemaNode {
	var out []schemaNode
	var walk func(s jsonSchema, at string)
	walk = func(s jsonSchema, at string) {
		props, _ := s["properties"].(jsonSchema)
		for _, name := range slices.Sorted(maps.Keys(props)) {
			if p, ok := props[name].(jsonSchema); ok {
				ptr := at + "/properties/" + name
				out = append(out, schemaNode{ptr, p})
				walk(p, ptr)
			}
		}
		for _, key := range []string{"anyOf", "oneOf"} {
			alts, _ := s[key].([]any)
			for i, alt := range alts {
				if a, ok := alt.(jsonSchema); ok {
					walk(a, fmt.Sprintf("%s/%s/%d", at, key, i))
				}
			}
		}
		for _, key := range []string{"items", "additionalProperties"} {
			if sub, ok := s[key].(jsonSchema); ok {
				walk(sub, at+"/"+key)
			}
		}
	}
	walk(root, "")
	defs, _ := root["definitions"].(jsonSchema)
	for _, name := range slices.Sorted(maps.Keys(defs)) {
		walk(defs[name].(jsonSchema), "/definitions/"+name)
	}
	return out
}

// merged is schema s as yaml-language-server sees it: the keys of the
// schemas its $ref chain leads to, each under the keys s (or a schema
// nearer s) sets itself.
func merged(root, s jsonSchema) jsonSchema {
	out := jsonSchema{}
	for range 8 {
		for k, v := range s {
			if _, ok := out[k]; !ok && k != "$ref" {
				out[k] = v
			}
		}
		ref, _ := s["$ref"].(string)
		if ref == "" {
			break
		}
		s = resolvePointer(root, strings.TrimPrefix(ref, "#"))
	}
	return out
}

// resolvePointer follows a JSON pointer of the schema's own (no escapes:
// no name in it holds / or ~).
func resolvePointer(root jsonSchema, ptr string) jsonSchema {
	var cur any = root
	for _, part := range strings.Split(strings.TrimPrefix(ptr, "/"), "/") {
		switch c := cur.(type) {
		case jsonSchema:
			cur = c[part]
		case []any:
			var i int
			fmt.Sscan(part, &i)
			cur = c[i]
		}
	}
	s, _ := cur.(jsonSchema)
	return s
}

// TestSchemaDocumentsEveryProperty checks that every property shows a
// description in an editor (its own or its definition's), and that the
// markdownDescription yaml-language-server prefers says the same, with
// values and key names as code: the two cannot drift apart.
func TestSchemaDocumentsEveryProperty(t *testing.T) {
	root := loadSchema(t)
	props := schemaProperties(root)
	if len(props) < 150 {
		t.Fatalf("found %d properties; is the walk broken?", len(props))
	}
	for _, p := range props {
		m := merged(root, p.schema)
		desc, _ := m["description"].(string)
		md, _ := m["markdownDescription"].(string)
		switch {
		case desc == "":
			t.Errorf("%s: no description", p.ptr)
		case md == "":
			t.Errorf("%s: no markdownDescription", p.ptr)
		case strings.ContainsRune(desc, '`'):
			t.Errorf("%s: description %q holds markdown; code formatting belongs in markdownDescription", p.ptr, desc)
		case strings.ReplaceAll(md, "`", "") != desc:
			t.Errorf("%s: markdownDescription says other than description:\n  description:         %s\n  markdownDescription: %s", p.ptr, desc, md)
		}
		if d, ok := p.schema["default"]; ok && !strings.Contains(md, "`"+literal(d)+"`") {
			t.Errorf("%s: markdownDescription %q does not show the default `%s`", p.ptr, md, literal(d))
		}
	}
}

// literal is a default as a scenario writes it: a string bare, anything
// else as JSON.
func literal(v any) string {
	if s, ok := v.(string); ok {
		return s
	}
	b, _ := json.Marshal(v)
	return string(b)
}

// mentionsDefault finds a description that speaks of a default.
var mentionsDefault = regexp.MustCompile(`(?i)\bdefault\b`)

// contextualDefaults are the properties whose default depends on the rest
// of the file, so that no single value can stand in the schema.
var contextualDefaults = map[string]string{
	"/definitions/server/properties/dir":              "the scenario file's directory",
	"/definitions/grpc/properties/import_paths":       "the directories of the proto files",
	"/definitions/dataSource/properties/format":       "the file's extension",
	"/definitions/dataSource/properties/on_exhausted": "recycle or stop, by mode",
	"/definitions/http/properties/proxy":              "the proxy environment variables",
	"/definitions/request/properties/method":          "the target's method",
	"/definitions/request/properties/body":            "the target's body",
	"/definitions/expect/properties/status":           "a range, 200 to 399, not a value",
	"/definitions/tcpExpect/properties/frame":         "true only with a framing",
	"/definitions/threshold/anyOf/1/properties/name":  "the rule",
	"/definitions/prometheus/properties/job":          "a matcher of the default queries, none by default",
	"/definitions/prometheus/properties/labels":       "matchers of the default queries, none by default",
}

// TestSchemaDefaultsWhereDocumented checks that a property whose
// description names a default carries it as `default`, so an editor
// proposes it, unless the default depends on the rest of the file.
func TestSchemaDefaultsWhereDocumented(t *testing.T) {
	root := loadSchema(t)
	unused := map[string]bool{}
	for ptr := range contextualDefaults {
		unused[ptr] = true
	}
	for _, p := range schemaProperties(root) {
		desc, _ := p.schema["description"].(string)
		_, hasDefault := p.schema["default"]
		_, contextual := contextualDefaults[p.ptr]
		delete(unused, p.ptr)
		switch {
		case hasDefault && contextual:
			t.Errorf("%s: has a default, yet contextualDefaults says it depends on %s", p.ptr, contextualDefaults[p.ptr])
		case mentionsDefault.MatchString(desc) && !hasDefault && !contextual:
			t.Errorf("%s: the description names a default (%q) but the schema gives none; add `default`, or say in contextualDefaults why it cannot", p.ptr, desc)
		}
	}
	for ptr := range unused {
		t.Errorf("contextualDefaults names %s, which is not a property of the schema", ptr)
	}
}

// wordTexts lists the words of a closed set.
func wordTexts[T any](words []word[T]) []string {
	var out []string
	for _, w := range words {
		out = append(out, w.text)
	}
	return out
}

// TestSchemaEnumsMatchDecoder checks every enum of the schema against the
// closed set of words the decoder accepts there, in the same order, and
// that the schema has no enum the decoder does not define: a word added
// to either side fails here until the other has it too.
func TestSchemaEnumsMatchDecoder(t *testing.T) {
	root := loadSchema(t)
	decoder := map[string][]string{
		"/definitions/tcp/properties/connection/anyOf/0":              wordTexts(connectionWords),
		"/definitions/websocket/properties/connection/anyOf/0":        wordTexts(connectionWords),
		"/definitions/dataSource/properties/format/anyOf/0":           wordTexts(dataFormatWords),
		"/definitions/dataSource/properties/mode/anyOf/0":             wordTexts(dataModeWords),
		"/definitions/dataSource/properties/on_exhausted/anyOf/0":     wordTexts(exhaustedWords),
		"/definitions/threshold/anyOf/1/properties/severity":          wordTexts(severityWords),
		"/definitions/grpc/properties/stream/anyOf/0":                 wordTexts(streamWords),
		"/definitions/adaptiveTrials/properties/until":                wordTexts(untilWords),
		"/definitions/server/properties/stop_signal/anyOf/0":          stopSignals,
		"/definitions/grpcCode/anyOf/1":                               grpcCodeNames[:],
		"/definitions/prometheus/properties/labels/propertyNames/not": promReserved,
	}
	found := map[string][]string{}
	var walk func(v any, at string)
	walk = func(v any, at string) {
		switch v := v.(type) {
		case jsonSchema:
			if e, ok := v["enum"].([]any); ok {
				for _, w := range e {
					found[at] = append(found[at], fmt.Sprint(w))
				}
			}
			for k, sub := range v {
				walk(sub, at+"/"+k)
			}
		case []any:
			for i, sub := range v {
				walk(sub, fmt.Sprintf("%s/%d", at, i))
			}
		}
	}
	walk(root, "")
	for ptr, want := range decoder {
		if diff := cmp.Diff(want, found[ptr]); diff != "" {
			t.Errorf("%s: the schema's enum differs from the decoder's words (-decoder +schema):\n%s", ptr, diff)
		}
		delete(found, ptr)
	}
	for ptr, e := range found {
		t.Errorf("%s: enum %v is checked against no word list of the decoder; add it to this test", ptr, e)
	}
}

// TestSchemaExamplesAndDefaultsValidate compiles the subschema of every
// node with examples or a default, as a validator reaches it by its JSON
// pointer, and validates each value against it: an editor must never
// propose a value it then flags.
func TestSchemaExamplesAndDefaultsValidate(t *testing.T) {
	root := loadSchema(t)
	c := newScenarioCompiler(t)
	var nodes []schemaNode
	defs, _ := root["definitions"].(jsonSchema)
	for name, d := range defs {
		nodes = append(nodes, schemaNode{"/definitions/" + name, d.(jsonSchema)})
	}
	nodes = append(nodes, schemaProperties(root)...)
	var examples, defaults int
	for _, n := range nodes {
		values, _ := n.schema["examples"].([]any)
		if _, ok := n.schema["examples"]; ok && len(values) == 0 {
			t.Errorf("%s: examples must be a list of at least one value", n.ptr)
		}
		examples += len(values)
		if d, ok := n.schema["default"]; ok {
			values = append(values, d)
			defaults++
		}
		if len(values) == 0 {
			continue
		}
		s, err := c.Compile("loadgate.schema.json#" + n.ptr)
		if err != nil {
			t.Errorf("%s: %v", n.ptr, err)
			continue
		}
		for _, v := range values {
			// Through JSON, as an editor holds the value: numbers as json.Number.
			doc, err := yamlToJSON(mustMarshal(t, v))
			if err != nil {
				t.Fatal(err)
			}
			if err := s.Validate(doc); err != nil {
				t.Errorf("%s: %s does not validate against its own schema: %v", n.ptr, literal(v), err)
			}
		}
	}
	if examples < 50 || defaults < 40 {
		t.Errorf("found %d examples and %d defaults; is the walk broken?", examples, defaults)
	}
}
