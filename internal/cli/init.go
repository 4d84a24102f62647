package cli

import (
	"errors"
	"fmt"
	"io"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/loadgate/loadgate/reporters"
	"github.com/loadgate/loadgate/scenarios"
)

const initUsage = `init [--url URL] [--name NAME] [--dir DIR] [--force]

Writes a first load test into the repository: the scenario loadgate/NAME.yaml and
the workflow .github/workflows/loadgate.yml, which runs it with the GitHub Action on
every push to main and every pull request, judging each pull request against main's
latest results and keeping one comment on it. Without --url the scenario starts the
built-in server (loadgate serve) and loads it. An existing file is never replaced
without --force. Ends with the command that runs the scenario.`

// releaseTag is a release's version, the ones the action and the schema
// have a tag for.
var releaseTag = regexp.MustCompile(`^v[0-9]+\.[0-9]+\.[0-9]+$`)

// actionRef is the ref of the GitHub Action a written workflow uses: this
// binary's release, so the workflow runs the loadgate that wrote the
// scenario, or for a build that is not a release the tag the docs name.
func actionRef() string {
	if releaseTag.MatchString(Version) {
		return Version
	}
	return "v1.0.0"
}

// schemaURL is where editors find the JSON Schema of this binary's
// scenario format: docs/loadgate.schema.json of its release, else main's.
func schemaURL() string {
	ref := "main"
	if releaseTag.MatchString(Version) {
		ref = Version
	}
	return "https://raw.githubusercontent.com/loadgate/loadgate/" + ref + "/docs/loadgate.schema.json"
}

func initCommand(args []string, env Env) error {
	fs := newFlagSet("init", env, initUsage)
	// --force is no LOADGATE_* default: overwriting is asked for each time.
	fs.Lookup("help").Value.(*helpFlag).getenv = nil
	target := fs.String("url", "", "load this `URL` (default: start the built-in server and load it)")
	name := fs.String("name", "", "the scenario's `NAME`, also its file name (default: from the URL's host, else smoke)")
	dir := fs.String("dir", "", "write into `DIR` (default: the top of the git repository around the current directory, else the current directory)")
	force := fs.Bool("force", false, "overwrite files that exist")
	rest, err := parseInterleaved(fs, args)
	if err != nil {
		return silentUsage(err)
	}
	if len(rest) > 0 {
		return withCode(ExitUsage, fmt.Errorf("init: unexpected argument %q", rest[0]))
	}
	cfg, err := newInitConfig(*target, *name)
	if err != nil {
		return withCode(ExitUsage, err)
	}
	cwd, err := os.Getwd()
	if err != nil {
		return withCode(ExitRun, fmt.Errorf("init: %w", err))
	}
	root := *dir
	if root == "" {
		root = gitTop(cwd)
	}
	files, err := cfg.files(root)
	if err != nil {
		return withCode(ExitRun, err)
	}
	if err := checkTargets(files, *force, cwd); err != nil {
		return withCode(ExitUsage, err)
	}
	if err := writeInitFiles(files); err != nil {
		return withCode(ExitRun, err)
	}
	for _, f := range files {
		fmt.Fprintf(env.Stdout, "loadgate init: wrote %s\n", shown(cwd, f.path))
	}
	fmt.Fprintf(env.Stdout, "next: loadgate run %s\n", shown(cwd, files[0].path))
	return nil
}

// initConfig is what the written files are made of.
type initConfig struct {
	name string
	url  string // "" = the built-in server
	host string // of url
}

func newInitConfig(target, name string) (initConfig, error) {
	cfg := initConfig{name: name, url: target}
	if target != "" {
		u, err := url.Parse(target)
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Hostname() == "" {
			return cfg, fmt.Errorf("init: --url %q: want an absolute http:// or https:// URL with a host", target)
		}
		cfg.host = u.Hostname()
	}
	if cfg.name == "" {
		cfg.name = nameOfHost(cfg.host)
	}
	if !validInitName(cfg.name) {
		return cfg, fmt.Errorf("init: --name %q: use letters, digits, '.', '_' and '-', not starting with '.'", cfg.name)
	}
	return cfg, nil
}

