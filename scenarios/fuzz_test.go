package scenarios

import (
	"bytes"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"
)

// yamlBreaks are the line breaks YAML counts.
var yamlBreaks = regexp.MustCompile("\r\n|\r|\n|\u0085|\u2028|\u2029")

// inside reports whether p names a character of data, or the end of a line.
func inside(data []byte, p Pos) bool {
	lines := yamlBreaks.Split(string(data), -1)
	return p.File == "fuzz.yaml" && p.Line >= 1 && p.Line <= len(lines) &&
		p.Col >= 1 && p.Col <= utf8.RuneCountInString(lines[p.Line-1])+1
}

// FuzzParse checks that no input makes Parse panic or hang, and that every
// diagnostic points inside the file.
func FuzzParse(f *testing.F) {
	for _, dir := range []string{"ok", "err"} {
		files, _ := filepath.Glob(filepath.Join(corpus, dir, "*.yaml"))
		for _, file := range files {
			data, err := os.ReadFile(file)
			if err != nil {
				f.Fatal(err)
			}
			f.Add(data)
		}
	}
	f.Add([]byte("a: &a [*a]\nversion: *a\n"))
	f.Add([]byte("version: 1\nname: t\ntargets: [{name: a, http: {url: 'http://h:1'}}]\nphases:\n" +
		"- {name: s, search: {rate: {from: 1, max: 9}, step: 1s, precision: 5%, slo: 'p99 < 1ms', confirm: 1}}\n" +
		"- {name: m, duration: 1s, trials: {min: 2, max: 4, until: decisive}}\n" +
		"thresholds: [{rule: 'p99 < 1s', abort: true, window: 2s}]\n"))
	f.Add([]byte("<<: {<<: {version: 1}}\n"))
	f.Add([]byte("version: 1\nname: t\ntargets:\n- name: a\n  tcp:\n    address: h:1\n    framing: {length_prefixed: {fields: [{u64le: length}], adjust: -8}}\n" +
		"    iteration: [{send: '{{rand_int -9223372036854775808 9223372036854775807}}'}, {expect: {}}]\nphases: [{name: m, requests: 1}]\n"))
	f.Add([]byte("version: 1\nname: t\ntargets:\n- name: a\n  tcp:\n    address: h:1\n    iteration: [{send_hex: '0'}, {expect: {contains: x}}]\nphases: [{name: m, requests: 1}]\n"))
	f.Add([]byte("version: 1\nname: t\ntargets:\n- name: a\n  http:\n    url: http://h:1\n    setup: [{name: l, path: '/l?u={{worker}}', extract: {tok: {json: a.b}}}]\n" +
		"    flow: [{name: g, url: 'http://h:1/{{tok}}?r={{rand_int 1 2}}', headers: {A: 'B {{tok}}'}, extract: {x: {regex: 'id=(\\d+)'}, y: {header: Location}}}, {name: h, path: '/{{x}}{{y}}'}]\n" +
		"phases: [{name: m, requests: 1}]\n"))
	f.Add([]byte("version: 1\nname: t\ndata: {u: {file: ../testdata/scenarios/ok/users.csv, mode: unique}}\ntargets:\n- name: a\n  http:\n    url: http://h:1\n" +
		"    setup: [{name: l, path: '/{{u.name}}'}]\n    flow: [{name: g, path: '/{{u.password}}'}]\nphases: [{name: m, duration: 1s, concurrency: 9}]\n"))
	f.Add([]byte("version: 1\nname: t\ntargets:\n- name: a\n  grpc:\n    address: h:1\n    method: loadgate.echo.v1.Echo/Say\n    proto: ../testdata/proto/echo.proto\n" +
		"    message: {text: 'x{{seq}}', n: '{{rand_int 1 9}}'}\n    metadata: {k: '{{uuid}}'}\n    expect: {code: [OK, 14]}\nphases: [{name: m, requests: 1}]\n"))
	f.Add([]byte("version: 1\nname: t\ntargets:\n- name: a\n  grpc: {address: 'h:1', method: a.B/C, reflection: true, message: '{\"a\": {{seq}}}'}\nphases: [{name: m, requests: 1}]\n"))
	f.Add([]byte("version: 1\nname: t\ntargets:\n- name: a\n  websocket:\n    url: ws://h:1/x\n    on_connect: [{send: hi}, {expect: {}}]\n" +
		"    iteration: [{send_binary: 'b{{seq}}'}, {send_hex: 'ff00'}, {expect: {regex: '^a', contains: b, equals: c}}]\nphases: [{name: m, requests: 1}]\n"))
	opts := LoadOptions{Vars: map[string]string{"host": "127.0.0.1:1"}}
	f.Fuzz(func(t *testing.T, data []byte) {
		s, err := Parse("fuzz.yaml", data, opts)
		if err != nil {
			var list ErrorList
			if !errors.As(err, &list) || len(list) == 0 {
				t.Fatalf("error is %T, not a non-empty ErrorList: %v", err, err)
			}
			for _, e := range list {
				if e.Pos.File != "fuzz.yaml" && strings.HasSuffix(e.Pos.File, ".proto") && e.Pos.Line > 0 {
					continue // a problem in a proto file the scenario names
				}
				if !inside(data, e.Pos) {
					t.Errorf("diagnostic outside the file: %v", e)
				}
			}
			return
		}
		if len(s.Cases) == 0 || len(s.Targets) == 0 {
			t.Fatalf("valid scenario without cases or targets: %+v", s)
		}
		for _, c := range s.Cases {
			if protocols(c.Target) != 1 || len(c.Phases) == 0 {
				t.Fatalf("case %q is incomplete: %+v", c.ID, c)
			}
			if msg := checkRPC(c.Target); msg != "" {
				t.Fatalf("case %q: %s", c.ID, msg)
			}
			if c.Target.TCP != nil && !validTCP(c.Target.TCP) {
				t.Fatalf("case %q: tcp target %+v", c.ID, c.Target.TCP)
			}
			if c.Target.HTTP != nil && len(c.Target.HTTP.Requests) == 0 {
				t.Fatalf("case %q is incomplete: %+v", c.ID, c)
			}
			if h := c.Target.HTTP; h != nil && h.Flow != nil {
				if msg := checkFlow(h, s.Data); msg != "" {
					t.Fatalf("case %q: flow: %s", c.ID, msg)
				}
			}
			for _, r := range httpRequests(c.Target) {
				if r.Weight < 1 || r.URL == "" || r.Method == "" {
					t.Fatalf("case %q: request %+v", c.ID, r)
				}
			}
			for _, p := range c.Phases {
				if !validPhase(p) {
					t.Fatalf("case %q: phase %+v", c.ID, p)
				}
			}
		}
		if !validProcesses(s) {
			t.Fatalf("servers and monitors: scenario %+v %+v, targets %+v", s.Server, s.Monitor, s.Targets)
		}
		for _, th := range s.Thresholds {
			if !inside(data, th.Pos) || !inside(data, th.RulePos) {
				t.Errorf("threshold %q at %v (rule at %v) is outside the file", th.Name, th.Pos, th.RulePos)
			}
		}
	})
}

