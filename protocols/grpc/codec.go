package grpc

import (
	"fmt"

	"google.golang.org/grpc/mem"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/types/dynamicpb"
)

// codec moves messages between a client and the gRPC library without
// decoding responses: a load test checks a call's status, so parsing every
// response message would only spend the generator's CPU. Its name is
// "proto", so the wire is what any protobuf codec produces.
type codec struct{}

// request is what a call sends: the wire form of a message without
// placeholders, made once, or the dynamic message a worker rebuilt.
type request struct {
	static mem.BufferSlice    // set when the message never changes
	msg    *dynamicpb.Message // otherwise
	size   int                // bytes of the last marshalled message
}

// response counts what a call received.
type response struct {
	messages int64
	bytes    int64
}

// Marshal returns the request's wire form. The static form is shared by
// every call: the library writes it out and frees it, which for a slice
// buffer does nothing, so it is never copied. A rebuilt message goes into
// a pooled buffer the library frees once it has been written, since the
// next call may start before then.
func (codec) Marshal(v any) (mem.BufferSlice, error) {
	r, ok := v.(*request)
	if !ok {
		return nil, fmt.Errorf("grpc codec: cannot send %T", v)
	}
	if r.static != nil {
		return r.static, nil
	}
	size := proto.Size(r.msg)
	pool := mem.DefaultBufferPool()
	buf := pool.Get(size)
	out, err := proto.MarshalOptions{UseCachedSize: true}.MarshalAppend((*buf)[:0], r.msg)
	if err != nil {
		pool.Put(buf)
		return nil, fmt.Errorf("grpc codec: %w", err)
	}
	*buf = out
	r.size = len(out)
	return mem.BufferSlice{mem.NewBuffer(buf, pool)}, nil
}

// Unmarshal counts one received message and its bytes.
func (codec) Unmarshal(data mem.BufferSlice, v any) error {
	r, ok := v.(*response)
	if !ok {
		return fmt.Errorf("grpc codec: cannot receive into %T", v)
	}
	r.messages++
	r.bytes += int64(data.Len())
	return nil
}

// Name is the content subtype: application/grpc+proto.
func (codec) Name() string { return "proto" }

// staticRequest is the wire form of msg, for every call of a message
// without placeholders.
func staticRequest(msg proto.Message) (mem.BufferSlice, int, error) {
	b, err := proto.Marshal(msg)
	if err != nil {
		return nil, 0, err
	}
	return mem.BufferSlice{mem.SliceBuffer(b)}, len(b), nil
}
