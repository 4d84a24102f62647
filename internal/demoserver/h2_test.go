package demoserver

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"encoding/pem"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// h2cClient speaks HTTP/2 with prior knowledge over cleartext only: with
// HTTP/1 off in its Protocols, a server that does not speak h2c fails the
// request instead of being served HTTP/1.1.
func h2cClient(t *testing.T) *http.Client {
	t.Helper()
	var p http.Protocols
	p.SetUnencryptedHTTP2(true)
	tr := &http.Transport{Protocols: &p}
	t.Cleanup(tr.CloseIdleConnections)
	return &http.Client{Transport: tr, Timeout: 30 * time.Second}
}

// tlsClient trusts only pemCert and offers h2 (if h2) and http/1.1 by ALPN.
func tlsClient(t *testing.T, pemCert []byte, h2 bool) *http.Client {
	t.Helper()
	pool := x509.NewCertPool()
	if !pool.AppendCertsFromPEM(pemCert) {
		t.Fatalf("certificate PEM not accepted: %q", pemCert)
	}
	var p http.Protocols
	p.SetHTTP1(true)
	p.SetHTTP2(h2)
	tr := &http.Transport{Protocols: &p, TLSClientConfig: &tls.Config{RootCAs: pool}}
	t.Cleanup(tr.CloseIdleConnections)
	return &http.Client{Transport: tr, Timeout: 30 * time.Second}
}

// get fetches url and returns the protocol, status and body, or the error.
func get(c *http.Client, url string) (proto string, status int, body string, err error) {
	resp, err := c.Get(url)
	if err != nil {
		return "", 0, "", err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	return resp.Proto, resp.StatusCode, string(b), err
}

func TestHTTP2(t *testing.T) {
	tests := []struct {
		name      string
		cfg       Config
		client    func(t *testing.T, s *Server) *http.Client
		url       func(s *Server) string
		wantProto string // "" = the request must fail
		wantH1    int64
		wantH2    int64
	}{
		{name: "h2c prior knowledge", cfg: Config{HTTP2: true},
			client:    func(t *testing.T, _ *Server) *http.Client { return h2cClient(t) },
			url:       func(s *Server) string { return "http://" + s.HTTPAddr() + "/" },
			wantProto: "HTTP/2.0", wantH2: 3},
		{name: "HTTP/1.1 still served beside h2c", cfg: Config{HTTP2: true},
			client:    func(t *testing.T, _ *Server) *http.Client { return newClient(t, true) },
			url:       func(s *Server) string { return "http://" + s.HTTPAddr() + "/" },
			wantProto: "HTTP/1.1", wantH1: 3},
		{name: "h2c refused without --http2", cfg: Config{},
			client: func(t *testing.T, _ *Server) *http.Client { return h2cClient(t) },
			url:    func(s *Server) string { return "http://" + s.HTTPAddr() + "/" }},
		{name: "TLS negotiates h2 by ALPN", cfg: Config{HTTPSAddr: "127.0.0.1:0"},
			client:    func(t *testing.T, s *Server) *http.Client { return tlsClient(t, s.CertPEM(), true) },
			url:       func(s *Server) string { return "https://" + s.HTTPSAddr() + "/" },
			wantProto: "HTTP/2.0", wantH2: 3},
		{name: "TLS over IPv6", cfg: Config{HTTPSAddr: "[::1]:0"},
			client:    func(t *testing.T, s *Server) *http.Client { return tlsClient(t, s.CertPEM(), true) },
			url:       func(s *Server) string { return "https://" + s.HTTPSAddr() + "/" },
			wantProto: "HTTP/2.0", wantH2: 3},
		{name: "TLS by the name localhost", cfg: Config{HTTPSAddr: "localhost:0"},
			client: func(t *testing.T, s *Server) *http.Client { return tlsClient(t, s.CertPEM(), true) },
			url: func(s *Server) string {
				_, port, _ := net.SplitHostPort(s.HTTPSAddr())
				return "https://localhost:" + port + "/"
			},
			wantProto: "HTTP/2.0", wantH2: 3},
		{name: "TLS HTTP/1.1 client", cfg: Config{HTTPSAddr: "127.0.0.1:0"},
			client:    func(t *testing.T, s *Server) *http.Client { return tlsClient(t, s.CertPEM(), false) },
			url:       func(s *Server) string { return "https://" + s.HTTPSAddr() + "/" },
			wantProto: "HTTP/1.1", wantH1: 3},
		{name: "TLS refusing h2 falls back to HTTP/1.1", cfg: Config{HTTPSAddr: "127.0.0.1:0", HTTPSNoHTTP2: true},
			client:    func(t *testing.T, s *Server) *http.Client { return tlsClient(t, s.CertPEM(), true) },
			url:       func(s *Server) string { return "https://" + s.HTTPSAddr() + "/" },
			wantProto: "HTTP/1.1", wantH1: 3},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := start(t, tt.cfg)
			c := tt.client(t, s)
			for range 3 {
				proto, status, body, err := get(c, tt.url(s))
				if tt.wantProto == "" {
					if err == nil {
						t.Fatalf("request succeeded with %s %d, want a failure", proto, status)
					}
					continue
				}
				if err != nil {
					t.Fatal(err)
				}
				if proto != tt.wantProto || status != 200 || body != "hello" {
					t.Fatalf("got %s %d %q, want %s 200 \"hello\"", proto, status, body, tt.wantProto)
				}
			}
			st := s.Stats()
			if tt.wantProto == "" && st.HTTP2Refused == 0 {
				t.Errorf("http2_refused = 0, want the refused prefaces counted")
			}
			if st.HTTP1Requests != tt.wantH1 || st.HTTP2Requests != tt.wantH2 {
				t.Errorf("http1_requests %d, http2_requests %d; want %d, %d", st.HTTP1Requests, st.HTTP2Requests, tt.wantH1, tt.wantH2)
			}
			if st.Requests != st.HTTP1Requests+st.HTTP2Requests {
				t.Errorf("requests %d != http1 %d + http2 %d", st.Requests, st.HTTP1Requests, st.HTTP2Requests)
			}
			// Keep-alive and multiplexing: three requests, one connection.
			if tt.wantProto != "" && st.Accepted != 1 {
				t.Errorf("accepted %d connections, want 1", st.Accepted)
			}
			if tt.cfg.HTTPSAddr != "" && st.TLSAccepted != st.Accepted {
				t.Errorf("tls_accepted %d, want all %d", st.TLSAccepted, st.Accepted)
			}
		})
	}
}

