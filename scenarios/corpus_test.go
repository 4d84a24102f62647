package scenarios

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"flag"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
)

var update = flag.Bool("update", false, "rewrite the expected diagnostics of testdata/scenarios/err/*.err")

// corpus is the repository's scenario corpus, relative to this package.
const corpus = "../testdata/scenarios"

// cmpRegexp compares compiled expressions by their source.
// ignoreSessions leaves out the session caches, made afresh with each
// tls: block (TestTLSBlockHasItsSessionCache checks them).
var ignoreSessions = cmpopts.IgnoreFields(TLS{}, "Sessions")

var cmpRegexp = cmp.Comparer(func(a, b *regexp.Regexp) bool {
	return (a == nil) == (b == nil) && (a == nil || a.String() == b.String())
})

// render formats diagnostics one per line, with the file's base name so
// that the expected output does not depend on where the tests run.
func render(t *testing.T, err error) string {
	t.Helper()
	var list ErrorList
	if !errors.As(err, &list) {
		t.Fatalf("error is %T, not an ErrorList: %v", err, err)
	}
	var b strings.Builder
	for _, e := range list {
		p := e.Pos
		p.File = filepath.Base(p.File)
		b.WriteString((&Error{Pos: p, Msg: e.Msg}).Error() + "\n")
	}
	return b.String()
}

