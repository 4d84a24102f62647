package tcp

import (
	"bytes"
	"errors"
	"io"
	"strings"
	"testing"
	"testing/iotest"

	"github.com/google/go-cmp/cmp"

	"github.com/loadgate/loadgate/scenarios"
)

// The framings under test; max_frame is small so oversize is cheap to build.
var (
	monitorFraming = scenarios.Framing{Kind: scenarios.FramingLengthPrefixed, Fields: []scenarios.FrameField{
		{Size: 2, Value: 1}, {Size: 4, Length: true},
	}}
	// A length that counts the whole 7-byte frame, little-endian, behind a
	// one-byte constant: the shapes Netty users meet.
	countedFraming = scenarios.Framing{Kind: scenarios.FramingLengthPrefixed, Adjust: -7, Fields: []scenarios.FrameField{
		{Size: 1, Value: 0xAB}, {Size: 2, LittleEndian: true, Length: true}, {Size: 4, Value: 7},
	}}
	crlfFraming  = scenarios.Framing{Kind: scenarios.FramingLine, Delimiter: []byte("\r\n")}
	fixedFraming = scenarios.Framing{Kind: scenarios.FramingFixed, Size: 4}
	noFraming    = scenarios.Framing{Kind: scenarios.FramingNone}
)

func codecFor(f scenarios.Framing, maxFrame int64) *frameCodec {
	c := newFrameCodec(&scenarios.TCPTarget{Framing: f, MaxFrame: maxFrame})
	return &c
}

// chunkedReader returns the bytes of s in reads of the given sizes, then the rest.
type chunkedReader struct {
	data  []byte
	sizes []int
}

func (r *chunkedReader) Read(p []byte) (int, error) {
	if len(r.data) == 0 {
		return 0, io.EOF
	}
	n := len(r.data)
	if len(r.sizes) > 0 {
		n, r.sizes = min(r.sizes[0], n), r.sizes[1:]
	}
	n = copy(p, r.data[:n])
	r.data = r.data[n:]
	return n, nil
}

// readAll reads messages until an error and returns them with that error.
func readFrames(src io.Reader, c *frameCodec, e *scenarios.TCPExpect) ([]string, error) {
	var fr frameReader
	var frames []string
	for {
		p, _, err := fr.next(src, c, e)
		if err != nil {
			return frames, err
		}
		frames = append(frames, string(p))
	}
}

