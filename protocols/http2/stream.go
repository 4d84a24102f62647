package http2

import (
	"context"
	"io"
	"os"
	"strconv"
	"sync"
	"time"

	"golang.org/x/net/http2"
)

// stream is a worker's one request in flight, reused from request to
// request and from connection to connection: the reader goroutine of the
// connection fills it, the worker reads it. It is the body's io.Reader.
type stream struct {
	wake  chan struct{} // the reader's signal that something arrived
	timer *time.Timer   // the request's timeout, reused

	mu         sync.Mutex // guards what follows, shared with the reader
	conn       *conn      // the connection and id of the request in flight,
	id         uint32     // which a frame must match to be delivered
	status     int
	gotHeaders bool
	ended      bool // END_STREAM received
	peerReset  bool
	err        error
	buf        []byte // DATA received, not read yet
	pad        int    // padding received, to give back to the window
	keepHead   bool   // the request wants the response's header fields
	head       []byte // them, as a status line and "name: value" lines

	// Guarded by conn.mu.
	sendWindow int64
	wantWindow bool

	// The worker's own.
	ctx     context.Context
	done    <-chan struct{}
	timerC  <-chan time.Time
	rbuf    []byte // DATA being read
	roff    int
	unacked int  // bytes read since the last stream WINDOW_UPDATE
	sawEnd  bool // the worker saw ended
	sentEnd bool // END_STREAM sent
}

func newStream() *stream {
	s := &stream{wake: make(chan struct{}, 1), timer: time.NewTimer(time.Hour)}
	s.timer.Stop()
	return s
}

// begin starts a request under ctx and the target's timeout.
func (s *stream) begin(ctx context.Context, timeout time.Duration) {
	s.ctx, s.done, s.timerC = ctx, ctx.Done(), nil
	select {
	case <-s.wake:
	default:
	}
	if timeout > 0 {
		s.timer.Reset(timeout)
		s.timerC = s.timer.C
	}
}

// end stops the request's timer.
func (s *stream) end() {
	if s.timerC != nil {
		s.timer.Stop()
	}
	s.ctx = nil
}

// attach makes s stream id of c; the caller holds c.mu.
func (s *stream) attach(c *conn, id uint32, window int64, keepHead bool) {
	s.mu.Lock()
	s.conn, s.id, s.keepHead = c, id, keepHead
	s.status, s.gotHeaders, s.ended, s.peerReset, s.err = 0, false, false, false, nil
	s.buf, s.pad = s.buf[:0], 0
	s.mu.Unlock()
	s.sendWindow, s.wantWindow = window, false
	s.rbuf, s.roff, s.unacked, s.sawEnd, s.sentEnd = s.rbuf[:0], 0, 0, false, false
}

// waitOn waits for ch, the request's deadline or its context's end.
func (s *stream) waitOn(ch <-chan struct{}) error {
	select {
	case <-ch:
		return nil
	case <-s.done:
		return s.ctx.Err()
	case <-s.timerC:
		return os.ErrDeadlineExceeded
	}
}

func (s *stream) signal() {
	select {
	case s.wake <- struct{}{}:
	default:
	}
}

// grant wakes a worker waiting for window; the caller holds conn.mu.
func (s *stream) grant() {
	if s.wantWindow {
		s.wantWindow = false
		s.signal()
	}
}

func (s *stream) waitWindow() error {
	c := s.conn
	for {
		c.mu.Lock()
		want := s.wantWindow
		c.mu.Unlock()
		if !want || s.over() {
			return nil
		}
		if err := s.waitOn(s.wake); err != nil {
			return err
		}
	}
}

// over says whether the server is done with the stream.
func (s *stream) over() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.ended || s.err != nil
}

// is says whether frames of stream id on c are the request's in flight.
// The caller holds s.mu.
func (s *stream) is(c *conn, id uint32) bool { return s.conn == c && s.id == id }

// The reader's deliveries.

