package scenarios

import (
	"cmp"
	"net/url"
	"slices"
	"strings"
)

// Redacted stands in for a secret wherever loadgate prints or stores text.
const Redacted = "REDACTED"

// minSecretLen is the shortest value treated as a secret. Shorter values
// ("1", "on", "GET") occur everywhere in reports; replacing every
// occurrence would garble them while protecting nothing worth guessing.
const minSecretLen = 4

// secretEnvPrefix is prepended to a variable's name to find its value in
// the environment and mark it secret: ${token} is read from
// LOADGATE_SECRET_VAR_token before LOADGATE_VAR_token.
const secretEnvPrefix = "LOADGATE_SECRET_VAR_"

// Redactor replaces every occurrence of a set of secret values: the
// values, longest first, so that a secret containing another goes whole.
// Build one with NewRedactor. A nil Redactor replaces nothing.
type Redactor []string

// NewRedactor returns a Redactor of the given values. Values shorter than
// 4 bytes are ignored, and so are values that already hold Redacted:
// they come from a redacted source, and replacing them again would make
// redaction change text it produced itself.
func NewRedactor(secrets ...string) Redactor {
	var list Redactor
	for _, s := range secrets {
		if len(s) >= minSecretLen && !strings.Contains(s, Redacted) && !slices.Contains(list, s) {
			list = append(list, s)
		}
	}
	slices.SortFunc(list, func(a, b string) int { return cmp.Or(cmp.Compare(len(b), len(a)), strings.Compare(a, b)) })
	return list
}

// Redact returns s with every occurrence of every secret replaced by Redacted.
func (r Redactor) Redact(s string) string {
	for _, secret := range r {
		if strings.Contains(s, secret) {
			s = strings.ReplaceAll(s, secret, Redacted)
		}
	}
	return s
}

// Redact returns text with every secret of the scenario replaced by
// Redacted. Whatever may hold a header, a URL, a body or a variable's
// value goes through it before it is printed or stored. A nil Scenario
// redacts nothing.
func (s *Scenario) Redact(text string) string {
	if s == nil {
		return text
	}
	return s.Secrets.Redact(text)
}

// secretHeaderWords mark header names whose values are credentials,
// compared case-insensitively as parts of the name: Authorization,
// Proxy-Authorization, Cookie, X-Api-Key, X-Auth-Token, X-Client-Secret…
var secretHeaderWords = []string{"auth", "cookie", "token", "key", "secret", "password", "passwd", "session", "credential", "signature"}

// secretQueryNames are query parameters that carry credentials exactly as
// named; secretQueryWords mark them as parts of a name (X-Amz-Signature,
// refresh_token, client_secret).
var (
	secretQueryNames = []string{"key", "sig", "auth", "pw", "pwd", "pass", "sid"}
	secretQueryWords = []string{"token", "secret", "password", "passwd", "signature", "credential", "apikey", "api_key", "api-key", "session", "access_key"}
)

func secretHeader(name string) bool {
	lower := strings.ToLower(name)
	return slices.ContainsFunc(secretHeaderWords, func(w string) bool { return strings.Contains(lower, w) })
}

func secretQueryParam(name string) bool {
	lower := strings.ToLower(name)
	return slices.Contains(secretQueryNames, lower) ||
		slices.ContainsFunc(secretQueryWords, func(w string) bool { return strings.Contains(lower, w) })
}

// headerSecrets returns the secret parts of a credential header's value:
// the whole value, the credentials after an auth scheme ("Bearer X"), and
// each cookie's value.
func headerSecrets(name, value string) []string {
	out := []string{value}
	lower := strings.ToLower(name)
	if strings.Contains(lower, "authorization") {
		if _, cred, ok := strings.Cut(strings.TrimSpace(value), " "); ok {
			out = append(out, strings.TrimSpace(cred))
		}
	}
	if strings.Contains(lower, "cookie") {
		for _, c := range strings.Split(value, ";") {
			if _, v, ok := strings.Cut(c, "="); ok {
				out = append(out, strings.TrimSpace(v))
			}
		}
	}
	return out
}

// urlSecrets returns the password of a URL's userinfo and the values of its
// secret-looking query parameters.
func urlSecrets(u *url.URL) []string {
	var out []string
	if pw, ok := u.User.Password(); ok {
		out = append(out, pw)
	}
	for k, vs := range u.Query() {
		if secretQueryParam(k) {
			out = append(out, vs...)
		}
	}
	return out
}

// maskURL returns s, a URL that may be invalid, with the password of its
// userinfo and the values of its secret-looking query parameters replaced
// by Redacted. It works on the text, not on a parse, so that a diagnostic
// about a URL that does not parse cannot echo its credentials either.
func maskURL(s string) string {
	rest, frag, hasFrag := strings.Cut(s, "#")
	head, query, hasQuery := strings.Cut(rest, "?")
	if scheme, after, ok := strings.Cut(head, "://"); ok {
		authority, path, hasPath := strings.Cut(after, "/")
		if at := strings.LastIndexByte(authority, '@'); at >= 0 {
			if user, _, hasPW := strings.Cut(authority[:at], ":"); hasPW {
				authority = user + ":" + Redacted + authority[at:]
			}
		}
		head = scheme + "://" + authority
		if hasPath {
			head += "/" + path
		}
	}
	out := head
	if hasQuery {
		params := strings.Split(query, "&")
		for i, p := range params {
			k, _, ok := strings.Cut(p, "=")
			name, err := url.QueryUnescape(k)
			if err != nil {
				name = k
			}
			if ok && secretQueryParam(name) {
				params[i] = k + "=" + Redacted
			}
		}
		out += "?" + strings.Join(params, "&")
	}
	if hasFrag {
		out += "#" + frag
	}
	return out
}

// secretSet collects the secrets met while a file is resolved.
type secretSet map[string]bool

func (s secretSet) add(values ...string) {
	for _, v := range values {
		if len(v) >= minSecretLen {
			s[v] = true
		}
	}
}

// addUsed marks as secret the variables substituted into text whose
// values lie inside one of pieces, the secret parts of text: a token
// assembled from two variables leaves each of them in the file's vars.
func (s secretSet) addUsed(used, pieces []string) {
	for _, v := range used {
		if slices.ContainsFunc(pieces, func(p string) bool { return strings.Contains(p, v) }) {
			s.add(v)
		}
	}
}

func (s secretSet) redactor() Redactor {
	list := make([]string, 0, len(s))
	for v := range s {
		list = append(list, v)
	}
	return NewRedactor(list...)
}
