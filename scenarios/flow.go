package scenarios

import (
	"regexp"
	"time"
)

// Flow is an HTTP target whose iteration is an ordered list of steps, not
// one request of a weighted mix (SPEC §12): log in, carry the token,
// create something, read it back by its id. A virtual user (a worker) runs
// Setup once, then Steps for every iteration. Each step is a named request
// everywhere (requests_by_name); the iteration is measured as a whole too.
type Flow struct {
	// Setup runs once per virtual user before its first iteration. Its
	// requests are not measured: they are neither counted in rps nor in
	// any histogram. A failed setup step fails every iteration of that
	// user with the step's error kind until the user's next attempt.
	Setup []Step
	// Steps is one iteration, at least one step, in order. A failed step
	// (a status, check or extract failure, or a transport error) ends the
	// iteration: later steps are not sent.
	Steps []Step
	// Vars is the flow's variable table, which {{name}} placeholders and
	// extractions index by slot: the data columns first, in column order,
	// then the extracted names in order of first appearance.
	Vars []string
	// Data is the test data rows drawn by the virtual users; nil = none.
	Data *DataSource
	// Cookies keeps a cookie jar per virtual user: Set-Cookie of a
	// response is sent back on later requests of the same user.
	Cookies bool
}

// Step is one request of a flow or of its setup.
type Step struct {
	Name   string // unique within the target across setup and steps; the requests_by_name key
	Pos    Pos
	Method string // upper-case; default GET
	// URL renders to an absolute http:// or https:// URL: the step's `url:`,
	// or its `path:` (with query) resolved against the target's `url`.
	URL     Template
	Headers []HeaderTemplate // in file order, after the target's own headers
	Body    Template         // `body:` or the contents of `body_file:`
	// Expect holds the step's checks; a step without expect: gets the
	// target's.
	Expect Expect
	// Extract runs in order after the checks pass; a failed extraction is
	// an "extract" error that ends the iteration.
	Extract []Extraction
	// ThinkTime is a pause after the step, excluded from its latency and
	// from the iteration's.
	ThinkTime time.Duration
}

// HeaderTemplate is one request header whose value may hold placeholders.
type HeaderTemplate struct {
	Name  string
	Value Template
}

// ExtractKind is where an extraction reads its value.
type ExtractKind uint8

// The kinds of extraction.
const (
	// ExtractJSON reads Path, a gjson path, from a JSON body; strings are
	// taken without their quotes, other values as written.
	ExtractJSON ExtractKind = iota
	// ExtractHeader reads the first value of the response header Path
	// (canonical form).
	ExtractHeader
	// ExtractRegex reads the first capture group of Regex matched against
	// the body.
	ExtractRegex
)

// Extraction takes one value from a step's response into a flow variable.
type Extraction struct {
	Var   string // the variable set; {{Var}} reads it in later steps
	Slot  int    // Var's index in Flow.Vars
	Kind  ExtractKind
	Path  string         // ExtractJSON: gjson path; ExtractHeader: header name
	Regex *regexp.Regexp // ExtractRegex: has at least one capture group
	Pos   Pos
}

// DataFormat is how a data file is written.
type DataFormat uint8

// The data file formats.
const (
	DataCSV       DataFormat = iota // a header row of column names, then one row per line
	DataJSONLines                   // one JSON object per line; its keys are the columns
)

// DataOrder is how virtual users draw rows.
type DataOrder uint8

// The orders rows are drawn in.
const (
	// DataSequential hands out rows in file order, shared by all users.
	DataSequential DataOrder = iota
	// DataRandom draws each row uniformly at random; rows repeat.
	DataRandom
	// DataUnique hands out every row at most once in the whole run,
	// across --segment parts too: each part owns a disjoint slice.
	DataUnique
)

// DataPer says when a virtual user draws a new row.
type DataPer uint8

// When rows are drawn.
const (
	// PerIteration draws a row for setup when the user starts, and a new
	// row for every iteration.
	DataPerIteration DataPer = iota
	// PerUser draws one row when the user starts; setup and every
	// iteration of that user see it.
	DataPerUser
)

// DataExhausted is what happens when a sequential or unique source has
// handed out its last row.
type DataExhausted uint8

// The policies for an exhausted data source.
const (
	// ExhaustedStop ends the phase for the user that found no row (the
	// others finish their iterations); the phase ends when all have.
	ExhaustedStop DataExhausted = iota
	// ExhaustedRecycle starts again from the first row; with DataUnique
	// rows are then handed out again, so unique holds only per cycle.
	ExhaustedRecycle
)

// DataSource is a test data file, read and checked when the scenario is
// loaded: every row has every column.
type DataSource struct {
	File        string // path as resolved against the scenario file
	Format      DataFormat
	Columns     []string   // in file order (CSV header; JSON keys of the first line, sorted)
	Rows        [][]string // every row, len(row) == len(Columns)
	Order       DataOrder
	Per         DataPer
	OnExhausted DataExhausted
	Pos         Pos
}
