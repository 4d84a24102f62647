package demoserver

import (
	"bytes"
	"context"
	"errors"
	"io"
	"net/http"
	"time"

	"github.com/coder/websocket"
)

// InjectedCloseStatus is the close code a WebSocket connection of /ws ends
// with when ErrorRate picks one of its messages: 1011, "internal error",
// what a real server sends when it fails while handling a message.
const InjectedCloseStatus = websocket.StatusInternalError

// serveWS is the WebSocket echo at /ws: every text or binary message is
// sent back as received, with the same type. The fault knobs apply to each
// message, not to the upgrade: a stall or a delay holds the echo, and a
// message picked by ErrorRate is not echoed but answered by closing the
// connection with InjectedCloseStatus, so a client sees the failure as it
// would see a real server give up, and has to reconnect.
func (s *Server) serveWS(w http.ResponseWriter, r *http.Request) {
	// The connection is hijacked by Accept, after which net/http no longer
	// counts it in conns; this handler keeps it counted until it returns,
	// so Close still waits for it. The connection is counted already, so
	// this Add cannot race with Close's Wait.
	s.conns.Add(1)
	defer s.conns.Done()
	c, err := websocket.Accept(w, r, &websocket.AcceptOptions{
		// A test fixture on loopback: any page may connect.
		InsecureSkipVerify: true,
	})
	if err != nil {
		return // Accept has answered the bad handshake
	}
	defer c.CloseNow()
	s.ctr.wsConns.Add(1)
	c.SetReadLimit(MaxBodyBytes)
	// r.Context descends from the server's base context, so Close ends the
	// read below, which closes the connection.
	if err := s.echoWS(r.Context(), c); err != nil && !isWSClosed(err) {
		s.log.Debug().Err(err).Msg("websocket echo ended")
	}
}

// echoWS echoes messages until the peer closes, the context ends, or a
// fault closes the connection. One buffer serves every message.
func (s *Server) echoWS(ctx context.Context, c *websocket.Conn) error {
	var buf bytes.Buffer
	f := s.faults
	for {
		typ, rd, err := c.Reader(ctx)
		if err != nil {
			return err
		}
		buf.Reset()
		if _, err := buf.ReadFrom(rd); err != nil {
			return err
		}
		s.ctr.wsMessages.Add(1)
		if f.stalls() && !sleepCtx(ctx, f.stallWait(time.Now())) {
			return ctx.Err()
		}
		wait, fail := f.next()
		if !sleepCtx(ctx, wait) {
			return ctx.Err()
		}
		if f.stalls() && wait > 0 && !sleepCtx(ctx, f.stallWait(time.Now())) {
			return ctx.Err()
		}
		if fail {
			s.ctr.errors.Add(1)
			return c.Close(InjectedCloseStatus, "injected error")
		}
		if err := c.Write(ctx, typ, buf.Bytes()); err != nil {
			return err
		}
	}
}

// isWSClosed reports whether err is the ordinary end of a connection: a
// close frame from the peer, or the peer or the server going away.
func isWSClosed(err error) bool {
	return websocket.CloseStatus(err) != -1 ||
		errors.Is(err, io.EOF) || errors.Is(err, context.Canceled)
}
