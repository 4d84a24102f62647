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
	// Histograms of another range or precision: 1 µs..10 h at 3 digits
	// with samples of 5 µs and 2 h (refused), of 5 and 50 µs (accepted),
	// and 1 µs..1 s at 1 digit (refused).
	for _, h := range []string{
		"HISTFAAAAC142pJpmSzMwMDAxgABzFCakYGBgSPxSAaD/QeIACfT7V9MTIAAAAD//2ttBfk=",
		"HISTFAAAACp42pJpmSzMwMDAwgABzFCakYGBgSPxSAaD/QeIACdTOBMgAAD//10zBHc=",
		"HISTFAAAACZ42pJpmSzMwMDAygABjCg0v5OD/QeIACfTRkYmQAAAAP//UZcDzQ==",
	} {
		f.Add([]byte(`{"schema":1,"scenarios":[{"name":"s","cases":[{"id":"c","phases":[{"name":"m","requests":2,"succeeded":2,"latency":"` + h + `"}]}]}]}`))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		run, err := results.ReadRun(bytes.NewReader(data))
		if err != nil {
			return
		}
		// Whatever histograms a file holds, the case's merged one keeps
		// every sample of its phases': none is dropped in silence.
		for _, sr := range run.Scenarios {
			for _, c := range sr.Cases {
				var n int64
				for _, p := range c.Phases {
					n += p.Latency.Count()
				}
				if got := c.Stats.LatencyHist.Count(); got != n {
					t.Fatalf("case %q: merged latency holds %d samples, its phases %d", c.ID, got, n)
				}
			}
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
