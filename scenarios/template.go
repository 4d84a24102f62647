package scenarios

import (
	"encoding/hex"
	"fmt"
	"strconv"
	"strings"
)

// Template is a payload compiled when the scenario is loaded: literal bytes
// and typed placeholders, so the runner renders it without parsing.
type Template struct {
	Parts []TemplatePart
}

// PartKind is what a part of a Template renders.
type PartKind uint8

// The kinds of template parts; every kind but PartLiteral is a placeholder.
const (
	PartLiteral PartKind = iota // Literal, as is
	PartNowMS                   // {{now_ms}}: Unix time in milliseconds
	PartSeq                     // {{seq}}: the worker's iteration number, from 1
	PartWorker                  // {{worker}}: the worker's index, from 0
	PartUUID                    // {{uuid}}: a random version 4 UUID
	PartRandInt                 // {{rand_int A B}}: a uniform integer in [Min, Max]
	PartVar                     // {{token}}, {{users.name}}: a flow variable (an extracted value or a data column); Slot indexes Flow.Vars
)

// TemplatePart is one literal or placeholder of a Template.
type TemplatePart struct {
	Kind     PartKind
	Literal  []byte // PartLiteral
	Min, Max int64  // PartRandInt, inclusive
	Slot     int    // PartVar: index into Flow.Vars
}

// Rendered lengths of the placeholders, in bytes, for the load-time checks
// that a payload fits its frame: the most digits each can produce, and the
// fewest.
const (
	maxNowMSLen  = 19 // an int64
	minNowMSLen  = 13 // every millisecond timestamp from 2001 to 2286
	maxSeqLen    = 20 // a uint64
	maxWorkerLen = 7  // below maxConcurrency
	uuidLen      = 36
)

// placeholderNames lists the placeholders for messages and suggestions.
var placeholderNames = []string{"now_ms", "seq", "worker", "uuid", "rand_int"}

var placeholderKinds = map[string]PartKind{
	"now_ms": PartNowMS, "seq": PartSeq, "worker": PartWorker, "uuid": PartUUID, "rand_int": PartRandInt,
}

// compileTemplate splits s into literal parts and placeholders. Problems
// carry their byte offset in s. A placeholder is {{name}}, with optional
// spaces inside the braces; {{"text"}} inserts a Go-quoted literal, which
// is the way to send a literal "{{".
func compileTemplate(s string) (Template, []varError) {
	return compileScoped(s, nil)
}

// varScope resolves a placeholder that is not a built-in to a flow
// variable's slot, or explains why the name cannot be used there.
type varScope func(name string) (slot int, msg string)

// compileScoped is compileTemplate where names other than the built-ins
// are looked up in scope (a flow's variables); nil allows built-ins only.
func compileScoped(s string, scope varScope) (Template, []varError) {
	var t Template
	var errs []varError
	lit := func(b string) {
		if b == "" {
			return
		}
		if n := len(t.Parts); n > 0 && t.Parts[n-1].Kind == PartLiteral {
			t.Parts[n-1].Literal = append(t.Parts[n-1].Literal, b...)
			return
		}
		t.Parts = append(t.Parts, TemplatePart{Kind: PartLiteral, Literal: []byte(b)})
	}
	for i := 0; i < len(s); {
		j := strings.Index(s[i:], "{{")
		if j < 0 {
			lit(s[i:])
			break
		}
		lit(s[i : i+j])
		start := i + j
		end := strings.Index(s[start+2:], "}}")
		if end < 0 {
			errs = append(errs, varError{start, `unterminated {{ (write {{"{{"}} for a literal {{)`})
			break
		}
		body := strings.TrimSpace(s[start+2 : start+2+end])
		i = start + 2 + end + 2
		if strings.HasPrefix(body, `"`) {
			text, err := strconv.Unquote(body)
			if err != nil {
				errs = append(errs, varError{start, fmt.Sprintf("placeholder {{%s}}: not a valid quoted string", body)})
				continue
			}
			lit(text)
			continue
		}
		part, msg := placeholder(body, scope)
		if msg != "" {
			errs = append(errs, varError{start, msg})
			continue
		}
		t.Parts = append(t.Parts, part)
	}
	return t, errs
}

