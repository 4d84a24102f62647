package http1

import (
	"bytes"
	"context"
	"crypto/tls"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptrace"
	"sync"
	"sync/atomic"
	"time"

	"github.com/loadgate/loadgate/protocols"
	"github.com/loadgate/loadgate/protocols/httpcheck"
	"github.com/loadgate/loadgate/protocols/sockets"
	"github.com/loadgate/loadgate/scenarios"
)

// netHTTPClient drives one worker through net/http. Each worker has its own
// Transport so that, like ab -c or wrk -c, a worker is one connection:
// keep-alive reuses it, keepalive: false really opens one per request.
type netHTTPClient struct {
	target    *scenarios.HTTPTarget
	transport *http.Transport
	client    *http.Client
	reqs      []preparedRequest
	check     *httpcheck.ResponseCheck

	// Written by the dialer and the trace hooks, read after Do returns.
	// Atomics because a dial abandoned by a cancelled request may still
	// report from its own goroutine while the next request runs.
	sent, received atomic.Int64
	connectStart   atomic.Int64  // monotonic nanoseconds since clientEpoch
	connect        atomic.Int64  // nanoseconds
	requests       atomic.Uint64 // requests begun, so that a connection knows a new one
	tr             *httptrace.ClientTrace
}

// clientEpoch anchors monotonic timestamps stored in atomics.
var clientEpoch = time.Now()

type preparedRequest struct {
	method string
	url    string
	header http.Header
	body   []byte
}

var _ protocols.Client = (*netHTTPClient)(nil)

// newNetHTTPClient makes the net/http client of target t, the fallback for
// what the lean client does not do (see NewClient).
func newNetHTTPClient(t *scenarios.Target, worker int) (protocols.Client, error) {
	if t.HTTP == nil {
		return nil, fmt.Errorf("target %q has no http block", t.Name)
	}
	h := t.HTTP
	c := &netHTTPClient{target: h, check: httpcheck.NewResponseCheck(h)}
	c.tr = c.newTrace()
	tlsConf, err := protocols.TLSConfig(t.Name, &h.TLS)
	if err != nil {
		return nil, err
	}
	src := sockets.NewSources(h.LocalIPs, worker)
	c.transport = &http.Transport{
		DialContext: func(ctx context.Context, network, addr string) (net.Conn, error) {
			dialer := net.Dialer{Timeout: h.Timeout, LocalAddr: src.DialerAddr()}
			conn, err := dialer.DialContext(ctx, network, addr)
			if err != nil {
				return nil, err
			}
			return &countingConn{Conn: conn, sent: &c.sent, received: &c.received, requests: &c.requests, matched: -1}, nil
		},
		TLSClientConfig:     tlsConf,
		DisableKeepAlives:   !h.Keepalive,
		MaxIdleConnsPerHost: 1,
		DisableCompression:  true,
		ForceAttemptHTTP2:   false,
		// An empty map keeps net/http from negotiating h2 on https targets.
		TLSNextProto:          map[string]func(string, *tls.Conn) http.RoundTripper{},
		ResponseHeaderTimeout: h.Timeout,
		Proxy:                 proxyFunc(h),
	}
	c.client = &http.Client{
		Transport: c.transport,
		Timeout:   h.Timeout,
		// A load generator measures the response it got, as ab and wrk do.
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
	}
	for _, r := range h.Requests {
		hdr := make(http.Header, len(r.Headers))
		for _, kv := range r.Headers {
			hdr.Add(kv.Name, kv.Value)
		}
		if hdr.Get("User-Agent") == "" {
			hdr.Set("User-Agent", "loadgate")
		}
		c.reqs = append(c.reqs, preparedRequest{method: r.Method, url: r.URL, header: hdr, body: r.Body})
	}
	return c, nil
}

