// Package openapi turns an OpenAPI 3.0, 3.1 or 3.2 description (YAML or
// JSON) into a scenario: a target per server sending a weighted mix of
// one request per operation, or a flow per tag. Values come from the
// description's examples, defaults and enums, else from its schemas;
// what had to be guessed is said in comments (docs/import.md).
package openapi

import (
	"strings"

	"github.com/loadgate/loadgate/importers/emit"
)

// Options shape the scenario an import writes.
type Options struct {
	Name       string   // the scenario's name; default from info.title
	SchemaURL  string   // the JSON Schema the editor modeline points at; "" for none
	Servers    []string // replace the description's servers (--server)
	BaseURL    string   // what relative server URLs are resolved against; default http://127.0.0.1:8080
	FlowPerTag bool     // a flow per tag instead of a request mix
	Tags       []string // only the operations with one of these tags; none = all
	// DataFile is the CSV file, relative to the scenario, that a flow
	// reads path and query parameters without a value in the
	// description from. "" makes guessed values instead (always so in a
	// mix, which sends no placeholders).
	DataFile string
}

// Result is what an import writes.
type Result struct {
	Scenario   []byte
	Data       []byte // the contents of Options.DataFile; nil when no parameter needs it
	Operations int    // operations the scenario sends
	Skipped    int    // operations, webhooks and callbacks it cannot send
}

// Import reads the description in spec (file names it in errors) and
// returns the scenario. A description that cannot be read is an *Error
// with the place the problem was found at, where there is one.
func Import(file string, spec []byte, opts Options) (*Result, error) {
	doc, err := load(file, spec)
	if err != nil {
		return nil, err
	}
	b := &builder{doc: doc, opts: opts, templated: opts.FlowPerTag, auth: newAuth(doc), names: map[string]bool{}}
	if opts.FlowPerTag && opts.DataFile != "" {
		b.data = newDataSet()
	}
	reqs := b.requests()
	if len(reqs) == 0 {
		msg := "no operation to import"
		if len(opts.Tags) > 0 {
			msg += " with tag " + strings.Join(opts.Tags, " or ")
		}
		for _, s := range b.skipped {
			msg += "; " + s.what + ": " + s.why
		}
		return nil, &Error{File: file, Msg: msg}
	}
	srvs, dropped, err := servers(doc, opts)
	if err != nil {
		return nil, &Error{File: file, Msg: err.Error()}
	}
	e := &emitter{opts: opts, file: file, oas: doc.Version, reqs: reqs, servers: srvs, dropped: dropped, b: b}
	if doc.Info != nil {
		e.title, e.version = doc.Info.Title, doc.Info.Version
	}
	out, err := emit.Encode(e.document())
	if err != nil {
		return nil, err
	}
	res := &Result{Scenario: out, Operations: len(reqs), Skipped: len(b.skipped)}
	if b.data != nil && len(b.data.cols) > 0 {
		res.Data = b.data.csv()
	}
	return res, nil
}