// placeholder parses the inside of {{ }}.
func placeholder(body string, scope varScope) (TemplatePart, string) {
	words := strings.Fields(body)
	if len(words) == 0 {
		return TemplatePart{}, "empty placeholder {{}}; " + placeholderHelp
	}
	name, args := words[0], words[1:]
	k, ok := placeholderKinds[name]
	switch {
	case !ok && scope != nil:
		slot, msg := scope(body)
		if msg != "" {
			return TemplatePart{}, msg
		}
		return TemplatePart{Kind: PartVar, Slot: slot}, ""
	case !ok:
		return TemplatePart{}, fmt.Sprintf("unknown placeholder {{%s}}%s; %s", body, suggest(name, placeholderNames), placeholderHelp)
	case k != PartRandInt && len(args) > 0:
		return TemplatePart{}, fmt.Sprintf("placeholder {{%s}} takes no arguments", name)
	case k != PartRandInt:
		return TemplatePart{Kind: k}, ""
	case len(args) != 2:
		return TemplatePart{}, fmt.Sprintf("placeholder {{%s}}: rand_int takes two integers, {{rand_int MIN MAX}}", body)
	}
	lo, err1 := strconv.ParseInt(args[0], 10, 64)
	hi, err2 := strconv.ParseInt(args[1], 10, 64)
	switch {
	case err1 != nil || err2 != nil:
		return TemplatePart{}, fmt.Sprintf("placeholder {{%s}}: rand_int takes two integers, {{rand_int MIN MAX}}", body)
	case lo > hi:
		return TemplatePart{}, fmt.Sprintf("placeholder {{%s}}: MIN (%d) is greater than MAX (%d)", body, lo, hi)
	}
	return TemplatePart{Kind: PartRandInt, Min: lo, Max: hi}, ""
}

const placeholderHelp = "want {{now_ms}}, {{seq}}, {{worker}}, {{uuid}} or {{rand_int MIN MAX}}"

// literalTemplate is a template of fixed bytes.
func literalTemplate(b []byte) Template {
	if len(b) == 0 {
		return Template{}
	}
	return Template{Parts: []TemplatePart{{Kind: PartLiteral, Literal: b}}}
}

// parseHex decodes send_hex text: pairs of hex digits, in groups separated
// by white space ("de ad be ef" or "deadbeef"). A problem carries its byte
// offset in s.
func parseHex(s string) ([]byte, []varError) {
	var out []byte
	for i := 0; i < len(s); {
		if isSpace(s[i]) {
			i++
			continue
		}
		j := i
		for j < len(s) && !isSpace(s[j]) {
			j++
		}
		word := s[i:j]
		for k := 0; k < len(word); k++ {
			if !isHexDigit(word[k]) {
				return nil, []varError{{i + k, fmt.Sprintf("send_hex: %q is not a hex digit", word[k:k+1])}}
			}
		}
		if len(word)%2 != 0 {
			return nil, []varError{{i, fmt.Sprintf("send_hex: %q has an odd number of hex digits; write each byte as two", word)}}
		}
		b, _ := hex.DecodeString(word) // every digit was checked above
		out = append(out, b...)
		i = j
	}
	return out, nil
}

func isSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\r' }

func isHexDigit(c byte) bool {
	return '0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F'
}

// Static reports whether t has no placeholder, so its bytes never change
// and can be framed once.
func (t Template) Static() bool {
	for _, p := range t.Parts {
		if p.Kind != PartLiteral {
			return false
		}
	}
	return true
}

// MaxLen is the most bytes t can render to.
func (t Template) MaxLen() int {
	n := 0
	for _, p := range t.Parts {
		_, hi := p.lenRange()
		n += hi
	}
	return n
}

// MinLen is the fewest bytes t can render to.
func (t Template) MinLen() int {
	n := 0
	for _, p := range t.Parts {
		lo, _ := p.lenRange()
		n += lo
	}
	return n
}

// lenRange is the fewest and the most bytes p renders to.
func (p TemplatePart) lenRange() (lo, hi int) {
	switch p.Kind {
	case PartLiteral:
		return len(p.Literal), len(p.Literal)
	case PartNowMS:
		return minNowMSLen, maxNowMSLen
	case PartSeq:
		return 1, maxSeqLen
	case PartWorker:
		return 1, maxWorkerLen
	case PartUUID:
		return uuidLen, uuidLen
	case PartRandInt:
		return 1, max(len(strconv.FormatInt(p.Min, 10)), len(strconv.FormatInt(p.Max, 10)))
	case PartVar:
		// A flow variable has no bound known at load time; flow templates
		// are never framed, so only the lower bound is meaningful.
		return 0, 0
	}
	return 1, 0
}

func literalBytes(t Template) []byte {
	var b []byte
	for _, p := range t.Parts {
		b = append(b, p.Literal...)
	}
	return b
}
