package http1

import (
	"errors"
	"fmt"
	"io"
	"strings"
	"testing"

	"github.com/loadgate/loadgate/protocols/httpcheck"
)

// pieceReader hands out its data at most n bytes per Read, so that every
// parser path is also crossed at read boundaries.
type pieceReader struct {
	data []byte
	n    int
}

func (r *pieceReader) Read(p []byte) (int, error) {
	if len(r.data) == 0 {
		return 0, io.EOF
	}
	k := min(len(p), r.n, len(r.data))
	copy(p, r.data[:k])
	r.data = r.data[k:]
	return k, nil
}

// parsed is one response read from a stream, or the error that ended it.
type parsed struct {
	status  int
	bodyLen int64
	body    string // only when the body is kept
	wire    int64
	close   bool
	err     error
}

// bodyKeeper keeps the body, as a test of what the parser hands out.
type bodyKeeper struct {
	body   []byte
	pieces int
}

func (k *bodyKeeper) Run(src httpcheck.BodySource) error {
	k.body, k.pieces = k.body[:0], 0
	for {
		b, err := src.Next()
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return err
		}
		k.body = append(k.body, b...)
		k.pieces++
	}
}

// parseAll reads responses from input until the stream fails or ends, the
// way a kept-alive connection would.
func parseAll(input string, head bool, maxBody int64, keep bool, piece int) []parsed {
	var kept *bodyKeeper
	var body httpcheck.BodyReader
	if keep {
		kept = &bodyKeeper{}
		body = kept
	}
	rd := newRespReader(maxBody, body)
	rd.reset(&pieceReader{data: []byte(input), n: piece})
	var out []parsed
	for range 10 {
		var resp response
		err := rd.read(head, &resp)
		p := parsed{status: resp.status, bodyLen: resp.bodyLen, wire: resp.wire, close: resp.close, err: err}
		if keep && err == nil {
			p.body = string(kept.body)
		}
		if err != nil {
			p = parsed{wire: resp.wire, err: err}
		}
		out = append(out, p)
		if err != nil || resp.close {
			break
		}
	}
	return out
}

