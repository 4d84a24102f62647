package openapi

import (
	"fmt"
	"net/url"
	"regexp"
	"strings"

	"github.com/pb33f/libopenapi/datamodel/high/base"
	v3 "github.com/pb33f/libopenapi/datamodel/high/v3"

	"github.com/loadgate/loadgate/importers/emit"
)

// variable is a scenario variable the import declares.
type variable struct {
	name, comment string
	secret        bool
}

// auth turns security schemes into secret variables: a credential is
// never text in the scenario.
type auth struct {
	schemes *v3.Components
	vars    []*variable
	byName  map[string]*variable // by scheme
	taken   map[string]bool
	notes   []string // schemes that cannot be sent
	noted   map[string]bool
}

func newAuth(doc *v3.Document) *auth {
	a := &auth{schemes: doc.Components, byName: map[string]*variable{}, taken: map[string]bool{}, noted: map[string]bool{}}
	for _, name := range emit.ReservedVars {
		a.taken[name] = true
	}
	return a
}

// apply adds the credentials of the operation's security requirement,
// or else the document's: the first alternative, none when it is empty.
func (a *auth) apply(r *request, own, global []*base.SecurityRequirement) {
	reqs := global
	if own != nil {
		reqs = own
	}
	if len(reqs) == 0 || reqs[0] == nil || reqs[0].Requirements == nil {
		return
	}
	var query []string
	for name := range reqs[0].Requirements.KeysFromOldest() {
		s := a.scheme(name)
		if s == nil {
			a.note(name, fmt.Sprintf("security scheme %q is not in components.securitySchemes: not sent", name))
			continue
		}
		switch strings.ToLower(s.Type) {
		case "http":
			switch strings.ToLower(s.Scheme) {
			case "bearer":
				r.headers = append(r.headers, [2]string{"Authorization", "Bearer ${" + a.secret(name, "a bearer token", "").name + "}"})
			case "basic":
				v := a.secret(name, "the base64 of USER:PASSWORD for HTTP basic authentication", `--secret-var NAME="$(printf %s 'USER:PASSWORD' | base64)"`)
				r.headers = append(r.headers, [2]string{"Authorization", "Basic ${" + v.name + "}"})
			default:
				a.note(name, fmt.Sprintf("security scheme %q (HTTP %s) cannot be sent: add its header by hand", name, s.Scheme))
			}
		case "apikey":
			if !validToken(s.Name) {
				a.note(name, fmt.Sprintf("security scheme %q: %q is not a name to send", name, s.Name))
				continue
			}
			v := a.secret(name, fmt.Sprintf("the API key sent as the %s %s", strings.ToLower(s.In), s.Name), "")
			switch strings.ToLower(s.In) {
			case "header":
				r.headers = append(r.headers, [2]string{s.Name, "${" + v.name + "}"})
			case "query":
				query = append(query, url.QueryEscape(s.Name)+"=${"+v.name+"}")
			case "cookie":
				r.headers = append(r.headers, [2]string{"Cookie", s.Name + "=${" + v.name + "}"})
			}
		case "oauth2", "openidconnect":
			v := a.secret(name, "an access token of "+s.Type+" (loadgate does not run the authorization flow: get one first)", "")
			r.headers = append(r.headers, [2]string{"Authorization", "Bearer ${" + v.name + "}"})
		default:
			a.note(name, fmt.Sprintf("security scheme %q (%s) cannot be sent by an import: set it up by hand", name, s.Type))
		}
	}
	if len(query) > 0 {
		sep := "?"
		if strings.Contains(r.path, "?") {
			sep = "&"
		}
		r.path += sep + strings.Join(query, "&")
	}
	r.headers = joinCookies(r.headers)
}

func (a *auth) scheme(name string) *v3.SecurityScheme {
	if a.schemes == nil || a.schemes.SecuritySchemes == nil {
		return nil
	}
	return a.schemes.SecuritySchemes.GetOrZero(name)
}

func (a *auth) note(scheme, msg string) {
	if !a.noted[scheme] {
		a.noted[scheme] = true
		a.notes = append(a.notes, msg)
	}
}

var varChars = regexp.MustCompile(`[^A-Za-z0-9_]+`)

// freeName makes text a name of letters, digits and _ that does not start
// with a digit (prefix goes before one that would), numbered _2, _3… past
// the names taken, and takes it.
func freeName(text, prefix string, taken map[string]bool) string {
	base := strings.Trim(varChars.ReplaceAllString(text, "_"), "_")
	if base == "" || base[0] >= '0' && base[0] <= '9' {
		base = prefix + base
	}
	name := base
	for n := 2; taken[name]; n++ {
		name = fmt.Sprintf("%s_%d", base, n)
	}
	taken[name] = true
	return name
}

// secret is the variable of a scheme, one per scheme; how says how to
// give it ("" for --secret-var NAME=…).
func (a *auth) secret(scheme, what, how string) *variable {
	if v, ok := a.byName[scheme]; ok {
		return v
	}
	name := freeName(scheme, "auth_", a.taken)
	if how == "" {
		how = "--secret-var NAME=…"
	}
	v := &variable{name: name, secret: true,
		comment: strings.ReplaceAll(fmt.Sprintf("security scheme %s: %s, kept out of this file:\n%s or LOADGATE_SECRET_VAR_NAME", scheme, what, how), "NAME", name)}
	a.byName[scheme] = v
	a.vars = append(a.vars, v)
	return v
}

// joinCookies makes the Cookie headers of cookie parameters and API keys
// one header.
func joinCookies(hs [][2]string) [][2]string {
	var out [][2]string
	at := -1
	for _, h := range hs {
		if strings.EqualFold(h[0], "Cookie") {
			if at >= 0 {
				out[at][1] += "; " + h[1]
				continue
			}
			at = len(out)
		}
		out = append(out, h)
	}
	return out
}
