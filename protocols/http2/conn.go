package http2

import (
	"bufio"
	"errors"
	"net"
	"runtime"
	"sync"
	"sync/atomic"
	"time"

	"golang.org/x/net/http2"
	"golang.org/x/net/http2/hpack"
)

// The windows this client grants: a stream buffers at most streamWindow
// bytes its worker has not read yet, which bounds a worker's memory
// whatever the body; the connection's window is large enough never to
// be what stalls a stream.
const (
	streamWindow = 1 << 17
	connWindow   = 1 << 30
	// initialMaxStreams is how many streams a connection opens before the
	// server's SETTINGS say how many it accepts, as x/net does.
	initialMaxStreams = 100
	maxStreamID       = 1<<31 - 1
)

var (
	// errRetry says a connection went away before the stream was sent:
	// the request may go over a new connection.
	errRetry     = errors.New("http/2: the connection is going away")
	errNoStatus  = errors.New("http/2: response headers without :status (protocol error)")
	errEndNoHead = errors.New("http/2: stream ended before its response headers (protocol error)")
)

// conn is one HTTP/2 connection of the pool. Its reader goroutine reads
// every frame and hands each stream's headers, data and reset to the
// stream's worker; workers write their frames under wmu into one buffered
// writer, which its flusher goroutine flushes once the workers that were
// ready to run have written theirs, so that the requests of concurrent
// streams leave in one write, as an event loop such as h2load's sends
// them.
type conn struct {
	nc      net.Conn // the TLS connection, or wire
	wire    *wireConn
	fr      *http2.Framer
	bw      *bufio.Writer
	dec     *hpack.Decoder // a flow's connection's; the others' is sdec
	sdec    *statusDecoder
	timeout time.Duration // the target's, bounds a blocked write
	dead    atomic.Bool   // no new streams: failed, or going away

	kick chan struct{} // wakes the flusher
	gone chan struct{} // closed when the connection failed

	wmu     sync.Mutex // guards bw, fr's writing side and what follows
	nextID  uint32
	pending bool  // the flusher was kicked and has not flushed yet
	werr    error // the flusher's error, once it failed
	// writeDeadline is the write deadline last set on nc.
	writeDeadline time.Time

	mu         sync.Mutex // guards what follows
	streams    map[uint32]*stream
	active     int // streams open or being opened
	maxStreams int
	waiting    int           // workers waiting for a free stream
	free       chan struct{} // wakes one of them
	sendWindow int64         // connection-level, for request bodies
	peerWindow int64         // the server's SETTINGS_INITIAL_WINDOW_SIZE
	peerFrame  int           // the server's SETTINGS_MAX_FRAME_SIZE
	err        error         // why the connection failed
	goingAway  bool

	// The reader goroutine's own.
	status    int    // :status of the header block being decoded
	hdrID     uint32 // stream of that block
	hdrEnd    bool   // the block's HEADERS frame ended the stream
	hdrKeep   bool   // the block's stream keeps its header fields,
	hdrFields []byte // decoded here as "name: value" lines
	hdrWire   int    // bytes of the block so far, as sent
	hdrList   int    // its size so far, as decoded (see listed)
	hdrOver   bool   // its decoded fields outgrew maxHeaderBytes
	// heads says a stream may want its response's header fields (a flow's
	// connection): the reader then decodes every header block.
	heads       bool
	connUnacked int    // DATA received since the last connection WINDOW_UPDATE
	hdrBlock    []byte // a block sent in several frames, for sdec
}

// newConn makes the connection over nc; heads says whether its streams
// may want their responses' header fields (a flow's).
func newConn(nc net.Conn, w *wireConn, timeout time.Duration, heads bool) *conn {
	c := &conn{nc: nc, wire: w, timeout: timeout, nextID: 1, heads: heads,
		kick: make(chan struct{}, 1), gone: make(chan struct{}),
		bw: bufio.NewWriterSize(nc, 32<<10), streams: make(map[uint32]*stream),
		maxStreams: initialMaxStreams, free: make(chan struct{}, 1),
		sendWindow: 65535, peerWindow: 65535, peerFrame: 16384}
	c.fr = http2.NewFramer(c.bw, bufio.NewReaderSize(nc, 32<<10))
	c.fr.SetReuseFrames()
	if !heads {
		c.sdec = newStatusDecoder()
		return c
	}
	c.dec = hpack.NewDecoder(maxTable, c.emit)
	c.dec.SetMaxStringLength(maxHeaderBytes)
	return c
}

