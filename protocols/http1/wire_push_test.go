package http1

import (
	"bytes"
	"fmt"
	"io"
	"strings"
	"testing"
)

// pushCase is a stream of responses and the error that ends it, io.EOF
// for a clean end between responses. What each response parses to is
// respReader's answer on the whole stream.
type pushCase struct {
	name    string
	input   string
	head    bool
	maxBody int64 // 0 = 1 MiB
	wantErr error
}

func pushCases() []pushCase {
	const ok5 = "HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\nhello"
	const chunked = "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n5;name=val\r\nhello\r\n6 ; x\r\n world\r\n0\r\nX-Sum: 1\r\nX-B: 2\r\n\r\n"
	big := strings.Repeat("b", 3*http1BufSize+5)
	return []pushCase{
		{"content-length", ok5, false, 0, io.EOF},
		{"content-length zero", "HTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n" + ok5, false, 0, io.EOF},
		{"bare LF line endings", "HTTP/1.1 200 OK\nContent-Length: 2\n\nhi", false, 0, io.EOF},
		{"chunks with extensions and trailers", chunked + ok5, false, 0, io.EOF},
		{"chunk sizes in upper-case hex", "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nA\r\n0123456789\r\n0\r\n\r\n", false, 0, io.EOF},
		{"1xx then 200", "HTTP/1.1 100 Continue\r\n\r\n" + ok5, false, 0, io.EOF},
		{"several interim responses", "HTTP/1.1 102 Processing\r\n\r\nHTTP/1.1 103 Early Hints\r\nLink: </a>\r\n\r\n" + ok5, false, 0, io.EOF},
		{"HEAD has no body whatever its length", "HTTP/1.1 200 OK\r\nContent-Length: 100\r\n\r\n" + ok5[:len(ok5)-5], true, 0, io.EOF},
		{"204 has no body", "HTTP/1.1 204 No Content\r\n\r\n" + ok5, false, 0, io.EOF},
		{"304 has no body despite its length", "HTTP/1.1 304 Not Modified\r\nContent-Length: 9\r\n\r\n" + ok5, false, 0, io.EOF},
		{"pipelined second response after the first", ok5 + "HTTP/1.1 404 Not Found\r\nContent-Length: 3\r\n\r\nnop", false, 0, io.EOF},
		{"close-delimited, HTTP/1.0", "HTTP/1.0 200 OK\r\n\r\nall of it", false, 0, nil},
		{"close-delimited, HTTP/1.1", "HTTP/1.1 200 OK\r\nConnection: close\r\n\r\nrest", false, 0, nil},
		{"close-delimited, empty", "HTTP/1.1 200 OK\r\n\r\n", false, 0, nil},
		{"connection close with a length", "HTTP/1.1 200 OK\r\nConnection: Upgrade, CLOSE\r\nContent-Length: 2\r\n\r\nhi" + ok5, false, 0, nil},
		{"HTTP/1.0 with length closes", "HTTP/1.0 200 OK\r\nContent-Length: 2\r\n\r\nhi", false, 0, nil},
		{"HTTP/1.0 keep-alive is reused", "HTTP/1.0 200 OK\r\nConnection: keep-alive\r\nContent-Length: 2\r\n\r\nhi" + ok5, false, 0, io.EOF},
		{"chunked wins over a length but closes",
			"HTTP/1.1 200 OK\r\nContent-Length: 99\r\nTransfer-Encoding: chunked\r\n\r\n1\r\nx\r\n0\r\n\r\n", false, 0, nil},
		{"folded ordinary header", "HTTP/1.1 200 OK\r\nX-A: 1\r\n 2\r\nContent-Length: 0\r\n\r\n", false, 0, io.EOF},
		{"body of exactly max_body", ok5, false, 5, io.EOF},
		{"body larger than the buffer", "HTTP/1.1 200 OK\r\nContent-Length: " + fmt.Sprint(len(big)) + "\r\n\r\n" + big + ok5, false, 0, io.EOF},
		{"chunk and trailer larger than the buffer", "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n" +
			fmt.Sprintf("%x", len(big)) + "\r\n" + big + "\r\n0\r\nX-Long: " + strings.Repeat("t", 2*http1BufSize) + "\r\n\r\n", false, 0, io.EOF},
		{"close-delimited larger than the buffer", "HTTP/1.0 200 OK\r\n\r\n" + big, false, 0, nil},
		{"headers up to the cap", "HTTP/1.1 200 OK\r\nX-Big: " + strings.Repeat("a", 40<<10) + "\r\nContent-Length: 0\r\n\r\n", false, 0, io.EOF},

		{"nothing at all", "", false, 0, io.EOF},
		{"unexpected EOF mid-header", "HTTP/1.1 200 OK\r\nContent-Len", false, 0, io.ErrUnexpectedEOF},
		{"unexpected EOF mid-status line", "HTTP/1.1 20", false, 0, io.ErrUnexpectedEOF},
		{"unexpected EOF mid-body", "HTTP/1.1 200 OK\r\nContent-Length: 10\r\n\r\nhello", false, 0, io.ErrUnexpectedEOF},
		{"unexpected EOF mid-chunk", "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhel", false, 0, io.ErrUnexpectedEOF},
		{"unexpected EOF before a chunk's CRLF", "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhello\r", false, 0, io.ErrUnexpectedEOF},
		{"unexpected EOF mid-trailers", "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n0\r\nX: 1\r\n", false, 0, io.ErrUnexpectedEOF},
		{"unexpected EOF after an interim response", "HTTP/1.1 100 Continue\r\n\r\n", false, 0, io.ErrUnexpectedEOF},
		{"unexpected EOF in the second response", ok5 + "HTTP/1.1 200", false, 0, io.ErrUnexpectedEOF},

		{"bad status line", "HTTP/1.1 20 OK\r\n\r\n", false, 0, errStatusLine},
		{"bad status line, unfinished", "HTTP/1.x", false, 0, errStatusLine},
		{"status below 100", "HTTP/1.1 099 Odd\r\n\r\n", false, 0, errStatusLine},
		{"not HTTP", "NOT HTTP AT ALL\r\n\r\n", false, 0, errNotHTTP},
		{"binary bytes", "\x16\x03\x01\x00\xa5\x01", false, 0, errNotHTTP},
		{"space in an unfinished header name", "HTTP/1.1 200 OK\r\nBad Na", false, 0, errHeaderLine},
		{"header without colon", "HTTP/1.1 200 OK\r\nBroken\r\n\r\n", false, 0, errHeaderLine},
		{"folded Content-Length", "HTTP/1.1 200 OK\r\nContent-Length: 1\r\n 2\r\n\r\nx", false, 0, errHeaderLine},
		// Screening finds the bad name first, but the complete block fails
		// at its first bad line; a block that never completes, at the name.
		{"bad length before a bad name", "HTTP/1.1 200 OK\r\nContent-Length: x\r\nBad Name: 1\r\n\r\n", false, 0, errContentLength},
		{"bad length before a bad name, unfinished", "HTTP/1.1 200 OK\r\nContent-Length: x\r\nBad Na", false, 0, errHeaderLine},
		{"bad transfer coding before a bad name", "HTTP/1.1 200 OK\r\nTransfer-Encoding: gzip\r\nBad Name: 1\r\n\r\n", false, 0, errTransferEncoding},
		{"conflicting lengths", "HTTP/1.1 200 OK\r\nContent-Length: 1\r\nContent-Length: 2\r\n\r\nx", false, 0, errContentLength},
		{"bad chunk size", "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n", false, 0, errChunk},
		{"bad chunk size, unfinished", "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n5x", false, 0, errChunk},
		{"chunk data not followed by CRLF", "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n2\r\nabx\n0\r\n\r\n", false, 0, errChunk},
		{"chunk data not followed by CR, unfinished", "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n2\r\nabx", false, 0, errChunk},
		{"chunk data longer than its size", "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n2\r\nabc\r\n0\r\n\r\n", false, 0, errChunk},
		{"chunk line too long", "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n1;" + strings.Repeat("x", 5000), false, 0, errLineTooLong},
		{"bad trailer", "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n0\r\nnot a trailer\r\n\r\n", false, 0, errHeaderLine},
		{"trailer line too large", "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n0\r\nX-T: " + strings.Repeat("t", 70<<10) + "\r\n\r\n",
			false, 0, errHeadersTooLarge},
		{"trailers too large", "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n0\r\nX-T: " + strings.Repeat("t", 40<<10) +
			"\r\nX-U: " + strings.Repeat("u", 40<<10) + "\r\n", false, 0, errHeadersTooLarge},
		{"too large header", "HTTP/1.1 200 OK\r\nX-Big: " + strings.Repeat("a", 70<<10) + "\r\n\r\n", false, 0, errHeadersTooLarge},
		{"too large header after an interim response", "HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 200 OK\r\nX-Big: " +
			strings.Repeat("a", 66<<10), false, 0, errHeadersTooLarge},
		{"declared length above max_body", ok5, false, 4, errBodyTooLarge},
		{"chunks above max_body", chunked, false, 8, errBodyTooLarge},
		{"close-delimited body of exactly max_body", "HTTP/1.0 200 OK\r\n\r\n" + strings.Repeat("z", 50), false, 50, nil},
		{"close-delimited body a byte above max_body", "HTTP/1.0 200 OK\r\n\r\n" + strings.Repeat("z", 51), false, 50, errBodyTooLarge},
		{"close-delimited body above max_body", "HTTP/1.0 200 OK\r\n\r\n" + strings.Repeat("z", 100), false, 50, errBodyTooLarge},
		{"101 was never asked for", "HTTP/1.1 101 Switching Protocols\r\nUpgrade: x\r\n\r\n", false, 0, errSwitching},
		{"as many interim responses as allowed", strings.Repeat("HTTP/1.1 100 Continue\r\n\r\n", http1MaxInterim) + ok5, false, 0, io.EOF},
		{"too many interim responses", strings.Repeat("HTTP/1.1 100 Continue\r\n\r\n", http1MaxInterim+1) + ok5, false, 0, errTooManyInterim},
	}
}

