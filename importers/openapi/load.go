package openapi

import (
	"context"
	"fmt"
	"log/slog"
	"regexp"
	"strconv"
	"strings"
	"sync"

	pyaml "github.com/pb33f/go-yaml"
	"github.com/pb33f/libopenapi"
	"github.com/pb33f/libopenapi/datamodel"
	v3 "github.com/pb33f/libopenapi/datamodel/high/v3"
	"go.yaml.in/yaml/v3"
)

// Error is a description that cannot be imported, with the place in it
// where the library or the YAML parser found the problem (0 when it gave
// none).
type Error struct {
	File      string
	Line, Col int
	Msg       string
}

func (e *Error) Error() string {
	switch {
	case e.Line > 0 && e.Col > 0:
		return fmt.Sprintf("%s:%d:%d: %s", e.File, e.Line, e.Col, e.Msg)
	case e.Line > 0:
		return fmt.Sprintf("%s:%d: %s", e.File, e.Line, e.Msg)
	}
	return e.File + ": " + e.Msg
}

// The ways the library and the YAML parsers name a place in their messages.
var (
	placeLC    = regexp.MustCompile(`line (\d+), col(?:umn)? (\d+)`)
	placeShort = regexp.MustCompile(`\bL(\d+)\.C(\d+)\b`)
	placeLine  = regexp.MustCompile(`\byaml: line (\d+):`)
)

// errorAt turns a message of the library into an Error at the place it names.
func errorAt(file, msg string) *Error {
	e := &Error{File: file, Msg: msg}
	for _, re := range []*regexp.Regexp{placeLC, placeShort, placeLine} {
		if m := re.FindStringSubmatch(msg); m != nil {
			e.Line, _ = strconv.Atoi(m[1])
			if len(m) > 2 {
				e.Col, _ = strconv.Atoi(m[2])
			}
			return e
		}
	}
	return e
}

// errorLog keeps what the library logs as errors: it logs some problems
// of a description (a response that is not a mapping, a $ref to nowhere)
// instead of returning them, and a model built past them lacks parts.
type errorLog struct {
	mu   sync.Mutex
	msgs []string
}

func (l *errorLog) Enabled(_ context.Context, lvl slog.Level) bool { return lvl >= slog.LevelError }
func (l *errorLog) Handle(_ context.Context, r slog.Record) error {
	msg := r.Message
	r.Attrs(func(a slog.Attr) bool {
		if a.Key == "reference" || a.Key == "error" {
			msg += ": " + a.Value.String()
		}
		return true
	})
	l.mu.Lock()
	l.msgs = append(l.msgs, msg)
	l.mu.Unlock()
	return nil
}
func (l *errorLog) WithAttrs([]slog.Attr) slog.Handler { return l }
func (l *errorLog) WithGroup(string) slog.Handler      { return l }

// load reads an OpenAPI 3 description. Files and URLs it refers to are
// not read: an import reads the one file it is given.
func load(file string, data []byte) (doc *v3.Document, err error) {
	defer func() {
		if p := recover(); p != nil {
			doc, err = nil, &Error{File: file, Msg: fmt.Sprintf("the OpenAPI library failed on this description: %v", p)}
		}
	}()
	logged := &errorLog{}
	cfg := &datamodel.DocumentConfiguration{
		Logger:                     slog.New(logged),
		SkipCircularReferenceCheck: true, // schemas that refer to themselves are sampled to a bounded depth
	}
	d, err := libopenapi.NewDocumentWithConfiguration(data, cfg)
	if err != nil {
		return nil, diagnose(file, data, err)
	}
	info := d.GetSpecInfo()
	if info.SpecType != "openapi" {
		e := &Error{File: file, Msg: fmt.Sprintf("a Swagger %s description cannot be imported: convert it to OpenAPI 3 first (swagger2openapi, or the Swagger editor's Convert)", info.Version)}
		e.Line, e.Col = keyPlace(info.RootNode, "swagger")
		return nil, e
	}
	if !strings.HasPrefix(info.Version, "3.") {
		e := &Error{File: file, Msg: fmt.Sprintf("OpenAPI %q cannot be imported: the versions read are 3.0, 3.1 and 3.2", info.Version)}
		e.Line, e.Col = keyPlace(info.RootNode, "openapi")
		return nil, e
	}
	m, err := d.BuildV3Model()
	if err != nil {
		e := errorAt(file, "not a valid OpenAPI description: "+firstLine(err.Error()))
		for _, msg := range logged.msgs {
			// The error returned may lack the place the log has.
			if at := errorAt(file, msg); e.Line == 0 && at.Line > 0 {
				e.Line, e.Col = at.Line, at.Col
			}
		}
		return nil, e
	}
	if len(logged.msgs) > 0 {
		return nil, errorAt(file, "not a valid OpenAPI description: "+logged.msgs[0])
	}
	if m == nil {
		return nil, &Error{File: file, Msg: "not a valid OpenAPI description"}
	}
	return &m.Model, nil
}

// diagnose explains why the library did not take data at all: not YAML
// or JSON, or not an OpenAPI description.
func diagnose(file string, data []byte, libErr error) error {
	var root yaml.Node
	if err := yaml.Unmarshal(data, &root); err != nil {
		e := errorAt(file, err.Error())
		e.Msg = "neither YAML nor JSON: " + strings.TrimPrefix(err.Error(), "yaml: "+lineOf(err.Error()))
		return e
	}
	if len(root.Content) == 0 || root.Content[0].Kind != yaml.MappingNode {
		line, col := 1, 1
		if len(root.Content) > 0 {
			line, col = root.Content[0].Line, root.Content[0].Column
		}
		return &Error{File: file, Line: line, Col: col, Msg: "not an OpenAPI description: the file is not a mapping with an openapi field"}
	}
	m := root.Content[0]
	for i := 0; i+1 < len(m.Content); i += 2 {
		if k := m.Content[i].Value; k == "openapi" || k == "swagger" {
			v := m.Content[i+1]
			return &Error{File: file, Line: v.Line, Col: v.Column, Msg: fmt.Sprintf("%s %q cannot be imported: %v", k, v.Value, libErr)}
		}
	}
	return &Error{File: file, Line: m.Line, Col: m.Column, Msg: "not an OpenAPI description: it has no openapi field (an OpenAPI 3 description starts with openapi: 3.x.y)"}
}

// lineOf is the "line N: " a yaml.v3 message starts with, so that it is
// not said twice once the place is in front.
func lineOf(msg string) string {
	if m := placeLine.FindStringSubmatch(msg); m != nil {
		return "line " + m[1] + ": "
	}
	return ""
}

func firstLine(s string) string {
	first, _, _ := strings.Cut(s, "\n")
	return first
}

// keyPlace is where key is written at the top of the document.
func keyPlace(root *pyaml.Node, key string) (int, int) {
	if root == nil {
		return 0, 0
	}
	n := root
	if n.Kind == pyaml.DocumentNode && len(n.Content) > 0 {
		n = n.Content[0]
	}
	for i := 0; i+1 < len(n.Content); i += 2 {
		if n.Content[i].Value == key {
			return n.Content[i].Line, n.Content[i].Column
		}
	}
	return n.Line, n.Column
}
