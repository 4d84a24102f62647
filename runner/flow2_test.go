package runner

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"io"
	"log"
	"math/big"
	mrand "math/rand/v2"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"os"
	"path/filepath"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/loadgate/loadgate/protocols"
	"github.com/loadgate/loadgate/results"
	"github.com/loadgate/loadgate/scenarios"
)

func oneStepFlow(url string) *scenarios.Flow {
	return &scenarios.Flow{Steps: []scenarios.Step{step(nil, "get", "GET", url, 200)}}
}

func runFlow(t *testing.T, sc *scenarios.Scenario) *results.PhaseResult {
	t.Helper()
	res, err := Run(context.Background(), sc, Config{})
	if err != nil {
		t.Fatal(err)
	}
	return res.Cases[0].Phases[0]
}

func TestFlowCookiesRoundTrip(t *testing.T) {
	var withCookie, without atomic.Int64
	srv := newCountingServer(t, func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/login":
			http.SetCookie(w, &http.Cookie{Name: "sid", Value: "s3cret", Path: "/"})
		case "/me":
			if c, err := r.Cookie("sid"); err == nil && c.Value == "s3cret" {
				withCookie.Add(1)
				return
			}
			without.Add(1)
			w.WriteHeader(http.StatusUnauthorized)
		}
	})
	for _, cookies := range []bool{true, false} {
		withCookie.Store(0)
		without.Store(0)
		f := &scenarios.Flow{
			Setup:   []scenarios.Step{step(nil, "login", "POST", srv.URL+"/login", 200)},
			Steps:   []scenarios.Step{step(nil, "me", "GET", srv.URL+"/me", 200)},
			Cookies: cookies,
		}
		p := runFlow(t, flowScenario(f, nil, scenarios.Phase{Name: "m", Requests: 12, Concurrency: 2}))
		if cookies && (p.Succeeded != 12 || withCookie.Load() != 12) {
			t.Errorf("cookies: %d succeeded, the server saw the cookie %d times; want 12", p.Succeeded, withCookie.Load())
		}
		if !cookies && (without.Load() != 12 || p.Errors.Status != 12) {
			t.Errorf("no cookies: the server saw %d requests without a cookie, %d status errors; want 12", without.Load(), p.Errors.Status)
		}
	}
}

// forwardProxy is a loopback HTTP proxy for absolute-form requests that
// counts what it forwarded.
func forwardProxy(t *testing.T) (*httptest.Server, *atomic.Int64) {
	var n atomic.Int64
	rp := &httputil.ReverseProxy{Rewrite: func(pr *httputil.ProxyRequest) {
		n.Add(1)
		pr.Out.URL = pr.In.URL // absolute: where the client wants to go
		pr.Out.Host = pr.In.Host
	}}
	p := httptest.NewServer(rp)
	t.Cleanup(p.Close)
	return p, &n
}

func TestProxyCarriesRequests(t *testing.T) {
	srv := newCountingServer(t, hello)
	proxy, forwarded := forwardProxy(t)
	for _, flow := range []bool{true, false} {
		forwarded.Store(0)
		var sc *scenarios.Scenario
		if flow {
			sc = flowScenario(oneStepFlow(srv.URL+"/x"), nil, scenarios.Phase{Name: "m", Requests: 9, Concurrency: 2})
		} else {
			sc = httpScenario(scenarios.HTTPTarget{Requests: single(srv.URL), Keepalive: true},
				scenarios.Phase{Name: "m", Requests: 9, Concurrency: 2})
		}
		sc.Cases[0].Target.HTTP.Proxy = proxy.URL
		p := runFlow(t, sc)
		if p.Succeeded != 9 || forwarded.Load() != 9 {
			t.Errorf("flow=%v: %d succeeded, the proxy forwarded %d; want 9 (errors %v)", flow, p.Succeeded, forwarded.Load(), p.ErrorSamples)
		}
	}
}

