package results

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	hdr "github.com/HdrHistogram/hdrhistogram-go"
)

// histogramJSON is a histogram of the given range (µs) and precision
// holding samples (µs), encoded as results.json holds one.
func histogramJSON(t *testing.T, lowest, highest int64, digits int, samples ...int64) string {
	t.Helper()
	h := hdr.New(lowest, highest, digits)
	for _, v := range samples {
		if err := h.RecordValue(v); err != nil {
			t.Fatal(err)
		}
	}
	enc, err := h.Encode(hdr.V2CompressedEncodingCookieBase)
	if err != nil {
		t.Fatal(err)
	}
	q, _ := json.Marshal(string(enc))
	return string(q)
}

// TestReadRunHistogramsOfOtherGeometries reads documents whose phases'
// histograms have another range or precision than loadgate's: those that
// can join loadgate's own keep every sample in the case's merged
// histogram; the others are refused, saying why, rather than merged with
// samples lost.
func TestReadRunHistogramsOfOtherGeometries(t *testing.T) {
	const hour = int64(time.Hour / time.Microsecond)
	doc := func(first, second string) string {
		return fmt.Sprintf(`{"schema": 1, "scenarios": [{"name": "s", "cases": [{"id": "a", "phases": [
			{"name": "m1", "requests": 3, "succeeded": 3, "latency": %s},
			{"name": "m2", "requests": 2, "succeeded": 2, "latency": %s}]}]}]}`, first, second)
	}
	ours := histogramJSON(t, 1, hour, 3, 100, 200)
	tests := []struct {
		name      string
		first     string
		wantCount int64  // samples in the case's merged histogram
		wantErr   string // when refused
	}{
		{"loadgate's own", histogramJSON(t, 1, hour, 3, 5, 6, 7), 5, ""},
		{"a narrower range", histogramJSON(t, 1, 1_000_000, 3, 5, 6, 999_000), 5, ""},
		{"a wider range, samples within 1 h", histogramJSON(t, 1, 10*hour, 3, 5, 6, hour-1), 5, ""},
		{"a wider range, samples beyond 1 h", histogramJSON(t, 1, 10*hour, 3, 5, 2*hour, 3*hour), 0, "has 2 of its 3 samples beyond 3600000000 µs (1 h)"},
		{"coarser buckets", histogramJSON(t, 1, hour, 1, 5, 6, 7), 0, "is coarser than loadgate's"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			run, err := ReadRun(strings.NewReader(doc(tc.first, ours)))
			if tc.wantErr != "" {
				var ge *GeometryError
				if !errors.As(err, &ge) || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("err = %v, want a GeometryError saying %q", err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if got := run.Scenarios[0].Cases[0].Stats.LatencyHist.Count(); got != tc.wantCount {
				t.Errorf("merged latency holds %d samples, want %d", got, tc.wantCount)
			}
		})
	}
}
