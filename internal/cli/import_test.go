package cli

import (
	"bytes"
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/loadgate/loadgate/internal/demoserver"
)

// invokeWithStdin is invoke with stdin holding in.
func invokeWithStdin(t *testing.T, in string, args ...string) invocation {
	t.Helper()
	var out, errb bytes.Buffer
	env := Env{
		Stdin: strings.NewReader(in), Stdout: &out, Stderr: &errb,
		Getenv:    func(string) string { return "" },
		LookupEnv: func(string) (string, bool) { return "", false },
	}
	code := Main(context.Background(), args, env)
	return invocation{code: code, stdout: out.String(), stderr: errb.String()}
}

// TestImportCurlInputs: the same commands given as arguments, as the
// words of commands after --, in a file with continued lines and on
// stdin make the same scenario, which loadgate validate accepts.
func TestImportCurlInputs(t *testing.T) {
	const first, second = `curl -H 'Accept: text/plain' http://127.0.0.1:8080/a`, `curl -X POST -d 'n=1' http://127.0.0.1:8080/b`
	file := filepath.Join(t.TempDir(), "commands.sh")
	writeFile(t, file, "# two requests\n"+strings.Replace(first, " http", " \\\n  http", 1)+"\n\n"+second+"\n")
	want := invoke(t, context.Background(), nil, "import", "curl", first, second)
	if want.code != ExitOK || !strings.Contains(want.stdout, "\n      flow:\n") {
		t.Fatalf("arguments: exit %d, stderr:\n%s\nstdout:\n%s", want.code, want.stderr, want.stdout)
	}
	scenario := filepath.Join(t.TempDir(), "imported.yaml")
	writeFile(t, scenario, want.stdout)
	if r := invoke(t, context.Background(), nil, "validate", scenario); r.code != ExitOK {
		t.Fatalf("validate: exit %d\n%s", r.code, r.stderr)
	}
	for name, r := range map[string]invocation{
		"words":    invoke(t, context.Background(), nil, "import", "curl", "--", "curl", "-H", "Accept: text/plain", "http://127.0.0.1:8080/a", "curl", "-X", "POST", "-d", "n=1", "http://127.0.0.1:8080/b"),
		"file":     invoke(t, context.Background(), nil, "import", "curl", "-f", file),
		"stdin":    invokeWithStdin(t, first+"\n"+second+"\n", "import", "curl", "-"),
		"stdin -f": invokeWithStdin(t, first+"\n"+second+"\n", "import", "curl", "--file", "-"),
	} {
		if r.code != ExitOK {
			t.Errorf("%s: exit %d\n%s", name, r.code, r.stderr)
		} else if d := cmp.Diff(want.stdout, r.stdout); d != "" {
			t.Errorf("%s: another scenario than from arguments (-want +got):\n%s", name, d)
		}
	}
}

// TestImportCurlOut: -o writes the file, says so on stderr with the next
// command, and keeps stdout empty.
func TestImportCurlOut(t *testing.T) {
	out := filepath.Join(t.TempDir(), "api.yaml")
	r := invoke(t, context.Background(), nil, "import", "curl", "-o", out, "--name", "api", "curl https://api.example.com/v1/items")
	if r.code != ExitOK || r.stdout != "" || !strings.Contains(r.stderr, "wrote "+out+"\nnext: loadgate validate "+out) {
		t.Fatalf("exit %d, stdout %q, stderr:\n%s", r.code, r.stdout, r.stderr)
	}
	if text := readFile(t, out); !strings.Contains(text, "\nname: api\n") || !strings.HasPrefix(text, "# yaml-language-server: $schema="+schemaURL()+"\n") {
		t.Errorf("the scenario:\n%s", text)
	}
	if v := invoke(t, context.Background(), nil, "validate", out); v.code != ExitOK {
		t.Errorf("validate: exit %d\n%s", v.code, v.stderr)
	}
}

// TestImportCurlMistakes: usage errors exit 2 and name the place.
func TestImportCurlMistakes(t *testing.T) {
	file := filepath.Join(t.TempDir(), "commands.txt")
	writeFile(t, file, "curl http://h/\n\ncurl -Q http://h/\n")
	tests := []struct {
		args []string
		want string
	}{
		{[]string{"import", "curl", "curl --bogus http://h/"}, "loadgate: import curl: argument 1:1:6: unknown curl option --bogus"},
		{[]string{"import", "curl", "curl http://h/", "curl -F a=b http://h/"}, "argument 2:1:6: -F (--form) cannot be imported"},
		{[]string{"import", "curl", "-f", file}, file + ":3:6: unknown curl option -Q"},
		{[]string{"import", "curl", "-f", file + ".missing"}, "no such file"},
		{[]string{"import", "curl"}, "import curl: no curl command given"},
		{[]string{"import"}, "import: no format given (curl, har, openapi)"},
		{[]string{"import", "postman", "x.json"}, `import: unknown format "postman" (curl, har, openapi)`},
		{[]string{"import", "curl", "curl", "-X", "POST", "http://h/"}, "flag provided but not defined: -X"},
	}
	for _, tt := range tests {
		r := invoke(t, context.Background(), nil, tt.args...)
		if r.code != ExitUsage || !strings.Contains(r.stderr, tt.want) || r.stdout != "" {
			t.Errorf("%q: exit %d, stdout %q, stderr:\n%s\nwant 2 and %q", tt.args, r.code, r.stdout, r.stderr, tt.want)
		}
	}
}

// TestImportedScenarioRuns: the import of a curl command runs against the
// server it names and passes.
func TestImportedScenarioRuns(t *testing.T) {
	srv := startServer(t, demoserver.Config{})
	scenario := filepath.Join(t.TempDir(), "hello.yaml")
	r := invoke(t, context.Background(), nil, "import", "curl", "-o", scenario, "curl -sS -H 'Accept: text/plain' http://"+srv.HTTPAddr()+"/")
	if r.code != ExitOK {
		t.Fatalf("import: exit %d\n%s", r.code, r.stderr)
	}
	out := t.TempDir()
	r = invoke(t, context.Background(), nil, "run", "--no-progress", "-o", out, "--var", "duration=300ms", "--var", "warmup=100ms", scenario)
	if r.code != ExitOK {
		t.Fatalf("run: exit %d\n%s", r.code, r.stderr)
	}
	if res := readResults(t, out); res.Scenarios[0].Cases[0].Stats.Requests == 0 {
		t.Error("no request was sent")
	}
}

// TestHelpOfImportCurl keeps import curl's help as a golden file, like
// every command's (go test -run TestHelpOfImportCurl -update).
func TestHelpOfImportCurl(t *testing.T) {
	r := invoke(t, context.Background(), nil, "import", "curl", "--help")
	if r.code != ExitOK || r.stderr != "" || !strings.HasPrefix(r.stdout, "Usage: loadgate import curl") {
		t.Fatalf("exit %d, stderr %q:\n%s", r.code, r.stderr, r.stdout)
	}
	checkFlagLines(t, r.stdout)
	golden(t, filepath.Join("testdata", "help", "import-curl.txt"), r.stdout)
}
