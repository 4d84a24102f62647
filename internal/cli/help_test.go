package cli

import (
	"context"
	"flag"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

var update = flag.Bool("update", false, "rewrite the golden help texts under testdata/help")

// helpFlagLine is a flag's line in a help text: "  -o, --out DIR" or
// "  --quiet". A long name after a single dash ("  -out") is not one.
var helpFlagLine = regexp.MustCompile(`^  (?:-[a-z], )?--([a-z0-9-]+)( \S+)?$`)

// TestHelpOfEveryCommand: -h, --help and help COMMAND print the same help
// on stdout and exit 0, nothing on stderr, every flag with two dashes; the
// texts are kept as golden files (go test -run TestHelpOfEveryCommand -update).
func TestHelpOfEveryCommand(t *testing.T) {
	for _, cmd := range commands {
		t.Run(cmd, func(t *testing.T) {
			var first string
			for _, args := range [][]string{{cmd, "-h"}, {cmd, "--help"}, {cmd, "-help"}, {"help", cmd}, {"--help", cmd}} {
				r := invoke(t, context.Background(), nil, args...)
				if r.code != ExitOK || r.stderr != "" {
					t.Fatalf("%q: exit %d, stderr %q; want 0 and nothing", args, r.code, r.stderr)
				}
				if !strings.HasPrefix(r.stdout, "Usage: loadgate "+cmd) {
					t.Fatalf("%q: stdout is not %s's help:\n%s", args, cmd, r.stdout)
				}
				if first == "" {
					first = r.stdout
				} else if r.stdout != first {
					t.Errorf("%q prints another help than %s -h:\n%s", args, cmd, cmp.Diff(first, r.stdout))
				}
			}
			checkFlagLines(t, first)
			golden(t, filepath.Join("testdata", "help", cmd+".txt"), first)
		})
	}
}

// checkFlagLines: every line of the Flags: section that names a flag
// names it with two dashes; --help is among them.
func checkFlagLines(t *testing.T, help string) {
	t.Helper()
	_, flags, ok := strings.Cut(help, "\nFlags:\n")
	if !ok {
		t.Fatalf("no Flags: section:\n%s", help)
	}
	seen := map[string]bool{}
	for _, line := range strings.Split(strings.TrimSuffix(flags, "\n"), "\n") {
		if strings.HasPrefix(line, "        ") {
			continue // a flag's description
		}
		m := helpFlagLine.FindStringSubmatch(line)
		if m == nil {
			t.Errorf("not a two-dash flag line: %q", line)
			continue
		}
		seen[m[1]] = true
	}
	if !seen["help"] {
		t.Errorf("--help is not listed:\n%s", help)
	}
}

func TestTopLevelHelp(t *testing.T) {
	for _, args := range [][]string{{"help"}, {"-h"}, {"--help"}, {"help", "help"}} {
		r := invoke(t, context.Background(), nil, args...)
		if r.code != ExitOK || r.stdout != usage || r.stderr != "" {
			t.Errorf("%q: exit %d, stdout %d bytes, stderr %q; want 0 and the usage on stdout", args, r.code, len(r.stdout), r.stderr)
		}
	}
	r := invoke(t, context.Background(), nil)
	if r.code != ExitUsage || r.stderr != usage || r.stdout != "" {
		t.Errorf("no command: exit %d, stderr %d bytes; want 2 and the usage on stderr", r.code, len(r.stderr))
	}
}

// TestHelpAndUsageMistakes: what is not a request for help stays a usage
// error (exit 2) on stderr, with stdout left alone.
func TestHelpAndUsageMistakes(t *testing.T) {
	tests := []struct {
		args []string
		want string // on stderr
	}{
		{[]string{"help", "nope"}, `unknown command "nope"`},
		{[]string{"help", "run", "validate"}, `unknown command "run validate"`},
		{[]string{"version", "extra"}, `version takes no arguments`},
		{[]string{"schema", "extra"}, `schema takes no arguments`},
		{[]string{"run", "--bogus"}, "flag provided but not defined: -bogus\nUsage: loadgate run"},
		{[]string{"serve", "--http", "127.0.0.1:0", "extra"}, `serve: unexpected argument "extra"`},
	}
	for _, tt := range tests {
		r := invoke(t, context.Background(), nil, tt.args...)
		if r.code != ExitUsage || !strings.Contains(r.stderr, tt.want) || r.stdout != "" {
			t.Errorf("%q: exit %d, stdout %q, stderr:\n%s\nwant exit 2 and %q on stderr", tt.args, r.code, r.stdout, r.stderr, tt.want)
		}
	}
}

// TestBadBooleanEnvIsAUsageError: every boolean flag of the commands that
// read LOADGATE_* defaults, found in their help, refuses a value that is not
// a boolean, naming the variable and the value, before doing anything else.
func TestBadBooleanEnvIsAUsageError(t *testing.T) {
	envCommands := map[string][]string{
		"run":     {"run", "-o", "", "no-such.yaml"},
		"demo":    {"demo", "-o", "", "extra"},
		"merge":   {"merge", "-o", "", "no-such.json"},
		"compare": {"compare", "no-such.json", "no-such-either.json"},
	}
	checked := 0
	for cmd, args := range envCommands {
		for _, name := range boolFlags(t, cmd) {
			key := envName(name)
			for _, bad := range []string{"maybe", "yes", "2"} {
				r := invoke(t, context.Background(), map[string]string{key: bad}, args...)
				want := key + `="` + bad + `" is not a boolean`
				if r.code != ExitUsage || !strings.Contains(r.stderr, want) {
					t.Errorf("%s with %s=%s: exit %d, stderr:\n%s\nwant 2 and %q", cmd, key, bad, r.code, r.stderr, want)
				}
				checked++
			}
			// Good values pass the check: the command goes on to fail on
			// its missing file (or, for demo, its extra argument).
			for _, good := range []string{"true", "0", "F", "TRUE"} {
				r := invoke(t, context.Background(), map[string]string{key: good}, args...)
				if r.code != ExitUsage || strings.Contains(r.stderr, "is not a boolean") {
					t.Errorf("%s with %s=%s: exit %d, stderr:\n%s\nwant 2 for the missing file, not the variable", cmd, key, good, r.code, r.stderr)
				}
			}
			// Help is still help.
			r := invoke(t, context.Background(), map[string]string{key: "maybe"}, cmd, "--help")
			if r.code != ExitOK {
				t.Errorf("%s --help with %s=maybe: exit %d\n%s", cmd, key, r.code, r.stderr)
			}
		}
	}
	if checked < 3*8 {
		t.Errorf("only %d checks: the boolean flags were not found in the help texts", checked)
	}
}

// boolFlags lists the flags of cmd that take no value, from its help.
func boolFlags(t *testing.T, cmd string) []string {
	t.Helper()
	r := invoke(t, context.Background(), nil, cmd, "--help")
	var names []string
	for _, line := range strings.Split(r.stdout, "\n") {
		if m := helpFlagLine.FindStringSubmatch(line); m != nil && m[2] == "" && m[1] != "help" {
			names = append(names, m[1])
		}
	}
	return names
}

func golden(t *testing.T, path, got string) {
	t.Helper()
	if *update {
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test -run %s -update to create it)", err, t.Name())
	}
	if d := cmp.Diff(string(want), got); d != "" {
		t.Errorf("%s differs (-want +got; go test -update rewrites it):\n%s", path, d)
	}
}
