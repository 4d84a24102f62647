// Package testpeer holds the loopback peers that tests of several packages
// drive loadgate against: a TCP server, and the monitor-agent protocol of
// the long-versus-short connection study (u16 type + u32 big-endian length),
// and the web shop the HAR recordings of importers/har were made on. Only
// tests import it, and bench/harrecord, which records the shop.
package testpeer

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"io"
	"net"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// TCPServer is a loopback server that runs a handler once per accepted
// connection; the test's cleanup stops it and closes every connection.
type TCPServer struct {
	ln       net.Listener
	accepted atomic.Int64
	wg       sync.WaitGroup
}

// NewTCPServer listens on 127.0.0.1 and serves each connection with handle.
func NewTCPServer(t testing.TB, handle func(net.Conn)) *TCPServer {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	s := &TCPServer{ln: ln}
	var mu sync.Mutex
	var conns []net.Conn
	s.wg.Go(func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			s.accepted.Add(1)
			mu.Lock()
			conns = append(conns, c)
			mu.Unlock()
			s.wg.Go(func() {
				defer c.Close()
				handle(c)
			})
		}
	})
	t.Cleanup(func() {
		_ = ln.Close()
		mu.Lock()
		for _, c := range conns {
			_ = c.Close()
		}
		mu.Unlock()
		s.wg.Wait()
	})
	return s
}

// Addr is the host:port the server listens on.
func (s *TCPServer) Addr() string { return s.ln.Addr().String() }

// Accepted counts the connections accepted so far.
func (s *TCPServer) Accepted() int64 { return s.accepted.Load() }

// ReadMonitorFrame reads one u16 type + u32 big-endian length frame.
func ReadMonitorFrame(r *bufio.Reader) (typ uint16, body []byte, err error) {
	var h [6]byte
	if _, err := io.ReadFull(r, h[:]); err != nil {
		return 0, nil, err
	}
	body = make([]byte, binary.BigEndian.Uint32(h[2:]))
	_, err = io.ReadFull(r, body)
	return binary.BigEndian.Uint16(h[:2]), body, err
}

// MonitorFrame is one frame of type typ carrying body.
func MonitorFrame(typ uint16, body string) []byte {
	b := binary.BigEndian.AppendUint16(nil, typ)
	b = binary.BigEndian.AppendUint32(b, uint32(len(body)))
	return append(b, body...)
}

// AckServer answers a Connect frame with ConnectAck and every other frame
// with Ack, as the monitor servers of the long-vs-short study did, and
// records every body it receives.
type AckServer struct {
	*TCPServer
	mu     sync.Mutex
	bodies []string
}

// NewAckServer starts an AckServer. With workers > 0 it holds every
// ConnectAck until that many connections have sent their Connect (or 10s
// passed), so that each worker of a request-limited phase is sure to
// connect before the first ones use up the requests.
func NewAckServer(t testing.TB, workers int) *AckServer {
	a := &AckServer{}
	var connects atomic.Int32
	all := make(chan struct{})
	a.TCPServer = NewTCPServer(t, func(c net.Conn) {
		r := bufio.NewReader(c)
		for {
			typ, body, err := ReadMonitorFrame(r)
			if err != nil {
				return
			}
			a.mu.Lock()
			a.bodies = append(a.bodies, string(body))
			a.mu.Unlock()
			reply := `{"T":"Ack"}`
			if bytes.Contains(body, []byte(`"T":"Connect"`)) {
				reply = `{"T":"ConnectAck"}`
				if workers > 0 {
					if connects.Add(1) == int32(workers) {
						close(all)
					}
					select {
					case <-all:
					case <-time.After(10 * time.Second):
					}
				}
			}
			if _, err := c.Write(MonitorFrame(typ, reply)); err != nil {
				return
			}
		}
	})
	return a
}

// Received is every body received so far, in order.
func (a *AckServer) Received() []string {
	a.mu.Lock()
	defer a.mu.Unlock()
	return append([]string(nil), a.bodies...)
}
