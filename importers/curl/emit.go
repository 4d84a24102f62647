package curl

import (
	"fmt"
	"strings"

	"github.com/loadgate/loadgate/importers/emit"
)

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
	for _, name := range emit.ReservedVars {
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
		b.WriteString(emit.Escape(w.Text[last:ref.Off], templated, true))
		name := ref.Name
		if ref.secret != nil {
			name = e.secretVar(ref.secret)
		}
		b.WriteString("${" + name + "}")
		last = ref.End
	}
	b.WriteString(emit.Escape(w.Text[last:], templated, false))
	return b.String()
}
