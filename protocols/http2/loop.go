package http2

import (
	"errors"
	"fmt"
	"net"
	"net/url"

	"github.com/loadgate/loadgate/protocols"
	"github.com/loadgate/loadgate/protocols/evloop"
	"github.com/loadgate/loadgate/protocols/httpcheck"
	"github.com/loadgate/loadgate/protocols/sockets"
	"github.com/loadgate/loadgate/scenarios"
)

// HTTP/2 on the event loop: one goroutine drives a loop's share of the
// target's connections, parses the frames its reads push, and carries each
// of the engine's slots as one stream at a time, with no goroutine, lock
// or channel per stream. Slot i of a loop goes over its connection i mod
// C (C the loop's share of `connections:`), as worker w does over the
// pool's connection w mod C; the open model's arrivals go to the
// connections in turn.

// loopMaxFrame is the largest frame this client accepts, the protocol's
// default, which its SETTINGS do not raise.
const loopMaxFrame = 16384

// loopWindow is the flow-control window this client grants each stream
// and its connection: the loop counts a body's bytes and keeps none, so
// only the server's pace bounds what it sends, as h2load's 2^30-1.
const loopWindow = 1<<30 - 1

// loopUnsupported says why the event loop cannot serve target t, or ""
// when it can: h2c to one origin on this machine, judged by its status and
// length. TLS, flows and body checks are the pool's: over TLS the pool's
// connections, whose writes wait for every worker its reader woke, send a
// server like nginx fewer, fuller records than a loop that answers each
// record as it comes (bench/compare.sh -m h2tls: 0.95× the pool's
// requests per second at 1.09× its CPU per request).
func loopUnsupported(t *scenarios.Target) string {
	h := t.HTTP
	switch {
	case h == nil || !h.HTTP2:
		return "not an HTTP/2 target"
	case !evloop.Supported:
		return "no event loop on this system"
	case h.Flow != nil:
		return "a flow runs on workers"
	case h.Expect.BodyContains != "" || h.Expect.BodyRegex != nil:
		return "body checks read the body on workers"
	}
	var first *url.URL
	for i := range h.Requests {
		u, err := url.Parse(h.Requests[i].URL)
		switch {
		case err != nil:
			return err.Error()
		case u.Scheme != "http":
			return "TLS runs on workers"
		case first != nil && u.Host != first.Host:
			return "the requests reach several origins"
		case len(headerBlock(u, &h.Requests[i])) > loopMaxFrame:
			return "a request's headers need CONTINUATION frames"
		}
		first = u
	}
	return ""
}

// NewLoop makes an event loop of HTTP/2 target t that drives conns of its
// connections, or returns nil and why not when the target needs the
// pool's workers (see loopUnsupported).
func NewLoop(t *scenarios.Target, conns int) (protocols.Loop, string) {
	if why := loopUnsupported(t); why != "" {
		return nil, why
	}
	u, _ := url.Parse(t.HTTP.Requests[0].URL)
	addrs, why := sockets.Local(u.Hostname(), protocols.Port(u), net.DefaultResolver.LookupNetIP)
	if addrs == nil {
		return nil, why
	}
	return loopTo(t.HTTP, net.JoinHostPort(u.Hostname(), protocols.Port(u)), addrs, conns), ""
}

// loopTo makes the loop of target h whose conns connections go to addrs,
// the addresses of hostport.
func loopTo(h *scenarios.HTTPTarget, hostport string, addrs []*sockets.Addr, conns int) protocols.Loop {
	src := sockets.NewSources(h.LocalIPs, 0)
	addr := sockets.DialAddr(hostport)
	lt := loopTarget{
		expect:  httpcheck.NewExpectation(&h.Expect),
		maxBody: h.MaxBody,
		groups:  max(1, conns),
		ioErrs:  sockets.DialErrors{Addr: addr, OnConn: true},
		errH1:   fmt.Errorf("%s does not speak HTTP/2 with prior knowledge (h2c): it answered the preface with HTTP/1.x", hostport),
		errNoH2: fmt.Errorf("%s does not speak HTTP/2 with prior knowledge (h2c): its first frame is not SETTINGS", hostport),
	}
	for i := range h.Requests {
		r := &h.Requests[i]
		u, _ := url.Parse(r.URL)
		lt.reqs = append(lt.reqs, newLoopRequest(headerBlock(u, r), r.Body))
	}
	return newH2Loop(evloop.Config{
		Addrs:      addrs,
		Sources:    src,
		Timeout:    h.Timeout,
		ErrTimeout: fmt.Errorf("no complete response within %v (timeout)", h.Timeout),
		DialErrs:   &sockets.DialErrors{Addr: addr, Spread: src != nil},
	}, lt)
}

