package curl

import (
	"errors"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/loadgate/loadgate/assertions"
	"github.com/loadgate/loadgate/scenarios"
)

var update = flag.Bool("update", false, "rewrite the golden scenarios under testdata/")

// sent is a request as the imported scenario sends it, read back from the
// scenario loadgate resolved.
type sent struct {
	Method, URL string
	Headers     []string // "Name: value", in order
	Body        string
}

// load validates an imported scenario as loadgate validate does (rules
// compiled too) and returns it.
func load(t testing.TB, dir string, yaml []byte, secrets map[string]string) (*scenarios.Scenario, error) {
	t.Helper()
	sc, err := scenarios.Parse(filepath.Join(dir, "imported.yaml"), yaml, scenarios.LoadOptions{SecretVars: secrets})
	if err != nil {
		return nil, err
	}
	if _, err := assertions.Compile(sc); err != nil {
		return nil, err
	}
	return sc, nil
}

// requests lists what the scenario's only target sends, a flow's steps in
// order.
func requests(sc *scenarios.Scenario) []sent {
	h := sc.Targets[0].HTTP
	var out []sent
	if h.Flow == nil {
		for _, r := range h.Requests {
			s := sent{Method: r.Method, URL: r.URL, Body: string(r.Body)}
			for _, hd := range r.Headers {
				s.Headers = append(s.Headers, hd.Name+": "+hd.Value)
			}
			out = append(out, s)
		}
		return out
	}
	for _, st := range h.Flow.Steps {
		s := sent{Method: st.Method, URL: render(st.URL), Body: render(st.Body)}
		for _, hd := range st.Headers {
			s.Headers = append(s.Headers, hd.Name+": "+render(hd.Value))
		}
		out = append(out, s)
	}
	return out
}

func render(t scenarios.Template) string {
	var b strings.Builder
	for _, p := range t.Parts {
		if p.Kind != scenarios.PartLiteral {
			return "<placeholder>"
		}
		b.Write(p.Literal)
	}
	return b.String()
}