// validProcesses states what the runner may rely on about the servers,
// monitors and same-job baselines of a parsed scenario.
func validProcesses(s *Scenario) bool {
	top := s.Server != nil || s.Monitor != nil
	if (s.Server != nil && s.Monitor != nil) || !validServer(s.Server) || !validMonitor(s.Monitor) {
		return false
	}
	byName := map[string]Target{}
	for _, t := range s.Targets {
		byName[t.Name] = t
	}
	ab := false
	for _, c := range s.Cases {
		t := c.Target
		own := t.Server != nil || t.Monitor != nil
		if (top && own) || (t.Server != nil && t.Monitor != nil) || !validServer(t.Server) || !validMonitor(t.Monitor) {
			return false
		}
		if t.Server != nil && t.Server.Name != t.Name {
			return false
		}
		if b := t.BaselineTarget; b != "" {
			ref, ok := byName[b]
			if !ok || b == t.Name || ref.BaselineTarget != "" {
				return false
			}
			ab = true
		}
	}
	for _, c := range s.Cases {
		for _, p := range c.Phases {
			if p.Interleave && (!ab || p.Warmup || p.Trials < 2) {
				return false
			}
		}
	}
	return true
}

func validServer(s *Server) bool {
	return s == nil || (s.Name != "" && len(s.Command) > 0 && s.Command[0] != "" && s.Dir != "" &&
		slices.Contains(stopSignals, s.StopSignal) && s.StopTimeout > 0 && s.Ready.Timeout > 0)
}

