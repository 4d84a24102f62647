package websocket

import (
	"bufio"
	"encoding/binary"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/gobwas/ws"
)

// wsServer is a loopback WebSocket server for the client's tests: handle
// runs once per upgraded connection. Every path upgrades but /forbidden,
// which answers 403.
type wsServer struct {
	srv      *httptest.Server
	accepted atomic.Int64
	header   atomic.Value // the X-Test header of the last handshake
	mu       sync.Mutex
	conns    []net.Conn
	wg       sync.WaitGroup
}

func newWSServer(t testing.TB, useTLS bool, handle func(net.Conn, *bufio.ReadWriter)) *wsServer {
	t.Helper()
	s := &wsServer{}
	h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/forbidden" {
			http.Error(w, "no", http.StatusForbidden)
			return
		}
		s.header.Store(r.Header.Get("X-Test"))
		conn, rw, _, err := ws.UpgradeHTTP(r, w)
		if err != nil {
			return
		}
		s.accepted.Add(1)
		s.mu.Lock()
		s.conns = append(s.conns, conn)
		s.wg.Add(1)
		s.mu.Unlock()
		defer s.wg.Done()
		defer conn.Close()
		handle(conn, rw)
	})
	if useTLS {
		s.srv = httptest.NewTLSServer(h)
	} else {
		s.srv = httptest.NewServer(h)
	}
	t.Cleanup(func() {
		// Hijacked connections are the test's to close: httptest forgets them.
		s.srv.Close()
		s.mu.Lock()
		for _, c := range s.conns {
			_ = c.Close()
		}
		s.mu.Unlock()
		s.wg.Wait()
	})
	return s
}

// url is the server's address as a ws:// or wss:// URL with path.
func (s *wsServer) url(path string) string {
	u := strings.Replace(s.srv.URL, "http", "ws", 1)
	return u + path
}

// frameScratch holds a frame's length and masking key while it is read:
// kept per connection, so reading a frame allocates nothing.
type frameScratch struct {
	h    [8]byte
	mask [4]byte
}

// readClientFrame reads one masked client frame and unmasks it into buf.
func readClientFrame(r io.Reader, s *frameScratch, buf []byte) (op ws.OpCode, payload []byte, err error) {
	h, mask := s.h[:], &s.mask
	if _, err = io.ReadFull(r, h[:2]); err != nil {
		return 0, nil, err
	}
	op = ws.OpCode(h[0] & 0x0f)
	n := uint64(h[1] & 0x7f)
	switch n {
	case 126:
		if _, err = io.ReadFull(r, h[:2]); err != nil {
			return 0, nil, err
		}
		n = uint64(binary.BigEndian.Uint16(h[:2]))
	case 127:
		if _, err = io.ReadFull(r, h[:8]); err != nil {
			return 0, nil, err
		}
		n = binary.BigEndian.Uint64(h[:8])
	}
	if _, err = io.ReadFull(r, mask[:]); err != nil {
		return 0, nil, err
	}
	if uint64(cap(buf)) < n {
		buf = make([]byte, n)
	}
	payload = buf[:n]
	if _, err = io.ReadFull(r, payload); err != nil {
		return 0, nil, err
	}
	ws.Cipher(payload, *mask, 0)
	return op, payload, nil
}

// appendServerFrame appends one final, unmasked frame.
func appendServerFrame(dst []byte, op ws.OpCode, p []byte) []byte {
	dst = append(dst, 0x80|byte(op))
	switch n := len(p); {
	case n <= 125:
		dst = append(dst, byte(n))
	case n <= 0xffff:
		dst = append(dst, 126, byte(n>>8), byte(n))
	default:
		dst = append(dst, 127)
		dst = binary.BigEndian.AppendUint64(dst, uint64(n))
	}
	return append(dst, p...)
}

// echo answers every data message with the same message, ignores pongs
// and stops at a close frame. Its buffers are reused, so it adds no
// allocations to a benchmark's count.
func echo(conn net.Conn, rw *bufio.ReadWriter) {
	buf := make([]byte, 64<<10)
	var out []byte
	var scratch frameScratch
	for {
		op, p, err := readClientFrame(rw.Reader, &scratch, buf)
		if err != nil || op == ws.OpClose {
			return
		}
		if op.IsControl() {
			continue
		}
		out = appendServerFrame(out[:0], op, p)
		if _, err := conn.Write(out); err != nil {
			return
		}
	}
}

// messages records every data message a server received.
type messages struct {
	mu   sync.Mutex
	list []string
}

func (m *messages) add(p []byte) {
	m.mu.Lock()
	m.list = append(m.list, string(p))
	m.mu.Unlock()
}

func (m *messages) all() []string {
	m.mu.Lock()
	defer m.mu.Unlock()
	return append([]string(nil), m.list...)
}

// recordingEcho is echo that also records what it received.
func recordingEcho(m *messages) func(net.Conn, *bufio.ReadWriter) {
	return func(conn net.Conn, rw *bufio.ReadWriter) {
		buf := make([]byte, 64<<10)
		var scratch frameScratch
		for {
			op, p, err := readClientFrame(rw.Reader, &scratch, buf)
			if err != nil || op == ws.OpClose {
				return
			}
			if op.IsControl() {
				continue
			}
			m.add(p)
			if _, err := conn.Write(appendServerFrame(nil, op, p)); err != nil {
				return
			}
		}
	}
}
