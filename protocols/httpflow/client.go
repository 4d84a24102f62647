package httpflow

import (
	"context"
	"errors"
	"fmt"
	"net/http/cookiejar"
	"net/url"
	"regexp"
	"strings"
	"time"

	"github.com/loadgate/loadgate/protocols"
	"github.com/loadgate/loadgate/protocols/httpcheck"
	"github.com/loadgate/loadgate/scenarios"
)

// flowClient is one virtual user of a flow target (SPEC §12): it runs the
// flow's setup once, then one iteration of its steps per call of Iterate,
// carrying extracted values and data rows from step to step in its
// variable table. Every step is rendered into one reused buffer: as
// HTTP/1.1 bytes that the lean HTTP/1.1 client's connections (a Wire, one
// kept-alive connection per origin the steps reach) send as they are, so
// that a step costs what a plain request does plus its rendering and
// extractions; or as a StepRequest that a StepTransport (HTTP/2) frames.
type flowClient struct {
	target string
	flow   *scenarios.Flow
	h      *scenarios.HTTPTarget
	conns  Wire // the HTTP/1.1 connections, unless tr sends the steps
	setup  []flowStep
	steps  []flowStep
	env    protocols.RenderEnv
	feeds  protocols.Feeds
	// columns lists, by index into Scenario.Data, the variables a row of
	// that source sets.
	columns [][]varColumn

	// Reused from step to step.
	wire, body []byte
	head       []byte // the last response's header block, when a step keeps it
	wreq       WireRequest
	out        protocols.Outcome
	// fail is the error of a failed step quoting the body it got,
	// refilled by each failure so that a failure allocates nothing.
	fail protocols.StepError

	setUp     bool           // setup has succeeded
	setupRows bool           // the setup's rows are drawn (once per user)
	jar       *cookiejar.Jar // nil without cookies: true
	cookieURL *url.URL       // the URL of the request being sent, for the jar

	// tr, when set, sends the steps (HTTP/2) instead of conns.
	tr    StepTransport
	sreq  StepRequest
	spans []span
}

// varColumn is a variable that a data row sets: Flow.Vars[slot] is column
// col of the row.
type varColumn struct{ slot, col int }

// flowStep is a scenarios.Step made ready to render.
type flowStep struct {
	name     string
	conn     int    // the connection of Wire.Route
	origin   string // scheme://host[:port]
	absolute bool   // the request goes to a proxy in absolute form
	method   string
	isHead   bool
	target   scenarios.Template // the request-target, origin removed
	host     string             // the Host header, unless the step writes its own
	headers  []scenarios.HeaderTemplate
	ownHost  bool
	ownUA    bool
	close    bool // the step asks the server to close
	body     scenarios.Template
	length   bool   // send Content-Length even for an empty body
	auth     string // Proxy-Authorization, "" for none
	expect   *httpcheck.Expectation
	keep     *bodyKeep // set when an extraction reads the body
	head     *bodyHead // keeps the body's first bytes, for a failure to quote
	keepHead bool      // a header extraction or the cookie jar reads the headers
	extract  []extractor
	think    time.Duration
	check    *httpcheck.ResponseCheck // the response's checks, with a StepTransport

	// fixedBody is the body when it has no placeholder: the scenario's
	// own bytes, which every virtual user sends without a copy.
	fixedBody []byte
}

var errFlowDo = errors.New("a flow target runs whole iterations, not single requests")

