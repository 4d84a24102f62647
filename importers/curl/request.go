package curl

import (
	"fmt"
	"strconv"
	"strings"
	"time"
)

// dataKind is which of curl's data options gave a piece of the body.
type dataKind int

const (
	dataASCII     dataKind = iota // -d, --data, --data-ascii: @FILE read with line breaks dropped
	dataBinary                    // --data-binary: @FILE read as is
	dataRaw                       // --data-raw: no @FILE
	dataURLEncode                 // --data-urlencode
	dataJSON                      // --json: pieces joined without &
)

type dataPart struct {
	kind dataKind
	w    Word
	file string // for @FILE, the file's name as written
}

// header is one request header; its value may hold shell variables.
type header struct {
	name  string
	value Word
	// implied: added by an option other than -H (-A, -e, -b, -u,
	// --json, --compressed, -d), so a -H of the same name wins, as in curl.
	implied bool
}

// request is what one curl command sends, as its options said it.
type request struct {
	pos       Pos // of the word curl
	method    string
	methodPos Pos
	urlWord   Word
	url       string // set once a URL was seen
	headers   []header
	data      []dataPart
	user      *Word // -u USER:PASSWORD
	bearer    *Word // --oauth2-bearer TOKEN
	timeout   time.Duration
	ignored   []string // long names of the options that were ignored

	insecure, http2, priorKnowledge, compressed, get, head bool
}

func (r *request) setMethod(w Word) error {
	if !isToken(w.Text) {
		return errorAt(w.Pos, "-X %q is not an HTTP method", w.Text)
	}
	r.method, r.methodPos = strings.ToUpper(w.Text), w.Pos
	return nil
}

func (r *request) setURL(w Word) error {
	if r.url != "" {
		return errorAt(w.Pos, "a second URL in one curl command: give each request its own curl command")
	}
	if w.Text == "" {
		return errorAt(w.Pos, "an empty URL")
	}
	r.urlWord, r.url = w, w.Text
	return nil
}

// addHeader reads -H 'Name: value'. 'Name:' removes a header curl would
// add, which the scenario does not add either; 'Name;' sends it empty.
func (r *request) addHeader(w Word) error {
	if strings.HasPrefix(w.Text, "@") {
		return errorAt(w.Pos, "-H @FILE: headers from a file are not read; give each as -H 'Name: value'")
	}
	i := strings.IndexAny(w.Text, ":;")
	if i < 0 {
		return errorAt(w.Pos, "-H %q: want 'Name: value'", w.Text)
	}
	name := strings.TrimSpace(w.Text[:i])
	if !isToken(name) || strings.Contains(name, "$") {
		return errorAt(w.Pos, "-H: %q is not a valid header name", name)
	}
	value := trimWord(slice(w, i+1, len(w.Text)))
	if w.Text[i] == ';' {
		if value.Text != "" {
			return errorAt(w.Pos, "-H %q: want 'Name: value' ('Name;' sends the header empty)", w.Text)
		}
	} else if value.Text == "" {
		return nil
	}
	if err := headerValueOK(name, value); err != nil {
		return err
	}
	r.headers = append(r.headers, header{name: name, value: value})
	return nil
}

// addImplied adds a header that an option other than -H stands for.
func (r *request) addImplied(name string, w Word) error {
	if err := headerValueOK(name, w); err != nil {
		return err
	}
	r.headers = append(r.headers, header{name: name, value: w, implied: true})
	return nil
}

func headerValueOK(name string, v Word) error {
	if i := strings.IndexAny(v.Text, "\r\n\x00"); i >= 0 {
		return errorAt(v.Pos, "header %s: a value cannot hold a line break or NUL (character %d of it)", name, i+1)
	}
	return nil
}

// setReferer reads -e URL, without curl's ";auto" (follow redirects with
// a Referer), which a request that follows no redirect does not need.
func (r *request) setReferer(w Word) error {
	if t, ok := strings.CutSuffix(w.Text, ";auto"); ok {
		w = slice(w, 0, len(t))
	}
	if w.Text == "" {
		return nil
	}
	return r.addImplied("Referer", w)
}