func TestHTTP1Parse(t *testing.T) {
	const ok5 = "HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\nhello"
	n := func(s string) int64 { return int64(len(s)) }
	eof := parsed{err: io.EOF} // the stream ended cleanly between responses
	bigHeader := "HTTP/1.1 200 OK\r\nX-Big: " + strings.Repeat("a", 40<<10) + "\r\nContent-Length: 0\r\n\r\n"
	hugeHeader := "HTTP/1.1 200 OK\r\nX-Big: " + strings.Repeat("a", 70<<10) + "\r\n\r\n"
	chunked := "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n5;name=val\r\nhello\r\n6\r\n world\r\n0\r\nX-Sum: 1\r\n\r\n"
	// Larger than the initial buffer, each in its own way.
	bigBody := strings.Repeat("b", 3*http1BufSize+5)
	bigFixed := "HTTP/1.1 200 OK\r\nContent-Length: " + fmt.Sprint(len(bigBody)) + "\r\n\r\n" + bigBody
	bigChunks := "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n" + fmt.Sprintf("%x", len(bigBody)) + "\r\n" + bigBody +
		"\r\n0\r\nX-Long: " + strings.Repeat("t", 2*http1BufSize) + "\r\n\r\n"
	bigUntilClose := "HTTP/1.0 200 OK\r\n\r\n" + bigBody
	const all = -1 // the whole input
	for _, tc := range []struct {
		name    string
		input   string
		head    bool
		maxBody int64 // 0 = 1 MiB
		want    []parsed
	}{
		{"content-length", ok5,
			false, 0, []parsed{{status: 200, bodyLen: 5, body: "hello", wire: n(ok5)}, eof}},
		{"header names are case-insensitive", "HTTP/1.1 201 Created\r\ncontent-LENGTH:  3 \r\n\r\nabc",
			false, 0, []parsed{{status: 201, bodyLen: 3, body: "abc", wire: all}, eof}},
		{"bare LF line endings", "HTTP/1.1 200 OK\nContent-Length: 2\n\nhi",
			false, 0, []parsed{{status: 200, bodyLen: 2, body: "hi", wire: all}, eof}},
		{"extra spaces in the status line", "HTTP/1.1  200  OK\r\nContent-Length: 0\r\n\r\n",
			false, 0, []parsed{{status: 200, wire: all}, eof}},
		{"status line without reason", "HTTP/1.1 200\r\nContent-Length: 0\r\n\r\n",
			false, 0, []parsed{{status: 200, wire: all}, eof}},
		{"chunks with extensions and trailers", chunked,
			false, 0, []parsed{{status: 200, bodyLen: 11, body: "hello world", wire: n(chunked)}, eof}},
		{"chunk sizes in upper-case hex", "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nA\r\n0123456789\r\n0\r\n\r\n",
			false, 0, []parsed{{status: 200, bodyLen: 10, body: "0123456789", wire: all}, eof}},
		// Two responses in one read: the second stays buffered for the next
		// request and is not counted into the first.
		{"pipelined responses", ok5 + "HTTP/1.1 404 Not Found\r\nContent-Length: 3\r\n\r\nnop",
			false, 0, []parsed{{status: 200, bodyLen: 5, body: "hello", wire: n(ok5)},
				{status: 404, bodyLen: 3, body: "nop", wire: 48}, eof}},
		{"connection close", "HTTP/1.1 200 OK\r\nConnection: close\r\nContent-Length: 2\r\n\r\nhi",
			false, 0, []parsed{{status: 200, bodyLen: 2, body: "hi", wire: all, close: true}}},
		{"connection tokens", "HTTP/1.1 200 OK\r\nConnection: Upgrade, CLOSE\r\nContent-Length: 0\r\n\r\n",
			false, 0, []parsed{{status: 200, wire: all, close: true}}},
		{"HTTP/1.0 without length reads until close", "HTTP/1.0 200 OK\r\n\r\nall of it",
			false, 0, []parsed{{status: 200, bodyLen: 9, body: "all of it", wire: all, close: true}}},
		{"HTTP/1.1 without length reads until close", "HTTP/1.1 200 OK\r\nConnection: close\r\n\r\nrest",
			false, 0, []parsed{{status: 200, bodyLen: 4, body: "rest", wire: all, close: true}}},
		{"HTTP/1.0 with length closes without keep-alive", "HTTP/1.0 200 OK\r\nContent-Length: 2\r\n\r\nhi",
			false, 0, []parsed{{status: 200, bodyLen: 2, body: "hi", wire: all, close: true}}},
		{"HTTP/1.0 keep-alive is reused", "HTTP/1.0 200 OK\r\nConnection: keep-alive\r\nContent-Length: 2\r\n\r\nhi",
			false, 0, []parsed{{status: 200, bodyLen: 2, body: "hi", wire: all}, eof}},
		{"100 Continue is skipped and counted", "HTTP/1.1 100 Continue\r\n\r\n" + ok5,
			false, 0, []parsed{{status: 200, bodyLen: 5, body: "hello", wire: 25 + n(ok5)}, eof}},
		{"several interim responses", "HTTP/1.1 102 Processing\r\n\r\nHTTP/1.1 103 Early Hints\r\nLink: </a>\r\n\r\n" + ok5,
			false, 0, []parsed{{status: 200, bodyLen: 5, body: "hello", wire: all}, eof}},
		{"too many interim responses", strings.Repeat("HTTP/1.1 100 Continue\r\n\r\n", 10) + ok5,
			false, 0, []parsed{{wire: all, err: errTooManyInterim}}},
		{"101 was never asked for", "HTTP/1.1 101 Switching Protocols\r\nUpgrade: x\r\n\r\n",
			false, 0, []parsed{{wire: all, err: errSwitching}}},
		{"HEAD has no body whatever its length", "HTTP/1.1 200 OK\r\nContent-Length: 100\r\n\r\n" + ok5[:len(ok5)-5],
			true, 0, []parsed{{status: 200, wire: 40}, {status: 200, wire: n(ok5) - 5}, eof}},
		{"204 has no body", "HTTP/1.1 204 No Content\r\n\r\n" + ok5,
			false, 0, []parsed{{status: 204, wire: 27}, {status: 200, bodyLen: 5, body: "hello", wire: n(ok5)}, eof}},
		{"304 has no body despite its length", "HTTP/1.1 304 Not Modified\r\nContent-Length: 9\r\n\r\n" + ok5,
			false, 0, []parsed{{status: 304, wire: 48}, {status: 200, bodyLen: 5, body: "hello", wire: n(ok5)}, eof}},
		{"equal duplicate lengths", "HTTP/1.1 200 OK\r\nContent-Length: 1\r\nContent-Length: 1\r\n\r\nx",
			false, 0, []parsed{{status: 200, bodyLen: 1, body: "x", wire: all}, eof}},
		{"chunked wins over a length but the connection is dropped",
			"HTTP/1.1 200 OK\r\nContent-Length: 99\r\nTransfer-Encoding: chunked\r\n\r\n1\r\nx\r\n0\r\n\r\n",
			false, 0, []parsed{{status: 200, bodyLen: 1, body: "x", wire: all, close: true}}},
		{"folded continuation of an ordinary header", "HTTP/1.1 200 OK\r\nX-A: 1\r\n 2\r\nContent-Length: 0\r\n\r\n",
			false, 0, []parsed{{status: 200, wire: all}, eof}},
		{"headers up to the cap", bigHeader,
			false, 0, []parsed{{status: 200, wire: n(bigHeader)}, eof}},
		{"body of exactly max_body", ok5, false, 5, []parsed{{status: 200, bodyLen: 5, body: "hello", wire: n(ok5)}, eof}},
		{"body larger than the buffer", bigFixed + ok5,
			false, 0, []parsed{{status: 200, bodyLen: n(bigBody), body: bigBody, wire: n(bigFixed)}, {status: 200, bodyLen: 5, body: "hello", wire: n(ok5)}, eof}},
		{"chunk and trailer larger than the buffer", bigChunks,
			false, 0, []parsed{{status: 200, bodyLen: n(bigBody), body: bigBody, wire: all}, eof}},
		{"body until close larger than the buffer", bigUntilClose,
			false, 0, []parsed{{status: 200, bodyLen: n(bigBody), body: bigBody, wire: all, close: true}}},

		// Truncated responses: a peer that closes mid-response reset the exchange.
		{"nothing at all", "", false, 0, []parsed{eof}},
		{"headers cut", "HTTP/1.1 200 OK\r\nContent-Len", false, 0, []parsed{{wire: all, err: io.ErrUnexpectedEOF}}},
		{"body cut", "HTTP/1.1 200 OK\r\nContent-Length: 10\r\n\r\nhello", false, 0, []parsed{{wire: all, err: io.ErrUnexpectedEOF}}},
		{"chunk cut", "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhel", false, 0, []parsed{{wire: all, err: io.ErrUnexpectedEOF}}},
		{"chunk terminator cut", "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhello\r\n", false, 0, []parsed{{wire: all, err: io.ErrUnexpectedEOF}}},
		{"trailers cut", "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n0\r\nX: 1\r\n", false, 0, []parsed{{wire: all, err: io.ErrUnexpectedEOF}}},
		{"interim then cut", "HTTP/1.1 100 Continue\r\n\r\n", false, 0, []parsed{{wire: all, err: io.ErrUnexpectedEOF}}},

		// Malformed responses.
		{"garbage", "NOT HTTP AT ALL\r\n\r\n", false, 0, []parsed{{wire: all, err: errNotHTTP}}},
		{"HTTP/2 status line", "HTTP/2 200\r\n\r\n", false, 0, []parsed{{wire: all, err: errNotHTTP}}},
		{"HTTP/1.x in lower case", "http/1.1 200 OK\r\n\r\n", false, 0, []parsed{{wire: all, err: errNotHTTP}}},

		// What cannot become a valid header block fails as soon as it is
		// seen, not when the server closes (each input here ends unfinished).
		{"a line of text", "hello\n", false, 0, []parsed{{wire: all, err: errNotHTTP}}},
		{"binary bytes", "\x16\x03\x01\x00\xa5\x01", false, 0, []parsed{{wire: all, err: errNotHTTP}}},
		{"a short line of text", "hi", false, 0, []parsed{{wire: all, err: errNotHTTP}}},
		{"version digit missing", "HTTP/1.x", false, 0, []parsed{{wire: all, err: errStatusLine}}},
		{"status letters", "HTTP/1.1 2x", false, 0, []parsed{{wire: all, err: errStatusLine}}},
		{"status of four digits", "HTTP/1.1 2000", false, 0, []parsed{{wire: all, err: errStatusLine}}},
		{"status line without a status", "HTTP/1.1\r\nContent-Length: 0", false, 0, []parsed{{wire: all, err: errStatusLine}}},
		{"space in an unfinished header name", "HTTP/1.1 200 OK\r\nBad Na", false, 0, []parsed{{wire: all, err: errHeaderLine}}},
		{"header line without colon, then more", "HTTP/1.1 200 OK\r\nBroken\r\nX-A", false, 0, []parsed{{wire: all, err: errHeaderLine}}},
		{"binary after the status line", "HTTP/1.1 200 OK\r\n\x00\x01", false, 0, []parsed{{wire: all, err: errHeaderLine}}},
		{"bad chunk size, unfinished", "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n5x", false, 0, []parsed{{wire: all, err: errChunk}}},
		{"bad chunk end, unfinished", "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n1\r\nxy", false, 0, []parsed{{wire: all, err: errChunk}}},

		// A beginning that may still become valid waits for more.
		{"status line cut", "HTT", false, 0, []parsed{{wire: all, err: io.ErrUnexpectedEOF}}},
		{"status line cut before its LF", "HTTP/1.1 200 OK\r", false, 0, []parsed{{wire: all, err: io.ErrUnexpectedEOF}}},
		{"status code cut", "HTTP/1.1  20", false, 0, []parsed{{wire: all, err: io.ErrUnexpectedEOF}}},
		{"header cut before its LF", "HTTP/1.1 200 OK\r\nX-A: 1\r", false, 0, []parsed{{wire: all, err: io.ErrUnexpectedEOF}}},
		{"folded header cut", "HTTP/1.1 200 OK\r\nX-A: 1\r\n  two words", false, 0, []parsed{{wire: all, err: io.ErrUnexpectedEOF}}},
		{"chunk extension cut", "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n5 ; x=y z", false, 0, []parsed{{wire: all, err: io.ErrUnexpectedEOF}}},
		{"status of two digits", "HTTP/1.1 20 OK\r\n\r\n", false, 0, []parsed{{wire: all, err: errStatusLine}}},
		{"status below 100", "HTTP/1.1 099 Odd\r\n\r\n", false, 0, []parsed{{wire: all, err: errStatusLine}}},
		{"header without colon", "HTTP/1.1 200 OK\r\nBroken\r\n\r\n", false, 0, []parsed{{wire: all, err: errHeaderLine}}},
		{"space in a header name", "HTTP/1.1 200 OK\r\nBad Name: 1\r\n\r\n", false, 0, []parsed{{wire: all, err: errHeaderLine}}},
		{"folded Content-Length", "HTTP/1.1 200 OK\r\nContent-Length: 1\r\n 2\r\n\r\nx", false, 0, []parsed{{wire: all, err: errHeaderLine}}},
		{"negative length", "HTTP/1.1 200 OK\r\nContent-Length: -1\r\n\r\n", false, 0, []parsed{{wire: all, err: errContentLength}}},
		{"conflicting lengths", "HTTP/1.1 200 OK\r\nContent-Length: 1\r\nContent-Length: 2\r\n\r\nx", false, 0, []parsed{{wire: all, err: errContentLength}}},
		{"length that would overflow", "HTTP/1.1 200 OK\r\nContent-Length: 99999999999999999999\r\n\r\n", false, 0, []parsed{{wire: all, err: errContentLength}}},
		{"gzip transfer coding", "HTTP/1.1 200 OK\r\nTransfer-Encoding: gzip, chunked\r\n\r\n", false, 0, []parsed{{wire: all, err: errTransferEncoding}}},
		{"bad chunk size", "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n", false, 0, []parsed{{wire: all, err: errChunk}}},
		{"chunk data longer than its size", "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n2\r\nabc\r\n0\r\n\r\n", false, 0, []parsed{{wire: all, err: errChunk}}},
		{"chunk line too long", "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n1;" + strings.Repeat("x", 5000), false, 0,
			[]parsed{{wire: all, err: errLineTooLong}}},
		{"bad trailer", "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n0\r\nnot a trailer\r\n\r\n", false, 0, []parsed{{wire: all, err: errHeaderLine}}},
		{"headers too large", hugeHeader, false, 0, []parsed{{wire: http1MaxHeader, err: errHeadersTooLarge}}},

		// Bodies above max_body stop the read at once.
		{"declared length above max_body", ok5, false, 4, []parsed{{wire: n(ok5), err: errBodyTooLarge}}},
		{"huge declared length", "HTTP/1.1 200 OK\r\nContent-Length: 999999999999999999\r\n\r\n", false, 0,
			[]parsed{{wire: all, err: errBodyTooLarge}}},
		{"chunks above max_body", chunked, false, 8, []parsed{{wire: n(chunked), err: errBodyTooLarge}}},
		{"huge chunk", "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nfffffffffffffff\r\n", false, 0,
			[]parsed{{wire: all, err: errBodyTooLarge}}},
		{"until-close body above max_body", "HTTP/1.0 200 OK\r\n\r\n" + strings.Repeat("z", 100), false, 50,
			[]parsed{{wire: all, err: errBodyTooLarge}}},
	} {
		for _, piece := range []int{1 << 20, 7, 1} {
			t.Run(fmt.Sprintf("%s/read %d", tc.name, piece), func(t *testing.T) {
				maxBody := tc.maxBody
				if maxBody == 0 {
					maxBody = 1 << 20
				}
				got := parseAll(tc.input, tc.head, maxBody, true, piece)
				want := append([]parsed(nil), tc.want...)
				for i := range want {
					if want[i].wire == all {
						want[i].wire = n(tc.input)
					}
				}
				if piece < len(tc.input) || len(tc.input) > http1BufSize {
					// Read piece by piece, or in reads of a buffer smaller
					// than the input, an error stops at its own byte, so the
					// bytes counted for it may be fewer.
					want = withWire(want, got)
				}
				if !sameParse(got, want) {
					t.Errorf("got  %+v\nwant %+v", got, want)
				}
			})
		}
	}
}

