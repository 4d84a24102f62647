// Package testbin builds a command once for all the tests of a package
// that run it as a process, and removes it when they are done.
package testbin

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"testing"
)

// Binary is a command built on first use. A package keeps one in a
// package variable and removes it from its TestMain (Main): a t.TempDir
// would remove it after the first test that asked for it.
type Binary struct {
	pkg  string // the package to build, as go build takes it
	once sync.Once
	dir  string
	path string
	err  error
}

// New is the binary of package pkg ("." or a relative path), not built yet.
func New(pkg string) *Binary { return &Binary{pkg: pkg} }

// Path builds the binary the first time it is asked for and returns its
// path; a failed build fails t, and every later test that asks.
func (b *Binary) Path(t testing.TB) string {
	t.Helper()
	b.once.Do(func() {
		dir, err := os.MkdirTemp("", "loadgate-test-bin")
		if err != nil {
			b.err = err
			return
		}
		b.dir, b.path = dir, filepath.Join(dir, filepath.Base(absPkg(b.pkg)))
		if out, err := exec.Command("go", "build", "-o", b.path, b.pkg).CombinedOutput(); err != nil {
			b.err = fmt.Errorf("build %s: %v\n%s", b.pkg, err, out)
		}
	})
	if b.err != nil {
		t.Fatal(b.err)
	}
	return b.path
}

// absPkg is pkg as a directory path, for the binary's name.
func absPkg(pkg string) string {
	if abs, err := filepath.Abs(pkg); err == nil {
		return abs
	}
	return pkg
}

// Remove deletes the binary, if it was built.
func (b *Binary) Remove() error {
	if b.dir == "" {
		return nil
	}
	return os.RemoveAll(b.dir)
}

// Main runs a package's tests and then removes the binary, for TestMain:
// os.Exit(testbin.Main(m, bin)).
func Main(m *testing.M, b *Binary) int {
	code := m.Run()
	if err := b.Remove(); err != nil {
		fmt.Fprintln(os.Stderr, "remove the test binary:", err)
		code = max(code, 1)
	}
	return code
}