// loopTarget is what the event loop's HTTP/2 needs of the target.
type loopTarget struct {
	reqs    []loopRequest
	expect  *httpcheck.Expectation
	maxBody int64
	groups  int                // connections of the loop at a time
	ioErrs  sockets.DialErrors // of reads and writes on an open connection
	// Why a server is refused, made once.
	errH1, errNoH2 error
}

// loopRequest is one request of the target's mix as it goes on the wire:
// its HEADERS frame, whose stream id each stream writes in, and its body.
type loopRequest struct {
	headers []byte
	body    []byte
}

// Frame types and flags (RFC 9113 §6).
const (
	frameData         = 0x0
	frameHeaders      = 0x1
	frameRSTStream    = 0x3
	frameSettings     = 0x4
	framePushPromise  = 0x5
	framePing         = 0x6
	frameGoAway       = 0x7
	frameWindowUpdate = 0x8
	frameContinuation = 0x9

	flagEndStream  = 0x1
	flagAck        = 0x1
	flagEndHeaders = 0x4
	flagPadded     = 0x8
	flagPriority   = 0x20
)

// frameHeader is the 9 bytes that begin a frame.
func frameHeader(dst []byte, length int, typ, flags byte, id uint32) []byte {
	return append(dst, byte(length>>16), byte(length>>8), byte(length), typ, flags,
		byte(id>>24), byte(id>>16), byte(id>>8), byte(id))
}

func newLoopRequest(block, body []byte) loopRequest {
	flags := byte(flagEndHeaders)
	if len(body) == 0 {
		flags |= flagEndStream
	}
	return loopRequest{headers: append(frameHeader(nil, len(block), frameHeaders, flags, 0), block...), body: body}
}

// The loop's protocol errors, made once: a server that breaks the protocol
// on every connection costs no allocation per request.
var (
	errFrameSize    = errors.New("http/2: the server sent a frame larger than SETTINGS_MAX_FRAME_SIZE (frame size error)")
	errPush         = errors.New("http/2: the server sent PUSH_PROMISE, which this client disabled (protocol error)")
	errContinuation = errors.New("http/2: a header block was interrupted by another frame (protocol error)")
	errBadFrame     = errors.New("http/2: the server sent a malformed frame (protocol error)")
	errBadSetting   = errors.New("http/2: the server sent an invalid setting (protocol error)")
	errCompression  = errors.New("http/2: the server's header block does not decode (compression error)")
	errDataFirst    = errors.New("http/2: response DATA before its headers (protocol error)")
	errServerClosed = errors.New("http/2: the server closed the connection")
)

// resetErrors are the errors of a stream the server reset, by error code
// (RFC 9113 §7), made once; codes beyond get the last.
var resetErrors = func() []error {
	names := []string{"NO_ERROR", "PROTOCOL_ERROR", "INTERNAL_ERROR", "FLOW_CONTROL_ERROR", "SETTINGS_TIMEOUT",
		"STREAM_CLOSED", "FRAME_SIZE_ERROR", "REFUSED_STREAM", "CANCEL", "COMPRESSION_ERROR", "CONNECT_ERROR",
		"ENHANCE_YOUR_CALM", "INADEQUATE_SECURITY", "HTTP_1_1_REQUIRED", "an unknown code"}
	errs := make([]error, len(names))
	for i, n := range names {
		errs[i] = fmt.Errorf("http/2: the server reset the stream (RST_STREAM %s)", n)
	}
	return errs
}()

func resetError(code uint32) error { return resetErrors[min(int(code), len(resetErrors)-1)] }
