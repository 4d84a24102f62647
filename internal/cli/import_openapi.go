package cli

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/loadgate/loadgate/importers/openapi"
	"github.com/loadgate/loadgate/reporters"
	"github.com/loadgate/loadgate/scenarios"
)

const importOpenAPIUsage = `import openapi [flags] SPEC

Turns an OpenAPI 3.0, 3.1 or 3.2 description (YAML or JSON; - = standard input) into a
scenario that passes loadgate validate: a target per server sending a weighted mix of one
request per operation, or with --flow-per-tag a flow per tag. Bodies and parameters come
from the description's examples, defaults and enums, else from its schemas; security
schemes become secret variables. With --out and --flow-per-tag, path and query parameters
without a value go to a CSV data file next to the scenario. Comments say what was guessed
and which operations were left out (docs/import.md).`

// multiFlag collects a repeatable flag's values.
type multiFlag []string

func (m *multiFlag) String() string     { return strings.Join(*m, ",") }
func (m *multiFlag) Set(s string) error { *m = append(*m, s); return nil }

func importOpenAPI(args []string, env Env) error {
	fs := newFlagSet("import openapi", env, importOpenAPIUsage)
	out := fs.String("out", "", "write the scenario to `FILE` instead of standard output (and the data file beside it)")
	fs.StringVar(out, "o", "", "shorthand for --out")
	name := fs.String("name", "", "the scenario's `NAME` (default: from the description's title)")
	var servers, tags multiFlag
	fs.Var(&servers, "server", "send to `URL` instead of the description's servers (repeatable: a target each)")
	fs.Var(&tags, "tag", "import only the operations with `TAG` (repeatable)")
	flows := fs.Bool("flow-per-tag", false, "a flow per tag, its operations in order, instead of a request mix")
	base := fs.String("base-url", "", "resolve relative server `URL`s against this (default http://127.0.0.1:8080)")
	positional, err := parseInterleaved(fs, args)
	if err != nil {
		return silentUsage(err)
	}
	if len(positional) != 1 {
		fs.Usage()
		return withCode(ExitUsage, errors.New("import openapi: give one OpenAPI description (a file, or - for standard input)"))
	}
	label, spec, err := readImportInput(positional[0], env, maxImportInput)
	if err != nil {
		return withCode(ExitUsage, fmt.Errorf("import openapi: %w", err))
	}
	opts := openapi.Options{Name: *name, SchemaURL: schemaURL(), Servers: servers, BaseURL: *base, FlowPerTag: *flows, Tags: tags}
	toFile := *out != "" && *out != "-"
	if toFile {
		opts.DataFile = strings.TrimSuffix(filepath.Base(*out), filepath.Ext(*out)) + ".params.csv"
	}
	res, err := openapi.Import(label, spec, opts)
	if err != nil {
		return withCode(ExitUsage, fmt.Errorf("import openapi: %w", err))
	}
	if err := checkImportedOpenAPI(res, opts.DataFile); err != nil {
		return withCode(ExitRun, err)
	}
	if !toFile {
		_, err := env.Stdout.Write(res.Scenario)
		return err
	}
	if res.Data != nil {
		data := filepath.Join(filepath.Dir(*out), opts.DataFile)
		if err := writeAtomic(data, res.Data); err != nil {
			return withCode(ExitRun, fmt.Errorf("import openapi: %w", err))
		}
		fmt.Fprintf(env.Stderr, "loadgate import openapi: wrote %s: fill in the parameters' values\n", data)
	}
	if err := writeAtomic(*out, res.Scenario); err != nil {
		return withCode(ExitRun, fmt.Errorf("import openapi: %w", err))
	}
	fmt.Fprintf(env.Stderr, "loadgate import openapi: wrote %s (%s)\nnext: loadgate validate %s\n", *out, countText(res), *out)
	return nil
}

func countText(res *openapi.Result) string {
	s := fmt.Sprintf("%d operation", res.Operations)
	if res.Operations != 1 {
		s += "s"
	}
	if res.Skipped > 0 {
		s += fmt.Sprintf(", %d left out, listed in a comment", res.Skipped)
	}
	return s
}

func writeAtomic(path string, data []byte) error {
	return reporters.WriteFileAtomic(path, func(w io.Writer) error { _, err := w.Write(data); return err })
}

// checkImportedOpenAPI validates the scenario, with its data file, as
// loadgate validate would, in a directory of its own: an import that does
// not validate is a fault of the importer, never written.
func checkImportedOpenAPI(res *openapi.Result, dataFile string) error {
	dir, err := os.MkdirTemp("", "loadgate-import-")
	if err != nil {
		return fmt.Errorf("import openapi: %w", err)
	}
	defer os.RemoveAll(dir)
	if res.Data != nil {
		if err := os.WriteFile(filepath.Join(dir, dataFile), res.Data, 0o600); err != nil {
			return fmt.Errorf("import openapi: %w", err)
		}
	}
	sc, err := scenarios.Parse(filepath.Join(dir, "imported.yaml"), res.Scenario, scenarios.LoadOptions{})
	if err == nil {
		_, err = compilePlan(sc)
	}
	if err != nil {
		return fmt.Errorf("import openapi: the scenario would not be valid (a fault of the import; please report it with the description): %w", err)
	}
	return nil
}