func TestFrameReader(t *testing.T) {
	hdr := func(n int) string { return "\x00\x01" + string([]byte{0, 0, byte(n >> 8), byte(n)}) }
	tests := []struct {
		name    string
		framing scenarios.Framing
		expect  scenarios.TCPExpect
		wire    string
		sizes   []int // read sizes; nil = everything in one read
		want    []string
		wantErr error // after the frames; io.EOF = a clean end between frames
	}{
		{"length-prefixed one read, two frames", monitorFraming, scenarios.TCPExpect{},
			hdr(5) + "hello" + hdr(0) + "", nil, []string{"hello", ""}, io.EOF},
		{"length-prefixed split inside header and body", monitorFraming, scenarios.TCPExpect{},
			hdr(5) + "hello" + hdr(3) + "abc", []int{1, 2, 4, 1, 3, 2}, []string{"hello", "abc"}, io.EOF},
		{"length-prefixed truncated body is a mid-frame close", monitorFraming, scenarios.TCPExpect{},
			hdr(5) + "hel", nil, nil, io.ErrUnexpectedEOF},
		{"length-prefixed truncated header", monitorFraming, scenarios.TCPExpect{},
			hdr(1) + "x" + "\x00\x01\x00", nil, []string{"x"}, io.ErrUnexpectedEOF},
		{"length-prefixed declared length over max_frame, nothing allocated", monitorFraming, scenarios.TCPExpect{},
			"\x00\x01\xff\xff\xff\xff", nil, nil, errFrameTooLarge},
		{"length-prefixed exactly max_frame", monitorFraming, scenarios.TCPExpect{},
			hdr(16) + strings.Repeat("x", 16), []int{3}, []string{strings.Repeat("x", 16)}, io.EOF},
		{"length-prefixed garbage (HTTP) is too large", monitorFraming, scenarios.TCPExpect{},
			"HTTP/1.1 400 Bad Request\r\n", nil, nil, errFrameTooLarge},
		{"length counting the header, little-endian", countedFraming, scenarios.TCPExpect{},
			"\xab\x09\x00\x00\x00\x00\x07hi" + "\xab\x07\x00\x00\x00\x00\x07", []int{2, 2, 2, 2, 2}, []string{"hi", ""}, io.EOF},
		{"length smaller than the header it counts", countedFraming, scenarios.TCPExpect{},
			"\xab\x03\x00\x00\x00\x00\x07", nil, nil, errBadFrame},
		{"line split reads and two in one read", crlfFraming, scenarios.TCPExpect{},
			"+PONG\r\n+OK\r\n$3\r\n", []int{3, 1, 1, 4}, []string{"+PONG", "+OK", "$3"}, io.EOF},
		{"line delimiter split across reads", crlfFraming, scenarios.TCPExpect{},
			"abc\r\nd\r\n", []int{4, 1, 1}, []string{"abc", "d"}, io.EOF},
		{"line without delimiter, truncated", crlfFraming, scenarios.TCPExpect{},
			"abc\r", nil, nil, io.ErrUnexpectedEOF},
		{"line of exactly max_frame", crlfFraming, scenarios.TCPExpect{},
			strings.Repeat("y", 16) + "\r\n", []int{5}, []string{strings.Repeat("y", 16)}, io.EOF},
		{"line longer than max_frame", crlfFraming, scenarios.TCPExpect{},
			strings.Repeat("y", 17) + "\r\n", []int{5}, nil, errFrameTooLarge},
		{"fixed", fixedFraming, scenarios.TCPExpect{},
			"abcdefgh" + "ij", []int{3, 3, 3}, []string{"abcd", "efgh"}, io.ErrUnexpectedEOF},
		{"none by bytes", noFraming, scenarios.TCPExpect{Bytes: 3},
			"abcdefg", []int{1, 1, 1, 1}, []string{"abc", "def"}, io.ErrUnexpectedEOF},
		{"none until contains, leaving the rest", noFraming, scenarios.TCPExpect{Contains: []byte("\r\n\r\n")},
			"HTTP 200\r\n\r\nbodyX\r\n\r\n", []int{7, 7, 7}, []string{"HTTP 200\r\n\r\n", "bodyX\r\n\r\n"}, io.EOF},
		{"none without contains within max_frame", noFraming, scenarios.TCPExpect{Contains: []byte("END")},
			strings.Repeat("z", 40), []int{10}, nil, errFrameTooLarge},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			c := codecFor(tc.framing, 16)
			got, err := readFrames(&chunkedReader{data: []byte(tc.wire), sizes: tc.sizes}, c, &tc.expect)
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("frames (-want +got):\n%s", diff)
			}
			if !errors.Is(err, tc.wantErr) {
				t.Errorf("error = %v, want %v", err, tc.wantErr)
			}
			// The same bytes one at a time must give the same frames.
			got1, err1 := readFrames(iotest.OneByteReader(strings.NewReader(tc.wire)), c, &tc.expect)
			if !cmp.Equal(got, got1) || !errors.Is(err1, tc.wantErr) {
				t.Errorf("byte by byte: %q, %v; in chunks: %q, %v", got1, err1, got, err)
			}
		})
	}
}

func TestFrameReaderBufferStaysBounded(t *testing.T) {
	c := codecFor(monitorFraming, 1<<20)
	var fr frameReader
	// A header declaring 1 MiB (allowed) followed by a trickle: the buffer
	// grows with what arrives, not with what the header promises.
	wire := append([]byte("\x00\x01\x00\x10\x00\x00"), make([]byte, 100)...)
	_, _, err := fr.next(bytes.NewReader(wire), c, &scenarios.TCPExpect{})
	if !errors.Is(err, io.ErrUnexpectedEOF) {
		t.Fatalf("err = %v", err)
	}
	if len(fr.buf) > initialReadBuffer {
		t.Errorf("buffer grew to %d bytes for 106 bytes received", len(fr.buf))
	}
}

func TestFrameEncode(t *testing.T) {
	tests := []struct {
		name    string
		framing scenarios.Framing
		payload string
		want    string
	}{
		{"monitor", monitorFraming, `{"T":"Ack"}`, "\x00\x01\x00\x00\x00\x0b" + `{"T":"Ack"}`},
		{"counted little-endian", countedFraming, "hi", "\xab\x09\x00\x00\x00\x00\x07hi"},
		{"u64 little-endian with override", scenarios.Framing{Kind: scenarios.FramingLengthPrefixed, Fields: []scenarios.FrameField{
			{Size: 8, LittleEndian: true, Length: true}, {Size: 2, Value: 0x0102},
		}}, "x", "\x01\x00\x00\x00\x00\x00\x00\x00\x01\x02x"},
		{"line", crlfFraming, "PING", "PING\r\n"},
		{"fixed pads", fixedFraming, "ab", "ab\x00\x00"},
		{"none", noFraming, "raw", "raw"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			c := codecFor(tc.framing, 1<<10)
			dst, start := c.open([]byte("prefix"))
			dst = append(dst, tc.payload...)
			dst = c.close(dst, start)
			if got := string(dst); got != "prefix"+tc.want {
				t.Errorf("encoded %q, want %q", got, "prefix"+tc.want)
			}
			if tc.framing.Kind == scenarios.FramingNone {
				return
			}
			p, _, err := new(frameReader).next(strings.NewReader(tc.want), c, &scenarios.TCPExpect{})
			if err != nil || string(bytes.TrimRight(p, "\x00")) != tc.payload {
				t.Errorf("decoding what was encoded: %q, %v", p, err)
			}
		})
	}
}

