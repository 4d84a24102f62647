package results

import (
	_ "embed"
	"slices"
)

// resultsSchemaJSON is generated from the Go types of the results document
// (Run and everything it holds) by TestResultsSchemaIsCurrent with -update,
// which fails whenever a type changes without the schema following it.
//
//go:embed results.schema.json
var resultsSchemaJSON []byte

// ResultsSchema returns the JSON Schema (draft 2020-12) of the results
// document, results.json, for tools that read it. The caller owns the
// returned slice.
func ResultsSchema() []byte {
	return slices.Clone(resultsSchemaJSON)
}
