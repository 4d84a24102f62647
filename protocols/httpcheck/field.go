package httpcheck

// The syntax of a header field that both the HTTP/1.1 parser and the flow
// client read in a response's header block; allocation-free, since the
// parser calls it for every header of every response.

// FieldIs reports whether b equals the lower-case ASCII string lower,
// ignoring the case of b: a header name, or a token of its value.
func FieldIs(b []byte, lower string) bool {
	if len(b) != len(lower) {
		return false
	}
	for i, c := range b {
		if 'A' <= c && c <= 'Z' {
			c += 'a' - 'A'
		}
		if c != lower[i] {
			return false
		}
	}
	return true
}

// TrimOWS drops the optional white space (spaces and tabs) around a
// header value.
func TrimOWS(b []byte) []byte {
	for len(b) > 0 && (b[0] == ' ' || b[0] == '\t') {
		b = b[1:]
	}
	for len(b) > 0 && (b[len(b)-1] == ' ' || b[len(b)-1] == '\t') {
		b = b[:len(b)-1]
	}
	return b
}
