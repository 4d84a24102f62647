package http2

import (
	"context"
	"io"
	"os"
	"runtime"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"golang.org/x/net/http2"
)

// stream is a worker's one request in flight, reused from request to
// request and from connection to connection: the reader goroutine of the
// connection fills it, the worker reads it. It is the body's io.Reader.
type stream struct {
	// wake is the one thing a worker waits on: the reader, the request's
	// timer and its context's end all signal it, so that a wait is one
	// channel receive rather than a select over three.
	wake  chan struct{}
	timer *time.Timer // the request's timeout, reused; it sets expired
	// expired and cancelled say why a wait ended early: the request's
	// timeout passed, or the context being watched ended.
	expired, cancelled atomic.Bool

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
	timed   bool            // the timer runs for the request in flight
	watched context.Context // the context whose end sets cancelled
	unwatch func() bool     // stops watching it
	onEnd   func()          // what its end calls, made once
	rbuf    []byte          // DATA being read
	roff    int
	unacked int  // bytes read since the last stream WINDOW_UPDATE
	sawEnd  bool // the worker saw ended
	sentEnd bool // END_STREAM sent
}

func newStream() *stream {
	s := &stream{wake: make(chan struct{}, 1)}
	s.timer = time.AfterFunc(time.Hour, func() { s.expired.Store(true); s.signal() })
	s.timer.Stop()
	s.onEnd = func() { s.cancelled.Store(true); s.signal() }
	return s
}

// begin starts a request under ctx and the target's timeout. A worker's
// requests share one context, watched once, not once per request.
func (s *stream) begin(ctx context.Context, timeout time.Duration) {
	s.ctx = ctx
	select {
	case <-s.wake:
	default:
	}
	if ctx != s.watched {
		if s.unwatch != nil {
			s.unwatch()
		}
		s.watched, s.unwatch = ctx, nil
		s.cancelled.Store(false)
		if ctx.Done() != nil {
			s.unwatch = context.AfterFunc(ctx, s.onEnd)
		}
	}
	s.expired.Store(false)
	if timeout > 0 {
		s.timed = true
		s.timer.Reset(timeout)
	}
}

// end stops the request's timer. A timer that already fired has started
// its function: end waits until that set expired, so that it cannot be
// taken for the next request's.
func (s *stream) end() {
	if s.timed && !s.timer.Stop() {
		for !s.expired.Load() {
			runtime.Gosched()
		}
	}
	s.timed = false
	s.ctx = nil
}

// stopped is why the request must stop waiting, or nil.
func (s *stream) stopped() error {
	switch {
	case s.expired.Load():
		return os.ErrDeadlineExceeded
	case s.cancelled.Load():
		return s.ctx.Err()
	}
	return nil
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

// wait waits for a signal: something arrived, or the request's deadline
// or its context's end, which it returns.
func (s *stream) wait() error {
	if err := s.stopped(); err != nil {
		return err
	}
	<-s.wake
	return s.stopped()
}

// waitOn waits for ch, the request's deadline or its context's end.
func (s *stream) waitOn(ch <-chan struct{}) error {
	for {
		if err := s.stopped(); err != nil {
			return err
		}
		select {
		case <-ch:
			return nil
		case <-s.wake:
		}
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
		if err := s.wait(); err != nil {
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
		if err := s.wait(); err != nil {
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
		if err := s.wait(); err != nil {
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