// newFlowClient makes the client of one virtual user of flow target t,
// whose steps go through tr when it is not nil, else over conns.
func newFlowClient(t *scenarios.Target, worker int, tr StepTransport, conns Wire) (*flowClient, error) {
	h := t.HTTP
	if h == nil || h.Flow == nil {
		return nil, fmt.Errorf("target %q has no flow", t.Name)
	}
	if h.HTTP2 && tr == nil {
		return nil, fmt.Errorf("target %q: a flow with http2: true runs on the case's HTTP/2 connections", t.Name)
	}
	f := h.Flow
	if len(f.Steps) == 0 {
		return nil, fmt.Errorf("target %q: flow has no step", t.Name)
	}
	c := &flowClient{target: t.Name, flow: f, h: h, env: protocols.NewRenderEnv(worker), tr: tr, conns: conns}
	c.env.Vars = make([][]byte, len(f.Vars))
	for _, list := range []struct {
		src []scenarios.Step
		dst *[]flowStep
	}{{f.Setup, &c.setup}, {f.Steps, &c.steps}} {
		for i := range list.src {
			s, err := c.compile(&list.src[i])
			if err != nil {
				return nil, fmt.Errorf("target %q: step %q: %w", t.Name, list.src[i].Name, err)
			}
			*list.dst = append(*list.dst, s)
		}
	}
	for slot, v := range f.Vars {
		if v.Source < 0 {
			continue
		}
		for len(c.columns) <= v.Source {
			c.columns = append(c.columns, nil)
		}
		c.columns[v.Source] = append(c.columns[v.Source], varColumn{slot: slot, col: v.Column})
	}
	if f.Cookies {
		c.jar, _ = cookiejar.New(nil) // fails only with options
	}
	return c, nil
}

// compile readies step s, and the route of its origin over the HTTP/1.1
// connections when they send the steps.
func (c *flowClient) compile(s *scenarios.Step) (flowStep, error) {
	origin, rest, err := splitOrigin(s.URL)
	if err != nil {
		return flowStep{}, err
	}
	u, err := url.Parse(origin)
	if err != nil {
		return flowStep{}, fmt.Errorf("url %s: %w", origin, err)
	}
	var route WireRoute
	if c.tr == nil {
		if route, err = c.conns.Route(origin, u); err != nil {
			return flowStep{}, err
		}
	}
	method := s.Method
	if method == "" {
		method = "GET"
	}
	fs := flowStep{
		name: s.Name, conn: route.Conn, origin: origin, method: method, isHead: method == "HEAD",
		target: rest, host: u.Host, body: s.Body, think: s.ThinkTime,
		length: method == "POST" || method == "PUT" || method == "PATCH",
		close:  !c.h.Keepalive, keepHead: c.flow.Cookies,
	}
	if len(s.Body.Parts) == 1 && s.Body.Parts[0].Kind == scenarios.PartLiteral {
		fs.fixedBody = s.Body.Parts[0].Literal
	}
	fs.absolute, fs.auth = route.Absolute, route.Auth
	c.compileHeaders(&fs, s.Headers)
	fs.expect = httpcheck.NewExpectation(&s.Expect)
	for i := range s.Extract {
		e, err := newExtractor(&s.Extract[i])
		if err != nil {
			return flowStep{}, err
		}
		fs.extract = append(fs.extract, e)
		switch e.kind {
		case scenarios.ExtractHeader:
			fs.keepHead = true
		default:
			if fs.keep == nil {
				fs.keep = &bodyKeep{check: fs.expect.Check}
				fs.expect.Body = fs.keep
			}
		}
	}
	fs.head = &bodyHead{inner: fs.expect.Body}
	fs.expect.Body = fs.head
	if c.tr != nil {
		c.compileStep(&fs)
	}
	return fs, nil
}

// compileHeaders keeps the step's headers but the body's framing, which
// the client writes itself, and notes those the client would otherwise add.
func (c *flowClient) compileHeaders(fs *flowStep, hs []scenarios.HeaderTemplate) {
	for _, h := range hs {
		switch {
		case strings.EqualFold(h.Name, "Content-Length"), strings.EqualFold(h.Name, "Transfer-Encoding"),
			strings.EqualFold(h.Name, "Trailer"):
			continue
		case strings.EqualFold(h.Name, "Connection"):
			if !c.h.Keepalive {
				continue // replaced by Connection: close
			}
			lit := string(literalOf(h.Value))
			for tok := range strings.SplitSeq(lit, ",") {
				fs.close = fs.close || strings.EqualFold(strings.TrimSpace(tok), "close")
			}
		case strings.EqualFold(h.Name, "Host"):
			fs.ownHost = true
		case strings.EqualFold(h.Name, "User-Agent"):
			fs.ownUA = true
		}
		fs.headers = append(fs.headers, h)
	}
}

