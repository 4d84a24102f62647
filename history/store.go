package history

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
)

// Add writes entry as a new file of the store at dir,
// dir/<scenario>/<UTC time>-<short commit>.json, and returns its path.
// It never rewrites a file: an entry already there is an error, so a git
// branch holding the store grows by one small object per run.
func Add(dir string, e *Entry) (string, error) {
	data, err := json.Marshal(e)
	if err != nil {
		return "", fmt.Errorf("history: %w", err)
	}
	data = append(data, '\n')
	sub := filepath.Join(dir, dirName(e.Scenario))
	if err := os.MkdirAll(sub, 0o755); err != nil {
		return "", fmt.Errorf("history: %w", err)
	}
	path := filepath.Join(sub, fileName(e))
	tmp, err := os.CreateTemp(sub, ".add-*")
	if err != nil {
		return "", fmt.Errorf("history: %w", err)
	}
	defer os.Remove(tmp.Name())
	if _, err := tmp.Write(data); err != nil {
		tmp.Close()
		return "", fmt.Errorf("history: %w", err)
	}
	if err := tmp.Close(); err != nil {
		return "", fmt.Errorf("history: %w", err)
	}
	// A hard link appears whole and never replaces a file that exists,
	// where a rename would.
	if err := os.Link(tmp.Name(), path); err != nil {
		if errors.Is(err, fs.ErrExist) {
			return "", fmt.Errorf("history: %s is already in the store (the same run added twice?)", path)
		}
		return "", fmt.Errorf("history: %w", err)
	}
	return path, nil
}

// dirName is a scenario's directory in the store: its name with every
// character a file system or a shell might trip on replaced by '-'.
func dirName(scenario string) string {
	s := strings.Map(func(r rune) rune {
		switch {
		case r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z', r >= '0' && r <= '9', r == '.', r == '_', r == '-':
			return r
		}
		return '-'
	}, scenario)
	if s == "" || strings.Trim(s, ".") == "" {
		return "scenario"
	}
	return s
}

// fileName sorts by time: "20261202T215000Z-a1b2c3d.json".
func fileName(e *Entry) string {
	sha := "nocommit"
	if e.Commit != "" {
		sha = dirName(e.Commit)
		if len(sha) > 7 {
			sha = sha[:7]
		}
	}
	return e.Time.UTC().Format("20060102T150405.000Z") + "-" + sha + ".json"
}

// Load reads every entry of the store at dir, oldest first; with
// scenario set, only that scenario's. A file that is not an entry is an
// error naming it: a store is written by Add alone.
func Load(dir, scenario string) ([]*Entry, error) {
	pattern := filepath.Join(dir, "*", "*.json")
	if scenario != "" {
		pattern = filepath.Join(dir, dirName(scenario), "*.json")
	}
	if _, err := os.Stat(dir); err != nil {
		return nil, fmt.Errorf("history store: %w", err)
	}
	files, err := filepath.Glob(pattern)
	if err != nil {
		return nil, fmt.Errorf("history store: %w", err)
	}
	out := make([]*Entry, 0, len(files))
	for _, f := range files {
		e, err := readEntry(f)
		if err != nil {
			return nil, err
		}
		if scenario == "" || e.Scenario == scenario {
			out = append(out, e)
		}
	}
	slices.SortStableFunc(out, func(a, b *Entry) int { return a.Time.Compare(b.Time) })
	return out, nil
}

func readEntry(path string) (*Entry, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("history store: %w", err)
	}
	// Unknown fields are kept quiet: a later loadgate may add some
	// without changing what the known ones mean.
	var e Entry
	if err := json.Unmarshal(data, &e); err != nil {
		return nil, fmt.Errorf("history store: %s: %w", path, err)
	}
	if e.Schema != EntrySchema {
		return nil, fmt.Errorf("history store: %s: entry schema %d, this loadgate reads %d", path, e.Schema, EntrySchema)
	}
	return &e, nil
}
