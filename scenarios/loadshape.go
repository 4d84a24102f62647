package scenarios

import (
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"fmt"
	"hash"
	"net/url"
	"strconv"
	"strings"
	"time"
)

// LoadShape is the fingerprint of a case's load: the resolved settings that
// shape the load and what it hits, each rendered as text. Two cases whose
// shapes differ measured different things, so a comparison of their
// figures would blame the code for a change of the test. Thresholds, names
// and positions are not part of it: editing a rule keeps a case comparable.
type LoadShape struct {
	// Target holds what the load hits: protocol, requests (method and
	// path), body digest, connections, keep-alive, and the server's
	// command, which is recorded but never makes two loads differ.
	Target []LoadSetting `json:"target"`
	// Phases holds, per measured phase in run order, how the load is
	// applied: model, concurrency or rate and their ramps, duration,
	// requests, trials, think time.
	Phases []PhaseShape `json:"phases"`
}

// PhaseShape is the load settings of one measured phase.
type PhaseShape struct {
	Name     string        `json:"name"`     // the phase's name
	Settings []LoadSetting `json:"settings"` // in a fixed order: model, then what it needs
}

// LoadSetting is one setting of a LoadShape, e.g. {concurrency, 4}.
type LoadSetting struct {
	Key   string `json:"key"`   // the setting's name, as the scenario spells it where it can: concurrency, rate, duration
	Value string `json:"value"` // its resolved value as text: "4", "1s", "100/s → 500/s", a digest of a body
}

// LoadShapeOf is case c's fingerprint, with the server loadgate starts for
// it (nil for none). The secrets are redacted from every value and from
// what the digests are taken of, so that a results file reveals neither
// them nor a hash to guess them by.
func LoadShapeOf(c *Case, server *Server, secrets Redactor) LoadShape {
	var s LoadShape
	s.Target = targetShape(&c.Target, secrets)
	if server != nil {
		s.Target = append(s.Target, LoadSetting{"server", strings.Join(server.Command, " ")})
	}
	for i := range c.Phases {
		p := &c.Phases[i]
		if p.Warmup {
			continue
		}
		s.Phases = append(s.Phases, PhaseShape{Name: p.Name, Settings: phaseShape(p)})
	}
	for i := range s.Target {
		s.Target[i].Value = secrets.Redact(s.Target[i].Value)
	}
	return s
}

// LoadDifferences lists how shape b differs from shape a, in words, e.g.
// "concurrency 4 → 1", "duration 1s → 2s": nil when they shaped the same
// load. A setting known to only one side is not a difference: a document
// written by an older loadgate lacks the settings added since. With phase
// set, only that measured phase's settings are compared, besides the
// target's; targetToo false compares the phases only, which is what two
// targets of a same-job A/B comparison must share.
func LoadDifferences(a, b LoadShape, phase string, targetToo bool) []string {
	var out []string
	if targetToo {
		out = settingDifferences(a.Target, b.Target, "")
	}
	if phase != "" {
		pa, oka := phaseNamed(a.Phases, phase)
		pb, okb := phaseNamed(b.Phases, phase)
		if oka && okb {
			out = append(out, settingDifferences(pa.Settings, pb.Settings, "")...)
		}
		return out
	}
	na, nb := phaseNames(a.Phases), phaseNames(b.Phases)
	if na != nb {
		return append(out, fmt.Sprintf("measured phases %s → %s", na, nb))
	}
	for i := range a.Phases {
		prefix := ""
		if len(a.Phases) > 1 {
			prefix = "phase " + a.Phases[i].Name + ": "
		}
		out = append(out, settingDifferences(a.Phases[i].Settings, b.Phases[i].Settings, prefix)...)
	}
	return out
}

func phaseNamed(ps []PhaseShape, name string) (PhaseShape, bool) {
	for _, p := range ps {
		if p.Name == name {
			return p, true
		}
	}
	return PhaseShape{}, false
}

func phaseNames(ps []PhaseShape) string {
	names := make([]string, len(ps))
	for i, p := range ps {
		names[i] = p.Name
	}
	if len(names) == 0 {
		return "(none)"
	}
	return strings.Join(names, ", ")
}

// underTest are the settings a shape records that describe the system
// under test rather than the load: a pull request that tunes the server's
// flags wants exactly that comparison, so they never make two shapes
// differ.
var underTest = map[string]bool{"server": true}

func settingDifferences(a, b []LoadSetting, prefix string) []string {
	var out []string
	for _, sa := range a {
		for _, sb := range b {
			if sa.Key == sb.Key && sa.Value != sb.Value && !underTest[sa.Key] {
				out = append(out, fmt.Sprintf("%s%s %s → %s", prefix, sa.Key, sa.Value, sb.Value))
			}
		}
	}
	return out
}

