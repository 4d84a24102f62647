package main

import (
	"bufio"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
)

// module is every Go package under a module's root, parsed.
type module struct {
	path     string // the module path from go.mod
	packages []*pkg
	// tests are the test files, which only count as users of exported names.
	tests []*ast.File
	fset  *token.FileSet
}

type pkg struct {
	dir      string // relative to the module root, "." for the root
	files    []*file
	jsonTags int
}

type file struct {
	path  string // relative to the module root
	lines int
	ast   *ast.File
}

type longFunc struct {
	file, name string
	lines      int
}

// crossRef is one use in file from of a name defined in file to.
type crossRef struct {
	from, to, name string
}

func readModule(root string) (*module, error) {
	modPath, err := modulePath(filepath.Join(root, "go.mod"))
	if err != nil {
		return nil, err
	}
	m := &module{path: modPath}
	byDir := map[string]*pkg{}
	fset := token.NewFileSet()
	err = filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if name := d.Name(); path != root && (name == "testdata" || strings.HasPrefix(name, ".")) {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(path, ".go") {
			return nil
		}
		f, err := parser.ParseFile(fset, path, nil, parser.SkipObjectResolution)
		if err != nil {
			return fmt.Errorf("parse %s: %w", path, err)
		}
		if strings.HasSuffix(path, "_test.go") {
			m.tests = append(m.tests, f)
			return nil
		}
		rel, _ := filepath.Rel(root, path)
		dir := filepath.ToSlash(filepath.Dir(rel))
		p := byDir[dir]
		if p == nil {
			p = &pkg{dir: dir}
			byDir[dir] = p
			m.packages = append(m.packages, p)
		}
		p.files = append(p.files, &file{path: filepath.ToSlash(rel), lines: fset.Position(f.End()).Line, ast: f})
		p.jsonTags += countJSONTags(f)
		return nil
	})
	if err != nil {
		return nil, err
	}
	sort.Slice(m.packages, func(i, j int) bool { return m.packages[i].dir < m.packages[j].dir })
	m.fset = fset
	return m, nil
}

func modulePath(goMod string) (string, error) {
	f, err := os.Open(goMod)
	if err != nil {
		return "", err
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if rest, ok := strings.CutPrefix(sc.Text(), "module "); ok {
			return strings.TrimSpace(rest), nil
		}
	}
	return "", fmt.Errorf("%s: no module line", goMod)
}

func countJSONTags(f *ast.File) int {
	n := 0
	ast.Inspect(f, func(node ast.Node) bool {
		if field, ok := node.(*ast.Field); ok && field.Tag != nil {
			if tag, err := strconv.Unquote(field.Tag.Value); err == nil && strings.Contains(tag, `json:"`) {
				n++
			}
		}
		return true
	})
	return n
}

func (p *pkg) lines() int {
	n := 0
	for _, f := range p.files {
		n += f.lines
	}
	return n
}

// localImports are the packages of this module that p's files import.
func (m *module) localImports(p *pkg) []string {
	seen := map[string]bool{}
	for _, f := range p.files {
		for _, imp := range f.ast.Imports {
			path, _ := strconv.Unquote(imp.Path.Value)
			if rest, ok := strings.CutPrefix(path, m.path+"/"); ok {
				seen[rest] = true
			}
		}
	}
	out := make([]string, 0, len(seen))
	for dir := range seen {
		out = append(out, dir)
	}
	sort.Strings(out)
	return out
}

// definedIn maps each package-level name of p, methods included, to the
// files that define it.
func (p *pkg) definedIn() map[string][]string {
	defs := map[string][]string{}
	add := func(name, path string) {
		if name != "_" {
			defs[name] = append(defs[name], path)
		}
	}
	for _, f := range p.files {
		for _, decl := range f.ast.Decls {
			switch d := decl.(type) {
			case *ast.FuncDecl:
				if d.Name.Name != "init" {
					add(d.Name.Name, f.path)
				}
			case *ast.GenDecl:
				for _, spec := range d.Specs {
					switch s := spec.(type) {
					case *ast.TypeSpec:
						add(s.Name.Name, f.path)
					case *ast.ValueSpec:
						for _, n := range s.Names {
							add(n.Name, f.path)
						}
					}
				}
			}
		}
	}
	return defs
}