// TestHTTP2ConcurrentStreams sends many requests at once over one h2c
// connection; the server must answer them all on it.
func TestHTTP2ConcurrentStreams(t *testing.T) {
	s := start(t, Config{HTTP2: true})
	// One client connection carries every stream: net/http's pool may dial
	// more when requests race the first one's SETTINGS on a busy machine.
	var p http.Protocols
	p.SetUnencryptedHTTP2(true)
	cc, err := (&http.Transport{Protocols: &p}).NewClientConn(context.Background(), "http", s.HTTPAddr())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cc.Close() })
	c := &http.Client{Transport: cc, Timeout: 30 * time.Second}
	if _, _, _, err := get(c, "http://"+s.HTTPAddr()+"/health"); err != nil {
		t.Fatal(err)
	}
	const n = 50
	errs := make(chan error, n)
	for range n {
		go func() {
			_, _, body, err := get(c, "http://"+s.HTTPAddr()+"/echo")
			if err == nil && body != "" {
				err = io.ErrUnexpectedEOF
			}
			errs <- err
		}()
	}
	for range n {
		if err := <-errs; err != nil {
			t.Error(err)
		}
	}
	if st := s.Stats(); st.HTTP2Requests != n+1 || st.Accepted != 1 {
		t.Errorf("http2_requests %d on %d connections, want %d on 1", st.HTTP2Requests, st.Accepted, n+1)
	}
}

// TestHTTP2CloseAfterSendsGoAway: over HTTP/2, close-after cannot say
// Connection: close, so net/http ends the connection with GOAWAY; the client
// then opens a new connection for the next request.
func TestHTTP2CloseAfterSendsGoAway(t *testing.T) {
	s := start(t, Config{HTTP2: true, CloseAfter: 2})
	c := h2cClient(t)
	for i := range 6 {
		if _, status, _, err := get(c, "http://"+s.HTTPAddr()+"/"); err != nil || status != 200 {
			t.Fatalf("request %d: status %d, err %v", i, status, err)
		}
	}
	if got := s.Stats().Accepted; got != 3 {
		t.Errorf("accepted %d connections for 6 requests with close-after 2, want 3", got)
	}
}

func TestCertificate(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "cert.pem")
	s := start(t, Config{HTTPSAddr: "127.0.0.1:0", CertFile: file})
	onDisk, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	if string(onDisk) != string(s.CertPEM()) {
		t.Error("cert-out file differs from CertPEM")
	}
	if strings.Contains(string(onDisk), "PRIVATE KEY") {
		t.Error("cert-out file holds the private key")
	}
	block, _ := pem.Decode(onDisk)
	if block == nil || block.Type != "CERTIFICATE" {
		t.Fatalf("not a PEM certificate: %q", onDisk)
	}
	cert, err := x509.ParseCertificate(block.Bytes)
	if err != nil {
		t.Fatal(err)
	}
	if cert.PublicKeyAlgorithm != x509.ECDSA {
		t.Errorf("key algorithm %v, want ECDSA", cert.PublicKeyAlgorithm)
	}
	pool := x509.NewCertPool()
	pool.AddCert(cert)
	for _, name := range []string{"127.0.0.1", "::1", "localhost"} {
		if _, err := cert.Verify(x509.VerifyOptions{DNSName: name, Roots: pool}); err != nil {
			t.Errorf("not valid for %s: %v", name, err)
		}
	}
	if _, err := cert.Verify(x509.VerifyOptions{DNSName: "example.com", Roots: pool}); err == nil {
		t.Error("valid for example.com, want loopback names only")
	}
	if plain := start(t, Config{}); plain.CertPEM() != nil {
		t.Error("a server without TLS listener has a certificate")
	}
}