func phaseShape(p *Phase) []LoadSetting {
	var s []LoadSetting
	add := func(k, v string) { s = append(s, LoadSetting{k, v}) }
	switch {
	case p.Search != nil:
		add("model", "capacity search")
		sr := p.Search
		add("search", fmt.Sprintf("%s–%s/s, step %s, probe warm-up %s, precision %s, slo %s, confirm %d",
			num(sr.From), num(sr.Max), sr.Step, sr.ProbeWarmup, num(sr.Precision), sr.SLO, sr.Confirm))
		add("max_in_flight", strconv.Itoa(sr.MaxInFlight))
	case p.Rate.Open():
		add("model", "open")
		rate := num(p.Rate.From) + "/s"
		if p.Rate.To != p.Rate.From {
			rate = num(p.Rate.From) + "/s → " + num(p.Rate.To) + "/s"
		}
		add("rate", rate)
		add("max_in_flight", strconv.Itoa(p.MaxInFlight))
	default:
		add("model", "closed")
		conc := strconv.Itoa(p.Concurrency)
		if p.ConcurrencyFrom > 0 {
			conc = strconv.Itoa(p.ConcurrencyFrom) + "→" + strconv.Itoa(p.Concurrency)
		}
		add("concurrency", conc)
		add("ramp_up", p.RampUp.String())
		add("think_time", p.ThinkTime.String())
	}
	if p.Search == nil {
		add("duration", durationOrNone(p.Duration))
		add("requests", countOrNone(p.Requests))
	}
	trials := strconv.Itoa(max(p.Trials, 1))
	if p.Adaptive != nil {
		trials = fmt.Sprintf("%d–%d until decisive", p.Adaptive.Min, p.Adaptive.Max)
	}
	add("trials", trials)
	return s
}

func targetShape(t *Target, secrets Redactor) []LoadSetting {
	var s []LoadSetting
	add := func(k, v string) { s = append(s, LoadSetting{k, v}) }
	switch {
	case t.HTTP != nil:
		h := t.HTTP
		proto := "HTTP/1.1"
		if h.HTTP2 {
			proto = "HTTP/2"
			add("protocol", proto)
			add("connections", strconv.Itoa(h.Connections))
		} else {
			add("protocol", proto)
			add("keepalive", strconv.FormatBool(h.Keepalive))
		}
		if h.Flow != nil {
			add("steps", flowSteps(h.Flow))
			add("body", digestOf(secrets, func(w *shapeHash) {
				for _, st := range h.Flow.Steps {
					w.template(st.Body)
				}
			}))
			return s
		}
		if len(h.Requests) == 1 {
			add("method", h.Requests[0].Method)
			add("path", requestPath(h.Requests[0].URL))
		} else {
			parts := make([]string, len(h.Requests))
			for i, r := range h.Requests {
				parts[i] = fmt.Sprintf("%s: %s %s ×%d", r.Name, r.Method, requestPath(r.URL), r.Weight)
			}
			add("requests", strings.Join(parts, ", "))
		}
		add("body", digestOf(secrets, func(w *shapeHash) {
			for _, r := range h.Requests {
				w.bytes(r.Body)
			}
		}))
	case t.GRPC != nil:
		g := t.GRPC
		add("protocol", "gRPC")
		add("method", g.Method)
		add("connections", strconv.Itoa(g.Connections))
		add("message", digestOf(secrets, func(w *shapeHash) { w.template(g.Message) }))
	case t.WebSocket != nil:
		ws := t.WebSocket
		add("protocol", "WebSocket")
		add("path", requestPath(ws.URL))
		add("connection", ws.Connection.String())
		add("steps", stepsDigest(secrets, func(st WSStep) (int64, Template) { return int64(st.Kind), st.Payload },
			ws.OnConnect, ws.Iteration))
	case t.TCP != nil:
		tc := t.TCP
		add("protocol", "TCP")
		add("connection", tc.Connection.String())
		add("framing", tc.Framing.Kind.String())
		add("steps", stepsDigest(secrets, func(st TCPStep) (int64, Template) { return int64(st.Kind), st.Payload },
			tc.OnConnect, tc.Iteration))
	}
	return s
}

// flowSteps lists a flow's steps as "name: METHOD /path (think 1s)".
func flowSteps(f *Flow) string {
	parts := make([]string, len(f.Steps))
	for i, st := range f.Steps {
		parts[i] = fmt.Sprintf("%s: %s %s", st.Name, st.Method, requestPath(templateText(st.URL)))
		if st.ThinkTime > 0 {
			parts[i] += " (think " + st.ThinkTime.String() + ")"
		}
	}
	return strings.Join(parts, " → ")
}

