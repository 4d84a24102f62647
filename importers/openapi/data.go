package openapi

import (
	"bytes"
	"encoding/csv"
)

// dataSource is the name of the data source the flows read parameters
// from.
const dataSource = "params"

// dataSet is the CSV file of the parameters without a value in the
// description: a column per parameter name, and one row of placeholders
// to be replaced by real values.
type dataSet struct {
	cols    []string
	placeby []string          // the placeholder row
	byParam map[string]string // parameter name → column
	taken   map[string]bool
}

func newDataSet() *dataSet {
	return &dataSet{byParam: map[string]string{}, taken: map[string]bool{}}
}

// column is the column for a parameter, the same for every operation
// with a parameter of that name.
func (d *dataSet) column(param, placeholder string) string {
	if c, ok := d.byParam[param]; ok {
		return c
	}
	col := freeName(param, "p_", d.taken)
	d.byParam[param] = col
	d.cols = append(d.cols, col)
	if placeholder == "" {
		placeholder = "x" // an empty field would read as no value at all
	}
	d.placeby = append(d.placeby, placeholder)
	return col
}

// csv is the file: the header row and the placeholder row.
func (d *dataSet) csv() []byte {
	var b bytes.Buffer
	w := csv.NewWriter(&b)
	_ = w.Write(d.cols) // a bytes.Buffer does not fail
	_ = w.Write(d.placeby)
	w.Flush()
	return b.Bytes()
}
