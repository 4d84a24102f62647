package scenarios

import (
	"fmt"
	"strings"

	"go.yaml.in/yaml/v3"
)

// envPrefix is prepended to a variable's name to find its value in the
// environment: ${host} is read from LOADGATE_VAR_host.
const envPrefix = "LOADGATE_VAR_"

// validVarName reports whether name can be written as ${name}: the rules of
// shell and environment variable names, so every variable can also be set
// from the environment.
func validVarName(name string) bool {
	if name == "" {
		return false
	}
	for i, c := range name {
		switch {
		case c == '_', 'a' <= c && c <= 'z', 'A' <= c && c <= 'Z':
		case '0' <= c && c <= '9' && i > 0:
		default:
			return false
		}
	}
	return true
}

// varError is a problem at byte offset Off of a value being substituted.
type varError struct {
	Off int
	Msg string
}

// substitute replaces ${name} and ${name:-default} in s with what lookup
// returns, and $$ with $. A default is used when lookup fails or returns
// the empty string, as in the shell. Substituted text is not scanned again,
// so a value can never expand into more variables. A `$` followed by
// anything else is kept, so expressions such as `$env` need no escaping.
func substitute(s string, lookup func(name string) (string, error)) (string, []varError) {
	if !strings.Contains(s, "$") {
		return s, nil
	}
	var b strings.Builder
	var errs []varError
	for i := 0; i < len(s); {
		if s[i] != '$' || i+1 == len(s) || (s[i+1] != '$' && s[i+1] != '{') {
			b.WriteByte(s[i])
			i++
			continue
		}
		if s[i+1] == '$' {
			b.WriteByte('$')
			i += 2
			continue
		}
		end := strings.IndexByte(s[i+2:], '}')
		if end < 0 {
			errs = append(errs, varError{i, "unterminated ${ (write $$ for a literal $)"})
			break
		}
		ref := s[i+2 : i+2+end]
		name, def, hasDef := strings.Cut(ref, ":-")
		if !validVarName(name) {
			errs = append(errs, varError{i, fmt.Sprintf("invalid variable reference ${%s}: a name is letters, digits and _, not starting with a digit", ref)})
			i += end + 3
			continue
		}
		switch val, err := lookup(name); {
		case hasDef && (err != nil || val == ""):
			b.WriteString(def)
		case err != nil:
			errs = append(errs, varError{i, err.Error()})
		default:
			b.WriteString(val)
		}
		i += end + 3
	}
	return b.String(), errs
}

// varTable resolves scenario variables by precedence: --secret-var and
// --var values, then the environment (LOADGATE_SECRET_VAR_ before
// LOADGATE_VAR_), then the file's `vars:`.
type varTable struct {
	cli        map[string]string
	secretCLI  map[string]string
	env        func(string) (string, bool)
	file       map[string]string
	fileOrder  []string
	matrixKeys map[string]bool
	envCache   map[string]*envValue // nil entry: not in the environment
	// secret names the variables marked secret: `secret: true` in the
	// file, --secret-var, LOADGATE_SECRET_VAR_. Their values are redacted
	// wherever the variable's value came from.
	secret map[string]bool
	// cycle names the variables of the file caught in a variable cycle,
	// which is reported where they are defined (varCycles).
	cycle map[string]bool
}

// envValue is a variable found in the environment.
type envValue struct {
	value  string
	secret bool // found under secretEnvPrefix
}

func newVarTable(opts LoadOptions) *varTable {
	t := &varTable{
		cli:        opts.Vars,
		secretCLI:  opts.SecretVars,
		env:        opts.LookupEnv,
		file:       map[string]string{},
		matrixKeys: map[string]bool{},
		envCache:   map[string]*envValue{},
		secret:     map[string]bool{},
	}
	for name := range opts.SecretVars {
		t.secret[name] = true
	}
	return t
}

func (t *varTable) lookup(name string) (string, bool) {
	if v, ok := t.secretCLI[name]; ok {
		return v, true
	}
	if v, ok := t.cli[name]; ok {
		return v, true
	}
	if v := t.fromEnv(name); v != nil {
		return v.value, true
	}
	v, ok := t.file[name]
	return v, ok
}

func (t *varTable) fromEnv(name string) *envValue {
	if t.env == nil {
		return nil
	}
	v, seen := t.envCache[name]
	if !seen {
		if s, ok := t.env(secretEnvPrefix + name); ok {
			v = &envValue{value: s, secret: true}
			t.secret[name] = true
		} else if s, ok := t.env(envPrefix + name); ok {
			v = &envValue{value: s}
		}
		t.envCache[name] = v
	}
	return v
}

// secretValues returns the values of the variables marked secret.
func (t *varTable) secretValues() []string {
	var out []string
	for name := range t.secret {
		if v, ok := t.lookup(name); ok {
			out = append(out, v)
		}
	}
	return out
}

// effective returns every variable with a value: those of the file and of
// --var, and those found in the environment when the file referred to them.
func (t *varTable) effective() map[string]string {
	out := map[string]string{}
	add := func(name string) {
		if v, ok := t.lookup(name); ok {
			out[name] = v
		}
	}
	for _, name := range t.fileOrder {
		add(name)
	}
	for name := range t.cli {
		add(name)
	}
	for name := range t.secretCLI {
		add(name)
	}
	for name, v := range t.envCache {
		if v != nil {
			add(name)
		}
	}
	return out
}

// rawVar is one entry of `vars:`, written `name: value` or
// `name: {value: ..., secret: true}`.
type rawVar struct {
	key, val *yaml.Node
	secret   *yaml.Node // nil unless the long form says
}

var varFields = []field[rawVar]{
	scalarField("value", aValue, func(v *rawVar) **yaml.Node { return &v.val }),
	scalarField("secret", aBool, func(v *rawVar) **yaml.Node { return &v.secret }),
}

// vars reads `vars:`: each entry a scalar, or a mapping with a value and
// whether it is secret.
func (d *decoder) vars(n *yaml.Node) []rawVar {
	n = d.deref(n)
	if n.Kind != yaml.MappingNode {
		d.errorf(n, "vars: expected a mapping, got %s", describe(n))
		return nil
	}
	var out []rawVar
	for _, kv := range d.pairs(n, 0) {
		if d.exhausted() {
			break
		}
		v := d.deref(kv.val)
		switch v.Kind {
		case yaml.ScalarNode:
			out = append(out, rawVar{key: kv.key, val: v})
		case yaml.MappingNode:
			rv := rawVar{key: kv.key}
			if fields(d, v, "vars."+kv.key.Value, "variable", varFields, &rv) {
				if rv.val == nil {
					d.errorf(v, "vars.%s: missing required field %q", kv.key.Value, "value")
					continue
				}
				out = append(out, rv)
			}
		default:
			d.errorf(v, "vars.%s: expected %s or {value: ..., secret: true}, got %s", kv.key.Value, aValue, describe(v))
		}
	}
	return out
}

func (r *resolver) lookup(name string) (string, error) {
	if v, ok := r.matrix[name]; ok {
		r.used = append(r.used, v)
		return v, nil
	}
	if r.matrix == nil && r.vars.matrixKeys[name] {
		return "", fmt.Errorf("matrix variable %q cannot be used in %s", name, strings.ReplaceAll(r.where, "NAME", name))
	}
	if r.vars.cycle[name] {
		return "", errVarCycle
	}
	if v, ok := r.vars.lookup(name); ok {
		r.used = append(r.used, v)
		return v, nil
	}
	return "", fmt.Errorf("undefined variable %q (define it under vars:, pass --var %s=..., or set %s%s)", name, name, envPrefix, name)
}
