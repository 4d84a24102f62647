package cli

import (
	"bytes"
	"context"
	"strings"
	"testing"

	"github.com/loadgate/loadgate/internal/demoserver"
)

func TestLogColor(t *testing.T) {
	tests := []struct {
		name     string
		terminal bool
		noColor  string
		want     bool
	}{
		{"a terminal", true, "", true},
		{"a pipe or a CI log file", false, "", false},
		{"a terminal with NO_COLOR=1", true, "1", false},
		{"NO_COLOR counts whatever its value, even 0", true, "0", false},
		{"neither a terminal nor wanted", false, "1", false},
	}
	for _, tt := range tests {
		if got := logColor(tt.terminal, tt.noColor); got != tt.want {
			t.Errorf("%s: logColor(%v, %q) = %v, want %v", tt.name, tt.terminal, tt.noColor, got, tt.want)
		}
	}
}

// TestConsoleLoggerColoursOnlyWhenAsked: the same log line with and
// without colour, so that the check for escapes is shown able to fail.
func TestConsoleLoggerColoursOnlyWhenAsked(t *testing.T) {
	for _, color := range []bool{false, true} {
		var b bytes.Buffer
		log, err := newLogger(&b, "info", "console", color)
		if err != nil {
			t.Fatal(err)
		}
		log.Warn().Str("target", "hello").Msg("slow")
		if !strings.Contains(b.String(), "slow") {
			t.Fatalf("color=%v: no log line: %q", color, b.String())
		}
		if got := strings.Contains(b.String(), "\x1b["); got != color {
			t.Errorf("color=%v: ANSI escapes present = %v in %q", color, got, b.String())
		}
	}
}

// TestRunLogsHaveNoColourOffATerminal: stderr here is a buffer, as it is a
// log file in CI; run's console logs must reach it without escapes.
func TestRunLogsHaveNoColourOffATerminal(t *testing.T) {
	srv := startServer(t, demoserver.Config{})
	path := writeScenario(t, strings.Replace(basicScenario, "RULE", "true", 1))
	r := invoke(t, context.Background(), nil, "run", "--no-progress", "--log-level", "debug", "-o", "",
		"--var", "host="+srv.HTTPAddr(), path)
	if r.code != ExitOK {
		t.Fatalf("exit %d\n%s", r.code, r.stderr)
	}
	if !strings.Contains(r.stderr, " DBG ") && !strings.Contains(r.stderr, " INF ") {
		t.Fatalf("no console log line on stderr to check:\n%s", r.stderr)
	}
	if strings.Contains(r.stderr, "\x1b") {
		t.Errorf("ANSI escapes in stderr off a terminal:\n%q", r.stderr)
	}
}