func validMonitor(m *Monitor) bool {
	if m == nil {
		return true
	}
	kinds := 0
	for _, set := range []bool{m.PID > 0, m.Process != nil, m.Prometheus != nil} {
		if set {
			kinds++
		}
	}
	if p := m.Prometheus; p != nil && (p.URL == "" || p.CPU == "" || p.RSS == "" || p.Step <= 0 || p.Settle < 0 || p.Lookback < 0 || p.Name == "") {
		return false
	}
	return kinds == 1
}

// validPhase states what the runner may rely on in a parsed phase.
func validPhase(p Phase) bool {
	if p.Adaptive != nil && !(p.Adaptive.Min >= 2 && p.Adaptive.Min <= p.Adaptive.Max && p.Trials == p.Adaptive.Min) {
		return false
	}
	if s := p.Search; s != nil {
		return !p.Warmup && p.Trials >= 1 && p.Rate == (Rate{}) && p.Concurrency == 0 && p.Duration == 0 && p.Requests == 0 &&
			s.From > 0 && s.From <= s.Max && s.Step > 0 && s.ProbeWarmup >= 0 && s.Precision > 0 && s.Precision < 1 &&
			strings.TrimSpace(s.SLO) != "" && s.Confirm >= 0 && s.MaxInFlight >= 1
	}
	ramp := p.ConcurrencyFrom > 0 || p.Rate.From != p.Rate.To
	var model bool
	if p.Rate.Open() {
		model = p.Concurrency == 0 && p.ConcurrencyFrom == 0 && p.MaxInFlight >= 1 &&
			p.Rate.From >= 0 && p.Rate.To >= 0 && p.RampUp == 0 && p.ThinkTime == 0
	} else {
		model = p.Concurrency >= 1 && p.MaxInFlight == 0 && p.Rate == (Rate{}) &&
			p.ConcurrencyFrom < p.Concurrency && !(p.ConcurrencyFrom > 0 && p.RampUp > 0)
	}
	return model && p.Trials >= 1 && (!p.Warmup || p.Trials == 1) &&
		(p.Duration > 0 || p.Requests > 0) && (!ramp || p.Duration > 0)
}

func httpRequests(t Target) []HTTPRequest {
	if t.HTTP == nil {
		return nil
	}
	return t.HTTP.Requests
}

// validTCP states what the runner may rely on in a parsed TCP target: the
// framing is complete, every expect knows when its reply ends, and every
// payload fits its frame.
func validTCP(t *TCPTarget) bool {
	f := &t.Framing
	if t.Address == "" || t.Timeout <= 0 || t.MaxFrame <= 0 || t.MaxFrame > maxMaxFrame || len(t.Iteration) == 0 {
		return false
	}
	lengthSize := 0
	switch f.Kind {
	case FramingLengthPrefixed:
		n := 0
		for _, fl := range f.Fields {
			if fl.Size != 1 && fl.Size != 2 && fl.Size != 4 && fl.Size != 8 {
				return false
			}
			if fl.Length {
				n++
				lengthSize = fl.Size
			} else if fl.Value > fieldMax(fl.Size) {
				return false
			}
		}
		if n != 1 {
			return false
		}
	case FramingLine:
		if len(f.Delimiter) == 0 {
			return false
		}
	case FramingFixed:
		if f.Size < 1 || int64(f.Size) > t.MaxFrame {
			return false
		}
	}
	for _, st := range append(append([]TCPStep{}, t.OnConnect...), t.Iteration...) {
		switch st.Kind {
		case StepExpect:
			e := st.Expect
			if e.Bytes < 0 || e.Bytes > t.MaxFrame || (f.Kind == FramingNone && e.Bytes == 0 && len(e.Contains) == 0) ||
				(f.Kind != FramingNone && e.Bytes != 0) {
				return false
			}
		case StepSend:
			switch f.Kind {
			case FramingFixed:
				if st.Payload.MaxLen() > f.Size {
					return false
				}
			case FramingLengthPrefixed:
				if int64(st.Payload.MinLen())-f.Adjust < 0 || (lengthSize < 8 && int64(st.Payload.MaxLen())-f.Adjust > int64(fieldMax(lengthSize))) {
					return false
				}
			}
		}
		for _, p := range st.Payload.Parts {
			if p.Kind == PartRandInt && p.Min > p.Max {
				return false
			}
		}
	}
	return true
}

