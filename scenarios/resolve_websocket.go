package scenarios

import (
	"net/url"
	"regexp"
	"unicode/utf8"

	"go.yaml.in/yaml/v3"
)

// maxMaxMessage bounds max_message: a worker's read buffer may grow to it.
const maxMaxMessage = 1 << 30

// websocket resolves a `websocket:` block for one matrix combination.
func (r *resolver) websocket(w *rawWS) *WebSocketTarget {
	out := &WebSocketTarget{Connection: Persistent, Timeout: defaultTimeout, MaxMessage: defaultMaxMessage}
	if w.url == nil {
		r.d.errorf(w.node, "websocket: missing required field %q", "url")
	} else {
		out.URL = r.wsURL(w.url)
	}
	out.Headers = r.headers(w.headers)
	out.TLS = r.tls(&w.tls)
	if w.tlsKey != nil && out.URL != "" {
		if u, _ := url.Parse(out.URL); u != nil && u.Scheme == "ws" {
			r.d.errorf(w.tlsKey, "tls: only for wss:// URLs; %s is cleartext", maskURL(out.URL))
		}
	}
	if w.connection != nil {
		out.Connection = r.connection(w.connection, out.Connection)
	}
	if w.timeout != nil {
		out.Timeout = r.timeout(w.timeout, out.Timeout)
	}
	if w.maxMessage != nil {
		if v, ok := r.size(w.maxMessage, "max_message"); ok {
			if v <= 0 || v > maxMaxMessage {
				r.d.errorf(w.maxMessage, "max_message: must be from 1 byte to 1GiB, got %d bytes", v)
			} else {
				out.MaxMessage = v
			}
		}
	}
	out.OnConnect = r.wsSteps(w.onConnect, out.MaxMessage)
	switch {
	case w.iterationKey == nil:
		r.d.errorf(w.node, "websocket: missing required field %q", "iteration")
	case len(w.iteration) == 0:
		r.d.errorf(w.iterationKey, "iteration: needs at least one step")
	}
	out.Iteration = r.wsSteps(w.iteration, out.MaxMessage)
	return out
}

// wsURL resolves a ws:// or wss:// URL with a host, and a port if any
// that a dialer accepts.
func (r *resolver) wsURL(n *yaml.Node) string {
	r.used = r.used[:0]
	s, ok := r.text(n)
	if !ok {
		return ""
	}
	u, err := url.Parse(s)
	if err == nil {
		pieces := urlSecrets(u)
		r.d.secrets.add(pieces...)
		r.d.secrets.addUsed(r.used, pieces)
	}
	if err != nil || (u.Scheme != "ws" && u.Scheme != "wss") {
		r.d.errorf(n, "url: expected an absolute ws:// or wss:// URL, got %q", maskURL(s))
		return ""
	}
	if !r.hostPort(n, "url", s, u) {
		return ""
	}
	return s
}

// wsSteps resolves on_connect or iteration of a WebSocket target.
func (r *resolver) wsSteps(list []*rawWSStep, maxMessage int64) []WSStep {
	var out []WSStep
	for _, s := range list {
		if !s.ok {
			continue
		}
		step := WSStep{Pos: r.d.pos(s.node)}
		switch {
		case s.send != nil:
			step.Kind = WSSendText
			tpl, ok := r.template(s.send, "send")
			if ok && tpl.Static() && !utf8.Valid(literalBytes(tpl)) {
				r.d.errorf(s.send, "send: a text message must be UTF-8; send binary data with send_binary or send_hex")
			}
			step.Payload = tpl
		case s.sendBinary != nil:
			step.Kind = WSSendBinary
			step.Payload, _ = r.template(s.sendBinary, "send_binary")
		case s.sendHex != nil:
			step.Kind = WSSendBinary
			step.Payload = r.hexPayload(s.sendHex)
		case s.expect != nil:
			step.Kind = WSExpect
			step.Expect = r.wsExpect(s.expect, maxMessage)
		default:
			continue // the action's value was mistyped, and reported
		}
		out = append(out, step)
	}
	return out
}

// wsExpect resolves the checks of an expect step; a check no message
// within max_message can pass is reported now.
func (r *resolver) wsExpect(e *rawWSExpect, maxMessage int64) WSExpectCheck {
	var out WSExpectCheck
	if e.contains != nil {
		if s, ok := r.text(e.contains); ok && s != "" {
			out.Contains = []byte(s)
			if int64(len(s)) > maxMessage {
				r.d.errorf(e.contains, "contains: %d bytes is more than max_message (%d), so no message can match", len(s), maxMessage)
			}
		}
	}
	if e.equals != nil {
		if s, ok := r.text(e.equals); ok {
			out.Equals = []byte(s)
			if int64(len(s)) > maxMessage {
				r.d.errorf(e.equals, "equals: %d bytes is more than max_message (%d), so no message can match", len(s), maxMessage)
			}
		}
	}
	if e.regex != nil {
		if s, ok := r.text(e.regex); ok {
			re, err := regexp.Compile(s)
			if err != nil {
				r.d.errorf(e.regex, "regex: %v", err)
			}
			out.Regex = re
		}
	}
	return out
}
