package cli

import (
	"context"
	"encoding/json"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/loadgate/loadgate/internal/demoserver"
	"github.com/loadgate/loadgate/internal/testpeer"
)

// harRecordings is where the Chromium recordings are kept.
var harRecordings = filepath.Join("..", "..", "importers", "har", "testdata")

// runHAR imports a recording, validates the scenario and runs it briefly
// against origin, returning how many requests failed and were sent.
func runHAR(t *testing.T, recording, origin string, vars ...string) (errors, requests int64) {
	t.Helper()
	scenario := filepath.Join(t.TempDir(), "recorded.yaml")
	r := invoke(t, context.Background(), nil, "import", "har", "--max-think", "50ms", "-o", scenario, filepath.Join(harRecordings, recording))
	if r.code != ExitOK {
		t.Fatalf("import: exit %d\n%s", r.code, r.stderr)
	}
	if v := invoke(t, context.Background(), nil, "validate", scenario); v.code != ExitOK {
		t.Fatalf("validate: exit %d\n%s", v.code, v.stderr)
	}
	out := t.TempDir()
	args := []string{"run", "--no-progress", "-o", out, "--var", "duration=1s", "--var", "warmup=200ms", "--var", "concurrency=2", "--var", "origin=" + origin}
	r = invoke(t, context.Background(), nil, append(append(args, vars...), scenario)...)
	if r.code != ExitOK {
		t.Fatalf("run: exit %d\n%s\n%s", r.code, r.stderr, readFile(t, scenario))
	}
	data, err := os.ReadFile(filepath.Join(out, "results.json"))
	if err != nil {
		t.Fatal(err)
	}
	var res struct {
		Scenarios []struct {
			Cases []struct {
				Stats struct {
					Requests int64            `json:"requests"`
					Errors   map[string]int64 `json:"errors"`
				} `json:"stats"`
			} `json:"cases"`
		} `json:"scenarios"`
	}
	if err := json.Unmarshal(data, &res); err != nil {
		t.Fatal(err)
	}
	st := res.Scenarios[0].Cases[0].Stats
	for _, n := range st.Errors {
		errors += n
	}
	return errors, st.Requests
}

// TestImportedShopRuns: the shop's recording, imported, logs in with the
// CSRF token of the form, sends the dashboard's token and the API token,
// and reads back the note by the id the server made; the shop accepts
// every request, which it would not with the recorded values.
func TestImportedShopRuns(t *testing.T) {
	shop := testpeer.NewShop("")
	srv := httptest.NewServer(shop)
	t.Cleanup(srv.Close)
	errs, reqs := runHAR(t, "shop.har", srv.URL, "--secret-var", "password=wonderland")
	if errs != 0 || reqs == 0 {
		t.Errorf("%d errors in %d requests", errs, reqs)
	}
	if shop.Logins.Load() == 0 || shop.NotesCreated.Load() == 0 || shop.NotesRead.Load() == 0 || shop.Refused.Load() != 0 {
		t.Errorf("the shop accepted %d logins, %d notes created, %d read, and refused %d requests",
			shop.Logins.Load(), shop.NotesCreated.Load(), shop.NotesRead.Load(), shop.Refused.Load())
	}
}

// TestImportedBuiltinAPIRuns: the recording of the built-in server's API,
// imported, carries the login's token, an item's id and the order's
// Location; the server answers every call with success.
func TestImportedBuiltinAPIRuns(t *testing.T) {
	srv := startServer(t, demoserver.Config{})
	errs, reqs := runHAR(t, "builtin-api.har", "http://"+srv.HTTPAddr(), "--secret-var", "pass=pw-user1")
	if errs != 0 || reqs == 0 {
		t.Errorf("%d errors in %d requests", errs, reqs)
	}
	api := srv.Stats().API
	if api["login"]["200"] == 0 || api["item"]["200"] == 0 || api["orders"]["201"] == 0 || api["order"]["200"] == 0 {
		t.Errorf("the API did not answer every step with success: %v", api)
	}
	for ep, byStatus := range api {
		for status, n := range byStatus {
			if !strings.HasPrefix(status, "2") && n > 0 {
				t.Errorf("%s answered %s %d times", ep, status, n)
			}
		}
	}
}

// harOrigins are the origins of a recording's requests, in order of
// first appearance: a new recording has other ports.
func harOrigins(t *testing.T, file string) []string {
	t.Helper()
	var f struct {
		Log struct {
			Entries []struct {
				Request struct{ URL string } `json:"request"`
			} `json:"entries"`
		} `json:"log"`
	}
	if err := json.Unmarshal([]byte(readFile(t, file)), &f); err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, e := range f.Log.Entries {
		u, err := url.Parse(e.Request.URL)
		if err != nil {
			t.Fatal(err)
		}
		if o := u.Scheme + "://" + u.Host; !slices.Contains(out, o) {
			out = append(out, o)
		}
	}
	return out
}

