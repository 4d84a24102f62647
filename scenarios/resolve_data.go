package scenarios

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
)

// dataSet is what the decoder knows of `data:` while flows are resolved.
type dataSet struct {
	sources []*DataSource
	raw     []*rawData
	// loaded is false for a source whose file could not be read (an
	// error already, unless the parse is judge-only): its columns are
	// unknown, so any is accepted.
	loaded []bool
}

// index returns the position of the source called name, or -1.
func (ds *dataSet) index(name string) int {
	return slices.IndexFunc(ds.sources, func(s *DataSource) bool { return s.Name == name })
}

func (ds *dataSet) names() []string {
	out := make([]string, len(ds.sources))
	for i, s := range ds.sources {
		out[i] = s.Name
	}
	return out
}

// dataSources resolves `data:` once for the whole scenario and reads every
// file, so that a bad row stops the run before anything is sent.
func (d *decoder) dataSources(r *resolver, raw []*rawData) {
	for _, rd := range raw {
		if !rd.ok {
			continue
		}
		name := rd.key.Value
		if !validVarName(name) {
			d.errorf(rd.key, "data: %q is not a valid source name (letters, digits and _, not starting with a digit)", name)
			continue
		}
		src, loaded := d.dataSource(r, rd, name)
		if src == nil {
			continue
		}
		d.data.sources = append(d.data.sources, src)
		d.data.raw = append(d.data.raw, rd)
		d.data.loaded = append(d.data.loaded, loaded)
	}
}

// dataSource resolves one source; loaded says whether its rows were read.
func (d *decoder) dataSource(r *resolver, rd *rawData, name string) (*DataSource, bool) {
	label := "data." + name
	src := &DataSource{Name: name, Pos: d.pos(rd.key)}
	if rd.file == nil {
		d.errorf(rd.node, "%s: missing required field %q", label, "file")
		return nil, false
	}
	file, ok := r.text(rd.file)
	if !ok {
		return nil, false
	}
	src.File = d.relPath(file)
	src.Format = d.dataFormat(r, rd, label, file)
	src.Mode, src.OnExhausted = d.dataMode(r, rd, label)
	// A source whose file is missing or bad is still registered, without
	// columns, so that its uses are not reported as unknown names too.
	data, msg := d.readFile(file)
	if msg != "" {
		if !d.judgeOnly {
			d.errorf(rd.file, "%s: cannot read %q: %s", label, file, msg)
		}
		return src, false
	}
	var line int
	if src.Format == DataJSONLines {
		src.Columns, src.Rows, line, msg = parseJSONLines(data)
	} else {
		src.Columns, src.Rows, line, msg = parseCSV(data)
	}
	if msg != "" {
		at := file
		if line > 0 {
			at = fmt.Sprintf("%s:%d", file, line)
		}
		d.errorf(rd.file, "%s: %s: %s", label, at, msg)
		return src, false
	}
	return src, true
}

// dataFormat is `format:`, or else what the file's extension says.
func (d *decoder) dataFormat(r *resolver, rd *rawData, label, file string) DataFormat {
	text, n := "", rd.format
	if n != nil {
		text, _ = r.text(n)
	} else {
		n = rd.file
		switch ext := strings.ToLower(filepath.Ext(file)); ext {
		case ".csv":
			text = "csv"
		case ".jsonl", ".ndjson":
			text = "jsonl"
		default:
			d.errorf(n, "%s: cannot tell the format of %q from its extension (.csv, .jsonl or .ndjson); set format: csv or format: jsonl", label, file)
			return DataCSV
		}
	}
	if f, known := findWord(dataFormatWords, text); known {
		return f
	}
	d.errorf(n, "%s.format: expected %s, got %q", label, expected(dataFormatWords), text)
	return DataCSV
}

