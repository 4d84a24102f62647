package emit

import (
	"slices"
	"strings"
)

// The words that make a header a credential, and the query parameters
// that hold one: loadgate's own rules (docs/scenario.md, Secrets), so that
// what loadgate would redact in its reports never lands in the file.
var (
	secretHeaderWords = []string{"auth", "cookie", "token", "key", "secret", "password", "passwd", "session", "credential", "signature"}
	secretQueryNames  = []string{"key", "sig", "auth", "pw", "pwd", "pass", "sid"}
	secretQueryWords  = []string{"token", "secret", "password", "signature", "credential", "apikey", "api_key", "session", "access_key"}
)

// SecretHeader: a header of this name holds a credential.
func SecretHeader(name string) bool {
	lower := strings.ToLower(name)
	return slices.ContainsFunc(secretHeaderWords, func(w string) bool { return strings.Contains(lower, w) })
}

// SecretQuery: a query parameter of this name holds a credential.
func SecretQuery(name string) bool {
	lower := strings.ToLower(name)
	return slices.Contains(secretQueryNames, lower) ||
		slices.ContainsFunc(secretQueryWords, func(w string) bool { return strings.Contains(lower, w) })
}

// VarName turns a header or parameter name into a variable name:
// X-Api-Key is x_api_key.
func VarName(s string) string {
	var b strings.Builder
	for _, c := range strings.ToLower(s) {
		switch {
		case c >= 'a' && c <= 'z', c >= '0' && c <= '9' && b.Len() > 0:
			b.WriteRune(c)
		case b.Len() > 0 && !strings.HasSuffix(b.String(), "_"):
			b.WriteByte('_')
		}
	}
	out := strings.TrimRight(b.String(), "_")
	if out == "" {
		return "secret"
	}
	return out
}
