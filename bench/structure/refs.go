package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"go/ast"
	"go/importer"
	"go/parser"
	"go/token"
	"go/types"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
)

// listed is what `go list -export -deps -json` says of one package.
type listed struct {
	ImportPath, Dir, Export string
	GoFiles                 []string
}

// typedRefs are, per package directory, the uses in one production file of
// a package-level name or a method that another file of the package
// defines, each (from, to, name) once. Types decide what a name is, so a
// field or a local that shares a method's name is no reference; the build
// is the current platform's (go list's GoFiles).
func typedRefs(root, modPath string) (map[string][]crossRef, error) {
	root, err := filepath.Abs(root)
	if err != nil {
		return nil, err
	}
	cmd := exec.Command("go", "list", "-export", "-deps", "-json=ImportPath,Dir,Export,GoFiles", "./...")
	cmd.Dir = root
	cmd.Stderr = os.Stderr
	out, err := cmd.Output()
	if err != nil {
		return nil, fmt.Errorf("go list: %w", err)
	}
	exports := map[string]string{}
	var local []listed
	dec := json.NewDecoder(bytes.NewReader(out))
	for {
		var l listed
		if err := dec.Decode(&l); err == io.EOF {
			break
		} else if err != nil {
			return nil, fmt.Errorf("go list output: %w", err)
		}
		exports[l.ImportPath] = l.Export
		if l.ImportPath == modPath || strings.HasPrefix(l.ImportPath, modPath+"/") {
			local = append(local, l)
		}
	}
	fset := token.NewFileSet()
	imp := importer.ForCompiler(fset, "gc", func(path string) (io.ReadCloser, error) {
		if exports[path] == "" {
			return nil, fmt.Errorf("no export data for %s", path)
		}
		return os.Open(exports[path])
	})
	refs := map[string][]crossRef{}
	for _, l := range local {
		r, err := packageRefs(fset, imp, root, l)
		if err != nil {
			return nil, err
		}
		rel, _ := filepath.Rel(root, l.Dir)
		refs[filepath.ToSlash(rel)] = r
	}
	return refs, nil
}

func packageRefs(fset *token.FileSet, imp types.Importer, root string, l listed) ([]crossRef, error) {
	var files []*ast.File
	for _, name := range l.GoFiles {
		f, err := parser.ParseFile(fset, filepath.Join(l.Dir, name), nil, 0)
		if err != nil {
			return nil, err
		}
		files = append(files, f)
	}
	info := &types.Info{Uses: map[*ast.Ident]types.Object{}}
	conf := types.Config{Importer: imp, Error: func(error) {}}
	pkg, _ := conf.Check(l.ImportPath, fset, files, info)
	if pkg == nil {
		return nil, fmt.Errorf("type-check %s failed", l.ImportPath)
	}
	rel := func(pos token.Pos) string {
		r, _ := filepath.Rel(root, fset.Position(pos).Filename)
		return filepath.ToSlash(r)
	}
	seen := map[crossRef]bool{}
	var out []crossRef
	for id, obj := range info.Uses {
		if obj.Pkg() != pkg || !isNamed(pkg, obj) {
			continue
		}
		r := crossRef{from: rel(id.Pos()), to: rel(obj.Pos()), name: obj.Name()}
		if r.from != r.to && !seen[r] {
			seen[r] = true
			out = append(out, r)
		}
	}
	return out, nil
}

// isNamed reports whether obj is a package-level name or a method: what a
// reader looks up in another file.
func isNamed(pkg *types.Package, obj types.Object) bool {
	if obj.Parent() == pkg.Scope() {
		return true
	}
	fn, ok := obj.(*types.Func)
	return ok && fn.Signature().Recv() != nil
}