// TestImportHARFlags: each flag changes the scenario as it says, and
// every scenario passes validate.
func TestImportHARFlags(t *testing.T) {
	shop := filepath.Join(harRecordings, "shop.har")
	origins := harOrigins(t, shop)
	if len(origins) != 2 {
		t.Fatalf("the shop's recording has the origins %q, want the shop's and the beacon's", origins)
	}
	tests := []struct {
		name     string
		args     []string
		has, not []string
		maxThink time.Duration // every think_time at most this; 0 for no check
	}{
		{"default", nil, []string{"\n          think_time: ", "\n  - name: local\n", "5 static assets"}, []string{"/static/", "/collect"}, 0},
		{"no think", []string{"--no-think"}, nil, []string{"think_time:"}, 0},
		{"max think", []string{"--max-think", "100ms"}, []string{"think_time: 100ms\n", "shortened to it (--max-think)"}, nil, 100 * time.Millisecond},
		{"assets", []string{"--include-assets"}, []string{"path: /static/app.js\n", "path: /static/logo.png\n"}, nil, 0},
		{"origin", []string{"--origin", origins[0] + "/login", "--origin", origins[1]}, []string{"path: /collect\n", "\n  - name: local-2\n", "origin_2: " + origins[1] + "\n", "url: ${origin_2}\n"}, nil, 0},
		{"name", []string{"--name", "shop"}, []string{"\nname: shop\n"}, nil, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out := filepath.Join(t.TempDir(), "shop.yaml")
			r := invoke(t, context.Background(), nil, append(append([]string{"import", "har", "-o", out}, tt.args...), shop)...)
			if r.code != ExitOK || r.stdout != "" || !strings.Contains(r.stderr, "wrote "+out+"\nnext: loadgate validate "+out) {
				t.Fatalf("exit %d, stdout %q, stderr:\n%s", r.code, r.stdout, r.stderr)
			}
			text := readFile(t, out)
			for _, s := range tt.has {
				if !strings.Contains(text, s) {
					t.Errorf("no %q in:\n%s", s, text)
				}
			}
			for _, s := range tt.not {
				if strings.Contains(text, s) {
					t.Errorf("%q in:\n%s", s, text)
				}
			}
			for _, l := range strings.Split(text, "\n") {
				v, ok := strings.CutPrefix(strings.TrimSpace(l), "think_time: ")
				if d, err := time.ParseDuration(v); ok && tt.maxThink > 0 && (err != nil || d > tt.maxThink) {
					t.Errorf("think_time %s, want at most %s", v, tt.maxThink)
				}
			}
			if v := invoke(t, context.Background(), nil, "validate", out); v.code != ExitOK {
				t.Errorf("validate: exit %d\n%s", v.code, v.stderr)
			}
		})
	}
}

// TestImportHARStdin: - reads the recording from standard input.
func TestImportHARStdin(t *testing.T) {
	file := filepath.Join(harRecordings, "builtin-api.har")
	want := invoke(t, context.Background(), nil, "import", "har", file)
	got := invokeWithStdin(t, readFile(t, file), "import", "har", "-")
	if want.code != ExitOK || got.code != ExitOK {
		t.Fatalf("exit %d and %d:\n%s\n%s", want.code, got.code, want.stderr, got.stderr)
	}
	if w, g := strings.ReplaceAll(want.stdout, file, "stdin"), got.stdout; w != g {
		t.Errorf("stdin gives another scenario:\n%s\nwant\n%s", g, w)
	}
}

// TestImportHARMistakes: usage errors and files that are not HAR exit 2
// and name the place.
func TestImportHARMistakes(t *testing.T) {
	shop := filepath.Join(harRecordings, "shop.har")
	origins := harOrigins(t, shop)
	dir := t.TempDir()
	file := func(name, text string) string {
		p := filepath.Join(dir, name)
		writeFile(t, p, text)
		return p
	}
	notJSON := file("broken.har", "{\"log\": {\n  \"version\": \"1.2\",\n  \"entries\": [}\n}")
	v3 := file("v3.har", `{"log": {"version": "3.0", "entries": []}}`)
	empty := file("empty.har", "{\"log\": {\"version\": \"1.2\",\n \"entries\": []}}")
	tests := []struct {
		args []string
		want string
	}{
		{[]string{"import", "har", notJSON}, notJSON + ":3:15: not JSON: invalid character '}'"},
		{[]string{"import", "har", v3}, v3 + `:1:21: HAR version "3.0" is not supported (want 1.1 or 1.2)`},
		{[]string{"import", "har", empty}, empty + ":2:13: the HAR file has no entries"},
		{[]string{"import", "har", filepath.Join(dir, "missing.har")}, "no such file"},
		{[]string{"import", "har"}, "import har: give one HAR file"},
		{[]string{"import", "har", "a.har", "b.har"}, "import har: give one HAR file"},
		{[]string{"import", "har", "--max-think", "0s", notJSON}, "--max-think 0s: want a duration > 0"},
		{[]string{"import", "har", "--origin", "ftp://h", notJSON}, `--origin "ftp://h": want an http:// or https:// URL`},
		{[]string{"import", "har", "--origin", "http://elsewhere.example", shop}, "no request left to import: 5 static assets, 7 requests to " + strings.Join(slices.Sorted(slices.Values(origins)), ", ")},
	}
	for _, tt := range tests {
		r := invoke(t, context.Background(), nil, tt.args...)
		if r.code != ExitUsage || !strings.Contains(r.stderr, tt.want) || r.stdout != "" {
			t.Errorf("%q: exit %d, stdout %q, stderr:\n%s\nwant 2 and %q", tt.args, r.code, r.stdout, r.stderr, tt.want)
		}
	}
}

// TestHelpOfImportHAR keeps import har's help as a golden file, like
// every command's (go test -run TestHelpOfImportHAR -update).
func TestHelpOfImportHAR(t *testing.T) {
	r := invoke(t, context.Background(), nil, "import", "har", "--help")
	if r.code != ExitOK || r.stderr != "" || !strings.HasPrefix(r.stdout, "Usage: loadgate import har") {
		t.Fatalf("exit %d, stderr %q:\n%s", r.code, r.stderr, r.stdout)
	}
	checkFlagLines(t, r.stdout)
	golden(t, filepath.Join("testdata", "help", "import-har.txt"), r.stdout)
}
