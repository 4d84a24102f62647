// Package emit holds what the importers share to write a scenario: YAML
// nodes with comments, values escaped so that loadgate reads them back as
// they were, and loadgate's rules for which names hold credentials.
package emit

import (
	"bytes"
	"fmt"
	"net"
	"slices"
	"strings"
	"unicode"

	"go.yaml.in/yaml/v3"

	"github.com/loadgate/loadgate/scenarios"
)

// Escape writes $ as $$ where loadgate would read it as the start of a
// variable (before { or $, or before a variable that follows), and {{ as
// {{"{{"}} in templates.
func Escape(s string, templated, refFollows bool) string {
	if templated {
		s = strings.ReplaceAll(s, "{{", `{{"{{"}}`)
	}
	if !strings.Contains(s, "$") {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '$' && (i+1 == len(s) && refFollows || i+1 < len(s) && (s[i+1] == '{' || s[i+1] == '$')) {
			b.WriteByte('$')
		}
		b.WriteByte(s[i])
	}
	return b.String()
}

// Str is a string scalar, quoted where YAML would read it as another type.
func Str(s string) *yaml.Node { return &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: s} }

// Plain is a scalar written as it is: a number, a boolean, a duration.
func Plain(s string) *yaml.Node {
	return &yaml.Node{Kind: yaml.ScalarNode, Value: s}
}

// Mapping is a YAML mapping being written, in key order.
type Mapping struct{ N *yaml.Node }

// NewMapping is an empty block mapping.
func NewMapping() Mapping { return Mapping{&yaml.Node{Kind: yaml.MappingNode}} }

// Set adds key: value; comment, if any, goes above the key.
func (m Mapping) Set(key string, value *yaml.Node, comment ...string) {
	k := Str(key)
	k.HeadComment = CommentText(comment)
	m.N.Content = append(m.N.Content, k, value)
}

// CommentText joins comment lines, each line's text made printable: what
// came from the imported input must not end a comment early (U+2028 is a
// line break to YAML) or hold what YAML cannot write.
func CommentText(lines []string) string {
	var b strings.Builder
	for i, line := range lines {
		for j, l := range strings.Split(line, "\n") {
			if i+j > 0 {
				b.WriteByte('\n')
			}
			for _, r := range l {
				if unicode.IsPrint(r) || r == ' ' {
					b.WriteRune(r)
				} else {
					fmt.Fprintf(&b, "\\u%04X", r)
				}
			}
		}
	}
	return b.String()
}

// Flow is a one-line mapping {k: v, …} of plain values.
func Flow(kv ...string) *yaml.Node {
	m := NewMapping()
	m.N.Style = yaml.FlowStyle
	for i := 0; i+1 < len(kv); i += 2 {
		m.N.Content = append(m.N.Content, Str(kv[i]), Plain(kv[i+1]))
	}
	return m.N
}

// Seq is a block sequence of items.
func Seq(items ...*yaml.Node) *yaml.Node {
	return &yaml.Node{Kind: yaml.SequenceNode, Content: items}
}

// Comments is notes as a comment, each once.
func Comments(notes []string) string {
	var out []string
	for _, n := range notes {
		out = AppendNew(out, n)
	}
	return CommentText(out)
}

// AppendNew appends s unless list holds it.
func AppendNew(list []string, s string) []string {
	if slices.Contains(list, s) {
		return list
	}
	return append(list, s)
}

// Encode writes the document with two-space indentation.
func Encode(doc *yaml.Node) ([]byte, error) {
	var buf bytes.Buffer
	enc := yaml.NewEncoder(&buf)
	enc.SetIndent(2)
	if err := enc.Encode(doc); err != nil {
		return nil, fmt.Errorf("write the scenario: %w", err)
	}
	if err := enc.Close(); err != nil {
		return nil, fmt.Errorf("write the scenario: %w", err)
	}
	return buf.Bytes(), nil
}

// HostName names a scenario or target after a host: "local" for
// localhost or an address, "imported" where the host gives no name.
func HostName(host string) string {
	if name, ok := scenarios.NameOfHost(host); ok {
		return name
	}
	if h := strings.ToLower(host); h == "localhost" || net.ParseIP(h) != nil {
		return "local"
	}
	return "imported"
}
