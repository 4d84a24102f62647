package har

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"reflect"
	"slices"
	"strings"
	"time"
	"unicode/utf8"
)

// The parts of a HAR 1.2 file (http://www.softwareishard.com/blog/har-12-spec/)
// an import reads; browsers add fields of their own, which are ignored.
type harFile struct {
	Log *harLog `json:"log"`
}

type harLog struct {
	Version string     `json:"version"`
	Creator nameVer    `json:"creator"`
	Browser *nameVer   `json:"browser"`
	Entries []harEntry `json:"entries"`
}

type nameVer struct {
	Name    string `json:"name"`
	Version string `json:"version"`
}

type harEntry struct {
	StartedDateTime string      `json:"startedDateTime"`
	Time            float64     `json:"time"` // milliseconds
	Request         harRequest  `json:"request"`
	Response        harResponse `json:"response"`
	ResourceType    string      `json:"_resourceType"` // Chromium's and Playwright's
}

type harRequest struct {
	Method      string       `json:"method"`
	URL         string       `json:"url"`
	HTTPVersion string       `json:"httpVersion"`
	Headers     []nameValue  `json:"headers"`
	PostData    *harPostData `json:"postData"`
}

type nameValue struct {
	Name  string `json:"name"`
	Value string `json:"value"`
}

type harPostData struct {
	MimeType string     `json:"mimeType"`
	Text     string     `json:"text"`
	Params   []harParam `json:"params"`
}

type harParam struct {
	Name     string `json:"name"`
	Value    string `json:"value"`
	FileName string `json:"fileName"`
}

type harResponse struct {
	Status  int         `json:"status"`
	Headers []nameValue `json:"headers"`
	Cookies []nameValue `json:"cookies"`
	Content harContent  `json:"content"`
}

type harContent struct {
	MimeType string `json:"mimeType"`
	Text     string `json:"text"`
	Encoding string `json:"encoding"`
}

// Error is a problem with the HAR file, at a place in it when one is known.
type Error struct {
	Input     string // the file's name
	Line, Col int    // 1-based; 0 when the problem is the file as a whole
	Msg       string
}

func (e *Error) Error() string {
	if e.Line == 0 {
		return e.Input + ": " + e.Msg
	}
	return fmt.Sprintf("%s:%d:%d: %s", e.Input, e.Line, e.Col, e.Msg)
}

// position is the line and column of byte offset off of data.
func position(data []byte, off int64) (int, int) {
	off = min(max(off, 0), int64(len(data)))
	before := data[:off]
	line := bytes.Count(before, []byte("\n")) + 1
	col := utf8.RuneCount(before[bytes.LastIndexByte(before, '\n')+1:]) + 1
	return line, col
}

// supportedVersions are the HAR versions an import reads; 1.1 differs
// from 1.2 only in fields it does not read.
var supportedVersions = []string{"1.1", "1.2"}

