package examples_test

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/loadgate/loadgate/internal/cli"
	"github.com/loadgate/loadgate/internal/demoserver"
	resultsdoc "github.com/loadgate/loadgate/results"
)

// readRun reads a results.json as loadgate itself does.
func readRun(t *testing.T, dir string) *resultsdoc.Run {
	t.Helper()
	run, err := resultsdoc.ReadRunFile(filepath.Join(dir, "results.json"))
	if err != nil {
		t.Fatal(err)
	}
	return run
}

// The server's count of every step matches loadgate's: an iteration-bounded
// phase cuts no request short, so nothing is served that is not counted.
func TestAPIFlow(t *testing.T) {
	srv := start(t, demoserver.Config{})
	out := t.TempDir()
	code, stdout, stderr := run(t, "run", "--no-progress", "-o", out,
		"--var", "host="+srv.HTTPAddr(), "--var", "iterations=400", "--var", "duration=60s", "--var", "concurrency=4",
		"api-flow/scenario.yaml")
	if code != cli.ExitOK {
		t.Fatalf("exit %d\n%s\n%s", code, stdout, stderr)
	}
	c := readRun(t, out).Scenarios[0].Cases[0]
	if it := c.Stats.Iterations; it == nil || it.Iterations != 400 || it.Failed != 0 {
		t.Fatalf("iterations = %+v, want 400 without a failure", it)
	}
	st := srv.Stats()
	served := map[string]int64{
		"list": st.API["items"]["200"], "get": st.API["item"]["200"],
		"order": st.API["orders"]["201"], "order-status": st.API["order"]["200"],
	}
	if len(c.ByName) != len(served) {
		t.Fatalf("%d steps in results.json, want %d", len(c.ByName), len(served))
	}
	for _, step := range c.ByName {
		if step.Requests != 400 || served[step.Name] != step.Requests {
			t.Errorf("step %s: loadgate counted %d, the server served %d (want 400 each)", step.Name, step.Requests, served[step.Name])
		}
	}
	if len(st.Logins) != 4 {
		t.Errorf("%d users logged in, want one per virtual user (4): %v", len(st.Logins), st.Logins)
	}
	for user, n := range st.Logins {
		if n != 1 {
			t.Errorf("user %s logged in %d times: unique data handed a row out twice", user, n)
		}
	}
	for _, want := range []string{"order-status", "Complete iterations:    400"} {
		if !strings.Contains(stdout, want) {
			t.Errorf("console lacks %q:\n%s", want, stdout)
		}
	}
}

// uniqueLogins logs in once per iteration with a row of a unique source,
// until the rows run out.
const uniqueLogins = `version: 1
name: unique-logins
data:
  users: { file: "${users_file}", mode: unique, on_exhausted: stop }
targets:
  - name: shop
    http:
      url: http://${host}
      flow:
        - name: login
          method: POST
          path: /api/login
          body: '{"user": "{{users.name}}", "pass": "{{users.password}}"}'
          expect: { status: [200] }
phases:
  - { name: measured, duration: 60s, concurrency: 3 }
`

// A unique source split over three --segment parts hands every row out
// exactly once in the whole run: the server's login log is the witness.
func TestUniqueRowsAcrossSegments(t *testing.T) {
	srv := start(t, demoserver.Config{})
	dir := t.TempDir()
	const rows = 31 // not a multiple of 3: the remainder goes to the first parts
	var csv strings.Builder
	csv.WriteString("name,password\n")
	for i := 1; i <= rows; i++ {
		fmt.Fprintf(&csv, "user%d,pw-user%d\n", i, i)
	}
	users := filepath.Join(dir, "users.csv")
	scenario := filepath.Join(dir, "unique.yaml")
	if err := os.WriteFile(users, []byte(csv.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(scenario, []byte(uniqueLogins), 0o644); err != nil {
		t.Fatal(err)
	}
	var total int64
	for part := 1; part <= 3; part++ {
		out := filepath.Join(dir, "part"+strconv.Itoa(part))
		code, stdout, stderr := run(t, "run", "--no-progress", "--segment", fmt.Sprintf("%d/3", part), "-o", out,
			"--var", "host="+srv.HTTPAddr(), "--var", "users_file="+users, scenario)
		if code != cli.ExitOK {
			t.Fatalf("part %d: exit %d\n%s\n%s", part, code, stdout, stderr)
		}
		total += readRun(t, out).Scenarios[0].Cases[0].Stats.Requests
	}
	logins := srv.Stats().Logins
	if total != rows || len(logins) != rows {
		t.Fatalf("%d logins counted by loadgate, %d users seen by the server; want %d each", total, len(logins), rows)
	}
	for i := 1; i <= rows; i++ {
		if n := logins["user"+strconv.Itoa(i)]; n != 1 {
			t.Errorf("user%d logged in %d times, want exactly once", i, n)
		}
	}
}