// FuzzTemplate checks that compiling a payload never panics, that every
// problem points inside it, and that a template without placeholders
// renders to its own text.
func FuzzTemplate(f *testing.F) {
	for _, s := range []string{"", "plain", `{"TS":{{now_ms}}}`, "{{seq}}{{worker}}{{ uuid }}", "{{rand_int -5 5}}",
		`{{"{{"}}`, "{{", "}}{{x}}", "{{rand_int 9 1}}", "{{rand_int 1}}", `{{"\x"}}`, "{{}}"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		tpl, errs := compileTemplate(s)
		for _, e := range errs {
			if e.Off < 0 || e.Off > len(s) {
				t.Fatalf("offset %d outside %q", e.Off, s)
			}
		}
		if len(errs) > 0 {
			return
		}
		if tpl.MinLen() > tpl.MaxLen() {
			t.Fatalf("MinLen %d > MaxLen %d", tpl.MinLen(), tpl.MaxLen())
		}
		if !strings.Contains(s, "{{") && (!tpl.Static() || string(literalOf(tpl)) != s) {
			t.Fatalf("%q compiled to %+v", s, tpl)
		}
	})
}

func literalOf(t Template) []byte {
	var b []byte
	for _, p := range t.Parts {
		b = append(b, p.Literal...)
	}
	return b
}

// FuzzHex checks send_hex decoding against encoding/hex.
func FuzzHex(f *testing.F) {
	for _, s := range []string{"de ad be ef", "DEADBEEF", "0", "0g", " 00\t01\n", "abc"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		b, errs := parseHex(s)
		if len(errs) > 0 {
			if e := errs[0]; e.Off < 0 || e.Off >= len(s) {
				t.Fatalf("offset %d outside %q", e.Off, s)
			}
			return
		}
		want, err := hex.DecodeString(strings.Join(strings.Fields(s), ""))
		if err != nil || !bytes.Equal(b, want) {
			t.Fatalf("parseHex(%q) = %x, encoding/hex says %x (%v)", s, b, want, err)
		}
	})
}

// checkFlow states what the runner may rely on about a parsed flow: every
// slot indexes the variable table, every column its source, every URL
// starts with a written scheme, and each step is listed as a request.
func checkFlow(h *HTTPTarget, data []*DataSource) string {
	f := h.Flow
	if len(f.Steps) == 0 || len(h.Requests) != len(f.Steps) {
		return fmt.Sprintf("%d steps, %d requests", len(f.Steps), len(h.Requests))
	}
	for _, v := range f.Vars {
		if v.Source >= len(data) || v.Source >= 0 && (v.Column < 0 || v.Column >= len(data[v.Source].Columns)) {
			return fmt.Sprintf("variable %+v", v)
		}
	}
	for _, list := range [][]int{f.SetupData, f.StepData} {
		for _, i := range list {
			if i < 0 || i >= len(data) {
				return fmt.Sprintf("data source %d of %d", i, len(data))
			}
		}
	}
	names := map[string]bool{}
	for _, st := range append(slices.Clone(f.Setup), f.Steps...) {
		if names[st.Name] || st.Name == "" {
			return fmt.Sprintf("step name %q", st.Name)
		}
		names[st.Name] = true
		tpls := []Template{st.URL, st.Body}
		for _, h := range st.Headers {
			tpls = append(tpls, h.Value)
		}
		for _, tpl := range tpls {
			for _, p := range tpl.Parts {
				if p.Kind == PartVar && (p.Slot < 0 || p.Slot >= len(f.Vars)) {
					return fmt.Sprintf("step %q: slot %d of %d", st.Name, p.Slot, len(f.Vars))
				}
			}
		}
		if len(st.URL.Parts) == 0 || st.URL.Parts[0].Kind != PartLiteral ||
			!bytes.HasPrefix(st.URL.Parts[0].Literal, []byte("http://")) && !bytes.HasPrefix(st.URL.Parts[0].Literal, []byte("https://")) {
			return fmt.Sprintf("step %q: URL %+v", st.Name, st.URL)
		}
		for _, x := range st.Extract {
			if x.Slot < 0 || x.Slot >= len(f.Vars) || f.Vars[x.Slot].Source != -1 || f.Vars[x.Slot].Name != x.Var {
				return fmt.Sprintf("step %q: extraction %+v", st.Name, x)
			}
		}
	}
	return ""
}
