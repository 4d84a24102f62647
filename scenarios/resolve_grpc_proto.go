package scenarios

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/bufbuild/protocompile"
	"github.com/bufbuild/protocompile/linker"
	"github.com/bufbuild/protocompile/reporter"
	"go.yaml.in/yaml/v3"
	"google.golang.org/protobuf/reflect/protoreflect"
)

// maxProtoErrors bounds the diagnostics of one proto compilation: past
// the first few, a broken file only repeats itself.
const maxProtoErrors = 10

// protoSet is the result of compiling one list of proto files with one
// list of import paths; a scenario compiles each list once, however many
// matrix combinations use it.
type protoSet struct {
	files linker.Files // nil when the files did not compile
}

// methodDescriptor compiles the target's proto files and finds its
// method there; nil after reporting why not.
func (r *resolver) methodDescriptor(g *rawGRPC, out *GRPCTarget) protoreflect.MethodDescriptor {
	if r.d.judgeOnly {
		return nil
	}
	set := r.protoSet(g)
	if set == nil || set.files == nil {
		return nil
	}
	var services []string
	for _, f := range set.files {
		for i := range f.Services().Len() {
			services = append(services, string(f.Services().Get(i).FullName()))
		}
	}
	var sd protoreflect.ServiceDescriptor
	for _, f := range set.files {
		if d := f.FindDescriptorByName(protoreflect.FullName(out.Service)); d != nil {
			sd, _ = d.(protoreflect.ServiceDescriptor)
		}
	}
	if sd == nil {
		r.d.errorf(g.method, "method: the proto files define no service %q%s", out.Service, knownNames(out.Service, services))
		return nil
	}
	md := sd.Methods().ByName(protoreflect.Name(out.MethodName))
	if md == nil {
		var methods []string
		for i := range sd.Methods().Len() {
			methods = append(methods, string(sd.Methods().Get(i).Name()))
		}
		r.d.errorf(g.method, "method: service %s has no method %q%s", out.Service, out.MethodName, knownNames(out.MethodName, methods))
		return nil
	}
	return md
}

// knownNames suggests the closest of names to a misspelt one, or lists
// them when there are few.
func knownNames(name string, names []string) string {
	if s := suggest(name, names); s != "" {
		return s
	}
	if len(names) == 0 || len(names) > 8 {
		return ""
	}
	return " (it has " + strings.Join(names, ", ") + ")"
}

// protoSet resolves `proto:` and `import_paths:` and compiles the files,
// reporting problems in the scenario at the entries that name them and
// problems in a proto file at their place in that file.
func (r *resolver) protoSet(g *rawGRPC) *protoSet {
	var paths, dirs []string
	for _, n := range g.importPaths {
		s, ok := r.text(n)
		if !ok {
			return nil
		}
		dir := r.d.relPath(s)
		if info, err := os.Stat(dir); err != nil || !info.IsDir() {
			r.d.errorf(n, "import_paths: %q is not a directory", s)
			return nil
		}
		dirs = append(dirs, dir)
	}
	var names []string
	for _, n := range g.proto {
		s, ok := r.text(n)
		if !ok {
			return nil
		}
		path := findProto(r.d.relPath(s), s, dirs)
		if info, err := os.Stat(path); err != nil {
			r.d.errorf(n, "proto: cannot read %q: %s", s, describeIOError(err))
			return nil
		} else if !info.Mode().IsRegular() {
			r.d.errorf(n, "proto: cannot read %q: not a regular file", s)
			return nil
		}
		paths = append(paths, path)
		if len(g.importPaths) == 0 && !slices.Contains(dirs, filepath.Dir(path)) {
			dirs = append(dirs, filepath.Dir(path))
		}
	}
	if len(paths) == 0 {
		r.d.errorf(g.protoKey, "proto: needs at least one .proto file")
		return nil
	}
	for i, path := range paths {
		name, ok := importName(path, dirs)
		if !ok {
			r.d.errorf(g.proto[i], "proto: %q is in none of import_paths", g.proto[i].Value)
			return nil
		}
		names = append(names, name)
	}
	key := strings.Join(paths, "\x00") + "\x01" + strings.Join(dirs, "\x00")
	if set, ok := r.d.protos[key]; ok {
		return set
	}
	set := &protoSet{}
	set.files = r.compile(g.protoKey, names, dirs)
	if r.d.protos == nil {
		r.d.protos = map[string]*protoSet{}
	}
	r.d.protos[key] = set
	return set
}

// findProto is where proto file name is: relative to the scenario (path),
// or else, as protoc takes it, relative to one of the import paths.
func findProto(path, name string, dirs []string) string {
	if _, err := os.Stat(path); err == nil || filepath.IsAbs(name) {
		return path
	}
	for _, dir := range dirs {
		if p := filepath.Join(dir, name); fileExists(p) {
			return p
		}
	}
	return path
}

func fileExists(path string) bool {
	_, err := os.Stat(path)
	return err == nil
}

// importName is path relative to the first of dirs that holds it, the
// name under which proto files import it.
func importName(path string, dirs []string) (string, bool) {
	for _, dir := range dirs {
		rel, err := filepath.Rel(dir, path)
		if err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
			return filepath.ToSlash(rel), true
		}
	}
	return "", false
}

// compile compiles the named files, found in dirs, with the well-known
// types available as they are to protoc.
func (r *resolver) compile(at *yaml.Node, names, dirs []string) linker.Files {
	var found []reporter.ErrorWithPos
	rep := reporter.NewReporter(func(err reporter.ErrorWithPos) error {
		found = append(found, err)
		if len(found) >= maxProtoErrors {
			return err
		}
		return nil
	}, nil)
	c := protocompile.Compiler{
		Resolver: protocompile.WithStandardImports(&protocompile.SourceResolver{
			ImportPaths: dirs,
			// Only regular files, of bounded size: a proto path naming a
			// FIFO or /dev/zero must not hang or exhaust validation.
			Accessor: func(path string) (io.ReadCloser, error) {
				data, err := readRegular(path)
				if err != nil {
					return nil, err
				}
				return io.NopCloser(bytes.NewReader(data)), nil
			},
		}),
		Reporter: rep,
	}
	files, err := c.Compile(context.Background(), names...)
	if err == nil {
		return files
	}
	for _, e := range found {
		r.d.errs = append(r.d.errs, r.protoError(at, e, dirs))
	}
	if len(found) == 0 {
		r.d.errorf(at, "proto: %s", protoMessage(err))
	}
	return nil
}

// protoError places a compilation error in the proto file it is about,
// and names the scenario line that asked for the compilation.
func (r *resolver) protoError(at *yaml.Node, e reporter.ErrorWithPos, dirs []string) *Error {
	p := e.GetPosition()
	msg := fmt.Sprintf("proto: %s (compiling the proto: files of %s:%d)", protoMessage(e), filepath.Base(r.d.file), at.Line)
	if p.Filename == "" || p.Line == 0 {
		return Errorf(r.d.pos(at), "%s", msg)
	}
	file := p.Filename
	for _, dir := range dirs {
		if fileExists(filepath.Join(dir, p.Filename)) {
			file = filepath.Join(dir, p.Filename)
			break
		}
	}
	return Errorf(Pos{File: file, Line: p.Line, Col: p.Col}, "%s", msg)
}

// protoMessage is the text of a compilation error without the position
// that protocompile puts in front of it.
func protoMessage(err error) string {
	var ep reporter.ErrorWithPos
	if errors.As(err, &ep) {
		if inner := errors.Unwrap(ep); inner != nil {
			return inner.Error()
		}
	}
	return err.Error()
}
