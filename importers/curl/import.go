package curl

import (
	"errors"

	"github.com/loadgate/loadgate/importers/emit"
)

// Input is one text holding curl commands: an argument, a file, stdin.
type Input struct {
	Name string // how errors name it: a file name, "stdin", "argument 1"
	Text string
}

// Options shape the scenario an import writes.
type Options struct {
	Name      string // the scenario's name; default from the first URL's host
	SchemaURL string // the JSON Schema the editor modeline points at; "" for none
	Dir       string // where the commands would run: curl's @FILE is relative to it
	OutDir    string // the scenario file's directory: body_file is written relative to it
}

// Import reads the curl commands of the inputs, in order, and returns a
// scenario that sends their requests: one command is a target with that
// request, several are a flow sending them in turn. A problem is an
// *Error naming the input, line and column.
func Import(inputs []Input, opts Options) ([]byte, error) {
	var reqs []*built
	for _, in := range inputs {
		rs, err := importInput(in.Text, opts)
		if err != nil {
			var e *Error
			if errors.As(err, &e) {
				e.Input = in.Name
			}
			return nil, err
		}
		reqs = append(reqs, rs...)
	}
	if len(reqs) == 0 {
		return nil, errors.New("no curl command found")
	}
	return emit.Encode(newEmitter(reqs, opts).document())
}

func importInput(text string, opts Options) ([]*built, error) {
	cmds, err := Split(text)
	if err != nil {
		return nil, err
	}
	var out []*built
	for _, cmd := range cmds {
		if len(cmd) > 1 && cmd[0].Text == "$" && len(cmd[0].Refs) == 0 {
			cmd = cmd[1:] // a prompt copied with the command
		}
		if !isCurl(cmd[0]) {
			return nil, errorAt(cmd[0].Pos, "not a curl command: %q", cmd[0].Text)
		}
		r, err := parseCommand(cmd)
		if err != nil {
			return nil, err
		}
		b, err := finish(r, opts)
		if err != nil {
			return nil, err
		}
		out = append(out, b)
	}
	return out, nil
}
