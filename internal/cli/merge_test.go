package cli

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/loadgate/loadgate/internal/demoserver"
	"github.com/loadgate/loadgate/results"
)

// distributedScenario sends exactly 600 requests, 200 per segment of
// three, with a duration cap as a hard stop. No warm-up: the server's own
// count must equal the merged one.
const distributedScenario = `version: 1
name: distributed
targets:
  - name: hello
    http: { url: "http://${host}/" }
phases:
  - name: measured
    requests: 600
    concurrency: 6
    duration: 30s
thresholds:
  - requests == 600
  - error_rate == 0
  - p99 < 5s
`

// runSegments runs every segment of a scenario at once, each in its own
// goroutine and out directory, like N machines of a CI matrix, and
// returns the directories in segment order.
func runSegments(t *testing.T, n int, path, host string) []string {
	t.Helper()
	dirs := make([]string, n)
	results := make([]invocation, n)
	var wg sync.WaitGroup
	for i := range n {
		dirs[i] = t.TempDir()
		wg.Go(func() {
			results[i] = invoke(t, context.Background(), nil, "run", "--no-progress",
				"--segment", fmt.Sprintf("%d/%d", i+1, n), "--start-at", "+1s",
				"-o", dirs[i], "--var", "host="+host, path)
		})
	}
	wg.Wait()
	for i, r := range results {
		if r.code != ExitOK {
			t.Fatalf("segment %d/%d: exit %d\nstdout:\n%s\nstderr:\n%s", i+1, n, r.code, r.stdout, r.stderr)
		}
	}
	return dirs
}

func TestDistributedRunMergesExactly(t *testing.T) {
	srv := startServer(t, demoserver.Config{})
	path := writeScenario(t, distributedScenario)
	dirs := runSegments(t, 3, path, srv.HTTPAddr())

	// The histograms of the parts, merged directly: what merge must match.
	direct := results.NewHistogram()
	var partRequests int64
	for i, d := range dirs {
		part := readRun(t, filepath.Join(d, "results.json"))
		c := part.Scenarios[0].Cases[0]
		if c.Stats.Requests != 200 {
			t.Errorf("segment %d/3 sent %d requests, want its share of 200", i+1, c.Stats.Requests)
		}
		if part.Segment.StartAt == nil || part.Segment.Skew < 0 || part.Segment.Skew > 5*time.Second {
			t.Errorf("segment %d/3: start %v, skew %v", i+1, part.Segment.StartAt, part.Segment.Skew)
		}
		partRequests += c.Stats.Requests
		for _, p := range c.Phases {
			direct.Merge(p.Latency)
		}
	}

	out := t.TempDir()
	md := filepath.Join(t.TempDir(), "summary.md")
	r := invoke(t, context.Background(), nil, "merge", "-o", out, "--markdown", md, dirs[2], dirs[0], filepath.Join(dirs[1], "results.json"))
	if r.code != ExitOK {
		t.Fatalf("merge: exit %d\nstdout:\n%s\nstderr:\n%s", r.code, r.stdout, r.stderr)
	}
	merged := readRun(t, filepath.Join(out, "results.json"))
	c := merged.Scenarios[0].Cases[0]
	served := srv.Stats().Requests
	t.Logf("parts %d requests, merged %d, server %d; p99 merged %v, direct %v; rps %.0f over %v",
		partRequests, c.Stats.Requests, served, c.Stats.Latency.P99, direct.Quantile(99), c.Stats.RPS, c.Stats.Elapsed)
	if c.Stats.Requests != partRequests || c.Stats.Requests != served || served != 600 {
		t.Errorf("merged %d requests, parts %d, server %d: want 600 everywhere", c.Stats.Requests, partRequests, served)
	}
	if got, want := c.Stats.Latency.P99, direct.Quantile(99); got != want {
		t.Errorf("merged p99 %v, want %v from the parts' histograms merged directly", got, want)
	}
	if got, want := c.Stats.Latency.Max, direct.Max(); got != want {
		t.Errorf("merged max %v, want %v", got, want)
	}
	if c.Phases[0].Concurrency != 6 {
		t.Errorf("merged concurrency %d, want the scenario's 6", c.Phases[0].Concurrency)
	}
	if len(c.Verdicts) != 3 || !merged.Passed {
		t.Errorf("merged verdicts %+v, passed %v: want three passing", c.Verdicts, merged.Passed)
	}
	if merged.Merged == nil || len(merged.Merged.Segments) != 3 || merged.Merged.Segments[0].Index != 1 {
		t.Errorf("merge block %+v", merged.Merged)
	}
	if !strings.Contains(r.stdout, "loadgate merge: 3 segments of distributed") || !strings.Contains(r.stdout, "requests == 600") {
		t.Errorf("merge console output:\n%s", r.stdout)
	}
	if b, err := os.ReadFile(md); err != nil || !strings.Contains(string(b), "requests == 600") {
		t.Errorf("--markdown not written (%v)", err)
	}
}

