package demoserver

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

const (
	connectMsg = `{"T":"Connect","S":1,"HOST_NAME":"agent"}`
	itemMsg    = `{"T":"MonitorItemData","S":39,"D":{"MemoryHeapUsed":101766328}}`
)

func TestTCPStoreFake(t *testing.T) {
	for _, tc := range []struct {
		name      string
		failPush  bool
		wantReply string
		wantStats StoreStats
	}{
		{"stored", false, `{"T":"Ack","S":39}`, StoreStats{Stored: 2, Dials: 1}},
		{"an error reply", true, `{"T":"Error","S":39,"Msg":"store error"}`, StoreStats{Errors: 2, Dials: 1}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			redis := startFakeRedis(t, redisLike(tc.failPush))
			s := startTCP(t, Config{TCPStore: redis.addr()})
			tc1 := dialTCP(t, s)
			tc1.send(frame(1, connectMsg), frame(1, itemMsg), frame(1, "not json"), frame(1, itemMsg))
			for i, want := range []string{`{"T":"ConnectAck","S":1}`, tc.wantReply, "not json", tc.wantReply} {
				if _, got := tc1.mustRecv(); got != want {
					t.Errorf("reply %d = %s, want %s", i, got, want)
				}
			}
			if got := *s.Stats().Store; got != tc.wantStats {
				t.Errorf("store stats = %+v, want %+v", got, tc.wantStats)
			}
			cmds, _ := redis.seen()
			// The PING of Start, then LPUSH and LTRIM for each message.
			want := [][]string{{"PING"}}
			for range 2 {
				want = append(want, []string{"LPUSH", storeKey, itemMsg}, []string{"LTRIM", storeKey, "0", "9999"})
			}
			if fmt.Sprint(cmds) != fmt.Sprint(want) {
				t.Errorf("redis got %q, want %q", cmds, want)
			}
		})
	}
}

