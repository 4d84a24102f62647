package demoserver

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"io"
	"net"
	"net/http"
	"strings"
	"time"

	"github.com/gobwas/ws"
	"github.com/gobwas/ws/wsutil"
)

// injectedCloseStatus is the close code a WebSocket connection of /ws ends
// with when ErrorRate picks one of its messages: 1011, "internal error",
// what a real server sends when it fails while handling a message.
const injectedCloseStatus = ws.StatusInternalServerError

// closeReplyWait bounds how long a connection closed by the server waits
// for the peer's close frame, so that the close frame is read by the peer
// before the socket goes (closing with unread input would reset it).
const closeReplyWait = 2 * time.Second

// serveWS is the WebSocket echo at /ws: every text or binary message is
// sent back as received, with the same type. The fault knobs apply to each
// message, not to the upgrade: a stall or a delay holds the echo, and a
// message picked by ErrorRate is not echoed but answered by closing the
// connection with injectedCloseStatus, so a client sees the failure as it
// would see a real server give up, and has to reconnect.
func (s *Server) serveWS(w http.ResponseWriter, r *http.Request) {
	if !strings.EqualFold(r.Header.Get("Upgrade"), "websocket") {
		// A plain request: say what the route wants rather than the
		// handshake error the upgrader would give.
		w.Header().Set("Upgrade", "websocket")
		http.Error(w, "this route speaks WebSocket: send an Upgrade: websocket handshake", http.StatusUpgradeRequired)
		return
	}
	// The connection is hijacked by the upgrade, after which net/http no
	// longer counts it in conns; this handler keeps it counted until it
	// returns, so Close still waits for it. The connection is counted
	// already, so this Add cannot race with Close's Wait.
	s.conns.Add(1)
	defer s.conns.Done()
	// Any Origin is accepted: a test fixture on loopback, any page may connect.
	conn, rw, _, err := ws.UpgradeHTTP(r, w)
	if err != nil {
		if conn != nil {
			_ = conn.Close() // the upgrader has answered the bad handshake
		}
		return
	}
	defer conn.Close()
	// r.Context descends from the server's base context: Close cancels it,
	// which closes the hijacked connection and so ends a read held on it.
	stop := context.AfterFunc(r.Context(), func() { _ = conn.Close() })
	defer stop()
	s.ctr.wsConns.Add(1)
	err = s.echoWS(r.Context(), conn, rw)
	var closed wsutil.ClosedError
	if errors.As(err, &closed) {
		return // the peer's close was answered by the control handler
	}
	if errors.Is(err, wsutil.ErrMessageTooLarge) {
		_ = closeWS(conn, rw.Reader, ws.StatusMessageTooBig, "message larger than 10 MiB")
		return
	}
	if err != nil && !errors.Is(err, io.EOF) && !errors.Is(err, context.Canceled) && !errors.Is(err, net.ErrClosed) {
		s.log.Debug().Err(err).Msg("websocket echo ended")
	}
}

// echoWS echoes messages until the peer closes, the context ends, or a
// fault closes the connection. One buffer serves every message.
func (s *Server) echoWS(ctx context.Context, conn net.Conn, rw *bufio.ReadWriter) error {
	control := wsutil.ControlFrameHandler(conn, ws.StateServerSide)
	rd := &wsutil.Reader{
		// The handshake's reader: a frame sent right behind the handshake
		// may already sit in its buffer.
		Source:         rw.Reader,
		State:          ws.StateServerSide,
		CheckUTF8:      true,
		MaxMessageSize: maxBodyBytes,
		OnIntermediate: control,
	}
	var buf bytes.Buffer
	f := s.faults
	for {
		hdr, err := rd.NextFrame()
		if err != nil {
			return err
		}
		if hdr.OpCode.IsControl() {
			if err := control(hdr, rd); err != nil {
				return err
			}
			continue
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
			return closeWS(conn, rw.Reader, injectedCloseStatus, "injected error")
		}
		if err := writeWS(rw.Writer, hdr.OpCode, buf.Bytes()); err != nil {
			return err
		}
	}
}

// writeWS sends p as one unmasked frame of type op, header and payload in
// one write when they fit the buffer.
func writeWS(w *bufio.Writer, op ws.OpCode, p []byte) error {
	if err := ws.WriteHeader(w, ws.Header{Fin: true, OpCode: op, Length: int64(len(p))}); err != nil {
		return err
	}
	if _, err := w.Write(p); err != nil {
		return err
	}
	return w.Flush()
}

// closeWS starts the closing handshake with code and reason, then reads
// and drops whatever the peer still sends until its close frame, its end
// of the connection or closeReplyWait. It returns nil once the close frame
// is sent: the connection is over either way.
func closeWS(conn net.Conn, r io.Reader, code ws.StatusCode, reason string) error {
	if err := ws.WriteFrame(conn, ws.NewCloseFrame(ws.NewCloseFrameBody(code, reason))); err != nil {
		return err
	}
	_ = conn.SetReadDeadline(time.Now().Add(closeReplyWait))
	rd := &wsutil.Reader{Source: r, State: ws.StateServerSide}
	for {
		hdr, err := rd.NextFrame()
		if err != nil || hdr.OpCode == ws.OpClose {
			return nil
		}
		if err := rd.Discard(); err != nil {
			return nil
		}
	}
}
