package runner

import (
	"bytes"
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptrace"
	"os"
	"strings"
	"sync/atomic"
	"syscall"
	"time"

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
	buf       []byte // body buffer, reused across requests

	// Written by the dialer and the trace hooks, read after Do returns.
	// Atomics because a dial abandoned by a cancelled request may still
	// report from its own goroutine while the next request runs.
	sent, received atomic.Int64
	connectStart   atomic.Int64 // monotonic nanoseconds since clientEpoch
	connect        atomic.Int64 // nanoseconds
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

var _ Client = (*netHTTPClient)(nil)

// NewHTTPClient is the default NewClientFunc for HTTP targets.
func NewHTTPClient(t *scenarios.Target, _ int) (Client, error) {
	if t.HTTP == nil {
		return nil, fmt.Errorf("target %q has no http block", t.Name)
	}
	h := t.HTTP
	c := &netHTTPClient{target: h}
	c.tr = c.newTrace()
	tlsConf := &tls.Config{InsecureSkipVerify: h.TLS.InsecureSkipVerify} //nolint:gosec // the user asked for it
	if h.TLS.CAFile != "" {
		pem, err := os.ReadFile(h.TLS.CAFile)
		if err != nil {
			return nil, fmt.Errorf("target %q: tls ca_file: %w", t.Name, err)
		}
		pool := x509.NewCertPool()
		if !pool.AppendCertsFromPEM(pem) {
			return nil, fmt.Errorf("target %q: tls ca_file %s: no certificate found", t.Name, h.TLS.CAFile)
		}
		tlsConf.RootCAs = pool
	}
	dialer := &net.Dialer{Timeout: h.Timeout}
	c.transport = &http.Transport{
		DialContext: func(ctx context.Context, network, addr string) (net.Conn, error) {
			conn, err := dialer.DialContext(ctx, network, addr)
			if err != nil {
				return nil, err
			}
			return &countingConn{Conn: conn, sent: &c.sent, received: &c.received}, nil
		},
		TLSClientConfig:     tlsConf,
		DisableKeepAlives:   !h.Keepalive,
		MaxIdleConnsPerHost: 1,
		DisableCompression:  true,
		ForceAttemptHTTP2:   false,
		// An empty map keeps net/http from negotiating h2 on https targets.
		TLSNextProto:          map[string]func(string, *tls.Conn) http.RoundTripper{},
		ResponseHeaderTimeout: h.Timeout,
		Proxy:                 nil,
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
func (c *netHTTPClient) Do(ctx context.Context, req int, out *Outcome) {
	*out = Outcome{}
	c.connect.Store(0)
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
		out.Kind = KindOther
		return
	}
	r.Header = p.header.Clone()
	resp, err := c.client.Do(r)
	if err != nil {
		out.Kind = classify(err)
		return
	}
	defer resp.Body.Close()
	out.Status = resp.StatusCode
	out.Kind = c.readAndCheck(resp)
}

// readAndCheck drains the body (bounded by max_body) and applies expect.
func (c *netHTTPClient) readAndCheck(resp *http.Response) ErrorKind {
	exp := &c.target.Expect
	needBody := exp.BodyContains != "" || exp.BodyRegex != nil
	limit := c.target.MaxBody
	var n int64
	var err error
	if needBody {
		c.buf = c.buf[:0]
		w := bytes.NewBuffer(c.buf)
		n, err = io.Copy(w, io.LimitReader(resp.Body, limit+1))
		c.buf = w.Bytes()
	} else {
		n, err = io.Copy(io.Discard, io.LimitReader(resp.Body, limit+1))
	}
	if err != nil {
		return classify(err)
	}
	if n > limit {
		return KindLength
	}
	if !statusAccepted(exp.Status, resp.StatusCode) {
		return KindStatus
	}
	if exp.Length >= 0 && n != exp.Length {
		return KindLength
	}
	if exp.BodyContains != "" && !bytes.Contains(c.buf, []byte(exp.BodyContains)) {
		return KindCheck
	}
	if exp.BodyRegex != nil && !exp.BodyRegex.Match(c.buf) {
		return KindCheck
	}
	return KindNone
}

func statusAccepted(accepted []int, code int) bool {
	if len(accepted) == 0 {
		return code >= 200 && code < 400
	}
	for _, a := range accepted {
		if a == code {
			return true
		}
	}
	return false
}

// Close drops the worker's idle connections.
func (c *netHTTPClient) Close() error {
	c.transport.CloseIdleConnections()
	return nil
}

// classify maps a transport error to the error kinds of SPEC §3.
func classify(err error) ErrorKind {
	var opErr *net.OpError
	var netErr net.Error
	switch {
	case errors.Is(err, context.DeadlineExceeded), errors.Is(err, os.ErrDeadlineExceeded):
		return KindTimeout
	case errors.As(err, &netErr) && netErr.Timeout():
		return KindTimeout
	case errors.As(err, &opErr) && opErr.Op == "dial":
		return KindConnect
	case errors.Is(err, syscall.ECONNREFUSED), errors.Is(err, syscall.EHOSTUNREACH), errors.Is(err, syscall.ENETUNREACH):
		return KindConnect
	case errors.Is(err, syscall.ECONNRESET), errors.Is(err, syscall.EPIPE),
		errors.Is(err, io.EOF), errors.Is(err, io.ErrUnexpectedEOF):
		return KindReset
	case isTLSHandshake(err):
		return KindConnect
	case strings.Contains(err.Error(), "malformed"), strings.Contains(err.Error(), "invalid"),
		strings.Contains(err.Error(), "bad "):
		return KindProtocol
	case strings.Contains(err.Error(), "server closed") || strings.Contains(err.Error(), "connection reset"):
		return KindReset
	default:
		return KindOther
	}
}

func isTLSHandshake(err error) bool {
	var recErr tls.RecordHeaderError
	var certErr *tls.CertificateVerificationError
	return errors.As(err, &recErr) || errors.As(err, &certErr)
}

// countingConn counts wire bytes so that bytes_sent and bytes_received
// include headers, as ab's "Total transferred" does.
type countingConn struct {
	net.Conn
	sent, received *atomic.Int64
}

func (c *countingConn) Read(p []byte) (int, error) {
	n, err := c.Conn.Read(p)
	c.received.Add(int64(n))
	return n, err
}

func (c *countingConn) Write(p []byte) (int, error) {
	n, err := c.Conn.Write(p)
	c.sent.Add(int64(n))
	return n, err
}
