package httpflow

import (
	"bytes"

	"github.com/loadgate/loadgate/protocols/httpcheck"
)

// A response's header block as the transports keep it for a step (see
// WireRequest.ResponseHead and StepRequest.Head): a status line, then
// "name: value" lines, each ended by CRLF or LF.

// eachHeader calls fn with the value of every header called name (lower
// case) in the header block head, until fn returns false.
func eachHeader(head []byte, name string, fn func(v []byte) bool) {
	_, rest := nextLine(head) // the status line
	for len(rest) > 0 {
		var line []byte
		line, rest = nextLine(rest)
		colon := bytes.IndexByte(line, ':')
		if colon > 0 && httpcheck.FieldIs(line[:colon], name) && !fn(httpcheck.TrimOWS(line[colon+1:])) {
			return
		}
	}
}

// nextLine splits b at its first LF into the line before it, without its
// CR, and the rest.
func nextLine(b []byte) (line, rest []byte) {
	line, rest, _ = bytes.Cut(b, []byte{'\n'})
	return bytes.TrimSuffix(line, []byte{'\r'}), rest
}
