package scenarios

import (
	"crypto/tls"
	"crypto/x509"
	"os"

	"go.yaml.in/yaml/v3"
)

// The `tls:` block, decoded and resolved alike for HTTP, gRPC and
// WebSocket targets.

type rawTLS struct {
	insecureSkipVerify, caFile *yaml.Node
	certFile, keyFile          *yaml.Node
	resume, postQuantum        *yaml.Node
}

var tlsFields = []field[rawTLS]{
	scalarField("insecure_skip_verify", aBool, func(t *rawTLS) **yaml.Node { return &t.insecureSkipVerify }),
	scalarField("ca_file", aString, func(t *rawTLS) **yaml.Node { return &t.caFile }),
	scalarField("cert_file", aString, func(t *rawTLS) **yaml.Node { return &t.certFile }),
	scalarField("key_file", aString, func(t *rawTLS) **yaml.Node { return &t.keyFile }),
	scalarField("resume", aBool, func(t *rawTLS) **yaml.Node { return &t.resume }),
	scalarField("post_quantum", aBool, func(t *rawTLS) **yaml.Node { return &t.postQuantum }),
}

// tls resolves a `tls:` block, the same for every protocol.
func (r *resolver) tls(t *rawTLS) TLS {
	var out TLS
	if t.insecureSkipVerify != nil {
		out.InsecureSkipVerify, _ = r.bool(t.insecureSkipVerify, "insecure_skip_verify")
	}
	if t.caFile != nil {
		out.CAFile = r.caFile(t.caFile)
	}
	if t.resume != nil {
		resume, _ := r.bool(t.resume, "resume")
		out.NoResume = !resume
	}
	if t.postQuantum != nil {
		out.PostQuantum, _ = r.bool(t.postQuantum, "post_quantum")
	}
	r.clientCert(t, &out)
	if !out.NoResume {
		out.Sessions = NewSessionCache()
	}
	return out
}

// caFile resolves ca_file relative to the scenario and checks that it
// exists, so a typo is found by `validate` rather than by the first request.
func (r *resolver) caFile(n *yaml.Node) string {
	name, ok := r.text(n)
	if !ok {
		return ""
	}
	path := r.d.relPath(name)
	if r.d.judgeOnly {
		return path
	}
	if info, err := os.Stat(path); err != nil {
		r.d.errorf(n, "ca_file: cannot read %q: %s", name, describeIOError(err))
	} else if !info.Mode().IsRegular() {
		r.d.errorf(n, "ca_file: cannot read %q: not a regular file", name)
	} else if data, err := os.ReadFile(path); err != nil {
		r.d.errorf(n, "ca_file: cannot read %q: %s", name, describeIOError(err))
	} else if !x509.NewCertPool().AppendCertsFromPEM(data) {
		// Found now rather than at the first request, where every request
		// would fail a handshake for a reason nobody could guess.
		r.d.errorf(n, "ca_file: %q holds no PEM certificate", name)
	}
	return path
}

// clientCert resolves tls.cert_file and tls.key_file: both or neither, and
// loadable as a pair now, so that a wrong key is found by validate.
func (r *resolver) clientCert(t *rawTLS, out *TLS) {
	switch {
	case t.certFile == nil && t.keyFile == nil:
		return
	case t.keyFile == nil:
		r.d.errorf(t.certFile, "tls: cert_file needs key_file, the certificate's private key")
		return
	case t.certFile == nil:
		r.d.errorf(t.keyFile, "tls: key_file needs cert_file, the client certificate")
		return
	}
	cert, ok1 := r.text(t.certFile)
	key, ok2 := r.text(t.keyFile)
	if !ok1 || !ok2 {
		return
	}
	out.CertFile, out.KeyFile = r.d.relPath(cert), r.d.relPath(key)
	if r.d.judgeOnly {
		return
	}
	if _, err := tls.LoadX509KeyPair(out.CertFile, out.KeyFile); err != nil {
		r.d.errorf(t.certFile, "tls: cert_file %q and key_file %q do not load as a key pair: %s", cert, key, describeIOError(err))
	}
}
