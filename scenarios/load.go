package scenarios

import (
	"bytes"
	"cmp"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"syscall"

	"go.yaml.in/yaml/v3"
)

// maxFileSize is the largest scenario file accepted, in bytes. Scenarios
// are written by hand; a bigger file is a mistake or an attack on the parser.
const maxFileSize = 4 << 20

// LoadOptions are the inputs of a scenario besides its file.
type LoadOptions struct {
	// Vars are the --var K=V values. They win over the environment and
	// over the file's `vars:`.
	Vars map[string]string
	// SecretVars are the --secret-var K=V values: like Vars (and winning
	// over them), and marked secret, so their values are redacted from
	// everything loadgate prints or stores.
	SecretVars map[string]string
	// LookupEnv is asked for LOADGATE_SECRET_VAR_<name>, then for
	// LOADGATE_VAR_<name>, when a variable is not in Vars; it wins over the
	// file's `vars:`. A value found under the first is secret. Normally os.LookupEnv. Nil
	// means the environment is not consulted.
	LookupEnv func(key string) (string, bool)
	// JudgeOnly parses a scenario only to judge results already measured
	// (loadgate merge re-reads a part's stored source): the files it
	// refers to (data files, body_file, ca_file, client certificates)
	// need not exist where it runs. What is missing is left empty and the
	// checks that need it are skipped; nothing parsed so may be run.
	JudgeOnly bool
}

// Load reads the scenario file at path and parses it with Parse. An error
// reading the file is returned wrapped with the path; problems in the file
// are returned as an ErrorList. Scenario.Source keeps the bytes read.
func Load(path string, opts LoadOptions) (*Scenario, error) {
	data, err := readScenario(path)
	if err != nil {
		return nil, err
	}
	return Parse(path, data, opts)
}

// readScenario reads a scenario file: at most maxFileSize+1 bytes, so that
// Parse can report a larger file as too large. Only a regular file is
// read: a FIFO would block until something writes to it, and a device
// such as /dev/zero never ends. The file is opened without blocking and
// checked again once open, so it cannot be swapped for a FIFO between the
// check and the read. Errors name path.
func readScenario(path string) ([]byte, error) {
	if info, err := os.Stat(path); err != nil {
		return nil, ioError(path, err)
	} else if err := regular(info); err != nil {
		return nil, ioError(path, err)
	}
	f, err := os.OpenFile(path, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		return nil, ioError(path, err)
	}
	defer f.Close()
	info, err := f.Stat()
	if err != nil {
		return nil, ioError(path, err)
	}
	if err := regular(info); err != nil {
		return nil, ioError(path, err)
	}
	data, err := io.ReadAll(io.LimitReader(f, maxFileSize+1))
	if err != nil {
		return nil, ioError(path, err)
	}
	return data, nil
}

// regular refuses what is not a regular file, naming what it is.
func regular(info fs.FileInfo) error {
	mode := info.Mode()
	switch {
	case mode.IsRegular():
		return nil
	case mode.IsDir():
		return errors.New("is a directory, not a scenario file")
	case mode&fs.ModeNamedPipe != 0:
		return errors.New("is a named pipe (FIFO), not a regular file: a scenario is read from a file")
	case mode&fs.ModeSocket != 0:
		return errors.New("is a socket, not a regular file: a scenario is read from a file")
	case mode&fs.ModeDevice != 0:
		return errors.New("is a device, not a regular file: a scenario is read from a file")
	}
	return errors.New("is not a regular file: a scenario is read from a file")
}

// ioError wraps err with path once, whether or not err already names it.
func ioError(path string, err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		err = pe.Err
	}
	return fmt.Errorf("%s: %w", path, err)
}