// withWire accepts a failed response's byte count from got when it is no
// more than the table's, which assumes the whole input arrived in one read.
func withWire(want, got []parsed) []parsed {
	out := want
	if n := len(out); n > 0 && n == len(got) && out[n-1].err != nil && got[n-1].wire <= out[n-1].wire {
		out[n-1].wire = got[n-1].wire
	}
	return out
}

func sameParse(got, want []parsed) bool {
	if len(got) != len(want) {
		return false
	}
	for i := range got {
		g, w := got[i], want[i]
		if !errors.Is(g.err, w.err) || (g.err == nil) != (w.err == nil) {
			return false
		}
		g.err, w.err = nil, nil
		if g != w {
			return false
		}
	}
	return true
}

// The buffer starts small and grows only as far as a response needs: for
// a header block up to http1MaxHeader, for a long body to http1BodyBuf.
func TestHTTP1ParseBufferGrowth(t *testing.T) {
	small := "HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\nhello"
	body := func(n int) string {
		return "HTTP/1.1 200 OK\r\nContent-Length: " + fmt.Sprint(n) + "\r\n\r\n" + strings.Repeat("x", n)
	}
	header := func(n int) string {
		return "HTTP/1.1 200 OK\r\nX-Pad: " + strings.Repeat("h", n) + "\r\nContent-Length: 0\r\n\r\n"
	}
	for _, tc := range []struct {
		name  string
		input string
		want  int
	}{
		{"small responses", strings.Repeat(small, 100), http1BufSize},
		{"a body over twice the buffer", body(2*http1BufSize + 100), 2 * http1BufSize},
		{"a long body", body(1 << 20), http1BodyBuf},
		{"a large header block", header(20 << 10), 32 << 10},
	} {
		rd := newRespReader(2<<20, nil)
		rd.reset(&loopReader{resp: []byte(tc.input)})
		if rd.buf != nil {
			t.Fatalf("a new reader holds a buffer of %d bytes; it takes one from the pool when it reads", len(rd.buf))
		}
		var resp response
		for range 3 {
			if err := rd.read(false, &resp); err != nil {
				t.Fatalf("%s: %v", tc.name, err)
			}
		}
		if len(rd.buf) != tc.want {
			t.Errorf("%s: buffer of %d bytes, want %d", tc.name, len(rd.buf), tc.want)
		}
	}
}

