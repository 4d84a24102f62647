package demoserver

import (
	"bufio"
	"encoding/binary"
	"errors"
	"io"
	"net"
	"strings"
	"testing"
	"time"
)

// tcpConn is a test client of the framed TCP listener.
type tcpConn struct {
	t *testing.T
	c net.Conn
	r *bufio.Reader
}

func dialTCP(t *testing.T, s *Server) *tcpConn {
	t.Helper()
	c, err := net.DialTimeout("tcp", s.TCPAddr(), 5*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = c.Close() })
	_ = c.SetDeadline(time.Now().Add(10 * time.Second))
	return &tcpConn{t: t, c: c, r: bufio.NewReader(c)}
}

func frame(typ uint16, body string) []byte {
	b := binary.BigEndian.AppendUint16(nil, typ)
	b = binary.BigEndian.AppendUint32(b, uint32(len(body)))
	return append(b, body...)
}

func (tc *tcpConn) send(frames ...[]byte) {
	tc.t.Helper()
	var all []byte
	for _, f := range frames {
		all = append(all, f...)
	}
	if _, err := tc.c.Write(all); err != nil {
		tc.t.Fatal(err)
	}
}

// recv reads one frame; err is the read error when the server hung up.
func (tc *tcpConn) recv() (typ uint16, body string, err error) {
	var h [6]byte
	if _, err := io.ReadFull(tc.r, h[:]); err != nil {
		return 0, "", err
	}
	b := make([]byte, binary.BigEndian.Uint32(h[2:]))
	if _, err := io.ReadFull(tc.r, b); err != nil {
		return 0, "", err
	}
	return binary.BigEndian.Uint16(h[:2]), string(b), nil
}

func (tc *tcpConn) mustRecv() (uint16, string) {
	tc.t.Helper()
	typ, body, err := tc.recv()
	if err != nil {
		tc.t.Fatalf("reading a reply: %v", err)
	}
	return typ, body
}

func startTCP(t *testing.T, cfg Config) *Server {
	t.Helper()
	cfg.TCPAddr = "127.0.0.1:0"
	return start(t, cfg)
}

func TestTCPProtocol(t *testing.T) {
	s := startTCP(t, Config{})
	tc := dialTCP(t, s)
	tests := []struct {
		typ  uint16
		body string
		want string
	}{
		{1, `{"T":"Connect","S":1,"MAC_ADDR":"00-26-c6-8f-d8-2c","IP":"10.16.200.119"}`, `{"T":"ConnectAck","S":1}`},
		{1, `{"T":"MonitorItemData","S":39,"D":{"UsedPhysicalMemorySize":1908174848,"S":{"x":1}},"TS":1288273090499}`, `{"T":"Ack","S":39}`},
		{7, ` { "T" : "Ping" , "S" : -4 }`, `{"T":"Ack","S":-4}`},
		{1, `{"T":"NoSeq"}`, `{"T":"Ack","S":0}`},
		{1, `{"T":"BadSeq","S":"x"}`, `{"T":"Ack","S":0}`},
		{2, "plain bytes \x00\xff", "plain bytes \x00\xff"},
		{3, "", ""},
	}
	for _, tt := range tests {
		tc.send(frame(tt.typ, tt.body))
		typ, body := tc.mustRecv()
		if typ != tt.typ || body != tt.want {
			t.Errorf("%q (type %d) answered with %q (type %d), want %q", tt.body, tt.typ, body, typ, tt.want)
		}
	}
	// Frames sent together are all answered, in order.
	tc.send(frame(1, `{"T":"A","S":1}`), frame(1, `{"T":"B","S":2}`), frame(1, `{"T":"C","S":3}`))
	for i := 1; i <= 3; i++ {
		if _, body := tc.mustRecv(); !strings.Contains(body, `"S":`+string(rune('0'+i))) {
			t.Errorf("pipelined reply %d = %q", i, body)
		}
	}
	if st := s.Stats(); st.Frames != int64(len(tests))+3 || st.TCPAccepted != 1 || st.Accepted != 1 || st.Requests != 0 {
		t.Errorf("stats %+v: want %d frames on 1 TCP connection and no HTTP request", st, len(tests)+3)
	}
}

func TestTCPCountsEveryConnection(t *testing.T) {
	s := startTCP(t, Config{})
	for range 3 {
		tc := dialTCP(t, s)
		tc.send(frame(1, "x"))
		tc.mustRecv()
		_ = tc.c.Close()
	}
	resp := do(t, newClient(t, true), "GET", "http://"+s.HTTPAddr()+"/", "", nil)
	if resp.status != 200 {
		t.Fatalf("HTTP status %d", resp.status)
	}
	if st := s.Stats(); st.TCPAccepted != 3 || st.Accepted != 4 || st.Frames != 3 {
		t.Errorf("stats %+v: want 3 TCP connections among 4 accepted, 3 frames", st)
	}
}