// writeClientCert makes a CA and a client certificate it signed, written
// as PEM files; it returns the CA's pool and the files' paths.
func writeClientCert(t *testing.T) (*x509.CertPool, string, string) {
	dir := t.TempDir()
	caKey, _ := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	ca := &x509.Certificate{SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "test ca"},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour), IsCA: true,
		BasicConstraintsValid: true, KeyUsage: x509.KeyUsageCertSign}
	caDER, err := x509.CreateCertificate(rand.Reader, ca, ca, &caKey.PublicKey, caKey)
	if err != nil {
		t.Fatal(err)
	}
	caCert, _ := x509.ParseCertificate(caDER)
	key, _ := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	leaf := &x509.Certificate{SerialNumber: big.NewInt(2), Subject: pkix.Name{CommonName: "loadgate"},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour),
		ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageClientAuth}, KeyUsage: x509.KeyUsageDigitalSignature}
	der, err := x509.CreateCertificate(rand.Reader, leaf, caCert, &key.PublicKey, caKey)
	if err != nil {
		t.Fatal(err)
	}
	keyDER, _ := x509.MarshalECPrivateKey(key)
	certFile, keyFile := filepath.Join(dir, "client.pem"), filepath.Join(dir, "client.key")
	for file, block := range map[string]*pem.Block{certFile: {Type: "CERTIFICATE", Bytes: der}, keyFile: {Type: "EC PRIVATE KEY", Bytes: keyDER}} {
		if err := os.WriteFile(file, pem.EncodeToMemory(block), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	pool := x509.NewCertPool()
	pool.AddCert(caCert)
	return pool, certFile, keyFile
}

func TestClientCertificate(t *testing.T) {
	pool, certFile, keyFile := writeClientCert(t)
	srv := httptest.NewUnstartedServer(http.HandlerFunc(hello))
	srv.TLS = &tls.Config{ClientAuth: tls.RequireAndVerifyClientCert, ClientCAs: pool}
	// The refused handshakes are the test's point, not news for its log.
	srv.Config.ErrorLog = log.New(io.Discard, "", 0)
	srv.StartTLS()
	t.Cleanup(srv.Close)
	caFile := filepath.Join(t.TempDir(), "server.pem")
	if err := os.WriteFile(caFile, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: srv.Certificate().Raw}), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name     string
		flow     bool
		withCert bool
	}{{"flow", true, true}, {"flow without cert", true, false}, {"plain", false, true}} {
		t.Run(tc.name, func(t *testing.T) {
			var sc *scenarios.Scenario
			ph := scenarios.Phase{Name: "m", Requests: 6, Concurrency: 2}
			if tc.flow {
				sc = flowScenario(oneStepFlow(srv.URL+"/"), nil, ph)
			} else {
				sc = httpScenario(scenarios.HTTPTarget{Requests: single(srv.URL), Keepalive: true}, ph)
			}
			h := sc.Cases[0].Target.HTTP
			h.TLS.CAFile = caFile
			if tc.withCert {
				h.TLS.CertFile, h.TLS.KeyFile = certFile, keyFile
			}
			p := runFlow(t, sc)
			if tc.withCert && p.Succeeded != 6 {
				t.Errorf("%d succeeded, want 6 (errors %v)", p.Succeeded, p.ErrorSamples)
			}
			if !tc.withCert && p.Succeeded != 0 {
				t.Errorf("%d succeeded without a client certificate, want 0", p.Succeeded)
			}
		})
	}
}

func TestUniqueFeedNeverRepeatsAcrossWorkers(t *testing.T) {
	const rows, workers = 5000, 8
	src := &scenarios.DataSource{Name: "ids", Columns: []string{"id"}, Mode: scenarios.DataUnique, OnExhausted: scenarios.ExhaustedStop}
	for i := range rows {
		src.Rows = append(src.Rows, []string{string(rune('a'+i%26)) + string(rune(i))})
	}
	f := protocols.NewFeeds([]*scenarios.DataSource{src})[0]
	seen := make([]map[*string]bool, workers)
	var wg sync.WaitGroup
	for w := range workers {
		seen[w] = map[*string]bool{}
		wg.Add(1)
		go func() {
			defer wg.Done()
			rng := mrand.New(mrand.NewPCG(uint64(w), 1))
			for {
				row, ok := f.Draw(rng)
				if !ok {
					return
				}
				seen[w][&row[0]] = true
			}
		}()
	}
	wg.Wait()
	all := map[*string]int{}
	for _, m := range seen {
		for k := range m {
			all[k]++
		}
	}
	if len(all) != rows {
		t.Errorf("%d distinct rows handed out, want all %d", len(all), rows)
	}
	for k, n := range all {
		if n > 1 {
			t.Errorf("row %q handed out to %d workers", *k, n)
		}
	}
}

func TestUniqueDataEndsThePhaseCleanly(t *testing.T) {
	for _, open := range []bool{false, true} {
		api, srv := newAPIServer(t)
		ph := scenarios.Phase{Name: "m", Concurrency: 3} // no duration, no limit: only the data ends it
		if open {
			ph = scenarios.Phase{Name: "m", Requests: 1000, Rate: scenarios.Rate{From: 5000, To: 5000}, MaxInFlight: 3}
		}
		f := shopFlow(srv.URL)
		f.StepData, f.SetupData = f.SetupData, nil // a row per iteration, so 5 iterations in all
		f.Setup = nil
		f.Steps = f.Steps[:1]
		f.Steps[0].Headers = nil
		api.items = `{"items":[{"id":42}]}`
		sc := flowScenario(f, usersData(scenarios.DataUnique, scenarios.ExhaustedStop, "a", "b", "c", "d", "e"), ph)
		res, err := Run(context.Background(), sc, Config{MaxPhase: time.Minute})
		if err != nil {
			t.Fatal(err)
		}
		p := res.Cases[0].Phases[0]
		if p.Iterations.Iterations != 5 || p.Requests != 5 || p.Dropped != 0 {
			t.Errorf("open=%v: %d iterations, %d requests, %d dropped; want 5, 5, 0: one per row, then a clean end",
				open, p.Iterations.Iterations, p.Requests, p.Dropped)
		}
		if p.Interrupted || p.Elapsed >= time.Minute {
			t.Errorf("open=%v: the phase ran until its deadline (%v) instead of ending with the data", open, p.Elapsed)
		}
	}
}
