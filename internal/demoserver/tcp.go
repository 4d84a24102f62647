package demoserver

import (
	"bufio"
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"net"
	"slices"
	"time"
)

// tcpHeaderLen is the header of a frame on the TCP listener: a big-endian
// u16 message type, then the big-endian u32 length of the body.
const tcpHeaderLen = 6

// tcpIdleTimeout closes a connection that sends nothing for this long, as
// HTTP's IdleTimeout does, so a vanished client does not pin a goroutine.
// It is generous because a load generator may idle between phases.
const tcpIdleTimeout = 2 * time.Minute

// startTCP opens the framed TCP listener when Config.TCPAddr asks for one.
// It shares the faults, counters, base context and WaitGroups of the HTTP
// side, so Close stops both alike.
func (s *Server) startTCP(ctx context.Context) error {
	if s.cfg.TCPAddr == "" {
		return nil
	}
	if s.cfg.TCPStore != "" {
		st, err := newRedisStore(ctx, s.cfg.TCPStore)
		if err != nil {
			return err
		}
		s.store = st
	}
	var lc net.ListenConfig
	ln, err := lc.Listen(ctx, "tcp", s.cfg.TCPAddr)
	if err != nil {
		return fmt.Errorf("demoserver: listen tcp: %w", err)
	}
	s.tcpLn = ln
	s.tcpConns = map[net.Conn]struct{}{}
	s.serving.Go(func() { s.acceptTCP(ln) })
	return nil
}

// TCPAddr returns the address the TCP listener is bound to, with the port
// resolved, or "" when the server has no TCP listener.
func (s *Server) TCPAddr() string {
	if s.tcpLn == nil {
		return ""
	}
	return s.tcpLn.Addr().String()
}

func (s *Server) acceptTCP(ln net.Listener) {
	var backoff time.Duration
	for {
		c, err := ln.Accept()
		if err != nil {
			if errors.Is(err, net.ErrClosed) {
				return
			}
			// Out of file descriptors under a connection storm: wait and
			// retry, as net/http does, rather than stop serving.
			backoff = min(max(2*backoff, 5*time.Millisecond), time.Second)
			s.log.Warn().Err(err).Dur("retry_in", backoff).Msg("tcp accept error")
			select {
			case <-time.After(backoff):
				continue
			case <-s.base.Done():
				return
			}
		}
		backoff = 0
		s.ctr.accepted.Add(1)
		s.ctr.tcpAccepted.Add(1)
		if !s.trackTCP(c) {
			_ = c.Close()
			continue
		}
		// Added on the accept goroutine, which Close waits for before it
		// waits on conns, so no Add can race with that Wait.
		s.conns.Go(func() {
			defer s.untrackTCP(c)
			s.serveTCP(c)
		})
	}
}

func (s *Server) trackTCP(c net.Conn) bool {
	s.tcpMu.Lock()
	defer s.tcpMu.Unlock()
	if s.tcpClosed {
		return false
	}
	s.tcpConns[c] = struct{}{}
	return true
}

func (s *Server) untrackTCP(c net.Conn) {
	s.tcpMu.Lock()
	delete(s.tcpConns, c)
	s.tcpMu.Unlock()
	_ = c.Close()
}

// closeTCP stops accepting and closes every TCP connection, which ends
// their reads; a handler held by a delay or stall wakes on the base
// context, which shutdown cancels next. The store's pool is closed after
// the connections, so no agent is answered with an error frame for it.
func (s *Server) closeTCP() error {
	var err error
	if s.tcpLn != nil {
		err = s.tcpLn.Close()
		s.tcpMu.Lock()
		s.tcpClosed = true
		for c := range s.tcpConns {
			_ = c.Close()
		}
		s.tcpMu.Unlock()
	}
	if s.store != nil {
		s.store.close()
	}
	if errors.Is(err, net.ErrClosed) {
		err = nil
	}
	return err
}

// serveTCP answers every frame of one connection with one frame of the
// same type, in order. Replies are buffered and flushed when no further
// complete frame is waiting, so a client that pipelines gets its replies
// in few writes and one that waits gets each at once.
func (s *Server) serveTCP(c net.Conn) {
	r := bufio.NewReader(c)
	w := bufio.NewWriter(c)
	timer := time.NewTimer(time.Hour)
	timer.Stop()
	var hdr [tcpHeaderLen]byte
	var body, reply []byte
	var served int64
	for {
		_ = c.SetReadDeadline(time.Now().Add(tcpIdleTimeout))
		if _, err := io.ReadFull(r, hdr[:]); err != nil {
			return
		}
		n := binary.BigEndian.Uint32(hdr[2:])
		if n > maxBodyBytes {
			return // not this protocol, or a hostile peer: hang up
		}
		body = slices.Grow(body[:0], int(n))[:n]
		if _, err := io.ReadFull(r, body); err != nil {
			return
		}
		s.ctr.frames.Add(1)
		served++
		f := s.faults
		if f.stalls() && !s.sleep(timer, f.stallWait(time.Now())) {
			return
		}
		wait, fail := f.next()
		if !s.sleep(timer, wait) {
			return
		}
		if f.stalls() && wait > 0 && !s.sleep(timer, f.stallWait(time.Now())) {
			return
		}
		reply = appendTCPReply(reply[:0], body, s.tcpFailure(body, fail))
		binary.BigEndian.PutUint32(hdr[2:], uint32(len(reply)))
		_, _ = w.Write(hdr[:])
		_, _ = w.Write(reply)
		last := f.closesConn(served)
		if last || !frameBuffered(r) {
			if err := w.Flush(); err != nil || last {
				return
			}
		}
	}
}

