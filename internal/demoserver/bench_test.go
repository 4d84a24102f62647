package demoserver

import (
	"io"
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
