package har

import (
	"encoding/json"
	"errors"
	"flag"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/loadgate/loadgate/assertions"
	"github.com/loadgate/loadgate/scenarios"
)

var update = flag.Bool("update", false, "rewrite the golden scenarios under testdata/")

// load validates an imported scenario as loadgate validate does (rules
// compiled too) and returns it.
func load(t testing.TB, yaml []byte, secrets map[string]string) (*scenarios.Scenario, error) {
	t.Helper()
	sc, err := scenarios.Parse(filepath.Join(t.TempDir(), "imported.yaml"), yaml, scenarios.LoadOptions{SecretVars: secrets})
	if err != nil {
		return nil, err
	}
	if _, err := assertions.Compile(sc); err != nil {
		return nil, err
	}
	return sc, nil
}

// extracted lists "step: name" for every extraction of the first target's flow.
func extracted(sc *scenarios.Scenario) []string {
	var out []string
	for _, st := range sc.Targets[0].HTTP.Flow.Steps {
		for _, x := range st.Extract {
			out = append(out, st.Name+": "+x.Var)
		}
	}
	return out
}

// TestImportRecordings: the Chromium recordings become valid scenarios
// with the extractions their sites need, and no recorded credential.
func TestImportRecordings(t *testing.T) {
	tests := []struct {
		file      string
		extracts  []string
		secrets   []string // recorded credentials that must not be in the file, besides the credentials the recorded headers hold
		paths     []string // the steps' paths
		cookieJar bool
	}{
		{"shop.har", []string{"get-login: csrf_token", "get-dashboard: csrf_token_2", "get-me: api_token", "post-notes: location"},
			[]string{"wonderland"},
			[]string{"/login", "/login", "/dashboard", "/api/me", "/api/notes", "{{location}}"}, true},
		{"builtin-api.har", []string{"post-login: access_token", "get-items: id", "post-orders: location"},
			[]string{"pw-user1"},
			[]string{"/", "/api/login", "/api/items?page=2", "/api/items/{{id}}", "/api/orders", "{{location}}"}, true},
	}
	for _, tt := range tests {
		t.Run(tt.file, func(t *testing.T) {
			path := filepath.Join("testdata", tt.file)
			data, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			out, err := Import(tt.file, data, Options{SchemaURL: "https://raw.githubusercontent.com/loadgate/loadgate/main/docs/loadgate.schema.json"})
			if err != nil {
				t.Fatal(err)
			}
			sc, err := load(t, out, nil)
			if err != nil {
				t.Fatalf("%v\n%s", err, out)
			}
			if d := cmp.Diff(tt.extracts, extracted(sc)); d != "" {
				t.Errorf("extractions (-want +got):\n%s", d)
			}
			var paths []string
			for _, l := range strings.Split(string(out), "\n") {
				if p, ok := strings.CutPrefix(strings.TrimSpace(l), "path: "); ok {
					paths = append(paths, strings.Trim(p, "'"))
				}
			}
			if d := cmp.Diff(tt.paths, paths); d != "" {
				t.Errorf("paths (-want +got):\n%s", d)
			}
			if sc.Targets[0].HTTP.Flow.Cookies != tt.cookieJar {
				t.Errorf("cookies: %v, want %v", sc.Targets[0].HTTP.Flow.Cookies, tt.cookieJar)
			}
			for _, s := range append(tt.secrets, recordedCredentials(t, data)...) {
				if !strings.Contains(string(data), s) {
					t.Fatalf("%q is not in the recording: the test is out of date", s)
				}
				if strings.Contains(string(out), s) {
					t.Errorf("the recorded credential %q is in the scenario", s)
				}
			}
			golden := strings.TrimSuffix(path, ".har") + ".yaml"
			if *update {
				if err := os.WriteFile(golden, out, 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			want, err := os.ReadFile(golden)
			if err != nil {
				t.Fatalf("%v (go test -run TestImportRecordings -update writes it)", err)
			}
			if d := cmp.Diff(string(want), string(out)); d != "" {
				t.Errorf("%s differs (-want +got; go test -update rewrites it):\n%s", golden, d)
			}
		})
	}
}

// recordedCredentials are the values of the credential headers the
// recording sent (after an Authorization's scheme, each cookie's value).
func recordedCredentials(t *testing.T, data []byte) []string {
	t.Helper()
	lg, err := decode("t", data)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, e := range lg.Entries {
		for _, h := range e.Request.Headers {
			switch {
			case strings.EqualFold(h.Name, "cookie"):
				for _, c := range strings.Split(h.Value, ";") {
					_, v, _ := strings.Cut(c, "=")
					out = append(out, v)
				}
			case strings.EqualFold(h.Name, "authorization"):
				_, v, _ := strings.Cut(h.Value, " ")
				out = append(out, v)
			case strings.Contains(strings.ToLower(h.Name), "token"):
				out = append(out, h.Value)
			}
		}
	}
	if len(out) < 3 {
		t.Fatalf("the recording sent %d credentials: the test is out of date", len(out))
	}
	return out
}

// TestImportErrors: what is not a HAR file is refused at its place.
func TestImportErrors(t *testing.T) {
	tests := []struct{ har, want string }{
		{"", "in: empty: not a HAR file"},
		{"  \n", "in: empty: not a HAR file"},
		{"<html>", "in:1:1: not JSON: invalid character '<'"},
		{"{\n  \"log\": {\n    \"version\": \"1.2\",,", "in:3:22: not JSON: invalid character ','"},
		{`{"log": {"version": "1.2", "entries": [`, "in:1:40: not JSON: the file ends before the JSON does"},
		{`[1, 2]`, `in:1:1: not a HAR file: a JSON array where an object with "log" was expected`},
		{`{"foo": 1}`, `in:1:1: not a HAR file: no "log" object`},
		{`{"log": {"entries": [{}]}}`, "in:1:1: not a HAR file: log.version is missing (want 1.1 or 1.2)"},
		{`{"log": {"version": "2.0", "entries": [{}]}}`, `in:1:21: HAR version "2.0" is not supported (want 1.1 or 1.2)`},
		{`{"log": {"version": "1.2"}}`, "in:1:1: the HAR file has no entries"},
		{`{"log": {"version": "1.2", "entries": []}}`, "in:1:39: the HAR file has no entries"},
		{"{\"log\": {\"version\": \"1.2\", \"entries\": [\n {\"response\": {\"status\": \"200\"}}]}}", "in:2:26: not a HAR file: log.entries.response.status is a JSON string, want an integer"},
		{`{"log": {"version": "1.2", "entries": [{"time": true}]}}`, "in:1:49: not a HAR file: log.entries.time is a JSON bool, want a number"},
		{`{"log": {"version": 1.2, "entries": [{}]}}`, "in:1:21: not a HAR file: log.version is a JSON number, want a string"},
		{`{"log": []}`, "in:1:9: not a HAR file: log is a JSON array, want an object"},
		{`{"log": {"version": "1.2", "entries": []}} {}`, "in:1:44: not a HAR file: more JSON after the HAR object"},
		{`{"log": {"version": "1.2", "entries": [{"request": {"method": "GET", "url": "data:text/plain,x"}, "response": {"status": 200}}]}}`,
			"in: no request left to import: 1 request loadgate cannot send"},
		{`{"log": {"version": "1.2", "entries": [{"request": {"method": "GET", "url": "http://h/a.png"}, "response": {"status": 200}}]}}`,
			"in: no request left to import: 1 static asset (--include-assets keeps static assets"},
	}
	for _, tt := range tests {
		_, err := Import("in", []byte(tt.har), Options{})
		var e *Error
		if !errors.As(err, &e) || !strings.HasPrefix(err.Error(), tt.want) {
			t.Errorf("%q:\n got %v\nwant %s", tt.har, err, tt.want)
		}
	}
	if _, err := Import("in", []byte("{}"), Options{Origins: []string{"h:80"}}); err == nil || !strings.Contains(err.Error(), `--origin "h:80"`) {
		t.Errorf("a bad --origin: %v", err)
	}
}

// TestImportErrorPlaceOfRecording: a broken recording is refused at the
// line and column of the problem.
func TestImportErrorPlaceOfRecording(t *testing.T) {
	data, err := os.ReadFile(filepath.Join("testdata", "builtin-api.har"))
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(string(data), "\n")
	i := slices.IndexFunc(lines, func(l string) bool { return strings.Contains(l, `"status": 201`) })
	if i < 0 {
		t.Fatal("no status 201 in the recording")
	}
	col := strings.Index(lines[i], "201") + 1
	lines[i] = strings.Replace(lines[i], "201", "2O1", 1)
	_, err = Import("b.har", []byte(strings.Join(lines, "\n")), Options{})
	want := "b.har:" + itoa(i+1) + ":" + itoa(col+1) + ": not JSON: invalid character 'O'"
	if err == nil || !strings.HasPrefix(err.Error(), want) {
		t.Errorf("got %v\nwant %s", err, want)
	}
}

// FuzzImportHAR: any file is either refused as an *Error, or becomes a
// scenario that loadgate validate accepts; so does any text standing in
// the URL, a header, the body and the response of a recorded exchange.
func FuzzImportHAR(f *testing.F) {
	// Small recordings: the fuzzer minimises every new input it finds,
	// which takes minutes for inputs the size of a real recording.
	f.Add(string(recorded(f, ent{url: "http://h/", kind: "document", respType: "text/html", respHeaders: []string{"Set-Cookie: s=1"},
		resp: `<input name="t" value="abc123def"><meta name="c" content="x9y8z7w6">`},
		ent{method: "POST", url: "http://h/login?t=abc123def", bodyType: "application/x-www-form-urlencoded", body: "t=abc123def&password=p", headers: []string{"Cookie: s=1", "X-C: x9y8z7w6"},
			status: 302, respHeaders: []string{"Location: /u/42"}, resp: `{"id": 42, "token": "tok123456"}`},
		ent{url: "http://h/u/42", at: time.Second, headers: []string{"Authorization: Bearer tok123456"}},
		ent{url: "http://o/x.png"})), "")
	for _, s := range []string{
		`{"log": {"version": "1.2", "entries": [{"request": {"method": "GET", "url": "http://h/a"}, "response": {"status": 200}}]}}`,
		`{"log": {"version": "1.1", "entries": [{"request": {"method": "POST", "url": "https://h:8443/a?b=c", "postData": {"text": "x"}}, "response": {"status": 201}}]}}`,
		`[`, `{"log": null}`,
	} {
		f.Add(s, "")
	}
	for _, s := range []string{"abc123def", "${x}{{y}}$", "/p?q=1&r=${s}", "a\nb", "\x00", "{\"id\":\"abc123def\"}", "<input name=\"t\" value=\"abc123def\">"} {
		f.Add("", s)
	}
	f.Fuzz(func(t *testing.T, file, field string) {
		importOrRefuse(t, []byte(file))
		tmpl := `{"log": {"version": "1.2", "entries": [
		 {"startedDateTime": "2026-01-02T10:00:00Z", "time": 5, "request": {"method": "GET", "url": "http://h/s", "headers": []}, "response": {"status": 200, "headers": [{"name": "X-T", "value": F}], "content": {"mimeType": "text/html", "text": F}}},
		 {"startedDateTime": "2026-01-02T10:00:01Z", "time": 5, "request": {"method": "POST", "url": "http://h/" + F, "headers": [{"name": "X-F", "value": F}, {"name": "Cookie", "value": F}], "postData": {"mimeType": "application/json", "text": F}}, "response": {"status": 200}}]}}`
		q, _ := json.Marshal(field)
		u, _ := json.Marshal("http://h/" + field)
		doc := strings.ReplaceAll(strings.Replace(tmpl, `"http://h/" + F`, string(u), 1), "F", string(q))
		importOrRefuse(t, []byte(doc))
	})
}

func importOrRefuse(t *testing.T, data []byte) {
	t.Helper()
	out, err := Import("fuzz", data, Options{IncludeAssets: true})
	if err != nil {
		var e *Error
		if !errors.As(err, &e) || e.Input != "fuzz" || e.Line < 0 || e.Line > strings.Count(string(data), "\n")+1 {
			t.Fatalf("%q: not an error at a place in the file: %v", data, err)
		}
		return
	}
	if _, err := load(t, out, nil); err != nil {
		t.Fatalf("%q: the scenario is not valid: %v\n%s", data, err, out)
	}
}

// TestDocsExample: the example of docs/import.md is the shop's
// recording as imported now.
func TestDocsExample(t *testing.T) {
	doc, err := os.ReadFile(filepath.Join("..", "..", "docs", "import.md"))
	if err != nil {
		t.Fatal(err)
	}
	_, after, ok := strings.Cut(string(doc), "The shop's recording, imported")
	_, block, ok2 := strings.Cut(after, "```yaml\n")
	block, _, ok3 := strings.Cut(block, "```\n")
	if !ok || !ok2 || !ok3 {
		t.Fatal("docs/import.md has no example of the shop's recording")
	}
	want, err := os.ReadFile(filepath.Join("testdata", "shop.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff(string(want), block); d != "" {
		t.Errorf("docs/import.md's example differs from testdata/shop.yaml (-want +got; copy the file there after a new recording):\n%s", d)
	}
}