// FuzzHTTP1Response feeds arbitrary bytes, in arbitrary read sizes, to the
// response parser as a kept-alive stream. It must never panic, never count
// bytes it did not read, and never let a declared length size its buffers.
func FuzzHTTP1Response(f *testing.F) {
	for _, s := range []string{
		"HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\nhello",
		"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n5;a=b\r\nhello\r\n0\r\nX: y\r\n\r\n",
		"HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 204 No Content\r\n\r\nHTTP/1.0 200 OK\r\n\r\nrest",
		"HTTP/1.1 200 OK\r\nContent-Length: 999999999999999999\r\n\r\n",
		"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nfffffffffffffff\r\n",
	} {
		f.Add([]byte(s), false, uint16(0))
	}
	const maxBody = 1 << 10
	f.Fuzz(func(t *testing.T, data []byte, head bool, piece uint16) {
		kept := &bodyKeeper{}
		rd := newRespReader(maxBody, kept)
		rd.reset(&pieceReader{data: data, n: int(piece) + 1})
		var total int64
		for i := 0; ; i++ {
			var resp response
			err := rd.read(head, &resp)
			total += resp.wire
			if resp.wire < 0 || total > rd.in || rd.in > int64(len(data)) {
				t.Fatalf("response %d: counted %d bytes (total %d) of %d read, %d given", i, resp.wire, total, rd.in, len(data))
			}
			if len(rd.buf) > http1MaxHeader || len(kept.body) > maxBody || resp.bodyLen > maxBody {
				t.Fatalf("buffers grew: read buffer %d, body %d (length %d)", len(rd.buf), len(kept.body), resp.bodyLen)
			}
			if err != nil {
				if total != rd.in {
					t.Fatalf("a failed response must account for every byte read: %d of %d", total, rd.in)
				}
				return
			}
			if resp.wire == 0 || resp.bodyLen > resp.wire || int64(len(kept.body)) != resp.bodyLen {
				t.Fatalf("response %d: %d wire bytes, body %d, kept %d", i, resp.wire, resp.bodyLen, len(kept.body))
			}
			if total+int64(rd.w-rd.r) != rd.in {
				t.Fatalf("counted %d + buffered %d != read %d", total, rd.w-rd.r, rd.in)
			}
			if resp.close {
				return
			}
		}
	})
}