// fuzzFrames checks a decoder against arbitrary bytes arriving in arbitrary
// reads: it must not panic, must return the same frames and the same kind
// of ending however the bytes are split, must never return a payload over
// max_frame, and must never grow its buffer past the codec's limit.
func fuzzFrames(t *testing.T, c *frameCodec, e *scenarios.TCPExpect, wire []byte, split uint8) {
	whole, errWhole := readFrames(bytes.NewReader(wire), c, e)
	sizes := []int{int(split%7) + 1, int(split/7%5) + 1, 1, int(split%3) + 2}
	var fr frameReader
	var parts []string
	src := &chunkedReader{data: wire, sizes: append(sizes, sizes...)}
	var err error
	for {
		var p []byte
		p, _, err = fr.next(src, c, e)
		if err != nil {
			break
		}
		if len(p) > c.maxFrame {
			t.Fatalf("payload of %d bytes, max_frame %d", len(p), c.maxFrame)
		}
		parts = append(parts, string(p))
	}
	if len(fr.buf) > max(c.limit(), initialReadBuffer) {
		t.Fatalf("buffer grew to %d, limit %d", len(fr.buf), c.limit())
	}
	if !cmp.Equal(whole, parts) || tcpErrorKind(err) != tcpErrorKind(errWhole) {
		t.Fatalf("one read: %d frames, %v; split reads: %d frames, %v; diff:\n%s", len(whole), errWhole, len(parts), err, cmp.Diff(whole, parts))
	}
}

func FuzzLengthPrefixedFrame(f *testing.F) {
	f.Add([]byte("\x00\x01\x00\x00\x00\x05hello\x00\x01\x00\x00\x00\x00"), uint8(3), int8(0), false)
	f.Add([]byte("\x00\x01\xff\xff\xff\xff"), uint8(0), int8(0), false)
	f.Add([]byte("\x07\x00\x00\x00\x00\x00\x01"), uint8(9), int8(-6), true)
	f.Fuzz(func(t *testing.T, wire []byte, split uint8, adjust int8, little bool) {
		fr := scenarios.Framing{Kind: scenarios.FramingLengthPrefixed, Adjust: int64(adjust), Fields: []scenarios.FrameField{
			{Size: 2, Value: 1}, {Size: 4, Length: true, LittleEndian: little},
		}}
		fuzzFrames(t, codecFor(fr, 64), &scenarios.TCPExpect{}, wire, split)
	})
}

func FuzzLineFrame(f *testing.F) {
	f.Add([]byte("+PONG\r\n+OK\r\n"), uint8(1), "\r\n")
	f.Add([]byte("no delimiter at all, and long enough to be too long for the frame"), uint8(5), "\n")
	f.Add([]byte("a||b|||c"), uint8(2), "||")
	f.Fuzz(func(t *testing.T, wire []byte, split uint8, delim string) {
		if delim == "" {
			return // refused when the scenario is loaded
		}
		fuzzFrames(t, codecFor(scenarios.Framing{Kind: scenarios.FramingLine, Delimiter: []byte(delim)}, 32), &scenarios.TCPExpect{}, wire, split)
	})
}

func FuzzFixedFrame(f *testing.F) {
	f.Add([]byte("abcdefghij"), uint8(4), uint8(4))
	f.Add([]byte("x"), uint8(0), uint8(1))
	f.Fuzz(func(t *testing.T, wire []byte, split, size uint8) {
		n := int(size%32) + 1
		fuzzFrames(t, codecFor(scenarios.Framing{Kind: scenarios.FramingFixed, Size: n}, 32), &scenarios.TCPExpect{}, wire, split)
	})
}

func FuzzNoneFrame(f *testing.F) {
	f.Add([]byte("HTTP/1.0 200 OK\r\n\r\nrest"), uint8(3), uint8(0), "\r\n\r\n")
	f.Add([]byte("abcdef"), uint8(1), uint8(4), "")
	f.Fuzz(func(t *testing.T, wire []byte, split, n uint8, contains string) {
		e := &scenarios.TCPExpect{Bytes: int64(n % 40), Contains: []byte(contains)}
		if e.Bytes == 0 && contains == "" {
			return // refused when the scenario is loaded
		}
		fuzzFrames(t, codecFor(noFraming, 32), e, wire, split)
	})
}
