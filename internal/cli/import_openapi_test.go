package cli

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/loadgate/loadgate/internal/demoserver"
)

const builtinAPISpec = "../../docs/examples/builtin-api.openapi.yaml"

// login logs user1 in to the built-in server's API and places one order,
// so that the order the description's example names (1) is the caller's.
func login(t *testing.T, addr string) string {
	t.Helper()
	post := func(path, token, body string) []byte {
		req, err := http.NewRequest(http.MethodPost, "http://"+addr+path, strings.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		if token != "" {
			req.Header.Set("Authorization", "Bearer "+token)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		data, err := io.ReadAll(resp.Body)
		if err != nil || resp.StatusCode >= 300 {
			t.Fatalf("POST %s: %d %s %v", path, resp.StatusCode, data, err)
		}
		return data
	}
	var tok struct {
		AccessToken string `json:"access_token"`
	}
	if err := json.Unmarshal(post("/api/login", "", `{"user":"user1","pass":"pw-user1"}`), &tok); err != nil || tok.AccessToken == "" {
		t.Fatalf("login: %v %+v", err, tok)
	}
	if got := string(post("/api/orders", tok.AccessToken, `{"item":"item-5","qty":1}`)); !strings.Contains(got, `"id":"1"`) {
		t.Fatalf("the first order is not 1: %s", got)
	}
	return tok.AccessToken
}

// TestImportOpenAPIBuiltinAPIRuns: the description of the built-in
// server's API imports, in both shapes, into scenarios that run against
// the server with no failed request.
func TestImportOpenAPIBuiltinAPIRuns(t *testing.T) {
	srv := startServer(t, demoserver.Config{})
	token := login(t, srv.HTTPAddr())
	for _, shape := range [][]string{nil, {"--flow-per-tag"}} {
		t.Run(strings.Join(append([]string{"mix"}, shape...), " "), func(t *testing.T) {
			scenario := filepath.Join(t.TempDir(), "api.yaml")
			args := append([]string{"import", "openapi", "-o", scenario, "--server", "http://" + srv.HTTPAddr()}, shape...)
			r := invoke(t, context.Background(), nil, append(args, builtinAPISpec)...)
			if r.code != ExitOK || !strings.Contains(r.stderr, "(5 operations)") {
				t.Fatalf("import: exit %d\n%s", r.code, r.stderr)
			}
			if v := invoke(t, context.Background(), nil, "validate", scenario); v.code != ExitOK {
				t.Fatalf("validate: exit %d\n%s", v.code, v.stderr)
			}
			out := t.TempDir()
			r = invoke(t, context.Background(), nil, "run", "--no-progress", "-o", out, "--var", "duration=500ms", "--var", "warmup=100ms",
				"--secret-var", "bearer="+token, scenario)
			if r.code != ExitOK {
				t.Fatalf("run: exit %d\n%s", r.code, r.stderr)
			}
			res := readCaseStats(t, out)
			if want := map[bool]int{false: 1, true: 3}[len(shape) > 0]; len(res) != want {
				t.Fatalf("%d cases, want %d", len(res), want)
			}
			for id, st := range res {
				if st.Requests == 0 || st.Failed != 0 {
					t.Errorf("case %s: %d requests, %d failed", id, st.Requests, st.Failed)
				}
			}
		})
	}
}

type caseStats struct {
	Requests int64 `json:"requests"`
	Failed   int64 `json:"failed"`
}

// readCaseStats is every case's requests and failures, by case ID.
func readCaseStats(t *testing.T, dir string) map[string]caseStats {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(dir, "results.json"))
	if err != nil {
		t.Fatal(err)
	}
	var r struct {
		Scenarios []struct {
			Cases []struct {
				ID    string    `json:"id"`
				Stats caseStats `json:"stats"`
			} `json:"cases"`
		} `json:"scenarios"`
	}
	if err := json.Unmarshal(data, &r); err != nil {
		t.Fatal(err)
	}
	out := map[string]caseStats{}
	for _, s := range r.Scenarios {
		for _, c := range s.Cases {
			out[c.ID] = c.Stats
		}
	}
	return out
}

// TestImportOpenAPIOut: -o writes the scenario and, for a flow whose
// parameters have no example, the data file beside it; stdout stays
// empty; standard input reads the same description.
func TestImportOpenAPIOut(t *testing.T) {
	spec := filepath.Join(t.TempDir(), "spec.yaml")
	writeFile(t, spec, `openapi: 3.1.0
info: {title: Shop, version: "2"}
servers: [{url: "http://127.0.0.1:9/v1"}]
paths:
  /pets/{petId}:
    get:
      operationId: showPet
      tags: [pets]
      parameters: [{name: petId, in: path, required: true, schema: {type: integer}}]
      responses: {"200": {description: ok}}
`)
	dir := t.TempDir()
	out := filepath.Join(dir, "shop.yaml")
	r := invoke(t, context.Background(), nil, "import", "openapi", "--flow-per-tag", "-o", out, "--name", "shop", spec)
	data := filepath.Join(dir, "shop.params.csv")
	if r.code != ExitOK || r.stdout != "" || !strings.Contains(r.stderr, "wrote "+data) || !strings.Contains(r.stderr, "wrote "+out+" (1 operation)\nnext: loadgate validate "+out) {
		t.Fatalf("exit %d, stdout %q, stderr:\n%s", r.code, r.stdout, r.stderr)
	}
	if got := readFile(t, data); got != "petId\n1\n" {
		t.Errorf("the data file: %q", got)
	}
	text := readFile(t, out)
	for _, want := range []string{"\nname: shop\n", "params: {file: shop.params.csv}", "path: /v1/pets/{{params.petId}}"} {
		if !strings.Contains(text, want) {
			t.Errorf("no %q in the scenario:\n%s", want, text)
		}
	}
	if v := invoke(t, context.Background(), nil, "validate", out); v.code != ExitOK {
		t.Errorf("validate: exit %d\n%s", v.code, v.stderr)
	}
	// Without -o there is no data file: the value is a guess, said so.
	file := invoke(t, context.Background(), nil, "import", "openapi", spec)
	stdin := invokeWithStdin(t, readFile(t, spec), "import", "openapi", "-")
	if file.code != ExitOK || !strings.Contains(file.stdout, "path: /v1/pets/1") || !strings.Contains(file.stdout, "# path parameter petId: 1 is a guess") {
		t.Fatalf("stdout: exit %d\n%s%s", file.code, file.stderr, file.stdout)
	}
	if d := cmp.Diff(strings.Replace(file.stdout, spec, "stdin", 1), stdin.stdout); d != "" || stdin.code != ExitOK {
		t.Errorf("stdin: exit %d, another scenario (-file +stdin):\n%s", stdin.code, d)
	}
}

// TestImportOpenAPIMistakes: what cannot be imported exits 2 and names
// the place.
func TestImportOpenAPIMistakes(t *testing.T) {
	dir := t.TempDir()
	write := func(name, text string) string {
		p := filepath.Join(dir, name)
		writeFile(t, p, text)
		return p
	}
	swagger := write("swagger.yaml", "info: {title: x}\nswagger: \"2.0\"\npaths: {}\n")
	notOAS := write("other.yaml", "name: x\ntargets: []\n")
	badYAML := write("bad.yaml", "openapi: 3.0.0\ninfo: {title: x, version: \"1\"}\npaths:\n  /a: [\n")
	badShape := write("shape.yaml", "openapi: 3.0.0\ninfo: {title: x, version: \"1\"}\npaths:\n  /a:\n    get:\n      responses: 7\n")
	version := write("v4.yaml", "openapi: 4.0.0\ninfo: {title: x, version: \"1\"}\npaths: {}\n")
	tests := []struct {
		args []string
		want string
	}{
		{[]string{swagger}, swagger + ":2:1: a Swagger 2.0 description cannot be imported: convert it to OpenAPI 3 first"},
		{[]string{notOAS}, notOAS + ":1:1: not an OpenAPI description: it has no openapi field"},
		{[]string{badYAML}, badYAML + ":4: neither YAML nor JSON"},
		{[]string{badShape}, badShape + ":6:18: not a valid OpenAPI description"},
		{[]string{version}, version + ":1:1: OpenAPI \"4.0.0\" cannot be imported"},
		{[]string{"--tag", "nope", builtinAPISpec}, "no operation to import with tag nope"},
		{[]string{"--server", "ftp://h/", builtinAPISpec}, `--server ftp://h/: scheme "ftp"`},
		{[]string{filepath.Join(dir, "missing.yaml")}, "no such file"},
		{nil, "import openapi: give one OpenAPI description"},
	}
	for _, tt := range tests {
		r := invoke(t, context.Background(), nil, append([]string{"import", "openapi"}, tt.args...)...)
		if r.code != ExitUsage || !strings.Contains(r.stderr, tt.want) || r.stdout != "" {
			t.Errorf("%q: exit %d, stdout %q, stderr:\n%s\nwant 2 and %q", tt.args, r.code, r.stdout, r.stderr, tt.want)
		}
	}
}

// TestHelpOfImportOpenAPI keeps import openapi's help as a golden file
// (go test -run TestHelpOfImportOpenAPI -update).
func TestHelpOfImportOpenAPI(t *testing.T) {
	r := invoke(t, context.Background(), nil, "import", "openapi", "--help")
	if r.code != ExitOK || r.stderr != "" || !strings.HasPrefix(r.stdout, "Usage: loadgate import openapi") {
		t.Fatalf("exit %d, stderr %q:\n%s", r.code, r.stderr, r.stdout)
	}
	checkFlagLines(t, r.stdout)
	golden(t, filepath.Join("testdata", "help", "import-openapi.txt"), r.stdout)
}
