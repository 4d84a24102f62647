package openapi

import (
	"strings"
	"unicode"

	"go.yaml.in/yaml/v3"

	"github.com/loadgate/loadgate/importers/emit"
)

// esc writes text from the description so that loadgate reads it back
// as written (emit.Escape); no variable follows it.
func esc(s string, templated bool) string { return emit.Escape(s, templated, false) }

// flowMapping is a one-line mapping of nodes already made.
func flowMapping(kv ...*yaml.Node) *yaml.Node {
	return &yaml.Node{Kind: yaml.MappingNode, Style: yaml.FlowStyle, Content: kv}
}

// printable is s with what YAML cannot write in a string replaced, so
// that a description's odd bytes never make an unreadable scenario.
func printable(s string) string {
	return strings.Map(func(r rune) rune {
		if r == unicode.ReplacementChar || (r < 0x20 && r != '\t' && r != '\n' && r != '\r') || r == 0x7f {
			return '?'
		}
		return r
	}, strings.ToValidUTF8(s, "?"))
}