func (c *netHTTPClient) newTrace() *httptrace.ClientTrace {
	since := func() int64 { return int64(time.Since(clientEpoch)) - c.connectStart.Load() }
	return &httptrace.ClientTrace{
		ConnectStart: func(string, string) { c.connectStart.Store(int64(time.Since(clientEpoch))) },
		ConnectDone: func(_, _ string, err error) {
			if err == nil {
				c.connect.Store(since())
			}
		},
		TLSHandshakeDone: func(_ tls.ConnectionState, err error) {
			if err == nil {
				c.connect.Store(since())
			}
		},
	}
}

// Do sends request req and reads the whole response.
func (c *netHTTPClient) Do(ctx context.Context, req int, out *protocols.Outcome) {
	*out = protocols.Outcome{}
	c.connect.Store(0)
	c.requests.Add(1)
	sent0, recv0 := c.sent.Load(), c.received.Load()
	defer func() {
		out.Connect = time.Duration(c.connect.Load())
		out.BytesSent = c.sent.Load() - sent0
		out.BytesReceived = c.received.Load() - recv0
	}()

	p := &c.reqs[req]
	var body io.Reader
	if len(p.body) > 0 {
		body = bytes.NewReader(p.body)
	}
	r, err := http.NewRequestWithContext(httptrace.WithClientTrace(ctx, c.tr), p.method, p.url, body)
	if err != nil {
		out.Kind, out.Err = protocols.KindOther, err
		return
	}
	r.Header = p.header.Clone()
	resp, err := c.client.Do(r)
	if err != nil {
		out.Kind, out.Err = classify(err), err
		return
	}
	defer resp.Body.Close()
	out.Status = resp.StatusCode
	// The body checks see the body as it streams: a worker keeps a bounded
	// part of it, whatever its size.
	out.Kind, out.Err = c.check.Check(resp.StatusCode, resp.Body, classify)
}

// Close drops the worker's idle connections.
func (c *netHTTPClient) Close() error {
	c.transport.CloseIdleConnections()
	return nil
}

// countingConn counts wire bytes so that bytes_sent and bytes_received
// include headers, as ab's "Total transferred" does.
//
// It also checks that a reply begins as HTTP/1.x does: net/http reads a
// status line until its end, so a server that answers with anything else
// and keeps the connection open would otherwise be a timeout. The first
// write of each request arms the check, and the first bytes read after it
// settle it; a connection whose first write is a TLS record is not checked,
// since what it reads is encrypted.
type countingConn struct {
	net.Conn
	sent, received *atomic.Int64
	requests       *atomic.Uint64 // the client's count of requests begun

	// Read and Write run on the transport's two goroutines.
	mu      sync.Mutex
	armedBy uint64 // the request whose write armed the check
	matched int    // bytes of the reply's beginning seen to match; -1: not checking
	tls     bool
}

// httpReplyStart is how every HTTP/1.x reply begins.
const httpReplyStart = "HTTP/1."

func (c *countingConn) Read(p []byte) (int, error) {
	n, err := c.Conn.Read(p)
	c.received.Add(int64(n))
	if n > 0 && !c.replyStarts(p[:n]) {
		return 0, errNotHTTP
	}
	return n, err
}

// replyStarts reports whether b, just read, can be the beginning of a reply
// or of its rest.
func (c *countingConn) replyStarts(b []byte) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.matched < 0 || c.tls {
		return true
	}
	k := min(len(b), len(httpReplyStart)-c.matched)
	if string(b[:k]) != httpReplyStart[c.matched:c.matched+k] {
		return false
	}
	c.matched += k
	if c.matched == len(httpReplyStart) {
		c.matched = -1
	}
	return true
}

func (c *countingConn) Write(p []byte) (int, error) {
	c.mu.Lock()
	switch req := c.requests.Load(); {
	case c.armedBy == 0 && len(p) > 0 && p[0] == 0x16: // a TLS handshake record
		c.tls = true
	case req != c.armedBy:
		// The first write of a request; its later writes must not re-arm the
		// check, since the reply may have begun already.
		c.armedBy, c.matched = req, 0
	}
	c.mu.Unlock()
	n, err := c.Conn.Write(p)
	c.sent.Add(int64(n))
	return n, err
}
