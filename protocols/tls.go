package protocols

import (
	"crypto/tls"
	"crypto/x509"
	"fmt"
	"os"

	"github.com/loadgate/loadgate/scenarios"
)

// TLSConfig is the client TLS configuration of a target's tls: block, the
// same for every protocol that speaks TLS: the trust (ca_file, or
// insecure_skip_verify), the client certificate, and the session cache
// that lets new connections resume a session instead of a full handshake
// (unless resume: false), and the key exchanges offered (post_quantum).
// Every config made for the same tls: block shares that block's cache
// (scenarios.TLS.Sessions), so the workers of a target resume each
// other's sessions.
func TLSConfig(target string, t *scenarios.TLS) (*tls.Config, error) {
	conf := &tls.Config{InsecureSkipVerify: t.InsecureSkipVerify} //nolint:gosec // the user asked for it
	if t.CAFile != "" {
		pem, err := os.ReadFile(t.CAFile)
		if err != nil {
			return nil, fmt.Errorf("target %q: tls ca_file: %w", target, err)
		}
		pool := x509.NewCertPool()
		if !pool.AppendCertsFromPEM(pem) {
			return nil, fmt.Errorf("target %q: tls ca_file %s: no certificate found", target, t.CAFile)
		}
		conf.RootCAs = pool
	}
	if t.CertFile != "" || t.KeyFile != "" {
		cert, err := tls.LoadX509KeyPair(t.CertFile, t.KeyFile)
		if err != nil {
			return nil, fmt.Errorf("target %q: tls cert_file/key_file: %w", target, err)
		}
		conf.Certificates = []tls.Certificate{cert}
	}
	if !t.NoResume {
		conf.ClientSessionCache = t.Sessions
	}
	if !t.PostQuantum {
		conf.CurvePreferences = classicalCurves
	}
	return conf, nil
}

// classicalCurves are the key exchanges offered without post_quantum, in
// the order of Go's own preferences less the hybrid X25519MLKEM768: only
// the first one's key share goes in the ClientHello, so a handshake costs
// one X25519 key generation instead of that and an ML-KEM-768 one.
var classicalCurves = []tls.CurveID{tls.X25519, tls.CurveP256, tls.CurveP384, tls.CurveP521}
