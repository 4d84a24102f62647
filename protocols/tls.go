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
// insecure_skip_verify) and the client certificate.
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
	return conf, nil
}