// loopReader serves one response again and again, as a kept-alive server
// would, so that the parser alone is measured.
type loopReader struct {
	resp []byte
	off  int
}

func (r *loopReader) Read(p []byte) (int, error) {
	n := copy(p, r.resp[r.off:])
	r.off = (r.off + n) % len(r.resp)
	return n, nil
}

func BenchmarkHTTP1Parse(b *testing.B) {
	for _, bc := range []struct{ name, resp string }{
		{"content-length", "HTTP/1.1 200 OK\r\nServer: nginx/1.24.0\r\nDate: Mon, 02 Mar 2026 10:00:00 GMT\r\n" +
			"Content-Type: text/plain\r\nContent-Length: 6\r\nConnection: keep-alive\r\n\r\nhello\n"},
		{"chunked", "HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nTransfer-Encoding: chunked\r\n\r\n" +
			"6\r\nhello\n\r\n6\r\nworld\n\r\n0\r\n\r\n"},
	} {
		b.Run(bc.name, func(b *testing.B) {
			rd := newRespReader(1<<20, nil)
			rd.reset(&loopReader{resp: []byte(bc.resp)})
			var resp response
			b.SetBytes(int64(len(bc.resp)))
			b.ReportAllocs()
			for b.Loop() {
				if err := rd.read(false, &resp); err != nil || resp.status != 200 {
					b.Fatal(err, resp.status)
				}
			}
		})
	}
}

