package websocket

import (
	"bytes"
	"errors"
	"io"
	"strings"
	"testing"

	"github.com/gobwas/ws"
	"github.com/google/go-cmp/cmp"
)

// TestAppendFrame checks the client's frames against gobwas/ws's reader,
// across the three length encodings.
func TestAppendFrame(t *testing.T) {
	for _, n := range []int{0, 1, 125, 126, 0xffff, 0x10000} {
		payload := bytes.Repeat([]byte{'a', 'b', 'c'}, n/3+1)[:n]
		for _, op := range []ws.OpCode{ws.OpText, ws.OpBinary, ws.OpClose} {
			frame := appendFrame(nil, op, payload, [4]byte{1, 2, 3, 4})
			r := bytes.NewReader(frame)
			h, err := ws.ReadHeader(r)
			if err != nil {
				t.Fatalf("%d bytes, op %v: %v", n, op, err)
			}
			f := ws.Frame{Header: h, Payload: make([]byte, h.Length)}
			if _, err := io.ReadFull(r, f.Payload); err != nil || r.Len() != 0 {
				t.Fatalf("%d bytes, op %v: payload: %v, %d bytes left over", n, op, err, r.Len())
			}
			if !f.Header.Masked || !f.Header.Fin || f.Header.OpCode != op {
				t.Errorf("%d bytes: header %+v, want a final masked %v frame", n, f.Header, op)
			}
			f = ws.UnmaskFrameInPlace(f)
			if !bytes.Equal(f.Payload, payload) {
				t.Errorf("%d bytes, op %v: payload differs after unmasking", n, op)
			}
		}
	}
}

// recordedControl records the control frames a reader answers.
type recordedControl struct{ sent []string }

func (r *recordedControl) control(op ws.OpCode, p []byte) {
	name := map[ws.OpCode]string{ws.OpPong: "pong", ws.OpClose: "close"}[op]
	r.sent = append(r.sent, name+":"+string(p))
}

func serverFrames(frames ...ws.Frame) []byte {
	var b bytes.Buffer
	for _, f := range frames {
		if err := ws.WriteFrame(&b, f); err != nil {
			panic(err)
		}
	}
	return b.Bytes()
}