// pullAll parses a stream with respReader as a kept-alive connection
// would, until a response fails, closes the connection, or the stream ends.
func pullAll(data []byte, head bool, maxBody int64) []parsed {
	rd := newRespReader(maxBody, nil)
	rd.reset(bytes.NewReader(data))
	var out []parsed
	for range len(data) + 1 {
		var resp response
		err := rd.read(head, &resp)
		out = append(out, parsedOf(resp, err))
		if err != nil || resp.close {
			break
		}
	}
	return out
}

// pushAll parses a stream with a pushParser, fed in pieces of the sizes
// given (the rest in one piece) as an event loop would: bytes not consumed
// stay at the front of its buffer and the next piece is appended.
func pushAll(data []byte, head bool, maxBody int64, pieces []int) ([]parsed, error) {
	var p pushParser
	p.reset(head, maxBody)
	var out []parsed
	var pending []byte
	consumed := 0 // by the response being parsed
	for off := 0; ; {
		if len(pieces) > 0 {
			k := min(pieces[0], len(data)-off)
			pending, off, pieces = append(pending, data[off:off+k]...), off+k, pieces[1:]
		} else {
			pending, off = append(pending, data[off:]...), len(data)
		}
		for {
			n, done, err := p.feed(pending)
			if n < 0 || n > len(pending) {
				return out, fmt.Errorf("feed consumed %d of %d bytes", n, len(pending))
			}
			pending, consumed = pending[n:], consumed+n
			if err != nil {
				return append(out, parsedOf(p.result(), err)), nil
			}
			if !done {
				break
			}
			r := p.result()
			if int64(consumed) != r.wire {
				return out, fmt.Errorf("response %d: consumed %d bytes, wire %d", len(out), consumed, r.wire)
			}
			if out = append(out, parsedOf(r, nil)); r.close {
				return out, nil
			}
			p.reset(head, maxBody)
			consumed = 0
		}
		if off == len(data) {
			break
		}
	}
	if done, err := p.eof(); done {
		out = append(out, parsedOf(p.result(), nil))
	} else {
		out = append(out, parsedOf(p.result(), err))
	}
	return out, nil
}