// TestTCPStoreSharedPool: agents that open a connection per message share
// the pool; Redis sees no more connections than the pool holds.
func TestTCPStoreSharedPool(t *testing.T) {
	redis := startFakeRedis(t, redisLike(false))
	s := startTCP(t, Config{TCPStore: redis.addr()})
	const agents, perAgent = 8, 25
	var wg sync.WaitGroup
	errs := make(chan error, agents)
	for range agents {
		wg.Go(func() {
			for range perAgent {
				if err := shortAgent(s.TCPAddr()); err != nil {
					errs <- err
					return
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	st := s.Stats()
	if st.TCPAccepted != agents*perAgent || st.Store.Stored != agents*perAgent || st.Store.Errors != 0 {
		t.Errorf("accepted %d, stored %d, %d errors; want %d, %d, 0",
			st.TCPAccepted, st.Store.Stored, st.Store.Errors, agents*perAgent, agents*perAgent)
	}
	if _, conns := redis.seen(); conns > storePoolSize || st.Store.Dials != int64(conns) {
		t.Errorf("redis accepted %d connections, the pool says it dialed %d; want at most %d",
			conns, st.Store.Dials, storePoolSize)
	}
}

// shortAgent connects, shakes hands, sends one message and hangs up.
func shortAgent(addr string) error {
	c, err := net.DialTimeout("tcp", addr, 5*time.Second)
	if err != nil {
		return err
	}
	defer c.Close()
	_ = c.SetDeadline(time.Now().Add(10 * time.Second))
	if _, err := c.Write(append(frame(1, connectMsg), frame(1, itemMsg)...)); err != nil {
		return err
	}
	r := bufio.NewReader(c)
	for _, want := range []string{`"ConnectAck"`, `"Ack"`} {
		var h [tcpHeaderLen]byte
		if _, err := io.ReadFull(r, h[:]); err != nil {
			return err
		}
		body := make([]byte, int(h[5])|int(h[4])<<8)
		if _, err := io.ReadFull(r, body); err != nil {
			return err
		}
		if !bytes.Contains(body, []byte(want)) {
			return fmt.Errorf("reply %s, want %s", body, want)
		}
	}
	return nil
}

// TestTCPStoreRedisGone: a Redis that goes away turns messages into error
// frames, and Close still returns.
func TestTCPStoreRedisGone(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	f := &fakeRedis{ln: ln, answer: redisLike(false)}
	f.wg.Go(f.accept)
	s := startTCP(t, Config{TCPStore: f.addr()})
	_ = ln.Close()
	f.wg.Wait() // closes the pool's connection from the far end
	tc := dialTCP(t, s)
	tc.send(frame(1, connectMsg), frame(1, itemMsg), frame(1, itemMsg))
	tc.mustRecv()
	for i := range 2 {
		if _, got := tc.mustRecv(); !strings.Contains(got, `"T":"Error"`) {
			t.Errorf("message %d answered %s, want an error frame", i, got)
		}
	}
	if st := s.Stats().Store; st.Errors != 2 || st.Stored != 0 {
		t.Errorf("store stats %+v, want 2 errors", st)
	}
}

// TestTCPStoreClosedWithServer: Close closes the pool's connections.
func TestTCPStoreClosedWithServer(t *testing.T) {
	redis := startFakeRedis(t, redisLike(false))
	s, err := Start(context.Background(), Config{TCPAddr: "127.0.0.1:0", TCPStore: redis.addr()})
	if err != nil {
		t.Fatal(err)
	}
	if err := shortAgent(s.TCPAddr()); err != nil {
		t.Fatal(err)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(10 * time.Millisecond) {
		redis.mu.Lock()
		conns, hungUp := redis.conns, redis.hungUp
		redis.mu.Unlock()
		if conns > 0 && hungUp == conns {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("after Close, %d of the pool's %d connections are still open", conns-hungUp, conns)
		}
	}
}

func TestTCPStoreConfig(t *testing.T) {
	for _, tc := range []struct {
		name string
		cfg  Config
		want string
	}{
		{"without --tcp", Config{TCPStore: "127.0.0.1:6379"}, "tcp-store needs a TCP listener (--tcp)"},
		{"not loopback", Config{TCPAddr: "127.0.0.1:0", TCPStore: "10.0.0.1:6379"}, `host "10.0.0.1" is not a loopback address`}, // not dialled: refused before any connection is made
		{"nothing there", Config{TCPAddr: "127.0.0.1:0", TCPStore: closedAddr(t)}, "tcp store"},
		{"not redis", Config{TCPAddr: "127.0.0.1:0", TCPStore: startFakeRedis(t, func([]string) string { return "HTTP/1.1 400\r\n" }).addr()},
			`unexpected reply "HTTP/1.1 400\r\n"`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s, err := Start(context.Background(), tc.cfg)
			if err == nil {
				_ = s.Close()
				t.Fatal("Start succeeded")
			}
			if !strings.Contains(err.Error(), tc.want) {
				t.Errorf("error %q does not say %q", err, tc.want)
			}
		})
	}
}

// closedAddr is a loopback address that nothing listens on.
func closedAddr(t testing.TB) string {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	_ = ln.Close()
	return addr
}

func TestReadRESPReply(t *testing.T) {
	for _, tc := range []struct {
		in      string
		wantErr string // "" for none
		redis   bool   // an error reply from Redis
	}{
		{"+OK\r\n", "", false},
		{":42\r\n", "", false},
		{"$3\r\nabc\r\n", "", false},
		{"$-1\r\n", "", false},
		{"-ERR wrong type\r\n", "redis: ERR wrong type", true},
		{":4x\r\n", "malformed integer", false},
		{"$5\r\nab", "unexpected EOF", false},
		{"$-2\r\n", "malformed bulk length", false},
		{"+OK\n", "malformed reply", false},
		{"*1\r\n:1\r\n", "unexpected reply", false},
		{"+" + strings.Repeat("x", 5000) + "\r\n", "too long", false},
		{"", "EOF", false},
	} {
		err := readRESPReply(bufio.NewReader(strings.NewReader(tc.in)))
		switch {
		case tc.wantErr == "" && err != nil:
			t.Errorf("%.20q: %v", tc.in, err)
		case tc.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tc.wantErr)):
			t.Errorf("%.20q: error %v, want %q", tc.in, err, tc.wantErr)
		case isRedisError(err) != tc.redis:
			t.Errorf("%.20q: isRedisError = %v, want %v", tc.in, !tc.redis, tc.redis)
		}
	}
}

func FuzzRESPReply(f *testing.F) {
	for _, s := range []string{"+OK\r\n", ":1\r\n", "-ERR x\r\n", "$3\r\nabc\r\n", "$-1\r\n", "*0\r\n"} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, in []byte) {
		r := bufio.NewReader(bytes.NewReader(in))
		err := readRESPReply(r)
		if err == nil && len(in) < 3 {
			t.Fatalf("%q accepted as a reply", in)
		}
		if isRedisError(err) && in[0] != '-' {
			t.Fatalf("%q read as an error reply", in)
		}
		if errors.Is(err, errStoreClosed) {
			t.Fatalf("%q: a reader's error cannot be the store's", in)
		}
	})
}

// TestTCPStoreRealRedis stores an agent's messages in a real redis-server
// and reads the list back.
func TestTCPStoreRealRedis(t *testing.T) {
	addr := startRealRedis(t)
	s := startTCP(t, Config{TCPStore: addr})
	tc := dialTCP(t, s)
	msgs := []string{connectMsg}
	for i := range 5 {
		msgs = append(msgs, fmt.Sprintf(`{"T":"MonitorItemData","S":%d,"D":{}}`, 40+i))
	}
	for _, m := range msgs {
		tc.send(frame(1, m))
	}
	for range msgs {
		if _, got := tc.mustRecv(); strings.Contains(got, "Error") {
			t.Fatalf("reply %s", got)
		}
	}
	got := redisCommand(t, addr, "LRANGE", storeKey, "0", "-1")
	// LPUSH puts the newest first.
	want := []string{msgs[5], msgs[4], msgs[3], msgs[2], msgs[1]}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("LRANGE answered %q, want %q", got, want)
	}
	if st := s.Stats().Store; st.Stored != 5 || st.Errors != 0 || st.Dials != 1 {
		t.Errorf("store stats %+v", st)
	}
}

