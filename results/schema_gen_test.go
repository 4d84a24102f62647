package results

import (
	"bytes"
	"encoding/json"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"maps"
	"path/filepath"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"
)

// The results schema is generated from the Go types that encoding/json
// writes, so that it cannot drift from them: property names, types and
// required-ness come from reflection over the json tags, descriptions from
// the fields' doc comments in the source, enums from the constants declared
// for a string type. Only what reflection cannot see is written here.

const modulePath = "github.com/loadgate/loadgate/"

var (
	durationType  = reflect.TypeFor[time.Duration]()
	timeType      = reflect.TypeFor[time.Time]()
	histogramType = reflect.TypeFor[Histogram]()
)

// Descriptions that the fixed encodings of some types add to their fields'.
const (
	durationNote  = "Nanoseconds."
	histogramNote = "HdrHistogram in microseconds (1 µs to 1 h, 3 significant digits), standard V2 compressed encoding, base64."
)

// schemaModel is the results document's types in the order a reader meets
// them, each with its JSON fields.
type schemaModel struct {
	defs  []*schemaDef
	byTyp map[reflect.Type]*schemaDef
	src   *sourceDocs
}

type schemaDef struct {
	name   string
	doc    string
	fields []schemaField
}

type schemaField struct {
	name     string
	schema   map[string]any
	required bool
	nullable bool // encoding/json writes null when empty
	doc      string
	owner    string // the Go type that declares the field
	kind     string // the type as docs/results.md shows it
}

// buildResultsSchema reads the doc comments of the packages the document's
// types live in (relative to the results directory) and walks Run.
func buildResultsSchema(t *testing.T) *schemaModel {
	t.Helper()
	m := &schemaModel{byTyp: map[reflect.Type]*schemaDef{}, src: &sourceDocs{pkgs: map[string]*pkgDocs{}}}
	if err := m.def(reflect.TypeFor[Run]()); err != nil {
		t.Fatal(err)
	}
	return m
}

// def adds the definition of struct type ty (and of every type it holds).
func (m *schemaModel) def(ty reflect.Type) error {
	if m.byTyp[ty] != nil {
		return nil
	}
	for _, d := range m.defs {
		if d.name == ty.Name() {
			return fmt.Errorf("two types named %s: give one a distinct name in the schema", ty.Name())
		}
	}
	pd, err := m.src.pkg(ty.PkgPath())
	if err != nil {
		return err
	}
	d := &schemaDef{name: ty.Name(), doc: pd.types[ty.Name()]}
	m.byTyp[ty] = d
	m.defs = append(m.defs, d)
	fields, err := m.fields(ty)
	if err != nil {
		return err
	}
	d.fields = fields
	return nil
}

// fields lists ty's JSON fields as encoding/json writes them: untagged
// embedded structs are promoted, and a field of the outer struct hides a
// promoted one of the same name.
func (m *schemaModel) fields(ty reflect.Type) ([]schemaField, error) {
	pd, err := m.src.pkg(ty.PkgPath())
	if err != nil {
		return nil, err
	}
	var out []schemaField
	for f := range ty.Fields() {
		tag := f.Tag.Get("json")
		if !f.IsExported() || tag == "-" {
			continue
		}
		name, opts, _ := strings.Cut(tag, ",")
		if f.Anonymous && name == "" && f.Type.Kind() == reflect.Struct {
			promoted, err := m.fields(f.Type)
			if err != nil {
				return nil, err
			}
			out = append(out, promoted...)
			continue
		}
		if name == "" {
			name = f.Name
		}
		omit := strings.Contains(opts, "omitempty") || strings.Contains(opts, "omitzero")
		k := f.Type.Kind()
		nullable := !omit && (k == reflect.Pointer || k == reflect.Slice || k == reflect.Map)
		s, kind, note, err := m.typeSchema(f.Type, nullable)
		if err != nil {
			return nil, fmt.Errorf("%s.%s: %w", ty.Name(), f.Name, err)
		}
		doc, ok := fieldNotes[ty.Name()+"."+name]
		if !ok {
			doc = pd.fields[ty.Name()+"."+f.Name]
		}
		if doc != "" {
			doc = strings.TrimSpace(doc + " " + note)
		}
		s["description"] = doc
		maps.Copy(s, fieldKeywords[ty.Name()+"."+name])
		out = append(out, schemaField{name: name, schema: s, required: !omit, nullable: nullable, doc: doc, owner: ty.Name(), kind: kind})
	}
	// encoding/json: the shallower field wins; outer fields come after
	// promoted ones here only when declared so, hence the explicit pass.
	seen := map[string]int{}
	var dedup []schemaField
	for _, f := range out {
		if i, ok := seen[f.name]; ok {
			dedup[i] = f
			continue
		}
		seen[f.name] = len(dedup)
		dedup = append(dedup, f)
	}
	return dedup, nil
}

