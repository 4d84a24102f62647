package cli

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/loadgate/loadgate/results"
)

const serverGate = "../../docs/examples/server-gate"

// TestServerGateExample runs the scenario of docs/github-actions.md's
// third example as its workflow does, this test binary standing in for
// the server's build: loadgate starts the server from the server: block,
// samples it, keeps its log, and the results carry what the workflow's
// later steps read.
func TestServerGateExample(t *testing.T) {
	t.Setenv(asLoadgate, "1")
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	out := t.TempDir()
	r := invoke(t, context.Background(), nil, "run", "--no-progress", "-o", out, "--var", "server_bin="+exe,
		"--var", "host=127.0.0.1:"+freeLoopbackPort(t), "--var", "duration=300ms", serverGate+".yaml")
	if r.code != ExitOK {
		t.Fatalf("exit %d\n%s\n%s", r.code, r.stdout, r.stderr)
	}
	var res results.Run
	readJSON(t, filepath.Join(out, "results.json"), &res)
	c := res.Scenarios[0].Cases[0]
	if c.Stats.Succeeded == 0 || c.Stats.Failed != 0 {
		t.Errorf("%d succeeded, %d failed: want every request answered", c.Stats.Succeeded, c.Stats.Failed)
	}
	if c.Server == nil || c.Server.Samples < 2 || c.Server.CPUPerRequestUS == nil {
		t.Errorf("server usage %+v: want the started server sampled, with its CPU per request", c.Server)
	}
	if _, err := os.Stat(filepath.Join(out, "server-server.log")); err != nil {
		t.Errorf("the server's log, which the workflow keeps: %v", err)
	}
}

// TestServerGateDocumented: docs/github-actions.md shows the example's
// workflow and scenario as they are in docs/examples.
func TestServerGateDocumented(t *testing.T) {
	doc, err := os.ReadFile("../../docs/github-actions.md")
	if err != nil {
		t.Fatal(err)
	}
	for _, file := range []string{serverGate + ".yml", serverGate + ".yaml"} {
		body, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(string(doc), "```yaml\n"+string(body)+"```\n") {
			t.Errorf("docs/github-actions.md does not show %s as it is", filepath.Base(file))
		}
	}
}
