package sut

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"
)

// cutLine is the line cappedLog writes where it cut, for caps of 8 bytes.
func cutLine(bytes, lines int) string {
	return fmt.Sprintf("[loadgate: %d bytes (%d lines) of output cut here; the log keeps the first 8 bytes and the last 8 bytes of each start]\n", bytes, lines)
}

// Bytes in, file content out, with a head and a tail of 8 bytes each:
// every input is written whole, one byte at a time and in chunks of 5, so
// that the caps fall inside a write as well as between writes.
func TestCappedLog(t *testing.T) {
	for _, tc := range []struct {
		name, in, before, want string
	}{
		{name: "within the caps: as is", in: "aaa\nbbb\n", want: "aaa\nbbb\n"},
		{name: "exactly head and tail: as is", in: "aaa\nbbb\nccc\nddd\n", want: "aaa\nbbb\nccc\nddd\n"},
		{name: "a last line without its end, within the caps", in: "aaa\nbbb\ncc", want: "aaa\nbbb\ncc"},
		{
			// Head "aaa\nbbb\n" ends on a line; the byte before the last 8
			// is a newline, so the tail is the last two lines whole.
			name: "cut between lines", in: "aaa\nbbb\nccc\nddd\neee\nfff\n",
			want: "aaa\nbbb\n" + cutLine(8, 2) + "eee\nfff\n",
		},
		{
			// The head's cap falls inside "bbbb|cccccc\n": the head keeps
			// its complete lines, the rest of that line is dropped too.
			name: "the head's cap inside a line", in: "aaa\nbbbbcccccc\nddd\neee\n",
			want: "aaa\n" + cutLine(11, 1) + "ddd\neee\n",
		},
		{
			// The last 8 bytes begin inside "ddddd\n": the tail keeps the
			// line that starts within it, "eee\n".
			name: "the tail's cap inside a line", in: "aaa\nbbb\nccc\nddddd\neee\n",
			want: "aaa\nbbb\n" + cutLine(10, 2) + "eee\n",
		},
		{
			// No newline within the head: it is cut inside its line, and
			// the cut line starts a line of its own.
			name: "one line longer than the head", in: "0123456789abcdef\nxx\nyyy\nzzz\n",
			want: "01234567\n" + cutLine(12, 2) + "yyy\nzzz\n",
		},
		{
			// The only newline of the last 8 bytes ends them: the tail is
			// cut inside its line rather than left empty.
			name: "one line longer than the tail", in: "aaa\nbbb\nccc\n0123456789abcdef\n",
			want: "aaa\nbbb\n" + cutLine(13, 1) + "9abcdef\n",
		},
		{
			name: "no newline at all", in: "0123456789abcdefghijklmnopqrstuvwxyz",
			want: "01234567\n" + cutLine(20, 0) + "stuvwxyz",
		},
		{
			// A restarted server appends: the cut is made in its own
			// output, after what the file held.
			name: "after an earlier start", before: "earlier start\n", in: "aaa\nbbb\nccc\nddd\neee\nfff\n",
			want: "earlier start\naaa\nbbb\n" + cutLine(8, 2) + "eee\nfff\n",
		},
	} {
		for _, chunk := range []int{0, 1, 5} {
			t.Run(fmt.Sprintf("%s, chunks of %d", tc.name, chunk), func(t *testing.T) {
				path := filepath.Join(t.TempDir(), "server.log")
				if err := os.WriteFile(path, []byte(tc.before), 0o600); err != nil {
					t.Fatal(err)
				}
				f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND, 0)
				if err != nil {
					t.Fatal(err)
				}
				defer f.Close()
				c, err := newCappedLog(f, 8, 8)
				if err != nil {
					t.Fatal(err)
				}
				for _, p := range chunks(tc.in, chunk) {
					if n, err := c.Write([]byte(p)); n != len(p) || err != nil {
						t.Fatalf("Write(%q) = %d, %v; want all of it taken", p, n, err)
					}
				}
				if err := c.Close(); err != nil {
					t.Fatal(err)
				}
				got, err := os.ReadFile(path)
				if err != nil {
					t.Fatal(err)
				}
				if string(got) != tc.want {
					t.Errorf("log file\n%q\nwant\n%q", got, tc.want)
				}
			})
		}
	}
}

// chunks splits s into pieces of n bytes; 0 = one piece.
func chunks(s string, n int) []string {
	if n == 0 {
		return []string{s}
	}
	var out []string
	for len(s) > n {
		out = append(out, s[:n])
		s = s[n:]
	}
	return append(out, s)
}

// A server far chattier than the caps leaves a log of the caps' size,
// with the cut line; its readiness line, printed past the head, is still
// seen, and so is its last output in the tail kept for messages.
func TestServerLogIsCapped(t *testing.T) {
	log := filepath.Join(t.TempDir(), "server.log")
	// 10 000 lines of 1000 bytes: 10 MB, above the 8 MiB of the caps.
	line := strings.Repeat("x", 999) + "\n"
	script := "yes " + line[:999] + " | head -n 10000; echo 'now listening'; sleep 60"
	s, err := startServer(context.Background(), serverSpec{
		Name: "chatty", Command: sh(script), LogPath: log,
		Ready: readiness{Log: regexp.MustCompile(`now listening`), Timeout: 30 * time.Second},
	})
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Stop(); err != nil {
		t.Errorf("stop: %v", err)
	}
	if !strings.Contains(s.Tail(), "now listening") {
		t.Errorf("the tail kept for messages misses the last line: %q", s.Tail())
	}
	data, err := os.ReadFile(log)
	if err != nil {
		t.Fatal(err)
	}
	total := 10000*len(line) + len("now listening\n")
	re := regexp.MustCompile(`\n\[loadgate: (\d+) bytes \((\d+) lines\) of output cut here; the log keeps the first 4 MiB and the last 4 MiB of each start\]\n`)
	m := re.FindSubmatchIndex(data)
	switch {
	case m == nil:
		t.Fatalf("no cut line in the %d-byte log", len(data))
	case len(data) > logHeadBytes+logTailBytes+200:
		t.Errorf("log of %d bytes, above the caps", len(data))
	case !strings.HasSuffix(string(data), line+"now listening\n"):
		t.Errorf("the log does not end with the server's last lines: …%q", data[len(data)-40:])
	}
	dropped, _ := strconv.Atoi(string(data[m[2]:m[3]]))
	lines, _ := strconv.Atoi(string(data[m[4]:m[5]]))
	if kept := len(data) - (m[1] - m[0]) + 1; kept+dropped != total || dropped != lines*len(line) {
		t.Errorf("kept %d and dropped %d bytes (%d lines) of %d: the figures do not add up", kept, dropped, lines, total)
	}
}