// typeSchema is the schema of a value of type ty, the type's name for the
// documentation and the note its encoding adds to the description. A value
// that encoding/json writes as null when nil (a pointer, slice or map
// without omitempty) is nullable.
func (m *schemaModel) typeSchema(ty reflect.Type, nullable bool) (map[string]any, string, string, error) {
	switch {
	case ty == durationType:
		return map[string]any{"type": "integer"}, "integer (ns)", durationNote, nil
	case ty == timeType:
		return map[string]any{"type": "string", "format": "date-time"}, "string (RFC 3339 time)", "", nil
	case ty.Kind() == reflect.Pointer && ty.Elem() == histogramType:
		return withNull(map[string]any{"type": "string", "contentEncoding": "base64"}, nullable), "string (HDR histogram, µs)", histogramNote, nil
	}
	switch ty.Kind() {
	case reflect.Pointer:
		return m.typeSchema(ty.Elem(), nullable)
	case reflect.Slice:
		items, kind, note, err := m.typeSchema(ty.Elem(), false)
		return withNull(map[string]any{"type": "array", "items": items}, nullable), "array of " + kind, note, err
	case reflect.Map:
		if ty.Key().Kind() != reflect.String {
			return nil, "", "", fmt.Errorf("map key %s: JSON keys are strings", ty.Key())
		}
		vals, kind, note, err := m.typeSchema(ty.Elem(), false)
		return withNull(map[string]any{"type": "object", "additionalProperties": vals}, nullable), "object of " + kind, note, err
	case reflect.Struct:
		if err := m.def(ty); err != nil {
			return nil, "", "", err
		}
		ref := map[string]any{"$ref": "#/$defs/" + ty.Name()}
		if nullable {
			return map[string]any{"anyOf": []any{ref, map[string]any{"type": "null"}}}, ty.Name(), "", nil
		}
		return ref, ty.Name(), "", nil
	case reflect.Interface:
		// MatrixEntry.Value: a matrix value as the scenario wrote it.
		return map[string]any{"type": []any{"number", "boolean", "string"}}, "number, boolean or string", "", nil
	case reflect.String:
		s := map[string]any{"type": "string"}
		if ty.Name() != "string" {
			pd, err := m.src.pkg(ty.PkgPath())
			if err != nil {
				return nil, "", "", err
			}
			if vals := pd.enums[ty.Name()]; len(vals) > 0 {
				s["enum"] = stringsToAny(vals)
				return s, "string: " + strings.Join(vals, ", "), "", nil
			}
		}
		return s, "string", "", nil
	case reflect.Bool:
		return map[string]any{"type": "boolean"}, "boolean", "", nil
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return map[string]any{"type": "integer"}, "integer", "", nil
	case reflect.Float32, reflect.Float64:
		return map[string]any{"type": "number"}, "number", "", nil
	}
	return nil, "", "", fmt.Errorf("type %s has no JSON Schema mapping", ty)
}

func withNull(s map[string]any, nullable bool) map[string]any {
	if nullable {
		s["type"] = []any{s["type"], "null"}
	}
	return s
}

