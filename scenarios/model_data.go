package scenarios

// DataFormat is how a data file is written.
type DataFormat uint8

// The data file formats.
const (
	DataCSV       DataFormat = iota // a header row of column names, then one row per line
	DataJSONLines                   // one JSON object per line; its keys are the columns
)

// DataMode is how rows are handed out.
type DataMode uint8

// The modes of a data source (`mode:`); sequential is the default.
const (
	// DataSequential hands out rows in file order, shared by all users.
	DataSequential DataMode = iota
	// DataRandom draws each row uniformly at random; rows repeat.
	DataRandom
	// DataUnique hands out every row at most once in the whole run,
	// across workers, phases and cases, and across --segment parts too:
	// each part owns a disjoint slice of the rows (see Split).
	DataUnique
)

// DataExhausted is what happens when a sequential or unique source has
// handed out its last row.
type DataExhausted uint8

// The policies for an exhausted data source (`on_exhausted:`).
const (
	// ExhaustedRecycle starts again from the first row (the default for
	// sequential; unique then holds per cycle only).
	ExhaustedRecycle DataExhausted = iota
	// ExhaustedStop ends the phase cleanly: a user that finds no row
	// stops, and the phase ends when every user has (the default for
	// unique).
	ExhaustedStop
)

// DataSource is one named entry of `data:`, a test data file read and
// checked when the scenario is loaded: every row has every column.
type DataSource struct {
	Name        string // the name placeholders use: {{users.name}}
	File        string // path as resolved against the scenario file
	Format      DataFormat
	Columns     []string   // CSV header order; JSON lines: the keys of the first line, sorted
	Rows        [][]string // every row, len(row) == len(Columns)
	Mode        DataMode
	OnExhausted DataExhausted
	Pos         Pos
}