// TestImportMapsCurlOptions: each option becomes what curl would send.
func TestImportMapsCurlOptions(t *testing.T) {
	form := "Content-Type: application/x-www-form-urlencoded"
	tests := []struct {
		name, curl string
		secrets    map[string]string
		want       []sent
	}{
		{"get", `curl http://h/x`, nil, []sent{{Method: "GET", URL: "http://h/x"}}},
		{"method", `curl -X put http://h/x`, nil, []sent{{Method: "PUT", URL: "http://h/x"}}},
		{"joined short options", `curl -sSXPOST -H'X-A: 1' --url http://h/`, nil, []sent{{Method: "POST", URL: "http://h/", Headers: []string{"X-A: 1"}}}},
		{"data", `curl -d a=1 --data-raw '@b=2' --data-binary c=3 http://h/`, nil, []sent{{Method: "POST", URL: "http://h/", Headers: []string{form}, Body: "a=1&@b=2&c=3"}}},
		{"urlencode", `curl --data-urlencode 'q=a b&c/é' --data-urlencode =x+y --data-urlencode 'z~' http://h/`, nil,
			[]sent{{Method: "POST", URL: "http://h/", Headers: []string{form}, Body: "q=a%20b%26c%2F%C3%A9&x%2By&z~"}}},
		{"json", `curl --json '{"a":' --json '1}' http://h/`, nil,
			[]sent{{Method: "POST", URL: "http://h/", Headers: []string{"Content-Type: application/json", "Accept: application/json"}, Body: `{"a":1}`}}},
		{"own content type", `curl -H 'Content-Type: text/plain' -d x http://h/`, nil, []sent{{Method: "POST", URL: "http://h/", Headers: []string{"Content-Type: text/plain"}, Body: "x"}}},
		{"get with data", `curl -G -d q=1 -d r=2 'http://h/s?x=2'`, nil, []sent{{Method: "GET", URL: "http://h/s?x=2&q=1&r=2"}}},
		{"head", `curl -I http://h/`, nil, []sent{{Method: "HEAD", URL: "http://h/"}}},
		{"basic auth", `curl -u alice:pw http://h/`, map[string]string{"basic_auth": "YWxpY2U6cHc="},
			[]sent{{Method: "GET", URL: "http://h/", Headers: []string{"Authorization: Basic YWxpY2U6cHc="}}}},
		{"credentials in the URL", `curl http://alice:pw@h/x#frag`, map[string]string{"basic_auth": "YWxpY2U6cHc="},
			[]sent{{Method: "GET", URL: "http://h/x", Headers: []string{"Authorization: Basic YWxpY2U6cHc="}}}},
		{"bearer", `curl -H 'Authorization: Bearer t0ken' --oauth2-bearer 0th3r http://h/`, map[string]string{"authorization": "T"},
			[]sent{{Method: "GET", URL: "http://h/", Headers: []string{"Authorization: Bearer T"}}}},
		{"browser headers", `curl -A ua/1 -e 'http://r/;auto' -b 'a=1; b=2' --compressed http://h/`, map[string]string{"cookie": "C=1"},
			[]sent{{Method: "GET", URL: "http://h/", Headers: []string{"User-Agent: ua/1", "Referer: http://r/", "Cookie: C=1", "Accept-Encoding: gzip, deflate, br"}}}},
		{"repeated and removed headers", `curl -H 'X-A: 1' -H 'x-a: 2' -H 'Accept:' -H 'X-Empty;' -H 'Content-Length: 9' -A ua -H 'User-Agent: mine' http://h/`, nil,
			[]sent{{Method: "GET", URL: "http://h/", Headers: []string{"X-A: 1, 2", "X-Empty: ", "User-Agent: mine"}}}},
		{"secret query", `curl 'http://h/?page=2&access_token=abc&key=k'`, map[string]string{"access_token": "S", "key": "K"},
			[]sent{{Method: "GET", URL: "http://h/?page=2&access_token=S&key=K"}}},
		{"shell variables", `curl "http://h/u/$ID" -H "Authorization: Bearer $TOKEN" -d "n=$N&price=\$5"`, map[string]string{"TOKEN": "T", "ID": "7", "N": "x"},
			[]sent{{Method: "POST", URL: "http://h/u/7", Headers: []string{"Authorization: Bearer T", form}, Body: "n=x&price=$5"}}},
		{"dollars and braces as text", `curl -d '${x}{{y}}$$' 'http://h/a$b'`, nil, []sent{{Method: "POST", URL: "http://h/a$b", Headers: []string{form}, Body: "${x}{{y}}$$"}}},
		{"no scheme", `curl example.com/x`, nil, []sent{{Method: "GET", URL: "http://example.com/x"}}},
		{"prompt and ignored options", `$ curl -sSLf -o /dev/null -w '%{http_code}' --retry 3 http://h/`, nil, []sent{{Method: "GET", URL: "http://h/"}}},
		{"flow", "curl -u a:b http://h/login -X POST\ncurl 'http://h/items?q={{x}}' -g\ncurl --json '{\"a\":\"{{uuid}}\"}' https://other.example/o", map[string]string{"basic_auth": "QQ=="},
			[]sent{
				{Method: "POST", URL: "http://h/login", Headers: []string{"Authorization: Basic QQ=="}},
				{Method: "GET", URL: "http://h/items?q={{x}}"},
				{Method: "POST", URL: "https://other.example/o", Headers: []string{"Content-Type: application/json", "Accept: application/json"}, Body: `{"a":"{{uuid}}"}`},
			}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			out, err := Import([]Input{{Name: "test", Text: tt.curl}}, Options{Dir: dir, OutDir: dir})
			if err != nil {
				t.Fatal(err)
			}
			sc, err := load(t, dir, out, tt.secrets)
			if err != nil {
				t.Fatalf("%v\n%s", err, out)
			}
			if d := cmp.Diff(tt.want, requests(sc)); d != "" {
				t.Errorf("(-want +got):\n%s\n%s", d, out)
			}
			for _, secret := range []string{"pw", "t0ken", "0th3r", "abc", "a=1; b=2"} {
				if strings.Contains(tt.curl, secret) && strings.Contains(string(out), secret) {
					t.Errorf("the credential %q is in the scenario:\n%s", secret, out)
				}
			}
		})
	}
}