func TestMsgReader(t *testing.T) {
	text := func(s string) ws.Frame { return ws.NewTextFrame([]byte(s)) }
	part := func(op ws.OpCode, fin bool, s string) ws.Frame { return ws.NewFrame(op, fin, []byte(s)) }
	rsv := text("x")
	rsv.Header.Rsv = ws.Rsv(true, false, false)
	for _, tc := range []struct {
		name    string
		wire    []byte
		want    []string // messages read, in order
		control []string
		err     error // after the messages
	}{
		{"two messages", serverFrames(text("one"), ws.NewBinaryFrame([]byte{0, 1})), []string{"one", "\x00\x01"}, nil, io.EOF},
		{"fragmented with a ping inside", serverFrames(part(ws.OpText, false, "hel"), ws.NewPingFrame([]byte("p")), part(ws.OpContinuation, true, "lo")),
			[]string{"hello"}, []string{"pong:p"}, io.EOF},
		{"pong ignored", serverFrames(ws.NewPongFrame([]byte("x")), text("a")), []string{"a"}, nil, io.EOF},
		{"close 1000", serverFrames(ws.NewCloseFrame(ws.NewCloseFrameBody(1000, "done"))), nil, []string{"close:\x03\xe8"}, errClosed},
		{"close without code", serverFrames(ws.NewCloseFrame(nil)), nil, []string{"close:"}, errClosed},
		{"close 1011", serverFrames(ws.NewCloseFrame(ws.NewCloseFrameBody(1011, ""))), nil, []string{"close:\x03\xf3"}, closeErrors[11]},
		{"masked", serverFrames(ws.MaskFrame(text("x"))), nil, nil, errMasked},
		{"reserved bits", serverFrames(rsv), nil, nil, errReservedBits},
		{"reserved opcode", serverFrames(part(ws.OpCode(3), true, "x")), nil, nil, errBadOpcode},
		{"reserved control opcode", serverFrames(part(ws.OpCode(0xb), true, "x")), nil, nil, errBadOpcode},
		{"continuation first", serverFrames(part(ws.OpContinuation, true, "x")), nil, nil, errContinuation},
		{"interleaved", serverFrames(part(ws.OpText, false, "x"), text("y")), nil, nil, errInterleaved},
		{"fragmented ping", serverFrames(part(ws.OpPing, false, "x")), nil, nil, errBadControl},
		{"long ping", serverFrames(ws.NewPingFrame(bytes.Repeat([]byte("x"), 126))), nil, nil, errBadControl},
		{"too large", serverFrames(ws.NewTextFrame(bytes.Repeat([]byte("x"), 65))), nil, nil, errTooLarge},
		{"too large in fragments", serverFrames(part(ws.OpText, false, strings.Repeat("x", 40)), part(ws.OpContinuation, true, strings.Repeat("x", 40))), nil, nil, errTooLarge},
		{"at the limit", serverFrames(ws.NewTextFrame(bytes.Repeat([]byte("x"), 64))), []string{strings.Repeat("x", 64)}, nil, io.EOF},
		{"cut in the header", serverFrames(ws.NewTextFrame(bytes.Repeat([]byte("x"), 64)))[:3], nil, nil, io.ErrUnexpectedEOF},
		{"cut in the payload", serverFrames(text("abcdef"))[:5], nil, nil, io.ErrUnexpectedEOF},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m := newMsgReader(64)
			m.buf = m.buf[:16] // small, so frames span refills
			var ctl recordedControl
			src := bytes.NewReader(tc.wire)
			var got []string
			var err error
			for {
				var msg []byte
				if msg, err = m.next(src, &ctl); err != nil {
					break
				}
				got = append(got, string(msg))
			}
			if !errors.Is(err, tc.err) {
				t.Errorf("error %v, want %v", err, tc.err)
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("messages (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tc.control, ctl.sent); diff != "" {
				t.Errorf("control frames sent (-want +got):\n%s", diff)
			}
			if tc.err == io.EOF && m.n != int64(len(tc.wire)) {
				t.Errorf("counted %d bytes read, the wire held %d", m.n, len(tc.wire))
			}
		})
	}
}

type noControl struct{}

func (noControl) control(ws.OpCode, []byte) {}

// TestMsgReaderRefusesWithoutAllocating checks that a header announcing a
// huge message is refused before anything is allocated for it, and that
// reading a message into the reused buffer allocates nothing.
func TestMsgReaderRefusesWithoutAllocating(t *testing.T) {
	for _, tc := range []struct {
		name string
		wire []byte
		err  error
	}{
		{"1 GiB announced", serverFrames(ws.Frame{Header: ws.Header{Fin: true, OpCode: ws.OpBinary, Length: 1 << 30}}), errTooLarge},
		{"2^63 announced", serverFrames(ws.Frame{Header: ws.Header{Fin: true, OpCode: ws.OpBinary, Length: 1<<63 - 1}}), errTooLarge},
		{"a message that fits", serverFrames(ws.NewTextFrame(bytes.Repeat([]byte("x"), 1000))), nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m := newMsgReader(1 << 20)
			src := bytes.NewReader(nil)
			var err error
			allocs := testing.AllocsPerRun(100, func() {
				m.reset()
				src.Reset(tc.wire)
				_, err = m.next(src, noControl{})
			})
			if err != tc.err {
				t.Errorf("error %v, want %v", err, tc.err)
			}
			if allocs != 0 {
				t.Errorf("%v allocations per message", allocs)
			}
			if tc.err != nil && cap(m.msg) != 0 {
				t.Errorf("message buffer grew to %d bytes", cap(m.msg))
			}
		})
	}
}
