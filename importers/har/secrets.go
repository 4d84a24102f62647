package har

import (
	"fmt"
	"strings"

	"github.com/loadgate/loadgate/importers/emit"
)

// hideSecrets makes every credential an extraction did not replace a
// secret variable: the credential of an Authorization header, headers
// named like secrets, the cookies no response set, and the query
// parameters and form or JSON fields named like secrets (a password).
func (e *emitter) hideSecrets() {
	for _, t := range e.rec.targets {
		for _, s := range t.steps {
			e.hideStep(s)
		}
	}
}

func (e *emitter) hideStep(s *step) {
	where := fmt.Sprintf("entry %d of the recording (%s)", s.n, s.name)
	for _, h := range s.headers {
		if !emit.SecretHeader(h.name) || h.value.s == "" {
			continue
		}
		v := h.value
		from := 0
		if scheme, cred, ok := strings.Cut(v.s, " "); ok && strings.Contains(strings.ToLower(h.name), "authorization") && isToken(scheme) && cred != "" {
			from = len(scheme) + 1
		}
		if !v.replaced(from, len(v.s)) {
			name := e.secret(h.name, v.s[from:], "the "+h.name+" header of "+where)
			v.replace(from, len(v.s), "${"+name+"}")
		}
	}
	if s.cookie != "" {
		v := &val{s: s.cookie}
		name := e.secret("cookie", s.cookie, "the cookies no recorded response set, sent by "+where)
		v.replace(0, len(v.s), "${"+name+"}")
		s.headers = append(s.headers, hdr{name: "Cookie", value: v})
	}
	for _, c := range s.candidates() {
		secretField := strings.HasPrefix(c.where, "query parameter") || strings.HasPrefix(c.where, "form field") || strings.HasPrefix(c.where, "body field")
		if !secretField || !emit.SecretQuery(c.hint) || c.v.replaced(c.off, c.end) || c.off == c.end {
			continue
		}
		name := e.secret(c.hint, c.value, "the "+c.where+" of "+where)
		c.v.replace(c.off, c.end, "${"+name+"}")
	}
}

// nameSteps names each step after its method and the last part of its
// path that is not an id (post-notes), unique within the target.
func (t *target) nameSteps() {
	taken := map[string]bool{}
	for _, s := range t.steps {
		base := strings.ToLower(s.method)
		segs := strings.Split(strings.Trim(s.u.Path, "/"), "/")
		for i := len(segs) - 1; i >= 0; i-- {
			c := candidate{where: "the path", value: segs[i]}
			if segs[i] == "" || reusedLooking(c) {
				continue
			}
			if n := emit.HostName(segs[i]); n != "imported" && n != "local" {
				base += "-" + n
				break
			}
		}
		s.name = unique(base, taken)
	}
}