// headers delivers a header block of status; fields, the block's other
// fields, when the stream keeps them.
func (s *stream) headers(c *conn, id uint32, status int, end bool, fields []byte) {
	s.mu.Lock()
	if !s.is(c, id) || s.ended || s.err != nil {
		s.mu.Unlock()
		return
	}
	if !s.gotHeaders {
		switch {
		case status == 0:
			s.err = errNoStatus
		case status >= 200:
			s.status, s.gotHeaders = status, true
			if s.keepHead {
				s.head = append(strconv.AppendInt(append(s.head[:0], "HTTP/2 "...), int64(status), 10), "\r\n"...)
				s.head = append(s.head, fields...)
			}
		}
	}
	s.ended = end
	s.mu.Unlock()
	s.signal()
}

func (s *stream) data(c *conn, id uint32, d []byte, pad int, end bool) {
	s.mu.Lock()
	if !s.is(c, id) || s.ended || s.err != nil {
		s.mu.Unlock()
		return
	}
	s.buf = append(s.buf, d...)
	s.pad += pad
	s.ended = end
	s.mu.Unlock()
	s.signal()
}

func (s *stream) fail(c *conn, id uint32, err error) {
	s.mu.Lock()
	if !s.is(c, id) || s.ended || s.err != nil {
		s.mu.Unlock()
		return
	}
	s.err = err
	s.mu.Unlock()
	s.signal()
}

func (s *stream) reset(c *conn, id uint32, err error) {
	s.mu.Lock()
	if !s.is(c, id) {
		s.mu.Unlock()
		return
	}
	s.peerReset = true
	if !s.ended && s.err == nil {
		s.err = err
	}
	s.mu.Unlock()
	s.signal()
}

// keepsHead says whether the stream wants its response's header fields.
func (s *stream) keepsHead() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.keepHead
}

// The worker's side.

// takeHead copies the response's header block, once its headers came,
// into dst.
func (s *stream) takeHead(dst []byte) []byte {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append(dst[:0], s.head...)
}

// awaitHeaders waits for the response's status.
func (s *stream) awaitHeaders() (int, error) {
	for {
		s.mu.Lock()
		status, got, ended, err := s.status, s.gotHeaders, s.ended, s.err
		s.mu.Unlock()
		switch {
		case got:
			return status, nil
		case err != nil:
			return 0, err
		case ended:
			return 0, errEndNoHead
		}
		if err := s.waitOn(s.wake); err != nil {
			return 0, err
		}
	}
}

// Read reads the response body.
func (s *stream) Read(p []byte) (int, error) {
	for {
		if s.roff < len(s.rbuf) {
			n := copy(p, s.rbuf[s.roff:])
			s.roff += n
			s.consumed(n)
			return n, nil
		}
		s.mu.Lock()
		if len(s.buf) > 0 {
			// The reader appends to the buffer the worker has read.
			s.rbuf, s.buf, s.roff = s.buf, s.rbuf[:0], 0
			s.unacked += s.pad
			s.pad = 0
			s.mu.Unlock()
			continue
		}
		ended, err := s.ended, s.err
		s.sawEnd = ended
		s.mu.Unlock()
		switch {
		case err != nil:
			return 0, err
		case ended:
			return 0, io.EOF
		}
		if err := s.waitOn(s.wake); err != nil {
			return 0, err
		}
	}
}

// consumed gives n bytes back to the stream's window once half of it was
// read, so that a large body keeps flowing.
func (s *stream) consumed(n int) {
	s.unacked += n
	if s.unacked >= streamWindow/2 && !s.sawEnd {
		s.conn.windowUpdate(s.id, s.unacked)
		s.unacked = 0
	}
}

// resetCode says whether the stream must be reset when its request ends,
// and with what code: it must when either side has not ended it.
func (s *stream) resetCode() (http2.ErrCode, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	switch {
	case s.peerReset, s.ended && s.sentEnd:
		return 0, false
	case s.ended:
		return http2.ErrCodeNo, true
	}
	return http2.ErrCodeCancel, true
}