func TestMergeRefusesPartsThatDoNotBelongTogether(t *testing.T) {
	srv := startServer(t, demoserver.Config{})
	path := writeScenario(t, distributedScenario)
	small := strings.Replace(distributedScenario, "requests: 600", "requests: 60", 1) // another file hash
	dirs := runSegments(t, 2, path, srv.HTTPAddr())
	other := runSegments(t, 2, writeScenario(t, small), srv.HTTPAddr())
	whole := t.TempDir()
	if r := invoke(t, context.Background(), nil, "run", "--no-progress", "-o", whole, "--var", "host="+srv.HTTPAddr(), path); r.code != ExitOK {
		t.Fatalf("run: exit %d: %s", r.code, r.stderr)
	}
	for _, tc := range []struct {
		name  string
		parts []string
		want  string
	}{
		{"different scenario file", []string{dirs[0], other[1]}, `parts of different scenarios: "distributed"`},
		{"duplicate segment", []string{dirs[0], dirs[0], dirs[1]}, "segment 1/2 is given twice"},
		{"not a part", []string{whole, dirs[1]}, "is not a segment part"},
		{"not results", []string{path}, "not valid JSON"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			out := t.TempDir()
			r := invoke(t, context.Background(), nil, append([]string{"merge", "-o", out}, tc.parts...)...)
			if r.code != ExitUsage {
				t.Fatalf("exit %d, want 2\n%s", r.code, r.stderr)
			}
			if !strings.Contains(r.stderr, tc.want) {
				t.Errorf("stderr lacks %q:\n%s", tc.want, r.stderr)
			}
			if _, err := os.Stat(filepath.Join(out, "results.json")); err == nil {
				t.Error("a refused merge wrote results")
			}
		})
	}
}

// TestMergeTakesRunsConsoleFlags: merge accepts --no-progress and --quiet,
// and their LOADGATE_* forms, as run does, so one set of console flags
// serves every step of a distributed job; --quiet shortens the summary
// to the case's one line.
func TestMergeTakesRunsConsoleFlags(t *testing.T) {
	srv := startServer(t, demoserver.Config{})
	dirs := runSegments(t, 2, writeScenario(t, distributedScenario), srv.HTTPAddr())
	for _, tc := range []struct {
		name  string
		env   map[string]string
		args  []string
		quiet bool
	}{
		{"no flags", nil, nil, false},
		{"--no-progress", nil, []string{"--no-progress"}, false},
		{"--quiet", nil, []string{"--quiet"}, true},
		{"both", nil, []string{"--no-progress", "--quiet"}, true},
		{"from the environment", map[string]string{"LOADGATE_NO_PROGRESS": "true", "LOADGATE_QUIET": "1"}, nil, true},
		{"the command line wins", map[string]string{"LOADGATE_QUIET": "true"}, []string{"--quiet=false", "--no-progress"}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			out := t.TempDir()
			args := append(append([]string{"merge", "-o", out}, tc.args...), dirs...)
			r := invoke(t, context.Background(), tc.env, args...)
			if r.code != ExitOK {
				t.Fatalf("exit %d, want 0\nstdout:\n%s\nstderr:\n%s", r.code, r.stdout, r.stderr)
			}
			if _, err := os.Stat(filepath.Join(out, "results.json")); err != nil {
				t.Errorf("no merged results: %v", err)
			}
			if !strings.Contains(r.stdout, "distributed / hello: 600 requests") && tc.quiet {
				t.Errorf("quiet merge lacks the case's line:\n%s", r.stdout)
			}
			if full := strings.Contains(r.stdout, "Connection Times"); full == tc.quiet {
				t.Errorf("quiet %v, but the ab block is there: %v\n%s", tc.quiet, full, r.stdout)
			}
		})
	}
}