// frameBuffered reports whether r already holds a whole next frame.
func frameBuffered(r *bufio.Reader) bool {
	if r.Buffered() < tcpHeaderLen {
		return false
	}
	h, _ := r.Peek(tcpHeaderLen) // cannot block: the bytes are buffered
	return uint64(r.Buffered()) >= tcpHeaderLen+uint64(binary.BigEndian.Uint32(h[2:]))
}

// sleep waits for d, or returns false when the server is closing.
func (s *Server) sleep(t *time.Timer, d time.Duration) bool {
	if d <= 0 {
		return true
	}
	t.Reset(d)
	select {
	case <-t.C:
		return true
	case <-s.base.Done():
		t.Stop()
		return false
	}
}

// tcpFailure decides what a frame's reply reports as failed, "" for
// nothing: an injected error, or a message the store could not keep. A
// frame whose error was injected is not stored: the server "failed"
// before it got that far.
func (s *Server) tcpFailure(body []byte, injected bool) string {
	if injected {
		s.ctr.errors.Add(1)
		return "injected error"
	}
	if s.store == nil || !storable(body) {
		return ""
	}
	if err := s.store.push(s.base, body); err != nil {
		// Logged at 1, 2, 4, 8, … failures: a Redis that went away fails
		// every frame, and one line per frame would drown the log.
		if n := s.ctr.storeErrors.Add(1); n&(n-1) == 0 {
			s.log.Warn().Err(err).Int64("store_errors", n).Msg("tcp store error")
		}
		return "store error"
	}
	s.ctr.stored.Add(1)
	return ""
}

// storable reports whether body is a message the store keeps: one of the
// monitor protocol's after the Connect handshake.
func storable(body []byte) bool {
	typ, isMsg := jsonField(body, "T")
	return isMsg && !bytes.Equal(typ, []byte(`"Connect"`))
}

// appendTCPReply appends the body answering body. A JSON object with a
// "T" (type) field is the monitor protocol: Connect is answered with
// ConnectAck, anything else with Ack, each carrying the request's "S".
// Any other body is echoed. A failure (failMsg not "") is an Error
// message carrying failMsg, which must need no JSON escaping.
func appendTCPReply(dst, body []byte, failMsg string) []byte {
	fail := failMsg != ""
	typ, isMsg := jsonField(body, "T")
	if !isMsg && !fail {
		return append(dst, body...)
	}
	seq, ok := jsonField(body, "S")
	if !ok || !isInteger(seq) {
		seq = []byte("0")
	}
	switch {
	case fail:
		dst = append(dst, `{"T":"Error","S":`...)
		dst = append(dst, seq...)
		dst = append(dst, `,"Msg":"`...)
		dst = append(dst, failMsg...)
		return append(dst, `"}`...)
	case bytes.Equal(typ, []byte(`"Connect"`)):
		dst = append(dst, `{"T":"ConnectAck","S":`...)
	default:
		dst = append(dst, `{"T":"Ack","S":`...)
	}
	dst = append(dst, seq...)
	return append(dst, '}')
}

// jsonField finds the first "key": in a body that looks like a JSON
// object and returns its scalar value as written (a string with its
// quotes). It is a scanner, not a parser: enough to read the type and
// sequence fields that the monitor protocol puts first, without
// allocating per frame.
func jsonField(body []byte, key string) ([]byte, bool) {
	trimmed := bytes.TrimLeft(body, " \t\r\n")
	if len(trimmed) == 0 || trimmed[0] != '{' {
		return nil, false
	}
	var quoted [16]byte
	q := append(append(append(quoted[:0], '"'), key...), '"')
	i := bytes.Index(trimmed, q)
	if i < 0 {
		return nil, false
	}
	rest := bytes.TrimLeft(trimmed[i+len(q):], " \t\r\n")
	if len(rest) == 0 || rest[0] != ':' {
		return nil, false
	}
	rest = bytes.TrimLeft(rest[1:], " \t\r\n")
	if len(rest) > 0 && rest[0] == '"' {
		end := bytes.IndexByte(rest[1:], '"')
		if end < 0 {
			return nil, false
		}
		return rest[:end+2], true
	}
	end := bytes.IndexAny(rest, ",} \t\r\n")
	if end < 0 {
		end = len(rest)
	}
	return rest[:end], end > 0
}

// isInteger reports whether b is a JSON integer short enough to copy into
// a reply unchanged.
func isInteger(b []byte) bool {
	if len(b) > 0 && b[0] == '-' {
		b = b[1:]
	}
	if len(b) == 0 || len(b) > 19 {
		return false
	}
	for _, c := range b {
		if c < '0' || c > '9' {
			return false
		}
	}
	return true
}
