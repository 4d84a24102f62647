package demoserver

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"strconv"
	"sync"
	"time"
)

// The database behind the framed TCP listener (Config.TCPStore): every
// monitor message after the handshake is pushed onto a Redis list, as
// the monitor server of the long-versus-short study wrote its agents'
// figures to its database. A small pool of connections is shared by every
// agent connection, as an application holds a database pool, so a client
// that opens a connection per iteration costs the database no dial.
const (
	// storeKey is the list the messages are pushed onto.
	storeKey = "agent:items"
	// storeKeep is how many of the newest messages the list keeps, so
	// Redis's memory stays bounded however long the load runs.
	storeKeep = 10000
	// storePoolSize is the number of Redis connections; a message waits
	// for a free one when every one is busy.
	storePoolSize = 4
	// storeTimeout bounds a dial and each round trip, so a Redis that
	// hangs turns into error frames rather than stuck agents.
	storeTimeout = 5 * time.Second
)

// errStoreClosed is the error of a push after the server began closing.
var errStoreClosed = errors.New("store is closed")

// storeCmdTail is what follows the body in every push: the LTRIM that
// keeps the list at storeKeep entries, pipelined with the LPUSH.
var storeCmdTail = func() []byte {
	keep := strconv.Itoa(storeKeep - 1)
	b := fmt.Appendf(nil, "\r\n*4\r\n$5\r\nLTRIM\r\n$%d\r\n%s\r\n$1\r\n0\r\n$%d\r\n%s\r\n",
		len(storeKey), storeKey, len(keep), keep)
	return b
}()

// redisStore is the pool. A push holds one of the slots of sem while it
// uses a connection, so no more than storePoolSize are ever open; it takes
// the most recently used idle one, as database/sql does, and dials only
// when none is idle, so a light load keeps to one connection.
type redisStore struct {
	addr string
	sem  chan struct{}

	mu     sync.Mutex
	idle   []*redisConn
	open   map[*redisConn]struct{}
	closed bool
	dials  int64
}

// redisConn is one connection of the pool; buf is reused for every push.
type redisConn struct {
	c   net.Conn
	r   *bufio.Reader
	buf []byte
}

// newRedisStore opens the pool and checks that Redis answers, so a server
// started with a wrong address fails at once rather than on every frame.
func newRedisStore(ctx context.Context, addr string) (*redisStore, error) {
	st := &redisStore{addr: addr, sem: make(chan struct{}, storePoolSize), open: map[*redisConn]struct{}{}}
	c, err := st.dial(ctx)
	if err == nil {
		err = c.ping()
	}
	if err != nil {
		st.close()
		return nil, fmt.Errorf("demoserver: tcp store %s: %w", addr, err)
	}
	st.idle = append(st.idle, c)
	return st, nil
}

// push stores one message. It waits for a free connection until ctx is
// done; a connection that fails is dropped and redialled by a later push.
func (st *redisStore) push(ctx context.Context, body []byte) error {
	select {
	case st.sem <- struct{}{}:
	case <-ctx.Done():
		return ctx.Err()
	}
	defer func() { <-st.sem }()
	c, err := st.take(ctx)
	if err != nil {
		return err
	}
	if err := c.push(body); err != nil {
		if isRedisError(err) {
			st.put(c) // Redis answered: the connection is in step
		} else {
			st.drop(c)
		}
		return err
	}
	st.put(c)
	return nil
}

// take returns the most recently used idle connection, or a new one.
func (st *redisStore) take(ctx context.Context) (*redisConn, error) {
	st.mu.Lock()
	if n := len(st.idle); n > 0 {
		c := st.idle[n-1]
		st.idle = st.idle[:n-1]
		st.mu.Unlock()
		return c, nil
	}
	st.mu.Unlock()
	return st.dial(ctx)
}

// put gives c back to the pool, or closes it when the pool was closed
// while c was in use.
func (st *redisStore) put(c *redisConn) {
	st.mu.Lock()
	defer st.mu.Unlock()
	if st.closed {
		_ = c.c.Close()
		return
	}
	st.idle = append(st.idle, c)
}

