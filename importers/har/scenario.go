package har

import (
	"fmt"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/loadgate/loadgate/importers/emit"
)

// The load an imported scenario starts with, as import curl's: modest,
// since the requests may go to a real service, and variables so that
// --var changes it.
const (
	defaultDuration    = "10s"
	defaultConcurrency = "2"
	defaultWarmup      = "2s"
)

// emitter writes the scenario and hands out its variables.
type emitter struct {
	file  string
	lg    *harLog
	rec   *recording
	opts  Options
	vars  []*variable
	byKey map[string]*variable // secrets, by what they hold
	taken map[string]bool
	base  map[*target]string // the variable holding each target's origin
	names map[*target]string
}

type variable struct {
	name, value, comment string
	secret               bool
}

func newEmitter(file string, lg *harLog, rec *recording, opts Options) *emitter {
	e := &emitter{file: file, lg: lg, rec: rec, opts: opts, byKey: map[string]*variable{}, taken: map[string]bool{},
		base: map[*target]string{}, names: map[*target]string{}}
	for _, n := range emit.ReservedVars {
		e.taken[n] = true
	}
	targetNames := map[string]bool{}
	for i, t := range rec.targets {
		name := "origin"
		if i > 0 {
			name = e.newName(fmt.Sprintf("origin_%d", i+1))
		}
		e.taken[name] = true
		e.base[t] = name
		e.vars = append(e.vars, &variable{name: name, value: t.origin,
			comment: "the recorded origin of " + plural(len(t.steps), "request") + ": --var " + name + "=https://… sends them elsewhere"})
		e.names[t] = unique(emit.HostName(t.steps[0].u.Hostname()), targetNames)
	}
	return e
}

// unique is base, or base-2, base-3… when taken.
func unique(base string, taken map[string]bool) string {
	name := base
	for n := 2; taken[name]; n++ {
		name = fmt.Sprintf("%s-%d", base, n)
	}
	taken[name] = true
	return name
}

func (e *emitter) newName(base string) string {
	name := base
	for n := 2; e.taken[name]; n++ {
		name = fmt.Sprintf("%s_%d", base, n)
	}
	return name
}

// secret is the variable that holds a credential, the same one for the
// same credential wherever it is sent.
func (e *emitter) secret(hint, value, what string) string {
	key := hint + "\x00" + value
	if v, ok := e.byKey[key]; ok {
		return v.name
	}
	name := e.newName(emit.VarName(hint))
	e.taken[name] = true
	v := &variable{name: name, secret: true,
		comment: what + ", kept out of this file:\n--secret-var " + name + "=… or LOADGATE_SECRET_VAR_" + name}
	e.byKey[key] = v
	e.vars = append(e.vars, v)
	return name
}

// encode writes the whole scenario.
func (e *emitter) encode() ([]byte, error) {
	root := emit.NewMapping()
	first := e.rec.targets[0].steps[0]
	name := e.opts.Name
	if name == "" {
		name = emit.HostName(first.u.Hostname())
	}
	root.Set("version", emit.Plain("1"))
	root.Set("name", emit.Str(name))
	total := 0
	for _, t := range e.rec.targets {
		total += len(t.steps)
	}
	desc := first.method + " " + strings.SplitN(first.u.Scheme+"://"+first.u.Host+first.path.s, "?", 2)[0]
	if total > 1 {
		desc += " and " + plural(total-1, "more request")
	}
	root.Set("description", emit.Str(emit.Escape(desc+", recorded in a browser", false, false)))
	var targets []*yaml.Node
	for _, t := range e.rec.targets {
		targets = append(targets, e.target(t))
	}
	vars := emit.NewMapping()
	vars.Set("duration", emit.Plain(defaultDuration), "the load: --var duration=1m --var concurrency=10 changes it")
	vars.Set("concurrency", emit.Plain(defaultConcurrency))
	vars.Set("warmup", emit.Plain(defaultWarmup))
	for _, v := range e.vars {
		val := emit.Str(v.value)
		if v.secret {
			val = emit.Flow("value", `""`, "secret", "true")
			val.Content[1] = emit.Str("")
		}
		vars.Set(v.name, val, v.comment)
	}
	root.Set("vars", vars.N)
	root.Set("targets", emit.Seq(targets...))
	emit.SetLoad(root)
	doc := &yaml.Node{Kind: yaml.DocumentNode, Content: []*yaml.Node{root.N}}
	doc.HeadComment = emit.CommentText(e.header())
	return emit.Encode(doc)
}
