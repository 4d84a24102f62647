package reporters

import (
	"bytes"
	"io"
	"os"
	"testing"

	"github.com/loadgate/loadgate/results"
)

// FuzzReadRun feeds arbitrary documents to the results decoder, which reads
// baselines, segment parts and compare inputs from disk: it must never
// panic, and whatever it accepts must render to every output and read back.
func FuzzReadRun(f *testing.F) {
	golden, err := os.ReadFile("testdata/results.golden.json")
	if err != nil {
		f.Fatal(err)
	}
	f.Add(golden)
	f.Add([]byte(`{"schema":1,"scenarios":[{"name":"s","cases":[{"id":"c","phases":[],"stats":{"requests":-1}}]}]}`))
	f.Add([]byte(`{"schema":1,"scenarios":[null]}`))
	f.Add([]byte(`{"schema":1,"scenarios":[{"name":"s","cases":[{"id":"c","stats":{"rps":1e308}}]}]}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		run, err := results.ReadRun(bytes.NewReader(data))
		if err != nil {
			return
		}
		for name, write := range map[string]func(io.Writer, *results.Run) error{
			"json": results.WriteJSON, "junit": WriteJUnit, "markdown": WriteMarkdown,
		} {
			if err := write(io.Discard, run); err != nil {
				t.Fatalf("%s of an accepted document: %v", name, err)
			}
		}
		var again bytes.Buffer
		if err := results.WriteJSON(&again, run); err != nil {
			t.Fatal(err)
		}
		if _, err := results.ReadRun(&again); err != nil {
			t.Fatalf("an accepted document does not read back once written: %v", err)
		}
	})
}