func TestTCPErrorRateAndCloseAfter(t *testing.T) {
	s := startTCP(t, Config{ErrorRate: 1, CloseAfter: 2})
	tc := dialTCP(t, s)
	tc.send(frame(1, `{"T":"MonitorItemData","S":41}`))
	if _, body := tc.mustRecv(); body != `{"T":"Error","S":41,"Msg":"injected error"}` {
		t.Errorf("injected error frame = %q", body)
	}
	tc.send(frame(1, "echo me"))
	if _, body := tc.mustRecv(); !strings.Contains(body, `"Error"`) {
		t.Errorf("a failing echo must still say it failed, got %q", body)
	}
	// After the reply to its second frame the server hangs up.
	if _, _, err := tc.recv(); !errors.Is(err, io.EOF) {
		t.Errorf("after close-after 2: %v, want EOF", err)
	}
	if st := s.Stats(); st.Errors != 2 {
		t.Errorf("errors = %d, want 2", st.Errors)
	}
}

func TestTCPRefusesOversizedFrame(t *testing.T) {
	s := startTCP(t, Config{})
	tc := dialTCP(t, s)
	tc.send([]byte("\x00\x01\xff\xff\xff\xff"))
	if _, _, err := tc.recv(); err == nil {
		t.Fatal("a frame declaring 4 GiB was answered")
	}
	if st := s.Stats(); st.Frames != 0 {
		t.Errorf("frames = %d, want 0", st.Frames)
	}
}

func TestTCPDelayIsALowerBound(t *testing.T) {
	const delay = 30 * time.Millisecond
	s := startTCP(t, Config{Delay: delay})
	tc := dialTCP(t, s)
	for range 3 {
		began := time.Now()
		tc.send(frame(1, "x"))
		tc.mustRecv()
		if took := time.Since(began); took < delay {
			t.Errorf("reply after %v, before the %v delay", took, delay)
		}
	}
}

func TestTCPStallHoldsReplies(t *testing.T) {
	const every, dur = 400 * time.Millisecond, 200 * time.Millisecond
	s := startTCP(t, Config{StallEvery: every, StallFor: dur})
	tc := dialTCP(t, s)
	for range 5 {
		// Aim just after the start of the next window, when a stall begins.
		since := time.Since(s.Started())
		time.Sleep(every - since%every + 20*time.Millisecond)
		began := time.Now()
		into := began.Sub(s.Started()) % every
		if into > dur/2 {
			continue // woke too late on a busy machine; aim at the next one
		}
		tc.send(frame(1, "x"))
		tc.mustRecv()
		// Sent `into` the stall, the reply can leave only when it ends.
		if took := time.Since(began); took < dur-into-5*time.Millisecond {
			t.Errorf("a frame sent %v into a %v stall was answered after %v", into, dur, took)
		}
		return
	}
	t.Skip("could not send inside a stall window; the machine is too busy")
}

func TestTCPCloseAbortsHeldFrame(t *testing.T) {
	s, err := Start(t.Context(), Config{HTTPAddr: "127.0.0.1:0", TCPAddr: "127.0.0.1:0", Delay: time.Hour})
	if err != nil {
		t.Fatal(err)
	}
	tc := dialTCP(t, s)
	tc.send(frame(1, "x"))
	waitFor(t, func() bool { return s.Stats().Frames == 1 })
	closed := make(chan error, 1)
	go func() { closed <- s.Close() }()
	select {
	case err := <-closed:
		if err != nil {
			t.Errorf("Close: %v", err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("Close waited for a frame held by an hour's delay")
	}
	if _, _, err := tc.recv(); err == nil {
		t.Error("a reply arrived after Close")
	}
	if _, err := net.DialTimeout("tcp", s.TCPAddr(), time.Second); err == nil {
		t.Error("the TCP listener still accepts after Close")
	}
}

func TestTCPOffByDefault(t *testing.T) {
	s := start(t, Config{})
	if s.TCPAddr() != "" {
		t.Errorf("TCPAddr = %q without Config.TCPAddr", s.TCPAddr())
	}
	if _, err := Start(t.Context(), Config{TCPAddr: "0.0.0.0:0"}); err == nil || !strings.Contains(err.Error(), "loopback") {
		t.Errorf("a TCP listener on every interface: err = %v", err)
	}
}

func TestJSONField(t *testing.T) {
	tests := []struct {
		body, key, want string
		ok              bool
	}{
		{`{"T":"Connect","S":1}`, "T", `"Connect"`, true},
		{`{"T":"Connect","S":1}`, "S", "1", true},
		{`{"S" :  42 }`, "S", "42", true},
		{`{"T":"x"`, "S", "", false},
		{`{"T":"unterminated`, "T", "", false},
		{`["T", 1]`, "T", "", false},
		{`not json "T":"x"`, "T", "", false},
		{`{"T"}`, "T", "", false},
		{`{"S":}`, "S", "", false},
	}
	for _, tt := range tests {
		got, ok := jsonField([]byte(tt.body), tt.key)
		if string(got) != tt.want || ok != tt.ok {
			t.Errorf("jsonField(%q, %q) = %q, %v; want %q, %v", tt.body, tt.key, got, ok, tt.want, tt.ok)
		}
	}
}
