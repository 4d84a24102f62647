package reporters

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/loadgate/loadgate/results"
)

// Names of the files WriteAll puts in the output directory.
const (
	ResultsFile  = "results.json"
	JUnitFile    = "junit.xml"
	MarkdownFile = "summary.md"
)

// WriteFileAtomic writes a file so that readers see either the previous
// content or the complete new content, never a torn file: write goes to a
// temporary file in the same directory, which is flushed to disk and then
// renamed over path. On any error the temporary file is removed, path is
// left untouched, and the error is returned wrapped with the path.
func WriteFileAtomic(path string, write func(io.Writer) error) error {
	var set FileSet
	set.Add(path, write)
	return set.Commit()
}

// FileSet writes several files as one output: each is written in full to a
// temporary file beside its destination, and only when every one of them
// was written are they renamed into place. A failed write (a full disk)
// leaves every destination as it was, so a directory never holds one run's
// results.json next to another run's junit.xml. The zero value is ready.
type FileSet struct {
	// JUnit are the options of the junit.xml that AddAll writes.
	JUnit JUnitOptions

	staged []stagedFile
	errs   []error
}

type stagedFile struct{ tmp, path string }

// Add writes path's new content to a temporary file now; Commit puts it in
// place. A failure is kept for Commit to report.
func (s *FileSet) Add(path string, write func(io.Writer) error) {
	tmp, err := stage(path, write)
	if err != nil {
		s.errs = append(s.errs, err)
		return
	}
	s.staged = append(s.staged, stagedFile{tmp: tmp, path: path})
}

// Commit renames every staged file into place, or, when any Add failed,
// removes them all and returns every failure.
func (s *FileSet) Commit() error {
	if len(s.errs) > 0 {
		for _, f := range s.staged {
			if err := os.Remove(f.tmp); err != nil && !errors.Is(err, os.ErrNotExist) {
				s.errs = append(s.errs, fmt.Errorf("remove temporary file: %w", err))
			}
		}
		s.staged = nil
		return errors.Join(s.errs...)
	}
	var errs []error
	for _, f := range s.staged {
		// A rename within a directory does not fail for want of space; if it
		// fails anyway the remaining files are still put in place, since a
		// newer report beats none.
		if err := os.Rename(f.tmp, f.path); err != nil {
			errs = append(errs, fmt.Errorf("write %s: %w", f.path, err))
			_ = os.Remove(f.tmp)
		}
	}
	s.staged = nil
	return errors.Join(errs...)
}

// stage writes a temporary file beside path, flushed to disk, and returns
// its name; on error nothing is left behind.
func stage(path string, write func(io.Writer) error) (name string, err error) {
	dir, base := filepath.Split(path)
	if dir == "" {
		dir = "."
	}
	tmp, err := os.CreateTemp(dir, "."+base+".tmp-*")
	if err != nil {
		return "", fmt.Errorf("write %s: %w", path, err)
	}
	tmpName := tmp.Name()
	closed := false
	defer func() {
		if err == nil {
			return
		}
		if !closed {
			_ = tmp.Close() // the write already failed; that error wins
		}
		if rmErr := os.Remove(tmpName); rmErr != nil && !errors.Is(rmErr, os.ErrNotExist) {
			err = errors.Join(err, fmt.Errorf("remove temporary file: %w", rmErr))
		}
	}()

	bw := bufio.NewWriter(tmp)
	if err := write(bw); err != nil {
		return "", fmt.Errorf("write %s: %w", path, err)
	}
	if err := bw.Flush(); err != nil {
		return "", fmt.Errorf("write %s: %w", path, err)
	}
	// Without the sync a crash after the rename can leave an empty file
	// under the final name on some file systems.
	if err := tmp.Sync(); err != nil {
		return "", fmt.Errorf("write %s: sync: %w", path, err)
	}
	// CreateTemp makes the file private; reports are meant to be shared.
	if err := tmp.Chmod(0o644); err != nil {
		return "", fmt.Errorf("write %s: %w", path, err)
	}
	closed = true
	if err := tmp.Close(); err != nil {
		return "", fmt.Errorf("write %s: close: %w", path, err)
	}
	return tmpName, nil
}

// AddAll stages results.json, junit.xml, summary.md and report.html in dir, creating
// the directory if needed.
func (s *FileSet) AddAll(dir string, run *results.Run) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		s.errs = append(s.errs, fmt.Errorf("create output directory: %w", err))
		return
	}
	for _, o := range []struct {
		name  string
		write func(io.Writer, *results.Run) error
	}{
		{ResultsFile, results.WriteJSON},
		{JUnitFile, s.JUnit.Write},
		{MarkdownFile, WriteMarkdown},
		{HTMLFile, WriteHTML},
	} {
		s.Add(filepath.Join(dir, o.name), func(w io.Writer) error { return o.write(w, run) })
	}
}
