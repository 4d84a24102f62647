package curl

import (
	"encoding/base64"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/loadgate/loadgate/importers/emit"
)

// maxBodyFile is the largest body_file a scenario reads.
const maxBodyFile = 64 << 20

// built is a request as the scenario sends it.
type built struct {
	r        *request
	method   string
	u        *url.URL // the URL, checked, with x standing for each variable
	full     Word     // the URL without credentials or fragment
	authEnd  int      // byte offset in full.Text where the path begins
	headers  []header
	body     *Word
	bodyFile string // relative to the scenario's directory, with slashes
	notes    []string
}

// finish turns what a curl command said into what it sends.
func finish(r *request, opts Options) (*built, error) {
	b := &built{r: r}
	if err := b.target(); err != nil {
		return nil, err
	}
	if err := b.payload(opts); err != nil {
		return nil, err
	}
	b.method = r.method
	switch {
	case b.method != "":
	case r.head:
		b.method = "HEAD"
	case b.body != nil || b.bodyFile != "":
		b.method = "POST"
	default:
		b.method = "GET"
	}
	b.headerList()
	return b, b.checkRefs()
}

// words are the values of b that may hold variables.
func (b *built) words() []Word {
	words := []Word{b.full}
	for _, h := range b.headers {
		words = append(words, h.value)
	}
	if b.body != nil {
		words = append(words, *b.body)
	}
	return words
}

// checkRefs refuses shell variables named like the scenario's own.
func (b *built) checkRefs() error {
	for _, w := range b.words() {
		for _, ref := range w.Refs {
			if ref.secret == nil && slices.Contains(emit.ReservedVars, ref.Name) {
				return errorAt(ref.Pos, "the shell variable $%s has the name of one of the scenario's own variables; rename it", ref.Name)
			}
		}
	}
	return nil
}

// target checks the URL as loadgate will: an absolute http:// or https://
// URL with a host and a valid port. Shell variables may stand in its path
// and query only, where an empty value still leaves a URL.
func (b *built) target() error {
	w := b.r.urlWord
	if !strings.Contains(w.Text, "://") {
		w = join(lit("http://"), w)
		b.notes = append(b.notes, "the URL has no scheme: http:// assumed, as curl does")
	}
	sep := strings.Index(w.Text, "://") + 3
	authEnd := len(w.Text)
	if i := strings.IndexAny(w.Text[sep:], "/?#"); i >= 0 {
		authEnd = sep + i
	}
	for _, ref := range w.Refs {
		if ref.Off < authEnd {
			return errorAt(ref.Pos, "the shell variable %s in the URL's scheme or host cannot be kept; replace it by its value", w.Text[ref.Off:ref.End])
		}
	}
	if i := strings.IndexAny(w.Text[authEnd:], "[]{}"); i >= 0 && !slices.Contains(b.r.ignored, "globoff") {
		return errorAt(w.at(authEnd+i), "curl expands [..] and {..} in a URL into several; give each URL, or -g to send them as they are")
	}
	u, err := url.Parse(withoutRefs(w))
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") {
		return errorAt(w.Pos, "%q is not an http:// or https:// URL", w.Text)
	}
	if u.Hostname() == "" {
		return errorAt(w.Pos, "the URL %q has no host", w.Text)
	}
	if port := u.Port(); port != "" || strings.HasSuffix(u.Host, ":") {
		if p, err := strconv.ParseUint(port, 10, 16); err != nil || p == 0 {
			return errorAt(w.Pos, "the URL's port %q is not a number from 1 to 65535", port)
		}
	}
	if u.User != nil {
		at := strings.LastIndexByte(w.Text[:authEnd], '@')
		if b.r.user == nil {
			pass, _ := u.User.Password()
			user := Word{Text: u.User.Username() + ":" + pass, Pos: w.Pos}
			b.r.user = &user
		}
		w = join(slice(w, 0, sep), slice(w, at+1, len(w.Text)))
		authEnd -= at + 1 - sep
		b.notes = append(b.notes, "the credentials in the URL are sent as basic authentication, from a secret variable")
	}
	if i := strings.IndexByte(w.Text[authEnd:], '#'); i >= 0 {
		w = slice(w, 0, authEnd+i) // curl does not send the fragment either
		u.Fragment, u.RawFragment = "", ""
	}
	b.full, b.authEnd, b.u = w, authEnd, u
	return nil
}