// parsedOf is a response or, after an error, what of it does not depend
// on how the bytes came: how much of a close-delimited body arrived before
// it grew too large does.
func parsedOf(r response, err error) parsed {
	if err != nil {
		r.bodyLen = 0
	}
	return parsed{status: r.status, bodyLen: r.bodyLen, wire: r.wire, close: r.close, err: err}
}

// agree compares the push parser's results with respReader's. A failed
// response's wire counts the bytes handed in before the failure: all of
// them when the whole stream came at once, no more otherwise.
func agree(got, want []parsed, whole bool) error {
	if len(got) != len(want) {
		return fmt.Errorf("%d results, want %d", len(got), len(want))
	}
	for i := range got {
		g, w := got[i], want[i]
		if g.err != w.err {
			return fmt.Errorf("result %d: error %v, want %v", i, g.err, w.err)
		}
		if g.err != nil && !whole && g.wire <= w.wire {
			g.wire = w.wire
		}
		if g != w {
			return fmt.Errorf("result %d: %+v, want %+v", i, g, w)
		}
	}
	return nil
}

// splitPoints are where an input of n bytes is cut in two: everywhere,
// but for long inputs a sample, dense near both ends, near the buffer
// sizes and near the header limit, so that the test stays quick.
func splitPoints(n int) []int {
	var out []int
	for s := 1; s < n; s++ {
		near := func(x int) bool { return s > x-40 && s < x+40 }
		if n <= 2*http1BufSize || s%97 == 0 || near(0) || near(n) || near(http1BufSize) || near(http1MaxHeader) {
			out = append(out, s)
		}
	}
	return out
}

