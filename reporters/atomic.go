package reporters

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
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
func WriteFileAtomic(path string, write func(io.Writer) error) (err error) {
	dir, base := filepath.Split(path)
	if dir == "" {
		dir = "."
	}
	tmp, err := os.CreateTemp(dir, "."+base+".tmp-*")
	if err != nil {
		return fmt.Errorf("write %s: %w", path, err)
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
		return fmt.Errorf("write %s: %w", path, err)
	}
	if err := bw.Flush(); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	// Without the sync a crash after the rename can leave an empty file
	// under the final name on some file systems.
	if err := tmp.Sync(); err != nil {
		return fmt.Errorf("write %s: sync: %w", path, err)
	}
	// CreateTemp makes the file private; reports are meant to be shared.
	if err := tmp.Chmod(0o644); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	closed = true
	if err := tmp.Close(); err != nil {
		return fmt.Errorf("write %s: close: %w", path, err)
	}
	if err := os.Rename(tmpName, path); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	return nil
}

// WriteAll writes results.json, junit.xml and summary.md into dir, creating
// it if needed. Each file is written atomically. A failure to write one file
// does not stop the others, since partial reports are still worth having;
// every failure is returned.
func WriteAll(dir string, run *Run) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("create output directory: %w", err)
	}
	outputs := []struct {
		name  string
		write func(io.Writer, *Run) error
	}{
		{ResultsFile, WriteJSON},
		{JUnitFile, WriteJUnit},
		{MarkdownFile, WriteMarkdown},
	}
	var errs []error
	for _, o := range outputs {
		err := WriteFileAtomic(filepath.Join(dir, o.name), func(w io.Writer) error {
			return o.write(w, run)
		})
		errs = append(errs, err)
	}
	return errors.Join(errs...)
}