// TestImportTransport: -k, --http2 and -m are settings of the target.
func TestImportTransport(t *testing.T) {
	dir := t.TempDir()
	out, err := Import([]Input{{Name: "a", Text: "curl -k --http2 -m 1.5 https://h/"}, {Name: "b", Text: "curl https://h/x --max-time 3"}}, Options{Dir: dir, OutDir: dir})
	if err != nil {
		t.Fatal(err)
	}
	sc, err := load(t, dir, out, nil)
	if err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	h := sc.Targets[0].HTTP
	if !h.TLS.InsecureSkipVerify || !h.HTTP2 || h.Timeout != 3*time.Second || h.Flow == nil || len(h.Flow.Steps) != 2 {
		t.Errorf("tls %+v, http2 %v, timeout %v, flow %v\n%s", h.TLS, h.HTTP2, h.Timeout, h.Flow, out)
	}
	if !strings.Contains(string(out), "# -k was given to 1 of the 2 curl commands; it applies to every step") {
		t.Errorf("no note that -k applies to every step:\n%s", out)
	}
}

// TestImportBodyFile: @FILE is a body_file, written relative to the
// scenario's directory and sent as the file is.
func TestImportBodyFile(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "order.json"), []byte("{\n\"a\": 1}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	outDir := filepath.Join(dir, "loadtest")
	out, err := Import([]Input{{Name: "a", Text: "curl --data-binary @order.json -H 'Content-Type: application/json' http://h/"}}, Options{Dir: dir, OutDir: outDir})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(out), "body_file: ../order.json\n") {
		t.Errorf("no body_file relative to the scenario:\n%s", out)
	}
	sc, err := load(t, outDir, out, nil)
	if err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	if got := requests(sc)[0]; got.Method != "POST" || got.Body != "{\n\"a\": 1}\n" {
		t.Errorf("%+v", got)
	}
}

// TestImportErrors: every refusal names the input, line and column.
func TestImportErrors(t *testing.T) {
	tests := []struct{ curl, want string }{
		{`curl --frobnicate http://h/`, "in:1:6: unknown curl option --frobnicate"},
		{`curl -sZ http://h/`, "in:1:8: -Z (--parallel) cannot be imported"},
		{`curl -F a=b http://h/`, "in:1:6: -F (--form) cannot be imported: multipart forms"},
		{`wget http://h/`, `in:1:1: not a curl command: "wget"`},
		{"curl http://h/ \\\n  --bogus", "in:2:3: unknown curl option --bogus"},
		{`curl "http://$HOST/"`, "in:1:14: the shell variable $HOST in the URL's scheme or host"},
		{`curl -X "$M" http://h/`, "in:1:10: -X: the shell variable $M cannot be kept here"},
		{`curl -u alice http://h/`, "in:1:9: -u without a password"},
		{`curl -H`, "in:1:6: -H needs a value"},
		{`curl --header`, "in:1:6: --header needs a value"},
		{`curl -k`, "in:1:1: curl command without a URL"},
		{`curl ftp://h/`, `in:1:6: "ftp://h/" is not an http:// or https:// URL`},
		{`curl http://h:0/`, `in:1:6: the URL's port "0"`},
		{`curl http://h/ http://i/`, "in:1:16: a second URL"},
		{`curl -d @missing.json http://h/`, "in:1:9: @missing.json:"},
		{`curl -d @- http://h/`, "in:1:9: @-: a body from standard input"},
		{`curl -d @x -d y http://h/`, "in:1:9: a body from @FILE together with other data"},
		{`curl http://h/[1-3]`, "in:1:15: curl expands [..] and {..}"},
		{`curl -H 'Bad Name: x' http://h/`, `in:1:9: -H: "Bad Name" is not a valid header name`},
		{`curl -H $'X: a\nb' http://h/`, "in:1:9: header X: a value cannot hold a line break"},
		{`curl -H noColon http://h/`, `in:1:9: -H "noColon": want 'Name: value'`},
		{`curl -b cookies.txt http://h/`, `in:1:9: -b "cookies.txt" is a cookie file`},
		{`curl -d $'\xff' http://h/`, "in:1:9: not UTF-8 text"},
		{`curl -m soon http://h/`, `in:1:9: -m "soon": want a number of seconds`},
		{`curl -d "$duration" http://h/`, "in:1:10: the shell variable $duration has the name of one of the scenario's own variables"},
		{`curl -X 'GET X' http://h/`, `in:1:9: -X "GET X" is not an HTTP method`},
		{`curl --json x -d y http://h/`, "in:1:13: --json together with -d"},
	}
	for _, tt := range tests {
		dir := t.TempDir()
		_, err := Import([]Input{{Name: "in", Text: tt.curl}}, Options{Dir: dir, OutDir: dir})
		var e *Error
		if !errors.As(err, &e) || !strings.HasPrefix(err.Error(), tt.want) {
			t.Errorf("%s:\n got %v\nwant %s", tt.curl, err, tt.want)
		}
	}
	if _, err := Import([]Input{{Name: "in", Text: "# nothing\n"}}, Options{}); err == nil || err.Error() != "no curl command found" {
		t.Errorf("no command: %v", err)
	}
}