func TestPushParserSplits(t *testing.T) {
	for _, tc := range pushCases() {
		t.Run(tc.name, func(t *testing.T) {
			maxBody := tc.maxBody
			if maxBody == 0 {
				maxBody = 1 << 20
			}
			data := []byte(tc.input)
			want := pullAll(data, tc.head, maxBody)
			if last := want[len(want)-1].err; last != tc.wantErr {
				t.Fatalf("respReader ends the stream with %v, the case says %v", last, tc.wantErr)
			}
			check := func(how string, pieces []int, whole bool) {
				t.Helper()
				got, err := pushAll(data, tc.head, maxBody, pieces)
				if err == nil {
					err = agree(got, want, whole)
				}
				if err != nil {
					t.Fatalf("%s: %v\ngot  %+v\nwant %+v", how, err, got, want)
				}
			}
			check("whole", nil, true)
			ones := make([]int, len(data))
			for i := range ones {
				ones[i] = 1
			}
			check("a byte at a time", ones, false)
			for _, s := range splitPoints(len(data)) {
				check(fmt.Sprintf("split at %d", s), []int{s}, false)
			}
		})
	}
}

// An error ends the response for good; a complete one stays complete
// until reset.
func TestPushParserAfterTheEnd(t *testing.T) {
	var p pushParser
	p.reset(false, 1<<20)
	ok := []byte("HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nhiHTTP")
	if n, done, err := p.feed(ok); n != len(ok)-4 || !done || err != nil {
		t.Fatalf("feed = %d, %v, %v; want %d, true, nil", n, done, err, len(ok)-4)
	}
	if n, done, err := p.feed(ok[len(ok)-4:]); n != 0 || !done || err != nil {
		t.Errorf("feed after the end = %d, %v, %v; want 0, true, nil", n, done, err)
	}
	if done, err := p.eof(); !done || err != nil {
		t.Errorf("eof after the end = %v, %v; want true, nil", done, err)
	}
	p.reset(false, 1<<20)
	if _, _, err := p.feed([]byte("SSH-2.0\r\n")); err != errNotHTTP {
		t.Fatalf("feed = %v, want %v", err, errNotHTTP)
	}
	if _, done, err := p.feed(ok); done || err != errNotHTTP {
		t.Errorf("feed after an error = %v, %v; want false, %v", done, err, errNotHTTP)
	}
	if done, err := p.eof(); done || err != errNotHTTP {
		t.Errorf("eof after an error = %v, %v; want false, %v", done, err, errNotHTTP)
	}
}

// Handed fewer bytes than it left unconsumed, the parser scans again
// rather than index past them.
func TestPushParserShorterInput(t *testing.T) {
	for _, tc := range []struct{ name, first, then string }{
		{"header", "HTTP/1.1 200 OK\r\nX-Long-Name: 1234567890", "HTTP/1.1 204 No\r\n\r\n"},
		{"chunk-size line", "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n5;name=value", "0\r\n\r\n"},
		{"trailer line", "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n0\r\nX-Trailer: 1", "\r\n"},
	} {
		var p pushParser
		p.reset(false, 1<<20)
		n, _, err := p.feed([]byte(tc.first))
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		if _, done, err := p.feed([]byte(tc.then)); !done || err != nil {
			t.Errorf("%s: after %d bytes consumed, feed(%q) = %v, %v; want done", tc.name, n, tc.then, done, err)
		}
	}
}

