package demoserver

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"errors"
	"fmt"
	"math/big"
	"net"
	"net/http"
	"os"
	"time"
)

// certValidity is how long the in-memory certificate is valid. It is
// back-dated by an hour so a client clock slightly behind still accepts it,
// and long enough that no run outlives it.
const certValidity = 7 * 24 * time.Hour

// selfSigned is the server's certificate, made at start and never written
// anywhere unless asked (Config.CertFile), so no key lingers on disk.
type selfSigned struct {
	cert tls.Certificate
	pem  []byte // the certificate (not the key) in PEM, for clients to trust
}

// newSelfSigned makes an ECDSA P-256 certificate for every name the server
// can be reached by: it only listens on loopback, so 127.0.0.1, ::1 and
// localhost cover every URL a scenario can use. P-256 because every TLS
// client supports it and signing is fast, which keeps handshakes cheap for
// per-iteration connections.
func newSelfSigned(now time.Time) (*selfSigned, error) {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return nil, fmt.Errorf("generate key: %w", err)
	}
	serial, err := rand.Int(rand.Reader, new(big.Int).Lsh(big.NewInt(1), 127))
	if err != nil {
		return nil, fmt.Errorf("serial number: %w", err)
	}
	tmpl := &x509.Certificate{
		SerialNumber: serial,
		Subject:      pkix.Name{Organization: []string{"loadgate built-in server"}, CommonName: "localhost"},
		NotBefore:    now.Add(-time.Hour),
		NotAfter:     now.Add(certValidity),
		// Self-signed and used directly as its own trust anchor (tls.ca_file),
		// so it is a CA as well as a server certificate.
		IsCA:                  true,
		BasicConstraintsValid: true,
		KeyUsage:              x509.KeyUsageDigitalSignature | x509.KeyUsageCertSign,
		ExtKeyUsage:           []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
		DNSNames:              []string{"localhost"},
		IPAddresses:           []net.IP{net.IPv4(127, 0, 0, 1), net.IPv6loopback},
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		return nil, fmt.Errorf("create certificate: %w", err)
	}
	leaf, err := x509.ParseCertificate(der)
	if err != nil {
		return nil, fmt.Errorf("parse certificate: %w", err)
	}
	return &selfSigned{
		cert: tls.Certificate{Certificate: [][]byte{der}, PrivateKey: key, Leaf: leaf},
		pem:  pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}),
	}, nil
}

// needsCert reports whether cfg has a TLS listener, so the key is only
// generated when something will use it.
func (c Config) needsCert() bool {
	return c.HTTPSAddr != "" || (c.GRPCAddr != "" && c.GRPCTLS)
}

// makeCert creates the certificate when cfg needs one and writes its PEM to
// Config.CertFile if asked.
func (s *Server) makeCert() error {
	if !s.cfg.needsCert() {
		return nil // validate refused a CertFile without a TLS listener
	}
	c, err := newSelfSigned(time.Now())
	if err != nil {
		return fmt.Errorf("demoserver: certificate: %w", err)
	}
	s.tls = c
	if s.cfg.CertFile != "" {
		// 0644: it is a public certificate, the key is never written.
		if err := os.WriteFile(s.cfg.CertFile, c.pem, 0o644); err != nil {
			return fmt.Errorf("demoserver: write certificate: %w", err)
		}
	}
	return nil
}

// tlsConfig returns a server TLS configuration with the in-memory
// certificate. The ALPN list is left to the server that uses it: net/http
// derives it from its Protocols, gRPC offers h2.
func (s *Server) tlsConfig() *tls.Config {
	return &tls.Config{
		Certificates: []tls.Certificate{s.tls.cert},
		MinVersion:   tls.VersionTLS12,
	}
}

// CertPEM returns the PEM of the server's self-signed certificate, for a
// client to trust (a scenario's tls.ca_file, or an x509.CertPool in a Go
// test), or nil when the server has no TLS listener. The certificate is
// made at Start, valid for 127.0.0.1, ::1 and localhost.
func (s *Server) CertPEM() []byte {
	if s.tls == nil {
		return nil
	}
	return s.tls.pem
}

// startHTTPS opens the TLS listener when Config.HTTPSAddr asks for one. It
// serves the same routes as the HTTP listener through its own http.Server,
// because the protocols offered by ALPN are a per-server setting: HTTP/2 is
// offered unless Config.HTTPSNoHTTP2, independently of h2c on the
// cleartext listener.
func (s *Server) startHTTPS(ctx context.Context) error {
	if s.cfg.HTTPSAddr == "" {
		return nil
	}
	var lc net.ListenConfig
	ln, err := lc.Listen(ctx, "tcp", s.cfg.HTTPSAddr)
	if err != nil {
		return fmt.Errorf("demoserver: listen https: %w", err)
	}
	s.httpsLn = &countingListener{Listener: ln, accepted: &s.ctr.accepted, also: &s.ctr.tlsAccepted}
	var p http.Protocols
	p.SetHTTP1(true)
	p.SetHTTP2(!s.cfg.HTTPSNoHTTP2)
	s.httpsSrv = s.newHTTPServer(&p)
	// ServeTLS sets the ALPN list (h2, http/1.1) from the protocols.
	s.httpsSrv.TLSConfig = s.tlsConfig()
	s.serving.Go(func() {
		// The certificate is in TLSConfig, hence no file names.
		if err := s.httpsSrv.ServeTLS(s.httpsLn, "", ""); !errors.Is(err, http.ErrServerClosed) {
			s.log.Error().Err(err).Msg("https serve stopped")
		}
	})
	return nil
}

// HTTPSAddr returns the address the TLS listener is bound to, with the port
// resolved, or "" when the server has no TLS listener.
func (s *Server) HTTPSAddr() string {
	if s.httpsLn == nil {
		return ""
	}
	return s.httpsLn.Addr().String()
}