// TestImportGolden: whole scenarios as written, for review; each is valid.
func TestImportGolden(t *testing.T) {
	inputs, err := filepath.Glob(filepath.Join("testdata", "*.curl"))
	if err != nil || len(inputs) == 0 {
		t.Fatalf("no testdata/*.curl: %v", err)
	}
	for _, in := range inputs {
		t.Run(filepath.Base(in), func(t *testing.T) {
			src, err := os.ReadFile(in)
			if err != nil {
				t.Fatal(err)
			}
			out, err := Import([]Input{{Name: in, Text: string(src)}}, Options{SchemaURL: "https://raw.githubusercontent.com/loadgate/loadgate/main/docs/loadgate.schema.json", Dir: "testdata", OutDir: "testdata"})
			if err != nil {
				t.Fatal(err)
			}
			if _, err := load(t, "testdata", out, nil); err != nil {
				t.Fatalf("%v\n%s", err, out)
			}
			golden := strings.TrimSuffix(in, ".curl") + ".yaml"
			if *update {
				if err := os.WriteFile(golden, out, 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			want, err := os.ReadFile(golden)
			if err != nil {
				t.Fatalf("%v (go test -run TestImportGolden -update writes it)", err)
			}
			if d := cmp.Diff(string(want), string(out)); d != "" {
				t.Errorf("%s differs (-want +got; go test -update rewrites it):\n%s", golden, d)
			}
		})
	}
}

// FuzzImportCurl: any input is either refused with a place in it, or
// becomes a scenario that loadgate validate accepts.
func FuzzImportCurl(f *testing.F) {
	for _, s := range []string{
		`curl http://h/x`, `curl -sSXPOST -H'X-A: 1' --url http://h/ -d a=1 -d b=2`,
		`curl -u alice:pw 'http://u:p@h/?token=t#f' -k --http2 -m 2`, `curl --json '{"a":1}' http://h/ --compressed -A x -e y -b 'c=d'`,
		"curl http://h/a\ncurl -G -d 'q={{x}}${y}' 'http://h/b?k=v' -H \"Authorization: Bearer $T\"\ncurl https://o/",
		`curl --data-urlencode 'q=a b' -H 'Cookie: x=y' http://h/`, `$ curl -I example.com:8080`,
	} {
		f.Add(s)
	}
	dir := f.TempDir()
	f.Fuzz(func(t *testing.T, src string) {
		importOrRefuse(t, dir, src)
		// With a URL given, the rest of the input reaches the mapping of
		// options far more often.
		importOrRefuse(t, dir, "curl http://h/ "+src)
	})
}

func importOrRefuse(t *testing.T, dir, src string) {
	t.Helper()
	out, err := Import([]Input{{Name: "fuzz", Text: src}}, Options{Dir: dir, OutDir: dir})
	if err != nil {
		var e *Error
		if !errors.As(err, &e) && err.Error() != "no curl command found" {
			t.Fatalf("%q: an error without a place: %v", src, err)
		}
		if e != nil && (e.Input != "fuzz" || e.Pos.Line < 1 || e.Pos.Col < 1 || e.Pos.Line > strings.Count(src, "\n")+1) {
			t.Fatalf("%q: %v is not a place in the input", src, err)
		}
		return
	}
	if _, err := load(t, dir, out, nil); err != nil {
		t.Fatalf("%q: the scenario is not valid: %v\n%s", src, err, out)
	}
}
