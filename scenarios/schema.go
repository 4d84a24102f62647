package scenarios

import (
	_ "embed"
	"slices"
)

//go:embed schema.json
var schemaJSON []byte

// Schema returns the JSON Schema (draft-07) of the scenario format, for
// editors: yaml-language-server picks it up from a
// `# yaml-language-server: $schema=<path>` comment in a scenario file.
// The caller owns the returned slice.
func Schema() []byte {
	return slices.Clone(schemaJSON)
}
