package results

import (
	"bytes"
	"compress/zlib"
	"encoding/base64"
	"encoding/binary"
	"encoding/json"
	"errors"
	"io"
	"testing"
	"time"

	hdr "github.com/HdrHistogram/hdrhistogram-go"
)

// encodeHDR writes, as results.json holds it, a histogram of the given
// range and precision with the given samples (µs).
func encodeHDR(t testing.TB, lowest, highest int64, digits int, samples ...int64) []byte {
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
	data, err := json.Marshal(string(enc))
	if err != nil {
		t.Fatal(err)
	}
	return data
}

// TestHistogramFromFileKeepsEverySample reads histograms of other ranges
// and precisions, as a baseline or a segment written by another tool or
// edited by hand may hold: each is either refused, or merges both ways
// with loadgate's own without losing a sample.
func TestHistogramFromFileKeepsEverySample(t *testing.T) {
	const hour = int64(time.Hour / time.Microsecond)
	tests := []struct {
		name            string
		lowest, highest int64
		digits          int
		samples         []int64
		wantRefused     bool
		wantBeyond      int64 // of the samples refused
		wantP50Near     time.Duration
	}{
		{"loadgate's own", 1, hour, 3, []int64{100, 2000, 2000, 3_000_000}, false, 0, 2 * time.Millisecond},
		{"narrower range", 1, 1_000_000, 3, []int64{150, 150, 990_000}, false, 0, 150 * time.Microsecond},
		{"finer precision", 1, hour, 5, []int64{12345, 12345, 12346}, false, 0, 12345 * time.Microsecond},
		{"wider range, every sample within 1 h", 1, 10 * hour, 4, []int64{10, 20, hour - 1}, false, 0, 20 * time.Microsecond},
		{"empty, wider range", 1, 10 * hour, 3, nil, false, 0, 0},
		{"wider range, samples beyond 1 h", 1, 10 * hour, 3, []int64{10, 2 * hour, 9 * hour}, true, 2, 0},
		// Coarser buckets would move samples: 5000 µs would read as 4608 µs.
		{"coarser lowest unit", 1000, hour, 3, []int64{5000, 5000, 7000}, true, 0, 0},
		{"fewer significant digits", 1, hour, 2, []int64{150}, true, 0, 0},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var h Histogram
			err := json.Unmarshal(encodeHDR(t, tc.lowest, tc.highest, tc.digits, tc.samples...), &h)
			if tc.wantRefused {
				var ge *GeometryError
				if !errors.As(err, &ge) || ge.Beyond != tc.wantBeyond || ge.Count != int64(len(tc.samples)) {
					t.Fatalf("err = %v, want a GeometryError with %d of %d samples beyond", err, tc.wantBeyond, len(tc.samples))
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			n := int64(len(tc.samples))
			if h.Count() != n {
				t.Fatalf("count %d after reading, want %d", h.Count(), n)
			}
			// Both directions: the file's histogram into a new one (Summarize,
			// merge of segments), and samples recorded here into it (trials).
			into := NewHistogram()
			into.Merge(&h)
			ours := NewHistogram()
			ours.Record(time.Microsecond)
			ours.Record(59 * time.Minute)
			h.Merge(ours)
			if into.Count() != n || h.Count() != n+2 {
				t.Errorf("merged counts %d and %d, want %d and %d", into.Count(), h.Count(), n, n+2)
			}
			if got := into.Quantile(50); tc.wantP50Near > 0 && (got < tc.wantP50Near*99/100 || got > tc.wantP50Near*101/100) {
				t.Errorf("p50 = %v, want within 1%% of %v", got, tc.wantP50Near)
			}
		})
	}
}

// FuzzHistogramJSON feeds arbitrary histograms to the decoder of the
// histograms in results.json. The input is the inflated V2 body (a 40-byte
// header with the range and precision, then the counts), which the target
// compresses and quotes as a results file holds it, so that the fuzzer
// explores ranges, precisions and counts rather than zlib checksums. It
// must never panic; what it accepts must merge into a new histogram
// without losing a sample, and must read back once written.
func FuzzHistogramJSON(f *testing.F) {
	const hour = int64(time.Hour / time.Microsecond)
	for _, enc := range [][]byte{
		encodeHDR(f, 1, hour, 3, 1, 500, 500, hour),
		encodeHDR(f, 1, 10*hour, 3, 2*hour),
		encodeHDR(f, 1, 10*hour, 4, 20, 30),
		encodeHDR(f, 1, 1_000_000, 1, 7, 70, 700),
		encodeHDR(f, 1000, hour, 5, 1000, 10_000),
		encodeHDR(f, 1, hour, 3),
	} {
		f.Add(inflateV2(f, enc))
	}
	f.Add([]byte{})
	f.Fuzz(func(t *testing.T, body []byte) {
		var h Histogram
		if err := json.Unmarshal(deflateV2(t, body), &h); err != nil {
			return
		}
		n := h.Count()
		into := NewHistogram()
		into.Merge(&h)
		if into.Count() != n {
			t.Fatalf("merging an accepted histogram kept %d of its %d samples", into.Count(), n)
		}
		again, err := json.Marshal(&h)
		if err != nil {
			t.Fatalf("an accepted histogram does not encode: %v", err)
		}
		var back Histogram
		if err := json.Unmarshal(again, &back); err != nil {
			t.Fatalf("an accepted histogram does not read back once written: %v", err)
		}
		if back.Count() != n || back.Quantile(99) != h.Quantile(99) {
			t.Fatalf("round trip: count %d p99 %v, was %d %v", back.Count(), back.Quantile(99), n, h.Quantile(99))
		}
	})
}

// The compressed V2 encoding: a cookie, the length of what follows, and
// the zlib-compressed body.
const compressedV2Cookie = hdr.V2CompressedEncodingCookieBase | 0x10

// inflateV2 returns the body of a quoted compressed V2 encoding.
func inflateV2(t testing.TB, quoted []byte) []byte {
	t.Helper()
	var s string
	if err := json.Unmarshal(quoted, &s); err != nil {
		t.Fatal(err)
	}
	raw, err := base64.StdEncoding.DecodeString(s)
	if err != nil || len(raw) < 8 {
		t.Fatalf("not a V2 encoding: %v", err)
	}
	z, err := zlib.NewReader(bytes.NewReader(raw[8:]))
	if err != nil {
		t.Fatal(err)
	}
	body, err := io.ReadAll(z)
	if err != nil {
		t.Fatal(err)
	}
	return body
}

// deflateV2 is inflateV2's inverse.
func deflateV2(t testing.TB, body []byte) []byte {
	t.Helper()
	var z bytes.Buffer
	w := zlib.NewWriter(&z)
	if _, err := w.Write(body); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	raw := binary.BigEndian.AppendUint32(nil, uint32(compressedV2Cookie))
	raw = binary.BigEndian.AppendUint32(raw, uint32(z.Len()))
	quoted, err := json.Marshal(base64.StdEncoding.EncodeToString(append(raw, z.Bytes()...)))
	if err != nil {
		t.Fatal(err)
	}
	return quoted
}