// handshake sends the preface and the client's settings, and reads the
// server's first frame, which must be its SETTINGS: a server that does
// not speak HTTP/2 fails here, at connect time.
func (c *conn) handshake(deadline time.Time) error {
	if err := c.nc.SetDeadline(deadline); err != nil {
		return err
	}
	_, _ = c.bw.WriteString(http2.ClientPreface)
	_ = c.fr.WriteSettings(
		http2.Setting{ID: http2.SettingEnablePush, Val: 0},
		http2.Setting{ID: http2.SettingInitialWindowSize, Val: streamWindow},
		http2.Setting{ID: http2.SettingMaxHeaderListSize, Val: maxHeaderBytes},
	)
	_ = c.fr.WriteWindowUpdate(0, connWindow-65535)
	if err := c.bw.Flush(); err != nil {
		return c.wire.why(err)
	}
	f, err := c.fr.ReadFrame()
	if err != nil {
		return c.wire.why(err)
	}
	sf, ok := f.(*http2.SettingsFrame)
	if !ok || sf.IsAck() {
		return c.wire.origin.errNoH2
	}
	if err := c.settings(sf); err != nil {
		return err
	}
	if err := c.nc.SetDeadline(time.Time{}); err != nil {
		return err
	}
	go c.readLoop()
	go c.flushLoop()
	return nil
}

// usable says whether the connection can carry a new stream.
func (c *conn) usable() bool { return !c.dead.Load() }

// startWrite takes the write side of the connection.
func (c *conn) startWrite() { c.wmu.Lock() }

// endWrite releases it, and has the flusher send what was written.
func (c *conn) endWrite() error {
	if c.bw.Buffered() > 0 && !c.pending {
		c.pending = true
		select {
		case c.kick <- struct{}{}:
		default:
		}
	}
	err := c.werr
	c.wmu.Unlock()
	return err
}

// flushLoop flushes what the workers wrote. It first lets the goroutines
// ready to run go ahead: the workers its reader just woke write their next
// requests, which then leave in the same write.
func (c *conn) flushLoop() {
	for {
		select {
		case <-c.kick:
		case <-c.gone:
			return
		}
		runtime.Gosched()
		c.wmu.Lock()
		c.pending = false
		if c.timeout > 0 {
			// A server that stops reading blocks a write at most one
			// timeout; the deadline moves only once half of it passed.
			if now := time.Now(); now.Add(c.timeout / 2).After(c.writeDeadline) {
				c.writeDeadline = now.Add(c.timeout)
				_ = c.nc.SetWriteDeadline(c.writeDeadline)
			}
		}
		err := c.bw.Flush()
		if err != nil {
			err = c.wire.why(err)
			c.werr = err
		}
		c.wmu.Unlock()
		if err != nil {
			c.fail(err)
			return
		}
	}
}

// open sends request r as a new stream s, waiting for the server to
// accept one more stream if need be.
func (c *conn) open(s *stream, r *request) error {
	if err := c.reserve(s); err != nil {
		return err
	}
	c.startWrite()
	c.mu.Lock()
	if c.err != nil || c.goingAway || c.nextID > maxStreamID {
		c.dead.Store(true)
		c.active--
		c.mu.Unlock()
		_ = c.endWrite()
		return errRetry
	}
	id := c.nextID
	c.nextID += 2
	s.attach(c, id, c.peerWindow, r.keepHead)
	c.streams[id] = s
	c.mu.Unlock()
	err := c.writeHeaders(id, r.block, len(r.body) == 0)
	s.sentEnd = err == nil && len(r.body) == 0
	if err == nil && len(r.body) > 0 {
		err = c.writeBody(s, r.body)
	}
	if err2 := c.endWrite(); err == nil {
		err = err2
	}
	if err != nil {
		c.release(s)
	}
	return err
}

