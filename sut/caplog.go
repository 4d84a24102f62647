package sut

import (
	"bytes"
	"fmt"
	"io"
	"sync"
)

// The caps of a server's log file, per start of the server: its first
// logHeadBytes and its last logTailBytes of output are kept, and a line
// where the middle was cut says how much was dropped. A chatty server
// (a debug log at 70 MB/s) would otherwise fill the disk of a CI runner
// during a long run; what explains a failure is at the start (the
// configuration, the first errors) and at the end (the last errors, the
// shutdown).
const (
	logHeadBytes = 4 << 20
	logTailBytes = 4 << 20
)

// logFile is what cappedLog writes to: an *os.File, at the end of what it
// held when the server started.
type logFile interface {
	io.Writer
	io.Seeker
	Truncate(size int64) error
}

// cappedLog writes a server's output to its log file, keeping the first
// head and the last tail bytes. Output goes to the file as it comes until
// head+tail bytes are there, so a log that stays within the caps is
// written live and complete. Past head, the last tail+1 bytes are also
// kept in memory; when the output outgrew the caps, Close cuts the file
// after the head and writes the cut line and that tail. Both cuts fall
// between lines: the head ends after its last complete line, the tail
// begins with the first line that starts within it; only a single line
// longer than a cap is cut inside.
type cappedLog struct {
	mu         sync.Mutex
	f          logFile
	head, tail int64
	base       int64 // the file's size when this output began
	n          int64 // bytes of output so far
	headCut    int64 // the head's end: after its last newline; 0 = none yet
	nlPastHead int64 // newlines at offsets ≥ head
	ring       []byte
	oldest     int // ring's oldest byte, once ring is full
}

// newCappedLog writes output to f, after what f holds, keeping its first
// head and last tail bytes.
func newCappedLog(f logFile, head, tail int64) (*cappedLog, error) {
	base, err := f.Seek(0, io.SeekEnd)
	if err != nil {
		return nil, err
	}
	return &cappedLog{f: f, head: head, tail: tail, base: base}, nil
}

// Write takes all of p: what is beyond the caps is counted, not written.
func (c *cappedLog) Write(p []byte) (int, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.n < c.head {
		k := min(int64(len(p)), c.head-c.n)
		if i := bytes.LastIndexByte(p[:k], '\n'); i >= 0 {
			c.headCut = c.n + int64(i) + 1
		}
	}
	if past := p[max(0, min(int64(len(p)), c.head-c.n)):]; len(past) > 0 {
		c.nlPastHead += int64(bytes.Count(past, []byte{'\n'}))
		c.keep(past)
	}
	if room := c.head + c.tail - c.n; room > 0 {
		if _, err := c.f.Write(p[:min(int64(len(p)), room)]); err != nil {
			return 0, err
		}
	}
	c.n += int64(len(p))
	return len(p), nil
}

// keep adds b to the ring of the last tail+1 bytes: one more than the
// tail, to tell whether the tail begins a line.
func (c *cappedLog) keep(b []byte) {
	size := int(c.tail) + 1
	if len(b) > size {
		b = b[len(b)-size:]
	}
	if room := size - len(c.ring); room > 0 {
		k := min(room, len(b))
		c.ring = append(c.ring, b[:k]...)
		b = b[k:]
	}
	for len(b) > 0 {
		k := copy(c.ring[c.oldest:], b)
		b = b[k:]
		c.oldest = (c.oldest + k) % size
	}
}

// Close ends the log: when the output outgrew the caps, the file is cut
// after the head and ends with the cut line and the tail. It does not
// close the file.
func (c *cappedLog) Close() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.n <= c.head+c.tail {
		return nil
	}
	window := append(c.ring[c.oldest:len(c.ring):len(c.ring)], c.ring[:c.oldest]...)
	kept := window[1:]
	if window[0] != '\n' {
		// The tail begins inside a line: it keeps the lines that start
		// within it, unless one line fills it.
		if i := bytes.IndexByte(kept, '\n'); i >= 0 && i+1 < len(kept) {
			kept = kept[i+1:]
		}
	}
	headCut, midLine := c.headCut, ""
	if headCut == 0 {
		headCut, midLine = c.head, "\n" // one line longer than the head
	}
	dropped := c.n - headCut - int64(len(kept))
	lines := c.nlPastHead - int64(bytes.Count(kept, []byte{'\n'}))
	if err := c.f.Truncate(c.base + headCut); err != nil {
		return err
	}
	if _, err := c.f.Seek(c.base+headCut, io.SeekStart); err != nil {
		return err
	}
	cut := fmt.Sprintf("%s[loadgate: %d bytes (%d lines) of output cut here; the log keeps the first %s and the last %s of each start]\n",
		midLine, dropped, lines, sizeText(c.head), sizeText(c.tail))
	if _, err := io.WriteString(c.f, cut); err != nil {
		return err
	}
	_, err := c.f.Write(kept)
	return err
}

// sizeText writes a cap in MiB when it is whole MiB, else in bytes.
func sizeText(n int64) string {
	if n >= 1<<20 && n%(1<<20) == 0 {
		return fmt.Sprintf("%d MiB", n>>20)
	}
	return fmt.Sprintf("%d bytes", n)
}
