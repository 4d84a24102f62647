package grpc

import (
	"context"
	"errors"
	"io"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/metadata"
	"google.golang.org/protobuf/encoding/protojson"
	"google.golang.org/protobuf/types/dynamicpb"

	"github.com/loadgate/loadgate/protocols"
	"github.com/loadgate/loadgate/scenarios"
)

// grpcFrame is the length prefix gRPC puts before every message: a
// compression flag and a four-byte length.
const grpcFrame = 5

// client sends one worker's calls on the connection it was given.
type client struct {
	s       *Shared
	c       *conn
	timeout time.Duration
	env     protocols.RenderEnv
	req     request
	resp    response
	json    []byte // the rendered message, reused
	// md is the call's metadata, reused from call to call: the library
	// reads it when the call starts, before Do can change it again.
	md      metadata.MD
	mdVals  [][]string // md's value slices, in target.Metadata order
	mdBuf   []byte
	desc    grpc.StreamDesc
	unmarsh protojson.UnmarshalOptions
}

// NewClient makes the client of worker w: it sends on connection
// w % connections.
func (s *Shared) NewClient(t *scenarios.Target, worker int) (protocols.Client, error) {
	c := &client{s: s, c: s.conns[worker%len(s.conns)], timeout: s.target.Timeout,
		env: protocols.NewRenderEnv(worker), desc: grpc.StreamDesc{ServerStreams: true}}
	if c.timeout <= 0 {
		c.timeout = 30 * time.Second
	}
	if s.static != nil {
		c.req.static, c.req.size = s.static, s.staticSize
	} else {
		c.req.msg = dynamicpb.NewMessage(s.method.Input())
	}
	if len(s.target.Metadata) > 0 {
		c.md = metadata.MD{}
		for _, h := range s.target.Metadata {
			v := []string{""}
			c.md[h.Name] = v
			c.mdVals = append(c.mdVals, v)
		}
	}
	return c, nil
}

// Close does nothing: the connections belong to the case (Shared).
func (c *client) Close() error { return nil }

// Do makes one call and waits for its status.
func (c *client) Do(ctx context.Context, _ int, out *protocols.Outcome) {
	*out = protocols.Outcome{}
	c.env.Next()
	if c.req.msg != nil {
		c.json = c.env.Render(c.json[:0], &c.s.target.Message)
		if err := c.unmarsh.Unmarshal(c.json, c.req.msg); err != nil {
			out.Kind, out.Err = protocols.KindOther, err
			return
		}
	}
	callCtx, cancel := context.WithTimeout(ctx, c.timeout)
	defer cancel()
	if c.md != nil {
		c.renderMetadata()
		callCtx = metadata.NewOutgoingContext(callCtx, c.md)
	}
	c.resp = response{}
	var err error
	if c.s.stream {
		err = c.serverStream(callCtx)
	} else {
		err = c.c.cc.Invoke(callCtx, c.s.path, &c.req, &c.resp, c.s.opts...)
	}
	out.BytesSent = int64(c.req.size + grpcFrame)
	out.BytesReceived = c.resp.bytes + grpcFrame*c.resp.messages
	out.Messages = c.resp.messages
	if c.c.handshakes.Load() != 0 {
		out.Connect = time.Duration(c.c.handshakes.Swap(0))
	}
	if err != nil || !c.s.accepts(0) {
		c.fail(ctx, err, out)
	}
}

// serverStream sends the request, reads every message and returns the
// call's end: nil for OK, else the status error.
func (c *client) serverStream(ctx context.Context) error {
	st, err := c.c.cc.NewStream(ctx, &c.desc, c.s.path, c.s.opts...)
	if err != nil {
		return err
	}
	if err := st.SendMsg(&c.req); err != nil && !errors.Is(err, io.EOF) {
		return err
	}
	if err := st.CloseSend(); err != nil {
		return err
	}
	for {
		if err := st.RecvMsg(&c.resp); err != nil {
			if errors.Is(err, io.EOF) {
				return nil
			}
			return err
		}
	}
}

// renderMetadata renders the metadata values of this call. A value
// without placeholders is rendered once.
func (c *client) renderMetadata() {
	for i := range c.s.target.Metadata {
		h := &c.s.target.Metadata[i]
		if !hasPlaceholders(&h.Value) && c.mdVals[i][0] != "" {
			continue
		}
		c.mdBuf = c.env.Render(c.mdBuf[:0], &h.Value)
		c.mdVals[i][0] = string(c.mdBuf)
	}
}
