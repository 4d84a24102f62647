package http2

import (
	"errors"
	"fmt"

	"golang.org/x/net/http2"
)

// The connection's reading side: one goroutine reads every frame the
// server sends and hands each stream its headers, data and reset, answers
// SETTINGS and PING, and takes GOAWAY and window updates into account.

// readLoop reads the server's frames until the connection ends.
func (c *conn) readLoop() {
	for {
		f, err := c.fr.ReadFrame()
		if err != nil {
			var se http2.StreamError
			if errors.As(err, &se) {
				if s := c.lookup(se.StreamID); s != nil {
					s.fail(c, se.StreamID, se)
				}
				continue
			}
			c.fail(c.wire.why(err))
			return
		}
		if err := c.frame(f); err != nil {
			c.fail(err)
			return
		}
	}
}

func (c *conn) frame(f http2.Frame) error {
	switch f := f.(type) {
	case *http2.DataFrame:
		c.data(f)
	case *http2.HeadersFrame:
		c.hdrID, c.hdrEnd, c.status, c.hdrKeep = f.StreamID, f.StreamEnded(), 0, false
		c.hdrWire, c.hdrList, c.hdrOver = 0, 0, false
		if c.sdec != nil {
			c.hdrBlock = c.hdrBlock[:0]
			return c.statusBlock(f.HeaderBlockFragment(), f.HeadersEnded())
		}
		if c.heads {
			if s := c.lookup(f.StreamID); s != nil && s.keepsHead() {
				c.hdrKeep, c.hdrFields = true, c.hdrFields[:0]
			}
		}
		// :status comes first; a status of the static table is all this
		// client reads of a response's headers, so it skips decoding the
		// others into strings.
		frag := f.HeaderBlockFragment()
		if len(frag) > 0 && frag[0] >= 0x88 && frag[0] <= 0x8e && !c.hdrKeep {
			c.status = staticStatus[frag[0]-0x88]
			c.dec.SetEmitEnabled(false)
		} else {
			c.dec.SetEmitEnabled(true)
		}
		return c.headerBlock(frag, f.HeadersEnded())
	case *http2.ContinuationFrame:
		if c.sdec != nil {
			return c.statusBlock(f.HeaderBlockFragment(), f.HeadersEnded())
		}
		return c.headerBlock(f.HeaderBlockFragment(), f.HeadersEnded())
	case *http2.RSTStreamFrame:
		if s := c.lookup(f.StreamID); s != nil {
			s.reset(c, f.StreamID, http2.StreamError{StreamID: f.StreamID, Code: f.ErrCode})
		}
	case *http2.SettingsFrame:
		if f.IsAck() {
			return nil
		}
		if err := c.settings(f); err != nil {
			return err
		}
		c.startWrite()
		_ = c.fr.WriteSettingsAck()
		return c.endWrite()
	case *http2.PingFrame:
		if !f.IsAck() {
			c.startWrite()
			_ = c.fr.WritePing(true, f.Data)
			return c.endWrite()
		}
	case *http2.GoAwayFrame:
		c.goAway(f)
	case *http2.WindowUpdateFrame:
		c.windowGrant(f.StreamID, int64(f.Increment))
	}
	return nil
}

func (c *conn) data(f *http2.DataFrame) {
	n := int(f.Length)
	c.connUnacked += n
	if c.connUnacked >= connWindow/2 {
		c.windowUpdate(0, c.connUnacked)
		c.connUnacked = 0
	}
	if s := c.lookup(f.StreamID); s != nil {
		d := f.Data()
		s.data(c, f.StreamID, d, n-len(d), f.StreamEnded())
	}
}

func (c *conn) lookup(id uint32) *stream {
	c.mu.Lock()
	s := c.streams[id]
	c.mu.Unlock()
	return s
}

// settings applies the server's SETTINGS.
func (c *conn) settings(f *http2.SettingsFrame) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	return f.ForeachSetting(func(s http2.Setting) error {
		if err := s.Valid(); err != nil {
			return err
		}
		switch s.ID {
		case http2.SettingMaxConcurrentStreams:
			c.maxStreams = int(min(s.Val, 1<<20))
			if c.waiting > 0 {
				c.signalFree()
			}
		case http2.SettingInitialWindowSize:
			delta := int64(s.Val) - c.peerWindow
			c.peerWindow = int64(s.Val)
			for _, st := range c.streams {
				st.sendWindow += delta
				st.grant()
			}
		case http2.SettingMaxFrameSize:
			c.peerFrame = int(s.Val)
		}
		return nil
	})
}

// goAway stops new streams on the connection and fails those the server
// will not process; it closes the connection once none is left.
func (c *conn) goAway(f *http2.GoAwayFrame) {
	err := &goAwayError{last: f.LastStreamID, code: f.ErrCode, debug: string(f.DebugData())}
	c.dead.Store(true)
	c.mu.Lock()
	c.goingAway = true
	refused := map[uint32]*stream{}
	for id, s := range c.streams {
		if id > f.LastStreamID {
			refused[id] = s
		}
	}
	idle := c.active == 0
	c.mu.Unlock()
	for id, s := range refused {
		s.fail(c, id, fmt.Errorf("stream %d: %w", id, err))
	}
	if idle {
		c.fail(errRetry)
	}
}

func (c *conn) windowGrant(id uint32, n int64) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if id == 0 {
		c.sendWindow += n
		for _, s := range c.streams {
			s.grant()
		}
		return
	}
	if s := c.streams[id]; s != nil {
		s.sendWindow += n
		s.grant()
	}
}

// goAwayError fails a stream that a GOAWAY says the server will not
// process (kind reset).
type goAwayError struct {
	last  uint32
	code  http2.ErrCode
	debug string
}

func (e *goAwayError) Error() string {
	return fmt.Sprintf("http/2: server sent GOAWAY (last stream %d, %v, %q)", e.last, e.code, e.debug)
}