// payload joins the data options into the body, or, with -G, into the
// query, as curl does.
func (b *built) payload(opts Options) error {
	parts := b.r.data
	if len(parts) == 0 {
		return nil
	}
	json := slices.ContainsFunc(parts, func(p dataPart) bool { return p.kind == dataJSON })
	if json && slices.ContainsFunc(parts, func(p dataPart) bool { return p.kind != dataJSON }) {
		return errorAt(parts[0].w.Pos, "--json together with -d: give the body with one of them")
	}
	if i := slices.IndexFunc(parts, func(p dataPart) bool { return p.file != "" }); i >= 0 {
		if len(parts) > 1 || b.r.get {
			return errorAt(parts[i].w.Pos, "a body from @FILE together with other data (or -G): the scenario sends a file as it is, alone")
		}
		return b.fromFile(parts[0], opts)
	}
	sep := "&"
	if json {
		sep = ""
	}
	body := parts[0].w
	for _, p := range parts[1:] {
		body = join(body, lit(sep), p.w)
	}
	if b.r.get {
		if strings.ContainsAny(body.Text, "#\r\n\x00 ") {
			return errorAt(parts[0].w.Pos, "-G: the data cannot go into the URL as written; percent-encode it (--data-urlencode)")
		}
		q := "?"
		if strings.Contains(b.full.Text[b.authEnd:], "?") {
			q = "&"
		}
		b.full = join(b.full, lit(q), body)
		b.notes = append(b.notes, "-G: the data is sent in the query, as curl does")
		u, err := url.Parse(withoutRefs(b.full))
		if err != nil {
			return errorAt(parts[0].w.Pos, "-G: the URL with the data in its query is not a URL: %v", err)
		}
		b.u = u
		return nil
	}
	b.body = &body
	return nil
}

// fromFile makes the body a body_file, checked as loadgate will check it.
func (b *built) fromFile(p dataPart, opts Options) error {
	name := p.file
	abs := name
	if !filepath.IsAbs(abs) {
		abs = filepath.Join(opts.Dir, name)
	}
	fi, err := os.Stat(abs)
	switch {
	case err != nil:
		return errorAt(p.w.Pos, "@%s: %v (a file is read relative to the directory the import runs in)", name, err)
	case !fi.Mode().IsRegular():
		return errorAt(p.w.Pos, "@%s: not a regular file", name)
	case fi.Size() > maxBodyFile:
		return errorAt(p.w.Pos, "@%s: larger than the %d MiB a body_file may be", name, maxBodyFile>>20)
	}
	rel := abs
	if a, err := filepath.Abs(abs); err == nil {
		rel = a
		if out, err := filepath.Abs(opts.OutDir); err == nil {
			if r, err := filepath.Rel(out, a); err == nil {
				rel = r
			}
		}
	}
	b.bodyFile = filepath.ToSlash(rel)
	if p.kind == dataASCII {
		b.notes = append(b.notes, "-d @FILE: curl drops the file's line breaks; body_file sends the file as it is (like --data-binary)")
	}
	return nil
}

