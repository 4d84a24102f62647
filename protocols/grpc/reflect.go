package grpc

import (
	"context"
	"fmt"
	"sort"
	"strings"

	"google.golang.org/grpc"
	rpb "google.golang.org/grpc/reflection/grpc_reflection_v1"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protodesc"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/reflect/protoregistry"
	"google.golang.org/protobuf/types/descriptorpb"
)

// reflect resolves the target's method from the server's reflection
// service (grpc.reflection.v1), within the target's timeout. A method the
// server does not offer, or one loadgate cannot call, is an error: the
// run could not be carried out, and nothing was sent but the questions.
func (s *Shared) reflect(ctx context.Context, target string) error {
	ctx, cancel := context.WithTimeout(ctx, s.target.Timeout)
	defer cancel()
	md, err := resolveMethod(ctx, s.conns[0].cc, s.target.Service, s.target.MethodName)
	if err != nil {
		return fmt.Errorf("target %q: reflection at %s: %w", target, s.target.Address, err)
	}
	if md.IsStreamingClient() {
		return fmt.Errorf("target %q: reflection at %s: %s is client-streaming or bidirectional; only unary and server-streaming methods can be called",
			target, s.target.Address, s.target.Method)
	}
	s.method, s.stream = md, md.IsStreamingServer()
	return nil
}

// reflector asks one reflection stream for files until every dependency
// of the service's file is known.
type reflector struct {
	stream grpc.BidiStreamingClient[rpb.ServerReflectionRequest, rpb.ServerReflectionResponse]
	files  map[string]*descriptorpb.FileDescriptorProto
}

// resolveMethod fetches the files that define service and their imports,
// and finds method in them.
func resolveMethod(ctx context.Context, cc *grpc.ClientConn, service, method string) (protoreflect.MethodDescriptor, error) {
	stream, err := rpb.NewServerReflectionClient(cc).ServerReflectionInfo(ctx)
	if err != nil {
		return nil, err
	}
	defer func() { _ = stream.CloseSend() }()
	r := &reflector{stream: stream, files: map[string]*descriptorpb.FileDescriptorProto{}}
	resp, err := r.ask(&rpb.ServerReflectionRequest{
		MessageRequest: &rpb.ServerReflectionRequest_FileContainingSymbol{FileContainingSymbol: service}})
	if err != nil {
		return nil, err
	}
	if e := resp.GetErrorResponse(); e != nil {
		return nil, fmt.Errorf("the server has no service %q (%s)%s", service, e.GetErrorMessage(), r.offered())
	}
	if err := r.add(resp); err != nil {
		return nil, err
	}
	files, err := r.complete()
	if err != nil {
		return nil, err
	}
	d, err := files.FindDescriptorByName(protoreflect.FullName(service))
	if err != nil {
		return nil, fmt.Errorf("the server has no service %q%s", service, r.offered())
	}
	sd, ok := d.(protoreflect.ServiceDescriptor)
	if !ok {
		return nil, fmt.Errorf("%q is not a service", service)
	}
	md := sd.Methods().ByName(protoreflect.Name(method))
	if md == nil {
		return nil, fmt.Errorf("service %q has no method %q (it has %s)", service, method, methodNames(sd))
	}
	return md, nil
}

func (r *reflector) ask(req *rpb.ServerReflectionRequest) (*rpb.ServerReflectionResponse, error) {
	if err := r.stream.Send(req); err != nil {
		return nil, err
	}
	return r.stream.Recv()
}

// add keeps the files of a file descriptor response.
func (r *reflector) add(resp *rpb.ServerReflectionResponse) error {
	for _, b := range resp.GetFileDescriptorResponse().GetFileDescriptorProto() {
		fd := &descriptorpb.FileDescriptorProto{}
		if err := proto.Unmarshal(b, fd); err != nil {
			return fmt.Errorf("a file descriptor does not parse: %w", err)
		}
		r.files[fd.GetName()] = fd
	}
	return nil
}

// complete fetches every missing import, taking well-known types the
// server does not serve from those compiled into loadgate, and builds the
// files.
func (r *reflector) complete() (*protoregistry.Files, error) {
	for {
		missing := ""
		for _, fd := range r.files {
			for _, dep := range fd.GetDependency() {
				if r.files[dep] == nil {
					missing = dep
				}
			}
		}
		if missing == "" {
			break
		}
		resp, err := r.ask(&rpb.ServerReflectionRequest{
			MessageRequest: &rpb.ServerReflectionRequest_FileByFilename{FileByFilename: missing}})
		if err != nil {
			return nil, err
		}
		if resp.GetErrorResponse() == nil {
			if err := r.add(resp); err != nil {
				return nil, err
			}
		}
		if r.files[missing] == nil {
			known, err := protoregistry.GlobalFiles.FindFileByPath(missing)
			if err != nil {
				return nil, fmt.Errorf("the server does not serve %s, an import", missing)
			}
			r.files[missing] = protodesc.ToFileDescriptorProto(known)
		}
	}
	set := &descriptorpb.FileDescriptorSet{}
	for _, fd := range r.files {
		set.File = append(set.File, fd)
	}
	files, err := protodesc.NewFiles(set)
	if err != nil {
		return nil, fmt.Errorf("the server's descriptors do not build: %w", err)
	}
	return files, nil
}

// offered lists the server's services for an error message, or nothing
// when it cannot say.
func (r *reflector) offered() string {
	resp, err := r.ask(&rpb.ServerReflectionRequest{
		MessageRequest: &rpb.ServerReflectionRequest_ListServices{ListServices: "*"}})
	if err != nil {
		return ""
	}
	var names []string
	for _, s := range resp.GetListServicesResponse().GetService() {
		names = append(names, s.GetName())
	}
	if len(names) == 0 {
		return ""
	}
	sort.Strings(names)
	return "; it offers " + strings.Join(names, ", ")
}

func methodNames(sd protoreflect.ServiceDescriptor) string {
	var names []string
	for i := range sd.Methods().Len() {
		names = append(names, string(sd.Methods().Get(i).Name()))
	}
	return strings.Join(names, ", ")
}