// literalOf is the text of a template without placeholders.
func literalOf(t scenarios.Template) []byte {
	var b []byte
	for _, p := range t.Parts {
		if p.Kind == scenarios.PartLiteral {
			b = append(b, p.Literal...)
		}
	}
	return b
}

// splitOrigin splits a step's URL template into its origin, scheme://host,
// which must be literal (the connection is chosen when the client is
// made), and the request-target that follows, which may hold placeholders.
func splitOrigin(t scenarios.Template) (string, scenarios.Template, error) {
	if len(t.Parts) == 0 || t.Parts[0].Kind != scenarios.PartLiteral {
		return "", t, errors.New("the url must begin with a literal scheme://host")
	}
	lit := string(t.Parts[0].Literal)
	i := strings.Index(lit, "://")
	if i < 0 {
		return "", t, fmt.Errorf("url %q is not absolute", lit)
	}
	// A placeholder right after the host starts the path: `path:
	// "{{order_url}}"` joined to the target's url.
	end := strings.IndexAny(lit[i+3:], "/?#")
	if end < 0 {
		end = len(lit)
	} else {
		end += i + 3
	}
	origin := lit[:end]
	if end == i+3 {
		return "", t, errors.New("the url's host must be literal, without placeholders")
	}
	if s := origin[:i]; s != "http" && s != "https" {
		return "", t, fmt.Errorf("scheme %s is not http or https", s)
	}
	if !isASCII(origin) {
		return "", t, errors.New("an internationalised host name needs IDNA conversion")
	}
	first := lit[end:]
	if j := strings.IndexByte(first, '#'); j >= 0 && len(t.Parts) == 1 {
		first = first[:j] // a fragment never goes on the wire
	}
	if !strings.HasPrefix(first, "/") && (first != "" || len(t.Parts) == 1) {
		first = "/" + first
	}
	rest := scenarios.Template{Parts: make([]scenarios.TemplatePart, len(t.Parts))}
	copy(rest.Parts, t.Parts)
	rest.Parts[0].Literal = []byte(first)
	return origin, rest, nil
}

// extractor is a scenarios.Extraction made ready to run.
type extractor struct {
	kind scenarios.ExtractKind
	slot int
	path string // ExtractJSON
	name string // ExtractHeader: lower case
	re   *regexp.Regexp
	err  error // made once: why the extraction found nothing
}

func newExtractor(e *scenarios.Extraction) (extractor, error) {
	x := extractor{kind: e.Kind, slot: e.Slot, path: e.Path, re: e.Regex}
	switch e.Kind {
	case scenarios.ExtractJSON:
		x.err = fmt.Errorf("extract %s: json path %q not found", e.Var, e.Path)
	case scenarios.ExtractHeader:
		x.name = strings.ToLower(e.Path)
		x.err = fmt.Errorf("extract %s: header %q not found", e.Var, e.Path)
	case scenarios.ExtractRegex:
		if e.Regex == nil || e.Regex.NumSubexp() < 1 {
			return x, fmt.Errorf("extract %s: the regex needs a capture group", e.Var)
		}
		x.err = fmt.Errorf("extract %s: regex %q did not match", e.Var, e.Regex.String())
	default:
		return x, fmt.Errorf("extract %s: unknown kind %d", e.Var, e.Kind)
	}
	return x, nil
}

// Bind gives the client the run's data feeds.
func (c *flowClient) Bind(f protocols.Feeds) { c.feeds = f }

// Do is not how a flow runs: the engine calls Iterate.
func (c *flowClient) Do(_ context.Context, _ int, out *protocols.Outcome) {
	*out = protocols.Outcome{Kind: protocols.KindOther, Err: errFlowDo}
}

// Close closes every connection of the user.
func (c *flowClient) Close() error {
	var errs []error
	if c.tr != nil {
		errs = append(errs, c.tr.Close())
	}
	if c.conns != nil {
		errs = append(errs, c.conns.Close())
	}
	return errors.Join(errs...)
}

func isASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= 0x80 {
			return false
		}
	}
	return true
}