// headerList puts together the headers sent: every -H in order (one entry
// per name, repeated ones joined), then those other options stand for,
// unless a -H of the same name replaced them, as in curl.
func (b *built) headerList() {
	r := b.r
	var out []header
	add := func(h header) {
		i := slices.IndexFunc(out, func(o header) bool { return strings.EqualFold(o.name, h.name) })
		switch {
		case i < 0:
			out = append(out, h)
		case h.implied && !strings.EqualFold(h.name, "Cookie"):
			// a -H replaces what an option would add
		default:
			sep := ", "
			if strings.EqualFold(h.name, "Cookie") {
				sep = "; "
			}
			out[i].value = join(out[i].value, lit(sep), h.value)
			if !h.implied {
				b.notes = append(b.notes, "-H "+h.name+" is given more than once: the values are joined into one header")
			}
		}
	}
	for _, h := range r.headers {
		if !h.implied {
			add(h)
		}
	}
	for _, h := range r.headers {
		if h.implied {
			add(h)
		}
	}
	switch {
	case r.get || len(r.data) == 0:
	case r.data[0].kind == dataJSON:
		add(header{name: "Content-Type", value: lit("application/json"), implied: true})
		add(header{name: "Accept", value: lit("application/json"), implied: true})
	default:
		add(header{name: "Content-Type", value: lit("application/x-www-form-urlencoded"), implied: true})
	}
	if r.user != nil {
		add(header{name: "Authorization", value: basicAuth(*r.user), implied: true})
	} else if r.bearer != nil {
		add(header{name: "Authorization", value: join(lit("Bearer "), *r.bearer), implied: true})
	}
	if r.compressed {
		add(header{name: "Accept-Encoding", value: lit("gzip, deflate, br"), implied: true})
		b.notes = append(b.notes, "--compressed: responses are measured as received; loadgate never decompresses them")
	}
	b.headers = b.dropped(out)
}

// dropped leaves out the headers loadgate writes itself.
func (b *built) dropped(hs []header) []header {
	return slices.DeleteFunc(hs, func(h header) bool {
		if strings.EqualFold(h.name, "Content-Length") {
			b.notes = append(b.notes, "Content-Length left out: loadgate sets it from the body")
			return true
		}
		return false
	})
}

// basicAuth is the value of -u USER:PASSWORD's Authorization header, with
// the credentials as a secret variable: base64 cannot be applied when the
// scenario runs, so the variable holds the encoded pair.
func basicAuth(user Word) Word {
	name, _, _ := strings.Cut(user.Text, ":")
	span := &secretSpan{hint: "basic_auth", key: "basic " + base64.StdEncoding.EncodeToString([]byte(user.Text)),
		what: "the user and password of the curl command (base64 of USER:PASSWORD)"}
	switch {
	case len(user.Refs) > 0:
		span.key = "basic " + user.Text
		span.howTo = `--secret-var NAME="$(printf %s "` + user.Text + `" | base64)"`
	case shellSafe(name):
		span.howTo = `--secret-var NAME="$(printf %s '` + name + `:PASSWORD' | base64)"`
	default:
		span.howTo = `--secret-var NAME="$(printf %s 'USER:PASSWORD' | base64)"`
	}
	return Word{Text: "Basic " + "*", Refs: []Ref{{Off: 6, End: 7, Pos: user.Pos, secret: span}}}
}

// shellSafe: s can be shown in single quotes in a comment as it is.
func shellSafe(s string) bool {
	return s != "" && utf8.ValidString(s) && !strings.ContainsFunc(s, func(r rune) bool {
		return !unicode.IsPrint(r) || r == '\'' || r == '\\' || r == '"' || r == '$' || r == '`'
	})
}

// lit is a word of literal text.
func lit(s string) Word { return Word{Text: s} }

// join concatenates words, keeping their variables; the result is at the
// first word that has a place.
func join(ws ...Word) Word {
	var out Word
	for _, w := range ws {
		if out.Pos.Line == 0 {
			out.Pos = w.Pos
		}
		for _, ref := range w.Refs {
			ref.Off += len(out.Text)
			ref.End += len(out.Text)
			out.Refs = append(out.Refs, ref)
		}
		out.Text += w.Text
	}
	return out
}

// withoutRefs is w's text with x standing for every variable, to check
// the rest as a URL.
func withoutRefs(w Word) string {
	var b strings.Builder
	last := 0
	for _, ref := range w.Refs {
		b.WriteString(w.Text[last:ref.Off])
		b.WriteString("x")
		last = ref.End
	}
	b.WriteString(w.Text[last:])
	return b.String()
}
