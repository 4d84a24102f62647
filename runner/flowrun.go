package runner

import (
	"bytes"
	"context"
	"errors"
	"io"
	"net/http"
	"net/url"
	"time"
	"unsafe"

	"github.com/tidwall/gjson"

	"github.com/loadgate/loadgate/scenarios"
)

// iterator is a client that runs whole iterations of a flow instead of
// single requests. The engine gives it the run's data feeds once, then
// calls iterate for every iteration, and records what it reports.
type iterator interface {
	Client
	bind(f feeds)
	// iterate runs setup if the user needs it, then one iteration, due at
	// due. It reports every step to sink as the step ends.
	iterate(ctx context.Context, due time.Time, sink stepSink) iterOutcome
}

// stepSink is the engine's side of an iteration: its clock, its pauses,
// and the recorder of steps.
type stepSink interface {
	now() time.Time
	// sleep pauses for d; false when ctx ended first.
	sleep(ctx context.Context, d time.Duration) bool
	// step records step i of Flow.Steps, which took latency and ended as
	// out says; i < 0 is a failed setup step, recorded without latency.
	// It returns false when the step was cut short by the phase's end, so
	// the iteration is abandoned, uncounted.
	step(ctx context.Context, i int, name string, latency time.Duration, out *Outcome) bool
}

// iterOutcome is how an iteration ended.
type iterOutcome struct {
	Kind      ErrorKind     // KindNone: every step succeeded
	Latency   time.Duration // from due to the end of the last step, setup and think times excluded
	Exhausted bool          // a data source had no row left: the user stops
	Cut       bool          // cut short by the phase's end: not an iteration
}

var _ iterator = (*flowClient)(nil)

// iterate runs one iteration of the flow.
func (c *flowClient) iterate(ctx context.Context, due time.Time, sink stepSink) iterOutcome {
	var skipped time.Duration // setup and think times, which no latency includes
	if !c.setUp {
		start := sink.now()
		if r, ok := c.runSetup(ctx, sink); !ok {
			return r
		}
		skipped = sink.now().Sub(start)
	}
	for _, src := range c.flow.StepData {
		if !c.drawRow(src) {
			return iterOutcome{Exhausted: true}
		}
	}
	c.env.next()
	start := due.Add(skipped)
	var end time.Time
	last := len(c.steps) - 1
	for i := range c.steps {
		s := &c.steps[i]
		if i > 0 {
			start = sink.now()
		}
		c.send(ctx, s, &c.out)
		end = sink.now()
		if !sink.step(ctx, i, s.name, end.Sub(start), &c.out) {
			return iterOutcome{Cut: true}
		}
		if c.out.Kind != KindNone {
			return iterOutcome{Kind: c.out.Kind}
		}
		if s.think <= 0 {
			continue
		}
		if i == last {
			// The pause after the last step ends the iteration's turn,
			// not the iteration.
			sink.sleep(ctx, s.think)
			break
		}
		t0 := sink.now()
		if !sink.sleep(ctx, s.think) {
			return iterOutcome{Cut: true}
		}
		skipped += sink.now().Sub(t0)
	}
	return iterOutcome{Latency: end.Sub(due) - skipped}
}

// runSetup draws the setup's rows (once per user: a retry reuses them)
// and runs the setup steps; false with the iteration's outcome when it
// did not succeed.
func (c *flowClient) runSetup(ctx context.Context, sink stepSink) (iterOutcome, bool) {
	if !c.setupRows {
		for _, src := range c.flow.SetupData {
			if !c.drawRow(src) {
				return iterOutcome{Exhausted: true}, false
			}
		}
		c.setupRows = true
	}
	c.env.next()
	for i := range c.setup {
		s := &c.setup[i]
		c.send(ctx, s, &c.out)
		if c.out.Kind == KindNone {
			if s.think > 0 && !sink.sleep(ctx, s.think) {
				return iterOutcome{Cut: true}, false
			}
			continue
		}
		if !sink.step(ctx, -1, s.name, 0, &c.out) {
			return iterOutcome{Cut: true}, false
		}
		return iterOutcome{Kind: c.out.Kind}, false
	}
	c.setUp = true
	return iterOutcome{}, true
}

// drawRow takes the next row of data source src into the variables its
// columns set; false when the source is exhausted.
func (c *flowClient) drawRow(src int) bool {
	if src < 0 || src >= len(c.feeds) {
		return true // no feed bound: the variables stay empty
	}
	row, ok := c.feeds[src].draw(c.env.rng)
	if !ok {
		return false
	}
	if src < len(c.columns) {
		for _, vc := range c.columns[src] {
			c.env.vars[vc.slot] = append(c.env.vars[vc.slot][:0], row[vc.col]...)
		}
	}
	return true
}

// send renders step s, sends it, checks its response and runs its
// extractions.
func (c *flowClient) send(ctx context.Context, s *flowStep, out *Outcome) {
	if !c.render(s) {
		// A value from a response or a data file would split the request
		// line or a header: sending it would test the server's parser, not
		// the flow, and could smuggle a second request.
		*out = Outcome{Kind: KindOther, Err: errUnsafeValue}
		return
	}
	conn := c.conns[s.conn]
	conn.use(s.expect)
	conn.rd.head = nil
	if s.keepHead {
		conn.rd.head = &c.head
	}
	c.req = http1Request{wire: c.wire, head: s.isHead, close: s.close}
	conn.exchange(ctx, &c.req, out)
	if out.Kind != KindNone {
		return
	}
	if c.jar != nil {
		c.storeCookies()
	}
	for i := range s.extract {
		e := &s.extract[i]
		if !c.extractOne(e, s) {
			out.Kind, out.Err = KindExtract, e.err
			return
		}
	}
}

