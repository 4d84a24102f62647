package cli

import (
	"bytes"
	"context"
	"image/png"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// chromium finds a Chromium to load reports in. Outside CI a machine
// without one skips the browser tests; in CI (CI set, as GitHub and .ci/run do) that is a failure,
// since the check would otherwise pass by never running.
func chromium(t *testing.T) string {
	t.Helper()
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	if os.Getenv("CI") != "" {
		t.Fatal("no chromium on PATH, and CI=true: install Debian's chromium (.ci/run does)")
	}
	t.Skip("no chromium on PATH (set CI=true to make this a failure)")
	return ""
}

// headless runs Chromium on page with no network, no profile and no
// sandbox (CI containers run as root), returning stdout and stderr.
func headless(t *testing.T, bin, page string, args ...string) (stdout, stderr string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	base := []string{"--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
		"--disable-component-update", "--disable-sync", "--no-first-run", "--user-data-dir=" + t.TempDir(),
		"--enable-logging=stderr", "--v=0"}
	cmd := exec.CommandContext(ctx, bin, append(append(base, args...), "file://"+page)...)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Run(); err != nil {
		t.Fatalf("%s: %v\nstderr:\n%s", bin, err, errb.String())
	}
	return out.String(), errb.String()
}

// consoleErrors lists what the page itself logged: Chromium writes a
// page's console messages and uncaught exceptions as CONSOLE lines.
func consoleErrors(stderr string) []string {
	var out []string
	for _, line := range strings.Split(stderr, "\n") {
		if strings.Contains(line, "CONSOLE") || strings.Contains(line, "Uncaught") {
			out = append(out, line)
		}
	}
	return out
}

func TestDemoReportInRealBrowser(t *testing.T) {
	bin := chromium(t)
	out := t.TempDir()
	r := invoke(t, context.Background(), nil, "demo", "--no-progress", "-o", out)
	if r.code != ExitOK && r.code != ExitFailed {
		t.Fatalf("demo: exit %d; stderr:\n%s", r.code, r.stderr)
	}
	page, err := filepath.Abs(filepath.Join(out, "report.html"))
	if err != nil {
		t.Fatal(err)
	}
	src := readFile(t, page)
	charts := strings.Count(src, `<svg class="chart"`)
	if charts == 0 {
		t.Fatal("report.html has no chart")
	}

	dom, stderr := headless(t, bin, page, "--dump-dom")
	if got := strings.Count(dom, `<svg class="chart"`); got != charts {
		t.Errorf("the browser's DOM holds %d charts, the file %d", got, charts)
	}
	for _, want := range []string{
		"throughput (succeeded/s) and errors/s", "latency over time", "latency by percentile (HDR, log scale)",
		"demo: throughput by concurrency", "demo: p99 by concurrency", "Thresholds",
	} {
		if !strings.Contains(dom, want) {
			t.Errorf("the rendered page lacks %q", want)
		}
	}
	if errs := consoleErrors(stderr); len(errs) > 0 {
		t.Errorf("console errors:\n%s", strings.Join(errs, "\n"))
	}

	shot := filepath.Join(t.TempDir(), "report.png")
	_, stderr = headless(t, bin, page, "--hide-scrollbars", "--window-size=1280,1600", "--screenshot="+shot)
	if errs := consoleErrors(stderr); len(errs) > 0 {
		t.Errorf("console errors:\n%s", strings.Join(errs, "\n"))
	}
	if n := distinctColours(t, shot); n < 16 {
		t.Errorf("the screenshot has %d colours: a blank page", n)
	}
}

// distinctColours counts the colours of a PNG, up to 1000: a blank or
// failed render has one or two.
func distinctColours(t *testing.T, path string) int {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	img, err := png.Decode(f)
	if err != nil {
		t.Fatalf("screenshot: %v", err)
	}
	seen := map[[4]uint32]bool{}
	b := img.Bounds()
	for y := b.Min.Y; y < b.Max.Y && len(seen) < 1000; y += 3 {
		for x := b.Min.X; x < b.Max.X; x += 3 {
			r, g, bl, a := img.At(x, y).RGBA()
			seen[[4]uint32{r, g, bl, a}] = true
		}
	}
	return len(seen)
}