// Parse parses and validates the scenario data read from file, which is
// used in positions and as the base of relative body_file and ca_file
// paths. Every problem found is returned, sorted by position, as an
// ErrorList of *Error values carrying file:line:col. Parse is safe for
// concurrent use.
func Parse(file string, data []byte, opts LoadOptions) (*Scenario, error) {
	d := &decoder{file: file, dir: filepath.Dir(file), src: newSource(data), files: map[string]fileResult{}, secrets: secretSet{}, judgeOnly: opts.JudgeOnly}
	if len(data) > maxFileSize {
		return nil, ErrorList{Errorf(Pos{File: file, Line: 1, Col: 1}, "the file is larger than %d MiB", maxFileSize>>20)}
	}
	root := d.document(data)
	if root == nil {
		return nil, d.finish()
	}
	raw := d.scenario(root)
	if !raw.ok || d.exhausted() {
		return nil, d.finish()
	}
	s := d.build(raw, opts)
	if err := d.finish(); err != nil {
		return nil, err
	}
	// The hash is of the file as a segment part stores it, secrets
	// redacted, so that merge can check a part's source against it; a
	// rotated token does not make another scenario either.
	sum := sha256.Sum256([]byte(s.Redact(string(data))))
	s.Hash = hex.EncodeToString(sum[:])
	s.Source = data
	return s, nil
}

// finish sorts the diagnostics by position and drops repeats, which arise
// when the same mistake is met once per matrix combination.
func (d *decoder) finish() error {
	// The scenario's own diagnostics come first, then those placed in the
	// files it names (proto files), each file's in order.
	slices.SortStableFunc(d.errs, func(a, b *Error) int {
		return cmp.Or(cmp.Compare(d.elsewhere(a), d.elsewhere(b)), cmp.Compare(a.Pos.File, b.Pos.File),
			cmp.Compare(a.Pos.Line, b.Pos.Line), cmp.Compare(a.Pos.Col, b.Pos.Col))
	})
	d.errs = slices.CompactFunc(d.errs, func(a, b *Error) bool { return *a == *b })
	if len(d.errs) == 0 {
		return nil
	}
	// A diagnostic may quote a value that turned out to be a credential
	// (a secret variable used where a number was expected, say).
	red := d.secrets.redactor()
	for _, e := range d.errs {
		e.Msg = red.Redact(e.Msg)
	}
	return d.errs
}

// elsewhere is 1 for a diagnostic placed in another file than the
// scenario, 0 for one in the scenario.
func (d *decoder) elsewhere(e *Error) int {
	if e.Pos.File == d.file || e.Pos.File == "" {
		return 0
	}
	return 1
}

// document decodes data and returns the root node of its single document,
// or nil after recording why there is none.
func (d *decoder) document(data []byte) *yaml.Node {
	doc, next, err := decodeDocuments(data)
	switch {
	case err != nil:
		if errs := d.flowVarErrors(data); errs != nil {
			d.errs = append(d.errs, errs...)
			return nil
		}
		d.errs = append(d.errs, Errorf(d.syntaxErrorPos(data, err), "syntax error: %s", yamlMessage(err)))
		return nil
	case doc == nil || len(doc.Content) == 0:
		d.errs = append(d.errs, Errorf(Pos{File: d.file, Line: 1, Col: 1}, "the file is empty; a scenario needs at least version, name, targets and phases"))
		return nil
	case next != nil:
		d.errorf(next, "a scenario file holds one YAML document; remove the second one or move it to its own file")
		return nil
	}
	return doc.Content[0]
}

// decodeDocuments decodes the first YAML document of data and the start of
// a second one, if there is any.
func decodeDocuments(data []byte) (doc, next *yaml.Node, err error) {
	dec := yaml.NewDecoder(bytes.NewReader(data))
	doc = new(yaml.Node)
	if err := dec.Decode(doc); err != nil {
		if err == io.EOF {
			return nil, nil, nil
		}
		return nil, nil, err
	}
	next = new(yaml.Node)
	switch err := dec.Decode(next); {
	case err == io.EOF:
		return doc, nil, nil
	case err != nil:
		return nil, nil, err
	}
	return doc, next, nil
}
