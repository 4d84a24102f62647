package httpflow

import (
	"context"
	"errors"
	"io"
	"net/http"
	"time"
	"unsafe"

	"github.com/tidwall/gjson"

	"github.com/loadgate/loadgate/protocols"
	"github.com/loadgate/loadgate/protocols/httpcheck"
	"github.com/loadgate/loadgate/scenarios"
)

var _ protocols.Iterator = (*flowClient)(nil)

// Iterate runs one iteration of the flow.
func (c *flowClient) Iterate(ctx context.Context, due time.Time, sink protocols.StepSink) protocols.IterOutcome {
	var skipped time.Duration // setup and think times, which no latency includes
	if !c.setUp {
		start := sink.Now()
		if r, ok := c.runSetup(ctx, sink); !ok {
			return r
		}
		skipped = sink.Now().Sub(start)
	}
	for _, src := range c.flow.StepData {
		if !c.drawRow(src) {
			return protocols.IterOutcome{Exhausted: true}
		}
	}
	c.env.Next()
	start := due.Add(skipped)
	var end time.Time
	last := len(c.steps) - 1
	for i := range c.steps {
		s := &c.steps[i]
		if i > 0 {
			start = sink.Now()
		}
		c.send(ctx, s, &c.out)
		end = sink.Now()
		if !sink.Step(ctx, i, s.name, end.Sub(start), &c.out) {
			return protocols.IterOutcome{Cut: true}
		}
		if c.out.Kind != protocols.KindNone {
			return protocols.IterOutcome{Kind: c.out.Kind}
		}
		if s.think <= 0 {
			continue
		}
		if i == last {
			// The pause after the last step ends the iteration's turn,
			// not the iteration.
			sink.Sleep(ctx, s.think)
			break
		}
		t0 := sink.Now()
		if !sink.Sleep(ctx, s.think) {
			return protocols.IterOutcome{Cut: true}
		}
		skipped += sink.Now().Sub(t0)
	}
	return protocols.IterOutcome{Latency: end.Sub(due) - skipped}
}

// runSetup draws the setup's rows (once per user: a retry reuses them)
// and runs the setup steps; false with the iteration's outcome when it
// did not succeed.
func (c *flowClient) runSetup(ctx context.Context, sink protocols.StepSink) (protocols.IterOutcome, bool) {
	if !c.setupRows {
		for _, src := range c.flow.SetupData {
			if !c.drawRow(src) {
				return protocols.IterOutcome{Exhausted: true}, false
			}
		}
		c.setupRows = true
	}
	c.env.Next()
	for i := range c.setup {
		s := &c.setup[i]
		c.send(ctx, s, &c.out)
		if c.out.Kind == protocols.KindNone {
			if s.think > 0 && !sink.Sleep(ctx, s.think) {
				return protocols.IterOutcome{Cut: true}, false
			}
			continue
		}
		if !sink.Step(ctx, -1, s.name, 0, &c.out) {
			return protocols.IterOutcome{Cut: true}, false
		}
		return protocols.IterOutcome{Kind: c.out.Kind}, false
	}
	c.setUp = true
	return protocols.IterOutcome{}, true
}

// drawRow takes the next row of data source src into the variables its
// columns set; false when the source is exhausted.
func (c *flowClient) drawRow(src int) bool {
	if src < 0 || src >= len(c.feeds) {
		return true // no feed bound: the variables stay empty
	}
	row, ok := c.feeds[src].Draw(c.env.Rand())
	if !ok {
		return false
	}
	if src < len(c.columns) {
		for _, vc := range c.columns[src] {
			c.env.Vars[vc.slot] = append(c.env.Vars[vc.slot][:0], row[vc.col]...)
		}
	}
	return true
}

// send renders step s, sends it, checks its response and runs its
// extractions.
func (c *flowClient) send(ctx context.Context, s *flowStep, out *protocols.Outcome) {
	s.head.reset()
	defer c.explain(s, out)
	if c.tr != nil {
		if c.sendStep(ctx, s, out) {
			c.afterStep(s, out)
		}
		return
	}
	if !c.render(s) {
		// A value from a response or a data file would split the request
		// line or a header: sending it would test the server's parser, not
		// the flow, and could smuggle a second request.
		*out = protocols.Outcome{Kind: protocols.KindOther, Err: ErrUnsafeValue}
		return
	}
	r := &c.wreq
	r.Conn, r.IsHead, r.Close, r.Expect, r.ResponseHead = s.conn, s.isHead, s.close, s.expect, nil
	if s.keepHead {
		r.ResponseHead = &c.head
	}
	c.conns.Exchange(ctx, r, out)
	if out.Kind != protocols.KindNone {
		return
	}
	c.afterStep(s, out)
}

// afterStep stores the cookies of step s's response and runs its
// extractions.
func (c *flowClient) afterStep(s *flowStep, out *protocols.Outcome) {
	if c.jar != nil {
		c.storeCookies()
	}
	for i := range s.extract {
		e := &s.extract[i]
		if !c.extractOne(e, s) {
			out.Kind, out.Err = protocols.KindExtract, e.err
			return
		}
	}
}

// ErrUnsafeValue fails a step whose rendered URL or header would not be
// one line of HTTP.
var ErrUnsafeValue = errors.New("a {{placeholder}} value holds a line break (or, in the URL, a space): the request would not be valid HTTP/1.1")

// renderBody is step s's body for this request: the step's own bytes when
// it has no placeholder, as a body_file has none, shared by every user and
// never copied; else rendered into the user's buffer, where a large one's
// literal bulk is copied once per request, and not again into the wire.
func (c *flowClient) renderBody(s *flowStep) []byte {
	if s.fixedBody != nil {
		return s.fixedBody
	}
	c.body = c.env.Render(c.body[:0], &s.body)
	return c.body
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

// extractOne runs extraction e on the response to step s; false when it
// found nothing.
func (c *flowClient) extractOne(e *extractor, s *flowStep) bool {
	dst := &c.env.Vars[e.slot]
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
	check *httpcheck.BodyCheck
	src   httpcheck.BodySource
}

// Run keeps the body from src, which check, when set, reads.
func (k *bodyKeep) Run(src httpcheck.BodySource) error {
	k.buf, k.src = k.buf[:0], src
	defer func() { k.src = nil }()
	if k.check != nil {
		return k.check.Run(k)
	}
	for {
		if _, err := k.Next(); err != nil {
			if err == io.EOF {
				return nil
			}
			return err
		}
	}
}

// Next hands on the next piece of the body, keeping it.
func (k *bodyKeep) Next() ([]byte, error) {
	b, err := k.src.Next()
	if err == nil {
		k.buf = append(k.buf, b...)
	}
	return b, err
}