// requestPath is what a URL asks of its server, path and query: the host
// and port name where the server runs, which may change from run to run
// without changing the load.
func requestPath(raw string) string {
	u, err := url.Parse(raw)
	if err != nil {
		return raw
	}
	if u.RawQuery != "" {
		return u.EscapedPath() + "?" + u.RawQuery
	}
	if p := u.EscapedPath(); p != "" {
		return p
	}
	return "/"
}

// templateText renders t with its placeholders written as {{…}}: flow
// variables by slot ({{$2}}), other placeholders by kind.
func templateText(t Template) string {
	var b strings.Builder
	for _, p := range t.Parts {
		switch p.Kind {
		case PartLiteral:
			b.Write(p.Literal)
		case PartRandInt:
			fmt.Fprintf(&b, "{{rand_int %d %d}}", p.Min, p.Max)
		case PartVar:
			fmt.Fprintf(&b, "{{$%d}}", p.Slot)
		default:
			fmt.Fprintf(&b, "{{kind %d}}", p.Kind)
		}
	}
	return b.String()
}

// shapeHash digests the content of payloads without keeping them: a 10 MB
// body is a fingerprint of a few bytes.
type shapeHash struct {
	h       hash.Hash
	size    int64
	secrets Redactor
}

func (w *shapeHash) int(n int64) {
	var buf [8]byte
	binary.BigEndian.PutUint64(buf[:], uint64(n))
	w.h.Write(buf[:])
}

func (w *shapeHash) bytes(b []byte) {
	for _, s := range w.secrets {
		if bytes.Contains(b, []byte(s)) {
			b = []byte(w.secrets.Redact(string(b)))
			break
		}
	}
	w.int(int64(len(b)))
	w.h.Write(b)
	w.size += int64(len(b))
}

func (w *shapeHash) template(t Template) {
	w.int(int64(len(t.Parts)))
	for _, p := range t.Parts {
		w.int(int64(p.Kind))
		switch p.Kind {
		case PartLiteral:
			w.bytes(p.Literal)
		case PartRandInt:
			w.int(p.Min)
			w.int(p.Max)
		case PartVar:
			w.int(int64(p.Slot))
		}
	}
}

// digestOf is "none" when fill wrote no content, else its size and the
// first 12 hex digits of its SHA-256, e.g. "1234 B sha256:0a1b2c3d4e5f".
func digestOf(secrets Redactor, fill func(*shapeHash)) string {
	w := &shapeHash{h: sha256.New(), secrets: secrets}
	fill(w)
	if w.size == 0 {
		return "none"
	}
	return fmt.Sprintf("%d B sha256:%s", w.size, hex.EncodeToString(w.h.Sum(nil))[:12])
}

// stepsDigest is the digest of lists of steps (on_connect, iteration),
// each step's kind and payload as of gives them: kinds and order count
// even where a step carries no bytes (an expect-only step).
func stepsDigest[S any](secrets Redactor, of func(S) (int64, Template), lists ...[]S) string {
	w := &shapeHash{h: sha256.New(), secrets: secrets}
	for _, steps := range lists {
		w.int(int64(len(steps)))
		for _, st := range steps {
			kind, payload := of(st)
			w.int(kind)
			w.template(payload)
		}
	}
	return "sha256:" + hex.EncodeToString(w.h.Sum(nil))[:12]
}

func num(f float64) string { return strconv.FormatFloat(f, 'g', -1, 64) }

func durationOrNone(d time.Duration) string {
	if d == 0 {
		return "none"
	}
	return d.String()
}

func countOrNone(n int64) string {
	if n == 0 {
		return "none"
	}
	return strconv.FormatInt(n, 10)
}

// Digest identifies the load the shape describes, as 12 hex digits: two
// shapes have the same digest when LoadDifferences finds nothing between
// them with every setting known to both. The settings that describe the
// system under test are left out, as LoadDifferences leaves them out, so
// that a history of one case stays one series while its server changes.
func (s LoadShape) Digest() string {
	h := sha256.New()
	write := func(prefix string, settings []LoadSetting) {
		for _, st := range settings {
			if underTest[st.Key] {
				continue
			}
			fmt.Fprintf(h, "%s%q=%q\n", prefix, st.Key, st.Value)
		}
	}
	write("", s.Target)
	for _, p := range s.Phases {
		write(strconv.Quote(p.Name)+".", p.Settings)
	}
	return hex.EncodeToString(h.Sum(nil))[:12]
}
