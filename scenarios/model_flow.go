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
	// any histogram. A failed setup step fails the user's iteration with
	// the step's error kind; the user runs setup again before its next.
	Setup []Step
	// Steps is one iteration, at least one step, in order. A failed step
	// (a status, check or extract failure, or a transport error) ends the
	// iteration: later steps are not sent.
	Steps []Step
	// Vars is the flow's variable table, which {{name}} placeholders and
	// extractions index by slot: the data columns it uses first, then the
	// extracted names, each in order of first appearance.
	Vars []FlowVar
	// SetupData lists the data sources (indexes into Scenario.Data) whose
	// columns setup uses: each draws one row per virtual user, for setup.
	SetupData []int
	// StepData lists the data sources whose columns the steps use: each
	// draws one row per iteration.
	StepData []int
	// Cookies keeps a cookie jar per virtual user: Set-Cookie of a
	// response is sent back on later requests of the same user.
	Cookies bool
}

// FlowVar is one entry of a flow's variable table.
type FlowVar struct {
	Name   string // "token" (extracted), or "users.name" (a data column)
	Source int    // index into Scenario.Data of a data column; -1 for an extracted value
	Column int    // the column's index in that source's Columns
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