// dataMode resolves `mode:` and `on_exhausted:` with their defaults.
func (d *decoder) dataMode(r *resolver, rd *rawData, label string) (DataMode, DataExhausted) {
	mode := DataSequential
	if rd.mode != nil {
		s, _ := r.text(rd.mode)
		if m, known := findWord(dataModeWords, s); known {
			mode = m
		} else {
			d.errorf(rd.mode, "%s.mode: expected %s, got %q", label, expected(dataModeWords), s)
		}
	}
	policy := ExhaustedRecycle
	if mode == DataUnique {
		policy = ExhaustedStop
	}
	if rd.onExhausted != nil {
		s, _ := r.text(rd.onExhausted)
		p, known := findWord(exhaustedWords, s)
		switch {
		case mode == DataRandom:
			d.errorf(rd.onExhausted, "%s.on_exhausted: a random source draws rows forever and is never exhausted", label)
		case known:
			policy = p
		default:
			d.errorf(rd.onExhausted, "%s.on_exhausted: expected %s, got %q", label, expected(exhaustedWords), s)
		}
	}
	return mode, policy
}

// parseCSV reads a CSV data file: a header row naming the columns, then
// rows of exactly as many fields. A problem comes with its line (0 when
// it concerns the whole file).
func parseCSV(data []byte) (cols []string, rows [][]string, line int, msg string) {
	data = bytes.TrimPrefix(data, []byte("\ufeff"))
	rd := csv.NewReader(bytes.NewReader(data))
	rd.FieldsPerRecord = -1 // ragged rows are reported below, with both counts
	header, err := rd.Read()
	switch {
	case errors.Is(err, io.EOF):
		return nil, nil, 0, "the file is empty; a CSV data file starts with a header row naming its columns"
	case err != nil:
		return nil, nil, csvLine(err), csvMessage(err)
	}
	if msg := checkHeader(header); msg != "" {
		return nil, nil, 1, msg
	}
	for {
		rec, err := rd.Read()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, nil, csvLine(err), csvMessage(err)
		}
		if len(rec) != len(header) {
			l, _ := rd.FieldPos(0)
			return nil, nil, l, fmt.Sprintf("the row has %d fields, the header has %d", len(rec), len(header))
		}
		rows = append(rows, rec)
	}
	if len(rows) == 0 {
		return nil, nil, 0, "the file has a header row but no data rows"
	}
	return header, rows, 0, ""
}

// checkHeader refuses a first row that cannot be a header: an empty or
// repeated name, or a number, which means the file starts with data.
func checkHeader(header []string) string {
	seen := map[string]int{}
	for i, name := range header {
		switch _, numErr := strconv.ParseFloat(strings.TrimSpace(name), 64); {
		case strings.TrimSpace(name) == "":
			return fmt.Sprintf("column %d of the header row has no name; the first row names the columns", i+1)
		case numErr == nil:
			return fmt.Sprintf("the header row names a column %q: the first row must name the columns, not hold data", name)
		}
		if j, dup := seen[name]; dup {
			return fmt.Sprintf("the header row names column %q twice (columns %d and %d)", name, j+1, i+1)
		}
		seen[name] = i
	}
	return ""
}

func csvLine(err error) int {
	var pe *csv.ParseError
	if errors.As(err, &pe) {
		return pe.Line
	}
	return 0
}

func csvMessage(err error) string {
	var pe *csv.ParseError
	if errors.As(err, &pe) {
		return pe.Err.Error()
	}
	return err.Error()
}

