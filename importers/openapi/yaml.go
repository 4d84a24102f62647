package openapi

import (
	"bytes"
	"fmt"
	"strings"
	"unicode"

	"go.yaml.in/yaml/v3"
)

// esc writes text from the description so that loadgate reads it back
// as written: a `$` before `{` or `$` doubled (loadgate's variables),
// and in flows, where `{{` starts a placeholder, `{{` as {{"{{"}}.
func esc(s string, templated bool) string {
	if strings.Contains(s, "$") {
		var b strings.Builder
		for i := 0; i < len(s); i++ {
			if s[i] == '$' && i+1 < len(s) && (s[i+1] == '{' || s[i+1] == '$') {
				b.WriteByte('$')
			}
			b.WriteByte(s[i])
		}
		s = b.String()
	}
	if templated {
		s = strings.ReplaceAll(s, "{{", `{{"{{"}}`)
	}
	return s
}

func strNode(s string) *yaml.Node { return &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: s} }
func plainNode(s string) *yaml.Node {
	return &yaml.Node{Kind: yaml.ScalarNode, Value: s}
}

type mapping struct{ n *yaml.Node }

func newMapping() mapping { return mapping{&yaml.Node{Kind: yaml.MappingNode}} }

// set adds key: value; comment, if any, goes above the key.
func (m mapping) set(key string, value *yaml.Node, comment ...string) {
	k := strNode(key)
	k.HeadComment = commentText(comment)
	m.n.Content = append(m.n.Content, k, value)
}

func flowMapping(kv ...*yaml.Node) *yaml.Node {
	m := &yaml.Node{Kind: yaml.MappingNode, Style: yaml.FlowStyle, Content: kv}
	return m
}

func seq(items ...*yaml.Node) *yaml.Node {
	return &yaml.Node{Kind: yaml.SequenceNode, Content: items}
}

// commentText joins comment lines, each made printable: text from the
// description must not end a comment early (U+2028 is a line break to
// YAML) or hold what YAML cannot write.
func commentText(lines []string) string {
	var b strings.Builder
	n := 0
	for _, line := range lines {
		for _, l := range strings.Split(line, "\n") {
			if n > 0 {
				b.WriteByte('\n')
			}
			n++
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

// encode writes the document with two-space indentation.
func encode(doc *yaml.Node) ([]byte, error) {
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
