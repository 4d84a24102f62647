package har

import (
	"bytes"
	"encoding/json"
	"strconv"
	"strings"
)

// leaf is a string or number of a JSON text, where it stands.
type leaf struct {
	path       []string // keys and array indexes from the root
	start, end int      // the value's bytes in the text, quotes included
	value      string   // a string's value, a number as written
	number     bool
}

// leaves lists the strings and numbers of a JSON text in order; nil when
// the text is not JSON.
func leaves(text string) []leaf {
	sc := &leafScanner{dec: json.NewDecoder(strings.NewReader(text)), text: text}
	sc.dec.UseNumber()
	if !sc.value(nil, 0) {
		return nil
	}
	if _, err := sc.dec.Token(); err == nil {
		return nil // more than one value
	}
	return sc.out
}

type leafScanner struct {
	dec  *json.Decoder
	text string
	prev int
	out  []leaf
}

// token reads the next token and where it starts and ends.
func (sc *leafScanner) token() (json.Token, int, int, bool) {
	tok, err := sc.dec.Token()
	if err != nil {
		return nil, 0, 0, false
	}
	end := int(sc.dec.InputOffset())
	seg := sc.text[sc.prev:end]
	start := sc.prev + len(seg) - len(strings.TrimLeft(seg, " \t\r\n:,"))
	sc.prev = end
	return tok, start, end, true
}

// value reads one JSON value at path; false on malformed JSON or nesting
// deeper than anyone writes.
func (sc *leafScanner) value(path []string, depth int) bool {
	tok, start, end, ok := sc.token()
	if !ok || depth > 64 {
		return false
	}
	switch v := tok.(type) {
	case json.Delim:
		i := 0
		for sc.dec.More() {
			name := itoa(i)
			if v == '{' {
				k, _, _, ok := sc.token()
				if !ok {
					return false
				}
				name, _ = k.(string)
			}
			if !sc.value(append(path[:len(path):len(path)], name), depth+1) {
				return false
			}
			i++
		}
		_, _, _, ok := sc.token() // the closing delimiter
		return ok
	case string:
		sc.out = append(sc.out, leaf{path: path, start: start, end: end, value: v})
	case json.Number:
		sc.out = append(sc.out, leaf{path: path, start: start, end: end, value: v.String(), number: true})
	}
	return true
}

// gjsonPath writes a leaf's path for gjson: keys with its special
// characters escaped, array indexes as numbers.
func gjsonPath(path []string) string {
	var b strings.Builder
	for i, p := range path {
		if i > 0 {
			b.WriteByte('.')
		}
		for _, c := range p {
			if strings.ContainsRune(`.*?|#@\!=<>%"`, c) {
				b.WriteByte('\\')
			}
			b.WriteRune(c)
		}
	}
	return b.String()
}

// isJSON: the text is one JSON object or array.
func isJSON(text string) bool {
	t := bytes.TrimSpace([]byte(text))
	return len(t) > 1 && (t[0] == '{' || t[0] == '[') && json.Valid(t)
}

func itoa(n int) string { return strconv.Itoa(n) }