// setCookie reads -b: "name=value; …" is a Cookie header; anything else is
// curl's cookie file, which is not read.
func (r *request) setCookie(w Word) error {
	if !strings.Contains(w.Text, "=") {
		return errorAt(w.Pos, "-b %q is a cookie file, which is not read; give the cookies as -b 'name=value; name2=value2'", w.Text)
	}
	return r.addImplied("Cookie", w)
}

func (r *request) setUser(w Word) error {
	if !strings.Contains(w.Text, ":") {
		return errorAt(w.Pos, "-u without a password (curl would ask for it): write -u USER:PASSWORD")
	}
	if err := headerValueOK("Authorization", w); err != nil {
		return err
	}
	r.user = &w
	return nil
}

func (r *request) setBearer(w Word) error {
	if err := headerValueOK("Authorization", w); err != nil {
		return err
	}
	r.bearer = &w
	return nil
}

// setMaxTime reads -m SECONDS (a decimal number) as the target's timeout.
func (r *request) setMaxTime(w Word) error {
	f, err := strconv.ParseFloat(w.Text, 64)
	if err != nil || f <= 0 || f > 24*3600 {
		return errorAt(w.Pos, "-m %q: want a number of seconds above 0", w.Text)
	}
	d := time.Duration(f * float64(time.Second)).Round(time.Millisecond)
	if d <= 0 {
		d = time.Millisecond
	}
	r.timeout = max(r.timeout, d)
	return nil
}

func (r *request) addData(w Word, kind dataKind) error {
	part := dataPart{kind: kind, w: w}
	switch {
	case kind == dataURLEncode:
		enc, err := urlencodeData(w)
		if err != nil {
			return err
		}
		part.w = enc
	case kind != dataRaw && strings.HasPrefix(w.Text, "@"):
		if err := noRefs(w, "@FILE"); err != nil {
			return err
		}
		part.file = w.Text[1:]
		if part.file == "-" || part.file == "" {
			return errorAt(w.Pos, "%s: a body from standard input is not read; save it to a file and give @FILE", w.Text)
		}
	}
	r.data = append(r.data, part)
	return nil
}

// urlencodeData encodes a --data-urlencode value as curl does: "content",
// "=content" and "name=content" encode the content; the @FILE forms are
// refused.
func urlencodeData(w Word) (Word, error) {
	eq := strings.IndexByte(w.Text, '=')
	at := strings.IndexByte(w.Text, '@')
	if at >= 0 && (eq < 0 || at < eq) {
		return Word{}, errorAt(w.Pos, "--data-urlencode %q reads a file, which is not supported; encode it and give --data-binary @FILE", w.Text)
	}
	if err := noRefs(w, "--data-urlencode"); err != nil {
		return Word{}, err
	}
	name, content := "", w.Text
	if eq >= 0 {
		name, content = w.Text[:eq], w.Text[eq+1:]
		if name != "" {
			name += "="
		}
	}
	return Word{Text: name + percentEncode(content), Pos: w.Pos}, nil
}

// percentEncode keeps RFC 3986's unreserved characters and escapes every
// other byte, as curl_easy_escape does (a space is %20, not +).
func percentEncode(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		c := s[i]
		if isNameChar(c) && c != '_' || strings.IndexByte("-._~", c) >= 0 {
			b.WriteByte(c)
			continue
		}
		fmt.Fprintf(&b, "%%%02X", c)
	}
	return b.String()
}

// slice is the part [from, to) of w's text as a word, with the shell
// variables that lie wholly inside it. Callers cut only outside them.
func slice(w Word, from, to int) Word {
	out := Word{Text: w.Text[from:to], Pos: w.at(from), plain: w.plain}
	for _, ref := range w.Refs {
		if ref.Off >= from && ref.End <= to {
			ref.Off -= from
			ref.End -= from
			out.Refs = append(out.Refs, ref)
		}
	}
	return out
}

// trimWord drops blanks at both ends of w.
func trimWord(w Word) Word {
	start := len(w.Text) - len(strings.TrimLeft(w.Text, " \t"))
	end := len(strings.TrimRight(w.Text, " \t"))
	if end < start {
		end = start
	}
	return slice(w, start, end)
}

// isToken reports whether s is an HTTP token (RFC 9110 §5.6.2), the
// syntax of methods and header names.
func isToken(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !isNameChar(c) && strings.IndexByte("!#$%&'*+-.^_`|~", c) < 0 {
			return false
		}
	}
	return true
}