func (st *redisStore) dial(ctx context.Context) (*redisConn, error) {
	d := net.Dialer{Timeout: storeTimeout}
	nc, err := d.DialContext(ctx, "tcp", st.addr)
	if err != nil {
		return nil, err
	}
	c := &redisConn{c: nc, r: bufio.NewReader(nc)}
	st.mu.Lock()
	defer st.mu.Unlock()
	if st.closed {
		_ = nc.Close()
		return nil, errStoreClosed
	}
	st.open[c] = struct{}{}
	st.dials++
	return c, nil
}

func (st *redisStore) drop(c *redisConn) {
	st.mu.Lock()
	delete(st.open, c)
	st.mu.Unlock()
	_ = c.c.Close()
}

// close closes every connection, those in use too, which ends their round
// trips at once; pushes after it fail with errStoreClosed.
func (st *redisStore) close() {
	st.mu.Lock()
	defer st.mu.Unlock()
	st.closed = true
	for c := range st.open {
		_ = c.c.Close()
	}
	clear(st.open)
	st.idle = nil
}

// dialed is how many connections the pool has opened since Start.
func (st *redisStore) dialed() int64 {
	st.mu.Lock()
	defer st.mu.Unlock()
	return st.dials
}

// push sends LPUSH and LTRIM in one write and reads both replies.
func (c *redisConn) push(body []byte) error {
	b := append(c.buf[:0], "*3\r\n$5\r\nLPUSH\r\n$"...)
	b = strconv.AppendInt(b, int64(len(storeKey)), 10)
	b = append(b, "\r\n"+storeKey+"\r\n$"...)
	b = strconv.AppendInt(b, int64(len(body)), 10)
	b = append(b, "\r\n"...)
	b = append(b, body...)
	b = append(b, storeCmdTail...)
	c.buf = b
	if err := c.roundTrip(b, 2); err != nil {
		return fmt.Errorf("LPUSH %s: %w", storeKey, err)
	}
	return nil
}

func (c *redisConn) ping() error { return c.roundTrip([]byte("*1\r\n$4\r\nPING\r\n"), 1) }

// roundTrip writes cmd and reads n replies. An error reply is returned
// after all n are read, so the connection stays in step and can be reused.
func (c *redisConn) roundTrip(cmd []byte, n int) error {
	_ = c.c.SetDeadline(time.Now().Add(storeTimeout))
	if _, err := c.c.Write(cmd); err != nil {
		return err
	}
	var first error
	for range n {
		err := readRESPReply(c.r)
		if err != nil && !isRedisError(err) {
			return err
		}
		if first == nil {
			first = err
		}
	}
	return first
}

// redisError is an error reply: Redis answered, and the connection is
// still good.
type redisError string

func (e redisError) Error() string { return "redis: " + string(e) }

func isRedisError(err error) bool {
	var re redisError
	return errors.As(err, &re)
}

// maxRESPLine bounds a reply line, so a peer that is not Redis cannot
// make a push buffer without end.
const maxRESPLine = 4096

// readRESPReply reads one reply of the kinds LPUSH, LTRIM and PING give,
// a simple string, an integer or an error (as a redisError), and a bulk
// string for good measure; anything else is a protocol error.
func readRESPReply(r *bufio.Reader) error {
	line, err := r.ReadSlice('\n')
	switch {
	case errors.Is(err, bufio.ErrBufferFull) || len(line) > maxRESPLine:
		return errors.New("reply line too long")
	case err != nil:
		return err
	case len(line) < 3 || line[len(line)-2] != '\r':
		return fmt.Errorf("malformed reply %q", line)
	}
	text := line[1 : len(line)-2]
	switch line[0] {
	case '+':
		return nil
	case '-':
		return redisError(text)
	case ':':
		if _, err := strconv.ParseInt(string(text), 10, 64); err != nil {
			return fmt.Errorf("malformed integer reply %q", text)
		}
		return nil
	case '$':
		n, err := strconv.Atoi(string(text))
		if err != nil || n < -1 || n > maxBodyBytes {
			return fmt.Errorf("malformed bulk length %q", text)
		}
		if n == -1 {
			return nil
		}
		if _, err := r.Discard(n + 2); err != nil {
			return fmt.Errorf("bulk reply: %w", unexpectedEOF(err))
		}
		return nil
	}
	return fmt.Errorf("unexpected reply %q", line)
}

func unexpectedEOF(err error) error {
	if errors.Is(err, io.EOF) {
		return io.ErrUnexpectedEOF
	}
	return err
}