// TestMergeNamesALostSegment: a missing or interrupted part is named with
// its share of the load; nothing is judged (exit 3, never passed) unless
// --allow-partial, which judges what arrived and says so in every report.
func TestMergeNamesALostSegment(t *testing.T) {
	srv := startServer(t, demoserver.Config{})
	dirs := runSegments(t, 2, writeScenario(t, distributedScenario), srv.HTTPAddr())
	interrupted := mutated(t, filepath.Join(dirs[1], "results.json"), "results.json", func(d map[string]any) { d["interrupted"], d["passed"] = true, false })
	const missing = "segment 1/2 missing: 50 % of the load"
	for _, tc := range []struct {
		name     string
		env      map[string]string
		args     []string
		code     int
		headline string
	}{
		{"missing", nil, []string{dirs[1]}, ExitRun, "loadgate: partial — " + missing + "; thresholds not judged"},
		{"interrupted", nil, []string{dirs[0], interrupted}, ExitRun,
			"loadgate: partial — segment 2/2 incomplete (interrupted): 50 % of the load; thresholds not judged"},
		// requests == 600 fails on the 300 that arrived: judged, and said.
		{"--allow-partial", nil, []string{"--allow-partial", dirs[1]}, ExitFailed,
			"loadgate: failed · ⚠ partial, judged on what arrived (--allow-partial): " + missing},
		{"LOADGATE_ALLOW_PARTIAL", map[string]string{"LOADGATE_ALLOW_PARTIAL": "true"}, []string{dirs[1]}, ExitFailed,
			"loadgate: failed · ⚠ partial, judged on what arrived (--allow-partial): " + missing},
	} {
		t.Run(tc.name, func(t *testing.T) {
			out := t.TempDir()
			r := invoke(t, context.Background(), tc.env, append([]string{"merge", "--no-progress", "-o", out}, tc.args...)...)
			if r.code != tc.code {
				t.Fatalf("exit %d, want %d\nstdout:\n%s\nstderr:\n%s", r.code, tc.code, r.stdout, r.stderr)
			}
			if !strings.Contains(r.stdout, tc.headline) {
				t.Errorf("console lacks %q:\n%s", tc.headline, r.stdout)
			}
			if tc.code == ExitRun && !strings.Contains(r.stderr, "thresholds not judged (--allow-partial judges what arrived)") {
				t.Errorf("stderr does not say why:\n%s", r.stderr)
			}
			merged := readRun(t, filepath.Join(out, "results.json"))
			if merged.Passed || len(merged.Merged.Partial()) != 1 {
				t.Errorf("merged passed %v, partial %+v", merged.Passed, merged.Merged.Partial())
			}
			verdicts := len(merged.Scenarios[0].Cases[0].Verdicts)
			if judged := tc.code != ExitRun; judged != (verdicts > 0) {
				t.Errorf("%d verdicts in results.json, judged %v", verdicts, judged)
			}
			for _, f := range []string{"summary.md", "junit.xml", "report.html"} {
				b, err := os.ReadFile(filepath.Join(out, f))
				if err != nil {
					t.Fatal(err)
				}
				want := tc.headline
				if f == "report.html" {
					// The page draws ⚠ as an icon: the words after it.
					want = want[strings.LastIndex(want, "⚠ ")+len("⚠ "):]
				}
				if !strings.Contains(string(b), want) {
					t.Errorf("%s lacks the headline's %q", f, want)
				}
			}
		})
	}
}
