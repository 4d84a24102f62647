package http1

import "bytes"

// screenHeader checks the lines of an incomplete header block b from
// offset from, the start of a line not screened yet, and the beginning of
// its last, incomplete line. It returns the offset of that last line.
func screenHeader(b []byte, from int) (int, error) {
	for {
		rest := b[from:]
		i := bytes.IndexByte(rest, '\n')
		line, complete := rest, i >= 0
		if complete {
			line = rest[:i+1]
		}
		// A line without its LF yet may already hold the CR before it.
		line, _ = nextLine(line)
		switch {
		case from == 0:
			if err := screenStatusLine(line, complete); err != nil {
				return 0, err
			}
		case len(line) == 0 || line[0] == ' ' || line[0] == '\t':
			// A blank line ends the block; a folded line is checked whole.
		default:
			colon := bytes.IndexByte(line, ':')
			name := line
			if colon >= 0 {
				name = line[:colon]
			}
			if !isHeaderName(name) || (colon < 0 && complete) {
				return 0, errHeaderLine
			}
		}
		if !complete {
			return from, nil
		}
		from += i + 1
	}
}

// screenStatusLine checks a status line, or the beginning of one.
func screenStatusLine(line []byte, complete bool) error {
	const proto = "HTTP/1."
	if n := min(len(line), len(proto)); string(line[:n]) != proto[:n] || (complete && n < len(proto)) {
		return errNotHTTP
	}
	if complete {
		_, _, err := parseStatusLine(line)
		return err
	}
	// HTTP/1.x SP *SP 3DIGIT, as far as it goes.
	if len(line) > 7 && !isDigit(line[7]) || len(line) > 8 && line[8] != ' ' {
		return errStatusLine
	}
	if len(line) <= 9 {
		return nil
	}
	code := bytes.TrimLeft(line[9:], " ")
	for i, c := range code[:min(len(code), 4)] {
		if i < 3 && !isDigit(c) || i == 3 && c != ' ' {
			return errStatusLine
		}
	}
	return nil
}

// parseStatusLine parses HTTP/1.x SP 3DIGIT [SP reason], with extra spaces
// tolerated as net/http does.
func parseStatusLine(line []byte) (status int, http10 bool, err error) {
	if len(line) < 7 || string(line[:7]) != "HTTP/1." {
		return 0, false, errNotHTTP
	}
	if len(line) < 9 || !isDigit(line[7]) || line[8] != ' ' {
		return 0, false, errStatusLine
	}
	code := bytes.TrimLeft(line[9:], " ")
	if len(code) < 3 || !isDigit(code[0]) || !isDigit(code[1]) || !isDigit(code[2]) || (len(code) > 3 && code[3] != ' ') {
		return 0, false, errStatusLine
	}
	status = int(code[0]-'0')*100 + int(code[1]-'0')*10 + int(code[2]-'0')
	if status < 100 {
		return 0, false, errStatusLine
	}
	return status, line[7] == '0', nil
}

// chunkSizePrefix reports whether b can begin a chunk-size line: hex
// digits and spaces up to the extensions.
func chunkSizePrefix(b []byte) bool {
	for _, c := range b {
		switch {
		case c == ';':
			return true
		case isDigit(c), 'a' <= c && c <= 'f', 'A' <= c && c <= 'F', c == ' ', c == '\t', c == '\r':
		default:
			return false
		}
	}
	return true
}