// TestCorpusErr checks every invalid file against the diagnostics
// expected beside it. Run with -update to rewrite them after a deliberate
// change, then review the diff.
func TestCorpusErr(t *testing.T) {
	files, _ := filepath.Glob(filepath.Join(corpus, "err", "*.yaml"))
	if len(files) < 20 {
		t.Fatalf("found %d files in %s/err; is the corpus missing?", len(files), corpus)
	}
	for _, file := range files {
		name := strings.TrimSuffix(filepath.Base(file), ".yaml")
		t.Run(name, func(t *testing.T) {
			s, err := Load(file, LoadOptions{})
			if err == nil {
				t.Fatalf("Load succeeded with %d cases; want diagnostics", len(s.Cases))
			}
			got := render(t, err)
			golden := strings.TrimSuffix(file, ".yaml") + ".err"
			if *update {
				if err := os.WriteFile(golden, []byte(got), 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			want, err := os.ReadFile(golden)
			if err != nil {
				t.Fatalf("%v (run go test -update to create it)", err)
			}
			if diff := cmp.Diff(string(want), got); diff != "" {
				t.Errorf("diagnostics differ from %s (-want +got):\n%s", golden, diff)
			}
		})
	}
}

// okChecks holds, for every valid file of the corpus, assertions on what it
// resolves to. A new file without an entry fails the test.
var okChecks = map[string]func(t *testing.T, s *Scenario){
	"minimal": func(t *testing.T, s *Scenario) {
		file := s.File
		target := Target{Name: "api", Pos: Pos{file, 5, 5}, HTTP: &HTTPTarget{
			Requests:  []HTTPRequest{{Method: "GET", URL: "http://127.0.0.1:8080/", Weight: 1}},
			Keepalive: true,
			Timeout:   30 * time.Second,
			MaxBody:   10 << 20,
			Expect:    Expect{Length: -1},
		}}
		phase := Phase{Name: "measured", Pos: Pos{file, 9, 5}, Requests: 1000, Concurrency: 1, Trials: 1, GracefulStop: DefaultGracefulStop}
		want := &Scenario{
			File:    file,
			Hash:    s.Hash,
			Source:  s.Source,
			Name:    "minimal",
			Pos:     Pos{file, 3, 7},
			Vars:    map[string]string{},
			Targets: []Target{target},
			Cases:   []Case{{ID: "api", Target: target, Matrix: []MatrixValue{}, Phases: []Phase{phase}}},
		}
		if diff := cmp.Diff(want, s, cmpRegexp, ignoreSessions, cmpopts.EquateEmpty()); diff != "" {
			t.Errorf("(-want +got):\n%s", diff)
		}
	},
	"full-http": func(t *testing.T, s *Scenario) {
		want := &HTTPTarget{
			Requests: []HTTPRequest{{
				Method: "POST",
				URL:    "https://api.example.test:8443/v1/orders?limit=10",
				Headers: []Header{
					{"Content-Type", "application/json"},
					{"Authorization", "Bearer abc"},
					{"X-Retry", "3"},
				},
				Body:   []byte(`{"sku": "A-1", "qty": 2}`),
				Weight: 1,
			}},
			Keepalive: false,
			Timeout:   2500 * time.Millisecond,
			MaxBody:   512 << 10,
			Expect: Expect{
				Status:       []int{200, 201},
				BodyContains: `"id"`,
				BodyRegex:    regexp.MustCompile(`^\{.*\}$`),
				Length:       42,
			},
			TLS: TLS{InsecureSkipVerify: true, CAFile: filepath.Join(corpus, "ok", "ca.pem"), NoResume: true, PostQuantum: true},
		}
		if diff := cmp.Diff(want, s.Targets[0].HTTP, cmpRegexp); diff != "" {
			t.Errorf("target (-want +got):\n%s", diff)
		}
		wantPhases := []Phase{
			{Name: "warmup", Pos: Pos{s.File, 31, 5}, Warmup: true, Requests: 500, Concurrency: 4, Trials: 1, GracefulStop: DefaultGracefulStop},
			{Name: "measured", Pos: Pos{s.File, 35, 5}, Duration: 90 * time.Second, Requests: 100000,
				Concurrency: 64, RampUp: 10 * time.Second, ThinkTime: 100 * time.Millisecond, Trials: 1, GracefulStop: DefaultGracefulStop},
		}
		if diff := cmp.Diff(wantPhases, s.Cases[0].Phases); diff != "" {
			t.Errorf("phases (-want +got):\n%s", diff)
		}
		if s.Description != "every HTTP option at once" {
			t.Errorf("Description = %q", s.Description)
		}
	},
	"body-file": func(t *testing.T, s *Scenario) {
		want, err := os.ReadFile(filepath.Join(corpus, "ok", "payload.json"))
		if err != nil {
			t.Fatal(err)
		}
		req := s.Targets[0].HTTP.Requests[0]
		if diff := cmp.Diff(want, req.Body); diff != "" {
			t.Errorf("body (-want +got):\n%s", diff)
		}
		if req.Method != "PUT" || s.Targets[0].HTTP.MaxBody != 1_000_000 {
			t.Errorf("method %q, max_body %d; want PUT, 1000000", req.Method, s.Targets[0].HTTP.MaxBody)
		}
		if diff := cmp.Diff([]int{204}, s.Targets[0].HTTP.Expect.Status); diff != "" {
			t.Errorf("status shorthand (-want +got):\n%s", diff)
		}
	},
	"request-mix": func(t *testing.T, s *Scenario) {
		json := []Header{{"Accept", "application/json"}, {"X-Client", "loadgate"}}
		want := []HTTPRequest{
			{Name: "home", Method: "GET", URL: "http://shop.example.test/ignored/path", Headers: json, Weight: 1},
			{Name: "search", Method: "GET", URL: "http://shop.example.test/search?q=shoes", Weight: 5,
				Headers: []Header{{"X-Client", "loadgate"}, {"accept", "text/html"}}},
			{Name: "login", Method: "POST", URL: "http://shop.example.test/login", Weight: 1, Body: []byte("user=a&pass=b"),
				Headers: append(json[:2:2], Header{"Content-Type", "application/x-www-form-urlencoded"})},
			{Name: "cdn", Method: "GET", URL: "https://cdn.example.test/logo.png", Headers: json, Weight: 2},
		}
		if diff := cmp.Diff(want, s.Targets[0].HTTP.Requests); diff != "" {
			t.Errorf("shop (-want +got):\n%s", diff)
		}
		wantOnly := []HTTPRequest{{Name: "only", Method: "GET", URL: "http://other.example.test/x", Weight: 1}}
		if diff := cmp.Diff(wantOnly, s.Targets[1].HTTP.Requests); diff != "" {
			t.Errorf("no-base (-want +got):\n%s", diff)
		}
	},
	"matrix": func(t *testing.T, s *Scenario) {
		type row struct {
			ID          string
			URL         string
			Keepalive   bool
			Concurrency []int
			Values      []any
		}
		var got []row
		for _, c := range s.Cases {
			r := row{ID: c.ID, URL: c.Target.HTTP.Requests[0].URL, Keepalive: c.Target.HTTP.Keepalive}
			for _, p := range c.Phases {
				r.Concurrency = append(r.Concurrency, p.Concurrency)
			}
			for _, mv := range c.Matrix {
				r.Values = append(r.Values, mv.Value)
			}
			got = append(got, r)
		}
		h, tm := "http://127.0.0.1:8080/hello", "http://127.0.0.1:8080/time"
		want := []row{
			{"keepalive concurrency=1,path=hello,fast=true", h, true, []int{1, 1}, []any{int64(1), "hello", true}},
			{"keepalive concurrency=1,path=time,fast=true", tm, true, []int{1, 1}, []any{int64(1), "time", true}},
			{"keepalive concurrency=100,path=hello,fast=true", h, true, []int{100, 100}, []any{int64(100), "hello", true}},
			{"keepalive concurrency=100,path=time,fast=true", tm, true, []int{100, 100}, []any{int64(100), "time", true}},
			{"short concurrency=1,path=hello,fast=true", h, false, []int{1, 1}, []any{int64(1), "hello", true}},
			{"short concurrency=1,path=time,fast=true", tm, false, []int{1, 1}, []any{int64(1), "time", true}},
			{"short concurrency=100,path=hello,fast=true", h, false, []int{100, 100}, []any{int64(100), "hello", true}},
			{"short concurrency=100,path=time,fast=true", tm, false, []int{100, 100}, []any{int64(100), "time", true}},
		}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("cases (-want +got):\n%s", diff)
		}
		if got := s.Targets[0].HTTP.Requests[0].URL; got != h {
			t.Errorf("Targets resolve for the first combination: url %q, want %q", got, h)
		}
		if keys := []string{s.Matrix[0].Key, s.Matrix[1].Key, s.Matrix[2].Key}; !cmp.Equal(keys, []string{"concurrency", "path", "fast"}) {
			t.Errorf("axes %v are not in file order", keys)
		}
	},
	"vars": func(t *testing.T, s *Scenario) {
		c := s.Cases[0]
		req := c.Target.HTTP.Requests[0]
		got := []string{s.Name, s.Description, req.URL, s.Thresholds[0].Rule}
		want := []string{"vars-plain", "costs $5, hosted at file.example.test", "http://file.example.test:8080/index.html", "rps > 100"}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("(-want +got):\n%s", diff)
		}
		wantHeaders := []Header{{"Authorization", "Bearer from-file"}, {"X-Default", "fallback"}, {"X-Literal", "price $1 and $HOME"}}
		if diff := cmp.Diff(wantHeaders, req.Headers); diff != "" {
			t.Errorf("headers (-want +got):\n%s", diff)
		}
		if p := c.Phases[0]; p.Requests != 250 || p.Concurrency != 2 {
			t.Errorf("defaults in integer fields: requests %d, concurrency %d; want 250, 2", p.Requests, p.Concurrency)
		}
		wantVars := map[string]string{"host": "file.example.test", "port": "8080", "token": "from-file", "empty": ""}
		if diff := cmp.Diff(wantVars, s.Vars); diff != "" {
			t.Errorf("Vars (-want +got):\n%s", diff)
		}
	},
	"thresholds": func(t *testing.T, s *Scenario) {
		f := s.File
		want := []Threshold{
			{Name: "error_rate < 0.001", Rule: "error_rate < 0.001", Severity: SeverityFail, Pos: Pos{f, 14, 5}, RulePos: Pos{f, 14, 5}},
			{Name: "p(99.9) < 200ms", Rule: "p(99.9) < 200ms", Severity: SeverityFail, Pos: Pos{f, 15, 5}, RulePos: Pos{f, 15, 6}},
			{Name: "p99 < 50ms", Rule: "p99 < 50ms", Severity: SeverityFail, Pos: Pos{f, 16, 5}, RulePos: Pos{f, 16, 6}},
			{Name: "no regression", Rule: `!regressed("rps", 5%)`, Severity: SeverityFail, Pos: Pos{f, 17, 5}, RulePos: Pos{f, 18, 12}},
			{Name: "server.rss_max < 512MiB", Rule: "server.rss_max < 512MiB", Severity: SeverityWarn, Pos: Pos{f, 20, 5}, RulePos: Pos{f, 20, 14}},
			{Name: "peak only", Rule: "rps > 1000", Severity: SeverityFail, Phase: "peak", Pos: Pos{f, 21, 5}, RulePos: Pos{f, 21, 30}},
			{Name: "p50 < 10ms", Rule: "p50 < 10ms", Severity: SeverityFail, Phase: "steady", Target: "b", Pos: Pos{f, 22, 5}, RulePos: Pos{f, 22, 13}},
			{Name: "requests > 0 && failed == 0", Rule: "requests > 0 && failed == 0", Severity: SeverityFail, Pos: Pos{f, 23, 5}, RulePos: Pos{f, 24, 7}},
		}
		if diff := cmp.Diff(want, s.Thresholds); diff != "" {
			t.Errorf("(-want +got):\n%s", diff)
		}
	},
	"anchors": func(t *testing.T, s *Scenario) {
		sec := s.Targets[1].HTTP
		got := []any{sec.Requests[0].URL, sec.Timeout, sec.Requests[0].Headers}
		want := []any{"http://secondary.example.test/", 3 * time.Second, []Header{{"Accept", "text/plain"}}}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("merged target (-want +got):\n%s", diff)
		}
		type merged struct {
			Name        string
			Duration    time.Duration
			Concurrency int
			ThinkTime   time.Duration
		}
		var gotPhases []merged
		for _, p := range s.Cases[0].Phases {
			gotPhases = append(gotPhases, merged{p.Name, p.Duration, p.Concurrency, p.ThinkTime})
		}
		wantPhases := []merged{
			{"measured", 20 * time.Second, 5, 0},
			{"again", 20 * time.Second, 6, 10 * time.Millisecond},
			{"listed", 20 * time.Second, 6, 10 * time.Millisecond}, // *again wins over *phase
			{"before", 20 * time.Second, 7, 0},                     // the written key wins, wherever it stands
		}
		if diff := cmp.Diff(wantPhases, gotPhases); diff != "" {
			t.Errorf("merged phases (-want +got):\n%s", diff)
		}
	},
	"open-rate": func(t *testing.T, s *Scenario) {
		f := s.File
		want := []Phase{
			{Name: "warmup", Pos: Pos{f, 12, 5}, Warmup: true, Duration: 10 * time.Second,
				Rate: Rate{0.5, 0.5}, MaxInFlight: DefaultMaxInFlight, Trials: 1, GracefulStop: DefaultGracefulStop},
			{Name: "steady", Pos: Pos{f, 16, 5}, Duration: time.Minute,
				Rate: Rate{2000, 2000}, MaxInFlight: 256, Trials: 1, GracefulStop: DefaultGracefulStop},
			{Name: "burst", Pos: Pos{f, 20, 5}, Requests: 50000,
				Rate: Rate{15000, 15000}, MaxInFlight: DefaultMaxInFlight, Trials: 1, GracefulStop: DefaultGracefulStop},
		}
		if diff := cmp.Diff(want, s.Cases[0].Phases); diff != "" {
			t.Errorf("phases (-want +got):\n%s", diff)
		}
	},
	"rate-ramp": func(t *testing.T, s *Scenario) {
		type row struct {
			Name        string
			Rate        Rate
			MaxInFlight int
			Concurrency int
		}
		var got []row
		for _, p := range s.Cases[0].Phases {
			got = append(got, row{p.Name, p.Rate, p.MaxInFlight, p.Concurrency})
		}
		want := []row{
			{"up", Rate{0, 100}, DefaultMaxInFlight, 0},
			{"climb", Rate{100, 5000}, 5000, 0},
			{"drain", Rate{2.5, 0}, DefaultMaxInFlight, 0},
			{"flat", Rate{300, 300}, DefaultMaxInFlight, 0},
		}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("(-want +got):\n%s", diff)
		}
	},
	"concurrency-ramp": func(t *testing.T, s *Scenario) {
		type row struct {
			Case, Phase   string
			From, To      int
			RampUp, Think time.Duration
		}
		var got []row
		for _, c := range s.Cases {
			for _, p := range c.Phases {
				if p.Rate.Open() || p.MaxInFlight != 0 || p.Trials != 1 {
					t.Errorf("%s/%s: closed-model phase with rate %v, max_in_flight %d, trials %d", c.ID, p.Name, p.Rate, p.MaxInFlight, p.Trials)
				}
				got = append(got, row{c.ID, p.Name, p.ConcurrencyFrom, p.Concurrency, p.RampUp, p.ThinkTime})
			}
		}
		want := []row{
			{"api top=10", "grow", 1, 100, 0, 50 * time.Millisecond},
			{"api top=10", "step", 0, 10, 0, 0}, // from == to: a constant level, not a ramp
			{"api top=10", "level", 0, 8, 2 * time.Second, 0},
			{"api top=200", "grow", 1, 100, 0, 50 * time.Millisecond},
			{"api top=200", "step", 10, 200, 0, 0},
			{"api top=200", "level", 0, 8, 2 * time.Second, 0},
		}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("(-want +got):\n%s", diff)
		}
	},
	"tcp": checkTCP,
	"server": func(t *testing.T, s *Scenario) {
		want := &Server{
			Name:    "server",
			Command: []string{"sh", "-c", `./hello --addr 127.0.0.1:8080 --root "$PWD"`},
			Dir:     filepath.Join(corpus, "ok", "www"),
			Env:     []string{"GOMAXPROCS=2", "MODE=fast", "DEBUG=false", "EMPTY=", "ADDR=127.0.0.1:8080"},
			Ready: Ready{
				HTTP:    "http://127.0.0.1:8080/health",
				Log:     regexp.MustCompile(`listening on \S+`),
				Timeout: 45 * time.Second,
			},
			StopSignal:  "INT",
			StopTimeout: 5 * time.Second,
			Pos:         Pos{s.File, 8, 1},
		}
		if diff := cmp.Diff(want, s.Server, cmpRegexp); diff != "" {
			t.Errorf("server (-want +got):\n%s", diff)
		}
		for _, c := range s.Cases {
			if c.Target.Server != nil || c.Target.Monitor != nil {
				t.Errorf("case %s: the scenario's server was copied onto its target", c.ID)
			}
		}
		if s.Monitor != nil {
			t.Errorf("Monitor = %+v, want nil", s.Monitor)
		}
	},
	"server-matrix": func(t *testing.T, s *Scenario) {
		type row struct {
			ID      string
			Command []string
			Env     []string
		}
		var got []row
		for _, c := range s.Cases {
			srv := s.ServerOf(&c)
			got = append(got, row{c.ID, srv.Command, srv.Env})
		}
		scenario := func(w string) []string {
			return []string{"sh", "-c", "./bin/hello --addr 127.0.0.1:8080 --workers " + w}
		}
		want := []row{
			{"api workers=1,c=8", scenario("1"), []string{"WORKERS=1"}},
			{"api workers=4,c=8", scenario("4"), []string{"WORKERS=4"}},
			{"static workers=1,c=8", scenario("1"), []string{"WORKERS=1"}},
			{"static workers=4,c=8", scenario("4"), []string{"WORKERS=4"}},
		}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("each case's server (-want +got):\n%s", diff)
		}
		// The scenario's server, as the first combination resolves it.
		if s.Server == nil || !slices.Equal(s.Server.Command, scenario("1")) || s.Cases[0].Target.Server != nil {
			t.Errorf("scenario server %+v, first case's target server %+v", s.Server, s.Cases[0].Target.Server)
		}
	},
	"servers-matrix": func(t *testing.T, s *Scenario) {
		type row struct {
			ID      string
			Command []string
			Env     []string
		}
		var got []row
		for _, c := range s.Cases {
			got = append(got, row{c.ID, c.Target.Server.Command, c.Target.Server.Env})
		}
		want := []row{
			{"tomcat threads=200", []string{"./bin/tomcat", "--max-threads", "200"}, nil},
			{"tomcat threads=400", []string{"./bin/tomcat", "--max-threads", "400"}, nil},
			{"jetty threads=200", []string{"sh", "-c", "./bin/jetty --threads=200"}, []string{"THREADS=200"}},
			{"jetty threads=400", []string{"sh", "-c", "./bin/jetty --threads=400"}, []string{"THREADS=400"}},
		}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("each case's server (-want +got):\n%s", diff)
		}
		if s.Server != nil || s.Cases[0].Server != nil {
			t.Errorf("scenario server %+v, case server %+v; want none", s.Server, s.Cases[0].Server)
		}
	},
	"servers": func(t *testing.T, s *Scenario) {
		f := s.File
		nginx := &Server{
			Name:        "nginx",
			Command:     []string{"sh", "-c", "nginx -g 'daemon off;' -c nginx.conf"},
			Dir:         filepath.Join(corpus, "ok"), // the scenario's own directory
			Ready:       Ready{Timeout: 30 * time.Second},
			StopSignal:  "TERM",
			StopTimeout: 10 * time.Second,
			Pos:         Pos{f, 11, 5},
		}
		goServer := &Server{
			Name:        "go",
			Command:     []string{"./bin/hello", "--addr", "127.0.0.1:8082", "", "4242"},
			Dir:         corpus,
			Env:         []string{"GOGC=off"},
			Ready:       Ready{TCP: "127.0.0.1:8082", Timeout: 30 * time.Second},
			StopSignal:  "QUIT",
			StopTimeout: time.Minute,
			Pos:         Pos{f, 16, 5},
		}
		type row struct {
			ID      string
			Server  *Server
			Monitor *Monitor
		}
		pid := &Monitor{PID: 4242, Pos: Pos{f, 24, 5}}
		apache := &Monitor{Process: regexp.MustCompile(`^/usr/sbin/apache2 -k start`), Pos: Pos{f, 29, 5}}
		want := []row{
			{"nginx c=1", nginx, nil}, {"nginx c=8", nginx, nil},
			{"go c=1", goServer, nil}, {"go c=8", goServer, nil},
			{"legacy c=1", nil, pid}, {"legacy c=8", nil, pid},
			{"apache c=1", nil, apache}, {"apache c=8", nil, apache},
			{"external c=1", nil, nil}, {"external c=8", nil, nil},
		}
		var got []row
		for _, c := range s.Cases {
			got = append(got, row{c.ID, c.Target.Server, c.Target.Monitor})
		}
		if diff := cmp.Diff(want, got, cmpRegexp); diff != "" {
			t.Errorf("(-want +got):\n%s", diff)
		}
		// Without matrix variables every case resolves the same server,
		// which is therefore started once for all of them.
		if diff := cmp.Diff(s.Cases[0].Target.Server, s.Cases[1].Target.Server, cmpRegexp); diff != "" {
			t.Errorf("the cases of one target have different servers (-c=1 +c=8):\n%s", diff)
		}
		if s.Server != nil || s.Monitor != nil {
			t.Errorf("scenario server %+v, monitor %+v; want none", s.Server, s.Monitor)
		}
	},
	"ab": func(t *testing.T, s *Scenario) {
		type row struct {
			ID, Baseline string
			Trials       []int
			Interleave   []bool
		}
		var got []row
		for _, c := range s.Cases {
			r := row{ID: c.ID, Baseline: c.Target.BaselineTarget}
			for _, p := range c.Phases {
				r.Trials = append(r.Trials, p.Trials)
				r.Interleave = append(r.Interleave, p.Interleave)
			}
			got = append(got, r)
		}
		two, five := []int{1, 2, 3, 1}, []int{1, 5, 3, 1}
		on := []bool{false, true, false, false}
		want := []row{
			{"main n=2", "", two, on}, {"main n=5", "", five, on},
			{"pr n=2", "main", two, on}, {"pr n=5", "main", five, on},
			{"canary n=2", "main", two, on}, {"canary n=5", "main", five, on},
		}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("(-want +got):\n%s", diff)
		}
		if s.Targets[1].BaselineTarget != "main" {
			t.Errorf("Targets[1].BaselineTarget = %q, want main", s.Targets[1].BaselineTarget)
		}
	},
	"trials": func(t *testing.T, s *Scenario) {
		f := s.File
		want := []Phase{
			{Name: "warmup", Pos: Pos{f, 12, 5}, Warmup: true, Requests: 1000, Concurrency: 8, Trials: 1, GracefulStop: DefaultGracefulStop},
			{Name: "closed", Pos: Pos{f, 13, 5}, Duration: 20 * time.Second, Concurrency: 8, Trials: 5, GracefulStop: DefaultGracefulStop},
			{Name: "open", Pos: Pos{f, 14, 5}, Duration: 20 * time.Second, Rate: Rate{500, 500}, MaxInFlight: DefaultMaxInFlight, Trials: 3, GracefulStop: DefaultGracefulStop},
			{Name: "once", Pos: Pos{f, 15, 5}, Requests: 100, Concurrency: 1, Trials: 1, GracefulStop: DefaultGracefulStop},
		}
		if diff := cmp.Diff(want, s.Cases[0].Phases); diff != "" {
			t.Errorf("phases (-want +got):\n%s", diff)
		}
	},
}