// parseJSONLines reads a JSON lines data file: one object of scalar values
// per non-blank line, every line with the keys of the first. Numbers keep
// their text; null is the empty string.
func parseJSONLines(data []byte) (cols []string, rows [][]string, line int, msg string) {
	lines := bytes.Split(data, []byte("\n"))
	for i, text := range lines {
		text = bytes.TrimSpace(text)
		if len(text) == 0 {
			continue
		}
		obj, msg := jsonObject(text)
		if msg != "" {
			return nil, nil, i + 1, msg
		}
		if cols == nil {
			for k := range obj {
				cols = append(cols, k)
			}
			slices.Sort(cols)
			if len(cols) == 0 {
				return nil, nil, i + 1, "the first object has no keys; its keys name the columns"
			}
		}
		row := make([]string, len(cols))
		for j, c := range cols {
			v, ok := obj[c]
			if !ok {
				return nil, nil, i + 1, fmt.Sprintf("key %q is missing (every line has the keys of the first)", c)
			}
			row[j] = v
		}
		if len(obj) > len(cols) {
			for k := range obj {
				if !slices.Contains(cols, k) {
					return nil, nil, i + 1, fmt.Sprintf("key %q is not in the first line (every line has the keys of the first)", k)
				}
			}
		}
		rows = append(rows, row)
	}
	if len(rows) == 0 {
		return nil, nil, 0, "the file has no rows; write one JSON object per line"
	}
	return cols, rows, 0, ""
}

// jsonObject decodes one line into its keys and their values as text.
func jsonObject(text []byte) (map[string]string, string) {
	dec := json.NewDecoder(bytes.NewReader(text))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, fmt.Sprintf("not valid JSON: %v", err)
	}
	if dec.More() {
		return nil, "more than one JSON value on the line; write one object per line"
	}
	obj, ok := v.(map[string]any)
	if !ok {
		return nil, "expected a JSON object, one per line"
	}
	out := make(map[string]string, len(obj))
	for k, val := range obj {
		switch x := val.(type) {
		case nil:
			out[k] = ""
		case string:
			out[k] = x
		case json.Number:
			out[k] = x.String()
		case bool:
			out[k] = strconv.FormatBool(x)
		default:
			return nil, fmt.Sprintf("key %q holds an object or a list; a data row holds strings, numbers, booleans or null", k)
		}
	}
	return out, ""
}

// checkUnique reports a unique source that setup draws from and that has
// fewer rows than a phase has virtual users: each user takes its own row
// for setup, so some users could never start. Open-model phases are not
// checked, their number of users being known only at run time.
func (d *decoder) checkUnique(s *Scenario) {
	for i, src := range d.data.sources {
		if src.Mode != DataUnique || !d.data.loaded[i] {
			continue
		}
		most, where := 0, ""
		for _, c := range s.Cases {
			h := c.Target.HTTP
			if h == nil || h.Flow == nil || !slices.Contains(h.Flow.SetupData, i) {
				continue
			}
			for _, ph := range c.Phases {
				if !ph.Rate.Open() && ph.Concurrency > most {
					most, where = ph.Concurrency, fmt.Sprintf("phase %q of case %q", ph.Name, c.ID)
				}
			}
		}
		if most > len(src.Rows) {
			n := d.data.raw[i].mode
			if n == nil {
				n = d.data.raw[i].key
			}
			d.errorf(n, "data.%s: mode unique gives every virtual user its own row for setup, but %s runs %d virtual users and the file has %d rows",
				src.Name, where, most, len(src.Rows))
		}
	}
}

// dataColumn resolves {{source.column}}: the source's index and the
// column's, or a message saying which part is unknown.
func (d *decoder) dataColumn(name string) (src, col int, msg string) {
	srcName, colName, _ := strings.Cut(name, ".")
	src = d.data.index(srcName)
	if src < 0 {
		return -1, -1, fmt.Sprintf("unknown placeholder {{%s}}: there is no data source named %q%s", name, srcName, suggest(srcName, d.data.names()))
	}
	if !d.data.loaded[src] {
		return src, -1, "" // a judge-only parse: the columns are unknown
	}
	cols := d.data.sources[src].Columns
	col = slices.Index(cols, colName)
	if col < 0 {
		return -1, -1, fmt.Sprintf("unknown placeholder {{%s}}: data source %q has no column %q%s (its columns: %s)",
			name, srcName, colName, suggest(colName, cols), strings.Join(cols, ", "))
	}
	return src, col, ""
}