// errUnsafeValue fails a step whose rendered URL or header would not be
// one line of HTTP.
var errUnsafeValue = errors.New("a {{placeholder}} value holds a line break (or, in the URL, a space): the request would not be valid HTTP/1.1")

// render writes step s as it goes on the wire into c.wire; false when a
// placeholder's value made the request line or a header invalid.
func (c *flowClient) render(s *flowStep) bool {
	c.body = c.env.render(c.body[:0], &s.body)
	w := append(c.wire[:0], s.method...)
	w = append(w, ' ')
	if s.absolute {
		w = append(w, s.origin...)
	}
	from := len(w)
	w = c.env.render(w, &s.target)
	if bytes.ContainsAny(w[from:], " \r\n") {
		return false
	}
	if c.jar != nil {
		c.cookieURL, _ = url.Parse(s.origin + string(w[from:]))
	}
	w = append(w, " HTTP/1.1\r\n"...)
	if !s.ownHost {
		w = appendHeader(w, "Host", s.host)
	}
	for i := range s.headers {
		h := &s.headers[i]
		w = append(append(w, h.Name...), ": "...)
		at := len(w)
		w = c.env.render(w, &h.Value)
		if bytes.ContainsAny(w[at:], "\r\n") {
			return false
		}
		w = append(w, "\r\n"...)
	}
	if !s.ownUA {
		w = append(w, "User-Agent: loadgate\r\n"...)
	}
	if s.auth != "" {
		w = appendHeader(w, "Proxy-Authorization", s.auth)
	}
	if c.jar != nil && c.cookieURL != nil {
		w = appendCookies(w, c.jar.Cookies(c.cookieURL))
	}
	if s.length || len(c.body) > 0 {
		w = appendContentLength(w, len(c.body))
	}
	if !c.h.Keepalive {
		w = append(w, "Connection: close\r\n"...)
	}
	w = append(w, "\r\n"...)
	c.wire = append(w, c.body...)
	return true
}

func appendHeader(w []byte, name, value string) []byte {
	w = append(append(w, name...), ": "...)
	return append(append(w, value...), "\r\n"...)
}

func appendCookies(w []byte, cs []*http.Cookie) []byte {
	if len(cs) == 0 {
		return w
	}
	w = append(w, "Cookie: "...)
	for i, ck := range cs {
		if i > 0 {
			w = append(w, "; "...)
		}
		w = append(append(append(w, ck.Name...), '='), ck.Value...)
	}
	return append(w, "\r\n"...)
}

// storeCookies puts the Set-Cookie headers of the last response in the
// user's jar.
func (c *flowClient) storeCookies() {
	if c.cookieURL == nil {
		return
	}
	var cs []*http.Cookie
	eachHeader(c.head, "set-cookie", func(v []byte) bool {
		if ck, err := http.ParseSetCookie(string(v)); err == nil {
			cs = append(cs, ck)
		}
		return true
	})
	if len(cs) > 0 {
		c.jar.SetCookies(c.cookieURL, cs)
	}
}

// eachHeader calls fn with the value of every header called name (lower
// case) in the header block head, until fn returns false.
func eachHeader(head []byte, name string, fn func(v []byte) bool) {
	_, rest := nextLine(head) // the status line
	for len(rest) > 0 {
		var line []byte
		line, rest = nextLine(rest)
		colon := bytes.IndexByte(line, ':')
		if colon > 0 && equalFold(line[:colon], name) && !fn(trimOWS(line[colon+1:])) {
			return
		}
	}
}

// extractOne runs extraction e on the response to step s; false when it
// found nothing.
func (c *flowClient) extractOne(e *extractor, s *flowStep) bool {
	dst := &c.env.vars[e.slot]
	switch e.kind {
	case scenarios.ExtractJSON:
		// gjson reads the body in place; the value is copied out at once,
		// before the body's buffer is reused.
		r := gjson.Get(unsafeString(s.keep.buf), e.path)
		if !r.Exists() {
			return false
		}
		v := r.Raw
		if r.Type == gjson.String {
			v = r.Str
		}
		*dst = append((*dst)[:0], v...)
	case scenarios.ExtractHeader:
		found := false
		eachHeader(c.head, e.name, func(v []byte) bool {
			*dst = append((*dst)[:0], v...)
			found = true
			return false
		})
		return found
	case scenarios.ExtractRegex:
		m := e.re.FindSubmatchIndex(s.keep.buf)
		if m == nil || m[2] < 0 {
			return false
		}
		*dst = append((*dst)[:0], s.keep.buf[m[2]:m[3]]...)
	}
	return true
}

// unsafeString views b as a string without copying; the string must not
// outlive b's contents.
func unsafeString(b []byte) string {
	return unsafe.String(unsafe.SliceData(b), len(b))
}

// bodyKeep keeps a whole body, for a step's body extractions, while the
// step's body checks, if any, see it stream by. The response reader
// refuses a body beyond max_body, which bounds what is kept.
type bodyKeep struct {
	buf   []byte
	check *bodyCheck
	src   bodySource
}

func (k *bodyKeep) run(src bodySource) error {
	k.buf, k.src = k.buf[:0], src
	defer func() { k.src = nil }()
	if k.check != nil {
		return k.check.run(k)
	}
	for {
		if _, err := k.next(); err != nil {
			if err == io.EOF {
				return nil
			}
			return err
		}
	}
}

func (k *bodyKeep) next() ([]byte, error) {
	b, err := k.src.next()
	if err == nil {
		k.buf = append(k.buf, b...)
	}
	return b, err
}
