package httpflow

import "bytes"

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
		if colon > 0 && equalFold(line[:colon], name) && !fn(trimOWS(line[colon+1:])) {
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

// trimOWS drops the spaces and tabs around a header value.
func trimOWS(b []byte) []byte { return bytes.Trim(b, " \t") }

// equalFold reports whether b equals the lower-case ASCII string s, ignoring
// the case of b.
func equalFold(b []byte, s string) bool {
	if len(b) != len(s) {
		return false
	}
	for i, c := range b {
		if 'A' <= c && c <= 'Z' {
			c += 'a' - 'A'
		}
		if c != s[i] {
			return false
		}
	}
	return true
}
