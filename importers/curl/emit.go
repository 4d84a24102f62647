package curl

import (
	"bytes"
	"fmt"
	"strings"
	"unicode"

	"go.yaml.in/yaml/v3"
)

// The load an imported scenario starts with: modest, since the requests
// may go to a real service, and variables so that --var changes it.
const (
	defaultDuration    = "10s"
	defaultConcurrency = "2"
	defaultWarmup      = "2s"
)

// reservedVars are the variables the scenario defines itself.
var reservedVars = []string{"duration", "concurrency", "warmup"}

// emitter writes the scenario and hands out its variables.
type emitter struct {
	opts  Options
	reqs  []*built
	vars  []*variable
	taken map[string]*variable // by name
	byKey map[string]*variable // generated secrets, by what they hold
}

type variable struct {
	name, comment string
	secret        bool
}

func newEmitter(reqs []*built, opts Options) *emitter {
	e := &emitter{opts: opts, reqs: reqs, taken: map[string]*variable{}, byKey: map[string]*variable{}}
	for _, name := range reservedVars {
		e.taken[name] = &variable{name: name}
	}
	return e
}

// shellVars declares the shell variables the requests use, secret when one
// is used in a credential.
func (e *emitter) shellVars() {
	secret := map[string]bool{}
	for _, b := range e.reqs {
		for i := range b.headers {
			hideHeader(&b.headers[i], secret)
		}
		hideQuery(b, secret)
	}
	for _, b := range e.reqs {
		for _, w := range b.words() {
			for _, ref := range w.Refs {
				if ref.secret != nil {
					continue
				}
				if _, ok := e.taken[ref.Name]; ok {
					continue
				}
				v := &variable{name: ref.Name, secret: secret[ref.Name]}
				if v.secret {
					v.comment = fmt.Sprintf("$%s of the curl command, a credential:\n--secret-var %s=… or LOADGATE_SECRET_VAR_%s", ref.Name, ref.Name, ref.Name)
				} else {
					v.comment = fmt.Sprintf("$%s of the curl command:\n--var %s=… or LOADGATE_VAR_%s", ref.Name, ref.Name, ref.Name)
				}
				e.add(v)
			}
		}
	}
}

func (e *emitter) add(v *variable) {
	e.taken[v.name] = v
	e.vars = append(e.vars, v)
}

// secretVar is the variable that holds a credential, the same one for the
// same credential wherever it is used.
func (e *emitter) secretVar(s *secretSpan) string {
	if v, ok := e.byKey[s.key]; ok {
		return v.name
	}
	name := s.hint
	for n := 2; e.taken[name] != nil; n++ {
		name = fmt.Sprintf("%s_%d", s.hint, n)
	}
	v := &variable{name: name, secret: true,
		comment: s.what + ", kept out of this file:\n" + strings.Replace(s.howTo, "NAME", name, 1) + " or LOADGATE_SECRET_VAR_" + name}
	e.byKey[s.key] = v
	e.add(v)
	return name
}

// text is w as a scenario value: literal `$` and, where placeholders are
// read (flows), `{{` escaped, and every variable written ${name}.
func (e *emitter) text(w Word, templated bool) string {
	var b strings.Builder
	last := 0
	for _, ref := range w.Refs {
		b.WriteString(escape(w.Text[last:ref.Off], templated, true))
		name := ref.Name
		if ref.secret != nil {
			name = e.secretVar(ref.secret)
		}
		b.WriteString("${" + name + "}")
		last = ref.End
	}
	b.WriteString(escape(w.Text[last:], templated, false))
	return b.String()
}

// escape writes $ as $$ where loadgate would read it as the start of a
// variable (before { or $, or before a variable that follows), and {{ as
// {{"{{"}} in templates.
func escape(s string, templated, refFollows bool) string {
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

// Node builders.

func str(s string) *yaml.Node { return &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: s} }
func plain(s string) *yaml.Node {
	return &yaml.Node{Kind: yaml.ScalarNode, Value: s}
}

type mapping struct{ n *yaml.Node }

func newMapping() mapping { return mapping{&yaml.Node{Kind: yaml.MappingNode}} }

// set adds key: value; comment, if any, goes above the key.
func (m mapping) set(key string, value *yaml.Node, comment ...string) {
	k := str(key)
	k.HeadComment = commentText(comment)
	m.n.Content = append(m.n.Content, k, value)
}

// commentText joins comment lines, each line's text made printable: what
// came from a curl command must not end a comment early (U+2028 is a line
// break to YAML) or hold what YAML cannot write.
func commentText(lines []string) string {
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

func flow(kv ...string) *yaml.Node {
	m := newMapping()
	m.n.Style = yaml.FlowStyle
	for i := 0; i+1 < len(kv); i += 2 {
		m.n.Content = append(m.n.Content, str(kv[i]), plain(kv[i+1]))
	}
	return m.n
}

func seq(items ...*yaml.Node) *yaml.Node {
	return &yaml.Node{Kind: yaml.SequenceNode, Content: items}
}

// comments is notes as a comment, each once.
func comments(notes []string) string {
	var out []string
	for _, n := range notes {
		out = appendNew(out, n)
	}
	return commentText(out)
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