func stringsToAny(ss []string) []any {
	out := make([]any, len(ss))
	for i, s := range ss {
		out[i] = s
	}
	return out
}

// object is the schema of one definition: every property described, the
// ones encoding/json always writes required, nothing else allowed.
func (d *schemaDef) object() map[string]any {
	props := map[string]any{}
	required := []any{}
	for _, f := range d.fields {
		props[f.name] = f.schema
		if f.required {
			required = append(required, f.name)
		}
	}
	return map[string]any{
		"type":                 "object",
		"description":          d.doc,
		"properties":           props,
		"required":             required,
		"additionalProperties": false,
	}
}

// JSON renders the schema: the root is Run, the other types are $defs.
// The root's keys keep a reader's order: what the document is, then what
// it holds.
func (m *schemaModel) JSON() ([]byte, error) {
	obj := m.defs[0].object()
	obj["properties"].(map[string]any)["schema"].(map[string]any)["const"] = Schema
	defs := map[string]any{}
	for _, d := range m.defs[1:] {
		defs[d.name] = d.object()
	}
	root := struct {
		Schema      string `json:"$schema"`
		ID          string `json:"$id"`
		Title       string `json:"title"`
		Description any    `json:"description"`
		Type        any    `json:"type"`
		Required    any    `json:"required"`
		Properties  any    `json:"properties"`
		Additional  any    `json:"additionalProperties"`
		Defs        any    `json:"$defs"`
	}{
		"https://json-schema.org/draft/2020-12/schema",
		"https://github.com/loadgate/loadgate/results.schema.json",
		fmt.Sprintf("loadgate results document (results.json), schema %d", Schema),
		obj["description"], obj["type"], obj["required"], obj["properties"], obj["additionalProperties"], defs,
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	if err := enc.Encode(root); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// sourceDocs reads doc comments and string constants from the source of
// the module's packages, once per package.
type sourceDocs struct {
	pkgs map[string]*pkgDocs
}

type pkgDocs struct {
	types  map[string]string   // type name → doc comment
	fields map[string]string   // "Type.Field" → doc and line comment
	enums  map[string][]string // string type name → its constants' values
}

func (s *sourceDocs) pkg(path string) (*pkgDocs, error) {
	if pd := s.pkgs[path]; pd != nil {
		return pd, nil
	}
	rel, ok := strings.CutPrefix(path, modulePath)
	if !ok {
		return nil, fmt.Errorf("package %s is outside the module: describe its types by hand", path)
	}
	files, err := filepath.Glob(filepath.Join("..", rel, "*.go"))
	if err != nil || len(files) == 0 {
		return nil, fmt.Errorf("source of %s: no Go files (%v)", path, err)
	}
	pd := &pkgDocs{types: map[string]string{}, fields: map[string]string{}, enums: map[string][]string{}}
	fset := token.NewFileSet()
	for _, file := range files {
		if strings.HasSuffix(file, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, file, nil, parser.ParseComments)
		if err != nil {
			return nil, fmt.Errorf("parse %s: %w", file, err)
		}
		for _, decl := range f.Decls {
			if gd, ok := decl.(*ast.GenDecl); ok {
				pd.add(gd)
			}
		}
	}
	s.pkgs[path] = pd
	return pd, nil
}

func (pd *pkgDocs) add(gd *ast.GenDecl) {
	for _, spec := range gd.Specs {
		switch sp := spec.(type) {
		case *ast.TypeSpec:
			doc := sp.Doc
			if doc == nil && len(gd.Specs) == 1 {
				doc = gd.Doc
			}
			pd.types[sp.Name.Name] = commentLine(doc.Text())
			if st, ok := sp.Type.(*ast.StructType); ok {
				for _, f := range st.Fields.List {
					for _, n := range f.Names {
						pd.fields[sp.Name.Name+"."+n.Name] = commentLine(f.Doc.Text() + " " + f.Comment.Text())
					}
				}
			}
		case *ast.ValueSpec:
			id, ok := sp.Type.(*ast.Ident)
			if gd.Tok != token.CONST || !ok {
				continue
			}
			for _, v := range sp.Values {
				if lit, ok := v.(*ast.BasicLit); ok && lit.Kind == token.STRING {
					if s, err := strconv.Unquote(lit.Value); err == nil && !slices.Contains(pd.enums[id.Name], s) {
						pd.enums[id.Name] = append(pd.enums[id.Name], s)
					}
				}
			}
		}
	}
}

// commentLine joins a comment's lines into one sentence-spaced line.
func commentLine(s string) string {
	return strings.Join(strings.Fields(s), " ")
}

// fieldNotes describes the fields whose declarations carry no comment
// because their name says enough to a Go reader, keyed by declaring type
// and JSON name; an entry here replaces the field's comment.
// fieldKeywords are schema keywords that reflection cannot see.
var fieldKeywords = map[string]map[string]any{
	// The keys a status-code count can have: what runner counts.
	"Counters.status_codes": {"propertyNames": map[string]any{"pattern": "^([1-5][0-9]{2}|other)$"}},
}

var fieldNotes = map[string]string{
	"Run.schema":           "Version of the document's format: 1. It rises only when a field is renamed, removed or changes meaning.",
	"Run.loadgate_version": "Version of loadgate that wrote the document.",
	"Run.start":            "When the run started.",
	"Run.end":              "When the run ended.",
	"Run.host":             "The machine that generated the load.",
	"Run.scenarios":        "The scenarios in the order they ran.",
	"Host.hostname":        "Host name of the load generator.",
	"Host.cpu_model":       "CPU model name, where the OS tells it.",

	"SegmentInfo.count":         "How many segments the run was split into.",
	"MergedSegment.index":       "The part's segment index, 1-based.",
	"MergedSegment.file":        "The results file the part was read from.",
	"MergedSegment.hostname":    "Host that ran the part.",
	"MergedSegment.start":       "When the part started.",
	"MergedSegment.end":         "When the part ended.",
	"MergedSegment.start_at":    "The part's planned start (--start-at).",
	"MergedSegment.skew_ns":     "How late the part started after start_at.",
	"MergedSegment.interrupted": "The part was stopped by SIGINT/SIGTERM: its figures are partial.",
	"ScenarioRun.name":          "Scenario name.",
	"ScenarioRun.description":   "Scenario description, as written.",
	"ScenarioRun.file":          "Path of the scenario file as given on the command line.",
	"ScenarioRun.start":         "When the scenario started.",
	"ScenarioRun.end":           "When the scenario ended.",
	"ScenarioRun.interrupted":   "Stopped by SIGINT/SIGTERM: figures are partial.",
	"ScenarioRun.cases":         "The cases (target × matrix values) in run order.",
	"ScenarioRun.vars":          "Segment parts only: the effective variables, secret-looking ones redacted.",
	"Aborted.case":              "ID of the case whose phase was stopped.",
	"Aborted.phase":             "Name of the phase that was stopped.",
	"Aborted.rule":              "The threshold's expression.",
	"CaseRun.id":                "Case ID: the target name, then the matrix values.",
	"CaseRun.target":            "Name of the case's target.",
	"CaseRun.matrix":            "The case's matrix values in the scenario's key order; absent without a matrix.",
	"CaseRun.verdicts":          "The threshold verdicts of the case.",
	"CaseRun.server_name":       "Name of the server or monitored process that server describes.",
	"MatrixEntry.key":           "Matrix key.",
	"MatrixEntry.value":         "Matrix value as the scenario wrote it: integer, number, boolean or string.",
	"PhaseResult.name":          "Phase name.",
	"PhaseResult.warmup":        "A warm-up phase: never written to results.json, whose phases are measured ones.",
	"PhaseResult.concurrency":   "Workers of a closed-model phase (where a ramp ends); 0 in the open model.",
	"PhaseResult.start":         "When the phase started.",
	"PhaseResult.end":           "When the phase ended.",
	"PhaseResult.interrupted":   "Stopped by SIGINT/SIGTERM or an abort rule before its end.",
	"PhaseResult.series":        "One point per elapsed second of the phase; the last point may cover a partial second.",
	"Counters.failed":           "Requests that failed: an error of one of the kinds in errors.",
	"Counters.errors":           "Failed requests by kind.",
	"Counters.bytes_sent":       "Bytes written to the target.",
	"Counters.bytes_received":   "Bytes read from the target.",
	"Counters.status_codes":     "HTTP responses that arrived, by status code (\"200\", \"503\"; codes outside 100–599 under \"other\"), whether expect accepted them or not. Absent for targets other than HTTP/1.1 and HTTP/2.",
	"ErrorCounts.connect":       "The TCP connection or TLS handshake failed, or a WebSocket opening handshake did not complete.",
	"ErrorCounts.timeout":       "The request's timeout passed (connect to last byte).",
	"ErrorCounts.reset":         "The peer reset or closed the connection mid-exchange.",
	"ErrorCounts.status":        "The status code is not in expect.status (default 200–399), or a WebSocket handshake was not answered with 101.",
	"ErrorCounts.length":        "The body length differs from expect.length, or exceeds max_body.",
	"ErrorCounts.check":         "expect.body_contains or expect.body_regex failed.",
	"ErrorCounts.extract":       "A flow step's extract: found nothing to take.",
	"ErrorCounts.protocol":      "The response is not valid HTTP/1.x, or a WebSocket message or frame broke the protocol or its limits.",
	"ErrorCounts.other":         "Any other error.",
	"NamedResult.name":          "The request's or flow step's name.",
	"NamedResult.latency":       "Latency of the named request's succeeded requests.",
	"Rate.from":                 "Requested arrival rate at the phase's start, requests/s.",
	"Rate.to":                   "Requested arrival rate at the phase's end, requests/s (from = to for a constant rate).",
	"Second.p99_ns":             "p99 of the second's succeeded requests.",
	"Generator.saturated":       "The generator could not keep up: the phase measured loadgate, not the target, and is invalid.",
	"Generator.reason":          "Why the generator counts as saturated, in words.",
	"IterationResult.latency":   "Duration of the succeeded iterations, from the first step's start to the last step's end.",
	"IterationStats.iterations": "Iterations completed: succeeded + failed.",
	"IterationStats.succeeded":  "Iterations whose every step succeeded.",
	"IterationStats.failed":     "Iterations ended by a failed step.",
	"IterationStats.latency":    "Duration of the succeeded iterations.",
	"Probe.requests":            "Requests completed during the probe's measured part.",
	"Probe.failed":              "Requests of the probe that failed.",
	"Probe.error_rate":          "failed / requests.",
	"Probe.p50_ns":              "p50 of the probe's succeeded requests.",
	"Probe.p99_ns":              "p99 of the probe's succeeded requests.",
	"Probe.start":               "When the probe started.",
	"Probe.elapsed_ns":          "The probe's measured wall time.",
	"SearchResult.probes":       "Every probe in the order it ran.",
	"SearchResult.fail":         "The lowest failing rate, requests/s; 0 when no probe failed.",
	"Trial.requests":            "Requests the trial completed.",
	"Trial.failed":              "Requests of the trial that failed.",
	"Trial.dropped":             "Open model: arrivals of the trial never sent (max_in_flight).",
	"Trial.elapsed_ns":          "The trial's measured wall time.",
	"Trial.rps":                 "The trial's succeeded requests per second.",
	"Trial.p50_ns":              "p50 of the trial's succeeded requests.",
	"Trial.p99_ns":              "p99 of the trial's succeeded requests.",
	"PhaseResult.trials_stop":   `Why adaptive trials stopped: "decisive", "max", "no judge" or "interrupted"; absent for a fixed count.`,
	"Stats.connect":             "Connection set-up (TCP handshake + TLS) of every new connection.",
	"Stats.search":              "The case's last capacity search: its probes and what they found; absent without one.",
	"Distribution.min_ns":       "Smallest sample.",
	"Distribution.mean_ns":      "Mean of the samples.",
	"Distribution.max_ns":       "Largest sample.",
	"Distribution.stddev_ns":    "Standard deviation of the samples.",
	"Distribution.p50_ns":       "50th percentile.",
	"Distribution.p90_ns":       "90th percentile.",
	"Distribution.p95_ns":       "95th percentile.",
	"Distribution.p99_ns":       "99th percentile.",
	"Distribution.p999_ns":      "99.9th percentile.",
	"Spread.n":                  "Number of trials.",
	"Spread.rps_median":         "Median of the trials' rps.",
	"Spread.rps_min":            "Lowest trial rps.",
	"Spread.rps_max":            "Highest trial rps.",
	"Spread.p99_median_ns":      "Median of the trials' p99.",
	"Spread.p99_min_ns":         "Lowest trial p99.",
	"Spread.p99_max_ns":         "Highest trial p99.",
	"NamedStats.name":           "The request's or flow step's name.",
	"NamedStats.error_rate":     "failed / requests.",
	"Verdict.phase":             "The phase the rule was judged on; absent when judged on the whole case.",
	"Verdict.rule":              "The threshold's expression.",
	"Verdict.severity":          "fail: a failing rule fails the run; warn: it is reported only.",
	"Verdict.status":            "pass, fail, skip (could not be judged), error (evaluation failed at run time), inconclusive (regressed() could not decide), incomparable (the baseline measured another load: case.load differs) or not_judged (the run is invalid).",
	"Pos.file":                  "Scenario file of the rule.",
	"Pos.line":                  "Line of the rule, 1-based.",
	"Pos.col":                   "Column of the rule, 1-based.",
	"CaseBaseline.p50_ns":       "The baseline case's p50 (median trial's with trials).",
	"CaseBaseline.p99_ns":       "The baseline case's p99 (median trial's with trials).",
	"CaseBaseline.error_rate":   "The baseline case's error rate.",
	"SearchSpec.phase":          "Name of the capacity-search phase.",
	"SearchSpec.slo":            "The search's SLO expression, as written.",
	"Usage.pid":                 "Process ID of the server or monitored process.",
	"Usage.samples":             "How many times it was sampled.",
	"Usage.cpu_max":             "Highest CPU use, percent of one core.",
	"Usage.rss_max":             "Highest resident memory, bytes, summed over the process tree.",
	"Usage.series":              "The samples in time order.",
	"UsagePoint.at":             "When the sample was taken.",
	"UsagePoint.rss":            "Resident memory, bytes, summed over the process tree.",
	"UsagePoint.load1":          "The host's 1-minute load average.",
}

// markdown is the field reference of docs/results.md: one table per type,
// in the order a reader meets them from the top of the document.
func (m *schemaModel) markdown() string {
	var b strings.Builder
	for i, d := range m.defs {
		name := d.name
		if i == 0 {
			name = "Run (the document)"
		}
		fmt.Fprintf(&b, "### %s\n\n%s\n\n| field | type | always there | description |\n|---|---|---|---|\n", name, mdCell(d.doc))
		for _, f := range d.fields {
			always := ""
			if f.required {
				always = "yes"
			}
			kind := m.mdKind(f.kind)
			if f.nullable {
				kind += ", or null"
			}
			fmt.Fprintf(&b, "| `%s` | %s | %s | %s |\n", f.name, kind, always, mdCell(f.doc))
		}
		b.WriteString("\n")
	}
	return b.String()
}

// mdKind links the names of the document's types to their tables.
func (m *schemaModel) mdKind(kind string) string {
	words := strings.Fields(kind)
	for i, w := range words {
		for _, d := range m.defs[1:] {
			if w == d.name {
				words[i] = fmt.Sprintf("[%s](#%s)", w, strings.ToLower(w))
			}
		}
	}
	return strings.Join(words, " ")
}

func mdCell(s string) string {
	return strings.ReplaceAll(s, "|", `\|`)
}
