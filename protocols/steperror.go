package protocols

import (
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/loadgate/loadgate/scenarios"
)

// ShownBytes is the most bytes of a reply that a step failure quotes.
const ShownBytes = 64

// StepError says why a step of an iteration failed — a TCP or WebSocket
// step, a step of an HTTP flow — and quotes the first bytes the step
// received, escaped as Go quotes them and cut at ShownBytes with "…":
//
//	step 2 (expect): reply does not contain "+PONG": got "-ERR unknown command\r\n"
//
// A client keeps one and fills it when a step fails, so that a failure
// allocates nothing: the bytes are copied into the error, and the message
// is worded only when Error is called. The next failure refills it, so
// Outcome.Err holding it is valid until the client's next request; the
// engine reads it before (see Outcome.Err).
type StepError struct {
	step   string // "step 2 (expect)"; "" when the caller names the step
	err    error  // why the step failed; nil with a status
	status int    // a response status the step's expect refused
	got    [ShownBytes]byte
	n      int  // bytes of got in use
	more   bool // more arrived than got holds
	show   bool // something arrived that the message quotes
}

// Fail records that step failed because of err, having received got (nil
// when nothing arrived worth quoting; empty when the reply was empty),
// and returns e.
func (e *StepError) Fail(step string, err error, got []byte) error {
	e.step, e.err, e.status = step, err, 0
	e.keep(got)
	return e
}

// FailStatus records that step's response had a status its expect
// refused, with got the first bytes of its body, and returns e.
func (e *StepError) FailStatus(step string, status int, got []byte) error {
	e.step, e.err, e.status = step, nil, status
	e.keep(got)
	return e
}

func (e *StepError) keep(got []byte) {
	e.show = got != nil
	e.n = copy(e.got[:], got)
	e.more = len(got) > e.n
}

// Truncated marks the bytes kept as the start of a longer reply, for a
// caller that kept no more than ShownBytes itself.
func (e *StepError) Truncated() { e.more = true }

// Error words the failure: the step, why, and what it got.
func (e *StepError) Error() string {
	var b strings.Builder
	if e.step != "" {
		b.WriteString(e.step)
		b.WriteString(": ")
	}
	switch {
	case e.err != nil:
		b.WriteString(e.err.Error())
	case e.status != 0:
		b.WriteString("unexpected status ")
		b.WriteString(strconv.Itoa(e.status))
	default:
		b.WriteString("failed")
	}
	if e.show {
		b.WriteString(": got ")
		b.WriteString(Quote(e.got[:e.n], e.more))
	}
	return b.String()
}

// Unwrap is the error that made the step fail.
func (e *StepError) Unwrap() error { return e.err }

// Quote shows bytes received in a message: quoted and escaped as Go
// quotes strings (\r, \n, \x00, invalid UTF-8 as \xNN), with "…" after the
// closing quote when more followed. A character cut in the middle by the
// end of b is left out rather than shown as bytes.
func Quote(b []byte, more bool) string {
	if more {
		if i := lastRuneStart(b); i >= 0 && !utf8.FullRune(b[i:]) {
			b = b[:i]
		}
		return strconv.Quote(string(b)) + "…"
	}
	return strconv.Quote(string(b))
}

// lastRuneStart is the index of the last byte of b that may start a
// character, within the last utf8.UTFMax bytes; -1 when there is none.
func lastRuneStart(b []byte) int {
	for i := len(b) - 1; i >= 0 && i >= len(b)-utf8.UTFMax; i-- {
		if utf8.RuneStart(b[i]) {
			return i
		}
	}
	return -1
}

// RedactSample removes secrets from a failure's sample message, also
// inside the bytes it quotes after "got ", which plain redaction could
// miss: there a secret may be escaped (a quote or a backslash in it), or
// cut by the end of what is shown. The quoted bytes are read back, the
// secrets and a secret's beginning left at a cut replaced by
// scenarios.Redacted, and quoted again.
func RedactSample(msg string, secrets scenarios.Redactor) string {
	if len(secrets) == 0 {
		return msg
	}
	var b strings.Builder
	rest := msg
	for {
		i := strings.Index(rest, `got "`)
		if i < 0 {
			break
		}
		b.WriteString(rest[:i+4])
		rest = rest[i+4:]
		q, err := strconv.QuotedPrefix(rest)
		if err != nil {
			continue
		}
		rest = rest[len(q):]
		if raw, err := strconv.Unquote(q); err == nil {
			red := secrets.Redact(raw)
			if strings.HasPrefix(rest, "…") {
				red = redactCutSecret(red, secrets)
			}
			if red != raw {
				q = strconv.Quote(red)
			}
		}
		b.WriteString(q)
	}
	b.WriteString(rest)
	return secrets.Redact(b.String())
}

// redactCutSecret replaces the end of s when it is the beginning of a
// secret, which the cut of a quoted reply left there: at least half of
// the secret, or 4 bytes of a longer one.
func redactCutSecret(s string, secrets scenarios.Redactor) string {
	for _, secret := range secrets {
		least := min(4, (len(secret)+1)/2)
		for k := min(len(secret)-1, len(s)); k >= least; k-- {
			if strings.HasSuffix(s, secret[:k]) {
				return s[:len(s)-k] + scenarios.Redacted
			}
		}
	}
	return s
}