// FuzzPushParser: whatever the bytes and however they are cut, the push
// parser agrees with respReader reading the whole stream. Inputs are kept
// within respReader's first read (http1BufSize): beyond it respReader's
// choice between two faults of one response, and the bytes it counts for
// a failure, depend on its read sizes. The table test covers the limits.
func FuzzPushParser(f *testing.F) {
	for _, tc := range pushCases() {
		if len(tc.input) <= http1BufSize {
			f.Add([]byte(tc.input), []byte{}, tc.head)
			f.Add([]byte(tc.input), []byte{0}, tc.head)
			f.Add([]byte(tc.input), []byte{16, 2, 0, 40}, tc.head)
		}
	}
	const maxBody = 256
	f.Fuzz(func(t *testing.T, data, splits []byte, head bool) {
		if len(data) > http1BufSize {
			t.Skip("longer than respReader's first read")
		}
		// Each byte of splits is the size of a piece, less one, in turn.
		var pieces []int
		for i := 0; len(splits) > 0 && i < len(data); i += pieces[len(pieces)-1] {
			pieces = append(pieces, int(splits[len(pieces)%len(splits)])+1)
		}
		want := pullAll(data, head, maxBody)
		for _, whole := range []bool{true, false} {
			var cut []int
			if !whole {
				cut = pieces
			}
			got, err := pushAll(data, head, maxBody, cut)
			if err == nil {
				err = agree(got, want, whole)
			}
			if err != nil {
				t.Fatalf("pieces %v: %v\ngot  %+v\nwant %+v", cut, err, got, want)
			}
		}
	})
}

// nginxPage is a typical 600-byte response of nginx serving a static file.
var nginxPage = func() string {
	const head = "HTTP/1.1 200 OK\r\nServer: nginx/1.24.0\r\nDate: Mon, 02 Mar 2026 10:00:00 GMT\r\n" +
		"Content-Type: text/html\r\nContent-Length: %d\r\nLast-Modified: Mon, 02 Mar 2026 09:00:00 GMT\r\n" +
		"Connection: keep-alive\r\nETag: \"65e2ec10-15a\"\r\nAccept-Ranges: bytes\r\n\r\n"
	n := 600 - len(fmt.Sprintf(head, 100))
	return fmt.Sprintf(head, n) + "<!DOCTYPE html>" + strings.Repeat("x", n-15)
}()

// The hot path: a response that arrives whole costs no allocation.
func TestPushParserAllocatesNothing(t *testing.T) {
	if raceEnabled {
		t.Skip("the race detector allocates on its own")
	}
	resp := []byte(nginxPage)
	var p pushParser
	for _, piece := range []int{len(resp), 100, 1} {
		// resp[off:end] is what an event loop's buffer would hold.
		run := func() {
			p.reset(false, 1<<20)
			for off, end := 0, 0; off < len(resp); {
				end = min(end+piece, len(resp))
				n, done, err := p.feed(resp[off:end])
				if err != nil || done != (end == len(resp)) {
					t.Fatalf("feed: %v, %v with %d bytes handed in", done, err, end)
				}
				off += n
			}
		}
		if n := testing.AllocsPerRun(100, run); n != 0 {
			t.Errorf("pieces of %d: %v allocations per response, want 0", piece, n)
		}
	}
}

// BenchmarkPushParser parses a typical response fed whole, next to
// respReader reading the same response from memory.
func BenchmarkPushParser(b *testing.B) {
	resp := []byte(nginxPage)
	b.Run("push", func(b *testing.B) {
		var p pushParser
		b.SetBytes(int64(len(resp)))
		b.ReportAllocs()
		for b.Loop() {
			p.reset(false, 1<<20)
			if n, done, err := p.feed(resp); n != len(resp) || !done || err != nil {
				b.Fatal(n, done, err)
			}
		}
	})
	b.Run("respReader", func(b *testing.B) {
		rd := newRespReader(1<<20, nil)
		rd.reset(&loopReader{resp: resp})
		var r response
		b.SetBytes(int64(len(resp)))
		b.ReportAllocs()
		for b.Loop() {
			if err := rd.read(false, &r); err != nil || r.wire != int64(len(resp)) {
				b.Fatal(err, r.wire)
			}
		}
	})
}