func checkTCP(t *testing.T, s *Scenario) {
	f := s.File
	lit := func(s string) Template {
		return Template{Parts: []TemplatePart{{Kind: PartLiteral, Literal: []byte(s)}}}
	}
	connect := Template{Parts: []TemplatePart{{Kind: PartLiteral, Literal: []byte(`{"T":"Connect","S":1,"W":`)},
		{Kind: PartWorker}, {Kind: PartLiteral, Literal: []byte("}")}}}
	data := Template{Parts: []TemplatePart{
		{Kind: PartLiteral, Literal: []byte(`{"TS":`)}, {Kind: PartNowMS},
		{Kind: PartLiteral, Literal: []byte(`,"N":`)}, {Kind: PartSeq},
		{Kind: PartLiteral, Literal: []byte(`,"R":`)}, {Kind: PartRandInt, Min: -5, Max: 5},
		{Kind: PartLiteral, Literal: []byte(`,"U":"`)}, {Kind: PartUUID}, {Kind: PartLiteral, Literal: []byte(`"}`)},
	}}
	monitor := &TCPTarget{
		Address:  "127.0.0.1:13888",
		Timeout:  2500 * time.Millisecond,
		MaxFrame: 64 << 10,
		Framing: Framing{Kind: FramingLengthPrefixed, Adjust: -7, Fields: []FrameField{
			{Size: 2, Value: 1}, {Size: 4, Length: true}, {Size: 1, Value: 0x7f},
		}},
		OnConnect: []TCPStep{
			{Kind: StepSend, Pos: Pos{f, 19, 11}, Payload: connect},
			{Kind: StepExpect, Pos: Pos{f, 20, 11}, Expect: TCPExpect{Contains: []byte("ConnectAck")}},
		},
		Iteration: []TCPStep{
			{Kind: StepSend, Pos: Pos{f, 22, 11}, Payload: data},
			{Kind: StepExpect, Pos: Pos{f, 23, 11}},
			{Kind: StepSendRaw, Pos: Pos{f, 24, 11}, Payload: lit("a{{b")},
			{Kind: StepSendRaw, Pos: Pos{f, 25, 11}, Payload: lit("\xde\xad\xbe\xef\x00\x01")},
		},
	}
	if diff := cmp.Diff(monitor, s.Targets[0].TCP); diff != "" {
		t.Errorf("monitor (-want +got):\n%s", diff)
	}
	short := *monitor
	short.Connection = PerIteration
	short.Framing = Framing{Kind: FramingLengthPrefixed, Fields: []FrameField{
		{Size: 2, LittleEndian: true, Value: 2}, {Size: 4, LittleEndian: true, Length: true},
	}}
	if diff := cmp.Diff(&short, s.Targets[1].TCP); diff != "" {
		t.Errorf("short: merged and overridden (-want +got):\n%s", diff)
	}
	if got := s.Targets[1].TCP.Framing.HeaderLen(); got != 6 {
		t.Errorf("HeaderLen = %d, want 6", got)
	}
	redis := s.Targets[2].TCP
	if redis.Framing.Kind != FramingLine || string(redis.Framing.Delimiter) != "\r\n" || redis.Connection != Persistent ||
		string(redis.Iteration[1].Expect.Equals) != "+PONG" || redis.Timeout != defaultTimeout || redis.MaxFrame != defaultMaxFrame {
		t.Errorf("redis: %+v", redis)
	}
	if b := s.Targets[3].TCP; b.Address != "[::1]:7" || b.Framing.Kind != FramingFixed || b.Framing.Size != 8 {
		t.Errorf("blocks: %+v", b)
	}
	wantStream := []TCPExpect{{Bytes: 5}, {Contains: []byte("\r\n\r\n")}, {Equals: []byte("bye"), Bytes: 3}}
	var gotStream []TCPExpect
	for _, st := range s.Targets[4].TCP.Iteration {
		if st.Kind == StepExpect {
			gotStream = append(gotStream, st.Expect)
		}
	}
	if diff := cmp.Diff(wantStream, gotStream); diff != "" {
		t.Errorf("stream expects (-want +got):\n%s", diff)
	}
	for _, tg := range s.Targets {
		if tg.HTTP != nil {
			t.Errorf("target %s has an http block", tg.Name)
		}
	}
}