// toSpecific keeps the references from a file whose name does not match
// specific into one whose name does.
func toSpecific(refs []crossRef, specific *regexp.Regexp) []crossRef {
	var out []crossRef
	for _, r := range refs {
		if !specific.MatchString(filepath.Base(r.from)) && specific.MatchString(filepath.Base(r.to)) {
			out = append(out, r)
		}
	}
	return out
}

func (m *module) longFuncs(limit int) []longFunc {
	var out []longFunc
	for _, p := range m.packages {
		for _, f := range p.files {
			for _, decl := range f.ast.Decls {
				fn, ok := decl.(*ast.FuncDecl)
				if !ok || fn.Body == nil {
					continue
				}
				n := m.fset.Position(fn.End()).Line - m.fset.Position(fn.Pos()).Line + 1
				if n > limit {
					out = append(out, longFunc{file: f.path, name: funcName(fn), lines: n})
				}
			}
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].lines > out[j].lines })
	return out
}

func funcName(fn *ast.FuncDecl) string {
	if fn.Recv == nil || len(fn.Recv.List) == 0 {
		return fn.Name.Name
	}
	t := fn.Recv.List[0].Type
	if star, ok := t.(*ast.StarExpr); ok {
		t = star.X
	}
	if idx, ok := t.(*ast.IndexExpr); ok {
		t = idx.X
	}
	if id, ok := t.(*ast.Ident); ok {
		return id.Name + "." + fn.Name.Name
	}
	return fn.Name.Name
}

// exportedUnusedElsewhere lists the exported package-level names of
// importable packages that no file of another package, tests included,
// names as pkg.Name. Commands (package main) export nothing to anyone.
func (m *module) exportedUnusedElsewhere() []string {
	used := map[string]bool{} // "dir.Name"
	files := append([]*ast.File(nil), m.tests...)
	for _, p := range m.packages {
		for _, f := range p.files {
			files = append(files, f.ast)
		}
	}
	for _, f := range files {
		names := map[string]string{} // local import name → dir
		for _, imp := range f.Imports {
			path, _ := strconv.Unquote(imp.Path.Value)
			rest, ok := strings.CutPrefix(path, m.path+"/")
			if !ok {
				continue
			}
			name := filepath.Base(rest)
			if imp.Name != nil {
				name = imp.Name.Name
			}
			names[name] = rest
		}
		ast.Inspect(f, func(node ast.Node) bool {
			if sel, ok := node.(*ast.SelectorExpr); ok {
				if x, ok := sel.X.(*ast.Ident); ok && names[x.Name] != "" {
					used[names[x.Name]+"."+sel.Sel.Name] = true
				}
			}
			return true
		})
	}
	var out []string
	for _, p := range m.packages {
		if p.files[0].ast.Name.Name == "main" {
			continue
		}
		for name := range p.definedIn() {
			if ast.IsExported(name) && !used[p.dir+"."+name] && !isMethodOnly(p, name) {
				out = append(out, p.dir+"."+name)
			}
		}
	}
	sort.Strings(out)
	return out
}

// isMethodOnly reports whether every definition of name in p is a method:
// methods are used through values, which a syntax-only reading cannot
// follow, so they are left out of the exported-names count.
func isMethodOnly(p *pkg, name string) bool {
	for _, f := range p.files {
		for _, decl := range f.ast.Decls {
			if fn, ok := decl.(*ast.FuncDecl); ok && fn.Name.Name == name && fn.Recv == nil {
				return false
			}
			if gd, ok := decl.(*ast.GenDecl); ok {
				for _, spec := range gd.Specs {
					switch s := spec.(type) {
					case *ast.TypeSpec:
						if s.Name.Name == name {
							return false
						}
					case *ast.ValueSpec:
						for _, n := range s.Names {
							if n.Name == name {
								return false
							}
						}
					}
				}
			}
		}
	}
	return true
}
