package scenarios

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
)

// Expand turns the SCENARIO arguments of the command line into file
// paths: a file stands for itself, a directory for its *.yaml and *.yml
// files (sorted, not recursive), and a glob for what it matches, each match
// expanded the same way. Arguments keep their order and a path listed twice
// is kept once. An argument that matches nothing is an error; all such
// arguments are reported together.
func Expand(args []string) ([]string, error) {
	var out []string
	var errs []error
	seen := map[string]bool{}
	add := func(paths ...string) {
		for _, p := range paths {
			if !seen[p] {
				seen[p] = true
				out = append(out, p)
			}
		}
	}
	for _, arg := range args {
		paths, err := expandArg(arg)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		add(paths...)
	}
	if err := errors.Join(errs...); err != nil {
		return nil, err
	}
	return out, nil
}

func expandArg(arg string) ([]string, error) {
	if !strings.ContainsAny(arg, "*?[") {
		return expandPath(arg, true)
	}
	matches, err := filepath.Glob(arg)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", arg, err)
	}
	if len(matches) == 0 {
		return nil, fmt.Errorf("%s: no file matches", arg)
	}
	var out []string
	for _, m := range matches {
		paths, err := expandPath(m, false)
		if err != nil {
			return nil, err
		}
		out = append(out, paths...)
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("%s: matches no scenario file", arg)
	}
	return out, nil
}

// expandPath expands one file or directory. An empty directory is an error
// when named explicitly, and skipped when a glob matched it.
func expandPath(path string, explicit bool) ([]string, error) {
	info, err := os.Stat(path)
	if err != nil {
		return nil, ioError(path, err)
	}
	if !info.IsDir() {
		return []string{path}, nil
	}
	entries, err := os.ReadDir(path)
	if err != nil {
		return nil, ioError(path, err)
	}
	var out []string
	for _, e := range entries {
		ext := filepath.Ext(e.Name())
		if (ext == ".yaml" || ext == ".yml") && !e.IsDir() {
			out = append(out, filepath.Join(path, e.Name()))
		}
	}
	slices.Sort(out)
	if len(out) == 0 && explicit {
		return nil, fmt.Errorf("%s: directory holds no *.yaml or *.yml file", path)
	}
	return out, nil
}
