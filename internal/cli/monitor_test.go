package cli

import (
	"context"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
)

// TestGoneMonitoredProcessExits3BeforeAnyLoad runs two scenarios, the
// second watching a process that has exited: the run exits 3 naming the
// monitor's line, and neither scenario sends a request, the first one
// included.
func TestGoneMonitoredProcessExits3BeforeAnyLoad(t *testing.T) {
	var hits atomic.Int64
	web := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		hits.Add(1)
		_, _ = w.Write([]byte("hello"))
	}))
	defer web.Close()
	gone := exec.Command("true")
	if err := gone.Run(); err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	body := func(name, monitor string) string {
		return "version: 1\nname: " + name + "\n" + monitor + "targets:\n  - name: api\n    http: { url: \"" + web.URL + "/\" }\n" +
			"phases:\n  - { name: m, requests: 10, concurrency: 1 }\nthresholds:\n  - server.rss_max > 1MiB\n"
	}
	first, second := filepath.Join(dir, "1-first.yaml"), filepath.Join(dir, "2-watched.yaml")
	for path, src := range map[string]string{
		first:  body("first", ""),
		second: body("watched", "monitor: { pid: "+strconv.Itoa(gone.Process.Pid)+" }\n"),
	} {
		if err := os.WriteFile(path, []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	out := filepath.Join(dir, "out")
	inv := invoke(t, context.Background(), nil, "run", "--no-progress", "-o", out, first, second)
	want := "loadgate: watched: " + second + ":3:1: monitor: process " + strconv.Itoa(gone.Process.Pid) +
		" is gone: nothing can be measured of it; start it before the run, or name one that runs (nothing was sent)\n"
	if inv.code != ExitRun || !strings.HasSuffix(inv.stderr, want) {
		t.Errorf("exit %d, stderr:\n%s\nwant exit %d ending with:\n%s", inv.code, inv.stderr, ExitRun, want)
	}
	if n := hits.Load(); n != 0 {
		t.Errorf("%d requests were sent", n)
	}
	if _, err := os.Stat(filepath.Join(out, "results.json")); err == nil {
		t.Error("results.json was written for a run that did not start")
	}
}
