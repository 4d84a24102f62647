package demoserver

import (
	"encoding/binary"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"testing"
)

// discardWriter is the cheapest possible ResponseWriter, so the benchmark
// measures the server's own routing and handler, not a recorder's buffers.
type discardWriter struct{ h http.Header }

func (w *discardWriter) Header() http.Header         { return w.h }
func (w *discardWriter) Write(p []byte) (int, error) { return len(p), nil }
func (w *discardWriter) WriteHeader(int)             {}

// BenchmarkHelloHandler measures the in-process path of GET /: request
// counter, router, fault check (no faults) and the hello handler.
func BenchmarkHelloHandler(b *testing.B) {
	s, err := newServer(Config{})
	if err != nil {
		b.Fatal(err)
	}
	req := httptest.NewRequest("GET", "/", nil)
	w := &discardWriter{h: make(http.Header, 2)}
	b.ReportAllocs()
	for b.Loop() {
		clear(w.h)
		s.handler.ServeHTTP(w, req)
	}
}

// BenchmarkHelloLoopback measures one keep-alive GET / over loopback, the
// unit of work a load test against the built-in server repeats.
func BenchmarkHelloLoopback(b *testing.B) {
	s, err := Start(b.Context(), Config{HTTPAddr: "127.0.0.1:0"})
	if err != nil {
		b.Fatal(err)
	}
	defer s.Close()
	tr := &http.Transport{}
	defer tr.CloseIdleConnections()
	c := &http.Client{Transport: tr}
	url := "http://" + s.HTTPAddr() + "/"
	b.ReportAllocs()
	for b.Loop() {
		resp, err := c.Get(url)
		if err != nil {
			b.Fatal(err)
		}
		if _, err := io.Copy(io.Discard, resp.Body); err != nil {
			b.Fatal(err)
		}
		resp.Body.Close()
	}
}

// BenchmarkAPIItemLoopback measures one keep-alive, authorised
// GET /api/items/{id} over loopback, to set against BenchmarkHelloLoopback:
// the price of a flow step's server side.
func BenchmarkAPIItemLoopback(b *testing.B) {
	s, err := Start(b.Context(), Config{HTTPAddr: "127.0.0.1:0"})
	if err != nil {
		b.Fatal(err)
	}
	defer s.Close()
	const token = "bench-token"
	s.api.addSession(token, s.api.users["user1"])
	tr := &http.Transport{}
	defer tr.CloseIdleConnections()
	c := &http.Client{Transport: tr}
	req, err := http.NewRequest("GET", "http://"+s.HTTPAddr()+"/api/items/item-42", nil)
	if err != nil {
		b.Fatal(err)
	}
	req.Header.Set("Authorization", "Bearer "+token)
	b.ReportAllocs()
	for b.Loop() {
		resp, err := c.Do(req)
		if err != nil {
			b.Fatal(err)
		}
		if _, err := io.Copy(io.Discard, resp.Body); err != nil {
			b.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusOK {
			b.Fatalf("status %d", resp.StatusCode)
		}
	}
}

// BenchmarkTCPFrameLoopback measures one monitor frame and its Ack over a
// loopback TCP connection, the unit of work of a persistent TCP target.
func BenchmarkTCPFrameLoopback(b *testing.B) {
	s, err := Start(b.Context(), Config{HTTPAddr: "127.0.0.1:0", TCPAddr: "127.0.0.1:0"})
	if err != nil {
		b.Fatal(err)
	}
	defer s.Close()
	c, err := net.Dial("tcp", s.TCPAddr())
	if err != nil {
		b.Fatal(err)
	}
	defer c.Close()
	body := `{"T":"MonitorItemData","S":39,"D":{"UsedPhysicalMemorySize":1908174848},"TS":1288273090499}`
	req := binary.BigEndian.AppendUint16(nil, 1)
	req = binary.BigEndian.AppendUint32(req, uint32(len(body)))
	req = append(req, body...)
	reply := make([]byte, 6+len(`{"T":"Ack","S":39}`))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := c.Write(req); err != nil {
			b.Fatal(err)
		}
		if _, err := io.ReadFull(c, reply); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkAPIItemHandler measures the in-process path of an authorised
// GET /api/items/{id}: router, token lookup, fault check and the served
// counters, the step a flow against the built-in API repeats most.
func BenchmarkAPIItemHandler(b *testing.B) {
	s, err := newServer(Config{})
	if err != nil {
		b.Fatal(err)
	}
	const token = "bench-token"
	s.api.addSession(token, s.api.users["user1"])
	req := httptest.NewRequest("GET", "/api/items/item-42", nil)
	req.Header.Set("Authorization", "Bearer "+token)
	w := &discardWriter{h: make(http.Header, 2)}
	b.ReportAllocs()
	for b.Loop() {
		clear(w.h)
		s.handler.ServeHTTP(w, req)
	}
	if got := s.Stats().API["item"]["200"]; got == 0 {
		b.Fatalf("no 200 counted: %v", s.Stats().API)
	}
}

// BenchmarkTCPStorePush measures storing one monitor message in a real
// redis-server: LPUSH and LTRIM pipelined in one round trip over a pooled
// connection, the work --tcp-store adds to every Ack.
func BenchmarkTCPStorePush(b *testing.B) {
	st, err := newRedisStore(b.Context(), startRealRedis(b))
	if err != nil {
		b.Fatal(err)
	}
	defer st.close()
	body := []byte(`{"T":"MonitorItemData","S":39,"D":{"UsedPhysicalMemorySize":1908174848},"TS":1288273090499}`)
	b.ReportAllocs()
	for b.Loop() {
		if err := st.push(b.Context(), body); err != nil {
			b.Fatal(err)
		}
	}
}