var initName = regexp.MustCompile(`^[A-Za-z0-9_-][A-Za-z0-9._-]*$`)

// validInitName: a scenario name (scenarios' rule) that is also a plain
// file name.
func validInitName(s string) bool { return initName.MatchString(s) && len(s) <= 64 }

// nameOfHost names a scenario after the host it loads: api.example.com is
// api-example-com. Without a host, or for an address or localhost, the
// scenario is a smoke test.
func nameOfHost(host string) string {
	if name, ok := scenarios.NameOfHost(host); ok {
		return name
	}
	return "smoke"
}

// gitTop is the top of the git repository that holds dir (the nearest
// directory with a .git), or dir itself outside any.
func gitTop(dir string) string {
	for d := dir; ; {
		if _, err := os.Stat(filepath.Join(d, ".git")); err == nil {
			return d
		}
		parent := filepath.Dir(d)
		if parent == d {
			return dir
		}
		d = parent
	}
}

type initFile struct {
	path    string
	content []byte
}

// files are the scenario and the workflow, the scenario first, checked as
// loadgate validate checks a scenario.
func (c initConfig) files(root string) ([]initFile, error) {
	scenario := filepath.Join(root, "loadgate", c.name+".yaml")
	data := []byte(c.scenario())
	sc, err := scenarios.Parse(scenario, data, scenarios.LoadOptions{})
	if err == nil {
		_, err = compilePlan(sc)
	}
	if err != nil {
		return nil, fmt.Errorf("init: the scenario written would not be valid: %w", err)
	}
	return []initFile{
		{scenario, data},
		{filepath.Join(root, ".github", "workflows", "loadgate.yml"), []byte(c.workflow())},
	}, nil
}

// checkTargets refuses, before anything is written, to replace a file
// without force, and anything that is not a regular file.
func checkTargets(files []initFile, force bool, cwd string) error {
	var exist, problems []string
	for _, f := range files {
		fi, err := os.Lstat(f.path)
		switch {
		case errors.Is(err, os.ErrNotExist):
		case err != nil:
			problems = append(problems, err.Error())
		case !fi.Mode().IsRegular():
			problems = append(problems, shown(cwd, f.path)+" exists and is not a regular file")
		case !force:
			exist = append(exist, shown(cwd, f.path))
		}
	}
	switch {
	case len(problems) > 0:
		return fmt.Errorf("init: %s; nothing was written", strings.Join(problems, "; "))
	case len(exist) == 1:
		return fmt.Errorf("init: %s exists; nothing was written (--force overwrites it)", exist[0])
	case len(exist) > 1:
		return fmt.Errorf("init: %s exist; nothing was written (--force overwrites them)", strings.Join(exist, " and "))
	}
	return nil
}

// writeInitFiles writes both files as one: neither is replaced unless
// both could be written.
func writeInitFiles(files []initFile) error {
	var set reporters.FileSet
	for _, f := range files {
		if err := os.MkdirAll(filepath.Dir(f.path), 0o755); err != nil {
			return fmt.Errorf("init: %w", err)
		}
		set.Add(f.path, func(w io.Writer) error { _, err := w.Write(f.content); return err })
	}
	if err := set.Commit(); err != nil {
		return fmt.Errorf("init: %w", err)
	}
	return nil
}

// shown is path as the user may type it from cwd.
func shown(cwd, path string) string {
	abs, err := filepath.Abs(path)
	if err != nil {
		return path
	}
	if rel, err := filepath.Rel(cwd, abs); err == nil && !strings.HasPrefix(rel, "..") {
		return rel
	}
	return abs
}

// yamlString is s as one YAML scalar that reads back as s.
func yamlString(s string) string {
	out, err := yaml.Marshal(s)
	if err != nil {
		return fmt.Sprintf("%q", s)
	}
	return strings.TrimSuffix(string(out), "\n")
}
