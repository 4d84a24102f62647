package curl

import (
	"slices"
	"strings"

	"github.com/loadgate/loadgate/importers/emit"
)

// hideHeader makes the credential in a header's value a secret variable:
// after the scheme of an Authorization ("Bearer X"), else the whole value.
// A value that already comes from shell variables keeps them (they become
// secret variables); an empty one has nothing to hide.
func hideHeader(h *header, shellSecrets map[string]bool) {
	if !emit.SecretHeader(h.name) || h.value.Text == "" {
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
	hint := emit.VarName(h.name)
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
		if ok && val != "" && emit.SecretQuery(name) && !strings.Contains(name, "$") {
			if refs := slice(w, valOff, end).Refs; len(refs) > 0 || insideRef(w, valOff, end) {
				for _, ref := range refs {
					if ref.secret == nil {
						shellSecrets[ref.Name] = true
					}
				}
			} else {
				hint := emit.VarName(name)
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
