package reporters

import (
	"bytes"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/loadgate/loadgate/results"
)

// entries lists a directory, to catch temporary files left behind.
func entries(t *testing.T, dir string) []string {
	t.Helper()
	des, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, de := range des {
		names = append(names, de.Name())
	}
	return names
}

func TestWriteFileAtomic(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "out.txt")
	if err := WriteFileAtomic(path, func(w io.Writer) error {
		_, err := io.WriteString(w, "new")
		return err
	}); err != nil {
		t.Fatal(err)
	}
	got, err := os.ReadFile(path)
	if err != nil || string(got) != "new" {
		t.Fatalf("content = %q, %v", got, err)
	}
	if fi, err := os.Stat(path); err != nil || fi.Mode().Perm() != 0o644 {
		t.Errorf("mode = %v, %v; want 0644", fi.Mode().Perm(), err)
	}
	if names := entries(t, dir); len(names) != 1 {
		t.Errorf("directory holds %v, want only out.txt", names)
	}
}

func TestWriteFileAtomicFailureKeepsOldFile(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "results.json")
	if err := os.WriteFile(path, []byte("old"), 0o644); err != nil {
		t.Fatal(err)
	}
	boom := errors.New("disk full")
	err := WriteFileAtomic(path, func(w io.Writer) error {
		// Enough to be flushed to the temporary file before failing.
		if _, err := w.Write(bytes.Repeat([]byte("x"), 64<<10)); err != nil {
			return err
		}
		return boom
	})
	if !errors.Is(err, boom) {
		t.Fatalf("err = %v, want it to wrap the write error", err)
	}
	got, rerr := os.ReadFile(path)
	if rerr != nil || string(got) != "old" {
		t.Errorf("existing file clobbered: %q, %v", got, rerr)
	}
	if names := entries(t, dir); len(names) != 1 {
		t.Errorf("temporary file left behind: %v", names)
	}
}

func TestWriteFileAtomicMissingDir(t *testing.T) {
	err := WriteFileAtomic(filepath.Join(t.TempDir(), "nope", "f"), func(io.Writer) error { return nil })
	if !errors.Is(err, os.ErrNotExist) {
		t.Errorf("err = %v, want a wrapped not-exist error", err)
	}
}

func TestWriteAll(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "loadgate-results")
	run := fixtureRun()
	if err := writeAll(dir, run); err != nil {
		t.Fatal(err)
	}
	for name, render := range map[string]func(io.Writer, *results.Run) error{
		ResultsFile: results.WriteJSON, JUnitFile: WriteJUnit, MarkdownFile: WriteMarkdown, HTMLFile: WriteHTML,
	} {
		var want bytes.Buffer
		if err := render(&want, run); err != nil {
			t.Fatal(err)
		}
		got, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got, want.Bytes()) {
			t.Errorf("%s differs from its renderer's output", name)
		}
	}
	if names := entries(t, dir); len(names) != 4 {
		t.Errorf("directory holds %v, want the four reports", names)
	}
}

func TestWriteAllUnwritable(t *testing.T) {
	// A regular file where the directory should be: nothing can be created.
	file := filepath.Join(t.TempDir(), "taken")
	if err := os.WriteFile(file, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := writeAll(file, fixtureRun()); err == nil {
		t.Error("WriteAll into a file succeeded")
	}
}

func TestRenderersReportWriteErrors(t *testing.T) {
	run := fixtureRun()
	for name, render := range map[string]func(io.Writer, *results.Run) error{
		"json": results.WriteJSON, "junit": WriteJUnit, "markdown": WriteMarkdown, "html": WriteHTML,
	} {
		if err := render(failingWriter{}, run); !errors.Is(err, os.ErrClosed) {
			t.Errorf("%s: err = %v, want the write error", name, err)
		}
	}
}

func TestFileSetFailureKeepsEveryOldFile(t *testing.T) {
	dir := t.TempDir()
	names := []string{"results.json", "junit.xml", "summary.md"}
	for _, n := range names {
		if err := os.WriteFile(filepath.Join(dir, n), []byte("old"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write := func(w io.Writer) error { _, err := io.WriteString(w, "new"); return err }
	var set FileSet
	set.Add(filepath.Join(dir, names[0]), write)
	set.Add(filepath.Join(dir, names[1]), func(io.Writer) error { return errors.New("disk full") })
	set.Add(filepath.Join(dir, names[2]), write)
	if err := set.Commit(); err == nil || !strings.Contains(err.Error(), "disk full") {
		t.Fatalf("Commit = %v, want the write failure", err)
	}
	for _, n := range names {
		if got, _ := os.ReadFile(filepath.Join(dir, n)); string(got) != "old" {
			t.Errorf("%s = %q: a failed set replaced some of the files", n, got)
		}
	}
	if got := entries(t, dir); len(got) != len(names) {
		t.Errorf("directory holds %v: temporary files were left behind", got)
	}
}

func TestFileSetCommitsEveryFile(t *testing.T) {
	dir := t.TempDir()
	var set FileSet
	for _, n := range []string{"a", "b"} {
		set.Add(filepath.Join(dir, n), func(w io.Writer) error { _, err := io.WriteString(w, n); return err })
	}
	if err := set.Commit(); err != nil {
		t.Fatal(err)
	}
	for _, n := range []string{"a", "b"} {
		if got, _ := os.ReadFile(filepath.Join(dir, n)); string(got) != n {
			t.Errorf("%s = %q", n, got)
		}
	}
	if got := entries(t, dir); len(got) != 2 {
		t.Errorf("directory holds %v", got)
	}
}

// writeAll writes every report of run into dir as one FileSet, as the
// run command does: all of them, or, when one cannot be written, none.
func writeAll(dir string, run *results.Run) error {
	var set FileSet
	set.AddAll(dir, run)
	return set.Commit()
}