// TestTCPStoreRealRedisTrims: the list keeps the newest storeKeep
// messages however many came.
func TestTCPStoreRealRedisTrims(t *testing.T) {
	addr := startRealRedis(t)
	s := startTCP(t, Config{TCPStore: addr})
	tc := dialTCP(t, s)
	tc.send(frame(1, connectMsg))
	tc.mustRecv()
	const n = storeKeep + 100 // whole batches of 100
	batch := make([]byte, 0, 100*len(frame(1, itemMsg)))
	for i := 0; i < n; i += 100 {
		batch = batch[:0]
		for range 100 {
			batch = append(batch, frame(1, itemMsg)...)
		}
		tc.send(batch)
		for range 100 {
			tc.mustRecv()
		}
	}
	if got := redisCommand(t, addr, "LLEN", storeKey); fmt.Sprint(got) != fmt.Sprintf("[:%d]", storeKeep) {
		t.Errorf("LLEN answered %q, want %d", got, storeKeep)
	}
	if st := s.Stats().Store; st.Stored != n {
		t.Errorf("stored %d, want %d", st.Stored, n)
	}
}

func bulk(s string) string { return "$" + strconv.Itoa(len(s)) + "\r\n" + s + "\r\n" }

// redisCommand sends one command and returns its reply: the elements of
// an array, or the one value of a scalar, with its type byte.
func redisCommand(t *testing.T, addr string, args ...string) []string {
	t.Helper()
	c, err := net.DialTimeout("tcp", addr, 5*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	cmd := "*" + strconv.Itoa(len(args)) + "\r\n"
	for _, a := range args {
		cmd += bulk(a)
	}
	_ = c.SetDeadline(time.Now().Add(10 * time.Second))
	if _, err := io.WriteString(c, cmd); err != nil {
		t.Fatal(err)
	}
	r := bufio.NewReader(c)
	line := func() string {
		l, err := r.ReadString('\n')
		if err != nil {
			t.Fatalf("%s: %v", args[0], err)
		}
		return strings.TrimSuffix(l, "\r\n")
	}
	first := line()
	if first[0] != '*' {
		return []string{first}
	}
	n, _ := strconv.Atoi(first[1:])
	out := make([]string, n)
	for i := range out {
		size, _ := strconv.Atoi(strings.TrimPrefix(line(), "$"))
		b := make([]byte, size+2)
		if _, err := io.ReadFull(r, b); err != nil {
			t.Fatal(err)
		}
		out[i] = string(b[:size])
	}
	return out
}

// startRealRedis starts redis-server without persistence on a free
// loopback port, stopped by its PID when the test ends. Outside CI a
// machine without it skips; in CI, whose .ci/run installs it, that fails.
func startRealRedis(t testing.TB) string {
	t.Helper()
	bin, err := exec.LookPath("redis-server")
	if err != nil {
		msg := "redis-server is not installed (apt-get install redis-server)"
		if os.Getenv("CI") != "" {
			t.Fatal(msg + ", and CI is set")
		}
		t.Skip(msg)
	}
	addr := closedAddr(t)
	_, port, _ := net.SplitHostPort(addr)
	cmd := exec.Command(bin, "--port", port, "--bind", "127.0.0.1", "--save", "", "--appendonly", "no", "--daemonize", "no")
	var logs bytes.Buffer
	cmd.Stdout, cmd.Stderr = &logs, &logs
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
	})
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(20 * time.Millisecond) {
		c, err := net.DialTimeout("tcp", addr, time.Second)
		if err == nil {
			_ = c.Close()
			return addr
		}
		if time.Now().After(deadline) {
			t.Fatalf("redis-server on %s did not start: %v\n%s", addr, err, logs.String())
		}
	}
}