// decode reads a HAR file, refusing what is not JSON, not HAR, or a HAR
// version it does not know, at the place of the problem.
func decode(name string, data []byte) (*harLog, error) {
	fail := func(off int64, format string, args ...any) error {
		l, c := position(data, off)
		return &Error{Input: name, Line: l, Col: c, Msg: fmt.Sprintf(format, args...)}
	}
	data = bytes.TrimPrefix(data, []byte("\xef\xbb\xbf")) // a BOM some tools write
	if len(bytes.TrimSpace(data)) == 0 {
		return nil, &Error{Input: name, Msg: "empty: not a HAR file"}
	}
	var f harFile
	dec := json.NewDecoder(bytes.NewReader(data))
	if err := dec.Decode(&f); err != nil {
		var syn *json.SyntaxError
		var typ *json.UnmarshalTypeError
		switch {
		case errors.As(err, &syn):
			return nil, fail(syn.Offset-1, "not JSON: %s", syn.Error())
		case errors.As(err, &typ):
			what, at := typ.Field, valueStart(data, typ.Offset)
			if what == "" {
				return nil, fail(at, "not a HAR file: a JSON %s where an object with \"log\" was expected", typ.Value)
			}
			return nil, fail(at, "not a HAR file: %s is a JSON %s, want %s", what, typ.Value, jsonKind(typ.Type))
		case errors.Is(err, io.ErrUnexpectedEOF):
			return nil, fail(int64(len(data)), "not JSON: the file ends before the JSON does")
		}
		return nil, fail(dec.InputOffset(), "not JSON: %v", err)
	}
	if _, err := dec.Token(); err == nil {
		return nil, fail(dec.InputOffset()-1, "not a HAR file: more JSON after the HAR object")
	}
	if f.Log == nil {
		return nil, &Error{Input: name, Line: 1, Col: 1, Msg: `not a HAR file: no "log" object`}
	}
	lg := f.Log
	switch {
	case lg.Version == "":
		return nil, fail(findKey(data, "version"), "not a HAR file: log.version is missing (want %s)", strings.Join(supportedVersions, " or "))
	case !slices.Contains(supportedVersions, lg.Version):
		return nil, fail(findKey(data, "version"), "HAR version %q is not supported (want %s)", lg.Version, strings.Join(supportedVersions, " or "))
	case len(lg.Entries) == 0:
		return nil, fail(findKey(data, "entries"), "the HAR file has no entries: record with the network panel open, then export")
	}
	return lg, nil
}

// jsonKind names what a Go type reads in JSON's words.
func jsonKind(t reflect.Type) string {
	switch t.Kind() {
	case reflect.Struct, reflect.Map, reflect.Pointer:
		return "an object"
	case reflect.Slice, reflect.Array:
		return "an array"
	case reflect.String:
		return "a string"
	case reflect.Bool:
		return "a boolean"
	case reflect.Int, reflect.Int64:
		return "an integer"
	}
	return "a number"
}

// valueStart is where the JSON value that ends at offset end starts:
// the opening quote of a string, the first character of a number or
// literal. An object or array is named by where the decoder stopped.
func valueStart(data []byte, end int64) int64 {
	end = min(max(end, 1), int64(len(data)))
	i := end - 1
	switch c := data[i]; {
	case c == '"':
		for i--; i >= 0; i-- {
			if data[i] == '"' && (i == 0 || data[i-1] != '\\') {
				return i
			}
		}
		return end - 1
	case c == '}' || c == ']':
		return end - 1
	}
	for i > 0 && !bytes.ContainsRune([]byte(" \t\r\n:,["), rune(data[i-1])) {
		i--
	}
	return i
}

// findKey is the offset of the value of the first "key" in data, else 0:
// where a refusal about log.version or log.entries points.
func findKey(data []byte, key string) int64 {
	i := bytes.Index(data, []byte(`"`+key+`"`))
	if i < 0 {
		return 0
	}
	i += len(key) + 2
	rest := bytes.TrimLeft(data[i:], " \t\r\n")
	if len(rest) > 0 && rest[0] == ':' {
		i = len(data) - len(bytes.TrimLeft(rest[1:], " \t\r\n"))
	}
	return int64(i)
}

// started is when the entry's request started; ok false when the entry
// does not say.
func (e *harEntry) started() (time.Time, bool) {
	t, err := time.Parse(time.RFC3339Nano, e.StartedDateTime)
	return t, err == nil
}

// ended is when the entry's response had arrived.
func (e *harEntry) ended() (time.Time, bool) {
	t, ok := e.started()
	if !ok || e.Time < 0 {
		return t, false
	}
	return t.Add(time.Duration(e.Time * float64(time.Millisecond))), true
}

// body is the recorded response body as text, "" when it is not text.
func (c *harContent) body() string {
	if c.Encoding == "base64" {
		b, err := base64.StdEncoding.DecodeString(c.Text)
		if err != nil || !utf8.Valid(b) {
			return ""
		}
		return string(b)
	}
	return c.Text
}

// header is the first value of the named header, "" without one.
func header(hs []nameValue, name string) string {
	for _, h := range hs {
		if strings.EqualFold(h.Name, name) {
			return h.Value
		}
	}
	return ""
}
