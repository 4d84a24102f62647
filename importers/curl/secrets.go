package curl

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

func secretHeader(name string) bool {
	lower := strings.ToLower(name)
	return slices.ContainsFunc(secretHeaderWords, func(w string) bool { return strings.Contains(lower, w) })
}

func secretQuery(name string) bool {
	lower := strings.ToLower(name)
	return slices.Contains(secretQueryNames, lower) ||
		slices.ContainsFunc(secretQueryWords, func(w string) bool { return strings.Contains(lower, w) })
}

// hideHeader makes the credential in a header's value a secret variable:
// after the scheme of an Authorization ("Bearer X"), else the whole value.
// A value that already comes from shell variables keeps them (they become
// secret variables); an empty one has nothing to hide.
func hideHeader(h *header, shellSecrets map[string]bool) {
	if !secretHeader(h.name) || h.value.Text == "" {
		return
	}
	hasShell := false
	for _, ref := range h.value.Refs {
		if ref.secret == nil {
			shellSecrets[ref.Name] = true
			hasShell = true
		} else {
			return // made secret already (-u)
		}
	}
	if hasShell {
		return
	}
	v := h.value.Text
	hint := varName(h.name)
	from := 0
	if strings.Contains(strings.ToLower(h.name), "authorization") {
		if scheme, cred, ok := strings.Cut(v, " "); ok && isToken(scheme) && strings.TrimSpace(cred) != "" {
			from = len(scheme) + 1 + len(cred) - len(strings.TrimLeft(cred, " "))
		}
	}
	span := &secretSpan{hint: hint, key: hint + "\x00" + v[from:],
		what: "the " + h.name + " header of the curl command", howTo: "--secret-var NAME=…"}
	h.value = Word{Text: v, Pos: h.value.Pos, Refs: []Ref{{Off: from, End: len(v), Pos: h.value.Pos, secret: span}}}
}

// hideQuery makes the values of secret-looking query parameters secret
// variables.
func hideQuery(b *built, shellSecrets map[string]bool) {
	w := b.full
	q := strings.IndexByte(w.Text[b.authEnd:], '?')
	if q < 0 {
		return
	}
	start := b.authEnd + q + 1
	var parts []Word
	last := 0
	for off := start; off <= len(w.Text); {
		end := strings.IndexByte(w.Text[off:], '&')
		if end < 0 {
			end = len(w.Text)
		} else {
			end += off
		}
		name, val, ok := strings.Cut(w.Text[off:end], "=")
		valOff := off + len(name) + 1
		if ok && val != "" && secretQuery(name) && !strings.Contains(name, "$") {
			if refs := slice(w, valOff, end).Refs; len(refs) > 0 || insideRef(w, valOff, end) {
				for _, ref := range refs {
					if ref.secret == nil {
						shellSecrets[ref.Name] = true
					}
				}
			} else {
				hint := varName(name)
				span := &secretSpan{hint: hint, key: hint + "\x00" + val,
					what: "the " + name + " query parameter of the curl command", howTo: "--secret-var NAME=…"}
				parts = append(parts, slice(w, last, valOff),
					Word{Text: val, Refs: []Ref{{Off: 0, End: len(val), Pos: w.Pos, secret: span}}})
				last = end
			}
		}
		off = end + 1
	}
	if parts != nil {
		b.full = join(append(parts, slice(w, last, len(w.Text)))...)
	}
}

// insideRef: a variable of w overlaps [from, to) without lying inside it.
func insideRef(w Word, from, to int) bool {
	return slices.ContainsFunc(w.Refs, func(r Ref) bool { return r.Off < to && r.End > from && (r.Off < from || r.End > to) })
}

// varName turns a header or parameter name into a variable name:
// X-Api-Key is x_api_key.
func varName(s string) string {
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
