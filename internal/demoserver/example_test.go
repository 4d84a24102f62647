package demoserver_test

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"encoding/binary"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"time"

	"github.com/loadgate/loadgate/internal/demoserver"
)

// Start a server on a free loopback port, send it one request and read the
// counters, as a test of a load generator would.
func ExampleStart() {
	s, err := demoserver.Start(context.Background(), demoserver.Config{
		HTTPAddr: "127.0.0.1:0",
		Delay:    time.Millisecond,
		Seed:     1,
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	defer s.Close()

	resp, err := http.Get("http://" + s.HTTPAddr() + "/")
	if err != nil {
		fmt.Println(err)
		return
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	fmt.Println(resp.StatusCode, string(body), s.Stats().Requests)
	// Output: 200 hello 1
}

// The accuracy knobs of "loadgate serve": exponential delays with a 2ms
// floor and a 1ms mean tail, a 300ms freeze every second, and a new
// connection every 100 requests.
func ExampleRegisterFlags() {
	var cfg demoserver.Config
	fs := flag.NewFlagSet("serve", flag.ContinueOnError)
	demoserver.RegisterFlags(fs, &cfg)
	err := fs.Parse([]string{
		"--delay", "2ms", "--jitter", "1ms", "--delay-dist", "exponential",
		"--stall", "1s/300ms", "--close-after", "100",
	})
	if err == nil {
		cfg, err = demoserver.CheckFlags(cfg)
	}
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(cfg.Delay, cfg.Jitter, cfg.DelayDist, cfg.StallEvery, cfg.StallFor, cfg.CloseAfter)
	// Output: 2ms 1ms exponential 1s 300ms 100
}

// Speak the framed TCP protocol: a Connect handshake is acknowledged in a
// frame of the same type.
func ExampleStart_tcp() {
	s, err := demoserver.Start(context.Background(), demoserver.Config{
		HTTPAddr: "127.0.0.1:0",
		TCPAddr:  "127.0.0.1:0",
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	defer s.Close()

	c, err := net.Dial("tcp", s.TCPAddr())
	if err != nil {
		fmt.Println(err)
		return
	}
	defer c.Close()
	body := `{"T":"Connect","S":1,"IP":"10.16.200.119"}`
	frame := binary.BigEndian.AppendUint16(nil, 1)
	frame = binary.BigEndian.AppendUint32(frame, uint32(len(body)))
	if _, err := c.Write(append(frame, body...)); err != nil {
		fmt.Println(err)
		return
	}
	var hdr [6]byte
	if _, err := io.ReadFull(c, hdr[:]); err != nil {
		fmt.Println(err)
		return
	}
	reply := make([]byte, binary.BigEndian.Uint32(hdr[2:]))
	if _, err := io.ReadFull(c, reply); err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(binary.BigEndian.Uint16(hdr[:2]), string(reply), s.Stats().Frames)
	// Output: 1 {"T":"ConnectAck","S":1} 1
}

// Log in to the API, place an order with the token, and read the server's
// own account of it: what each endpoint answered and who logged in.
func ExampleStart_api() {
	s, err := demoserver.Start(context.Background(), demoserver.Config{HTTPAddr: "127.0.0.1:0"})
	if err != nil {
		fmt.Println(err)
		return
	}
	defer s.Close()
	base := "http://" + s.HTTPAddr()

	resp, err := http.Post(base+"/api/login", "application/json",
		strings.NewReader(`{"user":"user7","pass":"pw-user7"}`))
	if err != nil {
		fmt.Println(err)
		return
	}
	var login struct {
		Token string `json:"access_token"`
	}
	err = json.NewDecoder(resp.Body).Decode(&login)
	resp.Body.Close()
	if err != nil {
		fmt.Println(err)
		return
	}

	req, _ := http.NewRequest("POST", base+"/api/orders", strings.NewReader(`{"item":"item-42","qty":3}`))
	req.Header.Set("Authorization", "Bearer "+login.Token)
	resp, err = http.DefaultClient.Do(req)
	if err != nil {
		fmt.Println(err)
		return
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	fmt.Print(resp.StatusCode, " ", resp.Header.Get("Location"), " ", string(body))

	st := s.Stats()
	fmt.Println(st.API, st.Logins)
	// Output:
	// 201 /api/orders/1 {"id":"1","item":"item-42","qty":3}
	// map[login:map[200:1] orders:map[201:1]] map[user7:1]
}

// Serve over TLS with the certificate made at start, and fetch a page
// over HTTP/2 trusting only that certificate, as a scenario's
// tls.ca_file would.
func ExampleServer_CertPEM() {
	s, err := demoserver.Start(context.Background(), demoserver.Config{HTTPSAddr: "127.0.0.1:0"})
	if err != nil {
		fmt.Println(err)
		return
	}
	defer s.Close()

	pool := x509.NewCertPool()
	pool.AppendCertsFromPEM(s.CertPEM())
	tr := &http.Transport{TLSClientConfig: &tls.Config{RootCAs: pool}, ForceAttemptHTTP2: true}
	defer tr.CloseIdleConnections()
	resp, err := (&http.Client{Transport: tr}).Get("https://" + s.HTTPSAddr() + "/")
	if err != nil {
		fmt.Println(err)
		return
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	st := s.Stats()
	fmt.Println(resp.Proto, string(body), st.HTTP2Requests, st.TLSAccepted)
	// Output: HTTP/2.0 hello 1 1
}
