package cli

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/loadgate/loadgate/importers/curl"
	"github.com/loadgate/loadgate/reporters"
	"github.com/loadgate/loadgate/scenarios"
)

const importUsage = `import FORMAT [flags] INPUT...

Turns requests written down elsewhere into a scenario:
  import curl 'curl …'... | -f FILE | -   curl command lines (docs/import.md)
  import har [flags] FILE                 a browser recording, HAR 1.2 (docs/import.md)
  import openapi [flags] SPEC             an OpenAPI 3 description (docs/import.md)
Run 'loadgate import FORMAT --help' for its flags.`

const importCurlUsage = `import curl [flags] 'curl …'... | -f FILE | -

Turns curl command lines into a scenario that passes loadgate validate: one command
is a target sending its request, several are a flow sending them in order. Give each
command as one argument, or after -- as the words of one or more commands (each
starting with curl), or one per line from -f FILE or standard input (-); a backslash
at the end of a line continues it. Credentials (Authorization, Cookie, -u) become
secret variables, never text in the file. Comments in the scenario say what was
guessed and which curl options were ignored (docs/import.md).`

func importCommand(args []string, env Env) error {
	if len(args) == 0 || strings.HasPrefix(args[0], "-") {
		fs := newFlagSet("import", env, importUsage)
		rest, err := parseInterleaved(fs, args)
		if err != nil {
			return silentUsage(err)
		}
		if len(rest) == 0 {
			fs.Usage()
			return withCode(ExitUsage, errors.New("import: no format given ("+importFormats+")"))
		}
		args = rest
	}
	switch args[0] {
	case "curl":
		return importCurl(args[1:], env)
	case "har":
		return importHAR(args[1:], env)
	case "openapi":
		return importOpenAPI(args[1:], env)
	}
	return withCode(ExitUsage, fmt.Errorf("import: unknown format %q (%s)", args[0], importFormats))
}

// importFormats are the formats import reads, for its messages.
const importFormats = "curl, har, openapi"

func importCurl(args []string, env Env) error {
	fs := newFlagSet("import curl", env, importCurlUsage)
	var files []string
	fs.Func("file", "read curl commands from `FILE`, one per line (- = standard input; repeatable)", func(s string) error {
		files = append(files, s)
		return nil
	})
	fs.Func("f", "shorthand for --file", func(s string) error { files = append(files, s); return nil })
	out := fs.String("out", "", "write the scenario to `FILE` instead of standard output")
	fs.StringVar(out, "o", "", "shorthand for --out")
	name := fs.String("name", "", "the scenario's `NAME` (default: from the first URL's host)")
	// After --, the words of curl commands, which parseInterleaved would
	// go on reading as flags once past the first of them.
	var words []string
	if i := slices.Index(args, "--"); i >= 0 {
		args, words = args[:i], args[i+1:]
	}
	positional, err := parseInterleaved(fs, args)
	if err != nil {
		return silentUsage(err)
	}
	inputs, err := importInputs(append(positional, words...), files, env)
	if err != nil {
		return withCode(ExitUsage, err)
	}
	if len(inputs) == 0 {
		fs.Usage()
		return withCode(ExitUsage, errors.New("import curl: no curl command given"))
	}
	cwd, err := os.Getwd()
	if err != nil {
		return withCode(ExitRun, fmt.Errorf("import curl: %w", err))
	}
	outDir := cwd
	if *out != "" && *out != "-" {
		outDir = filepath.Dir(*out)
	}
	data, err := curl.Import(inputs, curl.Options{Name: *name, SchemaURL: schemaURL(), Dir: cwd, OutDir: outDir})
	if err != nil {
		return withCode(ExitUsage, fmt.Errorf("import curl: %w", err))
	}
	if err := checkImported(filepath.Join(outDir, "imported.yaml"), data); err != nil {
		return withCode(ExitRun, err)
	}
	if *out == "" || *out == "-" {
		_, err := env.Stdout.Write(data)
		return err
	}
	if err := reporters.WriteFileAtomic(*out, func(w io.Writer) error { _, err := w.Write(data); return err }); err != nil {
		return withCode(ExitRun, fmt.Errorf("import curl: %w", err))
	}
	fmt.Fprintf(env.Stderr, "loadgate import curl: wrote %s\nnext: loadgate validate %s\n", *out, *out)
	return nil
}

// importInputs gathers the commands: each argument is one command line,
// unless the arguments are the words of commands themselves (given after
// --, each command starting with the word curl); then -f files and "-".
func importInputs(positional, files []string, env Env) ([]curl.Input, error) {
	var inputs []curl.Input
	if len(positional) > 0 && positional[0] == "curl" {
		inputs = append(inputs, curl.Input{Name: "arguments", Text: quoteWords(positional)})
	} else {
		for i, a := range positional {
			if a == "-" {
				files = append(files, "-")
				continue
			}
			inputs = append(inputs, curl.Input{Name: fmt.Sprintf("argument %d", i+1), Text: a})
		}
	}
	for _, f := range files {
		in, err := readImportFile(f, env)
		if err != nil {
			return nil, err
		}
		inputs = append(inputs, in)
	}
	return inputs, nil
}

// quoteWords writes words a shell already split back as one text, a new
// line before each word curl, so that they split into the same words.
func quoteWords(words []string) string {
	var b strings.Builder
	for i, w := range words {
		switch {
		case i > 0 && w == "curl":
			b.WriteString("\n")
		case i > 0:
			b.WriteString(" ")
		}
		b.WriteString("'" + strings.ReplaceAll(w, "'", `'\''`) + "'")
	}
	return b.String()
}

// maxImportInput bounds what is read from one file or from stdin.
const maxImportInput = 16 << 20

func readImportFile(name string, env Env) (curl.Input, error) {
	label, data, err := readImportInput(name, env, maxImportInput)
	if err != nil {
		return curl.Input{}, fmt.Errorf("import curl: %w", err)
	}
	return curl.Input{Name: label, Text: string(data)}, nil
}

// readImportInput reads a file, or standard input for "-", refusing more
// than limit bytes; label names it in messages.
func readImportInput(name string, env Env, limit int64) (label string, data []byte, err error) {
	r, label := env.Stdin, "stdin"
	if name != "-" {
		f, err := os.Open(name)
		if err != nil {
			return "", nil, err
		}
		defer f.Close()
		r, label = f, name
	}
	data, err = io.ReadAll(io.LimitReader(r, limit+1))
	if err != nil {
		return "", nil, fmt.Errorf("read %s: %w", label, err)
	}
	if int64(len(data)) > limit {
		return "", nil, fmt.Errorf("%s is larger than %d MiB", label, limit>>20)
	}
	return label, data, nil
}

// checkImported validates the scenario as loadgate validate would: an
// import that does not is a fault of the importer, never written.
func checkImported(path string, data []byte) error {
	sc, err := scenarios.Parse(path, data, scenarios.LoadOptions{})
	if err == nil {
		_, err = compilePlan(sc)
	}
	if err != nil {
		return fmt.Errorf("import curl: the scenario would not be valid (a fault of the import; please report it with the curl command): %w", err)
	}
	return nil
}
