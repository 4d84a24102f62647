package cli

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/loadgate/loadgate/internal/demoserver"
)

// secretsScenario sends credentials through variables whose names say
// nothing about them, as the values must be found by where they are used.
const secretsScenario = `version: 1
name: secrets
vars:
  auth: auth-value-1111
  pw: pw-value-2222
  sess: sess-value-3333
  jwt: jwt-value-4444
  sig: sig-value-5555
  pin: { value: pin-value-6666, secret: true }
targets:
  - name: api
    http:
      url: http://user:${pw}@${host}/echo?token=${sig}
      method: POST
      headers:
        Authorization: Bearer ${jwt}
        Cookie: session=${sess}
        X-Api-Key: ${auth}
      body: '{"pin": "${pin}", "extra": "${extra}"}'
phases:
  - { name: measured, requests: 20, concurrency: 2 }
thresholds:
  - rps > 0
`

var cliSecrets = []string{"auth-value-1111", "pw-value-2222", "sess-value-3333", "jwt-value-4444", "sig-value-5555", "pin-value-6666", "extra-value-7777"}

// TestSecretsNeverReachOutputs runs a scenario full of credentials whole,
// as two segments merged, and with a validation error, and looks for each
// secret in every file written and in everything printed.
func TestSecretsNeverReachOutputs(t *testing.T) {
	srv := startServer(t, demoserver.Config{})
	path := writeScenario(t, secretsScenario)
	root := t.TempDir()
	var printed []string
	host := srv.HTTPAddr()
	run := func(wantCode int, args ...string) {
		t.Helper()
		args = append(args[:1:1], append([]string{"--secret-var", "extra=extra-value-7777", "--var", "host=" + host}, args[1:]...)...)
		r := invoke(t, context.Background(), nil, args...)
		if r.code != wantCode && wantCode >= 0 {
			t.Fatalf("%q: exit %d, want %d\n%s\n%s", args, r.code, wantCode, r.stdout, r.stderr)
		}
		printed = append(printed, r.stdout, r.stderr)
	}
	whole := filepath.Join(root, "whole")
	run(ExitOK, "run", "--no-progress", "--log-level", "debug", "-o", whole,
		"--json", filepath.Join(root, "r.json"), "--junit", filepath.Join(root, "j.xml"), "--markdown", filepath.Join(root, "s.md"), path)
	for i, seg := range []string{"1/2", "2/2"} {
		run(ExitOK, "run", "--no-progress", "--segment", seg, "-o", filepath.Join(root, "part", seg[:1]), path)
		if i == 1 && srv.Stats().Requests < 40 {
			t.Fatalf("the server saw %d requests, want 40: the test would prove nothing", srv.Stats().Requests)
		}
	}
	// Merge parses the redacted source again and judges the whole.
	r := invoke(t, context.Background(), nil, "merge", "-o", filepath.Join(root, "merged"),
		filepath.Join(root, "part", "1"), filepath.Join(root, "part", "2"))
	if r.code != ExitOK {
		t.Fatalf("merge of redacted parts: exit %d\n%s\n%s", r.code, r.stdout, r.stderr)
	}
	if merged := readRun(t, filepath.Join(root, "merged", "results.json")); len(merged.Scenarios) != 1 || len(merged.Scenarios[0].Cases) != 1 {
		t.Errorf("merged: %+v", merged.Scenarios)
	}
	printed = append(printed, r.stdout, r.stderr)
	// Against a dead port every request fails, and error messages quote
	// the URL: whatever the exit, nothing printed or written may hold it.
	host = "127.0.0.1:1"
	run(-1, "run", "--no-progress", "-o", filepath.Join(root, "dead"), path)
	invalid := writeScenario(t, strings.Replace(secretsScenario, "url: http://", "url: ftp://", 1)+"  - p99 < ${pin}\n")
	run(ExitUsage, "validate", invalid)
	if !strings.Contains(printed[len(printed)-1], "token=REDACTED") {
		t.Errorf("the validation error does not show the URL masked:\n%s", printed[len(printed)-1])
	}

	found := 0
	err := filepath.WalkDir(root, func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		found++
		printed = append(printed, string(data))
		for _, s := range cliSecrets {
			if strings.Contains(string(data), s) {
				t.Errorf("%s holds the secret %q", p, s)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if found < 10 {
		t.Errorf("found %d files under the output directories, want results, reports and parts", found)
	}
	for _, text := range printed[:len(printed)-found] {
		for _, s := range cliSecrets {
			if strings.Contains(text, s) {
				t.Errorf("the output printed holds the secret %q:\n%s", s, text)
			}
		}
	}
}