func TestCorpusOK(t *testing.T) {
	files, _ := filepath.Glob(filepath.Join(corpus, "ok", "*.yaml"))
	if len(files) < len(okChecks) {
		t.Fatalf("found %d files in %s/ok, want at least %d", len(files), corpus, len(okChecks))
	}
	for _, file := range files {
		name := strings.TrimSuffix(filepath.Base(file), ".yaml")
		t.Run(name, func(t *testing.T) {
			s, err := Load(file, LoadOptions{})
			if err != nil {
				t.Fatalf("Load: %v", err)
			}
			data, _ := os.ReadFile(file)
			if sum := sha256.Sum256([]byte(s.Redact(string(data)))); s.Hash != hex.EncodeToString(sum[:]) {
				t.Errorf("Hash = %s, not the SHA-256 of the file with its secrets redacted", s.Hash)
			}
			for _, c := range s.Cases {
				if !sendsSomething(c.Target) {
					t.Errorf("case %q has no request", c.ID)
				}
			}
			check, ok := okChecks[name]
			if !ok {
				t.Fatalf("no entry in okChecks for %s", file)
			}
			check(t, s)
		})
	}
}

func TestTLSBlockHasItsSessionCache(t *testing.T) {
	s := mustParse(t, `
version: 1
name: tls
targets:
  - name: resumes
    http: { url: "https://127.0.0.1:8443/", tls: { insecure_skip_verify: true } }
  - name: full-handshakes
    http: { url: "https://127.0.0.1:8443/", tls: { resume: false } }
  - name: also-resumes
    http: { url: "https://127.0.0.1:8443/" }
phases:
  - { name: m, requests: 10, concurrency: 1 }
`, LoadOptions{})
	resumes, full, also := s.Targets[0].HTTP.TLS, s.Targets[1].HTTP.TLS, s.Targets[2].HTTP.TLS
	if resumes.Sessions == nil || also.Sessions == nil {
		t.Fatal("a tls: block that resumes has no session cache")
	}
	if full.Sessions != nil {
		t.Error("resume: false still has a session cache")
	}
	// Two targets never share sessions: each may reach another server.
	if resumes.Sessions == also.Sessions {
		t.Error("two targets share one session cache")
	}
}
