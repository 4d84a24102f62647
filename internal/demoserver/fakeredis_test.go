package demoserver

import (
	"bufio"
	"fmt"
	"io"
	"net"
	"strconv"
	"strings"
	"sync"
	"testing"
)

// fakeRedis is a loopback RESP server that records the commands it gets
// and answers each with answer's reply.
type fakeRedis struct {
	ln     net.Listener
	answer func(cmd []string) string

	mu     sync.Mutex
	cmds   [][]string
	conns  int
	hungUp int // connections the client closed
	wg     sync.WaitGroup
}

func startFakeRedis(t testing.TB, answer func(cmd []string) string) *fakeRedis {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	f := &fakeRedis{ln: ln, answer: answer}
	f.wg.Go(f.accept)
	t.Cleanup(func() {
		_ = ln.Close()
		f.wg.Wait()
	})
	return f
}

func (f *fakeRedis) addr() string { return f.ln.Addr().String() }

func (f *fakeRedis) accept() {
	var open []net.Conn
	defer func() {
		for _, c := range open {
			_ = c.Close()
		}
	}()
	for {
		c, err := f.ln.Accept()
		if err != nil {
			return
		}
		f.mu.Lock()
		f.conns++
		f.mu.Unlock()
		open = append(open, c)
		f.wg.Go(func() { f.serve(c) })
	}
}

func (f *fakeRedis) serve(c net.Conn) {
	defer c.Close()
	r := bufio.NewReader(c)
	for {
		cmd, err := readRESPCommand(r)
		if err != nil {
			f.mu.Lock()
			f.hungUp++
			f.mu.Unlock()
			return
		}
		f.mu.Lock()
		f.cmds = append(f.cmds, cmd)
		f.mu.Unlock()
		if _, err := io.WriteString(c, f.answer(cmd)); err != nil {
			return
		}
	}
}

func (f *fakeRedis) seen() (cmds [][]string, conns int) {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([][]string(nil), f.cmds...), f.conns
}

// readRESPCommand reads one command as a client sends it: an array of
// bulk strings.
func readRESPCommand(r *bufio.Reader) ([]string, error) {
	line, err := r.ReadString('\n')
	if err != nil {
		return nil, err
	}
	if !strings.HasPrefix(line, "*") {
		return nil, fmt.Errorf("not an array: %q", line)
	}
	n, err := strconv.Atoi(strings.TrimSpace(line[1:]))
	if err != nil {
		return nil, err
	}
	cmd := make([]string, n)
	for i := range cmd {
		hdr, err := r.ReadString('\n')
		if err != nil || !strings.HasPrefix(hdr, "$") {
			return nil, fmt.Errorf("not a bulk string: %q (%v)", hdr, err)
		}
		size, err := strconv.Atoi(strings.TrimSpace(hdr[1:]))
		if err != nil {
			return nil, err
		}
		b := make([]byte, size+2)
		if _, err := io.ReadFull(r, b); err != nil {
			return nil, err
		}
		cmd[i] = string(b[:size])
	}
	return cmd, nil
}

// redisLike answers as Redis does the commands the store sends; failPush
// makes LPUSH answer an error.
func redisLike(failPush bool) func([]string) string {
	return func(cmd []string) string {
		switch strings.ToUpper(cmd[0]) {
		case "PING":
			return "+PONG\r\n"
		case "LPUSH":
			if failPush {
				return "-OOM command not allowed when used memory > 'maxmemory'.\r\n"
			}
			return ":1\r\n"
		case "LTRIM":
			return "+OK\r\n"
		}
		return "-ERR unknown command\r\n"
	}
}