// TestParseHeaderEnd checks where parseHeader finds the end of a header
// block: past its blank line, or -1 while the block is incomplete, even
// when a line already read is malformed, whose error waits for the end.
func TestParseHeaderEnd(t *testing.T) {
	for _, tc := range []struct {
		name, in string
		end      int
		err      error
	}{
		{"complete", "HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nhi", 38, nil},
		{"bare LF", "HTTP/1.1 200 OK\nContent-Length: 2\n\nhi", 35, nil},
		{"no blank line yet", "HTTP/1.1 200 OK\r\nContent-Length: 2\r\n", -1, nil},
		{"no status line yet", "HTTP/1.1 200 OK", -1, nil},
		{"bad line, incomplete", "HTTP/1.1 200 OK\r\nBad Name: x\r\n", -1, nil},
		{"bad line, complete", "HTTP/1.1 200 OK\r\nBad Name: x\r\nA: b\r\n\r\n", 38, errHeaderLine},
		{"no colon", "HTTP/1.1 200 OK\r\nNoColon\r\n\r\n", 28, errHeaderLine},
		{"empty name", "HTTP/1.1 200 OK\r\n: x\r\n\r\n", 24, errHeaderLine},
		{"folded framing", "HTTP/1.1 200 OK\r\nContent-Length: 2\r\n 3\r\n\r\n", 42, errHeaderLine},
		{"bad length", "HTTP/1.1 200 OK\r\nContent-Length: x\r\n\r\n", 38, errContentLength},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var h header
			end, err := parseHeader([]byte(tc.in), &h)
			if end != tc.end || !errors.Is(err, tc.err) {
				t.Errorf("parseHeader = %d, %v; want %d, %v", end, err, tc.end, tc.err)
			}
		})
	}
}