// reserve waits until the connection may open one more stream.
func (c *conn) reserve(s *stream) error {
	for {
		c.mu.Lock()
		switch {
		case c.err != nil || c.goingAway:
			c.mu.Unlock()
			return errRetry
		case c.active < c.maxStreams:
			c.active++
			more := c.waiting > 0 && c.active < c.maxStreams
			c.mu.Unlock()
			if more {
				c.signalFree()
			}
			return nil
		}
		c.waiting++
		c.mu.Unlock()
		err := s.waitOn(c.free)
		c.mu.Lock()
		c.waiting--
		c.mu.Unlock()
		if err != nil {
			return err
		}
	}
}

func (c *conn) signalFree() {
	select {
	case c.free <- struct{}{}:
	default:
	}
}

// writeHeaders writes a request's header block, in CONTINUATION frames
// after the first if it is larger than a frame.
func (c *conn) writeHeaders(id uint32, block []byte, end bool) error {
	c.mu.Lock()
	max := c.peerFrame
	c.mu.Unlock()
	first := block[:min(len(block), max)]
	rest := block[len(first):]
	err := c.fr.WriteHeaders(http2.HeadersFrameParam{StreamID: id, BlockFragment: first,
		EndStream: end, EndHeaders: len(rest) == 0})
	for err == nil && len(rest) > 0 {
		n := min(len(rest), max)
		err = c.fr.WriteContinuation(id, n == len(rest), rest[:n])
		rest = rest[n:]
	}
	return err
}

// writeBody writes a request body within the server's flow-control
// windows, waiting (without the write lock) for WINDOW_UPDATEs. It stops
// early if the stream ended: the server answered, or reset it.
func (c *conn) writeBody(s *stream, body []byte) error {
	for len(body) > 0 {
		c.mu.Lock()
		n := int(min(int64(len(body)), c.sendWindow, s.sendWindow, int64(c.peerFrame)))
		if n > 0 {
			c.sendWindow -= int64(n)
			s.sendWindow -= int64(n)
		} else {
			s.wantWindow = true
		}
		c.mu.Unlock()
		if n > 0 {
			if err := c.fr.WriteData(s.id, n == len(body), body[:n]); err != nil {
				return err
			}
			body = body[n:]
			continue
		}
		err := c.endWrite()
		if err == nil {
			err = s.waitWindow()
		}
		c.startWrite()
		if err != nil {
			return err
		}
		if s.over() {
			return nil
		}
	}
	s.sentEnd = true
	return nil
}

// release ends stream s: it resets the stream if either side has not
// finished with it, and frees its place for a waiting worker.
func (c *conn) release(s *stream) {
	c.mu.Lock()
	if c.streams[s.id] == s {
		delete(c.streams, s.id)
	}
	c.active--
	wake := c.waiting > 0
	idle := c.goingAway && c.active == 0
	failed := c.err != nil
	c.mu.Unlock()
	if code, reset := s.resetCode(); reset && !failed {
		c.startWrite()
		_ = c.fr.WriteRSTStream(s.id, code)
		_ = c.endWrite()
	}
	if wake {
		c.signalFree()
	}
	if idle {
		c.fail(errRetry)
	}
}

// windowUpdate returns n bytes of stream id's window (0: the
// connection's) to the server.
func (c *conn) windowUpdate(id uint32, n int) {
	c.startWrite()
	_ = c.fr.WriteWindowUpdate(id, uint32(n))
	_ = c.endWrite()
}

// fail ends the connection: the streams on it fail with err, unless they
// already have their whole response.
func (c *conn) fail(err error) {
	c.dead.Store(true)
	c.mu.Lock()
	if c.err == nil {
		c.err = err
		close(c.gone)
	}
	open := make(map[uint32]*stream, len(c.streams))
	for id, s := range c.streams {
		open[id] = s
		delete(c.streams, id)
	}
	c.mu.Unlock()
	for id, s := range open {
		s.fail(c, id, err)
	}
	_ = c.nc.Close()
}

// close closes the connection, as the pool does when the phase ends.
func (c *conn) close() error {
	c.fail(net.ErrClosed)
	return nil
}
